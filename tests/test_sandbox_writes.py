"""Contract tests of the sandbox's write side over a real socket: cluster create and its
asynchronous operation (seed 4.3), domain create-or-update (4.4), the developer-tooling service
(4.7, 2.E, 5.2) and ``--persist``."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from auditor.estate.sample import compliant_cluster_body, compliant_domain_body
from auditor.estate.snapshot import load_snapshot
from auditor.model.defaults import SEED_API_VERSIONS
from auditor.sandbox import SandboxServer, create_app
from auditor.sandbox import store as store_module
from tests.test_sandbox_helpers import RG1, RG2, S1, S2, config, estate, estate_json, sandbox

V_CLUSTER = SEED_API_VERSIONS["clusters.create"]
V_DOMAIN = SEED_API_VERSIONS["domains.createOrUpdate"]
CLUSTERS = "/providers/Cloud.AnalyticsCluster/clusters"
DOMAINS = "/providers/Cloud.EventRouting/domains"
AUTH = {"Authorization": "Bearer t-user"}


@pytest.fixture
def server() -> Iterator[SandboxServer]:
    with sandbox() as s:
        yield s


def arm(server: SandboxServer) -> httpx.Client:
    return httpx.Client(base_url=server.url, headers=AUTH, timeout=10)


def dev(server: SandboxServer, token: str | None) -> httpx.Client:
    headers = {"X-API-Token": token} if token else {}
    return httpx.Client(base_url=server.url + "/v0.1", headers=headers, timeout=10)


def cluster_body(**changes: Any) -> dict[str, Any]:
    body = compliant_cluster_body("c1", sub="prod", rg="rg1")
    props = body["properties"]
    props["computeProfile"]["roles"] = [
        {
            "name": "headnode",
            "targetInstanceCount": 2,
            "hardwareProfile": {"vmSize": "Standard_D12_V2"},
            "osProfile": {
                "linuxOperatingSystemProfile": {
                    "username": "sshuser",
                    "password": "Secret-Pa55word!",
                    "sshProfile": {"publicKeys": [{"certificateData": "ssh-rsa AAAAB3Nza-KEY"}]},
                }
            },
        },
        {
            "name": "workernode",
            "targetInstanceCount": 3,
            "hardwareProfile": {"vmSize": "Large"},
            "osProfile": {"linuxOperatingSystemProfile": {"username": "sshuser"}},
        },
    ]
    props["clusterVersion"] = "5.1"
    props["storageProfile"] = {
        "storageaccounts": [
            {"name": "acct.blob", "isDefault": True, "container": "c", "key": "STORAGE-KEY-VALUE"}
        ]
    }
    props["clusterDefinition"]["configurations"] = {
        "gateway": {
            "restAuthCredential.isEnabled": True,
            "restAuthCredential.username": "admin",
            "restAuthCredential.password": "GATEWAY-PASSWORD",
        }
    }
    body.update(changes)
    return body


# --- 4.3 clusters ------------------------------------------------------------------------------


def test_cluster_create_answers_200_with_location_and_no_secrets(server: SandboxServer) -> None:
    path = f"{RG1}{CLUSTERS}/c1"
    with arm(server) as c:
        r = c.put(path, params={"api-version": V_CLUSTER}, json=cluster_body())
    assert r.status_code == 200, r.text
    location = r.headers["location"]
    assert re.fullmatch(
        re.escape(f"{server.url}{path}/azureasyncoperations/")
        + r"[0-9a-f-]{36}"
        + re.escape(f"?api-version={V_CLUSTER}"),
        location,
    )
    assert int(r.headers["retry-after"]) >= 0
    for secret in ("Secret-Pa55word!", "AAAAB3Nza-KEY", "STORAGE-KEY-VALUE", "GATEWAY-PASSWORD"):
        assert secret not in r.text
    cluster = r.json()
    assert (
        "configurations" not in json.dumps(cluster)
        and "storageProfile" not in cluster["properties"]
    )
    props = cluster["properties"]
    assert cluster["id"] == path and cluster["type"] == "Cloud.AnalyticsCluster/clusters"
    assert props["clusterVersion"] == "5.1.3000.0.2308052231"
    assert props["clusterDefinition"]["blueprint"].startswith("https://")
    assert props["clusterDefinition"]["componentVersion"]
    # 2 x standard_d12_v2 (4 cores) + 3 x Large -> standard_a4_v2 (4 cores)
    assert props["quotaInfo"]["coresUsed"] == 20
    roles = props["computeProfile"]["roles"]
    assert roles[0]["hardwareProfile"]["vmSize"] == "standard_d12_v2"
    assert roles[1]["hardwareProfile"]["vmSize"] == "standard_a4_v2"
    assert roles[0]["osProfile"] == {"linuxOperatingSystemProfile": {"username": "sshuser"}}
    endpoints = {e["name"]: e for e in props["connectivityEndpoints"]}
    assert set(endpoints) == {"SSH", "HTTPS"}
    assert {e["protocol"] for e in endpoints.values()} == {"TCP"}
    assert endpoints["SSH"]["port"] == 22 and endpoints["HTTPS"]["port"] == 443


def test_cluster_operation_runs_then_succeeds(server: SandboxServer) -> None:
    """Seed 3: the create response shows Succeeded/Running (so does a GET meanwhile); the operation
    at Location answers 202 while it runs and 200 Succeeded after (semantics 4)."""
    path = f"{RG1}{CLUSTERS}/c1"
    with arm(server) as c:
        r = c.put(path, params={"api-version": V_CLUSTER}, json=cluster_body())
        assert r.status_code == 200
        created = r.json()["properties"]
        assert created["provisioningState"] == "Succeeded"
        assert created["clusterState"] == "Running"
        assert r.headers["location"] == r.headers["azure-asyncoperation"]
        assert re.search(
            rf"{re.escape(path)}/azureasyncoperations/[0-9a-f-]+\?api-version={V_CLUSTER}$",
            r.headers["location"],
        )
        running = c.get(r.headers["location"])
        assert running.status_code == 202
        assert running.json()["status"] == "InProgress" and "retry-after" in running.headers
        shown = c.get(path, params={"api-version": V_CLUSTER}).json()["properties"]
        assert (shown["provisioningState"], shown["clusterState"]) == ("Succeeded", "Running")
        finished = running
        for _ in range(500):  # poll as a client does until the operation ends (0.2 s)
            finished = c.get(r.headers["location"])
            if finished.status_code != 202:
                break
            threading.Event().wait(0.01)
        assert finished.status_code == 200 and finished.json()["status"] == "Succeeded"
        state = c.get(path, params={"api-version": V_CLUSTER}).json()["properties"]
        assert state["provisioningState"] == "Succeeded" and state["clusterState"] == "Running"


def test_cluster_operation_done_at_once_with_zero_delay() -> None:
    with sandbox(async_delay=0.0) as server, arm(server) as c:
        r = c.put(f"{RG1}{CLUSTERS}/c1", params={"api-version": V_CLUSTER}, json=cluster_body())
        assert r.headers["retry-after"] == "0"
        assert r.json()["properties"]["provisioningState"] == "Succeeded"
        assert c.get(r.headers["location"]).status_code == 200


def test_cluster_get_and_lists(server: SandboxServer) -> None:
    with arm(server) as c:
        c.put(f"{RG1}{CLUSTERS}/c1", params={"api-version": V_CLUSTER}, json=cluster_body())
        c.put(
            f"{S1}/resourceGroups/rg9{CLUSTERS}/c9",
            params={"api-version": V_CLUSTER},
            json=cluster_body(),
        )
        one = c.get(f"{RG1}{CLUSTERS}/c1", params={"api-version": V_CLUSTER})
        assert one.status_code == 200 and one.json()["name"] == "c1"
        assert c.get(f"{RG1}{CLUSTERS}/nope", params={"api-version": V_CLUSTER}).status_code == 404
        by_rg = c.get(f"{RG1}{CLUSTERS}", params={"api-version": V_CLUSTER}).json()
        assert sorted(x["name"] for x in by_rg["value"]) == ["c1", "existing"]
        by_sub = c.get(f"{S1}{CLUSTERS}", params={"api-version": V_CLUSTER}).json()
        link = by_sub["nextLink"]  # page size 2: three clusters in sub1
        rest = c.get(link).json()
        assert sorted(x["name"] for x in by_sub["value"] + rest["value"]) == [
            "c1",
            "c9",
            "existing",
        ]
        assert c.get(f"{S2}{CLUSTERS}", params={"api-version": V_CLUSTER}).json() == {"value": []}


@pytest.mark.parametrize(
    ("body", "target"),
    [
        ({"properties": {}}, "location"),
        ({"location": 5}, "location"),
        (
            {"location": "westeurope", "properties": {"clusterVersion": 5.1}},
            "properties.clusterVersion",
        ),
        ({"location": "westeurope", "properties": {"osType": "Plan9"}}, "properties.osType"),
        (
            {
                "location": "westeurope",
                "properties": {
                    "clusterDefinition": {"kind": "spark"},
                    "computeProfile": {"roles": [{"name": "headnode", "targetInstanceCount": "2"}]},
                },
            },
            "properties.computeProfile.roles[0].targetInstanceCount",
        ),
        (
            {"location": "westeurope", "properties": {"clusterDefinition": {"kind": "spark"}}},
            "properties.computeProfile.roles",
        ),
    ],
)
def test_cluster_bad_bodies_are_400_naming_the_path(
    server: SandboxServer, body: dict[str, Any], target: str
) -> None:
    with arm(server) as c:
        r = c.put(f"{RG1}{CLUSTERS}/bad", params={"api-version": V_CLUSTER}, json=body)
    assert r.status_code == 400
    error = r.json()["error"]
    assert error["code"] == "InvalidRequestContent" and error["target"] == target
    assert target in error["message"]


def test_cluster_body_not_json_or_empty(server: SandboxServer) -> None:
    with arm(server) as c:
        for content in (b"", b"{not json", b"[1, 2]"):
            r = c.put(f"{RG1}{CLUSTERS}/bad", params={"api-version": V_CLUSTER}, content=content)
            assert r.status_code == 400 and r.json()["error"]["code"] == "InvalidRequestContent"


def test_cluster_secret_never_echoed_in_errors(server: SandboxServer) -> None:
    body = cluster_body()
    body["properties"]["computeProfile"]["roles"][0]["osProfile"]["linuxOperatingSystemProfile"][
        "password"
    ] = 12345
    with arm(server) as c:
        r = c.put(f"{RG1}{CLUSTERS}/bad", params={"api-version": V_CLUSTER}, json=body)
    assert r.status_code == 400
    assert "12345" not in r.text


# --- 4.4 domains -------------------------------------------------------------------------------


def test_domain_create_and_update_answer_201(server: SandboxServer) -> None:
    path = f"{RG2}{DOMAINS}/Dom1"
    with arm(server) as c:
        r = c.put(path, params={"api-version": V_DOMAIN}, json={"location": "westeurope"})
        assert r.status_code == 201, r.text
        created = r.json()
        props = created["properties"]
        assert props["provisioningState"] == "Succeeded"
        assert props["endpoint"] == "https://dom1.westeurope-1.eventrouting.example.net/api/events"
        assert (
            props["publicNetworkAccess"] == "Enabled"
            and props["inputSchema"] == "EventRoutingSchema"
        )
        assert props["metricResourceId"]
        assert created["systemData"]["createdBy"] == "aaaaaaaa-0000-4000-8000-000000000001"
        body = compliant_domain_body("westeurope")
        r2 = c.put(path, params={"api-version": V_DOMAIN}, json=body)
        assert r2.status_code == 201
        updated = r2.json()
        assert updated["systemData"]["createdAt"] == created["systemData"]["createdAt"]
        assert updated["properties"]["metricResourceId"] == props["metricResourceId"]
        assert (
            updated["properties"]["publicNetworkAccess"]
            == body["properties"]["publicNetworkAccess"]
        )
        got = c.get(path, params={"api-version": V_DOMAIN})
        assert got.status_code == 200 and got.json() == updated
        listed = c.get(f"{RG2}{DOMAINS}", params={"api-version": V_DOMAIN}).json()
        assert sorted(d["name"] for d in listed["value"]) == ["Dom1", "dom-existing"]


@pytest.mark.parametrize(
    ("body", "target"),
    [
        ({}, "location"),
        (
            {"location": "x", "properties": {"publicNetworkAccess": "Sometimes"}},
            "properties.publicNetworkAccess",
        ),
        (
            {
                "location": "x",
                "properties": {"inboundIpRules": [{"ipMask": "10.0.0.0/33", "action": "Allow"}]},
            },
            "properties.inboundIpRules[0].ipMask",
        ),
        (
            {"location": "x", "properties": {"minimumTlsVersionAllowed": "0.9"}},
            "properties.minimumTlsVersionAllowed",
        ),
        (
            {"location": "x", "properties": {"disableLocalAuth": "yes"}},
            "properties.disableLocalAuth",
        ),
        ({"location": "x", "identity": {"type": "Everyone"}}, "identity.type"),
    ],
)
def test_domain_bad_bodies_are_400_naming_the_path(
    server: SandboxServer, body: dict[str, Any], target: str
) -> None:
    with arm(server) as c:
        r = c.put(f"{RG2}{DOMAINS}/bad", params={"api-version": V_DOMAIN}, json=body)
    assert r.status_code == 400
    error = r.json()["error"]
    assert error["target"] == target and target in error["message"]


# --- 4.7 developer tooling ---------------------------------------------------------------------


def test_api_token_required_on_every_request(server: SandboxServer) -> None:
    for token in (None, "wrong"):
        with dev(server, token) as c:
            r = c.get("/user")
        assert r.status_code == 401
        assert r.json()["error"]["code"] == "Unauthorized"
        assert "wrong" not in r.text


def test_user_profile(server: SandboxServer) -> None:
    with dev(server, "v-user-ro") as c:
        r = c.get("/user")
    assert r.status_code == 200 and r.json()["email"] == "dev@example.com"


def test_writes_without_a_body_get_411(server: SandboxServer) -> None:
    with dev(server, "v-user-full") as c:
        r = c.post("/api_tokens")
        assert r.status_code == 411
        assert r.json()["error"]["code"] == "LengthRequired"
        assert c.post("/api_tokens", content=b"{}").status_code == 201


def test_read_only_tokens_cannot_write(server: SandboxServer) -> None:
    with dev(server, "v-user-ro") as c:
        assert c.post("/api_tokens", json={}).status_code == 403
        assert c.delete("/apps/devuser/app1/users/x@example.com").status_code == 403
        assert c.get("/api_tokens").status_code == 200
    with dev(server, "v-app2-ro") as c:
        assert (
            c.post("/apps/org1/app2/api_tokens", json={"accessType": "readOnly"}).status_code == 403
        )


def test_token_value_shown_once_stored_as_hash(server: SandboxServer) -> None:
    with dev(server, "v-user-full") as c:
        r = c.post("/api_tokens", json={"description": "new one", "accessType": "readOnly"})
        assert r.status_code == 201
        created = r.json()
        value = created["value"]
        assert (
            len(value) >= 32 and created["kind"] == "user" and created["accessType"] == "readOnly"
        )
        listed = c.get("/api_tokens").json()
    assert value not in json.dumps(listed)
    assert created["id"] in {t["id"] for t in listed}
    assert all(
        set(t) == {"id", "kind", "app", "accessType", "description", "createdAt"} for t in listed
    )
    store = server.sandbox.store
    token = store.token(created["id"])
    assert token is not None and value not in repr(token.model_dump())
    with dev(server, value) as c:
        assert c.get("/user").status_code == 200
        assert c.post("/api_tokens", json={}).status_code == 403  # it is read-only


def test_token_limit_per_account() -> None:
    with sandbox(max_api_tokens=6) as server, dev(server, "v-user-full") as c:
        assert c.post("/api_tokens", json={}).status_code == 201
        r = c.post("/api_tokens", json={})
        assert r.status_code == 400 and r.json()["error"]["code"] == "TokenLimitReached"


def test_app_token_rights(server: SandboxServer) -> None:
    with dev(server, "v-app1-full") as c:
        assert c.get("/api_tokens").status_code == 403  # user tokens need a user token
        assert c.get("/apps/devuser/app1/api_tokens").status_code == 200
        assert c.get("/apps/org1/app2/api_tokens").status_code == 404  # another app
        r = c.post("/apps/devuser/app1/api_tokens", json={"accessType": "full"})
        assert r.status_code == 201 and r.json()["app"] == "devuser/app1"
        assert [a["name"] for a in c.get("/apps").json()] == ["app1"]
    with dev(server, "v-user-full") as c:
        # a developer of app2 may create read-only app tokens, not full ones
        assert c.post("/apps/org1/app2/api_tokens", json={"accessType": "full"}).status_code == 403
        assert (
            c.post("/apps/org1/app2/api_tokens", json={"accessType": "readOnly"}).status_code == 201
        )
        assert c.post("/apps/org1/app2/api_tokens", json={"accessType": "sudo"}).status_code == 400


def test_remove_app_user(server: SandboxServer) -> None:
    with dev(server, "v-user-full") as c:
        assert c.delete("/apps/org1/app2/users/y@example.com").status_code == 403  # developer there
        r = c.delete("/apps/devuser/app1/users/x%40example.com")
        assert r.status_code == 204 and r.content == b""
        assert c.delete("/apps/devuser/app1/users/x@example.com").status_code == 404
        users = c.get("/apps/devuser/app1/users").json()
        assert [u["email"] for u in users] == ["dev@example.com"]
        assert c.delete("/apps/nobody/none/users/x@example.com").status_code == 404


# --- persistence -------------------------------------------------------------------------------


def test_persist_writes_changes_back_atomically(tmp_path: Path) -> None:
    path = tmp_path / "estate.json"
    path.write_bytes(msgspec.json.encode(estate_json()))
    snapshot = load_snapshot(path)
    with sandbox(snapshot, persist_path=str(path)) as server:
        with arm(server) as c:
            r = c.put(
                f"{RG2}{DOMAINS}/persisted",
                params={"api-version": V_DOMAIN},
                json={"location": "x"},
            )
            assert r.status_code == 201
        with dev(server, "v-user-full") as c:
            created = c.post("/api_tokens", json={"description": "kept"}).json()
        assert sorted(p.name for p in tmp_path.iterdir()) == ["estate.json"]  # no temp files left
    again = load_snapshot(path)
    assert "persisted" in {d.name for d in again.domains}
    assert again.devTooling is not None
    kept = [t for t in again.devTooling.tokens if t.id == created["id"]]
    assert kept and created["value"] not in path.read_text()
    # the persisted token still works after a restart (its digest is kept)
    with sandbox(again, api_tokens={}) as server, dev(server, created["value"]) as c:
        assert c.get("/user").status_code == 200


def test_oversized_bodies_are_refused() -> None:
    with sandbox(max_body_bytes=64) as server, arm(server) as c:
        r = c.put(
            f"{RG2}{DOMAINS}/big", params={"api-version": V_DOMAIN}, json={"location": "x" * 100}
        )
    assert r.status_code == 413 and r.json()["error"]["code"] == "RequestTooLarge"


def test_persist_failure_is_a_json_500_and_the_change_is_kept(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    with sandbox(persist_path=str(blocker / "estate.json")) as server, arm(server) as c:
        r = c.put(
            f"{RG2}{DOMAINS}/unsaved", params={"api-version": V_DOMAIN}, json={"location": "x"}
        )
        assert r.status_code == 500
        assert r.json()["error"]["code"] == "PersistFailed"
        assert "could not be saved" in r.json()["error"]["message"]
        got = c.get(f"{RG2}{DOMAINS}/unsaved", params={"api-version": V_DOMAIN})
        assert got.status_code == 200


# --- hostile bodies and unforeseen errors ------------------------------------------------------


def _nested(depth: int) -> bytes:
    """A domain body whose ``properties.x`` holds objects nested ``depth`` levels below the body."""
    inner = b'{"a":' * (depth - 2) + b"1" + b"}" * (depth - 2)
    return b'{"location":"x","properties":{"x":' + inner + b"}}"


@pytest.mark.parametrize(
    ("method", "path", "token", "code"),
    [
        ("PUT", f"{RG1}{CLUSTERS}/deep?api-version={V_CLUSTER}", None, "InvalidRequestContent"),
        ("PUT", f"{RG2}{DOMAINS}/deep?api-version={V_DOMAIN}", None, "InvalidRequestContent"),
        ("POST", "/v0.1/api_tokens", "v-user-full", "BadRequest"),
    ],
)
@pytest.mark.parametrize("depth", [65, 1_000, 100_000])
def test_deeply_nested_bodies_are_a_json_400(
    server: SandboxServer, method: str, path: str, token: str | None, code: str, depth: int
) -> None:
    headers = {"X-API-Token": token} if token else AUTH
    r = httpx.request(method, server.url + path, content=_nested(depth), headers=headers)
    assert r.status_code == 400
    assert r.headers["content-type"].startswith("application/json")
    error = r.json()["error"]
    assert error["code"] == code and "nested more than 64 levels deep" in error["message"]
    if depth == 65:  # decoded, then measured: the path of the first level too deep
        assert error["message"].startswith("The request content is invalid at properties.x.a.a")


@pytest.mark.parametrize(
    "body",
    [
        b'{"location": "\xff\xfe"}',
        b'{"location": "westeurope", "properties": {"a": "\xed\xa0\x80"}}',  # a surrogate
        b'{"location": "westeurope", "tags": {"\xc3": "x"}}',
    ],
)
def test_a_body_that_is_not_utf8_is_a_json_400(server: SandboxServer, body: bytes) -> None:
    r = httpx.put(
        f"{server.url}{RG2}{DOMAINS}/notutf8",
        params={"api-version": V_DOMAIN},
        content=body,
        headers=AUTH,
    )
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert error["code"] == "InvalidRequestContent" and "not valid UTF-8" in error["message"]


def test_nesting_up_to_the_limit_is_accepted(server: SandboxServer) -> None:
    r = httpx.put(
        f"{server.url}{RG2}{DOMAINS}/deep64",
        params={"api-version": V_DOMAIN},
        content=_nested(64),
        headers=AUTH,
    )
    assert r.status_code == 201, r.text


def test_an_unforeseen_error_is_a_json_500_without_traceback(
    server: SandboxServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ZeroDivisionError("a defect")

    monkeypatch.setattr(server.sandbox.store, "health_events", broken)
    monkeypatch.setattr(server.sandbox.store, "domain", broken)
    with caplog.at_level("ERROR", logger="auditor.sandbox"), arm(server) as c:
        events = c.get(
            f"{S1}/providers/Cloud.ResourceHealth/events", params={"api-version": "2024-02-01"}
        )
        domain = c.get(f"{RG2}{DOMAINS}/dom-existing", params={"api-version": V_DOMAIN})
    assert events.status_code == 500 and domain.status_code == 500
    flat = events.json()  # area D's error shape
    assert flat["code"] == "InternalServerError" and set(flat) == {"code", "message", "details"}
    error = domain.json()["error"]
    assert error["code"] == "InternalServerError"
    reference = re.search(r"reference ([0-9a-f]{12})", error["message"])
    assert reference is not None
    for r in (events, domain):
        assert "Traceback" not in r.text and "a defect" not in r.text
        assert "ZeroDivisionError" not in r.text
    logged = [rec for rec in caplog.records if rec.name == "auditor.sandbox"]
    assert len(logged) == 2 and reference.group(1) in logged[1].getMessage()
    assert all(rec.exc_info is None for rec in logged)


def test_concurrent_persisted_writes_are_coalesced_and_none_is_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "estate.json"
    path.write_bytes(msgspec.json.encode(estate_json()))
    writes: list[int] = []
    real_write = vars(store_module)["write_atomic"]

    def counting(*args: Any, **kwargs: Any) -> None:
        writes.append(1)
        real_write(*args, **kwargs)

    monkeypatch.setattr(store_module, "write_atomic", counting)
    app = create_app(estate(), config(persist_path=str(path)))

    async def main() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://sandbox") as c:
            return await asyncio.gather(
                *(
                    c.post(
                        "/v0.1/api_tokens",
                        json={"description": f"t{i}"},
                        headers={"X-API-Token": "v-user-full"},
                    )
                    for i in range(20)
                )
            )

    answers = asyncio.run(main())
    assert [r.status_code for r in answers] == [201] * 20
    saved = load_snapshot(path)
    assert saved.devTooling is not None
    assert {r.json()["id"] for r in answers} <= {t.id for t in saved.devTooling.tokens}
    assert 1 <= len(writes) < 20
