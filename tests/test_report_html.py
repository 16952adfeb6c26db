"""The HTML report read as a file: self-contained, script pinned by CSP, data inert, SVG sound.
(The browser test opens it for real.)"""

from __future__ import annotations

import base64
import hashlib
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

from auditor.audit.findings import AuditResult
from auditor.report import RenderOptions, render
from auditor.report._svg import escalation_graph, severity_chart, status_bar
from tests.report_fixtures import BOLD, SCRIPT_INJECTION, make_result, sample_access


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, _Collector, AuditResult]:
    folder = tmp_path_factory.mktemp("html")
    result = make_result(folder)
    html = render(result, "html", folder / "report.html", RenderOptions()).decode("utf-8")
    parsed = _Collector()
    parsed.feed(html)
    return html, parsed, result


def test_self_contained_and_offline(page: tuple[str, _Collector, AuditResult]) -> None:
    html, parsed, _ = page
    for tag, attrs in parsed.tags:
        assert tag not in {"link", "iframe", "object", "embed", "img", "base"}, tag
        src = attrs.get("src")
        assert src is None, f"{tag} loads {src}"
        href = attrs.get("href")
        if tag == "a" and href is not None:  # nh3 drops a javascript: href, keeping the text
            assert href.startswith(("#", "https://", "http://", "mailto:")), href
    assert "@import" not in html
    assert not re.search(r"url\((?!\s*['\"]?data:)", html), "CSS loads something"
    assert "<!DOCTYPE html>" in html


def test_one_script_pinned_by_the_csp(page: tuple[str, _Collector, AuditResult]) -> None:
    _, parsed, _ = page
    assert len(parsed.scripts) == 1
    metas = [a for t, a in parsed.tags if t == "meta" and a.get("http-equiv")]
    csp = metas[0].get("content") or ""
    assert metas[0]["http-equiv"] == "Content-Security-Policy"
    assert "default-src 'none'" in csp and "style-src 'unsafe-inline'" in csp
    assert "img-src data:" in csp
    digest = base64.b64encode(hashlib.sha256(parsed.scripts[0].encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in csp
    assert "'unsafe-inline'" not in csp.split("script-src", 1)[1].split(";")[0]


def test_injection_in_event_description_is_inert(
    page: tuple[str, _Collector, AuditResult],
) -> None:
    html, parsed, _ = page
    for _tag, attrs in parsed.tags:
        for name, value in attrs.items():
            assert not name.startswith("on"), f"event handler attribute {name}"
            assert "javascript:" not in (value or "").lower()
    assert "alert(1)</script>" not in html
    assert SCRIPT_INJECTION not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # the message, shown as text
    assert BOLD in html  # the cleaned description keeps its harmless markup


def test_sections_and_content(page: tuple[str, _Collector, AuditResult]) -> None:
    html, parsed, result = page
    ids = {a.get("id") for _, a in parsed.tags}
    for section in ("summary", "findings", "resources", "waivers", "access", "catalogue"):
        assert section in ids
    for f in result.findings:
        assert f.ruleId in html
    assert "Partner webhooks publish from the internet" in html  # waiver register
    assert "W-0012" in html and "W-0009" in html
    assert "Carol Ops" in html and "roleAssignments/write" in html  # escalation path
    assert "Set properties.publicNetworkAccess to Disabled" in html  # remediation
    assert 'class="chart severity-chart"' in html
    rows = [a for t, a in parsed.tags if t == "tr" and "finding" in (a.get("class") or "")]
    # passes are counted per rule and resource type, not listed (--include-passed lists them)
    assert len(rows) == sum(1 for f in result.findings if f.status != "pass")
    assert {a["data-status"] for a in rows} == {"fail", "waived", "baselined"}
    assert "passed-counts" in ids
    full = render(result, "html", None, RenderOptions(include_passed=True)).decode()
    assert full.count('class="finding"') == len(result.findings)
    assert 'data-status="pass"' in full and "passed-counts" not in full


def test_svg_pictures_are_well_formed_and_escape_labels() -> None:
    access = sample_access()
    for path in access.escalations:
        svg = escalation_graph(path)
        root = ET.fromstring(svg)
        assert root.tag.endswith("svg")
        assert "<script" not in svg
        if any("<script>" in label for _, label in path.steps):
            assert "&lt;script&gt;" in svg
        n = len(path.steps)
        assert len([e for e in root.iter() if e.tag.endswith("rect")]) == n
    for svg in (severity_chart({"critical": 3, "high": 0}), status_bar({"fail": 2, "pass": 1})):
        ET.fromstring(svg)


def test_html_without_access_or_findings(tmp_path: Path) -> None:
    result = make_result(tmp_path)
    empty = AuditResult(findings=[], rules=result.rules, startedAt="s", finishedAt="f",
                        target="t")  # fmt: skip
    html = render(empty, "html").decode()
    assert "Gate passed" in html and 'id="access"' not in html


def test_evidence_markup_detection(tmp_path: Path) -> None:
    import dataclasses

    result = make_result(tmp_path)
    f = dataclasses.replace(
        result.findings[0],
        evidence={
            "reference": "<GATEWAY_PASSWORD>",
            "generic": "List<String>",
            "described": "<p>Use <code>az</code> <i>now</i></p><style>*{}</style>",
        },
    )
    html = render(dataclasses.replace(result, findings=[f]), "html").decode()
    assert "&lt;GATEWAY_PASSWORD&gt;" in html  # a secret reference is text, not a tag
    assert "List&lt;String&gt;" in html
    assert "<p>Use <code>az</code> <i>now</i></p>" in html  # harmless markup kept
    assert "*{}" not in html
