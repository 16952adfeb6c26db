"""What the reports show of the history: the trend of a run's target and what changed since the
target's last audit, small enough to travel on the :class:`~auditor.audit.findings.AuditResult`
(``result.history``) to the renderers, which do not read the database themselves::

    from auditor.history import record_run
    from auditor.history.for_reports import report_history

    run_id = record_run("audits.db", result, snapshot=estate)
    result.history = report_history("audits.db", run_id)

The shape (plain JSON-ready values)::

    {"trend": History.trend(...),          # the last ``last`` complete runs of the target
     "sinceLast": None | {"runA": {...}, "runB": {...},
                          "counts": {"new": n, "fixed": n, "regressed": n, "severityChanged": n,
                                     "waiversExpired": n, "waiversAdded": n},
                          "new": [...], "fixed": [...], ...}}   # the first ``listed`` of each

``sinceLast`` is None for a target's first complete run, or when the run itself is incomplete.
Findings keep the fields a report shows (rule, severity, status, resource, title, message,
fingerprint, ``previousSeverity``); their evidence stays in the database (``history diff``).
"""

from __future__ import annotations

import os
from typing import Any

from auditor.history.database import History

LISTS = ("new", "fixed", "regressed", "severityChanged", "waiversExpired", "waiversAdded")
"""The lists of a diff, in the order the reports show them."""
_FINDING_KEYS = (
    "ruleId",
    "severity",
    "previousSeverity",
    "status",
    "resourceId",
    "title",
    "message",
    "fingerprint",
)


def report_history(
    path: str | os.PathLike[str], run_id: int, *, last: int = 10, listed: int = 50
) -> dict[str, Any]:
    """The trend of run ``run_id``'s target over its last ``last`` complete runs, and the delta
    from the target's previous complete run to this one (each list cut to its first ``listed``
    entries; ``counts`` has the full lengths)."""
    with History(path) as history:
        run = history.run(run_id)
        trend = history.trend(run.target, last=last)
        previous = history.latest(run.target, before=run.id) if run.complete else None
        since: dict[str, Any] | None = None
        if previous is not None:
            diff = history.diff(previous.id, run.id).to_json()
            since = {
                "runA": diff["runA"],
                "runB": diff["runB"],
                "counts": {name: len(diff[name]) for name in LISTS},
            }
            for name in LISTS:
                entries = diff[name][: max(0, listed)]
                if not name.startswith("waivers"):
                    entries = [{k: f[k] for k in _FINDING_KEYS if k in f} for f in entries]
                since[name] = entries
    return {"trend": trend, "sinceLast": since}
