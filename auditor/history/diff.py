"""What changed between two runs (``auditor history diff``), decided on fingerprints alone.

A finding is *open* in a run when its rule found the problem: status ``fail``, ``waived`` or
``baselined`` (a waiver or a baseline hides a problem, it does not fix it). From run A to run B:

- **new**: open in B, not open in A; **fixed**: open in A, not open in B. Only findings of rules
  that ran in both runs count, and a finding that is ``unknown`` in the other run (its rule could
  not judge the resource there) is neither new nor fixed: nothing is called fixed that was not
  judged again. So ``diff(A, B)`` and ``diff(B, A)`` are mirror images: new and fixed swap.
- **regressed**: the new findings that were open in an earlier run of the target (recorded before
  run A): fixed once, back again. They are also in ``new``.
- **severityChanged**: open in both runs at different severities (shown as in B, with
  ``previousSeverity``).
- **waiversExpired**: waivers in force in A (applied, or stale: not matching anything) that are
  not in force in B: expired by B's clock (``"after": "expired"``) or gone from the waivers file
  (``"after": "absent"``); **waiversAdded**: the reverse. Each names its state ``before`` and
  ``after``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from auditor.history.record import OPEN_STATUSES

IN_FORCE = ("applied", "stale")
"""Waiver states in which a waiver is in force."""
_RULE, _STATUS = 1, 3


class Brief(NamedTuple):
    """A finding's state in one run: enough to compare runs. (The comparison reads plain tuples of
    the same fields, by index: a run has tens of thousands.)"""

    id: int
    """The stored finding's row (its content in that run)."""
    ruleId: str
    severity: str
    status: str


@dataclass
class RunState:
    """One run as :func:`compare` reads it."""

    id: int
    findings: Mapping[str, tuple[int, str, str, str]]
    """Fingerprint -> state (a :class:`Brief` or a plain tuple of its fields), for every finding
    that is not a pass."""
    rules: frozenset[str]
    """The rules the run ran."""
    waivers: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Waiver id -> the waiver (as findings carry it) with its ``state``: applied, stale or
    expired."""


@dataclass
class Changes:
    """The fingerprints (and waiver ids) that changed from run A to run B."""

    new: list[str] = field(default_factory=list)
    fixed: list[str] = field(default_factory=list)
    regressed: list[str] = field(default_factory=list)
    severityChanged: list[str] = field(default_factory=list)
    waiversExpired: list[str] = field(default_factory=list)
    waiversAdded: list[str] = field(default_factory=list)


def _open(run: RunState) -> dict[str, str]:
    """Fingerprint -> severity of the run's open findings."""
    return {
        fp: severity
        for fp, (_id, _rule, severity, status) in run.findings.items()
        if status in OPEN_STATUSES
    }


def _appeared(
    before: RunState, after: RunState, was: dict[str, str], now: dict[str, str]
) -> list[str]:
    """Open in ``after`` (``now``), not open in ``before`` (``was``), judged by a rule ``before``
    ran too (not ``unknown`` there)."""
    out = []
    for fp in now.keys() - was.keys():
        if after.findings[fp][_RULE] not in before.rules:
            continue
        earlier = before.findings.get(fp)
        if earlier is None or earlier[_STATUS] != "unknown":
            out.append(fp)
    return sorted(out)


def _in_force(run: RunState) -> set[str]:
    return {wid for wid, w in run.waivers.items() if w.get("state") in IN_FORCE}


def compare(
    a: RunState,
    b: RunState,
    *,
    open_before: Callable[[Iterable[str]], set[str]] | None = None,
) -> Changes:
    """The changes from run ``a`` to run ``b``. ``open_before(fingerprints)`` says which of the new
    fingerprints were open in an earlier run (for ``regressed``; none when not given)."""
    open_a, open_b = _open(a), _open(b)
    out = Changes(new=_appeared(a, b, open_a, open_b), fixed=_appeared(b, a, open_b, open_a))
    if out.new and open_before is not None:
        earlier = open_before(out.new)
        out.regressed = [fp for fp in out.new if fp in earlier]
    # (fingerprint, severity) pairs of B not in A: new findings, and open ones re-rated
    out.severityChanged = sorted(fp for fp, _ in open_b.items() - open_a.items() if fp in open_a)
    in_a, in_b = _in_force(a), _in_force(b)
    out.waiversExpired = sorted(in_a - in_b)
    out.waiversAdded = sorted(in_b - in_a)
    return out


def waiver_entry(
    wid: str, before: Mapping[str, Any] | None, after: Mapping[str, Any] | None
) -> dict[str, Any]:
    """A waiver of ``waiversExpired`` / ``waiversAdded``: the waiver (as run B has it, else as run
    A had it) with its state in each run, ``before`` and ``after`` (applied, stale, expired, or
    absent from that run's waivers file)."""
    out = {k: v for k, v in (after or before or {"id": wid}).items() if k != "state"}
    out["before"] = str(before.get("state")) if before is not None else "absent"
    out["after"] = str(after.get("state")) if after is not None else "absent"
    return out
