"""The sandbox under concurrent mixed load over a real socket (a small version of
``benchmarks/bench_sandbox_load.py``): 16 clients send 800 requests at once (lists with and without
filters at every scope, followed through their nextLinks; cluster and domain PUTs and the cluster's
operation status; health events; developer-tooling reads, token creations and user removals; and
hostile bodies and filters), with ``--persist`` on.

Asserted: no 5xx and nothing logged as an error; every answer has the status its request expects
and a JSON body; every static listing, paged while others write, gives exactly the items (in the same
order) that a quiet sequential run gave; a listing of clusters or domains (which grow meanwhile) never
repeats an item and keeps every item that existed before; every change made under load is in the
persisted file afterwards."""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from auditor.estate.sample import compliant_cluster_body, compliant_domain_body
from auditor.estate.snapshot import load_snapshot
from auditor.model.defaults import SEED_API_VERSIONS
from tests.test_sandbox_helpers import (
    GROUP,
    MG,
    OTHER,
    READER_ROLE,
    RG1,
    RG2,
    S1,
    S2,
    USER,
    VM1,
    deny_assignment,
    estate_json,
    health_event,
    role_assignment,
    sandbox,
)

REQUESTS = 800
CLIENTS = 16
PAGE_SIZE = 7

V_ACCESS = SEED_API_VERSIONS["roleAssignments.list"]
V_CLUSTER = SEED_API_VERSIONS["clusters.create"]
V_DOMAIN = SEED_API_VERSIONS["domains.createOrUpdate"]
V_EVENTS = SEED_API_VERSIONS["healthEvents.list"]
RA = "/providers/Cloud.Authorization/roleAssignments"
DA = "/providers/Cloud.Authorization/denyAssignments"
EV = "/providers/Cloud.ResourceHealth/events"
CLUSTERS = "/providers/Cloud.AnalyticsCluster/clusters"
DOMAINS = "/providers/Cloud.EventRouting/domains"
BEARER = {"Authorization": "Bearer t-sandbox-reader"}
USER_TOKEN = {"X-API-Token": "v-user-full"}


@dataclass(frozen=True)
class Listing:
    """A list call followed through its nextLinks; ``growing``: its items may be added meanwhile."""

    path: str
    params: tuple[tuple[str, str], ...]
    growing: bool = False


@dataclass(frozen=True)
class Call:
    """One request and the statuses it may get."""

    method: str
    path: str
    expected: frozenset[int]
    headers: tuple[tuple[str, str], ...] = tuple(BEARER.items())
    content: bytes | None = None
    follow_location: bool = False


@dataclass
class Outcome:
    requests: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    listed: dict[Listing, list[list[str]]] = field(default_factory=dict)
    tokens: list[str] = field(default_factory=list)


def _listings() -> list[Listing]:
    def ra(scope: str, flt: str | None = None) -> Listing:
        params = (("api-version", V_ACCESS),) + ((("$filter", flt),) if flt else ())
        return Listing(scope + RA, params)

    def da(scope: str, flt: str | None = None) -> Listing:
        params = (("api-version", V_ACCESS),) + ((("$filter", flt),) if flt else ())
        return Listing(scope + DA, params)

    def ev(scope: str, *extra: tuple[str, str]) -> Listing:
        return Listing(scope + EV, (("api-version", V_EVENTS), *extra))

    return [
        ra(""),
        ra("", f"assignedTo('{USER}')"),
        ra(MG),
        ra(S1, "atScope()"),
        ra(RG1, f"principalId eq '{OTHER}'"),
        ra(VM1, "atScope()"),
        da(S1),
        da(RG1),
        da(RG1, "atScope()"),
        da(VM1, f"principalId eq '{OTHER}'"),
        da(S2, f"gdprExportPrincipalId eq '{GROUP}'"),
        ev(S1),
        ev(S1, ("$filter", "properties/eventType eq 'ServiceIssue'")),
        ev(S1, ("queryStartTime", "5/1/2024")),
        ev(VM1),
        Listing(S1 + CLUSTERS, (("api-version", V_CLUSTER),), growing=True),
        Listing(RG1 + CLUSTERS, (("api-version", V_CLUSTER),), growing=True),
        Listing(S2 + DOMAINS, (("api-version", V_DOMAIN),), growing=True),
    ]


def _calls() -> list[Call]:
    cluster = msgspec.json.encode(compliant_cluster_body("c", sub="prod", rg="rg1"))
    domain = msgspec.json.encode(compliant_domain_body("westeurope"))
    deep = b'{"location":"x","properties":' + b"[" * 2000 + b"]" * 2000 + b"}"
    dev = tuple(USER_TOKEN.items())
    ok, created, bad = frozenset({200}), frozenset({201}), frozenset({400})
    calls = [
        Call("GET", "/v0.1/user", ok, dev),
        Call("GET", "/v0.1/apps", ok, dev),
        Call("GET", "/v0.1/apps/devuser/app1/users", ok, dev),
        Call("GET", "/v0.1/apps/org1/app2/api_tokens", ok, dev),
        Call("POST", "/v0.1/api_tokens", created, dev, b'{"description": "load"}'),
        Call("DELETE", "/v0.1/apps/devuser/app1/users/x@example.com", frozenset({204, 404}), dev),
        Call("PUT", f"{RG2}{DOMAINS}/deep?api-version={V_DOMAIN}", bad, content=deep),
        Call("PUT", f"{RG1}{CLUSTERS}/bad?api-version={V_CLUSTER}", bad, content=b"{not json"),
        Call("GET", f"{S1}{EV}?api-version={V_EVENTS}&$filter=" + "(" * 300, bad),
    ]
    for i in range(4):
        calls.append(
            Call(
                "PUT",
                f"{RG1}{CLUSTERS}/load-{i}?api-version={V_CLUSTER}",
                ok,
                content=cluster,
                follow_location=True,
            )
        )
        calls.append(
            Call("PUT", f"{RG2}{DOMAINS}/load-{i}?api-version={V_DOMAIN}", created, content=domain)
        )
    return calls


def _big_estate() -> dict[str, Any]:
    data = estate_json()
    data["roleAssignments"] += [
        role_assignment(f"load-ra-{i:03d}", scope, READER_ROLE, principal)
        for i, (scope, principal) in enumerate(
            itertools.islice(itertools.cycle([(S1, USER), (RG1, OTHER), (VM1, GROUP)]), 90)
        )
    ]
    data["denyAssignments"] += [
        deny_assignment(f"load-da-{i:02d}", RG1 if i % 2 else VM1, [(OTHER, "User")])
        for i in range(30)
    ]
    data["healthEvents"] += [
        health_event(
            S1 if i % 3 else VM1, f"LOAD{i:02d}", "ServiceIssue", f"2024-05-0{1 + i % 9}T00:00:00Z"
        )
        for i in range(40)
    ]
    return data


async def _follow(
    client: httpx.AsyncClient, listing: Listing, outcome: Outcome
) -> list[str] | None:
    ids: list[str] = []
    response = await client.get(listing.path, params=dict(listing.params), headers=BEARER)
    while True:
        outcome.requests += 1
        outcome.statuses[response.status_code] += 1
        if response.status_code != 200:
            outcome.failures.append(f"{listing.path}: {response.status_code} {response.text[:200]}")
            return None
        body = response.json()
        ids.extend(item["id"] for item in body["value"])
        link = body.get("nextLink")
        if not link:
            return ids
        response = await client.get(link, headers=BEARER)


async def _call(client: httpx.AsyncClient, call: Call, outcome: Outcome) -> None:
    response = await client.request(
        call.method, call.path, headers=dict(call.headers), content=call.content
    )
    outcome.requests += 1
    outcome.statuses[response.status_code] += 1
    if response.status_code not in call.expected:
        outcome.failures.append(
            f"{call.method} {call.path[:80]}: {response.status_code} {response.text[:200]}"
        )
        return
    if response.status_code != 204:
        body = response.json()  # every answer is JSON
        if call.path == "/v0.1/api_tokens" and call.method == "POST":
            outcome.tokens.append(body["id"])
    if call.follow_location:
        status = await client.get(response.headers["location"], headers=BEARER)
        outcome.requests += 1
        outcome.statuses[status.status_code] += 1
        if status.status_code not in (200, 202) or status.json()["status"] not in (
            "InProgress",
            "Succeeded",
        ):
            outcome.failures.append(f"operation status: {status.status_code} {status.text[:200]}")


def _plan(listings: list[Listing], calls: list[Call]) -> list[Listing | Call]:
    """Two listings for each call, interleaved, enough for :data:`REQUESTS` requests."""
    lists, writes = itertools.cycle(listings), itertools.cycle(calls)
    return [next(lists) if i % 3 else next(writes) for i in range(REQUESTS)]


async def _load(url: str, work: list[Listing | Call], clients: int, limit: int) -> Outcome:
    """``work`` sent by ``clients`` concurrent clients until ``limit`` requests were made."""
    outcome = Outcome()
    queue = iter(work)
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=30) as client:

        async def worker() -> None:
            while outcome.requests < limit:
                item = next(queue, None)
                if item is None:
                    return
                if isinstance(item, Listing):
                    ids = await _follow(client, item, outcome)
                    if ids is not None:
                        outcome.listed.setdefault(item, []).append(ids)
                else:
                    await _call(client, item, outcome)

        await asyncio.gather(*(worker() for _ in range(clients)))
    return outcome


def test_concurrent_mixed_load_has_no_errors_and_consistent_paging(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "estate.json"
    path.write_bytes(msgspec.json.encode(_big_estate()))
    listings, calls = _listings(), _calls()
    with (
        caplog.at_level(logging.WARNING),
        sandbox(
            load_snapshot(path), page_size=PAGE_SIZE, async_delay=0.05, persist_path=str(path)
        ) as server,
    ):
        quiet = asyncio.run(_load(server.url, list(listings), 1, 10**6))  # each once, alone
        quiet_ids = {listing: runs[0] for listing, runs in quiet.listed.items()}
        outcome = asyncio.run(_load(server.url, _plan(listings, calls), CLIENTS, REQUESTS))

    assert outcome.requests >= REQUESTS
    assert not [s for s in outcome.statuses if s >= 500], outcome.statuses
    assert outcome.failures == []
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [], [r.getMessage() for r in errors]
    for listing, runs in outcome.listed.items():
        expected = quiet_ids[listing]
        for ids in runs:
            assert len(ids) == len(set(ids)), f"{listing.path}: an item listed twice"
            if listing.growing:
                assert set(expected) <= set(ids), f"{listing.path}: an item lost"
            else:
                assert ids == expected, f"{listing.path}: paging under load differs"
    paged = [lst for lst in listings if len(quiet_ids[lst]) > PAGE_SIZE]
    assert len(paged) >= 6  # the load really pages: provider level, deny and events lists
    assert all(len(outcome.listed.get(lst, [])) >= 3 for lst in listings), {
        lst.path: len(runs) for lst, runs in outcome.listed.items()
    }
    # every change made under load was persisted (writes are coalesced, none is lost)
    saved = load_snapshot(path)
    assert saved.devTooling is not None and outcome.tokens
    assert set(outcome.tokens) <= {t.id for t in saved.devTooling.tokens}
    assert {f"load-{i}" for i in range(4)} <= {c.name for c in saved.clusters}
    assert {f"load-{i}" for i in range(4)} <= {d.name for d in saved.domains}
