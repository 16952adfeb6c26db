"""The engine, the packs and the configuration: rule-pack validation, the catalogue against
rules.md, fingerprints, evidence and locations, settings and selection, and that no secret reaches
any output."""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
from pathlib import Path

import pytest

from auditor._resources import data_dir
from auditor.audit.packs import load_catalogue, shipped_catalogue
from auditor.audit.runner import AuditOptions, audit_snapshot, gate_plan
from auditor.audit.settings import find_config, load_config, select_rules
from auditor.errors import InputError
from auditor.estate.plan import loads_plan
from auditor.estate.sample import (
    LITERAL_STORAGE_KEY,
    SAMPLE_API_TOKEN,
    SSH_PUBLIC_KEY,
    STRONG_LITERAL_PASSWORD,
    WEAK_GATEWAY_PASSWORD,
    WEAK_METASTORE_PASSWORD,
    sample_plans,
    sample_snapshot,
)
from auditor.report import render

RULES_MD = Path(__file__).resolve().parent / "data" / "rules.md"
"""A copy of the spec's rules.md (``test_estate_sample`` checks it is current)."""


def test_catalogue_has_every_rule_of_rules_md() -> None:
    ids = {r.id for r in shipped_catalogue().rules}
    expected = {f"DOM-{i:03d}" for i in range(1, 13)} | {f"CLU-{i:03d}" for i in range(1, 16)}
    expected |= {f"RBAC-{i:03d}" for i in range(1, 16)} | {"DENY-001", "DENY-002", "DENY-003"}
    expected |= {f"HLT-{i:03d}" for i in range(1, 6)} | {f"TOK-{i:03d}" for i in range(1, 7)}
    assert expected <= ids  # and additions (PLAN-001, ACC-001..003, a new rule's one YAML block)


def test_references_and_severities_match_rules_md() -> None:
    rules = shipped_catalogue().by_id()
    rows = re.findall(
        r"^\| ((?:DOM|CLU|RBAC|DENY|HLT|TOK)-\d{3}) \|.*\| (\w+) \| ([^|]+) \|$",
        RULES_MD.read_text(),
        re.M,
    )
    assert rows and len(rows) == len({r[0] for r in rows})
    for rule_id, severity, refs in rows:
        rule = rules[rule_id]
        assert rule.severity == severity, rule_id
        assert list(rule.info.references) == [r.strip() for r in refs.strip().split(";")], rule_id


def _copy_packs(tmp_path: Path) -> Path:
    folder = tmp_path / "rules"
    shutil.copytree(data_dir("rules"), folder)
    return folder


@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        (lambda t: t.replace("check: inbound-ip-rules", "check: no-such-check"), "no-such-check"),
        (
            lambda t: t.replace(
                'predicate: "properties/disableLocalAuth eq true"',
                'predicate: "properties/disableLocalAuth eq ("',
            ),
            "DOM-005",
        ),
        (lambda t: t.replace("severity: low", "severity: urgent", 1), "severity"),
        (lambda t: t.replace("id: DOM-002", "id: DOM-001"), "DOM-001"),
        (lambda t: t + "  - [broken\n", "YAML"),
        (
            lambda t: t.replace(
                '    message: "Domain {resourceName} accepts publishing',
                '    mesage: "x"\n    message: "Domain {resourceName} accepts publishing',
            ),
            "mesage",
        ),
    ],
)
def test_broken_pack_is_a_clear_error(tmp_path: Path, edit: object, needle: str) -> None:
    folder = _copy_packs(tmp_path)
    pack = folder / "domains.yaml"
    pack.write_text(edit(pack.read_text()))  # type: ignore[operator]
    with pytest.raises(InputError) as exc:
        load_catalogue(folder)
    assert "domains.yaml" in str(exc.value)
    assert needle in str(exc.value)


def _plan(name: str) -> object:
    return loads_plan(json.dumps(sample_plans()[name]).encode(), source=f"{name}.json")


OPTS = AuditOptions(use_config=False, as_of=dt.date(2026, 11, 21))


def test_fingerprints_are_stable_and_findings_located() -> None:
    a = gate_plan(_plan("risky-plan"), OPTS)  # type: ignore[arg-type]
    b = gate_plan(_plan("risky-plan"), OPTS)  # type: ignore[arg-type]
    assert [f.fingerprint for f in a.findings] == [f.fingerprint for f in b.findings]
    assert len({f.fingerprint for f in a.findings}) == len(a.findings)
    for f in a.findings:
        assert f.source == "risky-plan.json"
        assert f.location and f.location.startswith("requests[")
    dom = next(f for f in a.findings if f.ruleId == "DOM-001" and f.status == "fail")
    assert dom.location == "requests[0].body"
    assert dom.evidence["properties/publicNetworkAccess"] == "Enabled"
    estate = audit_snapshot(
        sample_snapshot(),
        AuditOptions(use_config=False, as_of=dt.date(2026, 11, 21), checks=["DOM-001"]),
    )
    assert {f.location for f in estate.findings} == {f"domains[{i}]" for i in range(4)}


SECRETS = [
    STRONG_LITERAL_PASSWORD,
    WEAK_GATEWAY_PASSWORD,
    WEAK_METASTORE_PASSWORD,
    LITERAL_STORAGE_KEY,
    SAMPLE_API_TOKEN,
    SSH_PUBLIC_KEY.split()[1],
]


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_no_secret_reaches_any_output(fmt: str) -> None:
    result = gate_plan(_plan("risky-plan"), OPTS)  # type: ignore[arg-type]
    assert {f.ruleId for f in result.failures} >= {"CLU-008", "CLU-010", "TOK-006"}
    text = render(result, fmt).decode()
    for secret in SECRETS:
        assert secret not in text, secret
    assert "a literal value of" in text


def test_scrub_masks_a_secret_that_a_template_would_leak() -> None:
    from auditor.audit.engine import scrub
    from auditor.audit.findings import Finding

    f = Finding("X-001", "high", "fail", "/r", "t", "value hunter2x here", {"v": ["hunter2x"]})
    clean = scrub(f, {"hunter2x"})
    assert "hunter2x" not in clean.message and "hunter2x" not in json.dumps(clean.evidence)


def test_selection_by_id_glob_and_severity() -> None:
    rules = shipped_catalogue().rules
    assert {r.id for r in select_rules(rules, ["dom-00[12]"], [])} == {"DOM-001", "DOM-002"}
    assert all(r.severity == "critical" for r in select_rules(rules, ["critical"], []))
    assert "RBAC-010" not in {r.id for r in select_rules(rules, ["RBAC-*"], ["critical"])}
    with pytest.raises(InputError):
        select_rules(rules, ["NOPE-*"], [])


def test_config_file_lookup_and_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    known = shipped_catalogue().settings
    (tmp_path / "pyproject.toml").write_text(
        '[tool.auditor]\nfail-on = "medium"\nas-of = 2025-01-01\nskip-check = ["HLT-*"]\n'
        "[tool.auditor.settings]\nipv4MinPrefixLength = 24\n"
        "[tool.auditor.rules.DOM-008]\nrequireWithinRegion = true\n"
    )
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    assert find_config() == tmp_path / "pyproject.toml"
    cfg = load_config(None, known)
    assert cfg.fail_on == "medium" and cfg.as_of == dt.date(2025, 1, 1)
    assert cfg.settings == {"ipv4MinPrefixLength": 24, "requireWithinRegion": True}
    assert cfg.skip_checks == ["HLT-*"]
    (sub / "auditor.toml").write_text('[settings]\nminimumClusterVersion = "5.0"\n')
    assert load_config(None, known).settings == {"minimumClusterVersion": "5.0"}


@pytest.mark.parametrize(
    "text",
    [
        "[settings]\nnoSuchSetting = 1\n",
        '[settings]\nipv4MinPrefixLength = "16"\n',
        'fail-on = "urgent"\n',
        'colour = "red"\n',
        "[rules.DOM-001]\nipv4MinPrefixLength = 8\n",
        "this is not toml",
    ],
)
def test_bad_config_is_an_input_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "auditor.toml"
    path.write_text(text)
    with pytest.raises(InputError) as exc:
        load_config(path, shipped_catalogue().settings)
    assert str(path) in str(exc.value)


def test_rules_list_json_shape() -> None:
    from auditor.audit.runner import rule_catalogue_json

    doc = rule_catalogue_json()
    assert {"id", "title", "severity", "resourceType", "references"} <= set(doc["rules"][0])
    assert doc["settings"]["ipv4MinPrefixLength"]["default"] == 16
    assert doc["settings"]["devToolingRetirementDate"]["default"] == "2025-03-31"


def test_finding_field_order_used_by_the_engine() -> None:
    import dataclasses

    from auditor.audit.findings import Finding

    names = [f.name for f in dataclasses.fields(Finding)]
    assert names[:13] == [
        "ruleId",
        "severity",
        "status",
        "resourceId",
        "title",
        "message",
        "evidence",
        "remediation",
        "references",
        "fingerprint",
        "resourceType",
        "source",
        "location",
    ]


def test_bulk_passes_match_single_findings() -> None:
    """The bulk pass path of the engine computes the same fingerprint as findings.fingerprint."""
    from auditor.audit.findings import fingerprint

    result = audit_snapshot(
        sample_snapshot(),
        AuditOptions(
            use_config=False, as_of=dt.date(2026, 11, 21), checks=["RBAC-004", "RBAC-005"]
        ),
    )
    passes = [f for f in result.findings if f.status == "pass"]
    assert len(passes) > 20
    for f in passes:
        assert f.fingerprint == fingerprint(f.ruleId, f.resourceId, "estate")
        assert f.location and f.location.startswith("roleAssignments[")
        assert f.source is not None


def test_bulk_pass_fingerprints_read_as_strings() -> None:
    """A bulk pass defers its fingerprint; every way of reading a finding sees the string."""
    import dataclasses
    import pickle

    from auditor.audit.findings import fingerprint

    result = audit_snapshot(
        sample_snapshot(),
        AuditOptions(use_config=False, as_of=dt.date(2026, 11, 21), checks=["RBAC-005"]),
    )
    passes = [f for f in result.findings if f.status == "pass"]
    assert passes
    for f in passes:
        expected = fingerprint(f.ruleId, f.resourceId, "estate")
        assert isinstance(f.fingerprint, str)
        assert f.to_json()["fingerprint"] == expected
        assert dataclasses.asdict(f)["fingerprint"] == expected
        copy = dataclasses.replace(f)
        assert copy == f and copy.fingerprint == expected
        assert pickle.loads(pickle.dumps(f)) == f
        assert f == dataclasses.replace(f, fingerprint=expected)
