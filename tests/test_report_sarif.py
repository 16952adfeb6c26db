"""SARIF 2.1.0: valid against the official schema and within code-scanning rules and limits."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from auditor.audit.findings import AuditResult
from auditor.report import RenderOptions, render
from auditor.report.sarif import SECURITY_SEVERITY, parse_json_path
from tests.report_fixtures import SECRETS, make_result, synthetic_result

SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, AuditResult]:
    folder = tmp_path_factory.mktemp("sarif")
    return folder, make_result(folder)


def _sarif(result: AuditResult, **options: Any) -> dict[str, Any]:
    data = render(result, "sarif", None, RenderOptions(**options))
    doc: dict[str, Any] = json.loads(data)
    return doc


def _validate(doc: dict[str, Any]) -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    errors = sorted(cls(schema).iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:10])


def _check_code_scanning_rules(doc: dict[str, Any]) -> None:
    """What code-scanning services require beyond the schema."""
    assert doc["version"] == "2.1.0"
    assert len(doc["runs"]) <= 20
    for run in doc["runs"]:
        rules = run["tool"]["driver"]["rules"]
        assert len(rules) <= 25_000
        ids = [r["id"] for r in rules]
        assert len(ids) == len(set(ids))
        for r in rules:
            sev = r["properties"]["security-severity"]
            assert isinstance(sev, str) and 0.0 < float(sev) <= 10.0
            assert "security" in r["properties"]["tags"]
            assert len(r["properties"]["tags"]) <= 20
            assert r["shortDescription"]["text"] and r["fullDescription"]["text"]
            assert r["help"]["text"] and r["name"]
        results = run["results"]
        assert len(results) <= 25_000
        artifacts = run["artifacts"]
        for res in results:
            assert res["ruleId"] in ids
            assert ids[res["ruleIndex"]] == res["ruleId"]
            assert res["message"]["text"] and len(res["message"]["text"]) <= 4_000
            assert 1 <= len(res["locations"]) <= 1_000
            phys = res["locations"][0]["physicalLocation"]
            uri = phys["artifactLocation"]["uri"]
            assert uri.strip(), "artifact URIs must not be empty"
            assert artifacts[phys["artifactLocation"]["index"]]["location"]["uri"] == uri
            assert phys["region"]["startLine"] >= 1
            assert res["partialFingerprints"]
            assert res["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]


def test_sarif_is_valid_and_fit_for_code_scanning(sample: tuple[Path, AuditResult]) -> None:
    folder, result = sample
    doc = _sarif(result, source_root=str(folder))
    _validate(doc)
    _check_code_scanning_rules(doc)
    run = doc["runs"][0]
    results = run["results"]
    # passes are not results (a rule without results closes its alerts)
    assert len(results) == sum(1 for f in result.findings if f.status != "pass")
    assert all(r["kind"] == "fail" for r in results)
    # every result is anchored to the finding's source, relative to the source root
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert uris == {"estate/snapshot.json", "deploy/plan.json"}
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == folder.resolve().as_uri() + "/"
    by_resource = {r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] for r in results}
    assert by_resource == {f.resourceId for f in result.findings if f.status != "pass"}
    fingerprints = {r["partialFingerprints"]["auditorFindingHash/v1"] for r in results}
    assert fingerprints == {f.fingerprint for f in result.findings if f.status != "pass"}
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert rules["CLU-008"]["properties"]["security-severity"] == "9.5"
    assert rules["DOM-001"]["properties"]["security-severity"] == "8.0"
    assert rules["DOM-007"]["properties"]["security-severity"] == "5.5"
    assert rules["DOM-006"]["properties"]["security-severity"] == "3.0"
    assert rules["DENY-001"]["properties"]["security-severity"] == "1.0"
    assert "Set properties.publicNetworkAccess to Disabled" in rules["DOM-001"]["help"]["text"]
    assert rules["RBAC-010"]["helpUri"].startswith("https://")


def test_waived_results_are_suppressed_with_the_justification(
    sample: tuple[Path, AuditResult],
) -> None:
    folder, result = sample
    results = _sarif(result, source_root=str(folder))["runs"][0]["results"]
    waived = [r for r in results if r["properties"]["status"] == "waived"]
    assert len(waived) == sum(1 for f in result.findings if f.status == "waived") == 1
    sup = waived[0]["suppressions"][0]
    assert sup["kind"] == "external" and sup["status"] == "accepted"
    assert "reviewed quarterly" in sup["justification"]
    assert sup["properties"]["waiverId"] == "W-0007"
    # an expired waiver does not suppress: those findings fail again
    expired = [r for r in results if r["ruleId"] == "TOK-001"]
    assert expired and all("suppressions" not in r for r in expired)
    baselined = [r for r in results if r["properties"]["status"] == "baselined"]
    assert baselined and all(r["baselineState"] == "unchanged" for r in baselined)


def test_json_paths_map_to_lines(sample: tuple[Path, AuditResult]) -> None:
    folder, result = sample
    results = _sarif(result, source_root=str(folder))["runs"][0]["results"]
    plan_lines = (folder / "deploy" / "plan.json").read_text().splitlines()
    snap_lines = (folder / "estate" / "snapshot.json").read_text().splitlines()

    def line_of(rule: str, text: str) -> int:
        for r in results:
            if r["ruleId"] == rule and text in r["message"]["text"]:
                return int(r["locations"][0]["physicalLocation"]["region"]["startLine"])
        raise AssertionError(rule)

    gw = line_of("CLU-008", "gateway password")
    assert '"restAuthCredential.password"' in plan_lines[gw - 1]
    node = line_of("CLU-008", "node password")
    assert '"password"' in plan_lines[node - 1]
    tls = line_of("DOM-004", "billing")
    assert '"minimumTlsVersionAllowed"' in snap_lines[tls - 1]
    # a field that is missing (the default applies) points at its parent object
    missing = line_of("DOM-001", "new-domain")
    assert '"properties"' in plan_lines[missing - 1]
    # no snippet of the source file (a plan may hold literal secrets)
    text = json.dumps(results)
    assert "snippet" not in text
    assert not any(s in text for s in SECRETS)


def test_sarif_anchor_overrides_sources(sample: tuple[Path, AuditResult]) -> None:
    folder, result = sample
    anchor = folder / "infra" / "estate.tf"
    anchor.parent.mkdir(exist_ok=True)
    anchor.write_text("# the estate\n")
    doc = _sarif(result, source_root=str(folder), sarif_anchor=str(anchor))
    _validate(doc)
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in doc["runs"][0]["results"]
    }
    assert uris == {"infra/estate.tf"}


def test_results_without_source_use_the_target_or_anchor(tmp_path: Path) -> None:
    result = make_result(tmp_path)
    result.findings = [dataclasses.replace(f, source=None, location=None) for f in result.findings]
    doc = _sarif(result, source_root=str(tmp_path))
    _check_code_scanning_rules(doc)
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in doc["runs"][0]["results"]
    }
    assert uris == {"estate/snapshot.json"}  # the audited snapshot
    api = dataclasses.replace(result, target="https://api.example.invalid", targetKind="api")
    (tmp_path / "README.md").write_text("# estate\n")
    doc = _sarif(api, source_root=str(tmp_path), sarif_anchor=str(tmp_path / "README.md"))
    _validate(doc)
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in doc["runs"][0]["results"]
    }
    assert uris == {"README.md"}
    # nothing at all to anchor to: still a non-empty URI, still valid
    doc = _sarif(dataclasses.replace(api), source_root=str(tmp_path))
    _validate(doc)
    _check_code_scanning_rules(doc)


def test_limits_are_respected(tmp_path: Path) -> None:
    result = synthetic_result(400)
    long = "x" * 20_000 + "\x00\x1b"
    result.findings[0] = dataclasses.replace(result.findings[0], message=long, status="fail")
    doc = _sarif(result, source_root=str(tmp_path), sarif_max_results=100)
    _validate(doc)
    _check_code_scanning_rules(doc)
    run = doc["runs"][0]
    assert len(run["results"]) == 100
    note = run["invocations"][0]["toolExecutionNotifications"][0]
    assert "left out" in note["message"]["text"]
    # the most severe are kept
    kept = [r["properties"]["severity"] for r in run["results"]]
    assert kept.count("critical") == sum(
        1 for f in result.findings if f.severity == "critical" and f.status != "pass"
    )
    assert RenderOptions().sarif_max_results == 25_000
    assert set(SECURITY_SEVERITY) == {"critical", "high", "medium", "low", "info"}


@pytest.mark.parametrize(
    ("path", "parts"),
    [
        ("domains[0].properties.publicNetworkAccess",
         ("domains", 0, "properties", "publicNetworkAccess")),
        ("$.requests[1].body", ("requests", 1, "body")),
        ("a['b.c'][2]", ("a", "b.c", 2)),
        ("/a/b~1c/0", ("a", "b/c", 0)),
        ("", ()),
    ],
)  # fmt: skip
def test_json_path_forms(path: str, parts: tuple[object, ...]) -> None:
    assert parse_json_path(path) == parts
