"""The text report for a terminal: the gate's verdict, a summary by severity, and the failing,
unknown (not judged), waived and baselined findings (passes are counted, not listed), each with
``file:line`` where the resource came from a file read line by line (a plan or template), and a
short coverage section (inputs read, rules that lacked an input, files passed over).

:func:`render` gives plain text (no colours, no box drawing), for files, pipes and CI logs;
:func:`print_rich` draws the same report with rich tables and colours on a terminal.

Every value from the data is made inert (:mod:`auditor.inert`: escape sequences, control characters
and invisible bidi and format characters shown as ``\\x1b`` or ``<U+202E>``, a line break as ``\\n``)
and bounded (``MESSAGE_LIMIT``, ``ID_LIMIT`` characters), so neither a finding nor a waiver can
colour, move, retitle or reorder the terminal, nor forge a line of the report.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import TYPE_CHECKING, Any

from auditor.audit.findings import (
    SEVERITIES,
    AuditResult,
    Finding,
    Severity,
    WaiverInfo,
)
from auditor.audit.names import describe, describer
from auditor.inert import inert
from auditor.report._locate import SourceLines
from auditor.report.controls import compact_line, control_lines

if TYPE_CHECKING:
    from auditor.report import RenderOptions

SEVERITY_STYLE = {
    "critical": "bold white on red",
    "high": "bold red",
    "medium": "yellow",
    "low": "cyan",
    "info": "dim",
}

MESSAGE_LIMIT = 2_000
"""Characters of a message, justification or remediation shown (the JSON report has them whole)."""
ID_LIMIT = 500
"""Characters of a resource id, rule id, waiver id or source shown."""


def _t(value: object, limit: int = ID_LIMIT) -> str:
    """A value from the data as inert, bounded, one-line text."""
    return inert(value, limit=limit)


def _m(value: object) -> str:
    return inert(value, limit=MESSAGE_LIMIT)


def _verdict(result: AuditResult) -> str:
    if result.incomplete:
        sources = "; ".join(_t(source) for source in result.incomplete)
        return f"INCOMPLETE: some sources could not be read ({sources})"
    if result.coverage_failed:
        rules = ", ".join(sorted({_t(r.ruleId) for r in result.coverage.incompleteRules}))
        return f"INCOMPLETE: --require-complete and rule(s) lacked their inputs ({rules})"
    reasons = result.gate_reasons()
    if reasons:
        return "FAILED: " + " and ".join(reasons)
    out = f"PASSED: no failing finding at or above {result.failOn}"
    unknown = result.summary()["unknown"]
    if unknown:
        out += f" ({unknown} unknown: not judged)"
    return out


def _summary_line(result: AuditResult) -> str:
    s = result.summary()
    parts = [f"{sev} {s[sev]}" for sev in SEVERITIES]
    extra = f"unknown {s['unknown']}, passed {s['passed']}, waived {s['waived']}"
    if s.get("baselined"):
        extra += f", baselined {s['baselined']}"
    return "Failing: " + ", ".join(parts) + " | " + extra


def _waiver_line(w: WaiverInfo) -> str:
    return (
        f"{_t(w.id)} (rule {_t(w.rule)}, resource {_t(w.resource)}, expires {_t(w.expires)}): "
        f"{_m(w.justification)}"
    )


def _groups(result: AuditResult) -> list[tuple[str, list[Finding]]]:
    by_status: dict[str, list[Finding]] = {"fail": [], "unknown": [], "waived": [], "baselined": []}
    for f in result.judged:  # passes are counted in the summary, never made
        if f.status in by_status:
            by_status[f.status].append(f)
    return [
        ("Failing findings", by_status["fail"]),
        ("Unknown findings (could not be judged)", by_status["unknown"]),
        ("Waived findings", by_status["waived"]),
        ("Baselined findings (accepted by the baseline)", by_status["baselined"]),
    ]


def _places(result: AuditResult) -> Callable[[Finding], str]:
    """Where a finding's resource is defined, for files people edit line by line (templates and
    plans; a snapshot is one file named in the header): ``file:line`` when the line is known (a
    template's, or found by the JSON path in the plan file), else ``file (address)``, else ""."""
    lines: SourceLines | None = None
    if result.targetKind == "plan":
        in_plan = [f for f in result.judged if f.source == result.target]
        lines = SourceLines(in_plan, lambda f: f.source)

    def place(f: Finding) -> str:
        source = f.source
        if source is None or (lines is None and type(source) is str):
            return ""  # a plain file name (the snapshot's) knows no line
        if lines is None and f.line is None:
            return ""
        line = f.line
        if line is None and lines is not None and f.source == result.target:
            line = lines.line(f)
        if line:
            return f"{_t(f.source)}:{line}"
        return f"{_t(f.source)}" + (f", {_t(f.address)}" if f.address else "")

    return place


def _coverage(result: AuditResult) -> list[str]:
    """The coverage section's lines (empty when every input was there and nothing was skipped)."""
    cov = result.coverage
    absent = [n for i in cov.inputs for n in i.get("absent", ())]
    if cov.complete and not cov.skipped and not absent:
        return []
    lines = ["Coverage:"]
    for entry in cov.inputs[:20]:
        name = entry.get("file") or entry.get("url") or ""
        parts = [f"{k} {v}" for k, v in entry.get("sections", {}).items()]
        if "requests" in entry:
            parts.append(f"{entry['requests']} request(s)")
        text = f"  read {entry.get('kind', 'input')} {_t(name)}: " + (", ".join(parts) or "empty")
        if entry.get("absent"):
            text += f"; not in it: {', '.join(entry['absent'])}"
        lines.append(text)
    if len(cov.inputs) > 20:
        lines.append(f"  ... and {len(cov.inputs) - 20} more input(s)")
    if cov.incompleteRules:
        lines.append(f"  rules that lacked an input ({len(cov.incompleteRules)}):")
        lines.extend(f"    {_t(r.ruleId)}: {_m(r.missing)}" for r in cov.incompleteRules)
    if cov.skipped:
        lines.append(f"  skipped ({len(cov.skipped)}):")
        lines.extend(
            f"    {_t(s.get('file', ''))}: {_m(s.get('reason', ''))}" for s in cov.skipped[:50]
        )
        if len(cov.skipped) > 50:
            lines.append(f"    ... and {len(cov.skipped) - 50} more")
    return lines


def _notes(result: AuditResult) -> list[tuple[str, list[str]]]:
    notes: list[tuple[str, list[str]]] = []
    if result.expiredWaivers:
        notes.append(
            (
                "Expired waivers (their findings fail again)",
                [_waiver_line(w) for w in result.expiredWaivers],
            )
        )
    if result.staleWaivers:
        notes.append(
            ("Stale waivers (matched nothing)", [_waiver_line(w) for w in result.staleWaivers])
        )
    if result.baselineFixed:
        notes.append(("Baseline entries fixed", [_t(fp) for fp in result.baselineFixed]))
    if result.baselineStale:
        notes.append(
            ("Baseline entries stale (resource gone)", [_t(fp) for fp in result.baselineStale])
        )
    return notes


ACCESS_LINES = 200
"""Lines of the "Access changes" table shown (the JSON report's ``accessDelta`` has every one)."""


def _access_changes(result: AuditResult) -> list[str]:
    """``gate --estate``: the access delta as the compact table of ``auditor access diff``,
    cut at :data:`ACCESS_LINES` lines."""
    if result.accessDelta is None:
        return []
    from auditor.report.access_delta import delta_text

    lines = delta_text(result.accessDelta).rstrip("\n").split("\n")
    if len(lines) > ACCESS_LINES:
        rest = len(lines) - ACCESS_LINES
        lines = [
            *lines[:ACCESS_LINES],
            f"  ... and {rest} more line(s): see accessDelta in -o json",
        ]
    return lines


def _header(result: AuditResult) -> str:
    return (
        f"auditor {result.toolVersion}: {result.targetKind} {_t(result.target)} "
        f"({_t(result.startedAt)} to {_t(result.finishedAt)})"
    )


def render_plain(result: AuditResult) -> str:
    return "".join(_plain_parts(result))


def _plain_parts(result: AuditResult) -> Iterator[str]:
    """``"\n".join(lines).rstrip("\n") + "\n"`` of :func:`_plain_lines`, a few thousand lines at
    a time (a large estate's report is tens of megabytes)."""
    lines = _plain_lines(result)
    held: str | None = None  # the last line with more than line breaks: its end is stripped
    blanks: list[str] = []  # the lines of line breaks alone after it (written if more follows)
    while block := list(islice(lines, 4_096)):  # taken in C, not a line at a time
        last = len(block) - 1
        while last >= 0 and not block[last].strip("\n"):
            last -= 1
        if last < 0:
            blanks.extend(block)
            continue
        part = blanks if held is None else [held, *blanks]
        part.extend(block[:last])
        held, blanks = block[last], block[last + 1 :]
        if part:
            yield "\n".join(part) + "\n"
    yield ("" if held is None else held.rstrip("\n")) + "\n"


def _plain_lines(result: AuditResult) -> Iterator[str]:
    lines = [_header(result), _summary_line(result), _verdict(result), ""]
    place = _places(result)
    name_of = describer(result.names)
    heads: dict[tuple[str, str], str] = {}  # "  [HIGH] RBAC-003  ", made once per rule
    fixes: dict[str, str] = {}  # each remediation's line
    add = lines.append
    for title, items in _groups(result):
        if not items:
            continue
        add(f"{title} ({len(items)}):")
        for f in items:
            if len(lines) >= 4_096:
                yield from lines
                lines.clear()
            where = place(f)
            rid = f.resourceId
            key = (f.severity, f.ruleId)
            head = heads.get(key)
            if head is None:
                head = heads[key] = f"  [{f.severity.upper()}] {_t(f.ruleId)}  "
            # inert's common case (printable and short: the value itself) decided here, without
            # a call per value (tens of thousands of findings on a large estate)
            shown = rid if len(rid) <= ID_LIMIT and rid.isprintable() else _t(rid)
            add(f"{head}{shown}  ({where})" if where else head + shown)
            name = name_of(rid)
            if name:  # the names the snapshot holds, next to the id
                if len(name) > MESSAGE_LIMIT or not name.isprintable():
                    name = _m(name)
                add("      = " + name)
            message = f.message
            if len(message) > MESSAGE_LIMIT or not message.isprintable():
                message = _m(message)
            add("      " + message)
            if f.waiver is not None:
                state = "EXPIRED " if f.waiver.expired else ""
                add(
                    f"      {state}waiver {_t(f.waiver.id)} until {_t(f.waiver.expires)}: "
                    f"{_m(f.waiver.justification)}"
                )
            remediation = f.remediation
            if remediation and f.status == "fail":
                fix = fixes.get(remediation)  # most rules' remediation is one text
                if fix is None:
                    fix = "      fix: " + _m(remediation)
                    if len(fixes) < 256:  # a few texts, not one per finding, kept
                        fixes[remediation] = fix
                add(fix)
        lines.append("")
    access = _access_changes(result)
    if access:
        lines.extend([*access, ""])
    for note_title, notes in _notes(result):
        lines.append(f"{note_title} ({len(notes)}):")
        lines.extend(f"  {item}" for item in notes)
        lines.append("")
    lines.extend([*control_lines(result), ""] if result.controls else [])
    coverage = _coverage(result)
    if coverage:
        lines.extend([*coverage, ""])
    yield from lines


def render_compact(result: AuditResult) -> str:
    """The header, the counts, the verdict and one line per rule with failing findings."""
    lines = [_header(result), _summary_line(result), _verdict(result)]
    per_rule: dict[str, list[Finding]] = {}
    judged = result.judged
    for f in judged:
        if f.status == "fail":
            per_rule.setdefault(f.ruleId, []).append(f)
    if per_rule:
        lines.append("")
        lines.append(f"Failing rules ({len(per_rule)}):")
        ordered = sorted(
            per_rule.items(), key=lambda kv: (SEVERITIES.index(kv[1][0].severity), kv[0])
        )
        for rule, items in ordered:
            lines.append(
                f"  [{items[0].severity.upper():8s}] {_t(rule):9s} {len(items):5d}  "
                f"{_m(items[0].title)}"
            )
    unknown: dict[str, int] = {}
    for f in judged:
        if f.status == "unknown":
            unknown[f.ruleId] = unknown.get(f.ruleId, 0) + 1
    if unknown:
        lines.append(f"Rules with unknown findings ({len(unknown)}): " + ", ".join(
            f"{_t(rule)} {n}" for rule, n in sorted(unknown.items())
        ))  # fmt: skip
    if result.accessDelta is not None:
        lines.append(_access_changes(result)[0])
    for note_title, notes in _notes(result):
        lines.append(f"{note_title}: {len(notes)}")
    if result.coverage.incompleteRules:
        lines.append(f"Rules that lacked an input: {len(result.coverage.incompleteRules)}")
    lines.extend(line for line in [compact_line(result)] if line)
    return "\n".join(lines) + "\n"


def render(result: AuditResult, options: RenderOptions) -> bytes:
    """Plain text (for files, pipes and CI logs); ``options.compact`` for the summary only."""
    return b"".join(chunks(result, options))


def chunks(result: AuditResult, options: RenderOptions | None = None) -> Iterator[bytes]:
    """:func:`render`'s bytes a few thousand lines at a time."""
    if options is not None and options.compact:
        yield render_compact(result).encode("utf-8")
        return
    for part in _plain_parts(result):
        yield part.encode("utf-8")


def _rows(
    items: Iterable[Finding], names: dict[str, str] | None = None
) -> Iterable[tuple[Severity, str, str, str]]:
    for f in items:
        message = _m(f.message)
        if f.waiver is not None:
            state = "expired " if f.waiver.expired else ""
            message += f"\n({state}waiver {_t(f.waiver.id)} until {_t(f.waiver.expires)})"
        if f.status == "fail" and f.remediation:  # as the plain text shows it
            message += f"\nfix: {_m(f.remediation)}"
        name = describe(f.resourceId, names) if names else ""
        resource = f"{_m(name)}\n{_t(f.resourceId)}" if name else _t(f.resourceId)
        yield f.severity, _t(f.ruleId), resource, message


def print_rich(result: AuditResult, console: Any) -> None:
    """The report drawn with rich on ``console`` (a :class:`rich.console.Console`)."""
    from rich.table import Table
    from rich.text import Text

    console.print(Text(_header(result), style="bold"))
    summary = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    s = result.summary()
    for sev in SEVERITIES:
        summary.add_column(sev, justify="right", style=SEVERITY_STYLE[sev])
    for name in ("unknown", "passed", "waived", "baselined"):
        summary.add_column(name, justify="right")
    summary.add_row(*(str(s[k]) for k in [*SEVERITIES, "unknown", "passed", "waived", "baselined"]))
    console.print(summary)
    verdict = _verdict(result)
    console.print(
        Text(verdict, style="bold red" if not verdict.startswith("PASSED") else "bold green")
    )
    for title, items in _groups(result):
        if not items:
            continue
        table = Table(title=f"{title} ({len(items)})", title_justify="left", show_lines=False)
        table.add_column("Severity")
        table.add_column("Rule", no_wrap=True)
        table.add_column("Resource", overflow="fold")
        table.add_column("Message", overflow="fold")
        for sev, rule, resource, message in _rows(items, result.names):
            # Text, not str: a cell given as str is read as rich markup ("[link=...]")
            table.add_row(
                Text(sev, style=SEVERITY_STYLE[sev]), Text(rule), Text(resource), Text(message)
            )
        console.print(table)
    for line in _access_changes(result):
        console.print(line, markup=False, highlight=False)
    for title, notes in _notes(result):
        console.print(Text(f"{title} ({len(notes)}):", style="bold"))
        for note in notes:
            console.print(f"  {note}", markup=False, highlight=False)
    for line in [*control_lines(result), *_coverage(result)]:
        console.print(line, markup=False, highlight=False)
