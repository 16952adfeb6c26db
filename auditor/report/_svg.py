"""Small inline SVG pictures for the HTML and PDF reports: the severity chart, the status bar and
a shadow admin's escalation path.

Plain SVG 1.1 (rects, lines, polygons, text; no markers, filters or fonts) so that browsers and
WeasyPrint draw it the same. Every label is XML-escaped; the pictures carry ``role="img"`` and a
``<title>`` for screen readers, and each node its full label as a tooltip when the drawn one is
shortened.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from auditor.audit.findings import SEVERITIES
from auditor.report._sanitize import clip, escape_html, xml_text

if TYPE_CHECKING:
    from auditor.audit.findings import EscalationPath

SEVERITY_COLOURS: dict[str, str] = {
    "critical": "#9f1239",
    "high": "#c2410c",
    "medium": "#a16207",
    "low": "#1d4ed8",
    "info": "#4b5563",
}
STATUS_COLOURS: dict[str, str] = {
    "fail": "#b91c1c",
    "unknown": "#4338ca",
    "baselined": "#7c3aed",
    "waived": "#0e7490",
    "pass": "#15803d",
}
KIND_STYLE: dict[str, tuple[str, str]] = {
    # kind: (fill, stroke)
    "principal": ("#dbeafe", "#1d4ed8"),
    "group": ("#ede9fe", "#6d28d9"),
    "assignment": ("#f3f4f6", "#4b5563"),
    "role": ("#ffedd5", "#c2410c"),
    "permission": ("#fee2e2", "#b91c1c"),
}
FONT = "font-family=\"system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif\""


def _e(text: object) -> str:
    return escape_html(xml_text(text))


def severity_chart(counts: Mapping[str, int], *, width: int = 420) -> str:
    """Horizontal bars of failing findings per severity."""
    bar_h, gap, label_w, num_w = 22, 8, 80, 56
    height = len(SEVERITIES) * (bar_h + gap) + gap
    biggest = max([counts.get(s, 0) for s in SEVERITIES] + [1])
    span = width - label_w - num_w
    total = sum(counts.get(s, 0) for s in SEVERITIES)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart severity-chart" role="img" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" {FONT} '
        f'font-size="13">',
        f"<title>Failing findings by severity: {total} in all</title>",
    ]
    for i, sev in enumerate(SEVERITIES):
        n = counts.get(sev, 0)
        y = gap + i * (bar_h + gap)
        w = 0 if n == 0 else max(3, round(span * n / biggest))
        parts.append(
            f'<text x="{label_w - 8}" y="{y + bar_h * 0.7:.1f}" text-anchor="end" '
            f'fill="#111827">{sev}</text>'
            f'<rect x="{label_w}" y="{y}" width="{span}" height="{bar_h}" rx="3" fill="#f3f4f6"/>'
            f'<rect x="{label_w}" y="{y}" width="{w}" height="{bar_h}" rx="3" '
            f'fill="{SEVERITY_COLOURS[sev]}"><title>{sev}: {n}</title></rect>'
            f'<text x="{label_w + span + 8}" y="{y + bar_h * 0.7:.1f}" fill="#111827" '
            f'font-weight="bold">{n}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def status_bar(counts: Mapping[str, int], *, width: int = 420) -> str:
    """One stacked bar of findings by status (fail, unknown, baselined, waived, pass) with a
    legend."""
    keys = ("fail", "unknown", "baselined", "waived", "pass")
    total = sum(counts.get(k, 0) for k in keys)
    height = 58
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart status-chart" role="img" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" {FONT} '
        f'font-size="12">',
        f"<title>Findings by status: {total} in all</title>",
        f'<rect x="0" y="4" width="{width}" height="20" rx="3" fill="#f3f4f6"/>',
    ]
    x = 0.0
    for k in keys:
        n = counts.get(k, 0)
        if not n or not total:
            continue
        w = width * n / total
        parts.append(
            f'<rect x="{x:.2f}" y="4" width="{w:.2f}" height="20" fill="{STATUS_COLOURS[k]}">'
            f"<title>{k}: {n}</title></rect>"
        )
        x += w
    lx = 0
    for k in keys:
        label = f"{k} {counts.get(k, 0)}"
        parts.append(
            f'<rect x="{lx}" y="36" width="12" height="12" rx="2" fill="{STATUS_COLOURS[k]}"/>'
            f'<text x="{lx + 16}" y="46.5" fill="#111827">{_e(label)}</text>'
        )
        lx += 16 + 8 * len(label) + 14
    parts.append("</svg>")
    return "".join(parts)


def escalation_graph(path: EscalationPath, *, per_row: int = 4) -> str:
    """The steps of a shadow admin's path as boxes joined by arrows, left to right, wrapping after
    ``per_row`` boxes."""
    steps: Sequence[tuple[str, str]] = path.steps or (("principal", path.displayName),)
    node_w, node_h, gap_x, gap_y, pad = 176, 52, 40, 34, 10
    n = len(steps)
    cols = min(per_row, n)
    rows = (n + per_row - 1) // per_row
    width = pad * 2 + cols * node_w + (cols - 1) * gap_x
    height = pad * 2 + rows * node_h + (rows - 1) * gap_y
    title = f"Escalation path of {path.displayName} at {path.scope}"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="graph escalation" role="img" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" {FONT} '
        f'font-size="12">',
        f"<title>{_e(clip(title, 300))}</title>",
    ]
    centres: list[tuple[float, float]] = []
    for i, (kind, label) in enumerate(steps):
        r, c = divmod(i, per_row)
        x = pad + c * (node_w + gap_x)
        y = pad + r * (node_h + gap_y)
        centres.append((x, y))
        fill, stroke = KIND_STYLE.get(kind, ("#f9fafb", "#374151"))
        text = xml_text(label)
        # a permission or scope says most at its end (".../roleAssignments/write")
        if kind in ("permission", "assignment") and len(text) > 24:
            shown = "…" + text[-23:]
        else:
            shown = clip(text, 24)
        parts.append(
            f'<g class="node node-{_e(kind)}"><title>{_e(kind)}: {_e(clip(label, 500))}</title>'
            f'<rect x="{x}" y="{y}" width="{node_w}" height="{node_h}" rx="8" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="1.5"/>'
            f'<text x="{x + node_w / 2}" y="{y + 19}" text-anchor="middle" fill="{stroke}" '
            f'font-size="10" font-weight="bold" letter-spacing="0.5">{_e(kind.upper())}</text>'
            f'<text x="{x + node_w / 2}" y="{y + 38}" text-anchor="middle" '
            f'fill="#111827">{_e(shown)}</text></g>'
        )
    for i in range(1, n):
        (x0, y0), (x1, y1) = centres[i - 1], centres[i]
        if y0 == y1:  # same row: a straight arrow
            ax, ay, bx, by = x0 + node_w, y0 + node_h / 2, x1, y1 + node_h / 2
            parts.append(_line(ax, ay, bx - 7, by) + _head(bx, by, "right"))
        else:  # next row: down, left, down
            ax, ay = x0 + node_w / 2, y0 + node_h
            mid = ay + gap_y / 2
            bx, by = x1 + node_w / 2, y1
            parts.append(
                f'<polyline points="{ax},{ay} {ax},{mid} {bx},{mid} {bx},{by - 7}" fill="none" '
                f'stroke="#6b7280" stroke-width="1.5"/>' + _head(bx, by, "down")
            )
    parts.append("</svg>")
    return "".join(parts)


def _line(x0: float, y0: float, x1: float, y1: float) -> str:
    return f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1}" stroke="#6b7280" stroke-width="1.5"/>'


def _head(x: float, y: float, direction: str) -> str:
    if direction == "right":
        pts = f"{x},{y} {x - 8},{y - 5} {x - 8},{y + 5}"
    else:
        pts = f"{x},{y} {x - 5},{y - 8} {x + 5},{y - 8}"
    return f'<polygon points="{pts}" fill="#6b7280"/>'
