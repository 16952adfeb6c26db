"""Markdown: a summary for a CI job page (``$GITHUB_STEP_SUMMARY``) or a pull-request comment.

The verdict and a counts table first, then the top failures, then collapsible details per rule and
the waiver register. Everything from the data is escaped (no HTML, links, images, emphasis or
mentions come from it; resource ids are inline code that cannot break out), and the document stays
under ``markdown_max_chars`` (a comment holds 65,536 characters): past that, details are left out
with a note saying how many.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from auditor.audit.findings import SEVERITIES, SEVERITY_RANK, Finding
from auditor.audit.names import describe
from auditor.report._sanitize import md_code, md_text
from auditor.report.controls import control_table
from auditor.report.trends import markdown_since_last

if TYPE_CHECKING:
    from auditor.audit.findings import AuditResult, WaiverInfo
    from auditor.report import RenderOptions

ICONS = {"critical": "🟥", "high": "🟧", "medium": "🟨", "low": "🟦", "info": "⬜"}
TOP = 10


def _sorted_failures(result: AuditResult) -> list[Finding]:
    return sorted(
        result.failures, key=lambda f: (-SEVERITY_RANK.get(f.severity, 0), f.ruleId, f.resourceId)
    )


def render(result: AuditResult, options: RenderOptions) -> bytes:
    """The Markdown summary of ``result``."""
    budget = max(4_000, options.markdown_max_chars)
    summary = result.summary()
    failures = _sorted_failures(result)
    out: list[str] = []

    if result.incomplete:
        verdict = "⚠️ **Audit incomplete**: some sources could not be read"
    elif result.coverage_failed:
        verdict = "⚠️ **Audit incomplete**: rules lacked their inputs (`--require-complete`)"
    elif result.gate_failed:
        verdict = "❌ **Audit failed**: " + ", ".join(md_text(r) for r in result.gate_reasons())
    else:
        verdict = f"✅ **Audit passed**: nothing failing at or above `{result.failOn}`"
    out.append(f"## {md_text(options.title)}")
    out.append("")
    out.append(verdict)
    out.append("")
    out.append(
        f"Target: {md_code(result.target)} ({result.targetKind}) · "
        f"{md_text(result.finishedAt)} · auditor {md_text(result.toolVersion)}"
    )
    out.append("")
    out.append("| Severity | Failing |")
    out.append("|---|---:|")
    for sev in SEVERITIES:
        out.append(f"| {ICONS[sev]} {sev} | {summary[sev]} |")
    out.append("")
    out.append("| Unknown | Passed | Waived | Baselined | Baseline fixed |")
    out.append("|---:|---:|---:|---:|---:|")
    out.append(
        f"| {summary['unknown']} | {summary['passed']} | {summary['waived']} | "
        f"{summary.get('baselined', 0)} | {len(result.baselineFixed)} |"
    )
    out.append("")
    for source in result.incomplete:
        out.append(f"> ⚠️ Could not read in full: {md_code(source, 300)}")
        out.append("")
    if result.expiredWaivers:
        out.append("> ❌ Expired waivers (their findings fail again): " + ", ".join(
            f"{md_code(w.id)} (expired {md_text(w.expires)})" for w in result.expiredWaivers
        ))  # fmt: skip
        out.append("")

    out.extend(markdown_since_last(result.history))
    if failures:
        out.append(f"### Top failures ({min(TOP, len(failures))} of {len(failures)})")
        out.append("")
        out.append("| Severity | Rule | Resource | Message |")
        out.append("|---|---|---|---|")
        for f in failures[:TOP]:
            out.append(
                f"| {ICONS.get(f.severity, '')} {f.severity} | {md_code(f.ruleId)} | "
                f"{_resource(f.resourceId, result.names)} | {md_text(f.message, 300)} |"
            )
        out.append("")

    unknowns = result.unknowns
    if unknowns:
        out.append(f"### Not judged: unknown ({min(TOP, len(unknowns))} of {len(unknowns)})")
        out.append("")
        out.append("| Rule | Resource | Source | What was missing |")
        out.append("|---|---|---|---|")
        for f in unknowns[:TOP]:
            where = f"{f.source}:{f.line}" if f.source and f.line else (f.source or "")
            out.append(
                f"| {md_code(f.ruleId)} | {md_code(f.resourceId, 120)} | "
                f"{md_code(where, 120) if where else ''} | {md_text(f.message, 300)} |"
            )
        out.append("")
    out.extend(control_table(result))
    out.extend(_coverage(result))

    head = "\n".join(out)
    tail = _waivers(result)
    room = budget - len(head) - len(tail) - 400
    details = _details(result, failures, room)
    return (head + "\n" + details + tail).encode("utf-8")


def _details(result: AuditResult, failures: list[Finding], room: int) -> str:
    if not failures:
        return ""
    by_rule: dict[str, list[Finding]] = defaultdict(list)
    for f in failures:
        by_rule[f.ruleId].append(f)
    rules = {r.id: r for r in result.rules}
    lines = [
        f"<details><summary>All failing findings by rule ({len(failures)})</summary>",
        "",
    ]
    used = sum(len(x) + 1 for x in lines)
    shown = 0
    stop = False
    for rule_id, items in by_rule.items():
        rule = rules.get(rule_id)
        title = rule.title if rule else items[0].title
        block = [
            f"#### {md_text(rule_id)}: {md_text(title, 200)} ({items[0].severity}, {len(items)})",
            "",
        ]
        remediation = rule.remediation if rule and rule.remediation else items[0].remediation
        if remediation:
            block += [f"Remediation: {md_text(remediation, 600)}", ""]
        size = sum(len(x) + 1 for x in block)
        if used + size > room:
            break
        lines += block
        used += size
        for f in items:
            line = f"- {_resource(f.resourceId, result.names, 160)}: {md_text(f.message, 400)}"
            if used + len(line) + 1 > room:
                stop = True
                break
            lines.append(line)
            used += len(line) + 1
            shown += 1
        lines.append("")
        if stop:
            break
    if shown < len(failures):
        lines.append(
            f"_{len(failures) - shown} more failing findings are not shown here to keep this "
            "summary short; the HTML, JSON and CSV reports have them all._"
        )
        lines.append("")
    lines += ["</details>", ""]
    return "\n".join(lines) + "\n"


def _coverage(result: AuditResult) -> list[str]:
    """A short coverage section: rules that lacked an input, sections absent, files skipped."""
    cov = result.coverage
    absent = sorted({n for i in cov.inputs for n in i.get("absent", ())})
    if cov.complete and not cov.skipped and not absent:
        return []
    lines = ["### Coverage", ""]
    if absent:
        lines += [f"Not in the input: {', '.join(md_code(n) for n in absent)}", ""]
    if cov.incompleteRules:
        lines += ["| Rule | What it lacked |", "|---|---|"]
        lines += [
            f"| {md_code(r.ruleId)} | {md_text(r.missing, 300)} |" for r in cov.incompleteRules[:50]
        ]
        lines.append("")
    if cov.skipped:
        shown = ", ".join(md_code(str(s.get("file", "")), 120) for s in cov.skipped[:20])
        more = f" and {len(cov.skipped) - 20} more" if len(cov.skipped) > 20 else ""
        lines += [f"Skipped ({len(cov.skipped)}): {shown}{more}", ""]
    return lines


def _waiver_rows(waivers: list[WaiverInfo]) -> list[str]:
    rows = ["| Waiver | Rule | Resource | Expires | Justification |", "|---|---|---|---|---|"]
    for w in waivers[:50]:
        rows.append(
            f"| {md_code(w.id)} | {md_code(w.rule)} | {md_code(w.resource, 120)} | "
            f"{md_text(w.expires)} | {md_text(w.justification, 200)} |"
        )
    if len(waivers) > 50:
        rows.append(f"| … | {len(waivers) - 50} more | | | |")
    return rows


def _waivers(result: AuditResult) -> str:
    groups = (
        ("Applied", result.waivers),
        ("Expired", result.expiredWaivers),
        ("Stale (matched nothing)", result.staleWaivers),
    )
    if not any(ws for _, ws in groups):
        return ""
    counts = ", ".join(f"{len(ws)} {name.split()[0].lower()}" for name, ws in groups)
    lines = [f"<details><summary>Waivers: {counts}</summary>", ""]
    for name, ws in groups:
        if ws:
            lines += [f"**{name}**", "", *_waiver_rows(ws), ""]
    lines += ["</details>", ""]
    return "\n".join(lines)


def _resource(resource_id: str, names: dict[str, str], limit: int = 120) -> str:
    """The resource's names the snapshot holds, then its id (as code)."""
    name = describe(resource_id, names)
    code = md_code(resource_id, limit)
    return f"{md_text(name, 160)} {code}" if name else code
