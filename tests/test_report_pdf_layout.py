"""The PDF reports' layout, read back from the PDF and from WeasyPrint's boxes.

The audit report of the sample estate has a table of contents whose page numbers are the pages
its sections start on; the access table's ids stay inside their column; shadow admins (RBAC-010)
are compact rows (principal, scope, operations, path), not a page of JSON each. The GDPR export
reads in plain language, with a count per section that matches the export's JSON, no raw JSON
and no heading left alone at the bottom of a page.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from typing import Any

import pytest
from pypdf import PdfReader

from auditor.access.gdpr import gdpr_export
from auditor.audit.findings import AuditResult
from auditor.audit.runner import AuditOptions, audit_snapshot
from auditor.estate.sample import sample_snapshot
from auditor.report import RenderOptions
from auditor.report.pdf import build_html, render_gdpr_pdf

Laid = tuple[AuditResult, Any, PdfReader, list[str]]


@pytest.fixture(scope="module")
def laid_out() -> Laid:
    """The sample estate's PDF, laid out once in this process (its boxes and its bytes)."""
    import weasyprint

    result = audit_snapshot(sample_snapshot(), AuditOptions())
    document = weasyprint.HTML(string=build_html(result, RenderOptions())).render()
    reader = PdfReader(io.BytesIO(document.write_pdf()))
    pages = [page.extract_text() or "" for page in reader.pages]
    return result, document, reader, pages


def _boxes(box: Any) -> Iterator[Any]:
    yield box
    for child in getattr(box, "children", None) or ():
        yield from _boxes(child)


def test_table_of_contents_gives_the_pages_sections_start_on(laid_out: Laid) -> None:
    _, _, reader, pages = laid_out
    contents = pages[1]
    assert contents.lstrip().startswith("Contents")
    starts = {
        item.title: reader.get_destination_page_number(item) + 1
        for item in reader.outline
        if not isinstance(item, list)
    }
    for title in ("Executive summary", "Findings", "Access", "Waivers", "Appendix: rules"):
        line = next(ln for ln in contents.splitlines() if ln.startswith(title + " "))
        number = re.search(r"(\d+)\s*$", line)
        assert number is not None, line
        assert int(number.group(1)) == starts[title], (title, line, starts[title])
        assert starts[title] > 2
    # a line per rule with findings, pointing at the page of the rule's heading
    assert "RBAC-010 No shadow admin" in contents
    rule_page = int(re.search(r"RBAC-010 No shadow admin[ .]*(\d+)", contents).group(1))  # type: ignore[union-attr]
    assert "RBAC-010" in pages[rule_page - 1]


def test_access_table_ids_stay_in_their_column(laid_out: Laid) -> None:
    _, document, _, pages = laid_out
    cells = 0
    for page in document.pages:
        for box in _boxes(page._page_box):
            if type(box).__name__ != "TableBox" or "access" not in (box.element.get("class") or ""):
                continue
            for cell in _boxes(box):
                if type(cell).__name__ != "TableCellBox":
                    continue
                cells += 1
                right = cell.content_box_x() + cell.width
                for text in _boxes(cell):
                    if type(text).__name__ == "TextBox":
                        assert text.position_x + text.width <= right + 0.5, text.text
    assert cells >= 5 * 15  # five columns, every privileged principal of the sample estate
    assert "Privileged principals per subscription" in "\n".join(pages)


def test_shadow_admins_are_rows_with_their_path_not_json(laid_out: Laid) -> None:
    result, _, _, pages = laid_out
    shadow = [f for f in result.judged if f.ruleId == "RBAC-010"]
    assert len(shadow) >= 3
    heading = re.compile(r"RBAC-010 No shadow admin critical\s+\d+ fail")  # not the summary's
    start = next(i for i, text in enumerate(pages) if heading.search(text))
    rest = heading.split("".join(pages[start : start + 2]), 1)[1]
    # the next rule's heading (its id and title, then its counts) within the same two pages
    next_rule = re.compile(
        r"^[A-Z]+-\d{3} [^\n]*\n\s*\d+ (fail|unknown|waived|baselined|pass)", re.M
    )
    found = next_rule.search(rest)
    assert found is not None, "RBAC-010 takes a page or two, not a page per finding"
    section = rest[: found.start()]
    text = " ".join(section.split())
    assert "PRINCIPAL SCOPE CAN THROUGH" in text
    assert '"kind"' not in text and "{" not in text
    for f in shadow:
        first = f.evidence["path"][0]
        assert first["id"] == f.evidence["principalId"]
        name = first["name"]
        assert name.strip("'") in text, name
    assert text.count("→") >= len(shadow)


def _lines(page: str) -> list[str]:
    """A page's lines without its running header and footer (the last two lines)."""
    lines = [ln for ln in page.splitlines() if ln.strip()]
    return lines[:-2]


def test_gdpr_export_pdf_in_plain_language_with_correct_counts() -> None:
    snapshot = sample_snapshot()
    alice = next(p for p in snapshot.principals if (p.displayName or "").startswith("Alice"))
    export = gdpr_export(snapshot, principal_id=alice.id)
    reader = PdfReader(io.BytesIO(render_gdpr_pdf(export)))
    pages = [page.extract_text() or "" for page in reader.pages]
    text = " ".join(" ".join(pages).split())
    name = "Alice Archer (break-glass)"
    assert f"What we hold about {name}" in text
    roles = export["roleAssignments"]
    groups = export["groupMemberships"]["transitive"]
    dev = export["devTooling"]
    expected = {
        f"Directory entry of {name}": 1,
        f"Groups {name} belongs to": len(groups),
        f"Role assignments held by {name}": len(roles["asPrincipal"]),
        f"Role assignments {name} granted": len(roles["asCreatedBy"]),
        f"Role assignments {name} last changed": len(roles["asUpdatedBy"]),
        f"Deny assignments that apply to {name}": len(export["denyAssignments"]),
        "Developer-tooling app memberships": len(dev["appMemberships"]),
        "API tokens (metadata only, never their values)": len(dev["tokens"]),
    }
    assert expected[f"Role assignments {name} granted"] > 10  # enough to span pages
    for title, count in expected.items():
        plural = "" if count == 1 else "s"
        assert f"{title} ({count} record{plural})" in text, title
    total = int(re.search(r"Records (\d+)", pages[0]).group(1))  # type: ignore[union-attr]
    assert total >= sum(expected.values())
    assert f"{total} records in" in text
    # who granted the person's access, by name; roles by name
    assert "Owner 8e3af657" in text or "Owner\n8e3af657" in " ".join(pages)
    assert text.count(name) > len(roles["asPrincipal"]) + 3
    # no raw JSON anywhere
    assert '{"' not in text and '":' not in text and "[{" not in text
    # no section heading left alone at the bottom of a page
    for page in pages[1:]:
        body = _lines(page)
        assert body and not re.search(r"\(\d+ records?\)$", body[-1]), body[-1:]


def test_large_results_are_capped_per_rule_and_in_the_access_section() -> None:
    """At estate scale the PDF stays a document: at most TABLE_PER_RULE rows per rule and
    ACCESS_ROWS privileged principals, the rest counted (no layout needed to check this)."""
    import dataclasses

    from auditor.audit.findings import Privileged
    from auditor.report import pdf
    from tests.report_fixtures import synthetic_result

    result = synthetic_result(1000)
    rule = result.findings[0].ruleId
    one = next(f for f in result.findings if f.ruleId == rule and f.status == "fail")
    many = [
        dataclasses.replace(one, resourceId=f"{one.resourceId}-{i}", fingerprint=f"fp{i}")
        for i in range(250)
    ]
    assert result.access is not None
    privileged = [
        Privileged(f"/subscriptions/s{i % 3}", f"p-{i}", f"Person {i}", "User", "Owner")
        for i in range(pdf.ACCESS_ROWS + 40)
    ]
    big = dataclasses.replace(
        result,
        findings=many,
        access=dataclasses.replace(result.access, privileged=privileged),
    )
    page = build_html(big, RenderOptions())
    per_rule = RenderOptions().pdf_detail_per_rule
    assert page.count('<div class="finding">') == per_rule
    table = page.split('<table class="grid compact">', 1)[1].split("</table>", 1)[0]
    assert table.count("<tr>") == 1 + pdf.TABLE_PER_RULE  # the header row, then the rows
    left = 250 - per_rule - pdf.TABLE_PER_RULE
    assert f"{left} further finding(s) of {rule}" in page
    assert page.count("Person ") == pdf.ACCESS_ROWS
    assert "40 more privileged principal(s)" in page
