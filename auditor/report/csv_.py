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
import itertools
from collections.abc import Iterator
from typing import TYPE_CHECKING

from auditor.report._sanitize import csv_cell, evidence_json
from auditor.report.controls import keys_by_rule

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
    "controls",
)


def _row(f: Finding, controls: dict[str, list[str]]) -> list[str]:
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
        "; ".join(controls.get(f.ruleId, ())),
    ]
    return [csv_cell(v) for v in values]


CHUNK = 5_000
"""Rows written at a time by :func:`chunks`."""


def render(result: AuditResult, options: RenderOptions) -> bytes:
    """The findings of ``result`` as CSV (header row first)."""
    return b"".join(chunks(result, options))


def chunks(result: AuditResult, options: RenderOptions | None = None) -> Iterator[bytes]:
    """:func:`render`'s bytes a few thousand rows at a time (a large estate has millions of
    passes, each made as it is written and then dropped)."""
    buf = io.StringIO()
    writer = csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    controls = keys_by_rule(result)
    prefix = "\ufeff"  # the byte-order mark, once
    it = iter(result.findings)
    while batch := list(itertools.islice(it, CHUNK)):
        writer.writerows([_row(f, controls) for f in batch])
        yield (prefix + buf.getvalue()).encode("utf-8")
        prefix = ""
        buf.seek(0)
        buf.truncate()
    if prefix:
        yield (prefix + buf.getvalue()).encode("utf-8")
