"""``collect`` against the sandbox: exactly the records of the estate, complete or clearly marked
incomplete (exit 3), written atomically and never over an existing file without ``--force``; and a
property test over random small estates and page sizes."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.api import ClientSettings, DevToolingClient, ResourceManagerClient, RetryPolicy
from auditor.api.collect import CollectResult, collect, write_snapshot
from auditor.cli import main
from auditor.errors import IncompleteError
from auditor.estate.snapshot import Snapshot, load_snapshot, loads_snapshot
from auditor.sandbox import FaultConfig
from tests.test_sandbox_helpers import S1, S2, SUB1, SUB2, TENANT, estate, sandbox

FAST = ClientSettings(timeout=5, retry=RetryPolicy(attempts=4, backoff=0.001, retry_after_max=0.01))


def run_collect(url: str, subs: list[str], **kwargs: Any) -> CollectResult:
    api_token = kwargs.pop("api_token", None)

    async def go() -> CollectResult:
        async with ResourceManagerClient(url, "t-sandbox-reader", FAST) as api:
            if api_token is None:
                return await collect(api, subs, **kwargs)
            async with DevToolingClient(url, api_token, FAST) as dev:
                return await collect(api, subs, devtooling=dev, **kwargs)

    return asyncio.run(go())


def by_id(records: list[Any]) -> dict[str, Any]:
    return {r.id.lower(): r for r in records}


def test_collect_returns_exactly_the_records_of_the_estate() -> None:
    original = estate()
    with sandbox(original) as server:
        result = run_collect(server.url, [SUB1, S2], api_token="v-user-full")
    assert result.complete and result.requests > 0
    snap = result.snapshot
    expected_ras = {
        k: v for k, v in by_id(original.roleAssignments).items() if "ra-mg-empty" not in k
    }
    assert by_id(snap.roleAssignments) == expected_ras  # mg-empty is above neither subscription
    assert by_id(snap.denyAssignments) == by_id(original.denyAssignments)
    assert by_id(snap.healthEvents) == by_id(original.healthEvents)
    assert by_id(snap.clusters) == by_id(original.clusters)
    assert by_id(snap.domains) == by_id(original.domains)
    assert snap.hierarchy == [] and snap.principals == [] and snap.roleDefinitions == []
    assert snap.devTooling is not None and original.devTooling is not None
    assert snap.devTooling.user == original.devTooling.user
    assert [a.to_wire() for a in snap.devTooling.apps] == [
        a.to_wire() for a in original.devTooling.apps
    ]
    assert sorted(t.id or "" for t in snap.devTooling.tokens) == sorted(
        t.id or "" for t in original.devTooling.tokens
    )
    assert "incomplete" not in snap.extra


def test_collect_provider_level_and_directory() -> None:
    original = estate()
    directory = estate()
    with sandbox(original) as server:
        result = run_collect(server.url, [SUB1], role_assignments="provider", directory=directory)
    snap = result.snapshot
    assert by_id(snap.roleAssignments) == by_id(original.roleAssignments)  # the whole tenant
    assert snap.tenantId == TENANT
    assert snap.hierarchy == original.hierarchy and snap.principals == original.principals
    assert sorted(e.name or "" for e in snap.healthEvents) == ["EV1", "EV2", "EV3", "EV4"]


def test_a_part_that_fails_is_marked_incomplete_and_exits_3(tmp_path: Path) -> None:
    faults = FaultConfig(rate=1.0, kinds=("500",), max_consecutive=0, only="/denyAssignments")
    with sandbox(faults=faults) as server:
        result = run_collect(server.url, [SUB1, SUB2])
    assert not result.complete
    assert [f.what for f in result.incomplete] == [
        f"denyAssignments of {S1}",
        f"denyAssignments of {S2}",
    ]
    assert "HTTP 500" in result.incomplete[0].error
    assert len(result.snapshot.roleAssignments) == 7  # the rest is there
    out = tmp_path / "estate.json"
    with pytest.raises(IncompleteError) as info:
        write_snapshot(result, out, force=False)
    assert info.value.exit_code == 3 and "denyAssignments of" in str(info.value)
    written = json.loads(out.read_text())
    assert written["incomplete"][0]["what"] == f"denyAssignments of {S1}"
    assert written["denyAssignments"] == []
    assert load_snapshot(out).extra["incomplete"]


def test_collect_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "collected.json"
    with sandbox() as server:
        argv = [
            "collect",
            "--base-url",
            server.url,
            "--subscription",
            SUB1,
            "--subscription",
            SUB2,
            "--out",
            str(out),
            "--retries",
            "1",
        ]
        monkeypatch.delenv("AUDITOR_TOKEN", raising=False)
        monkeypatch.delenv("AUDITOR_API_TOKEN", raising=False)
        assert main(argv) == 2  # no token in the environment
        assert not out.exists()
        monkeypatch.setenv("AUDITOR_TOKEN", "t-sandbox-reader")
        assert main(argv) == 0
        captured = capsys.readouterr()
        assert "roleAssignments 7" in captured.out
        assert "not served by the seed's API" in captured.err
        assert "t-sandbox-reader" not in captured.out + captured.err
        first = out.read_bytes()
        assert len(load_snapshot(out).roleAssignments) == 7
        assert main(argv) == 2  # refuses to overwrite
        assert out.read_bytes() == first
        monkeypatch.setenv("OTHER_VAR", "t-sandbox-reader")
        monkeypatch.setenv("AUDITOR_API_TOKEN", "v-user-full")
        assert main([*argv, "--force", "--token-env", "OTHER_VAR"]) == 0
        again = load_snapshot(out)
        assert again.devTooling is not None and len(again.devTooling.apps) == 2
        assert len(again.devTooling.tokens) == 5
        # a read-only token sees the apps but not their tokens: that part is incomplete
        monkeypatch.setenv("AUDITOR_API_TOKEN", "v-user-ro")
        assert main([*argv, "--force"]) == 3
        assert "devTooling API tokens of app" in capsys.readouterr().err
        monkeypatch.setenv("AUDITOR_TOKEN", "t-wrong")
        assert main([*argv, "--force"]) == 3  # every part answered 401
        assert "incomplete" in json.loads(out.read_text())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["collected.json"]


def test_collect_command_refuses_plain_http_elsewhere(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("AUDITOR_TOKEN", "x")
    argv = [
        "collect",
        "--base-url",
        "http://api.example.test",
        "--subscription",
        SUB1,
        "--out",
        str(tmp_path / "x.json"),
    ]
    assert main(argv) == 2


# --- property: random small estates and page sizes ---------------------------------------------

_GUIDS = st.uuids().map(str)


@st.composite
def estates(draw: st.DrawFn) -> tuple[dict[str, Any], list[str]]:
    subs = draw(st.lists(_GUIDS, min_size=1, max_size=3, unique=True))
    mgs = [
        f"/providers/Cloud.Management/managementGroups/mg{i}"
        for i in range(draw(st.integers(0, 2)))
    ]
    hierarchy = []
    for i, mg in enumerate(mgs):
        parent = draw(st.sampled_from(["/", *mgs[:i]]))
        hierarchy.append({"id": mg, "parent": parent})
    for sub in subs:
        if mgs and draw(st.booleans()):
            hierarchy.append({"id": f"/subscriptions/{sub}", "parent": draw(st.sampled_from(mgs))})
    scopes = ["/", *mgs]
    for sub in subs:
        scopes += [
            f"/subscriptions/{sub}",
            f"/subscriptions/{sub}/resourceGroups/rg",
            f"/subscriptions/{sub}/resourceGroups/rg/providers/Cloud.Compute/virtualMachines/vm",
        ]
    principals = draw(st.lists(_GUIDS, min_size=1, max_size=3, unique=True))
    ras = []
    for i in range(draw(st.integers(0, 12))):
        scope = draw(st.sampled_from(scopes))
        ras.append(
            {
                "id": f"{scope.rstrip('/')}/providers/Cloud.Authorization/roleAssignments/ra{i}",
                "name": f"ra{i}",
                "properties": {
                    "scope": scope,
                    "principalId": draw(st.sampled_from(principals)),
                    "roleDefinitionId": "/providers/Cloud.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7",
                    "description": draw(st.none() | st.text(max_size=8)),
                },
            }
        )
    das = []
    for i in range(draw(st.integers(0, 5))):
        scope = draw(st.sampled_from(scopes))
        das.append(
            {
                "id": f"{scope.rstrip('/')}/providers/Cloud.Authorization/denyAssignments/da{i}",
                "name": f"da{i}",
                "properties": {
                    "scope": scope,
                    "principals": [{"id": draw(st.sampled_from(principals)), "type": "User"}],
                },
            }
        )
    events = []
    for i in range(draw(st.integers(0, 6))):
        base = draw(
            st.sampled_from(
                [
                    s
                    for s in scopes
                    if (s.startswith("/subscriptions/") and "resourceGroups/rg" not in s)
                    or s.endswith("/vm")
                ]
            )
        )
        events.append(
            {
                "id": f"{base}/providers/Cloud.ResourceHealth/events/ev{i}",
                "name": f"ev{i}",
                "properties": {
                    "eventType": draw(st.sampled_from(["ServiceIssue", "RCA"])),
                    "lastUpdateTime": "2024-05-01T00:00:00Z",
                },
            }
        )
    resources = []
    for kind, provider in (
        ("clusters", "Cloud.AnalyticsCluster/clusters"),
        ("domains", "Cloud.EventRouting/domains"),
    ):
        items = []
        for i in range(draw(st.integers(0, 3))):
            sub = draw(st.sampled_from(subs))
            items.append(
                {
                    "id": f"/subscriptions/{sub}/resourceGroups/rg{i % 2}/providers/{provider}/{kind}{i}",
                    "name": f"{kind}{i}",
                    "type": provider,
                    "location": "westeurope",
                }
            )
        resources.append((kind, items))
    doc = {
        "snapshotVersion": 1,
        "hierarchy": hierarchy,
        "roleAssignments": ras,
        "denyAssignments": das,
        "healthEvents": events,
        **dict(resources),
    }
    return doc, subs


def _relevant(doc: dict[str, Any], subs: list[str], section: str) -> set[str]:
    """The oracle: what a per-subscription collection must return (at, above or below a
    subscription; management groups placed by the hierarchy)."""
    parents = {h["id"].lower(): h["parent"].lower() for h in doc["hierarchy"]}
    wanted: set[str] = {"/"}
    for sub in subs:
        node = f"/subscriptions/{sub}".lower()
        seen = set()
        while node not in seen and node != "/":
            seen.add(node)
            wanted.add(node)
            node = parents.get(node, "/")
    out = set()
    for item in doc[section]:
        scope = item["properties"]["scope"].lower()
        under = any(scope.startswith(f"/subscriptions/{s}/".lower()) for s in subs)
        if scope in wanted or under:
            out.add(item["id"].lower())
    return out


@settings(max_examples=12, deadline=None)
@given(
    estates(), st.integers(1, 4), st.sampled_from(["subscription", "provider"]), st.integers(1, 4)
)
def test_collecting_through_the_api_returns_exactly_the_snapshot(
    case: tuple[dict[str, Any], list[str]], page_size: int, mode: str, concurrency: int
) -> None:
    doc, subs = case
    original: Snapshot = loads_snapshot(msgspec.json.encode(doc))
    client_settings = ClientSettings(concurrency=concurrency, retry=FAST.retry)

    async def go(url: str) -> CollectResult:
        async with ResourceManagerClient(url, "t-sandbox-reader", client_settings) as api:
            return await collect(api, subs, role_assignments=mode)  # type: ignore[arg-type]

    with sandbox(original, page_size=page_size, api_tokens={}) as server:
        result = asyncio.run(go(server.url))
    snap = result.snapshot
    assert result.complete
    if mode == "provider":
        assert by_id(snap.roleAssignments) == by_id(original.roleAssignments)
    else:
        wanted = _relevant(doc, subs, "roleAssignments")
        assert by_id(snap.roleAssignments) == {
            k: v for k, v in by_id(original.roleAssignments).items() if k in wanted
        }
    wanted_deny = _relevant(doc, subs, "denyAssignments")
    assert by_id(snap.denyAssignments) == {
        k: v for k, v in by_id(original.denyAssignments).items() if k in wanted_deny
    }
    for section in ("healthEvents", "clusters", "domains"):
        got = [m.to_wire() for m in getattr(snap, section)]
        want = [m.to_wire() for m in getattr(original, section)]
        assert sorted(got, key=lambda x: x["id"]) == sorted(want, key=lambda x: x["id"])
    assert len(snap.roleAssignments) == len({r.id for r in snap.roleAssignments})
