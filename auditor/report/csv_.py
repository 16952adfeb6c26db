"""CSV: one row per finding (every status: fail, unknown, waived, baselined, pass), for
spreadsheets and ad-hoc analysis. ``source``, ``line`` and ``address`` say where the resource came
from; ``location`` is the JSON path of the finding in the snapshot or plan.

UTF-8 with a byte-order mark (so spreadsheet programs read non-ASCII names right), CRLF line ends
(RFC 4180), every field quoted. A cell that a spreadsheet would take for a formula (starting with
``= + - @``, tab, CR or LF, ``|`` or ``%``) gets a leading apostrophe, so opening the file runs
nothing. Evidence is compact JSON; references are joined with ``; ``.
"""

from __future__ import annotations

import csv
import io
from typing import TYPE_CHECKING

from auditor.report._sanitize import csv_cell, evidence_json

if TYPE_CHECKING:
    from auditor.audit.findings import AuditResult, Finding
    from auditor.report import RenderOptions

COLUMNS: tuple[str, ...] = (
    "ruleId",
    "severity",
    "status",
    "resourceId",
    "resourceType",
    "title",
    "message",
    "evidence",
    "remediation",
    "references",
    "waiverId",
    "waiverJustification",
    "waiverExpires",
    "waiverExpired",
    "source",
    "location",
    "fingerprint",
    "line",
    "address",
)


def _row(f: Finding) -> list[str]:
    w = f.waiver
    values: list[object] = [
        f.ruleId,
        f.severity,
        f.status,
        f.resourceId,
        f.resourceType,
        f.title,
        f.message,
        evidence_json(f.evidence, indent=None) if f.evidence else "",
        f.remediation,
        "; ".join(f.references),
        w.id if w else "",
        w.justification if w else "",
        w.expires if w else "",
        ("true" if w.expired else "false") if w else "",
        f.source or "",
        f.location or "",
        f.fingerprint,
        f.line if f.line is not None else "",
        f.address or "",
    ]
    return [csv_cell(v) for v in values]


def render(result: AuditResult, options: RenderOptions) -> bytes:
    """The findings of ``result`` as CSV (header row first)."""
    buf = io.StringIO()
    writer = csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for f in result.findings:
        writer.writerow(_row(f))
    return buf.getvalue().encode("utf-8-sig")
