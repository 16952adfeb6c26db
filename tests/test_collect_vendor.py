"""Live collection from the vendor's management API (issue 18, item 4): ``collect --namespace
vendor`` against ``sandbox serve --namespace vendor`` (the same estate under ``Microsoft.*`` paths
and names), the same snapshot as collecting the seed's paths and as ``estate import`` of the same
answers; bearer tokens from ``--token-command`` (renewed once after a 401), the environment and
azure-identity, never shown; and the vendor's own SDK (``azure-mgmt-authorization``) listing from the
vendor sandbox."""

from __future__ import annotations

import json
import logging
import shlex
import sys
import time
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.api import ResourceManagerClient
from auditor.api.tokens import MANAGEMENT_SCOPE
from auditor.cli import main
from auditor.estate.sample import sample_snapshot
from auditor.estate.snapshot import Snapshot, dumps_snapshot, load_snapshot, loads_snapshot
from auditor.model.defaults import SEED_API_VERSIONS
from auditor.sandbox import SandboxConfig, SandboxServer
from auditor.sandbox.vendor import to_seed_json, to_vendor_json
from auditor.sources.exports import import_estate
from auditor.sources.names import VENDOR_API_VERSIONS

TOKEN = "vendor-test-token-7f3a9c"
FRESH = "vendor-fresh-token-51d2e8"


def _estate() -> Snapshot:
    """The sample estate, one domain taking the seed's ``EventRoutingSchema`` (the vendor's
    ``EventGridSchema``) so the value mapping is exercised too."""
    doc = msgspec.json.decode(dumps_snapshot(sample_snapshot()))
    doc["domains"][0]["properties"]["inputSchema"] = "EventRoutingSchema"
    doc["collectedAt"] = "2026-01-01T00:00:00Z"
    return loads_snapshot(msgspec.json.encode(doc), source="test estate")


ESTATE = _estate()
SUBSCRIPTIONS = sorted(
    {
        r.properties.scope.split("/")[2]
        for r in ESTATE.roleAssignments
        if r.properties.scope.lower().startswith("/subscriptions/")
    }
)


def _server(namespace: str, reader: str = TOKEN) -> SandboxServer:
    """The sandbox of :data:`ESTATE`; ``reader`` is the one bearer token it takes."""
    config = SandboxConfig(reader_token=reader, namespace=namespace, page_size=3)  # type: ignore[arg-type]
    return SandboxServer(ESTATE, config)


@pytest.fixture(scope="module")
def vendor() -> Iterator[SandboxServer]:
    with _server("vendor") as server:
        yield server


def _collect_argv(url: str, out: Path, *more: str) -> list[str]:
    argv = ["collect", "--base-url", url, "--out", str(out), "--retries", "0"]
    for sub in SUBSCRIPTIONS:
        argv += ["--subscription", sub]
    return [*argv, "--role-assignments", "provider", *more]


def _sections(path: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(path.read_text())
    doc.pop("collectedAt", None)
    return doc


# -- the sandbox under the vendor's paths ---------------------------------------------------------


def test_the_vendor_sandbox_serves_microsoft_names_and_pages_by_next_link(
    vendor: SandboxServer,
) -> None:
    sub = SUBSCRIPTIONS[0]
    headers = {"Authorization": f"Bearer {TOKEN}"}
    with httpx.Client(base_url=vendor.url, headers=headers) as client:
        first = client.get(
            "/providers/Microsoft.Authorization/roleAssignments",
            params={"api-version": VENDOR_API_VERSIONS["roleAssignments.list"]},
        )
        assert first.status_code == 200
        page = first.json()
        assert {ra["type"] for ra in page["value"]} == {"Microsoft.Authorization/roleAssignments"}
        assert all("Cloud." not in ra["id"] for ra in page["value"])
        link = page["nextLink"]
        assert link.startswith(vendor.url + "/providers/Microsoft.Authorization/roleAssignments?")
        assert "api-version=2022-04-01" in link
        assert client.get(link).status_code == 200  # the SDKs follow nextLink as given
        domains = client.get(
            f"/subscriptions/{str(ESTATE.domains[0].id).split('/')[2]}/providers/Microsoft.EventGrid/domains",
            params={"api-version": VENDOR_API_VERSIONS["domains.createOrUpdate"]},
        ).json()["value"]
        assert "EventGridSchema" in {d["properties"].get("inputSchema") for d in domains}
        assert {d["type"] for d in domains} == {"Microsoft.EventGrid/domains"}
        events = client.get(
            f"/subscriptions/{sub}/providers/Microsoft.ResourceHealth/events",
            params={"api-version": VENDOR_API_VERSIONS["healthEvents.list"]},
        ).json()["value"]
        assert events and all(
            "/providers/Microsoft.ResourceHealth/events/" in e["id"] for e in events
        )
        # the seed's paths are not the vendor's API: 404, with the error body of the area
        seed = client.get(
            "/providers/Cloud.Authorization/roleAssignments",
            params={"api-version": SEED_API_VERSIONS["roleAssignments.list"]},
        )
        assert seed.status_code == 404 and seed.json()["error"]["code"] == "NotFound"
        # errors speak the vendor's names too
        bad = client.get(
            f"/subscriptions/{sub}/providers/Microsoft.Authorization/roleAssignments",
            params={"api-version": "2022-04-01", "$skipToken": "x"},
        )
        assert bad.status_code == 400
        assert "Microsoft.Authorization" in bad.json()["error"]["message"]
        assert "Cloud." not in bad.text


def test_both_namespaces_serve_one_store() -> None:
    with (
        _server("both") as server,
        httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {TOKEN}"}) as client,
    ):
        version = {"api-version": "2022-04-01"}
        sub = f"/subscriptions/{SUBSCRIPTIONS[0]}"
        vendor = client.get(
            f"{sub}/providers/Microsoft.Authorization/roleAssignments", params=version
        )
        seed = client.get(f"{sub}/providers/Cloud.Authorization/roleAssignments", params=version)
        assert vendor.status_code == seed.status_code == 200
        assert len(vendor.json()["value"]) == len(seed.json()["value"]) > 0
        assert [to_seed_json(v) for v in vendor.json()["value"]] == seed.json()["value"]


def test_a_write_under_the_vendors_names_is_stored_in_the_seeds() -> None:
    config = SandboxConfig(reader_token=TOKEN, namespace="both")
    sub = SUBSCRIPTIONS[0]
    tail = f"/subscriptions/{sub}/resourceGroups/rg-vendor/providers/"
    version = {"api-version": VENDOR_API_VERSIONS["domains.createOrUpdate"]}
    body = {"location": "westeurope", "properties": {"inputSchema": "EventGridSchema"}}
    with (
        SandboxServer(_estate(), config) as server,
        httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {TOKEN}"}) as client,
    ):
        put = client.put(tail + "Microsoft.EventGrid/domains/dom-v", params=version, json=body)
        assert put.status_code == 201, put.text
        assert put.json()["type"] == "Microsoft.EventGrid/domains"
        assert put.json()["properties"]["inputSchema"] == "EventGridSchema"
        seed = client.get(tail + "Cloud.EventRouting/domains/dom-v", params=version).json()
        assert seed["type"] == "Cloud.EventRouting/domains"
        assert seed["properties"]["inputSchema"] == "EventRoutingSchema"
        assert seed["id"] == to_seed_json(put.json()["id"])


# -- collect --namespace vendor -------------------------------------------------------------------


def test_collect_vendor_gives_the_snapshot_of_the_seed_and_of_an_import(
    vendor: SandboxServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("AUDITOR_TOKEN", TOKEN)
    monkeypatch.delenv("AUDITOR_API_TOKEN", raising=False)
    from_vendor, from_seed = tmp_path / "vendor.json", tmp_path / "seed.json"
    assert main(_collect_argv(vendor.url, from_vendor, "--namespace", "vendor")) == 0
    out = capsys.readouterr()
    assert (
        f"roleAssignments {len(ESTATE.roleAssignments)}" in out.out
        and TOKEN not in out.out + out.err
    )
    with _server("seed") as seed:
        assert main(_collect_argv(seed.url, from_seed)) == 0
    assert _sections(from_vendor) == _sections(from_seed)
    collected = load_snapshot(from_vendor)
    assert "Microsoft." not in from_vendor.read_text()
    assert {d.properties.inputSchema for d in collected.domains} >= {"EventRoutingSchema"}

    # the same answers saved as pages and imported give the same records
    pages = tmp_path / "pages"
    pages.mkdir()
    _save_vendor_pages(vendor.url, pages)
    imported = import_estate([pages])
    for section in ("roleAssignments", "denyAssignments"):
        assert sorted(map(msgspec.json.encode, getattr(imported, section))) == sorted(
            map(msgspec.json.encode, getattr(collected, section))
        )
    for section in ("clusters", "domains", "healthEvents"):
        mine = sorted((m.to_wire() for m in getattr(collected, section)), key=lambda d: d["id"])
        theirs = sorted((m.to_wire() for m in getattr(imported, section)), key=lambda d: d["id"])
        assert mine == theirs, section


def _save_vendor_pages(url: str, folder: Path) -> None:
    """Every listing of the collection, as the vendor's SDKs ask for it (``api-version`` in the
    query, ``nextLink`` followed), each page saved as a file."""
    headers = {"Authorization": f"Bearer {TOKEN}"}
    listings = [("/providers/Microsoft.Authorization/roleAssignments", "roleAssignments.list")]
    for sub in SUBSCRIPTIONS:
        base = f"/subscriptions/{sub}/providers/"
        listings += [
            (base + "Microsoft.Authorization/denyAssignments", "denyAssignments.list"),
            (base + "Microsoft.HDInsight/clusters", "clusters.create"),
            (base + "Microsoft.EventGrid/domains", "domains.createOrUpdate"),
            (base + "Microsoft.ResourceHealth/events", "healthEvents.list"),
        ]
    n = 0
    with httpx.Client(base_url=url, headers=headers) as client:
        for path, operation in listings:
            answer = client.get(path, params={"api-version": VENDOR_API_VERSIONS[operation]})
            while True:
                assert answer.status_code == 200, answer.text
                body = answer.json()
                link = body.pop("nextLink", None)
                n += 1
                (folder / f"page-{n:03}.json").write_text(json.dumps(body))
                if not link:
                    break
                answer = client.get(link)


def test_collect_vendor_library_call_maps_on_the_way_in(vendor: SandboxServer) -> None:
    import asyncio

    from auditor.api.collect import collect

    async def go() -> Any:
        async with ResourceManagerClient(vendor.url, TOKEN, namespace="vendor") as api:
            assert api.access.api_version == VENDOR_API_VERSIONS["roleAssignments.list"]
            return await collect(api, SUBSCRIPTIONS[:1])

    result = asyncio.run(go())
    assert result.complete and result.snapshot.roleAssignments
    assert all(
        r.id.lower().count("/providers/cloud.authorization/roleassignments/") == 1
        for r in result.snapshot.roleAssignments
    )


# -- tokens ---------------------------------------------------------------------------------------


def _token_script(tmp_path: Path, body: str) -> str:
    script = tmp_path / f"token-{len(list(tmp_path.glob('token-*.py')))}.py"
    script.write_text(body)
    return shlex.join([sys.executable, str(script)])


def test_token_command_gives_the_bearer_token_and_it_is_never_shown(
    vendor: SandboxServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.delenv("AUDITOR_TOKEN", raising=False)
    monkeypatch.delenv("AUDITOR_API_TOKEN", raising=False)
    command = _token_script(tmp_path, f"print('  {TOKEN}  ')\n")
    out = tmp_path / "estate.json"
    caplog.set_level(logging.DEBUG)
    argv = _collect_argv(vendor.url, out, "--namespace", "vendor", "--token-command", command)
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert TOKEN not in captured.out + captured.err + caplog.text + out.read_text()
    assert len(load_snapshot(out).roleAssignments) == len(ESTATE.roleAssignments)


def test_a_failing_token_command_is_exit_2_naming_it_never_its_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("AUDITOR_TOKEN", raising=False)
    out = tmp_path / "estate.json"
    failing = _token_script(tmp_path, f"import sys\nprint('{TOKEN}')\nsys.exit(4)\n")
    url = "http://127.0.0.1:9"  # never reached: the token comes first
    assert main(_collect_argv(url, out, "--token-command", failing)) == 2
    err = capsys.readouterr().err
    assert "token command 'python" in err and "exit status 4" in err
    assert TOKEN not in err and not out.exists()
    for command, expected in (
        ("", "the command is empty"),
        ("'unclosed", "cannot split the command"),
        (str(tmp_path / "no-such-program"), "was not found"),
        (_token_script(tmp_path, "print('two words')\n"), "more than one word"),
        (_token_script(tmp_path, "pass\n"), "printed no token"),
    ):
        assert main(_collect_argv(url, out, "--token-command", command)) == 2
        assert expected in capsys.readouterr().err
    assert (
        main(_collect_argv(url, out, "--token-command", "x", "--token-source", "azure-identity"))
        == 2
    )
    assert "not both" in capsys.readouterr().err
    assert main(_collect_argv(url, out, "--namespace", "other")) == 2
    assert "expected seed or vendor" in capsys.readouterr().err
    assert main(["collect", "--subscription", SUBSCRIPTIONS[0], "--out", str(out)]) == 2
    assert "--base-url is needed" in capsys.readouterr().err
    assert main(["sandbox", "serve", "--namespace", "other"]) == 2
    assert "expected seed, vendor or both" in capsys.readouterr().err


def test_an_expired_token_is_renewed_once_from_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The first token is refused (expired); the command is run once more and its new token
    used; a command whose tokens are all refused is run twice in all, the parts incomplete."""
    monkeypatch.delenv("AUDITOR_API_TOKEN", raising=False)
    runs = tmp_path / "runs.txt"
    command = _token_script(
        tmp_path,
        "import pathlib\n"
        f"p = pathlib.Path({str(runs)!r})\n"
        "n = len(p.read_text()) if p.exists() else 0\n"
        "p.write_text('x' * (n + 1))\n"
        f"print({TOKEN!r} if n == 0 else {FRESH!r})\n",
    )
    out = tmp_path / "estate.json"
    with _server("vendor", reader=FRESH) as server:
        assert (
            main(
                _collect_argv(server.url, out, "--namespace", "vendor", "--token-command", command)
            )
            == 0
        )
        assert runs.read_text() == "xx"
        captured = capsys.readouterr()
        assert FRESH not in captured.out + captured.err + out.read_text()
        runs.write_text("x")  # from now on only FRESH, which this sandbox does not know
    with _server("vendor", reader="another-token") as server:
        argv = _collect_argv(server.url, out, "--namespace", "vendor", "--token-command", command)
        assert main([*argv, "--force"]) == 3
        assert runs.read_text() == "xxx"  # renewed once, not per request
        err = capsys.readouterr().err
        assert "HTTP 401" in err and FRESH not in err


def test_azure_identity_missing_says_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "azure.identity", None)  # as if it were not installed
    argv = _collect_argv(
        "http://127.0.0.1:9", tmp_path / "e.json", "--token-source", "azure-identity"
    )
    assert main(argv) == 2
    assert "pip install 'auditor[azure]'" in capsys.readouterr().err


def test_azure_identity_token(
    vendor: SandboxServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    asked: list[str] = []

    class FakeCredential:
        def get_token(self, *scopes: str) -> Any:
            asked.extend(scopes)
            return types.SimpleNamespace(token=TOKEN, expires_on=int(time.time()) + 3600)

    fake = types.ModuleType("azure.identity")
    fake.DefaultAzureCredential = FakeCredential  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "azure.identity", fake)
    monkeypatch.delenv("AUDITOR_API_TOKEN", raising=False)
    out = tmp_path / "estate.json"
    argv = _collect_argv(
        vendor.url, out, "--namespace", "vendor", "--token-source", "azure-identity"
    )
    assert main(argv) == 0
    assert asked == [MANAGEMENT_SCOPE]
    assert TOKEN not in capsys.readouterr().out + out.read_text()


# -- the vendor's own SDK against the vendor sandbox ----------------------------------------------


def test_the_vendors_sdk_lists_assignments_from_the_vendor_sandbox(vendor: SandboxServer) -> None:
    from azure.core.credentials import AccessToken
    from azure.mgmt.authorization import AuthorizationManagementClient

    class Credential:
        def get_token(self, *scopes: str, **kwargs: Any) -> AccessToken:
            return AccessToken(TOKEN, int(time.time()) + 3600)

    sub = SUBSCRIPTIONS[0]
    client = AuthorizationManagementClient(Credential(), sub, base_url=vendor.url)
    # the SDK sends bearer tokens over https only unless told (the sandbox is plain loopback http)
    listed = list(client.role_assignments.list_for_subscription(enforce_https=False))
    raw = httpx.get(
        f"{vendor.url}/subscriptions/{sub}/providers/Microsoft.Authorization/roleAssignments",
        params={"api-version": "2022-04-01"},
        headers={"Authorization": f"Bearer {TOKEN}"},
    ).json()["value"]
    assert sorted(ra.id for ra in listed) == sorted(ra["id"] for ra in raw) != []
    known = {r.id.lower() for r in ESTATE.roleAssignments}
    assert {to_seed_json(ra.id).lower() for ra in listed} <= known
    assert {ra.type for ra in listed} == {"Microsoft.Authorization/roleAssignments"}
    assert all(
        ra.role_definition_id.startswith("/") and "Cloud." not in ra.role_definition_id
        for ra in listed
    )
    # deny assignments page (page size 3) by nextLink, which the SDK follows
    denied = list(client.deny_assignments.list(enforce_https=False))
    assert {to_seed_json(d.id).lower() for d in denied} == {
        d.id.lower()
        for d in ESTATE.denyAssignments
        if d.id.lower().startswith(f"/subscriptions/{sub}")
    }


# -- the name mapping -----------------------------------------------------------------------------


def test_the_vendor_table_names_every_operation_of_the_seed() -> None:
    assert set(VENDOR_API_VERSIONS) == set(SEED_API_VERSIONS)


_NAMESPACE = st.sampled_from(
    ["Cloud.Authorization", "Cloud.AnalyticsCluster", "Cloud.EventRouting", "Cloud.Storage"]
)
_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(
    ns=_NAMESPACE,
    name=_WORD,
    text=st.text(max_size=20),
    schema=st.sampled_from(["EventRoutingSchema", "CustomEventSchema", "CloudEventSchemaV1_0"]),
)
def test_answers_go_to_the_vendor_and_back_unchanged(
    ns: str, name: str, text: str, schema: str
) -> None:
    rid = f"/subscriptions/s/resourceGroups/{name}/providers/{ns}/things/{name}"
    doc = {
        "id": rid,
        "type": f"{ns}/things",
        "properties": {
            "description": text,
            "inputSchema": schema,
            "actions": [f"{ns}/things/read", "*"],
            "identities": {rid: {"principalId": name}},
        },
    }
    vendor = to_vendor_json(doc)
    assert "Cloud." not in json.dumps({k: v for k, v in vendor.items() if k != "properties"})
    assert vendor["properties"]["description"] == text  # free text is kept
    assert to_seed_json(vendor) == doc


@pytest.mark.parametrize("section", ["roleAssignments", "clusters", "healthEvents"])
@pytest.mark.parametrize("depth", [600, 900, 5_000])  # (deeper than msgspec decodes: unreadable)
def test_an_item_nested_too_deeply_to_map_is_kept_as_given(section: str, depth: int) -> None:
    # found by the fuzz suite: mapping a deeply nested item to the seed's names recursed until
    # Python gave up, and collect raised; the item now goes on as given, and the snapshot leaves
    # it out (exit 3, as any item it cannot hold)
    from auditor.sources.exports.collected import SeedNames

    deep = b'{"a":' * depth + b"1" + b"}" * depth
    fine = msgspec.json.encode({"id": "/x", "type": "Microsoft.EventGrid/domains"})
    items = [msgspec.Raw(deep), msgspec.Raw(fine)]
    out = SeedNames().items(section, items)
    assert bytes(out[0]) == deep and len(out) == 2
