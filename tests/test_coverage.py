"""Coverage (contracts 6, issue 18 "no silent answers"): a rule whose input is absent reports
``unknown`` instead of passing, the run says what it read and which rules could not run fully, and
``--require-complete`` makes that exit 3.

A section left out of the snapshot is "not collected"; the same section given as an empty list is
"listed, none" and the rules judge it as such.
"""

from __future__ import annotations

import datetime as dt
import json
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from auditor.audit.packs import load_catalogue
from auditor.audit.runner import AuditOptions, audit_snapshot
from auditor.cli import main
from auditor.errors import InputError
from auditor.estate.sample import sample_snapshot_json
from auditor.estate.snapshot import dumps_snapshot, loads_snapshot
from auditor.report import render

AS_OF = dt.date(2026, 11, 21)
DIRECTORY_RULES = {"RBAC-003", "RBAC-004", "RBAC-005", "RBAC-010"}
DENY_RULES = {"DENY-001", "DENY-002", "DENY-003", "RBAC-013"}
ROLE_RULES = {"RBAC-006", "RBAC-007", "RBAC-010", "RBAC-012", "RBAC-013", "RBAC-015"}


def _snapshot(drop: tuple[str, ...] = (), **replace: Any) -> bytes:
    doc = sample_snapshot_json()
    for key in drop:
        del doc[key]
    doc.update(replace)
    return json.dumps(doc).encode()


def _audit(data: bytes, **kw: Any) -> Any:
    snapshot = loads_snapshot(data, source="estate.json")
    return audit_snapshot(snapshot, AuditOptions(use_config=False, as_of=AS_OF, **kw))


@pytest.fixture(autouse=True)
def _cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


@pytest.fixture(scope="module")
def no_directory() -> Any:
    return _audit(_snapshot(("principals",)))


def test_the_sample_estate_is_fully_covered() -> None:
    result = _audit(_snapshot())
    assert result.coverage.incompleteRules == [] and not result.unknowns
    (entry,) = result.coverage.inputs
    assert entry["kind"] == "snapshot" and entry["file"] == "estate.json"
    assert entry["absent"] == [] and entry["sections"]["principals"] > 0


def test_no_directory_gives_unknown_not_pass(no_directory: Any) -> None:
    by_rule: dict[str, set[str]] = {}
    for f in no_directory.findings:
        by_rule.setdefault(f.ruleId, set()).add(f.status)
    for rule in DIRECTORY_RULES:
        assert by_rule[rule] == {"unknown"}, rule  # one finding, not judged: never a pass
    unknown = [f for f in no_directory.unknowns if f.ruleId in DIRECTORY_RULES]
    assert len(unknown) == len(DIRECTORY_RULES)
    for f in unknown:
        assert f.resourceId == "/" and f.evidence["missing"] == ["principals"]
        assert "principals" in f.message and f.status == "unknown"
    incomplete = {r.ruleId: r.missing for r in no_directory.coverage.incompleteRules}
    assert set(incomplete) == DIRECTORY_RULES
    assert all("principals" in m for m in incomplete.values())
    assert no_directory.coverage.inputs[0]["absent"] == ["principals"]
    # rules that need no directory are judged as before
    assert "fail" in by_rule["RBAC-001"] and "fail" in by_rule["DOM-001"]
    assert no_directory.exit_code == 1  # failures at or above high, as before


def test_an_empty_directory_is_listed_none() -> None:
    """``"principals": []`` is "listed, none", not "not collected": no coverage gap and no
    unknown finding (the rules judge what was listed)."""
    result = _audit(_snapshot(principals=[]))
    assert not result.coverage.incompleteRules and not result.unknowns
    assert result.coverage.inputs[0]["sections"]["principals"] == 0
    assert result.coverage.inputs[0]["absent"] == []


def test_no_deny_assignments_listed() -> None:
    result = _audit(_snapshot(("denyAssignments",)))
    assert {r.ruleId for r in result.coverage.incompleteRules} == DENY_RULES
    for rule in DENY_RULES:
        assert {f.status for f in result.findings if f.ruleId == rule} == {"unknown"}


def test_assigned_roles_without_definitions() -> None:
    """An assignment naming a custom role the snapshot does not define: the rules that read what
    roles grant run for the rest and report one unknown finding naming the missing definition."""
    doc = sample_snapshot_json()
    ghost = "/providers/Cloud.Authorization/roleDefinitions/00000000-0000-4000-8000-00000000abcd"
    doc["roleAssignments"][0]["properties"]["roleDefinitionId"] = ghost
    result = _audit(json.dumps(doc).encode())
    assert {r.ruleId for r in result.coverage.incompleteRules} == ROLE_RULES
    for rule in ROLE_RULES:
        statuses = [f.status for f in result.findings if f.ruleId == rule]
        assert statuses.count("unknown") == 1, rule
        unknown = next(f for f in result.unknowns if f.ruleId == rule)
        assert unknown.evidence["missingRoleDefinitions"] == [ghost]
    judged = [f for f in result.findings if f.ruleId == "RBAC-010" and f.status != "unknown"]
    assert judged  # still judged for the roles it can see


def test_no_role_definitions_section() -> None:
    result = _audit(_snapshot(("roleDefinitions",)))
    missing = {r.ruleId for r in result.coverage.incompleteRules}
    assert {"RBAC-006", "RBAC-007", "RBAC-015"} <= missing


def test_coverage_in_json_text_html_markdown(no_directory: Any) -> None:
    doc = json.loads(render(no_directory, "json"))
    schema = json.loads(
        (resources.files("auditor.report") / "findings.schema.json").read_text("utf-8")
    )
    jsonschema.validate(doc, schema)
    cov = doc["coverage"]
    assert {r["ruleId"] for r in cov["incompleteRules"]} == DIRECTORY_RULES
    assert cov["inputs"][0]["absent"] == ["principals"] and cov["skipped"] == []
    assert doc["summary"]["unknown"] == len(DIRECTORY_RULES)
    text = render(no_directory, "text").decode()
    section = text.split("Coverage:", 1)[1]
    assert "not in it: principals" in section
    assert all(rule in section for rule in DIRECTORY_RULES)
    html = render(no_directory, "html").decode()
    table = html.split('id="incomplete-rules"', 1)[1].split("</table>", 1)[0]
    assert all(f"<code>{rule}</code>" in table for rule in DIRECTORY_RULES)
    markdown = render(no_directory, "markdown").decode()
    assert "### Coverage" in markdown and "`principals`" in markdown


def test_require_complete_exits_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "estate.json"
    path.write_bytes(_snapshot(("principals",)))
    args = ["audit", "--snapshot", str(path), "--as-of", "2026-11-21", "-o", "text"]
    assert main(args) == 1
    capsys.readouterr()
    assert main([*args, "--require-complete"]) == 3
    captured = capsys.readouterr()
    assert "INCOMPLETE: --require-complete" in captured.out
    assert "auditor: exit 3, evaluation incomplete: --require-complete" in captured.err
    assert "RBAC-003" in captured.err
    # RBAC-005 (medium) alone: complete with a directory, incomplete without
    only = ["--check", "RBAC-005", "--require-complete", "-o", "text"]
    full = tmp_path / "full.json"
    full.write_bytes(_snapshot())
    assert main(["audit", "--snapshot", str(full), "--as-of", "2026-11-21", *only]) == 0
    assert main(["audit", "--snapshot", str(path), "--as-of", "2026-11-21", *only]) == 3


def test_fail_on_unknown_on_audit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "estate.json"
    path.write_bytes(_snapshot(("principals",)))
    base = ["audit", "--snapshot", str(path), "--as-of", "2026-11-21", "--check", "RBAC-004"]
    assert main(base) == 0
    assert main([*base, "--fail-on-unknown"]) == 1
    assert "1 unknown finding(s) with --fail-on-unknown" in capsys.readouterr().err


def test_absent_sections_stay_absent_when_written() -> None:
    """A snapshot collected without a directory, written and read back, still says "not
    collected" (not an empty directory)."""
    snapshot = loads_snapshot(_snapshot(("principals", "hierarchy")), source="x")
    again = loads_snapshot(dumps_snapshot(snapshot), source="y")
    assert not again.has_section("principals") and not again.has_section("hierarchy")
    assert again.has_section("roleAssignments")
    written = json.loads(dumps_snapshot(snapshot))
    assert "principals" not in written and "roleAssignments" in written


def test_requires_names_known_inputs(tmp_path: Path) -> None:
    pack = (resources.files("auditor") / ".." / "rules" / "access.yaml").read_text("utf-8")
    assert "requires: [principals]" in pack
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "x.yaml").write_text(
        "version: 1\npack: x\nresourceType: Cloud.Authorization\nrules:\n"
        "  - id: XYZ-001\n    title: t\n    severity: low\n    runsOn: [estate]\n"
        "    description: d\n    check: orphaned-assignments\n    requires: [directory]\n"
        "    message: m\n    passMessage: p\n    remediation: r\n    references: [x]\n"
    )
    with pytest.raises(InputError, match="unknown input 'directory'"):
        load_catalogue(folder)
