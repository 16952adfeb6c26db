"""The effective-access engine at scale (issue: effective access).

Generates (or reuses, from ``benchmarks/.cache/``) an estate of 1,000,000 role assignments, 100,000
principals and 10,000 deny assignments, then measures load plus index, batch checks, single-check
latency, who-can, what-can and peak memory, each printed beside its goal. On a smaller estate that
cedarpy can hold, the same requests are decided by cedarpy (the estate encoded as Cedar policies and
entities) and by a naive scan of every assignment, for the ratios.

    .venv/bin/python benchmarks/bench_access.py [--quick] [--requests N] [--compare-size N]

``--quick`` is a smoke run on small estates (the goals are printed but not meant for it).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import cached_estate

from auditor.access import BATCH_WINDOW, AccessEngine, AccessRequest, Decision, read_request_lines
from auditor.access.indexes import Indexes
from auditor.cli._access import _write_windows
from auditor.estate.snapshot import Snapshot, load_snapshot

CONTROL_OPS = [
    "Cloud.Compute/virtualMachines/write",
    "Cloud.Compute/virtualMachines/read",
    "Cloud.Network/virtualNetworks/delete",
    "Cloud.Storage/storageAccounts/listKeys/action",
    "Cloud.Authorization/roleAssignments/write",
    "Cloud.KeyVault/vaults/write",
    "Cloud.Resources/subscriptions/resourceGroups/read",
]
DATA_OPS = [
    "Cloud.Storage/storageAccounts/blobServices/containers/blobs/read",
    "Cloud.Storage/storageAccounts/blobServices/containers/blobs/write",
    "Cloud.KeyVault/vaults/secrets/getSecret/action",
]


def peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def rss_gb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 2**20
    return 0.0


def make_requests(snapshot: Snapshot, count: int, seed: int) -> list[AccessRequest]:
    """A realistic mix: mostly principals that hold assignments, at or below assigned scopes."""
    rng = random.Random(seed)
    assignments = snapshot.roleAssignments
    principals = snapshot.principals
    out = []
    for _ in range(count):
        record = assignments[rng.randrange(len(assignments))].properties
        principal = record.principalId or ""
        if rng.random() < 0.3 and principals:
            principal = principals[rng.randrange(len(principals))].id or principal
        scope = record.scope or "/"
        if rng.random() < 0.5 and scope.startswith("/subscriptions/"):
            scope = (
                scope.rstrip("/") + f"/providers/Cloud.Compute/virtualMachines/vm{rng.randrange(9)}"
            )
        if rng.random() < 0.25:
            out.append(AccessRequest(principal, rng.choice(DATA_OPS), scope, True))
        else:
            out.append(AccessRequest(principal, rng.choice(CONTROL_OPS), scope))
    return out


def rate(
    engine: AccessEngine, requests: list[AccessRequest]
) -> tuple[float, float, list[Decision]]:
    """Checks per second of wall time and of this process's CPU time (the second is what one
    core gives when the machine is shared with other work)."""
    start, cpu = time.perf_counter(), time.process_time()
    decisions = list(engine.check_many(requests))
    wall, used = time.perf_counter() - start, time.process_time() - cpu
    return len(requests) / wall, len(requests) / max(used, 1e-9), decisions


# ------------------------------------------------------------------------------ naive baseline


def naive_check(ix: Indexes, request: AccessRequest) -> str:
    """A naive scan: every deny assignment, then every role assignment, no index."""
    principal = request.principalId.lower()
    identities = {principal}
    frontier = [principal]
    while frontier:
        current = frontier.pop()
        entry = ix.directory.entry(current)
        for group in entry.memberOf if entry else ():
            if group.lower() not in identities:
                identities.add(group.lower())
                frontier.append(group.lower())
    key = request.scope.rstrip("/").lower() or "/"
    chain = set(ix.scopes.chain(key))
    operation = request.action.lower()
    for deny in ix.denies:
        if deny.scope not in chain or (deny.at_scope_only and deny.scope != key):
            continue
        named = deny.everyone or any(i in deny.principals for i in identities)
        excluded = any(i in deny.excluded for i in identities)
        if named and not excluded and deny.matching(operation, request.dataAction):
            return "denied"
    for entry in ix.assignments:
        if (
            entry.principal in identities
            and entry.scope in chain
            and ix.catalogue.granting(entry.role, operation, request.dataAction)
        ):
            return "allowed"
    return "notGranted"


# ------------------------------------------------------------------------------------ cedarpy


def cedar_encode(ix: Indexes, requests: list[AccessRequest]) -> tuple[Any, Any]:
    import cedarpy

    vocabulary = sorted({(r.action, r.dataAction) for r in requests})

    def ops_of(guid: str) -> list[str]:
        return [
            f"{'d' if data else 'c'}:{op.lower()}"
            for op, data in vocabulary
            if ix.catalogue.granting(guid, op.lower(), data)
        ]

    def actions(ops: list[str]) -> str:
        return "[" + ", ".join(f'Action::"{op}"' for op in ops) + "]"

    role_ops = {guid: ops_of(guid) for guid in ix.catalogue.roles}
    policies = []
    for entry in ix.assignments:
        ops = role_ops.get(entry.role, [])
        if ops:
            policies.append(
                f'permit(principal in User::"{entry.principal}", action in {actions(ops)}, '
                f'resource in Scope::"{entry.scope}");'
            )
    for deny in ix.denies:
        ops = [
            f"{'d' if data else 'c'}:{op.lower()}"
            for op, data in vocabulary
            if deny.matching(op.lower(), data)
        ]
        if not ops:
            continue
        unless = " || ".join(f'principal in User::"{p}"' for p in sorted(deny.excluded))
        tail = f" unless {{ {unless} }}" if unless else ""
        relation = "==" if deny.at_scope_only else "in"
        whom = (
            ["principal"]
            if deny.everyone
            else [f'principal in User::"{p}"' for p in sorted(deny.principals)]
        )
        for who in whom:
            policies.append(
                f"forbid({who}, action in {actions(ops)}, resource {relation} "
                f'Scope::"{deny.scope}"){tail};'
            )
    entities: dict[tuple[str, str], list[str]] = {}
    for key, record in ix.directory.entries():
        entities[("User", key)] = [g.lower() for g in record.memberOf]
    for entry in ix.assignments:
        entities.setdefault(("User", entry.principal), [])
    scope_keys = {e.scope for e in ix.assignments} | {d.scope for d in ix.denies}
    scope_keys |= {ix.scopes.resolve(r.scope)[0] for r in requests}
    for key in list(scope_keys):
        for level in ix.scopes.chain(key):
            if ("Scope", level) in entities:
                break
            parent = ix.scopes.parent(level)
            entities[("Scope", level)] = [parent] if parent else []
    for request in requests:
        entities.setdefault(("User", request.principalId.lower()), [])
    payload = [
        {
            "uid": {"type": kind, "id": key},
            "attrs": {},
            "parents": [{"type": kind, "id": p} for p in parents],
        }
        for (kind, key), parents in entities.items()
    ]
    return (
        cedarpy.PolicySet.from_str("\n".join(policies)),
        cedarpy.Entities.from_json_str(json.dumps(payload)),
    )


def cedar_rate(ix: Indexes, requests: list[AccessRequest]) -> tuple[float, list[bool], float]:
    import cedarpy

    start = time.perf_counter()
    policies, entities = cedar_encode(ix, requests)
    encode = time.perf_counter() - start
    batch = [
        {
            "principal": {"type": "User", "id": r.principalId.lower()},
            "action": {
                "type": "Action",
                "id": f"{'d' if r.dataAction else 'c'}:{r.action.lower()}",
            },
            "resource": {"type": "Scope", "id": ix.scopes.resolve(r.scope)[0]},
            "context": {},
        }
        for r in requests
    ]
    start = time.perf_counter()
    results = cedarpy.is_authorized_batch(batch, policies, entities)
    elapsed = time.perf_counter() - start
    return (
        len(requests) / elapsed,
        [res.decision == cedarpy.Decision.Allow for res in results],
        encode,
    )


# ---------------------------------------------------------------------------------------- main


class _Rows:
    """The result table, printed row by row as the figures come in."""

    width = 44

    def __init__(self) -> None:
        print(f"\n{'figure':{self.width}}{'measured':>14}   goal", flush=True)

    def append(self, row: tuple[str, str, str]) -> None:
        name, value, goal = row
        print(f"{name:{self.width}}{value:>14}   {goal}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small estates, a smoke run")
    parser.add_argument("--requests", type=int, default=200_000, help="batch size")
    parser.add_argument(
        "--compare-size",
        type=int,
        default=20_000,
        help="role assignments of the estate for the cedarpy/naive comparison",
    )
    args = parser.parse_args()
    if args.quick:
        size, principals, denies = 20_000, 2_000, 200
        args.requests = min(args.requests, 20_000)
        args.compare_size = min(args.compare_size, 5_000)
    else:
        size, principals, denies = 1_000_000, 100_000, 10_000
    compare_requests = 100 if args.quick else 300
    rows = _Rows()

    path = cached_estate(size, principals=principals, deny_assignments=denies)
    print(f"estate: {path.name} ({path.stat().st_size / 2**20:.0f} MB)", flush=True)
    gc.collect()
    start = time.perf_counter()
    snapshot = load_snapshot(path)
    loaded = time.perf_counter()
    rss_loaded = rss_gb()
    engine = AccessEngine.from_snapshot(snapshot)
    indexed = time.perf_counter()
    rss_indexed = rss_gb()
    rows.append(("load + index (s)", f"{indexed - start:.1f}", "<= 10"))
    rows.append(("  load (s)", f"{loaded - start:.1f}", ""))
    rows.append(("  index (s)", f"{indexed - loaded:.1f}", ""))

    requests = make_requests(snapshot, args.requests, seed=1)
    per_second, per_cpu, decisions = rate(engine, requests)
    counts = {
        k: sum(d.decision == k for d in decisions)
        for k in ("allowed", "denied", "notGranted", "conditional")
    }
    rows.append(("batch checks, first pass (/s wall)", f"{per_second:,.0f}", ">= 50,000"))
    rows.append(("  first pass (/s of CPU time)", f"{per_cpu:,.0f}", ""))
    per_second, per_cpu, _ = rate(engine, requests)
    rows.append(("batch checks, warm (/s wall)", f"{per_second:,.0f}", ">= 50,000"))
    rows.append(("  warm (/s of CPU time)", f"{per_cpu:,.0f}", ""))
    lines = [json.dumps(r.to_wire()).encode() for r in requests[:50_000]]
    with open(os.devnull, "w", encoding="utf-8") as sink:
        saved, sys.stdout = sys.stdout, sink
        t0 = time.perf_counter()
        # as `auditor access check --requests FILE` reads and writes them: a window at a time,
        # written a block at a time (benchmarks/bench_requests.py runs the command itself)
        stream = read_request_lines(lines, source="<bench>")
        windows = engine.check_windows(stream, window=BATCH_WINDOW, warn=True)
        _write_windows(windows, each=False, window=BATCH_WINDOW)
        jsonl = len(lines) / (time.perf_counter() - t0)
        sys.stdout = saved
    rows.append(("  JSON Lines in and out (/s wall)", f"{jsonl:,.0f}", ""))

    singles = make_requests(snapshot, 20_000, seed=2)
    latencies = []
    clock = time.perf_counter_ns
    c0 = time.process_time()
    for request in singles:
        t0 = clock()
        engine.check(request)
        latencies.append(clock() - t0)
    single_cpu = (time.process_time() - c0) * 1e6 / len(singles)
    latencies.sort()
    p99 = latencies[int(len(latencies) * 0.99)] / 1000
    p50 = latencies[len(latencies) // 2] / 1000
    rows.append(("single check p99 (us)", f"{p99:.0f}", "<= 250"))
    rows.append(("  single check p50 (us)", f"{p50:.0f}", ""))
    rows.append(("  single check mean, CPU time (us)", f"{single_cpu:.0f}", ""))

    rng = random.Random(3)
    scopes = sorted(
        {
            (r.properties.scope or "/").split("/providers/")[0]
            for r in snapshot.roleAssignments[:: max(1, size // 5000)]
        }
    )
    engine.who(CONTROL_OPS[0], scopes[0])  # builds the by-scope index once
    who_times: list[float] = []
    who_cpu: list[float] = []
    reached = 0
    for _ in range(40):
        op = rng.choice(CONTROL_OPS)
        scope = rng.choice(scopes)
        t0, c0 = time.perf_counter(), time.process_time()
        reached += len(engine.who(op, scope).entries)
        who_times.append((time.perf_counter() - t0) * 1000)
        who_cpu.append((time.process_time() - c0) * 1000)
    rows.append(("who-can mean (ms)", f"{statistics.mean(who_times):.1f}", "<= 75"))
    rows.append(("  who-can, CPU time (ms)", f"{statistics.mean(who_cpu):.1f}", ""))
    rows.append(("  principals per answer (mean)", f"{reached / len(who_times):.0f}", ""))
    rows.append(("  who-can max (ms)", f"{max(who_times):.1f}", ""))

    t0 = time.perf_counter()
    engine.indexes.by_principal  # noqa: B018 - the by-principal index is built on first use
    rows.append(("  by-principal index, built once (s)", f"{time.perf_counter() - t0:.1f}", ""))
    people = [
        p.id or "" for p in rng.sample(snapshot.principals, min(1200, len(snapshot.principals)))
    ]
    for principal in people[:200]:  # warm the shared caches (deny and role summaries)
        engine.what(principal)
    held = 0
    t0, c0 = time.perf_counter(), time.process_time()
    for principal in people[200:]:
        held += len(engine.what(principal).holdings)
    count = max(1, len(people) - 200)
    what_ms = (time.perf_counter() - t0) * 1000 / count
    what_cpu = (time.process_time() - c0) * 1000 / count
    rows.append(("what-can mean, random principals (ms)", f"{what_ms:.2f}", "<= 1"))
    rows.append(("  what-can, CPU time (ms)", f"{what_cpu:.2f}", ""))
    rows.append(("  holdings per principal (mean)", f"{held / count:.0f}", ""))
    t0 = time.perf_counter()
    for principal in people[200:]:
        engine.what(principal)
    warm_ms = (time.perf_counter() - t0) * 1000 / count
    rows.append(("  what-can, same principals again (ms)", f"{warm_ms:.2f}", ""))

    rows.append(("peak memory (GB)", f"{peak_gb():.2f}", "<= 1.5"))
    rows.append(("  RSS after load (GB)", f"{rss_loaded:.2f}", ""))
    rows.append(("  index on top of load (GB)", f"{rss_indexed - rss_loaded:.2f}", ""))
    print(f"decisions of the batch: {counts}", flush=True)

    del engine, snapshot, decisions
    gc.collect()

    small = load_snapshot(cached_estate(args.compare_size))
    small_engine = AccessEngine.from_snapshot(small)
    same = make_requests(small, compare_requests, seed=4)
    _ours, _cpu, our_decisions = rate(small_engine, same)
    ours, _cpu, _ = rate(small_engine, same * 50)
    theirs, cedar_allowed, encode_s = cedar_rate(small_engine.indexes, same)
    comparable = [
        (d.decision == "allowed", c)
        for d, c in zip(our_decisions, cedar_allowed, strict=True)
        if d.decision != "conditional"
    ]
    agree = sum(a == b for a, b in comparable) / max(1, len(comparable))
    naive_sample = same
    t0 = time.perf_counter()
    naive = [naive_check(small_engine.indexes, r) for r in naive_sample]
    naive_rate = len(naive_sample) / (time.perf_counter() - t0)
    naive_agree = sum(
        n == d.decision
        for n, d in zip(naive, our_decisions, strict=False)
        if d.decision != "conditional"
    ) / max(1, sum(d.decision != "conditional" for d in our_decisions[: len(naive)]))
    label = f"{args.compare_size:,} role assignments, {len(same):,} requests"
    rows.append((f"-- comparison estate: {label}", "", ""))
    rows.append(("ours (/s)", f"{ours:,.0f}", ""))
    rows.append(("cedarpy (/s)", f"{theirs:,.0f}", f"(encoding {encode_s:.1f} s)"))
    rows.append(("ours / cedarpy", f"{ours / theirs:,.0f}x", ""))
    rows.append(("naive scan (/s)", f"{naive_rate:,.1f}", ""))
    rows.append(("ours / naive scan", f"{ours / naive_rate:,.0f}x", ""))
    rows.append(("agreement with cedarpy", f"{agree:.2%}", "100%"))
    rows.append(("agreement with naive scan", f"{naive_agree:.2%}", "100%"))


if __name__ == "__main__":
    main()
