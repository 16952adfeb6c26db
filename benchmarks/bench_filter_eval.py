"""Evaluation rate of compiled $filter predicates against a naive AST-walking interpreter.

    .venv/bin/python benchmarks/bench_filter_eval.py [--records N] [--seed S] [--quick]

Both evaluate the same filters over the same N health-event-shaped dicts (seed 2.D; default one
million) in the same run; both must select the same events.  The baseline, ``naive_matches`` below,
walks the AST for every record with the same comparison rules (it calls
``auditor.expr.filter.compare_values``), so the difference is the compilation: the compiled predicate
is built once (member lookups unrolled into generated Python, the common type of each comparison
inlined, ``x eq a or x eq b`` turned into one set test, ``c/any(x: x/p eq v)`` into the path
``c/p eq v``) and then only called.  The fourth filter profits from that last rewrite; the fifth,
whose lambda tests two members of the same element, cannot.  Times are
CPU time of this thread, so time the machine gives to other processes does not count.

Goal (the issue): at least 5x on the semantics section 3 example (the first filter).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from auditor.expr.filter import (  # noqa: E402 - after the path set-up above
    And,
    BoolLit,
    Call,
    Compare,
    Expr,
    In,
    Lambda,
    Member,
    Not,
    Or,
    compare_values,
    compile_filter,
    parse_filter,
)
from auditor.expr.filter.compiler import comparison_constant  # noqa: E402

GOAL = 5.0
FILTERS = [
    "properties/eventType eq 'ServiceIssue' or properties/eventType eq 'SecurityAdvisory'",
    "properties/status eq 'Active' and properties/priority le 7",
    "properties/impact/impactedService eq 'Storage'",
    "properties/impact/any(i: i/impactedRegions/any(r: r/impactedRegion eq 'West Europe'))",
    "properties/impact/any(i: i/impactedService eq 'Storage' and "
    "i/impactedRegions/any(r: r/status eq 'Active'))",
    "properties/lastUpdateTime ge 2024-06-01T00:00:00Z and not properties/isHIR",
]

EVENT_TYPES = ["ServiceIssue", "PlannedMaintenance", "HealthAdvisory", "SecurityAdvisory", "RCA"]
LEVELS = ["Critical", "Error", "Warning", "Informational"]
SERVICES = ["Storage", "Virtual Machines", "SQL Database", "App Service", "Key Vault", "Event Grid"]
REGIONS = ["West Europe", "North Europe", "East US", "West US 2", "Southeast Asia"]


# --------------------------------------------------------------------------------------------------
# data


def make_events(count: int, seed: int) -> list[dict[str, Any]]:
    """``count`` health events; impact lists come from a pool (events share them, as they would
    share a service outage)."""
    rng = random.Random(seed)
    impacts = [
        [
            {
                "impactedService": rng.choice(SERVICES),
                "impactedServiceGuid": f"{rng.getrandbits(128):032x}",
                "impactedRegions": [
                    {"impactedRegion": region, "status": rng.choice(["Active", "Resolved"])}
                    for region in rng.sample(REGIONS, rng.randint(1, 3))
                ],
            }
            for _ in range(rng.randint(0, 3))
        ]
        for _ in range(500)
    ]
    events = []
    for i in range(count):
        event_type = rng.choice(EVENT_TYPES)
        status = "Active" if rng.random() < 0.4 else "Resolved"
        month = rng.randint(1, 12)
        events.append(
            {
                "id": f"/subscriptions/sub-{i % 97}/providers/Cloud.ResourceHealth/events/E{i}",
                "name": f"E{i}",
                "type": "Cloud.ResourceHealth/events",
                "properties": {
                    "eventType": event_type,
                    "eventSource": "ServiceHealth",
                    "status": status,
                    "eventLevel": rng.choice(LEVELS),
                    "title": f"{event_type} affecting customers",
                    "priority": rng.randint(0, 23),
                    "isHIR": rng.random() < 0.1,
                    "lastUpdateTime": f"2024-{month:02d}-{rng.randint(1, 28):02d}T10:00:00Z",
                    "impact": rng.choice(impacts),
                },
            }
        )
    return events


# --------------------------------------------------------------------------------------------------
# the baseline: walk the AST for every record


def naive_matches(node: Expr, record: Any, env: dict[str, Any] | None = None) -> bool:
    env = env or {}
    if isinstance(node, Or):
        return any(naive_matches(operand, record, env) for operand in node.operands)
    if isinstance(node, And):
        return all(naive_matches(operand, record, env) for operand in node.operands)
    if isinstance(node, Not):
        return not naive_matches(node.operand, record, env)
    if isinstance(node, BoolLit):
        return node.value
    if isinstance(node, Compare):
        left = naive_values(node.left, record, env)
        right = naive_values(node.right, record, env)
        return any(compare_values(node.op, a, b) for a in left for b in right)
    if isinstance(node, In):
        values = [comparison_constant(value) for value in node.values]
        return any(
            compare_values("eq", a, b)
            for a in naive_values(node.operand, record, env)
            for b in values
        )
    if isinstance(node, Member):
        return any(value is True for value in naive_values(node, record, env))
    if isinstance(node, Lambda):
        elements = [e for e in naive_values(node.collection, record, env) if e is not None]
        if node.predicate is None or node.variable is None:
            return bool(elements)
        test = node.predicate
        scoped = [{**env, node.variable.casefold(): element} for element in elements]
        if node.op == "any":
            return any(naive_matches(test, record, inner) for inner in scoped)
        return all(naive_matches(test, record, inner) for inner in scoped)
    raise NotImplementedError(type(node).__name__)


def naive_values(node: Expr, record: Any, env: dict[str, Any]) -> list[Any]:
    if isinstance(node, Member):
        path = list(node.path)
        start = path[0].casefold()
        current = [env[start]] if start in env else [record]
        if start in env:
            path = path[1:]
        for name in path:
            following: list[Any] = []
            for item in flatten(current):
                following.extend(flatten([lookup(item, name)]))
            current = following
        return flatten(current)
    if isinstance(node, Call):
        raise NotImplementedError("functions")
    if isinstance(node, Compare | In | Not | And | Or | Lambda):
        return [naive_matches(node, record, env)]
    return [comparison_constant(node)]


def lookup(item: Any, name: str) -> Any:
    if not isinstance(item, dict):
        return None
    if name in item:
        return item[name]
    folded = name.casefold()
    for key, value in item.items():
        if key.casefold() == folded:
            return value
    return None


def flatten(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for value in values:
        if isinstance(value, list):
            out.extend(flatten(value))
        else:
            out.append(value)
    return out


# --------------------------------------------------------------------------------------------------


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--records", type=int, default=1_000_000)
    options.add_argument("--seed", type=int, default=7)
    options.add_argument("--quick", action="store_true", help="a smoke run: 20,000 records")
    args = options.parse_args()
    if args.quick:
        args.records = 20_000

    start = time.perf_counter()
    events = make_events(args.records, args.seed)
    print(f"{len(events):,} health events generated in {time.perf_counter() - start:.1f} s")

    ratios = []
    for text in FILTERS:
        node = parse_filter(text)
        compile_start = time.thread_time()
        predicate = compile_filter(node)
        compile_ms = (time.thread_time() - compile_start) * 1000

        start = time.thread_time()
        compiled_hits = sum(1 for event in events if predicate(event))
        compiled = time.thread_time() - start

        start = time.thread_time()
        naive_hits = sum(1 for event in events if naive_matches(node, event))
        naive = time.thread_time() - start

        if compiled_hits != naive_hits:
            print(f"MISMATCH on {text!r}: compiled {compiled_hits}, naive {naive_hits}")
            return 1
        ratio = naive / compiled
        ratios.append(ratio)
        print(f"\n{text}")
        print(
            f"  matches {compiled_hits:,} of {len(events):,}; compiled once in {compile_ms:.2f} ms"
        )
        print(
            f"  compiled predicate  {len(events) / compiled:12,.0f} records/s  ({compiled:6.2f} s)"
        )
        print(f"  naive AST walk      {len(events) / naive:12,.0f} records/s  ({naive:6.2f} s)")
        print(f"  ratio               {ratio:12.1f}x")

    verdict = "met" if ratios[0] >= GOAL else "NOT met"
    geometric = 1.0
    for ratio in ratios:
        geometric *= ratio
    geometric **= 1 / len(ratios)
    print(
        f"\nresult: {ratios[0]:.1f}x on the semantics section 3 example (goal {GOAL}x: {verdict}); "
        f"geometric mean over the {len(ratios)} filters {geometric:.1f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
