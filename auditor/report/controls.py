"""The "Compliance by control" view as the reports show it: plain-text lines (text report), a
Markdown table (summary), the control keys of each rule (CSV column, SARIF tags, JUnit
properties). The view itself is computed once, in the audit layer
(:func:`auditor.audit.frameworks.control_view`, ``AuditResult.controls``); this module only
formats it. Every value from the data is made inert or escaped by the caller's helpers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from auditor.audit.names import describe
from auditor.inert import inert
from auditor.report._sanitize import md_code, md_text

if TYPE_CHECKING:
    from auditor.audit.findings import AuditResult
    from auditor.audit.frameworks import ControlResult

TEXT_RESOURCES = 5
"""Failing resources named per control in the text report."""
MARKDOWN_RESOURCES = 3
"""Failing resources named per control in the Markdown summary."""
MARKDOWN_CONTROLS = 60
"""Controls in the Markdown summary's table (a pull-request comment is bounded); the failing ones
first when there are more."""


def _counts(c: ControlResult) -> str:
    counts = c.counts
    waived = counts["waived"] + counts["baselined"]
    return (
        f"fail {counts['fail']}, unknown {counts['unknown']}, waived {waived}, "
        f"pass {counts['pass']}"
    )


def resource_label(resource_id: str, names: Mapping[str, str]) -> str:
    """A failing resource as people read it: the names the snapshot holds for it and where it
    is (``dom-dev (Sample Corp Dev › resource group rg-app)``, ``Sample Corp Prod › Alice as
    Owner``), else its id."""
    context = describe(resource_id, names)
    if not context:
        return resource_id
    if names.get(resource_id.lower()):
        return context  # (it ends with the resource's own name)
    return f"{resource_id.rstrip('/').rsplit('/', 1)[-1]} ({context})"


def control_lines(result: AuditResult) -> list[str]:
    """The text report's section (empty when the run has no control view)."""
    if not result.controls:
        return []
    lines = [f"Compliance by control ({len(result.controls)}):"]
    for c in result.controls:
        lines.append(f"  [{c.status.upper()}] {inert(c.key)}  {inert(c.title, limit=200)}")
        lines.append(f"      rules {', '.join(c.rules)}; {_counts(c)}")
        if c.failingResources:
            shown = [
                inert(resource_label(r, result.names), limit=500)
                for r in c.failingResources[:TEXT_RESOURCES]
            ]
            more = c.failingResourcesTotal - len(shown)
            lines.append(
                "      failing: " + "; ".join(shown) + (f" (and {more} more)" if more else "")
            )
    return lines


def compact_line(result: AuditResult) -> str | None:
    """One line for ``--compact``: controls per framework by status."""
    if not result.controls:
        return None
    per: dict[str, dict[str, int]] = {}
    for c in result.controls:
        by_status = per.setdefault(c.framework, {})
        by_status[c.status] = by_status.get(c.status, 0) + 1
    parts = [
        f"{fw} " + ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
        for fw, counts in per.items()
    ]
    return "Compliance by control: " + "; ".join(parts)


def control_table(result: AuditResult) -> list[str]:
    """The Markdown summary's table (empty when the run has no control view)."""
    if not result.controls:
        return []
    out = [
        "### Compliance by control",
        "",
        "| Control | Title | Status | Fail | Unknown | Waived | Pass | Rules | Failing resources |",
        "|---|---|---|---:|---:|---:|---:|---|---|",
    ]
    controls = result.controls
    if len(controls) > MARKDOWN_CONTROLS:
        controls = sorted(controls, key=lambda c: c.status != "fail")[:MARKDOWN_CONTROLS]
    for c in controls:
        shown = [
            md_text(resource_label(r, result.names), 120)
            for r in c.failingResources[:MARKDOWN_RESOURCES]
        ]
        more = c.failingResourcesTotal - len(shown)
        resources = ", ".join(shown) + (f" and {more} more" if more else "")
        counts = c.counts
        out.append(
            f"| {md_code(c.key)} | {md_text(c.title, 150)} | {c.status} | {counts['fail']} | "
            f"{counts['unknown']} | {counts['waived'] + counts['baselined']} | {counts['pass']} | "
            f"{', '.join(md_code(r) for r in c.rules)} | {resources} |"
        )
    if len(controls) < len(result.controls):
        out.append("")
        left = [c for c in result.controls if c not in controls]
        failing = sum(1 for c in left if c.status == "fail")
        out.append(
            f"{len(left)} more control(s) ({failing} failing) are in the JSON report (`controls`)."
        )
    out.append("")
    return out


def keys_by_rule(result: AuditResult) -> dict[str, list[str]]:
    """Rule id -> the controls it answers (``mcsb:PA-1``), for CSV, SARIF and JUnit."""
    out: dict[str, list[str]] = {}
    for c in result.controls:
        for rule_id in c.rules:
            out.setdefault(rule_id, []).append(c.key)
    return out
