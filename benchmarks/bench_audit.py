"""A full audit of a generated estate of 1,000,000 role assignments with every rule.

Runs in a fresh process (so peak memory belongs to the audit alone): load the snapshot, build the
access engine, run every estate rule, apply waivers, and count the findings; then render the text
report. Prints wall time per phase, peak memory and findings per second beside the goals (at most
60 s and 2 GB for the whole audit).

    .venv/bin/python benchmarks/bench_audit.py [--role-assignments N] [--quick] [--per-rule]

``--quick``: a smoke run on 20,000 role assignments. ``--per-rule``: also time every rule.
The estate is generated once and cached under ``benchmarks/.cache/``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import PEAK, cached_estate, run_child

GOAL_SECONDS = 60.0
GOAL_MB = 2048.0

CHILD = (
    PEAK
    + "\n"
    + """
import datetime as dt, json, sys, time
t0 = time.perf_counter()
from auditor.estate.snapshot import load_snapshot
from auditor.audit.engine import Engine
from auditor.audit.packs import shipped_catalogue
from auditor.audit.runner import AuditOptions, prepare, sort_findings
from auditor.audit.waivers import apply_waivers
from auditor.audit.findings import AuditResult
from auditor.report import render
per_rule = sys.argv[2] == "1"
t_import = time.perf_counter()
snapshot = load_snapshot(sys.argv[1])
t_load = time.perf_counter()
prep = prepare(AuditOptions(use_config=False, as_of=dt.date(2026, 11, 21)))
engine = Engine(settings=prep.settings, as_of=prep.as_of, snapshot=snapshot)
engine.context.access()
t_index = time.perf_counter()
timings = {}
findings = engine.run(prep.rules, timings=timings).findings  # passes held in blocks
findings = findings.with_listed(apply_waivers(findings.listed, prep.waivers, prep.as_of).findings)
findings = sort_findings(findings)
t_rules = time.perf_counter()
result = AuditResult(findings=findings, rules=[r.info for r in prep.rules], startedAt="", finishedAt="", target=sys.argv[1])
summary = result.summary()
text = render(result, "text")
t_text = time.perf_counter()
slow = sorted(timings.items(), key=lambda kv: -kv[1])
print(json.dumps({
    "import": t_import - t0, "load": t_load - t_import, "index": t_index - t_load,
    "rules": t_rules - t_index, "text": t_text - t_rules, "total": t_rules - t0,
    "findings": len(findings), "failing": len(result.failures), "passed": summary["passed"],
    "peak_mb": peak_mb(), "slowest": slow if per_rule else slow[:6],
}))
"""
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--role-assignments", type=int, default=1_000_000)
    parser.add_argument("--quick", action="store_true", help="smoke run: 20,000 role assignments")
    parser.add_argument("--per-rule", action="store_true", help="time every rule")
    args = parser.parse_args()
    n = 20_000 if args.quick else args.role_assignments
    path = cached_estate(n)
    print(f"estate: {path.name} ({path.stat().st_size / 2**20:.0f} MB, {n:,} role assignments)")
    r = run_child(CHILD, str(path), "1" if args.per_rule else "0")
    rate = r["findings"] / r["rules"] if r["rules"] else 0.0
    scale = 1_000_000 / n
    print(f"  import          {r['import']:8.2f} s")
    print(f"  load snapshot   {r['load']:8.2f} s")
    print(f"  access indexes  {r['index']:8.2f} s")
    print(
        f"  every rule      {r['rules']:8.2f} s   ({r['findings']:,} findings: {r['failing']:,} failing, "
        f"{r['passed']:,} passed; {rate:,.0f} findings/s)"
    )
    print(f"  text report     {r['text']:8.2f} s")
    ok_t = "ok" if r["total"] <= GOAL_SECONDS / scale else "OVER"
    ok_m = "ok" if r["peak_mb"] <= GOAL_MB else "OVER"
    goal_note = "" if n == 1_000_000 else f" (goal scaled to {n:,}: {GOAL_SECONDS / scale:.1f} s)"
    print(
        f"  audit total     {r['total']:8.2f} s   goal <= {GOAL_SECONDS:.0f} s{goal_note}: {ok_t}"
    )
    print(f"  peak memory     {r['peak_mb']:8.0f} MB  goal <= {GOAL_MB:.0f} MB: {ok_m}")
    print("  slowest rules:  " + ", ".join(f"{k} {v:.2f} s" for k, v in r["slowest"]))


if __name__ == "__main__":
    main()
