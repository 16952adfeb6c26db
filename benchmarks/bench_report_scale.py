"""The HTML report of a generated estate: passes counted, not listed.

Audits a generated estate once, then renders the HTML twice in the same run: as reports are written
now (failing, unknown and waived findings listed with the names the snapshot holds, passes counted
per rule and resource type) and, as the baseline, with ``--include-passed`` (every pass listed,
as every report was before). Prints the time and size of each and their ratios, beside the goal
scaled to the estate (the issue: at most 25 MB and 10 s at 1,000,000 role assignments).

    .venv/bin/python benchmarks/bench_report_scale.py [--role-assignments N] [--quick]

``--quick``: 20,000 role assignments (default 100,000). The estate is cached under
``benchmarks/.cache/``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import PEAK, cached_estate, run_child

GOAL_MB_PER_MILLION = 25.0
GOAL_S_PER_MILLION = 10.0

CHILD = (
    PEAK
    + "\n"
    + """
import json, sys, time
from auditor.audit.runner import AuditOptions, audit_snapshot
from auditor.estate.snapshot import load_snapshot
from auditor.report import RenderOptions, render

result = audit_snapshot(load_snapshot(sys.argv[1]), AuditOptions())
include = sys.argv[2] == "1"
t0 = time.perf_counter()
data = render(result, "html", None, RenderOptions(include_passed=include))
seconds = time.perf_counter() - t0
listed = sum(1 for f in result.findings if include or f.status != "pass")
print(json.dumps({"seconds": seconds, "mb": len(data) / 1e6, "listed": listed,
                  "findings": len(result.findings), "peak_mb": peak_mb()}))
"""
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--role-assignments", type=int, default=100_000)
    parser.add_argument("--quick", action="store_true", help="smoke run: 20,000 role assignments")
    args = parser.parse_args()
    n = 20_000 if args.quick else args.role_assignments
    path = cached_estate(n)
    now = run_child(CHILD, str(path), "0")
    before = run_child(CHILD, str(path), "1")
    scale = n / 1_000_000
    print(f"role assignments: {n:,}; findings: {int(now['findings']):,}")
    for label, fig in (("passes counted (now)", now), ("--include-passed (baseline)", before)):
        print(
            f"  {label:28s} {fig['seconds']:6.2f} s render  {fig['mb']:8.1f} MB  "
            f"{int(fig['listed']):>9,} rows  peak {fig['peak_mb']:7.0f} MB (audit + render)"
        )
    print(
        f"  ratio baseline/now: size {before['mb'] / now['mb']:.1f}x, "
        f"time {before['seconds'] / now['seconds']:.1f}x"
    )
    print(
        f"  goal scaled to this estate: at most {GOAL_MB_PER_MILLION * scale:.1f} MB and "
        f"{GOAL_S_PER_MILLION * scale:.1f} s (25 MB, 10 s at 1,000,000)"
    )


if __name__ == "__main__":
    main()
