"""What the "Compliance by control" view costs a full audit.

In a fresh process: load a generated estate, run every estate rule, sort the findings (as the
runner does), then time :func:`auditor.audit.frameworks.control_view` over every finding (passes
included) for the shipped frameworks. Baselines measured in the same run: the rules phase (the
audit the view is added to) and ``AuditResult.summary()`` (one pass over the same findings, which
every run already makes). Goal: the view adds at most 2% to the rules phase.

    .venv/bin/python benchmarks/bench_controls.py [--role-assignments N] [--repeat K] [--quick]

``--quick``: a smoke run on 20,000 role assignments. Runs of 500,000 role assignments or more should
be wrapped in ``flock /tmp/auditor-big.lock`` on a shared machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import PEAK, cached_estate, run_child

GOAL_RATIO = 0.02

CHILD = (
    PEAK
    + "\n"
    + """
import datetime as dt, json, sys, time
from auditor.estate.snapshot import load_snapshot
from auditor.audit.engine import Engine
from auditor.audit.findings import AuditResult
from auditor.audit.frameworks import control_view, frameworks_in_view, shipped_frameworks
from auditor.audit.runner import AuditOptions, prepare, sort_findings
repeat = int(sys.argv[2])
snapshot = load_snapshot(sys.argv[1])
prep = prepare(AuditOptions(use_config=False, as_of=dt.date(2026, 11, 21)))
engine = Engine(settings=prep.settings, as_of=prep.as_of, snapshot=snapshot)
engine.context.access()
t0 = time.perf_counter()
evaluation = engine.run(prep.rules)
findings = sort_findings(evaluation.findings)
t_rules = time.perf_counter() - t0
run_ids = [r.id for r in evaluation.rules_run]
frameworks = frameworks_in_view(shipped_frameworks(), run_ids)
result = AuditResult(findings=findings, rules=[], startedAt="", finishedAt="", target="")
view, summary = [], []
for _ in range(repeat):
    t = time.perf_counter()
    controls = control_view(findings, frameworks, run_ids)
    view.append(time.perf_counter() - t)
    t = time.perf_counter()
    result.summary()
    summary.append(time.perf_counter() - t)
print(json.dumps({
    "rules": t_rules, "view": view, "summary": summary, "findings": len(findings),
    "controls": len(controls), "peak_mb": peak_mb(),
}))
"""
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--role-assignments", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=5, help="timings of the view (median)")
    parser.add_argument("--quick", action="store_true", help="smoke run: 20,000 role assignments")
    args = parser.parse_args()
    n = 20_000 if args.quick else args.role_assignments
    path = cached_estate(n)
    print(f"estate: {path.name} ({n:,} role assignments)")
    r = run_child(CHILD, str(path), str(max(1, args.repeat)))
    view, summary = r["view"], r["summary"]
    med_view, med_summary = statistics.median(view), statistics.median(summary)
    ratio = med_view / r["rules"] if r["rules"] else 0.0
    print(
        f"  every rule (baseline)   {r['rules']:8.2f} s   ({r['findings']:,} findings, "
        f"{r['controls']} controls)"
    )
    print(
        f"  summary() (baseline)    {med_summary:8.3f} s   median of {len(summary)} "
        f"(range {min(summary):.3f}-{max(summary):.3f})"
    )
    print(
        f"  control view            {med_view:8.3f} s   median of {len(view)} "
        f"(range {min(view):.3f}-{max(view):.3f}); {med_view / med_summary:.2f}x summary()"
    )
    ok = "ok" if ratio <= GOAL_RATIO else "OVER"
    print(f"  view / rules phase      {ratio:8.2%}   goal <= {GOAL_RATIO:.0%}: {ok}")
    print(f"  peak memory             {r['peak_mb']:8.0f} MB")


if __name__ == "__main__":
    main()
