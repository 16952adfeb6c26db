"""The audit history: every ``audit`` and ``gate`` run recorded in one SQLite file (the standard
library's ``sqlite3``; no server), and what changed between runs.

    from auditor.history import History, record_run, new_since_last
    run_id = record_run("audits.db", result, options=options, snapshot=estate)
    new_since_last("audits.db", run_id).blocking("high")      # what --fail-on-new gates on
    with History("audits.db") as history:
        history.diff().to_json()        # new, fixed, regressed, severityChanged, waivers...
        history.trend(last=10)          # failing findings per severity, subscription, rule
        history.since_last()            # the delta of the last two runs, for a report

What a run records and how a target is keyed: :mod:`auditor.history.record`; what a diff means:
:mod:`auditor.history.diff`; the schema and its migrations: :mod:`auditor.history.schema`.
"""

from __future__ import annotations

from auditor.history.database import History, NewSince, RunDiff, RunInfo, new_since_last, record_run
from auditor.history.diff import Changes, RunState, compare
from auditor.history.record import RunId, Target, estate_key, target_of
from auditor.history.schema import SCHEMA_VERSION
from auditor.history.store import BUSY_TIMEOUT, open_history

__all__ = [
    "BUSY_TIMEOUT",
    "SCHEMA_VERSION",
    "Changes",
    "History",
    "NewSince",
    "RunDiff",
    "RunId",
    "RunInfo",
    "RunState",
    "Target",
    "compare",
    "estate_key",
    "new_since_last",
    "open_history",
    "record_run",
    "target_of",
]
