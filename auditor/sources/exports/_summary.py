"""What an import read from which file, what it skipped and why, and what merging did: a JSON-ready
summary and the plain-text table ``auditor estate import`` prints."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from auditor.inert import inert

COLUMNS = (
    ("roleAssignments", "RA"),
    ("roleDefinitions", "RD"),
    ("denyAssignments", "DA"),
    ("principals", "PR"),
    ("clusters", "CL"),
    ("domains", "DO"),
    ("healthEvents", "HE"),
    ("hierarchy", "HI"),
)
_LEGEND = (
    "RA role assignments, RD role definitions, DA deny assignments, PR principals, CL clusters, "
    "DO domains, HE health events, HI hierarchy"
)
_SHOWN_SKIPS = 5


@dataclass
class FileSummary:
    """One input file: what it was recognised as, the records read per section (before merging),
    what was skipped (reason -> count, with the first places), and remarks."""

    file: str
    kind: str
    counts: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, list[str]] = field(default_factory=dict)
    remarks: list[str] = field(default_factory=list)

    def skipped_count(self) -> int:
        return sum(len(places) for places in self.skipped.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "recognisedAs": self.kind,
            "records": dict(self.counts),
            "skipped": [
                {"reason": reason, "count": len(places), "where": places[:_SHOWN_SKIPS]}
                for reason, places in self.skipped.items()
            ],
            "remarks": list(self.remarks),
        }


@dataclass
class ImportSummary:
    """The whole import: per file, the totals in the snapshot, duplicates merged and conflicts."""

    files: list[FileSummary] = field(default_factory=list)
    totals: dict[str, int] = field(default_factory=dict)
    merged: dict[str, int] = field(default_factory=dict)
    conflicts: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "files": [f.to_json() for f in self.files],
            "totals": dict(self.totals),
            "mergedDuplicates": dict(self.merged),
            "conflicts": self.conflicts,
        }

    def table(self) -> str:
        """The summary as a plain-text table (text from the inputs made inert)."""
        rows: list[list[str]] = [["file", "recognised as", *(c for _, c in COLUMNS), "skipped"]]
        for f in self.files:
            rows.append(
                [
                    _tail(inert(f.file), 60),
                    inert(f.kind, limit=48),
                    *(_count(f.counts.get(s, 0)) for s, _ in COLUMNS),
                    _count(f.skipped_count()),
                ]
            )
        rows.append(
            [
                "in the snapshot",
                "after merging",
                *(_count(self.totals.get(s, 0)) for s, _ in COLUMNS),
                "",
            ]
        )
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = []
        for n, row in enumerate(rows):
            cells = [
                cell.ljust(widths[i]) if i < 2 else cell.rjust(widths[i])
                for i, cell in enumerate(row)
            ]
            lines.append("  ".join(cells).rstrip())
            if n == 0 or n == len(rows) - 2:
                lines.append("  ".join("-" * w for w in widths))
        lines.append(_LEGEND)
        merged = {k: v for k, v in self.merged.items() if v}
        if merged:
            parts = ", ".join(f"{n:,} {k}" for k, n in merged.items())
            lines.append(f"merged duplicates: {parts}")
        if self.conflicts:
            lines.append(f"conflicting copies: {self.conflicts:,} (see the warnings)")
        skipped = [f for f in self.files if f.skipped]
        if skipped:
            lines.append("skipped:")
            for f in skipped:
                for reason, places in f.skipped.items():
                    where = ", ".join(places[:_SHOWN_SKIPS])
                    more = (
                        f" and {len(places) - _SHOWN_SKIPS:,} more"
                        if len(places) > _SHOWN_SKIPS
                        else ""
                    )
                    lines.append(
                        f"  {inert(f.file, limit=80)}: {len(places):,} x {inert(reason, limit=200)}"
                        f" ({inert(where, limit=200)}{more})"
                    )
        remarks = [(f.file, r) for f in self.files for r in f.remarks]
        if remarks:
            lines.append("remarks:")
            lines.extend(f"  {inert(name, limit=80)}: {inert(r, limit=300)}" for name, r in remarks)
        return "\n".join(lines) + "\n"


def _tail(text: str, limit: int) -> str:
    """A long path cut at its start, so its file name stays."""
    return text if len(text) <= limit else "…" + text[-(limit - 1) :]


def _count(n: int) -> str:
    return f"{n:,}" if n else "-"
