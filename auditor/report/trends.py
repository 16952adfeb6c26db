"""The history in the reports: the trend of the audited target and what changed since its last
audit, from ``AuditResult.history`` (set when the run is recorded with ``--history FILE``; the
shape is :func:`auditor.history.for_reports.report_history`'s).

HTML: :func:`trend_view` gives the ``trends`` context of ``reports/_trends.html.j2`` (inline SVG
in the style of :mod:`auditor.report._svg`: failing findings per severity per run as stacked bars,
and per subscription and per rule as one sparkline a row; then the "Since the last audit" counts
and lists). Markdown: :func:`markdown_since_last` gives the short delta for a pull-request comment.
Every label from the data is escaped and made inert.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from auditor.audit.findings import SEVERITIES
from auditor.report._sanitize import clip, md_code, md_text
from auditor.report._svg import FONT, SEVERITY_COLOURS, _e

LISTED = 20
"""Entries of each "since the last audit" list the HTML report shows."""
MARKDOWN_LISTED = 5
"""Entries of each list the Markdown delta shows."""
SERIES = 10
"""Subscriptions and rules the trend charts show (the most failing in the latest run first)."""
LABELS = {
    "new": "New",
    "fixed": "Fixed",
    "regressed": "Regressed",
    "severityChanged": "Severity changed",
    "waiversExpired": "Waivers expired",
    "waiversAdded": "Waivers added",
}
"""The lists of the delta in the order shown, and their headings."""


def trend_view(history: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The ``trends`` context of the HTML report; None when the run was not recorded."""
    if not history:
        return None
    runs: list[Mapping[str, Any]] = list((history.get("trend") or {}).get("runs") or [])
    since = history.get("sinceLast")
    view: dict[str, Any] = {
        "runs": len(runs),
        "severity_chart": severity_runs_chart(runs) if runs else "",
        "subscription_chart": sparklines(_series(runs, "bySubscription"), runs, "subscription"),
        "rule_chart": sparklines(_series(runs, "byRule"), runs, "rule"),
        "since": None,
    }
    if since:
        counts = since.get("counts") or {}
        view["since"] = {
            "runA": since["runA"],
            "runB": since["runB"],
            "sections": [
                {
                    "key": key,
                    "label": label,
                    "count": int(counts.get(key, len(since.get(key, ())))),
                    "entries": list(since.get(key, ()))[:LISTED],
                }
                for key, label in LABELS.items()
            ],
        }
    return view


def _failing(counts: Mapping[str, Any]) -> int:
    return sum(int(n) for n in counts.values() if isinstance(n, int))


def _series(runs: Sequence[Mapping[str, Any]], key: str) -> dict[str, list[int]]:
    """Failing findings per name (subscription or rule) per run, the :data:`SERIES` names most
    failing in the latest run (then in all runs) first."""
    names: set[str] = set()
    for run in runs:
        names.update(run.get(key) or {})
    series = {
        name: [_failing((run.get(key) or {}).get(name) or {}) for run in runs] for name in names
    }
    ranked = sorted(series, key=lambda n: (-series[n][-1], -sum(series[n]), n))
    return {name: series[name] for name in ranked[:SERIES]}


def _run_label(run: Mapping[str, Any]) -> str:
    return f"#{run.get('id')} {str(run.get('startedAt', ''))[:10]}"


def severity_runs_chart(runs: Sequence[Mapping[str, Any]], *, width: int = 640) -> str:
    """Failing findings per severity per run: one stacked bar a run, oldest on the left."""
    height, top, bottom, left = 200, 24, 34, 44
    plot_h = height - top - bottom
    totals = [sum(int(r["bySeverity"].get(s, 0)) for s in SEVERITIES) for r in runs]
    biggest = max([*totals, 1])
    slot = (width - left - 8) / max(len(runs), 1)
    bar_w = max(6.0, min(48.0, slot * 0.6))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart trend-chart" role="img" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" {FONT} '
        f'font-size="11">',
        f"<title>Failing findings by severity in the last {len(runs)} run(s)</title>",
        f'<line x1="{left}" y1="{top + plot_h}" x2="{width - 4}" y2="{top + plot_h}" '
        f'stroke="#9ca3af"/>',
        f'<text x="{left - 6}" y="{top + 4}" text-anchor="end" fill="#4b5563">{biggest}</text>',
        f'<text x="{left - 6}" y="{top + plot_h}" text-anchor="end" fill="#4b5563">0</text>',
    ]
    for i, (run, total) in enumerate(zip(runs, totals, strict=True)):
        x = left + i * slot + (slot - bar_w) / 2
        y = float(top + plot_h)
        for sev in reversed(SEVERITIES):  # critical on top
            n = int(run["bySeverity"].get(sev, 0))
            if not n:
                continue
            h = plot_h * n / biggest
            y -= h
            parts.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar_w:.1f}" height="{h:.1f}" '
                f'fill="{SEVERITY_COLOURS[sev]}"><title>{_e(_run_label(run))}: {n} {sev}'
                f"</title></rect>"
            )
        cx = x + bar_w / 2
        parts.append(
            f'<text x="{cx:.1f}" y="{y - 4:.1f}" text-anchor="middle" fill="#111827" '
            f'font-weight="bold">{total}</text>'
            f'<text x="{cx:.1f}" y="{top + plot_h + 14}" text-anchor="middle" '
            f'fill="#111827">#{_e(run.get("id"))}</text>'
            f'<text x="{cx:.1f}" y="{top + plot_h + 27}" text-anchor="middle" '
            f'fill="#6b7280">{_e(str(run.get("startedAt", ""))[5:10])}</text>'
        )
    lx = left
    for sev in SEVERITIES:
        parts.append(
            f'<rect x="{lx}" y="4" width="10" height="10" rx="2" fill="{SEVERITY_COLOURS[sev]}"/>'
            f'<text x="{lx + 14}" y="13" fill="#111827">{sev}</text>'
        )
        lx += 14 + 7 * len(sev) + 14
    parts.append("</svg>")
    return "".join(parts)


def sparklines(
    series: Mapping[str, Sequence[int]],
    runs: Sequence[Mapping[str, Any]],
    what: str,
    *,
    width: int = 640,
) -> str:
    """One row per name: its label, a line of its failing findings over the runs (each row
    scaled to its own largest count), the latest count. Empty when there is nothing to draw."""
    if not series:
        return ""
    row_h, num_w, pad = 22, 48, 4
    labels = {
        name: clip(str(name), 48) if name not in ("", "-") else "(above subscriptions)"
        for name in series
    }
    label_w = min(320, 16 + 7 * max(len(label) for label in labels.values()))
    height = len(series) * row_h + pad * 2
    span = width - label_w - num_w - 8
    step = span / max(len(runs) - 1, 1)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart trend-lines" role="img" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" {FONT} '
        f'font-size="11">',
        f"<title>Failing findings per {_e(what)} in the last {len(runs)} run(s)</title>",
    ]
    for i, (name, values) in enumerate(series.items()):
        y0 = pad + i * row_h
        base = y0 + row_h - 5
        label = labels[name]
        biggest = max(*values, 1)  # each row on its own scale, from 0: the change shows
        points = " ".join(
            f"{label_w + j * step:.1f},{base - (row_h - 9) * v / biggest:.1f}"
            for j, v in enumerate(values)
        )
        history = ", ".join(f"{_run_label(r)}: {v}" for r, v in zip(runs, values, strict=True))
        parts.append(
            f"<g><title>{_e(name)}: {_e(history)}</title>"
            f'<text x="{label_w - 8}" y="{base}" text-anchor="end" fill="#111827">{_e(label)}'
            f"</text>"
            f'<line x1="{label_w}" y1="{base}" x2="{label_w + span}" y2="{base}" '
            f'stroke="#e5e7eb"/>'
        )
        if len(values) > 1:
            parts.append(
                f'<polyline points="{points}" fill="none" stroke="#b91c1c" stroke-width="1.5"/>'
            )
        last_x, last_y = points.rsplit(" ", 1)[-1].split(",")
        parts.append(
            f'<circle cx="{last_x}" cy="{last_y}" r="2.5" fill="#b91c1c"/>'
            f'<text x="{label_w + span + 8}" y="{base}" fill="#111827" font-weight="bold">'
            f"{values[-1]}</text></g>"
        )
    parts.append("</svg>")
    return "".join(parts)


def markdown_since_last(history: Mapping[str, Any] | None) -> list[str]:
    """The "Since the last audit" section of the Markdown summary: the counts of new, fixed,
    regressed and re-rated findings and of expired and added waivers, and the first
    :data:`MARKDOWN_LISTED` findings of each list; nothing without a previous run."""
    since = (history or {}).get("sinceLast")
    if not since:
        return []
    counts = since.get("counts") or {}
    n = {key: int(counts.get(key, len(since.get(key, ())))) for key in LABELS}
    run_a, run_b = since["runA"], since["runB"]
    lines = [
        "### Since the last audit",
        "",
        f"Run {md_text(run_b.get('id'))} against run {md_text(run_a.get('id'))} "
        f"({md_code(str(run_a.get('startedAt', ''))[:19])}): "
        + ", ".join(f"**{n[key]}** {LABELS[key].lower()}" for key in LABELS),
        "",
    ]
    for key in ("new", "regressed", "fixed", "severityChanged"):
        items = list(since.get(key, ()))[:MARKDOWN_LISTED]
        if not items:
            continue
        more = f", first {len(items)}" if n[key] > len(items) else ""
        lines += [f"**{LABELS[key]}** ({n[key]}{more})", ""]
        for f in items:
            sev = md_text(f.get("severity", ""))
            if key == "severityChanged":
                sev = f"{md_text(f.get('previousSeverity', ''))} → {sev}"
            lines.append(
                f"- {sev} {md_code(f.get('ruleId', ''))} {md_code(f.get('resourceId', ''), 240)}: "
                f"{md_text(f.get('message', ''), 200)}"
            )
        lines.append("")
    for key in ("waiversExpired", "waiversAdded"):
        items = list(since.get(key, ()))[:MARKDOWN_LISTED]
        if items:
            ids = ", ".join(md_code(w.get("id", ""), 80) for w in items)
            more = f" and {n[key] - len(items)} more" if n[key] > len(items) else ""
            lines += [f"**{LABELS[key]}**: {ids}{more}", ""]
    return lines
