"""Budgets that hold whatever the estate is (issue 16, item 2): duplicate ids merged on load
(conflicting copies refused naming both JSON paths), evidence and messages bounded per finding,
failing findings capped per rule with honest counts, and ``--max-time`` / ``--max-memory`` ending a
run with exit code 3 and what was evaluated."""

from __future__ import annotations

import copy
import datetime as dt
import json
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from auditor.audit.budget import Budget, BudgetExceeded
from auditor.audit.checks import CHECKS, CheckContext, Outcome
from auditor.audit.checks._registry import CheckSpec
from auditor.audit.engine import Engine
from auditor.audit.findings import AuditResult, Finding
from auditor.audit.limits import (
    MAX_CHARS,
    MAX_ITEMS,
    TRUNCATED,
    bound_evidence,
    bound_text,
    cap_failures,
)
from auditor.audit.runner import AuditOptions, audit_snapshot, prepare
from auditor.cli import main
from auditor.estate.sample import sample_snapshot_json
from auditor.estate.snapshot import Snapshot, loads_snapshot
from auditor.report import render

AS_OF = dt.date(2026, 11, 21)
BULK = ("roleAssignments", "denyAssignments")


def _options(**kw: Any) -> AuditOptions:
    return AuditOptions(use_config=False, as_of=AS_OF, **kw)


def _load(doc: dict[str, Any]) -> Snapshot:
    return loads_snapshot(json.dumps(doc).encode(), source="estate.json")


def _copies(n: int) -> dict[str, Any]:
    """The sample estate with ``n`` copies of every role and deny assignment."""
    doc = sample_snapshot_json()
    for key in BULK:
        doc[key] = [copy.deepcopy(item) for _ in range(n) for item in doc[key]]
    return doc


def _judged(result: AuditResult) -> list[tuple[Any, ...]]:
    return [
        (f.ruleId, f.severity, f.status, f.resourceId, f.location, json.dumps(f.evidence))
        for f in result.findings
    ]


# --------------------------------------------------------------------------- duplicate ids


def test_300_copies_of_every_assignment_audit_like_one() -> None:
    one = audit_snapshot(_load(sample_snapshot_json()), _options())
    started = time.perf_counter()
    snap = _load(_copies(300))
    many = audit_snapshot(snap, _options())
    seconds = time.perf_counter() - started
    assert len(snap.roleAssignments) == len(sample_snapshot_json()["roleAssignments"])
    assert _judged(many) == _judged(one)
    assert many.summary() == one.summary() and many.exit_code == one.exit_code
    assert [w.split(":")[0] for w in many.warnings] == list(BULK)
    assert "merged 9,568 duplicate entries" in many.warnings[0]
    # the output is the deduplicated estate's plus the warnings (it was 126 MB at 60 copies)
    size = len(render(many, "json"))
    assert size < len(render(one, "json")) + 2_000
    assert seconds < 30  # it grew to 24 GB and was killed before the merge


def test_case_and_trailing_slash_variants_are_the_same_id() -> None:
    doc = sample_snapshot_json()
    first = doc["roleAssignments"][0]
    upper = {**copy.deepcopy(first), "id": first["id"].upper()}
    slash = {**copy.deepcopy(first), "id": first["id"] + "/"}
    doc["roleAssignments"][1:1] = [upper, slash]
    cluster = doc["clusters"][0]
    doc["clusters"].append({**copy.deepcopy(cluster), "id": cluster["id"].lower()})
    token = doc["devTooling"]["tokens"][0]
    doc["devTooling"]["tokens"].append(copy.deepcopy(token))
    snap = _load(doc)
    sample = sample_snapshot_json()
    assert len(snap.roleAssignments) == len(sample["roleAssignments"])
    assert snap.roleAssignments[0].id == first["id"]  # the first copy is kept as written
    assert len(snap.clusters) == len(sample["clusters"])
    assert snap.devTooling is not None
    assert len(snap.devTooling.tokens) == len(sample["devTooling"]["tokens"])
    assert [w.split(":")[0] for w in snap.warnings] == [
        "roleAssignments",
        "clusters",
        "devTooling.tokens",
    ]


@pytest.mark.parametrize(
    ("section", "index", "change", "differs"),
    [
        ("roleAssignments", 3, ("properties", "scope", "/subscriptions/other"), "properties.scope"),
        ("denyAssignments", 1, ("properties", "description", "changed"), "properties"),
        ("principals", 2, (None, "displayName", "Someone Else"), "displayName"),
        ("clusters", 0, ("properties", "clusterState", "Error"), "properties.clusterState"),
        ("healthEvents", 1, ("properties", "title", "another"), "properties.title"),
    ],
)
def test_conflicting_copies_are_an_input_error_naming_both_paths(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    section: str,
    index: int,
    change: tuple[str | None, str, Any],
    differs: str,
) -> None:
    doc = sample_snapshot_json()
    other = copy.deepcopy(doc[section][index])
    parent, key, value = change
    (other[parent] if parent else other)[key] = value
    doc[section].append(other)
    last = len(doc[section]) - 1
    path = tmp_path / "estate.json"
    path.write_text(json.dumps(doc))
    assert main(["audit", "--snapshot", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{section}[{last}]" in err and f"{section}[{index}]" in err
    assert differs in err and "Traceback" not in err
    assert str(value) not in err  # paths only, never values


def test_locations_name_the_entries_of_the_file() -> None:
    doc = sample_snapshot_json()
    doc["roleAssignments"][1:1] = [copy.deepcopy(doc["roleAssignments"][0]) for _ in range(5)]
    result = audit_snapshot(_load(doc), _options())
    one = audit_snapshot(_load(sample_snapshot_json()), _options())
    where = {(f.ruleId, f.resourceId, f.status): f.location for f in result.findings}
    moved = 0
    for f in one.findings:
        loc = f.location or ""
        if not loc.startswith("roleAssignments["):
            continue
        index = int(loc[len("roleAssignments[") :].split("]")[0])
        shifted = f"roleAssignments[{index + 5 if index else 0}]{loc.split(']', 1)[1]}"
        assert where[(f.ruleId, f.resourceId, f.status)] == shifted
        moved += index > 0
    assert moved > 10


# ------------------------------------------------------------------- evidence and messages


def test_bound_text_and_evidence_say_what_was_cut() -> None:
    assert bound_text("short") == "short"
    long = "x" * (MAX_CHARS + 1234)
    cut = bound_text(long)
    assert cut.startswith("x" * MAX_CHARS) and cut.endswith("(1,234 more characters)")
    small: dict[str, Any] = {"a": 1, "b": "two", "c": [1, 2]}
    assert bound_evidence(small) is small
    evidence: dict[str, Any] = {
        "ids": [f"id-{i}" for i in range(MAX_ITEMS + 70)],
        "text": long,
        "n": 3,
    }
    bounded = bound_evidence(evidence)
    assert bounded["ids"] == evidence["ids"][:MAX_ITEMS] and bounded["n"] == 3
    assert len(bounded["text"]) == MAX_CHARS + 1
    assert bounded[TRUNCATED] == {"items": {"ids": 70}, "characters": {"text": 1234}}
    nested = {"p": [[["z" * 10] * 50] * 50] * 50}  # 125,000 strings
    assert len(json.dumps(bound_evidence(nested))) < 40_000


def test_a_secret_is_masked_before_a_string_is_cut() -> None:
    secret = "S3cr3t-" + "k" * (MAX_CHARS + 100)
    text = "prefix " * 10 + secret
    for out in (bound_text(text, {secret}), bound_evidence({"v": text}, {secret})["v"]):
        assert "S3cr3t-" not in out and "**********" in out


def test_rbac012_evidence_and_message_are_bounded() -> None:
    """120 distinct unconditioned grants bypass one condition: the evidence lists 50 and says how
    many more; the message names three."""
    doc = sample_snapshot_json()
    base = audit_snapshot(_load(doc), _options(checks=["RBAC-012"]))
    (failed,) = [f for f in base.findings if f.status == "fail"]
    bypasser_id = failed.evidence["bypassedBy"][0]["roleAssignmentId"]
    (bypasser,) = [ra for ra in doc["roleAssignments"] if ra["id"] == bypasser_id]
    for i in range(120):
        doc["roleAssignments"].append({**copy.deepcopy(bypasser), "id": f"{bypasser_id}-{i}"})
    result = audit_snapshot(_load(doc), _options(checks=["RBAC-012"]))
    (f,) = [f for f in result.findings if f.status == "fail"]
    assert len(f.evidence["bypassedBy"]) == MAX_ITEMS
    assert f.evidence[TRUNCATED] == {"items": {"bypassedBy": 121 - MAX_ITEMS}}
    assert f.message.endswith("and 118 more without a condition.")
    assert len(json.dumps(f.to_json())) < 30_000


# ------------------------------------------------------------------------- per-rule cap


def test_failures_per_rule_are_capped_and_still_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snap = _load(sample_snapshot_json())
    full = audit_snapshot(snap, _options(max_failures_per_rule=0))
    capped = audit_snapshot(snap, _options(max_failures_per_rule=1))
    per_rule: dict[str, int] = {}
    for f in capped.failures:
        per_rule[f.ruleId] = per_rule.get(f.ruleId, 0) + 1
    assert max(per_rule.values()) == 1
    assert capped.summary() == full.summary()
    assert capped.gate_failed == full.gate_failed
    left_out = sum(n for by in capped.unlisted.values() for n in by.values())
    assert left_out == len(full.failures) - len(capped.failures) > 0
    assert any(
        w.startswith("TOK-001: 5 more failing finding(s) not listed") for w in capped.warnings
    )
    doc = capped.to_json()
    assert doc["unlisted"]["TOK-001"] == {"high": 5}  # six failures of TOK-001, one listed
    # the first (most severe) findings of each rule are the ones listed
    firsts: dict[str, Finding] = {}
    for f in full.failures:
        firsts.setdefault(f.ruleId, f)
    assert [f.fingerprint for f in capped.failures] == [f.fingerprint for f in firsts.values()]
    # the command line: --max-findings-per-rule
    path = tmp_path / "estate.json"
    path.write_text(json.dumps(sample_snapshot_json()))
    out = tmp_path / "f.json"
    args = ["audit", "--snapshot", str(path), "--as-of", "2026-11-21", "-o", f"json={out}"]
    assert main([*args, "--max-findings-per-rule", "1"]) == 1
    written = json.loads(out.read_text())
    assert written["summary"] == full.to_json()["summary"] and written["unlisted"]
    assert "TOK-001: 5 more failing finding(s) not listed" in capsys.readouterr().err


def test_cap_keeps_non_failing_findings() -> None:
    def finding(status: str, n: int) -> Finding:
        return Finding("R-001", "high", status, f"/r/{n}", "t", "m")  # type: ignore[arg-type]

    findings = [finding("fail", i) for i in range(5)] + [finding("pass", i) for i in range(5)]
    kept, unlisted = cap_failures(findings, 2)
    assert [f.status for f in kept] == ["fail", "fail"] + ["pass"] * 5
    assert unlisted == {"R-001": {"high": 3}}
    assert cap_failures(findings, 0) == (findings, {})


# ----------------------------------------------------------------------------- run budgets


class _Countdown(Budget):
    """A budget that runs out after ``checks`` looks (deterministic, no clock)."""

    def __init__(self, checks: int) -> None:
        super().__init__(max_seconds=3600.0)
        self.left = checks

    def over(self) -> bool:
        self.left -= 1
        if self.left < 0:
            self.exceeded = self.exceeded or "the test's budget was exhausted"
        return self.exceeded is not None


def test_a_stopped_run_keeps_what_it_evaluated() -> None:
    snap = _load(sample_snapshot_json())
    full = audit_snapshot(snap, _options())
    result = audit_snapshot(_load(sample_snapshot_json()), _options(budget=_Countdown(5)))
    assert result.exit_code == 3
    assert len(result.rules) == 5  # rules before the budget ran out
    ran = {r.id for r in result.rules}
    assert {f.ruleId for f in result.findings} <= ran
    expected = [f.fingerprint for f in full.findings if f.ruleId in ran]
    assert sorted(f.fingerprint for f in result.findings) == sorted(expected)
    (stopped,) = result.incomplete
    assert stopped.startswith("evaluation stopped: the test's budget was exhausted")
    assert f"{len(full.rules) - 5} rule(s) not run" in stopped
    assert stopped in result.warnings


def test_the_watchdog_interrupts_a_long_computation() -> None:
    before = signal.getsignal(signal.SIGUSR1)
    budget = Budget(max_seconds=0.3)
    started = time.monotonic()
    with pytest.raises(BudgetExceeded), budget.watchdog():
        while time.monotonic() - started < 20:  # would spin 20 s without the watchdog
            sum(range(1000))
    assert time.monotonic() - started < 10
    assert budget.exceeded is not None and "--max-time" in budget.exceeded
    assert signal.getsignal(signal.SIGUSR1) == before


def test_a_rule_that_never_yields_is_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    def spin(ctx: CheckContext) -> Iterator[Outcome]:
        started = time.monotonic()
        while time.monotonic() - started < 20:
            sum(range(1000))
        yield from ()

    spec = CHECKS["bypassed-conditions"]
    monkeypatch.setitem(CHECKS, "bypassed-conditions", CheckSpec(spec.name, "run", spin, ""))
    prep = prepare(_options())
    engine = Engine(settings=prep.settings, as_of=AS_OF, snapshot=_load(sample_snapshot_json()))
    budget = Budget(max_seconds=0.5)
    evaluation = engine.run(prep.rules, budget=budget)
    assert evaluation.stopped is not None and "--max-time" in evaluation.stopped
    assert evaluation.partial is not None and evaluation.partial.id == "RBAC-012"
    assert evaluation.not_run and evaluation.rules_run[-1].id == "RBAC-012"
    assert budget.elapsed() < 10


@pytest.mark.parametrize(
    ("option", "value", "what"),
    [("--max-time", "0.000001", "time"), ("--max-memory", "1", "memory")],
)
def test_a_run_over_budget_exits_3_with_its_outputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, value: str, what: str
) -> None:
    path = tmp_path / "estate.json"
    path.write_text(json.dumps(sample_snapshot_json()))
    out = tmp_path / "f.json"
    args = ["audit", "--snapshot", str(path), "-o", f"json={out}", "-o", "text", option, value]
    assert main(args) == 3
    captured = capsys.readouterr()
    doc = json.loads(out.read_text())
    (stopped,) = doc["incomplete"]
    assert f"the {what} budget" in stopped and "rule(s) not run: RBAC-001" in stopped
    assert stopped in doc["warnings"]
    assert "INCOMPLETE" in captured.out and "rule(s) not run" in captured.err


def test_gate_takes_the_budget_too(tmp_path: Path) -> None:
    from auditor.estate.sample import sample_plans

    name, plan = next(iter(sample_plans().items()))
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(plan))
    assert main(["gate", str(path), "--max-time", "0.000001"]) == 3


@pytest.mark.parametrize(
    "args",
    [
        ["--max-time", "0"],
        ["--max-memory", "-5"],
        ["--max-findings-per-rule", "-1"],
    ],
)
def test_budget_values_are_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    path = tmp_path / "estate.json"
    path.write_text(json.dumps(sample_snapshot_json()))
    assert main(["audit", "--snapshot", str(path), *args]) == 2
    assert args[0] in capsys.readouterr().err
