"""JUnit XML, CSV and Markdown: parsed back, counts matching, injection-safe."""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from auditor.audit import AuditOptions, audit_snapshot
from auditor.audit.findings import SEVERITIES, AuditResult
from auditor.estate.sample import sample_snapshot
from auditor.report import RenderOptions, render
from auditor.report.csv_ import COLUMNS
from tests.report_fixtures import SCRIPT_INJECTION, make_result, synthetic_result

AS_OF = dt.date(2026, 11, 21)


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> AuditResult:
    return make_result(tmp_path_factory.mktemp("tabular"))


# --- JUnit ------------------------------------------------------------------------------------


def test_junit_parses_back_with_matching_counts(result: AuditResult) -> None:
    root = ET.fromstring(render(result, "junit"))
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert len(suites) == len(result.rules)
    # one test case per finding: JUnit counts what every other format counts
    expected_fail = sum(1 for f in result.findings if f.status == "fail")
    expected_skip = sum(1 for f in result.findings if f.status in ("waived", "baselined"))
    assert expected_fail == sum(v for k, v in result.summary().items() if k in SEVERITIES)
    total_cases = sum(len(s.findall("testcase")) for s in suites)
    assert total_cases == len(result.findings) == int(root.get("tests", "-1"))
    assert sum(len(s.findall("testcase/failure")) for s in suites) == expected_fail
    assert int(root.get("failures", "-1")) == expected_fail
    assert sum(len(s.findall("testcase/skipped")) for s in suites) == expected_skip
    assert int(root.get("skipped", "-1")) == expected_skip
    for suite in suites:
        assert int(suite.get("tests", "-1")) == len(suite.findall("testcase"))
        assert int(suite.get("failures", "-1")) == len(suite.findall("testcase/failure"))
        assert int(suite.get("skipped", "-1")) == len(suite.findall("testcase/skipped"))
    # a failure carries message and evidence; a waived case its justification
    by_rule = {s.get("name", "").split(":")[0]: s for s in suites}
    failure = by_rule["CLU-011"].find("testcase/failure")
    assert failure is not None
    assert "version 4.0" in failure.get("message", "")
    assert '"clusterVersion": "4.0"' in (failure.text or "")
    assert "Upgrade the cluster" in (failure.text or "")
    skipped = [
        c.find("skipped") for c in by_rule["DOM-001"].findall("testcase")
        if c.find("skipped") is not None
    ]  # fmt: skip
    assert skipped and "W-0007" in skipped[0].get("message", "")  # type: ignore[union-attr]
    assert "reviewed quarterly" in skipped[0].get("message", "")  # type: ignore[union-attr]
    # three literal secrets on one cluster are three failing test cases with unique names, each
    # named by the resource and the finding's fingerprint
    clu8 = by_rule["CLU-008"].findall("testcase")
    names = [c.get("name", "") for c in clu8]
    assert len(clu8) == 3 and len(set(names)) == 3
    assert all(c.find("failure") is not None for c in clu8)
    fingerprints = {f.fingerprint[:16] for f in result.findings if f.ruleId == "CLU-008"}
    assert {n.rsplit("[", 1)[1].rstrip("]") for n in names} == fingerprints
    for suite in suites:  # names are unique within each suite
        suite_names = [c.get("name") for c in suite.findall("testcase")]
        assert len(suite_names) == len(set(suite_names))


def test_junit_counts_the_failing_findings_of_the_sample_estate() -> None:
    """The sample estate has rules with several findings on one resource (74 test cases once held
    its 78 failing findings): JUnit's failures equal the JSON summary's failing count."""
    sample = audit_snapshot(sample_snapshot(), AuditOptions(use_config=False, as_of=AS_OF))
    summary = json.loads(render(sample, "json"))["summary"]
    failing = sum(summary[s] for s in SEVERITIES)
    root = ET.fromstring(render(sample, "junit"))
    assert failing == len(sample.failures) > 0
    assert int(root.get("failures", "-1")) == failing
    assert len(root.findall("testsuite/testcase/failure")) == failing
    assert int(root.get("tests", "-1")) == len(sample.findings)
    pairs = {(f.ruleId, f.resourceId.lower()) for f in sample.failures}
    assert len(pairs) < failing  # the case the merged test cases undercounted


def test_junit_survives_control_characters(result: AuditResult) -> None:
    bad = dataclasses.replace(result.findings[0], message="bell\x07 nul\x00 esc\x1b end",
                              status="fail")  # fmt: skip
    other = dataclasses.replace(result, findings=[bad])
    root = ET.fromstring(render(other, "junit"))
    failure = root.find("testsuite/testcase/failure")
    # controls are shown, not acted on or silently dropped (auditor.inert)
    assert failure is not None and r"bell\x07 nul\x00 esc\x1b end" in failure.get("message", "")


# --- CSV --------------------------------------------------------------------------------------


def _rows(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"), newline="")))


def test_csv_parses_back_one_row_per_finding(result: AuditResult) -> None:
    data = render(result, "csv")
    assert data.startswith(b"\xef\xbb\xbf")
    rows = _rows(data)
    assert len(rows) == len(result.findings)
    assert tuple(rows[0].keys()) == COLUMNS
    for row, f in zip(rows, result.findings, strict=True):
        assert row["ruleId"] == f.ruleId and row["status"] == f.status
        assert row["resourceId"] == f.resourceId and row["fingerprint"] == f.fingerprint
    waived = [r for r in rows if r["status"] == "waived"]
    assert waived[0]["waiverId"] == "W-0007" and "quarterly" in waived[0]["waiverJustification"]
    assert any(SCRIPT_INJECTION in r["message"] for r in rows)  # data kept verbatim, as text


@pytest.mark.parametrize(
    "hostile",
    ["=1+1", "+SUM(A1)", "-2+3", "@SUM(1)", '=HYPERLINK("http://x.invalid")', "\t=1", "\r=1"],
)
def test_csv_is_formula_injection_safe(result: AuditResult, hostile: str) -> None:
    f = dataclasses.replace(
        result.findings[0], message=hostile, resourceId=hostile, title=hostile,
        remediation=hostile, evidence={},
    )  # fmt: skip
    rows = _rows(render(dataclasses.replace(result, findings=[f]), "csv"))
    for key in ("message", "resourceId", "title", "remediation"):
        assert rows[0][key] == "'" + hostile
    for row in rows:
        for value in row.values():
            assert not value.startswith(("=", "+", "-", "@", "\t", "\r"))


# --- Markdown ---------------------------------------------------------------------------------


def test_markdown_has_counts_and_top_failures(result: AuditResult) -> None:
    md = render(result, "markdown").decode("utf-8")
    summary = result.summary()
    for sev in SEVERITIES:
        assert f" {sev} | {summary[sev]} |" in md
    assert f"| {summary['passed']} | {summary['waived']} | {summary['baselined']} |" in md
    assert "**Audit failed**" in md
    assert "### Top failures" in md
    assert "<details><summary>All failing findings by rule" in md
    assert "W-0009" in md and "W-0012" in md
    # nothing from the data becomes HTML, a link or an image
    assert "<script" not in md and "<img" not in md and "<b>" not in md
    assert "&lt;script&gt;" in md
    allowed = {"<details>", "<summary>", "</summary>", "</details>"}
    import re

    tags = set(re.findall(r"</?[a-zA-Z][^>]*>", md))
    assert tags <= allowed | {"<details><summary>"}, tags - allowed


def test_markdown_stays_within_a_comment(tmp_path: Path) -> None:
    big = synthetic_result(5_000)
    md = render(big, "markdown", None, RenderOptions(markdown_max_chars=60_000)).decode()
    assert len(md) <= 65_536
    assert "more failing findings are not shown" in md
    assert md.count("<details>") == md.count("</details>")


def test_markdown_passed_gate() -> None:
    passing = synthetic_result(0)
    md = render(passing, "markdown").decode()
    assert "**Audit passed**" in md
