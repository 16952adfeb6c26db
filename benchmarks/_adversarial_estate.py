"""The audit of the sample estate with 300 copies of every role and deny assignment (issue 16), beside
the audit of the deduplicated estate, measured in the same run.

Each audit runs in a fresh process as ``auditor audit`` does it (load the snapshot, evaluate every
rule, write the JSON report), so its peak memory (ru_maxrss) is its own. Prints wall time, peak memory
and report size of both, the ratios, and the goal: within 2x the time and memory of the deduplicated
estate. (Before duplicates were merged on load, 60 copies made a 126 MB report and 300 copies grew
past 24 GB.)

    .venv/bin/python benchmarks/_adversarial_estate.py [--quick] [--copies N] [--runs N]

Imported by ``bench_adversarial.py``, which calls :func:`run`. ``--quick``: one run of each.
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import PEAK, run_child

COPIES = 300
GOAL_RATIO = 2.0

CHILD = (
    PEAK
    + "\n"
    + """
import datetime as dt, json, sys, time
t0 = time.perf_counter()
from auditor.audit.runner import AuditOptions, audit_snapshot
from auditor.estate.snapshot import load_snapshot
from auditor.report import render
snapshot = load_snapshot(sys.argv[1])
result = audit_snapshot(snapshot, AuditOptions(use_config=False, as_of=dt.date(2026, 11, 21)))
report = render(result, "json")
print(json.dumps({
    "seconds": time.perf_counter() - t0, "peak_mb": peak_mb(), "report_mb": len(report) / 2**20,
    "assignments": len(snapshot.roleAssignments), "failing": len(result.failures),
    "warnings": len(result.warnings),
}))
"""
)


def _estate(copies: int) -> dict[str, object]:
    from auditor.estate.sample import sample_snapshot_json

    doc = sample_snapshot_json()
    for key in ("roleAssignments", "denyAssignments"):
        items = doc[key]
        assert isinstance(items, list)
        doc[key] = [copy.deepcopy(item) for _ in range(copies) for item in items]
    return doc


def _measure(path: Path, runs: int) -> dict[str, float]:
    rows = [run_child(CHILD, str(path)) for _ in range(runs)]
    out = {key: statistics.median(r[key] for r in rows) for key in rows[0]}
    out["seconds_min"] = min(r["seconds"] for r in rows)
    out["seconds_max"] = max(r["seconds"] for r in rows)
    return out


def run(quick: bool, *, copies: int = COPIES, runs: int | None = None) -> None:
    """Measure and print (see the module doc)."""
    runs = runs or (1 if quick else 5)
    with tempfile.TemporaryDirectory(prefix="auditor-adversarial-") as tmp:
        base = Path(tmp) / "estate.json"
        dup = Path(tmp) / f"estate-x{copies}.json"
        base.write_text(json.dumps(_estate(1)))
        dup.write_text(json.dumps(_estate(copies)))
        print(
            f"sample estate: {base.stat().st_size / 2**10:.0f} KB; with {copies} copies of every "
            f"assignment: {dup.stat().st_size / 2**20:.1f} MB ({runs} run(s) each, medians)"
        )
        rows = {
            "deduplicated (baseline)": _measure(base, runs),
            f"{copies} copies": _measure(dup, runs),
        }
    print(f"{'case':26s} {'seconds':>8s} {'range':>13s} {'peak MB':>8s} {'report MB':>9s}")
    for name, r in rows.items():
        spread = f"{r['seconds_min']:.2f}-{r['seconds_max']:.2f}"
        print(
            f"{name:26s} {r['seconds']:8.2f} {spread:>13s} {r['peak_mb']:8.0f} "
            f"{r['report_mb']:9.2f}"
        )
    one, many = rows.values()
    time_ratio = many["seconds"] / one["seconds"]
    mem_ratio = many["peak_mb"] / one["peak_mb"]
    met = time_ratio <= GOAL_RATIO and mem_ratio <= GOAL_RATIO
    print(
        f"goal: within {GOAL_RATIO:g}x the deduplicated estate -> time {time_ratio:.2f}x, "
        f"memory {mem_ratio:.2f}x, report {many['report_mb'] / one['report_mb']:.2f}x "
        f"({'met' if met else 'NOT met'})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one run of each")
    parser.add_argument("--copies", type=int, default=COPIES)
    parser.add_argument("--runs", type=int, default=None)
    args = parser.parse_args()
    run(args.quick, copies=args.copies, runs=args.runs)


if __name__ == "__main__":
    main()
