"""The history of audit and gate runs in one SQLite file (:class:`History`).

    from auditor.history import History
    with History("audits.db") as history:
        run_id = history.record(result, options=options, snapshot=estate)
        changes = history.diff()                 # the last two runs of the latest run's target
        history.trend(last=10)                   # failing findings per run, for a report

Runs are numbered in the order they were recorded (:data:`~auditor.history.record.RunId`). A run
whose sources could not be read in full (exit 3) is recorded and marked incomplete; the defaults
of ``diff`` and ``new_since_last`` compare complete runs only. A run that raised before its result
existed records nothing; a run being recorded is one transaction, so the file never holds half a
run, whatever stops the process.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any

from auditor.audit.findings import SEVERITIES, SEVERITY_RANK, AuditResult, at_least
from auditor.errors import InputError
from auditor.history.diff import Changes, RunState, compare, waiver_entry
from auditor.history.record import (
    OPEN_STATUSES,
    RunId,
    Target,
    insert_run,
    target_of,
)
from auditor.history.store import BUSY_TIMEOUT, database_error, open_history, transaction

if TYPE_CHECKING:
    from auditor.audit.runner import AuditOptions

_CHUNK = 500
"""Ids per ``IN (...)`` query."""


@dataclass(frozen=True)
class RunInfo:
    """One recorded run, without its findings."""

    id: RunId
    command: str
    startedAt: str
    finishedAt: str
    recordedAt: str
    target: str
    targetKind: str
    targetName: str
    complete: bool
    exitCode: int
    toolVersion: str
    ruleset: str
    summary: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        """The entry of ``history list --format json``."""
        return {
            "id": self.id,
            "startedAt": self.startedAt,
            "target": self.target,
            "summary": dict(self.summary),
        }

    def to_full_json(self) -> dict[str, Any]:
        """The run as ``diff`` and ``show`` give it."""
        return {
            **self.to_json(),
            "finishedAt": self.finishedAt,
            "recordedAt": self.recordedAt,
            "command": self.command,
            "targetKind": self.targetKind,
            "targetName": self.targetName,
            "complete": self.complete,
            "exitCode": self.exitCode,
            "tool": {"name": "auditor", "version": self.toolVersion},
            "ruleset": self.ruleset,
        }


_RUN_COLUMNS = (
    "id, command, started_at, finished_at, recorded_at, target, target_kind, target_name, "
    "complete, exit_code, tool_version, ruleset, summary"
)


def _run_info(row: Sequence[Any]) -> RunInfo:
    return RunInfo(
        id=RunId(row[0]),
        command=row[1],
        startedAt=row[2],
        finishedAt=row[3],
        recordedAt=row[4],
        target=row[5],
        targetKind=row[6],
        targetName=row[7],
        complete=bool(row[8]),
        exitCode=int(row[9]),
        toolVersion=row[10],
        ruleset=row[11],
        summary=json.loads(row[12]),
    )


_FINDING_COLUMNS = (
    "f.id, f.fingerprint, f.rule_id, f.severity, f.status, f.resource_id, f.resource_type, "
    "d.title, d.message, d.evidence, d.source_file, d.source_line, d.address, d.location, "
    "d.waiver_id"
)
_DETAIL = "JOIN finding_detail d ON d.id = f.id"
_IN_RUN = "JOIN run_range rr ON f.id BETWEEN rr.first_id AND rr.last_id WHERE rr.run_id = ?"
"""Joins ``finding f`` to the ranges of one run."""


def _sort_key(finding: Mapping[str, Any]) -> tuple[Any, ...]:
    return (
        -SEVERITY_RANK.get(finding["severity"], 0),
        finding["ruleId"],
        finding["resourceId"].lower(),
        finding["fingerprint"],
    )


@dataclass
class RunDiff:
    """``history diff``: the two runs and what changed between them (see
    :mod:`auditor.history.diff`); each list holds findings as in contracts section 6."""

    runA: RunInfo
    runB: RunInfo
    new: list[dict[str, Any]] = field(default_factory=list)
    fixed: list[dict[str, Any]] = field(default_factory=list)
    regressed: list[dict[str, Any]] = field(default_factory=list)
    severityChanged: list[dict[str, Any]] = field(default_factory=list)
    waiversExpired: list[dict[str, Any]] = field(default_factory=list)
    waiversAdded: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "runA": self.runA.to_full_json(),
            "runB": self.runB.to_full_json(),
            "new": self.new,
            "fixed": self.fixed,
            "regressed": self.regressed,
            "severityChanged": self.severityChanged,
            "waiversExpired": self.waiversExpired,
            "waiversAdded": self.waiversAdded,
        }


@dataclass
class NewSince:
    """What a run fails on that the run before it (the last complete run of the same target) did
    not: the findings ``--fail-on-new`` gates on."""

    run: RunInfo
    previous: RunInfo | None
    """None: the target's first run (every failing finding is new)."""
    new: list[dict[str, Any]]
    """Failing (or unknown) in this run, and not open in the previous one: new, back again, or of a
    rule the previous run did not run or could not judge."""
    raised: list[dict[str, Any]]
    """Open in both, at a higher severity now (with ``previousSeverity``)."""

    def blocking(self, fail_on: str) -> list[dict[str, Any]]:
        """The failing findings among them at or above ``fail_on`` (new, or raised to it from
        below)."""
        out = [f for f in self.new if f["status"] == "fail" and at_least(f["severity"], fail_on)]
        out += [
            f
            for f in self.raised
            if f["status"] == "fail"
            and at_least(f["severity"], fail_on)
            and not at_least(f["previousSeverity"], fail_on)
        ]
        return out


class History:
    """An audit history file (see the module's documentation). ``create``: make the file when it
    is missing (recording does; reading a missing file is an input error)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        create: bool = False,
        timeout: float = BUSY_TIMEOUT,
    ) -> None:
        self.path = os.fspath(path)
        self.conn = open_history(self.path, create=create, timeout=timeout)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> History:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        try:
            return self.conn.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise database_error(exc, self.path) from None

    # --- writing ------------------------------------------------------------------------------

    def record(
        self,
        result: AuditResult,
        *,
        command: str | None = None,
        options: AuditOptions | None = None,
        snapshot: Any = None,
        target: Target | None = None,
        recorded_at: str | None = None,
    ) -> RunId:
        """Record one run in one transaction; returns its id. ``snapshot``: the estate audited
        (for the target key); ``options``: the run's options (for its settings and input files);
        ``command``: ``audit`` or ``gate`` (default: from the result's target kind)."""
        with transaction(self.conn, self.path) as conn:
            return insert_run(
                conn,
                result,
                command=command or ("gate" if result.targetKind == "plan" else "audit"),
                target=target or target_of(result, snapshot),
                options=options,
                recorded_at=recorded_at,
            )

    def prune(
        self,
        *,
        keep: int | None = None,
        older_than_days: float | None = None,
        now: dt.datetime | None = None,
    ) -> int:
        """Delete runs: all but the ``keep`` most recent of each target, and those started more
        than ``older_than_days`` ago; then the findings no run holds any more, and ``VACUUM`` the
        file. Returns how many runs were deleted."""
        doomed: set[int] = set()
        if keep is not None:
            rows = self._query("SELECT id, target FROM run ORDER BY id DESC")
            seen: dict[str, int] = {}
            for rid, tgt in rows:
                seen[tgt] = seen.get(tgt, 0) + 1
                if seen[tgt] > keep:
                    doomed.add(rid)
        if older_than_days is not None:
            cutoff = (now or dt.datetime.now(dt.UTC)) - dt.timedelta(days=older_than_days)
            stamp = cutoff.strftime("%Y-%m-%dT%H:%M:%SZ")
            doomed.update(
                r[0] for r in self._query("SELECT id FROM run WHERE started_at < ?", (stamp,))
            )
        if doomed:
            with transaction(self.conn, self.path) as conn:
                ids = sorted(doomed)
                for i in range(0, len(ids), _CHUNK):
                    chunk = ids[i : i + _CHUNK]
                    marks = ",".join("?" * len(chunk))
                    for table, column in (
                        ("run_range", "run_id"),
                        ("pass_count", "run_id"),
                        ("run", "id"),
                    ):
                        conn.execute(f"DELETE FROM {table} WHERE {column} IN ({marks})", chunk)
                kept = conn.execute("SELECT first_id, last_id FROM run_range").fetchall()
                conn.executemany("DELETE FROM finding WHERE id BETWEEN ? AND ?", _gaps(kept))
        try:
            self.conn.execute("VACUUM")
        except sqlite3.Error as exc:
            raise database_error(exc, self.path) from None
        return len(doomed)

    # --- runs -----------------------------------------------------------------------------------

    def runs(self, *, since: str | None = None, target: str | None = None) -> list[RunInfo]:
        """Every run (oldest first), or those started at or after ``since`` (an ISO date or
        timestamp), of ``target`` (a target key)."""
        sql = f"SELECT {_RUN_COLUMNS} FROM run WHERE 1"
        params: list[Any] = []
        if since is not None:
            sql += " AND started_at >= ?"
            params.append(since)
        if target is not None:
            sql += " AND target = ?"
            params.append(target)
        return [_run_info(r) for r in self._query(sql + " ORDER BY id", params)]

    def run(self, run_id: int) -> RunInfo:
        """Run ``run_id``; an input error when there is none."""
        rows = self._query(f"SELECT {_RUN_COLUMNS} FROM run WHERE id = ?", (run_id,))
        if not rows:
            raise InputError(f"no run {run_id} in this history", source=self.path)
        return _run_info(rows[0])

    def latest(self, target: str | None = None, *, before: int | None = None) -> RunInfo | None:
        """The last complete run (of ``target``; recorded before run ``before``)."""
        sql = f"SELECT {_RUN_COLUMNS} FROM run WHERE complete = 1"
        params: list[Any] = []
        if target is not None:
            sql += " AND target = ?"
            params.append(target)
        if before is not None:
            sql += " AND id < ?"
            params.append(before)
        rows = self._query(sql + " ORDER BY id DESC LIMIT 1", params)
        return _run_info(rows[0]) if rows else None

    def _json_column(self, run_id: int, column: str) -> Any:
        rows = self._query(f"SELECT {column} FROM run WHERE id = ?", (run_id,))
        return json.loads(rows[0][0]) if rows else None

    def _state(self, run_id: int) -> RunState:
        rows = self._query(
            f"SELECT f.fingerprint, f.id, f.rule_id, f.severity, f.status FROM finding f {_IN_RUN}",
            (run_id,),
        )
        rules = self._json_column(run_id, "rules") or []
        waivers = self._json_column(run_id, "waivers") or []
        return RunState(
            id=run_id,
            findings={row[0]: row[1:] for row in rows},
            rules=frozenset(r["id"] for r in rules),
            waivers={w["id"]: w for w in waivers},
        )

    def findings(self, run_id: int, ids: Iterable[int] | None = None) -> list[dict[str, Any]]:
        """Run ``run_id``'s findings (or those of ``ids`` among them) as in contracts section 6,
        most severe first."""
        rules = {r["id"]: r for r in self._json_column(run_id, "rules") or []}
        waivers = {w["id"]: w for w in self._json_column(run_id, "waivers") or []}
        if ids is None:
            rows = self._query(
                f"SELECT {_FINDING_COLUMNS} FROM finding f {_DETAIL} {_IN_RUN}", (run_id,)
            )
        else:
            wanted = sorted(set(ids))
            rows = []
            for i in range(0, len(wanted), _CHUNK):
                chunk = wanted[i : i + _CHUNK]
                rows += self._query(
                    f"SELECT {_FINDING_COLUMNS} FROM finding f {_DETAIL} WHERE f.id IN "
                    f"({','.join('?' * len(chunk))})",
                    chunk,
                )
        out = [_finding_json(row, rules, waivers) for row in rows]
        out.sort(key=_sort_key)
        return out

    def pass_counts(self, run_id: int) -> list[dict[str, Any]]:
        return [
            {"ruleId": rule, "resourceType": kind, "passed": n}
            for rule, kind, n in self._query(
                "SELECT rule_id, resource_type, passed FROM pass_count WHERE run_id = ? "
                "ORDER BY rule_id, resource_type",
                (run_id,),
            )
        ]

    def show(self, run_id: int) -> dict[str, Any]:
        """``history show``: the run with its settings, inputs, waivers, warnings, findings (not
        passes) and pass counts."""
        info = self.run(run_id)
        row = self._query(
            "SELECT settings, inputs, waivers, warnings, rules FROM run WHERE id = ?", (run_id,)
        )[0]
        settings, inputs, waivers, warnings, rules = (json.loads(v) for v in row)
        return {
            "run": {
                **info.to_full_json(),
                "settings": settings,
                "inputs": inputs,
                "rules": [r["id"] for r in rules],
                "waivers": waivers,
                "warnings": warnings.get("warnings", []),
                "incomplete": warnings.get("incomplete", []),
            },
            "findings": self.findings(run_id),
            "passCounts": self.pass_counts(run_id),
        }

    # --- comparing ------------------------------------------------------------------------------

    def default_pair(
        self, a: int | None = None, b: int | None = None, *, since: str | None = None
    ) -> tuple[RunInfo, RunInfo]:
        """The runs ``history diff [A] [B] [--since DATE]`` compares: both given; A and the last
        complete run of A's target; with ``since``, the first complete run of the target started
        then or later and the last; none given, the last two complete runs of the latest run's
        target."""
        if a is not None and b is not None:
            return self.run(a), self.run(b)
        if a is not None:
            run_a = self.run(a)
            run_b = self.latest(run_a.target)
            if run_b is None:
                raise InputError(
                    f"no complete run of run {a}'s target to compare it with", source=self.path
                )
            return run_a, run_b
        last = self.latest()
        if last is None:
            raise InputError("no complete run recorded: nothing to compare", source=self.path)
        if since is not None:
            runs = [r for r in self.runs(since=since, target=last.target) if r.complete]
            first = runs[0] if runs else last
            return first, last
        before = self.latest(last.target, before=last.id)
        if before is None:
            raise InputError(
                f"only one complete run of target {last.target!r} (run {last.id}): give two "
                "runs to compare",
                source=self.path,
            )
        return before, last

    def _open_before(self, target: str, before: int) -> Any:
        def open_before(fingerprints: Iterable[str]) -> set[str]:
            fps = sorted(set(fingerprints))
            found: set[str] = set()
            statuses = ",".join(f"'{s}'" for s in OPEN_STATUSES)
            for i in range(0, len(fps), _CHUNK):
                chunk = fps[i : i + _CHUNK]
                rows = self._query(
                    "SELECT DISTINCT f.fingerprint FROM finding f "
                    "JOIN run_range rr ON f.id BETWEEN rr.first_id AND rr.last_id "
                    "JOIN run r ON r.id = rr.run_id "
                    f"WHERE f.fingerprint IN ({','.join('?' * len(chunk))}) "
                    f"AND f.status IN ({statuses}) AND r.target = ? AND r.id < ?",
                    [*chunk, target, before],
                )
                found.update(r[0] for r in rows)
            return found

        return open_before

    def diff(
        self, a: int | None = None, b: int | None = None, *, since: str | None = None
    ) -> RunDiff:
        """What changed from run ``a`` to run ``b`` (defaults: :meth:`default_pair`)."""
        run_a, run_b = self.default_pair(a, b, since=since)
        state_a, state_b = self._state(run_a.id), self._state(run_b.id)
        changes = compare(state_a, state_b, open_before=self._open_before(run_b.target, run_a.id))
        return self._render(run_a, run_b, state_a, state_b, changes)

    def _render(
        self, run_a: RunInfo, run_b: RunInfo, a: RunState, b: RunState, changes: Changes
    ) -> RunDiff:
        def listed(run: RunState, fps: Sequence[str]) -> list[dict[str, Any]]:
            return self.findings(run.id, (run.findings[fp][0] for fp in fps))

        out = RunDiff(run_a, run_b)
        out.new = listed(b, changes.new)
        out.fixed = listed(a, changes.fixed)
        out.regressed = listed(b, changes.regressed)
        out.severityChanged = listed(b, changes.severityChanged)
        for finding in out.severityChanged:
            finding["previousSeverity"] = a.findings[finding["fingerprint"]][2]
        out.waiversExpired = [
            waiver_entry(w, a.waivers.get(w), b.waivers.get(w)) for w in changes.waiversExpired
        ]
        out.waiversAdded = [
            waiver_entry(w, a.waivers.get(w), b.waivers.get(w)) for w in changes.waiversAdded
        ]
        return out

    def new_since_last(self, run_id: int) -> NewSince:
        """What run ``run_id`` fails on that the last complete run of its target before it did not
        (see :class:`NewSince`)."""
        run = self.run(run_id)
        previous = self.latest(run.target, before=run.id)
        state = self._state(run.id)
        judged = ("fail", "unknown")
        if previous is None:
            ids = [fid for fid, _rule, _sev, status in state.findings.values() if status in judged]
            return NewSince(run, None, self.findings(run.id, ids), [])
        before = self._state(previous.id)
        new_ids = []
        raised: dict[str, str] = {}
        for fp, (fid, _rule, severity, status) in state.findings.items():
            if status not in judged:
                continue
            old = before.findings.get(fp)
            if old is None or old[3] not in OPEN_STATUSES:
                new_ids.append(fid)
            elif SEVERITY_RANK[severity] > SEVERITY_RANK[old[2]]:
                raised[fp] = old[2]
        raised_json = self.findings(run.id, (state.findings[fp][0] for fp in raised))
        for finding in raised_json:
            finding["previousSeverity"] = raised[finding["fingerprint"]]
        return NewSince(run, previous, self.findings(run.id, new_ids), raised_json)

    # --- trends ---------------------------------------------------------------------------------

    def trend(self, target: str | None = None, *, last: int = 10) -> dict[str, Any]:
        """Failing findings per severity, per subscription and per rule for the last ``last``
        complete runs of ``target`` (default: the latest run's), oldest first, ready for a chart::

            {"target": key, "runs": [{"id", "startedAt", "bySeverity": {severity: n},
              "bySubscription": {subscription: {severity: n}}, "byRule": {rule: {severity: n}}}]}

        ``bySeverity`` is the run's summary (failing findings counted but not listed included);
        the others count the failing findings recorded."""
        if target is None:
            latest = self.latest()
            if latest is None:
                return {"target": None, "runs": []}
            target = latest.target
        rows = self._query(
            f"SELECT {_RUN_COLUMNS}, counts FROM run WHERE complete = 1 AND target = ? "
            "ORDER BY id DESC LIMIT ?",
            (target, max(0, last)),
        )
        runs: list[dict[str, Any]] = []
        for row in reversed(rows):
            info, counts = _run_info(row), json.loads(row[-1])
            runs.append(
                {
                    "id": info.id,
                    "startedAt": info.startedAt,
                    "bySeverity": {s: int(info.summary.get(s, 0)) for s in SEVERITIES},
                    "bySubscription": counts.get("bySubscription", {}),
                    "byRule": counts.get("byRule", {}),
                }
            )
        return {"target": target, "runs": runs}

    def since_last(self, target: str | None = None) -> RunDiff | None:
        """The "since the last audit" delta: the diff of the last two complete runs of ``target``
        (default: the latest run's); None when there are fewer than two."""
        last = self.latest(target)
        if last is None:
            return None
        before = self.latest(last.target, before=last.id)
        if before is None:
            return None
        return self.diff(before.id, last.id)


def _gaps(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """The id ranges no range of ``ranges`` covers (the last one open-ended)."""
    out = []
    start = 1
    for first, last in sorted(ranges):
        if first > start:
            out.append((start, first - 1))
        start = max(start, last + 1)
    out.append((start, 1 << 62))
    return out


def _finding_json(
    row: Sequence[Any], rules: Mapping[str, Mapping[str, Any]], waivers: Mapping[str, Any]
) -> dict[str, Any]:
    (_id, fp, rule, severity, status, resource, kind, title, message, evidence) = row[:10]
    (file, line, address, location, wid) = row[10:]
    info = rules.get(rule, {})
    out: dict[str, Any] = {
        "ruleId": rule,
        "severity": severity,
        "status": status,
        "resourceId": resource,
        "resourceType": kind if kind is not None else info.get("resourceType", ""),
        "title": title if title is not None else info.get("title", ""),
        "message": message,
        "evidence": json.loads(evidence),
        "remediation": info.get("remediation", ""),
        "references": list(info.get("references", [])),
        "fingerprint": fp,
    }
    if file is not None:
        source: dict[str, Any] = {"file": file}
        if line is not None:
            source["line"] = line
        if (address or location) is not None:
            source["address"] = address or location
        out["source"] = source
    if location is not None:
        out["location"] = location
    if wid is not None:
        waiver = waivers.get(wid)
        out["waiver"] = {k: v for k, v in waiver.items() if k != "state"} if waiver else {"id": wid}
    return out


def record_run(
    path: str | os.PathLike[str],
    result: AuditResult,
    *,
    command: str | None = None,
    options: AuditOptions | None = None,
    snapshot: Any = None,
    target: Target | None = None,
    timeout: float = BUSY_TIMEOUT,
) -> RunId:
    """Record one audit or gate run in the history at ``path`` (made when missing); returns its
    id. See :meth:`History.record`."""
    with History(path, create=True, timeout=timeout) as history:
        return history.record(
            result, command=command, options=options, snapshot=snapshot, target=target
        )


def new_since_last(path: str | os.PathLike[str], run_id: int) -> NewSince:
    """What run ``run_id`` of the history at ``path`` fails on that the last complete run of its
    target before it did not (``audit --fail-on-new``)."""
    with History(path) as history:
        return history.new_since_last(run_id)
