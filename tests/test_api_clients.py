"""The httpx clients: paging (URL, path or bare token; foreign host, repeated link), credentials
kept to the configured host, retries against every fault mode of the sandbox (nothing lost, bounded
time), Retry-After, the 411 rule, asynchronous operations, bounded concurrency."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx
import pytest

from auditor.api import (
    ApiError,
    ClientSettings,
    DevToolingClient,
    ForeignHostError,
    PagingError,
    ResourceManagerClient,
    RetryPolicy,
)
from auditor.api._transport import Credential, _HeaderCredential, parse_retry_after
from auditor.estate.sample import compliant_cluster_body
from auditor.model.secrets import Secret
from auditor.sandbox import FaultConfig
from tests.test_sandbox_helpers import RG1, S1, USER, sandbox

T = TypeVar("T")

FAST = ClientSettings(
    timeout=5,
    retry=RetryPolicy(attempts=6, backoff=0.001, backoff_max=0.01, retry_after_max=0.01),
    poll_interval=0.01,
    poll_interval_max=0.02,
)


def run(factory: Callable[[], Awaitable[T]]) -> T:
    return asyncio.run(factory())  # type: ignore[arg-type]


def mock_client(
    handler: Callable[[httpx.Request], httpx.Response],
    settings: ClientSettings = FAST,
    base_url: str = "https://api.example.test",
) -> ResourceManagerClient:
    return ResourceManagerClient(
        base_url, Secret("sekret-token"), settings, transport=httpx.MockTransport(handler)
    )


# --- paging ------------------------------------------------------------------------------------


def test_paging_follows_absolute_next_links_from_the_sandbox() -> None:
    async def main() -> list[dict[str, Any]]:
        with sandbox() as server:
            async with ResourceManagerClient(server.url, "t-sandbox-reader", FAST) as api:
                return await api.access.list_role_assignments("/")

    items = run(main)
    assert len(items) == 8 and len({i["id"] for i in items}) == 8


def test_paging_accepts_a_bare_skip_token_and_a_path() -> None:
    seen: list[httpx.URL] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url)
        token = request.url.params.get("$skipToken")
        if request.url.path == "/elsewhere":
            return httpx.Response(200, json={"value": [{"id": "c"}]})
        if token is None:
            return httpx.Response(200, json={"value": [{"id": "a"}], "nextLink": "tok-1"})
        return httpx.Response(200, json={"value": [{"id": "b"}], "nextLink": "/elsewhere?x=1"})

    async def main() -> list[dict[str, Any]]:
        async with mock_client(handler) as api:
            return await api.access.list_role_assignments("/", filter="atScope()")

    assert [i["id"] for i in run(main)] == ["a", "b", "c"]
    second = seen[1]
    assert second.params["$skipToken"] == "tok-1"
    assert second.params["$filter"] == "atScope()" and second.params["api-version"] == "2022-04-01"
    assert seen[2].host == "api.example.test"


def test_next_link_to_another_host_is_refused_without_sending_anything() -> None:
    hosts: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        hosts.append(request.url.host)
        return httpx.Response(
            200, json={"value": [], "nextLink": "https://evil.example.test/steal?x=1"}
        )

    async def main() -> None:
        async with mock_client(handler) as api:
            await api.access.list_role_assignments("/")

    with pytest.raises(ForeignHostError) as info:
        run(main)
    assert hosts == ["api.example.test"]
    assert "sekret-token" not in str(info.value)


def test_same_host_other_port_or_scheme_is_foreign() -> None:
    for link in ("https://api.example.test:8443/x", "http://api.example.test/x"):

        def handler(request: httpx.Request, link: str = link) -> httpx.Response:
            return httpx.Response(200, json={"value": [], "nextLink": link})

        async def main(handler: Callable[[httpx.Request], httpx.Response] = handler) -> None:
            async with mock_client(handler) as api:
                await api.access.list_role_assignments("/")

        with pytest.raises(ForeignHostError):
            run(main)


def test_repeated_next_link_and_missing_value_stop_paging() -> None:
    def looping(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"value": [{"id": "x"}], "nextLink": "same"})

    def no_value(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"items": []})

    for handler, words in ((looping, "same nextLink"), (no_value, "no 'value'")):

        async def main(handler: Callable[[httpx.Request], httpx.Response] = handler) -> None:
            async with mock_client(handler) as api:
                await api.access.list_role_assignments("/")

        with pytest.raises(PagingError) as info:
            run(main)
        assert words in str(info.value)


# --- credentials -------------------------------------------------------------------------------


def test_credential_header_only_for_the_configured_origin() -> None:
    auth = _HeaderCredential("Authorization", "Bearer x", ("https", "api.example.test", 443))
    for url, expected in (
        ("https://api.example.test/a", "Bearer x"),
        ("https://API.example.test:443/a", "Bearer x"),
        ("https://evil.example.test/a", None),
        ("http://api.example.test/a", None),
    ):
        request = httpx.Request("GET", url)
        next(auth.auth_flow(request))
        assert request.headers.get("Authorization") == expected


def test_tokens_never_in_reprs_or_errors() -> None:
    assert "sekret" not in repr(Credential.bearer("sekret"))

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["Authorization"] == "Bearer sekret-token"
        return httpx.Response(
            401, json={"error": {"code": "InvalidAuthenticationToken", "message": "no"}}
        )

    async def main() -> None:
        async with mock_client(handler) as api:
            await api.access.list_deny_assignments("sub")

    with pytest.raises(ApiError) as info:
        run(main)
    assert info.value.status == 401 and info.value.code == "InvalidAuthenticationToken"
    assert "sekret" not in str(info.value)


# --- retries -----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["429", "500", "503", "slow"])
def test_every_fault_mode_is_retried_and_nothing_is_lost(kind: str) -> None:
    faults = FaultConfig(rate=0.6, kinds=(kind,), seed=7, max_consecutive=3, slow_delay=0.5)  # type: ignore[arg-type]
    settings = (
        FAST
        if kind != "slow"
        else ClientSettings(timeout=0.15, retry=FAST.retry, poll_interval=0.01)
    )

    async def main() -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
        with sandbox(faults=faults) as server:
            async with ResourceManagerClient(server.url, "t-sandbox-reader", settings) as api:
                ras = await api.access.list_role_assignments("/")
                das = await api.access.list_deny_assignments(S1)
                return ras, das, api.transport.retries

    started = time.perf_counter()
    ras, das, retries = run(main)
    assert len(ras) == 8 and len({r["id"] for r in ras}) == 8
    assert sorted(d["name"] for d in das) == ["da-all", "da-other", "da-root"]
    assert retries > 0
    assert time.perf_counter() - started < 15


def test_retries_are_bounded_and_then_fail_with_the_status() -> None:
    faults = FaultConfig(rate=1.0, kinds=("503",), max_consecutive=0)

    async def main() -> None:
        with sandbox(faults=faults) as server:
            async with ResourceManagerClient(server.url, "t-sandbox-reader", FAST) as api:
                try:
                    await api.access.list_role_assignments("/")
                finally:
                    assert api.transport.requests == FAST.retry.attempts

    started = time.perf_counter()
    with pytest.raises(ApiError) as info:
        run(main)
    assert info.value.status == 503 and info.value.code == "ServiceUnavailable"
    assert time.perf_counter() - started < 10


def test_retry_after_is_honoured_up_to_its_cap() -> None:
    calls: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(time.perf_counter())
        if len(calls) == 1:
            return httpx.Response(429, headers={"Retry-After": "0.3"}, json={})
        return httpx.Response(200, json={"value": []})

    honouring = ClientSettings(retry=RetryPolicy(backoff=0.001, retry_after_max=5.0))

    async def main(settings: ClientSettings) -> None:
        async with mock_client(handler, settings) as api:
            await api.access.list_role_assignments("/")

    asyncio.run(main(honouring))
    assert calls[1] - calls[0] >= 0.29
    calls.clear()
    asyncio.run(main(FAST))  # capped at 0.01 s
    assert calls[1] - calls[0] < 0.25


def test_backoff_grows_exponentially_with_jitter() -> None:
    import random

    policy = RetryPolicy(backoff=1.0, backoff_max=8.0, jitter=0.25)
    rng = random.Random(1)
    delays = [policy.delay(n, None, rng) for n in range(1, 6)]
    for n, delay in enumerate(delays, start=1):
        base = min(8.0, 2 ** (n - 1))
        assert 0.75 * base <= delay <= 1.25 * base
    assert policy.delay(1, 3.0, rng) == 3.0
    assert parse_retry_after("2") == 2.0 and parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0


def test_post_is_retried_on_429_but_not_on_500() -> None:
    statuses = iter([429, 201, 500])
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.method)
        status = next(statuses)
        body = (
            {"id": "t", "value": "v"} if status == 201 else {"error": {"code": "x", "message": "y"}}
        )
        return httpx.Response(status, json=body)

    async def main() -> None:
        async with DevToolingClient(
            "https://dev.example.test", "tok", FAST, transport=httpx.MockTransport(handler)
        ) as dev:
            meta, value = await dev.create_user_token("a")
            assert meta == {"id": "t"} and value.reveal() == "v"
            with pytest.raises(ApiError):
                await dev.create_user_token("b")

    run(main)
    assert seen == ["POST", "POST", "POST"]


# --- developer tooling: 411 rule ---------------------------------------------------------------


def test_devtooling_client_always_sends_a_body_on_writes() -> None:
    bodies: list[tuple[str, bytes, str | None]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        bodies.append((request.method, request.content, request.headers.get("X-API-Token")))
        return httpx.Response(200, json={})

    async def main() -> None:
        async with DevToolingClient(
            "https://dev.example.test", Secret("tok"), FAST, transport=httpx.MockTransport(handler)
        ) as dev:
            await dev._call("POST", "/anything")
            await dev._call("PATCH", "/anything")
            await dev.get_user()

    run(main)
    assert bodies[0] == ("POST", b"{}", "tok")
    assert bodies[1] == ("PATCH", b"{}", "tok")
    assert bodies[2] == ("GET", b"", "tok")


def test_devtooling_client_against_the_sandbox() -> None:
    async def main() -> None:
        with sandbox() as server:
            async with DevToolingClient(server.url, "v-user-full", FAST) as dev:
                assert (await dev.get_user())["name"] == "devuser"
                meta, value = await dev.create_user_token("from a test", "readOnly")
                assert meta["accessType"] == "readOnly" and value.reveal()
                assert str(value) != value.reveal()
                assert meta["id"] in {t["id"] for t in await dev.list_user_tokens()}
                await dev.remove_app_user("devuser", "app1", "x@example.com")
                users = await dev.list_app_users("devuser", "app1")
                assert [u["email"] for u in users] == ["dev@example.com"]
            async with DevToolingClient(server.url, "v-user-ro", FAST) as dev:
                with pytest.raises(ApiError) as info:
                    await dev.create_user_token()
                assert info.value.status == 403

    run(main)


# --- asynchronous operations -------------------------------------------------------------------


def test_cluster_create_is_followed_to_its_end() -> None:
    async def main() -> None:
        with sandbox(async_delay=0.2) as server:
            async with ResourceManagerClient(server.url, "t-user", FAST) as api:
                body = compliant_cluster_body("c7", sub="prod", rg="rg1")
                accepted = await api.clusters.create_or_update(S1, "rg1", "c7", body)
                assert accepted.operation is not None
                # seed 3: the create response shows the final state; the operation still runs
                assert accepted.resource["properties"]["provisioningState"] == "Succeeded"
                result = await api.clusters.wait(accepted)
                assert result.succeeded and result.polls >= 2
                cluster = await api.clusters.get(S1, "rg1", "c7")
                assert cluster["properties"]["provisioningState"] == "Succeeded"
                listed = await api.clusters.list_resources(S1, "rg1")
                assert {c["name"] for c in listed} == {"c7", "existing"}

    run(main)


def test_operation_that_never_ends_times_out() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "PUT":
            return httpx.Response(200, json={}, headers={"Location": "/op/1", "Retry-After": "0"})
        return httpx.Response(202, json={"status": "InProgress"}, headers={"Retry-After": "0"})

    settings = ClientSettings(operation_timeout=0.1, poll_interval=0.01, poll_interval_max=0.01)

    async def main() -> None:
        async with mock_client(handler, settings) as api:
            accepted = await api.domains.put(f"{RG1}/providers/Cloud.EventRouting/domains/d", {})
            await api.domains.wait(accepted)

    from auditor.api import OperationError

    with pytest.raises(OperationError):
        run(main)


# --- concurrency -------------------------------------------------------------------------------


def test_requests_in_flight_never_exceed_the_bound() -> None:
    in_flight = 0
    peak = 0

    async def handler(request: httpx.Request) -> httpx.Response:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.01)
        in_flight -= 1
        return httpx.Response(200, json={"value": [{"id": request.url.path}]})

    settings = ClientSettings(concurrency=3)

    async def main() -> None:
        transport = httpx.MockTransport(handler)  # type: ignore[arg-type]
        async with ResourceManagerClient(
            "https://api.example.test", "t", settings, transport=transport
        ) as api:
            scopes = [f"/subscriptions/s{i}" for i in range(12)]
            results = await asyncio.gather(*(api.access.list_role_assignments(s) for s in scopes))
            assert len(results) == 12

    run(main)
    assert peak == 3


def test_principal_filter_through_the_client() -> None:
    async def main() -> list[dict[str, Any]]:
        with sandbox() as server:
            async with ResourceManagerClient(server.url, "t-sandbox-reader", FAST) as api:
                return await api.access.list_role_assignments(S1, filter=f"principalId eq '{USER}'")

    assert sorted(i["name"] for i in run(main)) == ["ra-sub1", "ra-vm1"]
