"""``auditor history list|show|diff|prune`` and the ``--history FILE`` / ``--fail-on-new`` options of
``audit`` and ``gate`` (the logic is in :mod:`auditor.history`).

Exit codes: 0; 1 (``audit --fail-on-new``: a new failing finding at or above ``--fail-on``); 2 a
missing history file, one that is not an auditor history or of a newer schema, an unknown run, a
bad option.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from auditor.errors import InputError

if TYPE_CHECKING:
    from auditor.audit.findings import AuditResult
    from auditor.audit.runner import AuditOptions
    from auditor.history import NewSince, RunDiff, RunInfo

HistoryOpt = Annotated[
    Path | None,
    typer.Option(
        "--history",
        metavar="FILE",
        help="Record this run in the audit history FILE (SQLite; made when missing). Default: "
        "the configuration's history key, else not recorded.",
    ),
]
FailOnNewOpt = Annotated[
    bool,
    typer.Option(
        "--fail-on-new",
        help="With a history: fail (exit 1) only on failing findings at or above --fail-on that "
        "are new since the last run of the same target (or raised to that severity); expired "
        "waivers still fail.",
    ),
]
_FileOpt = Annotated[
    Path | None,
    typer.Option(
        "--history",
        metavar="FILE",
        help="The history file (default: the configuration's history key).",
    ),
]
_FormatOpt = Annotated[str, typer.Option("--format", metavar="table|json", help="Output format.")]
_SinceOpt = Annotated[
    str | None,
    typer.Option("--since", metavar="DATE", help="Runs started at or after DATE (YYYY-MM-DD)."),
]
_ConfigOpt = Annotated[
    Path | None,
    typer.Option("--config", metavar="FILE", help="Configuration file naming the history."),
]

_NEW_SHOWN = 20
"""New findings listed on standard error by ``--fail-on-new``."""


# --- audit and gate -------------------------------------------------------------------------------


def start(history: Path | None, options: AuditOptions, fail_on_new: bool = False) -> str | None:
    """Before a run: the history file it records in (``--history``, else the configuration's),
    checked to be a usable history when it exists, so a bad file fails before the audit."""
    from auditor.history import History
    from auditor.history.record import configured_history

    path = os.fspath(history) if history is not None else configured_history(options)
    if path is None:
        if fail_on_new:
            raise InputError(
                "--fail-on-new needs a history: give --history FILE (or the history key in "
                "the configuration)",
                source="--fail-on-new",
            )
        return None
    if os.path.lexists(path):
        History(path, create=True).close()  # an empty file becomes a history
    return path


def record(
    result: AuditResult,
    path: str | None,
    options: AuditOptions,
    snapshot: Any = None,
) -> int | None:
    """Record the run in the history ``path`` (nothing when None); says so on standard error."""
    if path is None:
        return None
    from auditor.history import record_run
    from auditor.history.for_reports import report_history

    run_id = record_run(path, result, options=options, snapshot=snapshot)
    sys.stderr.write(f"recorded run {run_id} in {path}\n")
    result.history = report_history(path, run_id)  # the reports' trend and delta
    return run_id


def finish(
    result: AuditResult,
    path: str | None,
    options: AuditOptions,
    snapshot: Any = None,
    fail_on_new: bool = False,
    run_id: int | None = None,
) -> None:
    """After an audit: record it (unless ``run_id`` says it is recorded), then exit with its code
    (with ``fail_on_new``: the code of the gate on what is new since the last run of the same
    target), saying why."""
    from auditor.cli import _ci
    from auditor.cli._audit import _finish

    if run_id is None:
        run_id = record(result, path, options, snapshot)
    if not fail_on_new or run_id is None or result.exit_code == 3:
        _finish(result)
        return
    from auditor.history import new_since_last

    code, lines = _gate_on_new(result, new_since_last(path or "", run_id))
    from auditor.inert import inert_message

    for line in lines:
        sys.stderr.write(f"auditor: {inert_message(line)}\n")
    if code and not _ci.mode.soft_fail:  # --soft-fail: report, exit 0
        raise SystemExit(code)


def _gate_on_new(result: AuditResult, news: NewSince) -> tuple[int, list[str]]:
    """The exit code of ``--fail-on-new`` and what to say."""
    blocking = news.blocking(result.failOn)
    since = f"run {news.previous.id}" if news.previous else "nothing (the target's first run)"
    reasons = []
    if blocking:
        reasons.append(
            f"{len(blocking)} new failing finding(s) at or above {result.failOn} since {since}"
        )
    if result.expiredWaivers:
        reasons.append(f"{len(result.expiredWaivers)} expired waiver(s)")
    if result.failOnUnknown:
        unknown = [f for f in news.new if f["status"] == "unknown"]
        if unknown:
            reasons.append(f"{len(unknown)} new unknown finding(s) with --fail-on-unknown")
    lines = []
    if reasons:
        lines.append("exit 1, the gate failed: " + " and ".join(reasons))
        for f in blocking[:_NEW_SHOWN]:
            lines.append(f"  new: {f['severity']} {f['ruleId']} {f['resourceId']}")
        if len(blocking) > _NEW_SHOWN:
            lines.append(f"  ... and {len(blocking) - _NEW_SHOWN} more (auditor history diff)")
        return 1, lines
    old = result.blocking_failures()
    lines.append(
        f"exit 0: no new failing finding at or above {result.failOn} since {since}"
        + (f" ({old} failing finding(s) were already there)" if old else "")
    )
    return 0, lines


# --- the history commands -------------------------------------------------------------------------


def _history_file(history: Path | None, config: Path | None) -> str:
    from auditor.history.record import configured_history

    if history is not None:
        return os.fspath(history)
    if config is not None and not config.is_file():
        raise InputError("no such configuration file", source=f"--config {config}")
    path = configured_history(config_file=os.fspath(config) if config is not None else None)
    if path is None:
        raise InputError("give the history file with --history FILE", source="history")
    return path


def _format(value: str) -> str:
    low = value.strip().lower()
    if low not in ("table", "json"):
        raise InputError(f"expected table or json, found {value!r}", source="--format")
    return low


def _since(value: str | None) -> str | None:
    """``--since`` as the ISO text runs are stamped with (UTC)."""
    if value is None:
        return None
    text = value.strip()
    try:
        return dt.date.fromisoformat(text).isoformat()
    except ValueError:
        pass
    try:
        moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InputError(
            "expected a date (YYYY-MM-DD) or a timestamp (YYYY-MM-DDTHH:MM:SSZ)",
            source="--since",
        ) from None
    if moment.tzinfo is not None:
        moment = moment.astimezone(dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _run_id(value: str | None, name: str) -> int | None:
    if value is None:
        return None
    try:
        number = int(value.strip())
    except ValueError:
        number = 0
    if number < 1:
        raise InputError(
            "expected a run number, as `auditor history list` shows it", source=f"{name} {value!r}"
        )
    return number


def _json(doc: Any) -> None:
    from auditor.inert import inert_json

    sys.stdout.write(inert_json(json.dumps(doc, indent=2)) + "\n")


def _cell(value: object, limit: int = 120) -> str:
    from auditor.inert import inert

    return inert(value, limit=limit)


_COUNTS = ("critical", "high", "medium", "low", "info", "unknown", "waived", "passed")
_SHORT = {"critical": "CRIT", "medium": "MED"}


def _table(rows: Sequence[Sequence[str]], right: int = 0) -> str:
    """Rows as aligned columns; the first ``right`` columns after the first are right-aligned."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for row in rows:
        cells = [
            cell.rjust(widths[i]) if 0 < i <= right or i == 0 else cell.ljust(widths[i])
            for i, cell in enumerate(row)
        ]
        out.append("  ".join(cells).rstrip())
    return "\n".join(out)


def _run_rows(runs: Sequence[RunInfo]) -> str:
    header = ["RUN", *[_SHORT.get(c, c.upper()) for c in _COUNTS], "STARTED", "CMD", "TARGET"]
    rows = [header]
    for r in runs:
        counts = [str(r.summary.get(c, 0)) for c in _COUNTS]
        target = _cell(r.target) + ("" if r.complete else "  (incomplete)")
        rows.append([str(r.id), *counts, r.startedAt, r.command, target])
    return _table(rows, right=len(_COUNTS))


def _finding_lines(findings: Sequence[dict[str, Any]], *, previous: bool = False) -> list[str]:
    out = []
    for f in findings:
        severity = f["severity"]
        if previous and "previousSeverity" in f:
            severity = f"{f['previousSeverity']} -> {severity}"
        out.append(
            f"  {severity:<8} {f['status']:<9} {f['ruleId']:<9} {_cell(f['resourceId'], 160)}"
        )
        out.append(f"      {_cell(f['message'], 200)}")
    return out


def _diff_text(diff: RunDiff) -> str:
    a, b = diff.runA, diff.runB
    lines = [
        f"run {a.id} ({a.startedAt}) -> run {b.id} ({b.startedAt})",
        f"target: {_cell(b.target, 300)}",
    ]
    if a.target != b.target:
        lines.append(f"  (run {a.id}'s target: {_cell(a.target, 300)})")
    for title, items in (
        ("new", diff.new),
        ("fixed", diff.fixed),
        ("regressed (fixed once, back again)", diff.regressed),
        ("severity changed", diff.severityChanged),
    ):
        lines.append(f"{title}: {len(items)}")
        lines.extend(_finding_lines(items, previous=True))
    for title, waivers in (
        ("waivers expired or removed", diff.waiversExpired),
        ("waivers added", diff.waiversAdded),
    ):
        lines.append(f"{title}: {len(waivers)}")
        for w in waivers:
            lines.append(
                f"  {_cell(w.get('id'), 60)} ({w['before']} -> {w['after']}): rule "
                f"{_cell(w.get('rule'), 60)}, resource {_cell(w.get('resource'), 160)}, "
                f"expires {w.get('expires')}"
            )
    return "\n".join(lines)


def _show_text(doc: dict[str, Any]) -> str:
    run = doc["run"]
    lines = [
        f"run {run['id']}: {run['command']} of {_cell(run['targetName'], 300)}"
        + ("" if run["complete"] else " (incomplete)"),
        f"target:   {_cell(run['target'], 300)}",
        f"started:  {run['startedAt']}   finished: {run['finishedAt']}   exit code: "
        f"{run['exitCode']}",
        f"tool:     auditor {run['tool']['version']}, rule set {run['ruleset']} "
        f"({len(run['rules'])} rules)",
        "summary:  " + ", ".join(f"{k} {run['summary'].get(k, 0)}" for k in _COUNTS),
    ]
    for entry in run["inputs"]:
        where = entry.get("file") or entry.get("url")
        digest = f" sha256 {entry['sha256']}" if entry.get("sha256") else ""
        lines.append(f"input:    {entry['kind']} {_cell(where, 300)}{digest}")
    for w in run["waivers"]:
        lines.append(f"waiver:   {_cell(w['id'], 60)} ({w['state']}, expires {w['expires']})")
    for warning in run["warnings"] + run["incomplete"]:
        lines.append(f"warning:  {_cell(warning, 300)}")
    lines.append(f"findings: {len(doc['findings'])} (passes are counted below)")
    lines.extend(_finding_lines(doc["findings"]))
    lines.append("passes:")
    for p in doc["passCounts"]:
        lines.append(f"  {p['ruleId']:<9} {_cell(p['resourceType'], 80):<40} {p['passed']}")
    return "\n".join(lines)


def register(app: typer.Typer) -> None:
    """Add ``history`` to ``app``."""
    history_app = typer.Typer(
        help="The audit history (SQLite): runs recorded with --history, what changed between "
        "them, retention.",
        no_args_is_help=True,
    )

    @history_app.command("list")
    def list_runs(
        history: _FileOpt = None,
        since: _SinceOpt = None,
        fmt: _FormatOpt = "table",
        config: _ConfigOpt = None,
    ) -> None:
        """List the recorded runs (oldest first) with their counts."""
        from auditor.history import History

        kind = _format(fmt)
        with History(_history_file(history, config)) as h:
            runs = h.runs(since=_since(since))
        if kind == "json":
            _json({"runs": [r.to_json() for r in runs]})
        elif runs:
            sys.stdout.write(_run_rows(runs) + "\n")
        else:
            sys.stdout.write("no run recorded" + (" since then" if since else "") + "\n")

    @history_app.command("show")
    def show(
        run: Annotated[str, typer.Argument(metavar="RUN", help="Run number (history list).")],
        history: _FileOpt = None,
        fmt: _FormatOpt = "table",
        config: _ConfigOpt = None,
    ) -> None:
        """Show one run: its inputs and their hashes, settings, waivers, findings, pass counts."""
        from auditor.history import History

        kind = _format(fmt)
        run_id = _run_id(run, "RUN")
        assert run_id is not None
        with History(_history_file(history, config)) as h:
            doc = h.show(run_id)
        if kind == "json":
            _json(doc)
        else:
            sys.stdout.write(_show_text(doc) + "\n")

    @history_app.command("diff")
    def diff(
        run_a: Annotated[
            str | None,
            typer.Argument(metavar="[RUN_A]", help="The earlier run (default: see below)."),
        ] = None,
        run_b: Annotated[
            str | None,
            typer.Argument(
                metavar="[RUN_B]", help="The later run (default: the last of RUN_A's target)."
            ),
        ] = None,
        history: _FileOpt = None,
        since: Annotated[
            str | None,
            typer.Option(
                "--since",
                metavar="DATE",
                help="Compare the first run of the target started at or after DATE with the last.",
            ),
        ] = None,
        fmt: _FormatOpt = "table",
        config: _ConfigOpt = None,
    ) -> None:
        """What changed between two runs: new, fixed, regressed and re-rated findings, waivers
        expired or added. Default: the last two complete runs of the latest run's target."""
        from auditor.history import History

        kind = _format(fmt)
        a, b = _run_id(run_a, "RUN_A"), _run_id(run_b, "RUN_B")
        if since is not None and a is not None:
            raise InputError("give runs or --since, not both", source="--since")
        with History(_history_file(history, config)) as h:
            changes = h.diff(a, b, since=_since(since))
        if kind == "json":
            _json(changes.to_json())
        else:
            sys.stdout.write(_diff_text(changes) + "\n")

    @history_app.command("prune")
    def prune(
        keep: Annotated[
            int | None,
            typer.Option("--keep", metavar="N", help="Keep the N most recent runs of each target."),
        ] = None,
        older_than: Annotated[
            float | None,
            typer.Option(
                "--older-than", metavar="DAYS", help="Delete runs started more than DAYS ago."
            ),
        ] = None,
        history: _FileOpt = None,
        fmt: _FormatOpt = "table",
        config: _ConfigOpt = None,
    ) -> None:
        """Delete old runs (and the findings only they held), then VACUUM the file."""
        from auditor.history import History

        kind = _format(fmt)
        if keep is None and older_than is None:
            raise InputError("give --keep N or --older-than DAYS (or both)", source="prune")
        if keep is not None and keep < 0:
            raise InputError(f"expected 0 or more, found {keep}", source="--keep")
        if older_than is not None and not older_than >= 0:
            raise InputError(
                f"expected 0 or more days, found {older_than:g}", source="--older-than"
            )
        path = _history_file(history, config)
        with History(path) as h:
            deleted = h.prune(keep=keep, older_than_days=older_than)
            left = len(h.runs())
        size = os.path.getsize(path)
        if kind == "json":
            _json({"deleted": deleted, "kept": left, "bytes": size})
        else:
            sys.stdout.write(
                f"deleted {deleted} run(s), kept {left}; {path} is {size / 2**20:.1f} MiB\n"
            )

    del list_runs, show, diff, prune
    app.add_typer(history_app, name="history")
