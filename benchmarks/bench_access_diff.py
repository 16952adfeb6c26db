"""The access delta at scale (issue 19): ``auditor access diff BEFORE AFTER`` after both estates are
loaded and indexed.

The estate (1,000,000 role assignments, 100,000 principals, 10,000 deny assignments; generated once
into ``benchmarks/.cache/``) is loaded twice, as two snapshot files would be. Both copies get the same
ten large groups (1,000 users each, as direct members) and the "after" copy gets 1,000 role-assignment
changes: half creates, half deletes. Creates assign a privileged role (Owner, Contributor, User Access
Administrator, RBAC Administrator) half the time and another built-in role otherwise, to a random
principal at the scope of a random existing assignment (so subscriptions, resource groups and
resources as the estate has them); deletes remove random existing assignments. One in a hundred
changes is an Owner assignment of a large group at a resource group (created, or deleted). The delta
is timed; the goal is 10 s.

The brute force decides every (principal, privileged operation, scope) of the universe before and
after and compares: on the 100,000-assignment estate (with the same recipe of changes) it is timed on
a random sample of the universe and extrapolated to the whole; the delta on the same estate is timed
in full; the goal is a ratio of 50 or more. The sample's own answers are checked against the delta.

    .venv/bin/python benchmarks/bench_access_diff.py [--quick] [--changes N] [--sample N]

``--quick`` is a smoke run on small estates (20,000 and 5,000 assignments, groups of 200): there the
brute force is run in full and must agree with the delta exactly.
"""

from __future__ import annotations

import argparse
import gc
import random
import resource
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import cached_estate

from auditor.access import AccessDelta, AccessRequest, access_delta, decide, delta_universe
from auditor.access.indexes import Indexes
from auditor.access.scopes import scope_key
from auditor.estate import roles as builtin
from auditor.estate.records import (
    DirectoryPrincipalRecord,
    RoleAssignmentPropertiesRecord,
    RoleAssignmentRecord,
)
from auditor.estate.snapshot import Snapshot, load_snapshot

PRIVILEGED_ROLES = (
    builtin.OWNER,
    builtin.CONTRIBUTOR,
    builtin.USER_ACCESS_ADMINISTRATOR,
    builtin.RBAC_ADMINISTRATOR,
)
OTHER_ROLES = (
    builtin.READER,
    "2a2b9908-6ea1-4ae2-8e65-a410df84e7d1",  # Storage Blob Data Reader
    "ba92f5b4-2d11-453d-a403-e96b0029c9fe",  # Storage Blob Data Contributor
    "00482a5a-887f-4fb3-b363-3b7fe8e74483",  # Key Vault Administrator
    "1e241071-0855-49ea-94dc-649edcd759de",  # EventGrid Contributor
)
_AUTHZ = "Cloud.Authorization"


def peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


@dataclass
class Recipe:
    """What the two copies of an estate get (ids only, applied to each copy alike)."""

    groups: list[tuple[str, list[int]]]
    """Large groups: id, indexes of their members in ``principals``."""
    standing: list[RoleAssignmentRecord]
    """Assignments of large groups in both copies (some are deleted in the after copy)."""
    deletes: set[int]
    """Indexes into ``roleAssignments`` (after ``standing`` is appended) removed after."""
    creates: list[RoleAssignmentRecord]


def _guid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"


def _assignment(
    rng: random.Random, principal: str, kind: str, role: str, scope: str
) -> RoleAssignmentRecord:
    name = _guid(rng)
    return RoleAssignmentRecord(
        id=f"{scope}/providers/{_AUTHZ}/roleAssignments/{name}",
        name=name,
        type=f"{_AUTHZ}/roleAssignments",
        properties=RoleAssignmentPropertiesRecord(
            roleDefinitionId=f"/providers/{_AUTHZ}/roleDefinitions/{role}",
            principalId=principal,
            principalType=kind,
            scope=scope,
            createdOn="2026-11-20T10:00:00Z",
        ),
    )


def make_recipe(snapshot: Snapshot, changes: int, group_size: int, seed: int) -> Recipe:
    rng = random.Random(seed)
    principals = snapshot.principals
    users = [i for i, p in enumerate(principals) if (p.type or "").lower() == "user"]
    assignments = snapshot.roleAssignments
    scopes = [a.properties.scope for a in assignments]
    rgs = sorted({s for s in scopes if s.count("/") == 4 and "/resourceGroups/" in s})
    big = max(2, changes // 100)
    groups = [
        (f"bench-group-{k:02d}-{_guid(rng)}", rng.sample(users, min(group_size, len(users))))
        for k in range(big)
    ]
    standing = [
        _assignment(rng, gid, "Group", builtin.OWNER, rng.choice(rgs)) for gid, _ in groups[::2]
    ]
    n_delete = changes // 2
    base = len(assignments)
    deletes = {base + k for k in range(len(standing))}  # every standing one goes
    deletes.update(rng.sample(range(base), n_delete - len(deletes)))
    creates = [
        _assignment(rng, gid, "Group", builtin.OWNER, rng.choice(rgs)) for gid, _ in groups[1::2]
    ]
    while len(creates) < changes - n_delete:
        who = principals[rng.randrange(len(principals))]
        roles = PRIVILEGED_ROLES if rng.random() < 0.5 else OTHER_ROLES
        scope = scopes[rng.randrange(len(scopes))]
        creates.append(_assignment(rng, who.id, who.type or "User", rng.choice(roles), scope))
    return Recipe(groups, standing, deletes, creates)


def apply(snapshot: Snapshot, recipe: Recipe, after: bool) -> Snapshot:
    """One copy of the estate with the large groups (and, ``after``, the changes)."""
    principals = snapshot.principals
    for gid, members in recipe.groups:
        principals.append(DirectoryPrincipalRecord(id=gid, type="Group", displayName=gid[:14]))
        for i in members:
            record = principals[i]
            principals[i] = msgspec.structs.replace(record, memberOf=[*record.memberOf, gid])
    assignments = snapshot.roleAssignments
    assignments.extend(msgspec.structs.replace(r) for r in recipe.standing)
    if after:
        kept = [r for i, r in enumerate(assignments) if i not in recipe.deletes]
        kept.extend(msgspec.structs.replace(r) for r in recipe.creates)
        snapshot.roleAssignments = kept
    return snapshot


def load_pair(path: Path, changes: int, group_size: int) -> tuple[Indexes, Indexes, float]:
    """The before and after indexes (each from its own load of the file); the seconds taken."""
    start = time.perf_counter()
    before = load_snapshot(path)
    recipe = make_recipe(before, changes, group_size, seed=19)
    before = apply(before, recipe, after=False)
    after = apply(load_snapshot(path), recipe, after=True)
    pair = Indexes(before), Indexes(after)
    return pair[0], pair[1], time.perf_counter() - start


def timed_delta(
    before: Indexes, after: Indexes, runs: int
) -> tuple[list[float], list[float], AccessDelta]:
    """Wall and CPU seconds of each run (the first meets cold caches, as a single command
    does), and the delta."""
    times, cpus = [], []
    delta = None
    for _ in range(runs):
        gc.collect()
        start, cpu = time.perf_counter(), time.process_time()
        delta = access_delta(before, after)
        times.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    assert delta is not None
    return times, cpus, delta


def _spread(values: list[float], digits: int = 2) -> str:
    return (
        f"first {values[0]:.{digits}f}, median of {len(values)} "
        f"{statistics.median(values):.{digits}f}, {min(values):.{digits}f}-{max(values):.{digits}f}"
    )


def brute_force(
    before: Indexes, after: Indexes, sample: int | None, seed: int
) -> tuple[
    float, float, int, set[tuple[str, str, str]], dict[tuple[str, str, str], tuple[str, str]]
]:
    """Decide (a sample of) the universe before and after. Returns the wall and CPU seconds per
    triple, the universe's size, the triples decided and the changes found among them."""
    principals, operations, scopes = delta_universe(before, after)
    total = len(principals) * len(operations) * len(scopes)
    if sample is None or sample >= total:
        triples = [(p, op, s) for p in principals for op in operations for s in scopes]
    else:
        rng = random.Random(seed)
        triples = [
            (rng.choice(principals), rng.choice(operations), rng.choice(scopes))
            for _ in range(sample)
        ]
    found: dict[tuple[str, str, str], tuple[str, str]] = {}
    no = {"denied", "notGranted"}
    gc.collect()
    start, cpu = time.perf_counter(), time.process_time()
    for principal, (action, data), scope in triples:
        request = AccessRequest(principal, action, scope, data)
        old = decide(before, request, explain=False).decision
        new = decide(after, request, explain=False).decision
        if old != new and not {old, new} <= no:
            found[(principal.lower(), action.lower(), scope_key(scope))] = (old, new)
    elapsed, used = time.perf_counter() - start, time.process_time() - cpu
    keys = {(p.lower(), op.lower(), scope_key(s)) for p, (op, _data), s in triples}
    return elapsed / len(triples), used / len(triples), total, keys, found


def agreement(
    delta: AccessDelta,
    found: dict[tuple[str, str, str], tuple[str, str]],
    keys: set[tuple[str, str, str]],
) -> bool:
    """The delta's changes among ``keys`` (the triples the brute force decided) are its own."""
    ours = {
        (c.principalId.lower(), c.action.lower(), scope_key(c.scope)): (c.before, c.after)
        for c in delta.changes
    }
    return {k: v for k, v in ours.items() if k in keys} == found


def _row(name: str, value: str, goal: str = "") -> None:
    print(f"{name:48}{value:>16}   {goal}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small estates, a smoke run")
    parser.add_argument("--changes", type=int, default=1_000, help="role-assignment changes")
    parser.add_argument("--sample", type=int, default=100_000, help="brute-force sample size")
    parser.add_argument("--runs", type=int, default=5, help="timed runs of each delta")
    args = parser.parse_args()
    if args.quick:
        size, principals, denies, group_size = 20_000, 2_000, 200, 200
        compare, compare_principals, compare_denies = 5_000, None, None
    else:
        # the generator's defaults: 100,000 principals and 10,000 deny assignments for a million
        size, principals, denies, group_size = 1_000_000, None, None, 1_000
        compare, compare_principals, compare_denies = 100_000, None, None

    path = cached_estate(size, principals=principals, deny_assignments=denies)
    print(f"estate: {path.name} ({path.stat().st_size / 2**20:.0f} MB)", flush=True)
    print(f"\n{'figure':48}{'measured':>16}   goal", flush=True)
    before, after, loading = load_pair(path, args.changes, group_size)
    _row("load + index, both copies (s)", f"{loading:.1f}")
    times, cpus, delta = timed_delta(before, after, args.runs)
    stats = delta.stats
    _row(f"delta, {args.changes:,} changes (s)", f"{times[0]:.2f}", f"<= 10 ({_spread(times)})")
    _row("  CPU time (s)", f"{cpus[0]:.2f}", f"({_spread(cpus)})")
    _row("  role assignments changed", f"{stats.roleAssignments:,}")
    _row("  (principal, scope) pairs reached", f"{stats.pairs:,}")
    _row("  decisions made", f"{stats.decisions:,}")
    _row("  changes found", f"{len(delta.changes):,}")
    summary = delta.summary
    _row(
        "  newly allowed / blocked / conditional",
        "{newlyAllowed:,} / {newlyBlocked:,} / {changedConditional:,}".format(**summary),
    )
    _row("  principals with changes", f"{summary['principals']:,}")
    _row("peak memory (GB)", f"{peak_gb():.2f}")
    del before, after, delta
    gc.collect()

    small = cached_estate(compare, principals=compare_principals, deny_assignments=compare_denies)
    print(f"\ncomparison estate: {small.name}", flush=True)
    before, after, _ = load_pair(small, args.changes, group_size)
    times, cpus, delta = timed_delta(before, after, args.runs)
    ours = statistics.median(times)
    sample = None if args.quick else args.sample
    per_triple, cpu_triple, total, keys, found = brute_force(before, after, sample, seed=5)
    brute, brute_cpu = per_triple * total, cpu_triple * total
    ours_cpu = statistics.median(cpus)
    _row("delta (s)", f"{ours:.3f}", f"({_spread(times, 3)})")
    _row("  changes found", f"{len(delta.changes):,}")
    _row("universe (principal x operation x scope)", f"{total:,}")
    how = "in full" if sample is None else f"from {len(keys):,} sampled"
    _row(f"brute force (s, {how})", f"{brute:,.1f}")
    _row("  CPU time (s)", f"{brute_cpu:,.1f}")
    _row("brute force / delta", f"{brute / ours:,.0f}x", ">= 50")
    _row("  in CPU time", f"{brute_cpu / ours_cpu:,.0f}x", f"(delta CPU {_spread(cpus, 3)})")
    ok = agreement(delta, found, keys)
    _row("delta agrees with the brute force", "yes" if ok else "NO", "yes")
    if not ok:
        raise SystemExit("the delta and the brute force disagree")


if __name__ == "__main__":
    main()
