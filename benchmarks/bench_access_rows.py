"""The access rules stated as data (issue 21) over a generated estate: the predicates of
``rules/access.yaml`` judged on the access rows as the engine does (each distinct key of what a
predicate reads judged once: auditor/audit/resources.py) vs the baseline of judging every role
assignment's whole row one by one (the same compiled predicates), in the same run.

    .venv/bin/python benchmarks/bench_access_rows.py [--role-assignments N] [--quick]

``--quick``: 20,000 role assignments. Default 200,000 (the audit of the 1,000,000-assignment estate
is ``bench_audit.py``). Prints the engine's seconds per rule, the baseline's, and their ratio; both
give the same verdicts (checked).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import PEAK, cached_estate, run_child

CHILD = (
    PEAK
    + "\n"
    + """
import datetime as dt, json, sys, time
from auditor.estate.snapshot import load_snapshot
from auditor.audit.engine import Engine
from auditor.audit.packs import bind_rule
from auditor.audit.resources import _access_rows, _verdicts
from auditor.audit.runner import AuditOptions, prepare
snapshot = load_snapshot(sys.argv[1])
prep = prepare(AuditOptions(use_config=False, as_of=dt.date(2026, 11, 21)))
rules = [bind_rule(r, prep.settings, prep.as_of) for r in prep.rules
         if r.resource_type == "Cloud.Authorization" and r.predicate is not None]
engine = Engine(settings=prep.settings, as_of=prep.as_of, snapshot=snapshot)
engine.context.access()
t0 = time.perf_counter()
rows = _access_rows(engine.context)
t_rows = time.perf_counter() - t0
assignments = rows.assignments
fast, slow, counts = {}, {}, {}
for rule in rules:
    always = lambda doc: True
    applies = rule.applies_to or always
    t = time.perf_counter()
    verdicts = _verdicts(rule, assignments, rule.predicate, applies)
    fast[rule.id] = time.perf_counter() - t
    t = time.perf_counter()
    passed, failed = [], []
    for i in range(len(assignments)):
        row = assignments.row(i)
        if applies(row):
            (passed if rule.predicate(row) else failed).append(i)
    slow[rule.id] = time.perf_counter() - t
    assert (passed, failed) == verdicts, rule.id
    counts[rule.id] = [len(passed), len(failed)]
print(json.dumps({"rows": t_rows, "fast": fast, "slow": slow, "counts": counts,
                  "peak_mb": peak_mb()}))
"""
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--role-assignments", type=int, default=200_000)
    parser.add_argument("--quick", action="store_true", help="smoke run: 20,000 role assignments")
    args = parser.parse_args()
    n = 20_000 if args.quick else args.role_assignments
    path = cached_estate(n)
    print(f"estate: {path.name} ({n:,} role assignments)")
    r = run_child(CHILD, str(path))
    print(f"  access rows made      {r['rows']:8.2f} s   (once per audit)")
    total_fast = sum(r["fast"].values())
    total_slow = sum(r["slow"].values())
    for rule_id, seconds in r["fast"].items():
        passed, failed = r["counts"][rule_id]
        print(
            f"  {rule_id:9} {seconds:8.3f} s  vs one by one {r['slow'][rule_id]:7.3f} s  "
            f"({passed:,} pass, {failed:,} fail)"
        )
    ratio = total_slow / total_fast if total_fast else float("inf")
    print(
        f"  role assignments judged: {total_fast:.2f} s vs {total_slow:.2f} s one by one "
        f"(x{ratio:.1f} faster); peak {r['peak_mb']:.0f} MB"
    )


if __name__ == "__main__":
    main()
