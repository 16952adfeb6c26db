"""Reports at estate scale, in names a reviewer reads.

The HTML of a generated estate lists the failing, unknown and waived findings and counts the passes
per rule and resource type (``--include-passed`` lists them), so it stays small and a real browser
opens it quickly; every report for people shows the display names the snapshot holds (subscription,
resource group, principal, role) next to the ids, which stay for machines; ids break only after
their path separators.
"""

from __future__ import annotations

import base64
import dataclasses
import html as html_lib
import io
import json
import time
from collections import Counter
from pathlib import Path

import pytest

from auditor.audit.findings import AuditResult
from auditor.audit.names import describe, estate_names
from auditor.audit.runner import AuditOptions, audit_snapshot
from auditor.estate.generate import generate_estate
from auditor.estate.sample import sample_snapshot
from auditor.estate.snapshot import load_snapshot
from auditor.report import RenderOptions, render
from tests.test_report_html_browser import Cdp, browser  # noqa: F401  (the chromium fixture)

ASSIGNMENTS = 20_000


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, AuditResult, bytes]:
    folder = tmp_path_factory.mktemp("scale")
    estate = folder / "estate.json"
    generate_estate(ASSIGNMENTS, seed=7, out=estate, progress=False)
    result = audit_snapshot(load_snapshot(estate), AuditOptions())
    page = render(result, "html", folder / "report.html")
    return folder / "report.html", result, page


def test_html_counts_passes_instead_of_listing_them(
    large: tuple[Path, AuditResult, bytes],
) -> None:
    _, result, page = large
    text = page.decode("utf-8")
    listed = [f for f in result.findings if f.status != "pass"]
    passes = len(result.findings) - len(listed)
    assert passes > 10 * len(listed) > 0  # a large estate is mostly passes
    assert text.count('<tr class="finding"') == len(listed)
    assert 'data-status="pass"' not in text
    # the passes, counted per rule and resource type, add up
    table = text.split('id="passed-counts"', 1)[1].split("<tbody>", 1)[1].split("</table>", 1)[0]
    counted = sum(int(cell) for cell in _cells(table, 'class="num">'))
    assert counted == passes == result.summary()["passed"]
    # small: a few KB per listed finding, nothing per pass
    assert len(page) < 3_000 * len(listed) + 400_000, len(page)
    # --include-passed brings them back
    part = dataclasses.replace(result, findings=result.findings[:3000])
    full = render(part, "html", None, RenderOptions(include_passed=True)).decode()
    assert full.count('<tr class="finding"') == 3000 and 'data-status="pass"' in full


def _cells(table: str, marker: str) -> list[str]:
    return [part.split("<", 1)[0] for part in table.split(marker)[1:]]


def test_names_next_to_ids_in_the_large_estate(large: tuple[Path, AuditResult, bytes]) -> None:
    _, result, page = large
    text = page.decode("utf-8")
    plain = render(result, "text").decode("utf-8")
    assignments = [
        f for f in result.findings if f.status != "pass" and "/roleAssignments/" in f.resourceId
    ]
    assert assignments
    for f in assignments:
        name = describe(f.resourceId, result.names)
        assert " as " in name, (f.resourceId, name)  # "principal as role"
        assert html_lib.escape(name, quote=False) in text
        assert name in plain
    assert "Synthetic subscription" in text
    # ids are kept, broken only after a path separator
    rid = assignments[0].resourceId
    assert html_lib.escape(rid).replace("/", "/<wbr>") in text
    rid_rule = text.split(".rid {", 1)[1].split("}", 1)[0]
    assert "break-all" not in rid_rule and "overflow-wrap: anywhere" in rid_rule
    json_report = json.loads(render(result, "json"))
    assert "names" not in json_report  # the JSON keeps ids only


def test_names_of_the_sample_estate_in_every_report_for_people() -> None:
    snapshot = sample_snapshot()
    result = audit_snapshot(snapshot, AuditOptions())
    names = estate_names(snapshot, [f.resourceId for f in result.findings])
    subs = {h.id.lower(): h.displayName for h in snapshot.hierarchy if h.displayName}
    page = render(result, "html").decode("utf-8")
    plain = render(result, "text").decode("utf-8")
    seen = Counter[str]()
    for f in result.findings:
        if f.status == "pass":
            continue
        sub = "/".join(f.resourceId.split("/")[:3]).lower()
        if sub in subs:
            seen["subscription"] += 1
            assert html_lib.escape(subs[sub], quote=False) in page
            assert subs[sub] in plain
        if "/roleassignments/" in f.resourceId.lower() and f.resourceId.lower() in names:
            seen["assignment"] += 1
            label = names[f.resourceId.lower()]
            assert html_lib.escape(label, quote=False) in page, label
            assert label in plain, label
    assert seen["subscription"] > 5 and seen["assignment"] > 2, seen
    assert "Eve Eriksen (Partner) as Owner" in plain  # principal and role, by name
    markdown = render(result, "markdown").decode("utf-8")
    assert "Eve Eriksen \\(Partner\\) as Owner" in markdown  # Markdown-escaped
    assert "Sample Corp Production" in markdown


def test_large_html_opens_quickly_in_chromium(
    browser: Cdp,  # noqa: F811
    large: tuple[Path, AuditResult, bytes],
) -> None:
    from PIL import Image

    path, result, _ = large
    listed = sum(1 for f in result.findings if f.status != "pass")
    started = time.monotonic()
    browser.goto(path.as_uri())
    opened = time.monotonic() - started
    assert opened < 10, f"{opened:.1f} s to open"
    assert browser.js("document.documentElement.classList.contains('js')")
    visible = "document.querySelectorAll('tr.finding:not([hidden])').length"
    assert browser.js(visible) == listed
    # a filter works: critical and high off
    browser.click("input[name=sev][value=high]")
    browser.click("input[name=sev][value=critical]")
    shown = sum(
        1 for f in result.findings if f.status != "pass" and f.severity not in ("high", "critical")
    )
    assert browser.js(visible) == shown < listed
    browser.click("#f-reset")
    shot = browser.call("Page.captureScreenshot", format="png", captureBeyondViewport=False)
    image = Image.open(io.BytesIO(base64.b64decode(shot["data"]))).convert("RGB")
    colours = image.resize((200, 140)).getcolors(maxcolors=200 * 140)
    assert colours is not None and len(colours) > 40, "the page looks blank"
    assert not browser.problems(), browser.problems()


def test_query_shows_principal_and_role_names_next_to_their_guids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from auditor.cli import main
    from auditor.estate.sample import sample_snapshot_bytes

    monkeypatch.setenv("COLUMNS", "400")
    estate = tmp_path / "estate.json"
    estate.write_bytes(sample_snapshot_bytes())
    assert main(["query", "role-assignments", "--snapshot", str(estate)]) == 0
    out = capsys.readouterr().out
    assert "Owner (8e3af657-a8ff-443c-a75c-2fe8c4bcb635)" in out  # role name, then the GUID
    alice = next(
        p for p in sample_snapshot().principals if p.displayName == "Alice Archer (break-glass)"
    )
    assert f"Alice Archer (break-glass) ({alice.id})" in out
    assert main(["query", "role-assignments", "--snapshot", str(estate), "--format", "json"]) == 0
    assert "Alice Archer" not in capsys.readouterr().out  # the JSON keeps the records as they are


def test_gdpr_export_names_the_roles_of_the_assignments() -> None:
    from auditor.access.gdpr import gdpr_export

    snapshot = sample_snapshot()
    eve = next(p for p in snapshot.principals if (p.displayName or "").startswith("Eve Eriksen"))
    document = gdpr_export(snapshot, principal_id=eve.id)
    held = document["roleAssignments"]["asPrincipal"]
    assert held
    for item in held:
        assert item["roleName"], item
        assert item["properties"]["roleDefinitionId"]  # the GUID is kept
    assert "Owner" in {item["roleName"] for item in held}


def test_include_passed_on_the_command_line(tmp_path: Path) -> None:
    from auditor.cli import main
    from auditor.estate.sample import sample_snapshot_bytes

    estate = tmp_path / "estate.json"
    estate.write_bytes(sample_snapshot_bytes())
    counted, listed = tmp_path / "counted.html", tmp_path / "listed.html"
    main(["audit", "--snapshot", str(estate), "-o", f"html={counted}"])
    main(["audit", "--snapshot", str(estate), "-o", f"html={listed}", "--include-passed"])
    assert 'data-status="pass"' not in counted.read_text(encoding="utf-8")
    assert 'id="passed-counts"' in counted.read_text(encoding="utf-8")
    assert 'data-status="pass"' in listed.read_text(encoding="utf-8")
