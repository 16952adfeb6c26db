"""``apply_plan`` against the sandbox: the plan's PUTs sent in order, secrets revealed (and references
resolved) only in the bodies sent, each asynchronous operation followed to its end, final states
returned without secrets."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import msgspec
import pytest

from auditor.api import ClientSettings, ResourceManagerClient, RetryPolicy
from auditor.api.apply import ApplyPreflightError, ApplyResult, apply_plan, run_apply
from auditor.estate.plan import Plan, loads_plan
from auditor.estate.sample import sample_plans, sample_snapshot
from tests.test_sandbox_helpers import sandbox

FAST = ClientSettings(
    retry=RetryPolicy(attempts=3, backoff=0.001, retry_after_max=0.01),
    poll_interval=0.01,
    poll_interval_max=0.05,
)

SECRETS = {
    "GATEWAY_PASSWORD": "gw-Secret-1",
    "OOZIE_DB_PASSWORD": "oozie-Secret-2",
    "SHARED_LOGS_STORAGE_KEY": "logs-Secret-3",
    "AMBARI_DB_PASSWORD": "ambari-Secret-4",
    "PASSWORD": "node-Secret-5",
    "STORAGE_KEY": "storage-Secret-6",
    "NIGHTLY_STORAGE_KEY": "nightly-Secret-7",
    "NODE_PASSWORD": "node-Secret-8",
}


class Recording(httpx.AsyncHTTPTransport):
    def __init__(self) -> None:
        super().__init__()
        self.sent: list[tuple[str, str, bytes]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        self.sent.append((request.method, request.url.path, body))
        return await super().handle_async_request(request)


def plan(name: str) -> Plan:
    return loads_plan(msgspec.json.encode(sample_plans()[name]), source=name)


def apply(url: str, the_plan: Plan, **kwargs: Any) -> tuple[list[ApplyResult], Recording]:
    recording = Recording()

    async def go() -> list[ApplyResult]:
        async with ResourceManagerClient(url, "t-sandbox-reader", FAST, transport=recording) as api:
            return await apply_plan(the_plan, api, **kwargs)

    return asyncio.run(go()), recording


def test_compliant_plan_is_applied_and_followed_to_the_end() -> None:
    the_plan = plan("compliant-plan")
    with sandbox(sample_snapshot(), async_delay=0.1, api_tokens={}) as server:
        results, recording = apply(server.url, the_plan, secrets=SECRETS)
        state = server.sandbox.store
        assert all(state.cluster(r.resource_id) or state.domain(r.resource_id) for r in results)
    assert [r.status for r in results] == ["succeeded", "succeeded"]
    assert [r.kind for r in results] == ["domain", "cluster"]
    cluster = results[1]
    assert cluster.operation_status == "Succeeded" and cluster.provisioning_state == "Succeeded"
    assert (
        cluster.resource is not None
        and cluster.resource["id"].lower() == cluster.resource_id.lower()
    )
    puts = [body for method, _, body in recording.sent if method == "PUT"]
    assert len(puts) == 2
    sent = b"".join(puts).decode()
    for value in ("gw-Secret-1", "node-Secret-5", "storage-Secret-6", "ambari-Secret-4"):
        assert value in sent  # revealed into the request body ...
    assert "${" not in sent and "<PASSWORD>" not in sent
    shown = json.dumps([r.to_wire() for r in results])
    for value in SECRETS.values():
        assert value not in shown  # ... and nowhere else
    polls = [path for method, path, _ in recording.sent if "azureasyncoperations" in path]
    assert polls  # the operation was followed


def test_unresolved_secret_reference_fails_before_sending() -> None:
    the_plan = plan("compliant-plan")
    with (
        sandbox(sample_snapshot(), api_tokens={}) as server,
        pytest.raises(ApplyPreflightError) as caught,
    ):
        try:
            apply(server.url, the_plan, secrets={})
        finally:  # nothing at all was sent, not even the domain that holds no secret
            store = server.sandbox.store
            assert not any(
                store.cluster(r.resource_id) or store.domain(r.resource_id)
                for r in the_plan.requests
            )
    assert caught.value.problems and all("has no value" in p for p in caught.value.problems)


def test_a_rejected_request_fails_and_the_rest_are_skipped_or_sent() -> None:
    the_plan = plan("risky-plan")
    with sandbox(sample_snapshot(), async_delay=0.0, api_tokens={}) as server:
        stopped, _ = apply(server.url, the_plan, secrets=SECRETS)
        going_on, _ = apply(server.url, the_plan, secrets=SECRETS, stop_on_failure=False)
    assert stopped[0].status == "failed" and stopped[0].http_status == 400
    assert "InvalidApiVersionParameter" in (stopped[0].error or "")
    assert {r.status for r in stopped[1:]} == {"skipped"}
    # 0: api-version 2021-12-01; 2: an inbound IP rule with action Deny (IpActionType is Allow
    # only); 3: api-version 2023-04-15-preview
    assert [r.status for r in going_on] == ["failed", "succeeded", "failed", "failed", "succeeded"]
    assert "properties.inboundIpRules[2].action" in (going_on[2].error or "")
    wire = going_on[1].to_wire()
    assert set(wire) == {
        "index",
        "kind",
        "resourceId",
        "status",
        "httpStatus",
        "operationStatus",
        "provisioningState",
        "resource",
        "error",
    }


def test_run_apply_for_synchronous_callers() -> None:
    the_plan = plan("compliant-plan")
    with sandbox(sample_snapshot(), async_delay=0.0, api_tokens={}) as server:
        results = run_apply(
            the_plan, server.url, "t-sandbox-reader", settings=FAST, secrets=SECRETS
        )
    assert [r.status for r in results] == ["succeeded", "succeeded"]
