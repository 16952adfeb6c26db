"""The sample estate and the sample plans yield exactly the expected rule outcomes.

``tests/data/audit/sample-golden.json`` holds every (ruleId, status, resourceId) row of the audit of
:data:`tests.sample_outcomes.EXPECTED_AUDIT` (plan requests named ``<plan>#requests[i]``). It was
generated once with ``python -m tests.test_audit_golden --write`` and reviewed by hand against
``EXPECTED_RULE_OUTCOMES`` (``tests/sample_outcomes.py``); the test pins both.
"""

from __future__ import annotations

import collections
import datetime as dt
import json
import sys
from functools import cache
from pathlib import Path

from auditor.audit.runner import AuditOptions, audit_snapshot, gate_plan
from auditor.estate.plan import loads_plan
from auditor.estate.sample import sample_plans, sample_snapshot
from tests.sample_outcomes import (
    EXPECTED_AUDIT,
    EXPECTED_OTHER_RUNS,
    EXPECTED_PLAN_API_VERSION_FINDINGS,
    EXPECTED_RULE_OUTCOMES,
    EXPECTED_SHADOW_ADMINS,
)

GOLDEN = Path(__file__).parent / "data" / "audit" / "sample-golden.json"
AS_OF = dt.date.fromisoformat(EXPECTED_AUDIT["asOf"][:10])
SETTINGS = {k: v for per_rule in EXPECTED_AUDIT["settings"].values() for k, v in per_rule.items()}

Row = tuple[str, str, str]


def _options(**kw: object) -> AuditOptions:
    return AuditOptions(use_config=False, as_of=AS_OF, settings=dict(SETTINGS), **kw)  # type: ignore[arg-type]


@cache
def audit_rows() -> tuple[list[Row], list[object]]:
    rows: list[Row] = []
    result = audit_snapshot(sample_snapshot(), _options())
    rows += [(f.ruleId, f.status, f.resourceId) for f in result.findings]
    findings: list[object] = list(result.findings)
    for name, doc in sample_plans().items():
        plan = loads_plan(json.dumps(doc).encode(), source=name)
        for f in gate_plan(plan, _options()).findings:
            assert f.location is not None
            rows.append((f.ruleId, f.status, f"{name}#{f.location.split('.')[0]}"))
            findings.append(f)
    return sorted(set(rows)), findings


def test_golden_file_is_current() -> None:
    rows, _ = audit_rows()
    golden = [tuple(r) for r in json.loads(GOLDEN.read_text("utf-8"))]
    assert rows == golden


def test_expected_rule_outcomes() -> None:
    rows, _ = audit_rows()
    got: dict[str, dict[str, set[str]]] = collections.defaultdict(
        lambda: {"fail": set(), "pass": set()}
    )
    for rule, status, rid in rows:
        if status in ("fail", "pass"):
            got[rule][status].add(rid.lower())
    for rule, expected in EXPECTED_RULE_OUTCOMES.items():
        other = EXPECTED_OTHER_RUNS.get(rule, {})
        if "fail" not in other:
            assert got[rule]["fail"] == {x.lower() for x in expected["fail"]}, rule
        if "pass" not in other:
            assert {x.lower() for x in expected["pass"]} <= got[rule]["pass"], rule
    plan_001 = {rid for rule, status, rid in rows if rule == "PLAN-001" and status == "fail"}
    assert plan_001 == set(EXPECTED_PLAN_API_VERSION_FINDINGS)


def test_other_runs() -> None:
    early = dt.date.fromisoformat(EXPECTED_OTHER_RUNS["TOK-001"]["pass"]["asOf"][:10])
    r = audit_snapshot(
        sample_snapshot(), AuditOptions(use_config=False, as_of=early, checks=["TOK-001"])
    )
    assert {f.resourceId for f in r.findings if f.status == "pass"} == set(
        EXPECTED_RULE_OUTCOMES["TOK-001"]["pass"]
    )
    assert not r.failures
    sprawl = audit_snapshot(sample_snapshot("token-sprawl"), _options(checks=["TOK-005"]))
    assert [(f.status, f.resourceId) for f in sprawl.findings] == [
        ("fail", EXPECTED_RULE_OUTCOMES["TOK-005"]["fail"][0])
    ]


def test_shadow_admins() -> None:
    _, findings = audit_rows()
    got: dict[str, set[str]] = collections.defaultdict(set)
    for f in findings:
        if f.ruleId == "RBAC-010" and f.status == "fail":  # type: ignore[attr-defined]
            got[f.resourceId.lower()].add(f.evidence["principalId"].lower())  # type: ignore[attr-defined]
    assert got == {k.lower(): {p.lower() for p in v} for k, v in EXPECTED_SHADOW_ADMINS.items()}


if __name__ == "__main__" and "--write" in sys.argv:
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text(json.dumps([list(r) for r in audit_rows()[0]], indent=1) + "\n", "utf-8")
    print(f"wrote {GOLDEN}")
