"""Waivers (contracts 7) with a fixed clock, stale waivers, bad waiver files; baselines (create,
then gate on new findings only; fixed and stale entries reported)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from auditor.audit.runner import AuditOptions, audit_snapshot
from auditor.audit.waivers import load_waivers, parse_waivers
from auditor.errors import InputError
from auditor.estate.sample import DOMAINS, sample_snapshot

AS_OF = dt.date(2026, 11, 21)


def _waivers(tmp_path: Path, text: str) -> str:
    path = tmp_path / "waivers.yaml"
    path.write_text(text)
    return str(path)


def _run(**kw: object) -> object:
    return audit_snapshot(
        sample_snapshot(),
        AuditOptions(use_config=False, as_of=AS_OF, checks=["DOM-*"], **kw),  # type: ignore[arg-type]
    )


WAIVERS = """\
version: 1
waivers:
  - id: W-1
    rule: dom-00[1]
    resource: "/SUBSCRIPTIONS/*/resourceGroups/rg-app-dev/providers/Cloud.EventRouting/domains/*"
    justification: "Dev telemetry is public on purpose"
    expires: 2027-03-31
  - id: W-2
    rule: DOM-004
    resource: "*"
    justification: "Old TLS clients, migration under way"
    expires: 2026-11-20
  - id: W-3
    rule: CLU-*
    resource: "*"
    justification: "nothing matches this"
    expires: 2030-01-01
"""


def test_waived_expired_and_stale(tmp_path: Path) -> None:
    result = _run(waivers=_waivers(tmp_path, WAIVERS))
    waived = [f for f in result.findings if f.status == "waived"]  # type: ignore[attr-defined]
    assert [(f.ruleId, f.resourceId, f.waiver.id) for f in waived] == [
        ("DOM-001", DOMAINS["dom-dev-telemetry"], "W-1")
    ]
    expired = [f for f in result.failures if f.waiver is not None]  # type: ignore[attr-defined]
    assert {f.ruleId for f in expired} == {"DOM-004"} and all(f.waiver.expired for f in expired)
    assert [w.id for w in result.expiredWaivers] == ["W-2"]  # type: ignore[attr-defined]
    assert [w.id for w in result.staleWaivers] == ["W-3"]  # type: ignore[attr-defined]
    assert result.gate_failed and result.exit_code == 1  # type: ignore[attr-defined]
    doc = result.to_json()  # type: ignore[attr-defined]
    assert doc["summary"]["waived"] == 1
    assert doc["waivers"]["expired"][0]["id"] == "W-2"


def test_waiver_valid_through_its_expiry_day(tmp_path: Path) -> None:
    path = _waivers(tmp_path, WAIVERS)
    on_the_day = audit_snapshot(
        sample_snapshot(),
        AuditOptions(
            use_config=False, as_of=dt.date(2026, 11, 20), checks=["DOM-004"], waivers=path
        ),
    )
    assert not on_the_day.expiredWaivers
    assert {f.status for f in on_the_day.findings if f.ruleId == "DOM-004"} == {"waived", "pass"}


def test_expired_waiver_alone_fails_the_gate(tmp_path: Path) -> None:
    path = _waivers(tmp_path, WAIVERS)
    r = audit_snapshot(
        sample_snapshot(),
        AuditOptions(
            use_config=False, as_of=AS_OF, checks=["DOM-011"], fail_on="critical", waivers=path
        ),
    )
    assert r.exit_code == 1


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (
            "version: 1\nwaivers:\n  - id: W-9\n    rule: DOM-001\n    resource: '*'\n    expires: 2027-01-01\n",
            "waivers[0] (W-9)",
        ),
        (
            "version: 1\nwaivers:\n  - id: W-9\n    rule: DOM-001\n    resource: '*'\n    justification: x\n",
            "waivers[0] (W-9)",
        ),
        (
            "version: 1\nwaivers:\n  - id: W-9\n    rule: DOM-001\n    resource: '*'\n    justification: x\n    expires: soon\n",
            "waivers[0] (W-9)",
        ),
        (
            "version: 1\nwaivers:\n  - {id: A, rule: X, resource: y, justification: z, expires: 2027-01-01}\n  - {id: a, rule: X, resource: y, justification: z, expires: 2027-01-01}\n",
            "waivers[1] (a)",
        ),
        ("version: 2\nwaivers: []\n", "version"),
        (
            "version: 1\nwaivers:\n  - id: W\n    rule: X\n    resource: y\n    justification: z\n    expires: 2027-01-01\n    owner: me\n",
            "waivers[0] (W)",
        ),
    ],
)
def test_bad_waiver_files_name_the_entry(tmp_path: Path, text: str, where: str) -> None:
    with pytest.raises(InputError) as exc:
        load_waivers(_waivers(tmp_path, text))
    assert exc.value.location == where
    assert exc.value.exit_code == 2


def test_invalid_yaml_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        load_waivers(_waivers(tmp_path, "version: [1\n"))
    with pytest.raises(InputError):
        load_waivers(tmp_path / "missing.yaml")
    assert parse_waivers({"version": 1, "waivers": None}, "x") == []


def test_baseline_create_then_gate_on_new_only(tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    first = _run(create_baseline=str(baseline))
    assert first.exit_code == 0  # type: ignore[attr-defined]
    entries = json.loads(baseline.read_text())["findings"]
    assert entries and all(e["fingerprint"] for e in entries)
    assert {f.status for f in first.findings} <= {"baselined", "pass"}  # type: ignore[attr-defined]

    # same estate: nothing new
    again = _run(baseline=str(baseline))
    assert again.exit_code == 0 and not again.failures  # type: ignore[attr-defined]

    # one domain fixed, one new failure, one domain gone
    snap = sample_snapshot()
    by_name = {d.name: d for d in snap.domains}
    by_name["dom-dev-telemetry"].properties.disableLocalAuth = True  # DOM-005 fixed
    by_name["dom-orders"].properties.minimumTlsVersionAllowed = "1.0"  # DOM-004 new
    snap.domains = [d for d in snap.domains if d.name != "dom-platform-audit"]
    later = audit_snapshot(
        snap,
        AuditOptions(use_config=False, as_of=AS_OF, checks=["DOM-*"], baseline=str(baseline)),
    )
    assert [(f.ruleId, f.resourceId) for f in later.failures] == [
        ("DOM-004", DOMAINS["dom-orders"])
    ]
    assert later.exit_code == 1
    fixed = {e["fingerprint"]: e for e in entries}
    assert {(fixed[fp]["ruleId"], fixed[fp]["resourceId"]) for fp in later.baselineFixed} == {
        ("DOM-005", DOMAINS["dom-dev-telemetry"])
    }
    assert later.baselineStale and all(
        fixed[fp]["resourceId"] == DOMAINS["dom-platform-audit"] for fp in later.baselineStale
    )
    assert later.to_json()["baseline"]["fixed"] == later.baselineFixed


def test_bad_baseline_file(tmp_path: Path) -> None:
    bad = tmp_path / "b.json"
    bad.write_text("{not json")
    with pytest.raises(InputError):
        _run(baseline=str(bad))
    bad.write_text('{"baselineVersion": 7}')
    with pytest.raises(InputError):
        _run(baseline=str(bad))
