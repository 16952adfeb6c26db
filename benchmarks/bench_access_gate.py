"""The access-change gate (issue 19): ``auditor gate plan.json --estate estate.json`` on a plan of
role-assignment requests against a generated estate.

The estate (100,000 role assignments by default; generated once into ``benchmarks/.cache/``) is
loaded and indexed; a plan of ``--changes`` requests is made from it: half ``PUT``\\ s (a privileged
built-in role half the time, another built-in role otherwise, to a random principal at the scope of
a random existing assignment; two of them make the directory's largest group Owner of a
subscription) and half ``DELETE``\\ s of random existing assignments. Timed, after the estate is
loaded and indexed:

- the baseline: indexing the estate once (the gate must at least index the after-estate);
- ``plan_access_change(estate, plan)``: the after-estate, its indexes, the delta and the ACC
  analyses (median of three runs, with the range);
- ``gate_plan(plan, estate=...)``: the whole gate run (the above, the estate indexed again for
  the "before" side, every plan rule, waivers), once.

The ratio is the access change over the baseline: how many index builds the access change costs.

    .venv/bin/python benchmarks/bench_access_gate.py [--quick] [--assignments N] [--changes N]

``--quick``: 20,000 assignments and 40 changes.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import cached_estate

from auditor.access import plan_access_change
from auditor.access.indexes import Indexes
from auditor.audit.runner import AuditOptions, gate_plan
from auditor.estate import roles as builtin
from auditor.estate.plan import Plan, loads_plan
from auditor.estate.snapshot import Snapshot, load_snapshot

PRIVILEGED = (builtin.OWNER, builtin.CONTRIBUTOR, builtin.USER_ACCESS_ADMINISTRATOR)
OTHER = (builtin.READER, "2a2b9908-6ea1-4ae2-8e65-a410df84e7d1")
RA = "/providers/Cloud.Authorization/roleAssignments"
API = "?api-version=2022-04-01"


def make_plan(snapshot: Snapshot, changes: int, seed: int = 19) -> Plan:
    rng = random.Random(seed)
    principals = snapshot.principals
    assignments = snapshot.roleAssignments
    members: dict[str, int] = {}
    for p in principals:
        for g in p.memberOf:
            members[g] = members.get(g, 0) + 1
    largest = max(members, key=members.__getitem__) if members else principals[0].id
    subs = sorted({a.properties.scope for a in assignments if a.properties.scope.count("/") == 2})
    requests: list[dict[str, object]] = []

    def put(principal: str, kind: str, role: str, scope: str) -> None:
        name = f"bench-{len(requests):05d}-{rng.getrandbits(48):012x}"
        requests.append(
            {
                "method": "PUT",
                "url": f"{scope}{RA}/{name}{API}",
                "body": {
                    "properties": {
                        "roleDefinitionId": f"/providers/Cloud.Authorization/roleDefinitions/{role}",
                        "principalId": principal,
                        "principalType": kind,
                    }
                },
            }
        )

    for sub in subs[:2]:
        put(largest, "Group", builtin.OWNER, sub)
    while len(requests) < changes // 2:
        who = principals[rng.randrange(len(principals))]
        role = rng.choice(PRIVILEGED if rng.random() < 0.5 else OTHER)
        put(
            who.id,
            who.type or "User",
            role,
            assignments[rng.randrange(len(assignments))].properties.scope,
        )
    for i in rng.sample(range(len(assignments)), changes - len(requests)):
        requests.append({"method": "DELETE", "url": assignments[i].id + API})
    doc = {"planVersion": 1, "requests": requests}
    return loads_plan(json.dumps(doc).encode(), source="bench-plan.json")


def _spread(values: list[float]) -> str:
    return f"median {statistics.median(values):.2f} s ({min(values):.2f}-{max(values):.2f})"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--assignments", type=int, default=None)
    parser.add_argument("--changes", type=int, default=None)
    args = parser.parse_args(argv)
    size = args.assignments or (20_000 if args.quick else 100_000)
    changes = args.changes or (40 if args.quick else 200)
    path = cached_estate(size)
    snapshot = load_snapshot(path)
    plan = make_plan(snapshot, changes)
    print(f"estate: {size:,} role assignments ({path.name}); plan: {len(plan.requests)} requests")

    index_times: list[float] = []
    for _ in range(3):
        gc.collect()
        start = time.perf_counter()
        before = Indexes(snapshot)
        index_times.append(time.perf_counter() - start)
    change_times: list[float] = []
    change = None
    for _ in range(3):
        gc.collect()
        start = time.perf_counter()
        change = plan_access_change(snapshot, plan, before=before)
        change_times.append(time.perf_counter() - start)
    assert change is not None
    gc.collect()
    start = time.perf_counter()
    result = gate_plan(plan, AuditOptions(use_config=False), estate=snapshot)
    gate_time = time.perf_counter() - start

    summary = change.delta.summary
    failing: dict[str, int] = {}
    for f in result.findings:
        if f.status == "fail":
            failing[f.ruleId] = failing.get(f.ruleId, 0) + 1
    print(f"baseline, indexing the estate:        {_spread(index_times)}")
    print(f"access change (after-estate, delta, ACC): {_spread(change_times)}")
    print(f"whole gate run:                        {gate_time:.2f} s, exit {result.exit_code}")
    print(
        f"delta: {len(change.delta.changes):,} changes for {summary['principals']:,} principals "
        f"({summary['newlyAllowed']:,} newly allowed, {summary['newlyBlocked']:,} newly blocked); "
        f"{change.delta.stats.decisions:,} decisions"
    )
    print(f"failing findings: {dict(sorted(failing.items()))}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory: {peak:,.0f} MB")
    ratio = statistics.median(change_times) / statistics.median(index_times)
    print(f"ratio access change / one index build: {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
