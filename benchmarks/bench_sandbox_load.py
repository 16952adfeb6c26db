"""The sandbox under a bounded load from a second process: 2,000 list requests, 8 in flight.

The sandbox (``auditor sandbox serve``, loopback only) serves a generated estate (100,000 role
assignments, 50 subscriptions; the same file as ``bench_collect.py``) in its own process; this process
sends a fixed mix of list requests (cycled over the subscriptions) and prints requests per second,
latency percentiles and the error count (the goal is zero).

Mix (one of each in turn): role assignments at a subscription with ``atScope()``; role assignments
of one principal at a subscription; a provider-level page of role assignments (page size
``--page-size``); deny assignments of a subscription; health events of a subscription with a
``$filter``; clusters of a subscription; domains of a subscription.

    .venv/bin/python benchmarks/bench_sandbox_load.py [--quick] [--requests N] [--concurrency N]
        [--page-size N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_collect import generated_estate, sandbox_process

V_ACCESS = "2022-04-01"


def request_mix(subs: list[str], principals: list[str]) -> list[tuple[str, str, dict[str, str]]]:
    """(kind, path, params) for one round over the subscriptions."""
    out: list[tuple[str, str, dict[str, str]]] = []
    for i, sub in enumerate(subs):
        s = f"/subscriptions/{sub}"
        principal = principals[i % len(principals)]
        out += [
            (
                "ra atScope",
                f"{s}/providers/Cloud.Authorization/roleAssignments",
                {"api-version": V_ACCESS, "$filter": "atScope()"},
            ),
            (
                "ra principal",
                f"{s}/providers/Cloud.Authorization/roleAssignments",
                {"api-version": V_ACCESS, "$filter": f"principalId eq '{principal}'"},
            ),
            (
                "ra provider page",
                "/providers/Cloud.Authorization/roleAssignments",
                {"api-version": V_ACCESS},
            ),
            (
                "deny",
                f"{s}/providers/Cloud.Authorization/denyAssignments",
                {"api-version": V_ACCESS},
            ),
            (
                "events",
                f"{s}/providers/Cloud.ResourceHealth/events",
                {
                    "api-version": "2024-02-01",
                    "$filter": "properties/eventType eq 'ServiceIssue' or properties/eventType eq 'RCA'",
                },
            ),
            (
                "clusters",
                f"{s}/providers/Cloud.AnalyticsCluster/clusters",
                {"api-version": "2021-06-01"},
            ),
            ("domains", f"{s}/providers/Cloud.EventRouting/domains", {"api-version": "2025-02-15"}),
        ]
    return out


async def load(
    url: str, token: str, plan: list[tuple[str, str, dict[str, str]]], total: int, concurrency: int
) -> tuple[float, list[float], Counter[str], int]:
    latencies: list[float] = []
    errors: Counter[str] = Counter()
    received = 0
    queue: asyncio.Queue[tuple[str, str, dict[str, str]]] = asyncio.Queue()
    for i in range(total):
        queue.put_nowait(plan[i % len(plan)])
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(
        base_url=url, headers=headers, limits=limits, timeout=60
    ) as client:

        async def worker() -> None:
            nonlocal received
            while not queue.empty():
                kind, path, params = queue.get_nowait()
                started = time.perf_counter()
                try:
                    response = await client.get(path, params=params)
                    received += len(response.content)
                    if response.status_code != 200:
                        errors[f"{kind}: HTTP {response.status_code}"] += 1
                except httpx.HTTPError as exc:
                    errors[f"{kind}: {type(exc).__name__}"] += 1
                latencies.append(time.perf_counter() - started)

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        seconds = time.perf_counter() - started
    return seconds, latencies, errors, received


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--page-size", type=int, default=1000)
    parser.add_argument("--role-assignments", type=int, default=100_000)
    parser.add_argument("--subscriptions", type=int, default=50)
    parser.add_argument("--quick", action="store_true", help="10,000 assignments, 300 requests")
    args = parser.parse_args()
    if args.quick:
        args.role_assignments, args.subscriptions, args.requests = 10_000, 10, 300
    path = generated_estate(args.role_assignments, args.subscriptions)
    from auditor.estate.snapshot import load_snapshot

    snapshot = load_snapshot(path)
    subs = sorted(
        {
            r.properties.scope.split("/")[2]
            for r in snapshot.roleAssignments
            if (r.properties.scope or "").lower().startswith("/subscriptions/")
        }
    )
    principals = [p.id for p in snapshot.principals[:50] if p.id]
    plan = request_mix(subs, principals)
    print(
        f"estate: {path.name}; {args.requests} requests, {args.concurrency} in flight, "
        f"mix of {len(plan) // len(subs)} list kinds over {len(subs)} subscriptions"
    )
    with sandbox_process(path, "--page-size", str(args.page_size)) as (url, token):
        asyncio.run(load(url, token, plan, min(70, args.requests), args.concurrency))  # warm up
        seconds, latencies, errors, received = asyncio.run(
            load(url, token, plan, args.requests, args.concurrency)
        )
    print(
        f"requests/s      {len(latencies) / seconds:10.0f}   ({len(latencies)} in {seconds:.2f} s, "
        f"{received / 2**20 / seconds:.0f} MB/s)"
    )
    print(f"latency p50     {percentile(latencies, 0.50) * 1000:10.1f} ms")
    print(f"latency p95     {percentile(latencies, 0.95) * 1000:10.1f} ms")
    print(f"latency p99     {percentile(latencies, 0.99) * 1000:10.1f} ms")
    print(
        f"latency max     {max(latencies) * 1000:10.1f} ms   (mean {statistics.mean(latencies) * 1000:.1f})"
    )
    print(f"errors          {sum(errors.values()):10d}")
    for what, count in errors.most_common(5):
        print(f"  {count} x {what}")
    if errors:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
