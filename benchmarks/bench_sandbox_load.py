"""The sandbox under concurrent mixed load from a second process: 8,000 requests, 16 clients.

The sandbox (``auditor sandbox serve``, loopback only, its default page size) serves a generated
estate (100,000 role assignments, 50 subscriptions; the same file as ``bench_collect.py``) in its
own process. This process sends a fixed mix of requests, cycled over the subscriptions, first from
one client (the baseline, in the same run) and then from ``--clients`` concurrent clients, and
prints for each requests per second, latency percentiles (of every HTTP request, pages included),
the server's CPU time per request (read from /proc: the load generator, httpx, costs about twice the
server's CPU per request, so on a small machine requests per second measure the client as much as
the server) and the errors: any 5xx, or a status the request does not expect (the goal is zero of
both). The ratios compare the concurrent run with the baseline.

Mix, per subscription (a list is followed through its nextLinks, ``--max-pages`` at most):

- role assignments: provider level (paged); at the subscription with ``atScope()``; of one principal;
  at a resource group and at a resource with ``atScope()``;
- deny assignments: at the subscription (paged), at a resource group with ``atScope()``, at a
  resource;
- health events of the subscription with a ``$filter``; clusters of the subscription; domains of a
  resource group;
- a cluster PUT and a GET of its operation status; a domain PUT; a body nested 2,000 levels (400);
- developer tooling: the user, the apps, an app's users, a token creation, a user removal (204, then
  404).

    .venv/bin/python benchmarks/bench_sandbox_load.py [--quick] [--requests N] [--clients N]
        [--page-size N] [--max-pages N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import cycle
from pathlib import Path

import httpx
import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_collect import generated_estate, sandbox_process

from auditor.estate.sample import compliant_cluster_body, compliant_domain_body
from auditor.estate.snapshot import Snapshot, load_snapshot
from auditor.model.defaults import SEED_API_VERSIONS

V_ACCESS = SEED_API_VERSIONS["roleAssignments.list"]
V_CLUSTER = SEED_API_VERSIONS["clusters.create"]
V_DOMAIN = SEED_API_VERSIONS["domains.createOrUpdate"]
V_EVENTS = SEED_API_VERSIONS["healthEvents.list"]
RA = "/providers/Cloud.Authorization/roleAssignments"
DA = "/providers/Cloud.Authorization/denyAssignments"


@dataclass(frozen=True)
class Request:
    """One kind of request: a list followed through its nextLinks (``pages`` > 0) or one call."""

    kind: str
    method: str
    path: str
    params: dict[str, str] = field(default_factory=dict)
    expected: frozenset[int] = frozenset({200})
    content: bytes | None = None
    dev: bool = False
    pages: int = 0
    location: bool = False


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    server_errors: int = 0
    received: int = 0
    seconds: float = 0.0
    server_cpu: float | None = None


def _scopes(snapshot: Snapshot) -> dict[str, tuple[str, str]]:
    """For each subscription (lower case), a resource group and a resource that role assignments
    name."""
    groups: dict[str, str] = {}
    resources: dict[str, str] = {}
    for ra in snapshot.roleAssignments:
        scope = ra.properties.scope or ""
        parts = scope.split("/")
        if len(parts) > 2 and parts[1].lower() == "subscriptions":
            if len(parts) == 5:
                groups.setdefault(parts[2].lower(), scope)
            elif len(parts) == 9:
                resources.setdefault(parts[2].lower(), scope)
    out: dict[str, tuple[str, str]] = {}
    for sub, group in groups.items():
        out[sub] = (group, resources.get(sub, group + "/providers/Cloud.Compute/vms/none"))
    return out


def request_mix(snapshot: Snapshot, subs: list[str], max_pages: int) -> list[Request]:
    principals = [p.id for p in snapshot.principals[:50] if p.id]
    dev = snapshot.devTooling
    owned = next(
        (a for a in (dev.apps if dev else []) if (a.ownerType or "").lower() == "user"), None
    )
    cluster = msgspec.json.encode(compliant_cluster_body("bench", sub="prod", rg="rg1"))
    domain = msgspec.json.encode(compliant_domain_body("westeurope"))
    deep = b'{"location":"x","properties":' + b"[" * 2000 + b"]" * 2000 + b"}"
    access = {"api-version": V_ACCESS}
    scopes = _scopes(snapshot)
    out: list[Request] = []
    for i, sub in enumerate(subs):
        s = f"/subscriptions/{sub}"
        group, resource = scopes.get(sub.lower(), (f"{s}/resourceGroups/rg-none",) * 2)
        principal = principals[i % len(principals)]
        app = f"/v0.1/apps/{owned.owner}/{owned.name}" if owned else "/v0.1/apps/x/y"
        user = owned.users[0].email if owned and owned.users else "nobody@example.com"
        out += [
            Request("ra provider", "GET", RA, access, pages=max_pages),
            Request("ra atScope", "GET", s + RA, {**access, "$filter": "atScope()"}, pages=1),
            Request(
                "ra principal",
                "GET",
                s + RA,
                {**access, "$filter": f"principalId eq '{principal}'"},
                pages=1,
            ),
            Request("ra group", "GET", group + RA, {**access, "$filter": "atScope()"}, pages=1),
            Request(
                "ra resource", "GET", resource + RA, {**access, "$filter": "atScope()"}, pages=1
            ),
            Request("deny", "GET", s + DA, access, pages=max_pages),
            Request("deny group", "GET", group + DA, {**access, "$filter": "atScope()"}, pages=9),
            Request("deny resource", "GET", resource + DA, access, pages=9),
            Request(
                "events",
                "GET",
                f"{s}/providers/Cloud.ResourceHealth/events",
                {
                    "api-version": V_EVENTS,
                    "$filter": "properties/eventType eq 'ServiceIssue' or properties/eventType eq 'RCA'",
                },
                pages=max_pages,
            ),
            Request(
                "clusters",
                "GET",
                f"{s}/providers/Cloud.AnalyticsCluster/clusters",
                {"api-version": V_CLUSTER},
                pages=max_pages,
            ),
            Request(
                "domains",
                "GET",
                f"{group}/providers/Cloud.EventRouting/domains",
                {"api-version": V_DOMAIN},
                pages=max_pages,
            ),
            Request(
                "cluster PUT",
                "PUT",
                f"{group}/providers/Cloud.AnalyticsCluster/clusters/bench-{i % 5}",
                {"api-version": V_CLUSTER},
                content=cluster,
                location=True,
            ),
            Request(
                "domain PUT",
                "PUT",
                f"{group}/providers/Cloud.EventRouting/domains/bench-{i % 5}",
                {"api-version": V_DOMAIN},
                frozenset({201}),
                content=domain,
            ),
            Request(
                "deep body",
                "PUT",
                f"{group}/providers/Cloud.EventRouting/domains/deep",
                {"api-version": V_DOMAIN},
                frozenset({400}),
                content=deep,
            ),
            Request("dev user", "GET", "/v0.1/user", dev=True),
            Request("dev apps", "GET", "/v0.1/apps", dev=True),
            Request("dev app users", "GET", app + "/users", dev=True),
            Request(
                "dev token POST",
                "POST",
                "/v0.1/api_tokens",
                expected=frozenset({201}),
                content=b'{"description": "bench", "accessType": "readOnly"}',
                dev=True,
            ),
            Request(
                "dev user DELETE",
                "DELETE",
                f"{app}/users/{user}",
                expected=frozenset({204, 404}),
                dev=True,
            ),
        ]
    return out


async def load(
    url: str, bearer: str, api_token: str, plan: list[Request], total: int, clients: int
) -> Tally:
    tally = Tally()
    work = cycle(plan)
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    arm = {"Authorization": f"Bearer {bearer}"}
    dev = {"X-API-Token": api_token}
    sent = 0
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=120) as client:

        async def send(method: str, target: str, **kwargs: object) -> httpx.Response:
            nonlocal sent
            sent += 1
            started = time.perf_counter()
            response = await client.request(method, target, **kwargs)  # type: ignore[arg-type]
            tally.latencies.append(time.perf_counter() - started)
            tally.received += len(response.content)
            if response.status_code >= 500:
                tally.server_errors += 1
            return response

        async def one(request: Request) -> None:
            headers = dev if request.dev else arm
            response = await send(
                request.method,
                request.path,
                params=request.params,
                content=request.content,
                headers=headers,
            )
            pages = 1
            while True:
                if response.status_code not in request.expected:
                    tally.errors[f"{request.kind}: HTTP {response.status_code}"] += 1
                    return
                if request.location:
                    status = await send("GET", response.headers["location"], headers=arm)
                    if status.status_code not in (200, 202):
                        tally.errors[f"{request.kind} status: HTTP {status.status_code}"] += 1
                    return
                link = response.json().get("nextLink") if request.pages else None
                if not link or pages >= request.pages:
                    return
                response = await send("GET", link, headers=headers)
                pages += 1

        async def worker() -> None:
            while sent < total:
                try:
                    await one(next(work))
                except httpx.HTTPError as exc:
                    tally.errors[f"{type(exc).__name__}"] += 1

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(clients)))
        tally.seconds = time.perf_counter() - started
    return tally


def server_cpu_seconds() -> float | None:
    """CPU time (user + system) used so far by the sandbox, a child of this process (Linux /proc;
    None elsewhere): the server's own cost per request, whatever the load generator costs."""
    me = str(os.getpid())
    try:
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
                with open(f"/proc/{entry.name}/cmdline", "rb") as fh:
                    command = fh.read()
            except OSError:
                continue
            if fields[1] == me and b"sandbox" in command:
                return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return None
    return None


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=8000)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--page-size", type=int, default=None, help="default: the sandbox's")
    parser.add_argument("--max-pages", type=int, default=5, help="pages followed per list")
    parser.add_argument("--role-assignments", type=int, default=100_000)
    parser.add_argument("--subscriptions", type=int, default=50)
    parser.add_argument("--quick", action="store_true", help="10,000 assignments, 800 requests")
    args = parser.parse_args()
    if args.quick:
        args.role_assignments, args.subscriptions, args.requests = 10_000, 10, 800
    path = generated_estate(args.role_assignments, args.subscriptions)
    snapshot = load_snapshot(path)
    subs = sorted(
        {
            r.properties.scope.split("/")[2]
            for r in snapshot.roleAssignments
            if (r.properties.scope or "").lower().startswith("/subscriptions/")
        }
    )
    plan = request_mix(snapshot, subs, args.max_pages)
    dev = snapshot.devTooling
    token_id = next(
        t.id
        for t in (dev.tokens if dev else [])
        if t.id and (t.kind, t.accessType) == ("user", "full")
    )
    api_token = secrets.token_urlsafe(24)
    extra = ["--api-token", f"{api_token}={token_id}"]
    if args.page_size is not None:
        extra += ["--page-size", str(args.page_size)]
    print(
        f"estate: {path.name}; {args.requests} requests, mix of {len(plan) // len(subs)} kinds "
        f"over {len(subs)} subscriptions; 1 client (baseline), then {args.clients} clients"
    )
    runs: dict[str, Tally] = {}
    with sandbox_process(path, *extra) as (url, bearer):
        asyncio.run(load(url, bearer, api_token, plan, len(plan), 4))  # warm up
        for label, clients in (("1 client", 1), (f"{args.clients} clients", args.clients)):
            before = server_cpu_seconds()
            tally = runs[label] = asyncio.run(
                load(url, bearer, api_token, plan, args.requests, clients)
            )
            after = server_cpu_seconds()
            if before is not None and after is not None:
                tally.server_cpu = after - before
    print(f"{'':18}" + "".join(f"{label:>14}" for label in runs))
    rows: dict[str, Callable[[Tally], str]] = {
        "requests/s": lambda t: f"{len(t.latencies) / t.seconds:.0f}",
        "MB/s": lambda t: f"{t.received / 2**20 / t.seconds:.0f}",
        "latency p50 ms": lambda t: f"{percentile(t.latencies, 0.50) * 1000:.1f}",
        "latency p99 ms": lambda t: f"{percentile(t.latencies, 0.99) * 1000:.1f}",
        "latency max ms": lambda t: f"{max(t.latencies) * 1000:.1f}",
        "latency mean ms": lambda t: f"{statistics.mean(t.latencies) * 1000:.1f}",
        "server CPU ms/req": lambda t: (
            f"{t.server_cpu / len(t.latencies) * 1000:.2f}" if t.server_cpu is not None else "-"
        ),
        "5xx": lambda t: f"{t.server_errors}",
        "errors": lambda t: f"{sum(t.errors.values())}",
    }
    for name, show in rows.items():
        print(f"{name:18}" + "".join(f"{show(t):>14}" for t in runs.values()))
    base, loaded = runs.values()
    ratio = (len(loaded.latencies) / loaded.seconds) / (len(base.latencies) / base.seconds)
    print(f"throughput {args.clients} clients / 1 client: {ratio:.2f}x")
    if base.server_cpu and loaded.server_cpu:
        cost = (loaded.server_cpu / len(loaded.latencies)) / (base.server_cpu / len(base.latencies))
        print(f"server CPU per request {args.clients} clients / 1 client: {cost:.2f}x")
    failed = False
    for label, tally in runs.items():
        for what, count in tally.errors.most_common(5):
            print(f"  {label}: {count} x {what}")
        failed |= bool(tally.errors) or tally.server_errors > 0
    if failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
