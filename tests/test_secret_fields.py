"""Unknown fields with secret-looking names are dropped when a snapshot is read (issue 16, item 4):
the rule on names, every section kind (bulk records, pydantic sections, devTooling, top level), the
warning that names the paths (never the values), and the value in no output: the snapshot dump, the
GDPR export (library and CLI), the audit's outputs and the sandbox's ``GET /v0.1/user``."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from auditor.access import gdpr_export
from auditor.cli import main
from auditor.estate.sample import sample_snapshot_json
from auditor.estate.snapshot import dumps_snapshot, loads_snapshot
from auditor.model.unknown_fields import is_secret_looking_name
from tests.test_sandbox_helpers import estate_json, sandbox

TOKEN = "ghp_Unkn0wnFieldT0kenValue_9f8e7d6c5b4a3210"
PASSWORD = "Hunter2-unknown-field-Pa55!"
CONN = "DefaultEndpointsProtocol=https;AccountKey=U3VwZXJTZWNyZXRLZXk="
VALUES = (TOKEN, PASSWORD, CONN)


@pytest.mark.parametrize(
    "name",
    [
        "apiToken",
        "password",
        "adminPassword",
        "passwd",
        "clientSecret",
        "secretValue",
        "tokenValue",
        "privateKeyPem",
        "certificateData",
        "credentials",
        "connectionString",
        "storage_connection_string",
        "X-API-Token",
        "access_token",
        "sasToken",
        "apikey",
        "APIKey",
        "adminpassword",
        "accessKey",
        "key",
        "userPassword2",
        "tokens",
    ],
)
def test_secret_looking_names(name: str) -> None:
    assert is_secret_looking_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "keyName",
        "vaultUri",
        "publicKeys",
        "sshPublicKey",
        "isEncryptionInTransitEnabled",
        "tokenLimit",
        "tokenId",
        "secretName",
        "certificateThumbprint",
        "valueHash",
        "keyVaultUri",
        "monkey",
        "description",
        "passwordExpiry",
    ],
)
def test_ordinary_names(name: str) -> None:
    assert not is_secret_looking_name(name)


def _hostile() -> dict[str, Any]:
    doc = copy.deepcopy(estate_json())
    doc["devTooling"]["user"]["apiToken"] = TOKEN
    doc["devTooling"]["user"]["tokenLimit"] = 5  # unknown, not secret-looking: kept
    doc["devTooling"]["user"]["profile"] = {"nested": [{"refresh_token": TOKEN, "theme": "dark"}]}
    doc["roleAssignments"][0]["properties"]["sasToken"] = TOKEN
    doc["roleAssignments"][0]["note"] = "kept"
    doc["clusters"][0]["properties"]["adminPassword"] = PASSWORD
    doc["domains"][0]["storageConnectionString"] = CONN
    doc["principals"][0]["password"] = PASSWORD
    doc["apiKey"] = TOKEN
    doc["futureSection"] = {"items": [{"name": "x", "clientSecret": PASSWORD}]}
    return doc


DROPPED = [
    "principals[0].password",
    "roleAssignments[0].properties.sasToken",
    "clusters[0].properties.adminPassword",
    "domains[0].storageConnectionString",
    "devTooling.user.apiToken",
    "devTooling.user.profile.nested[0].refresh_token",
    "apiKey",
    "futureSection.items[0].clientSecret",
]


def _assert_clean(text: str) -> None:
    for value in VALUES:
        assert value not in text


def test_dropped_on_load_and_named_in_a_warning() -> None:
    snap = loads_snapshot(json.dumps(_hostile()).encode(), source="hostile.json")
    assert len(snap.warnings) == 1
    warning = snap.warnings[0]
    assert warning.startswith(f"dropped {len(DROPPED)} unknown field(s) with secret-looking names")
    for path in DROPPED:
        assert path in warning
    _assert_clean(warning)
    dumped = dumps_snapshot(snap).decode()
    _assert_clean(dumped)
    again = json.loads(dumped)
    # the other unknown fields are kept and written back
    assert again["devTooling"]["user"]["tokenLimit"] == 5
    assert again["devTooling"]["user"]["profile"] == {"nested": [{"theme": "dark"}]}
    assert again["roleAssignments"][0]["note"] == "kept"
    assert again["futureSection"] == {"items": [{"name": "x"}]}
    assert "apiKey" not in again
    # a dump read again has nothing left to drop
    assert loads_snapshot(dumped.encode()).warnings == []


def test_seed_fields_are_not_dropped() -> None:
    """Known fields with secret-like names stay (they are typed, masked where secret)."""
    doc = sample_snapshot_json()
    snap = loads_snapshot(json.dumps(doc).encode())
    assert snap.warnings == []
    assert snap.devTooling is not None and snap.devTooling.tokens


def test_gdpr_export_holds_no_dropped_value(tmp_path: Path) -> None:
    snap = loads_snapshot(json.dumps(_hostile()).encode(), source="hostile.json")
    document = gdpr_export(snap, email="dev@example.com")
    text = json.dumps(document)
    _assert_clean(text)
    assert document["devTooling"]["user"]["tokenLimit"] == 5
    assert any("devTooling.user.apiToken" in w for w in document["snapshot"]["warnings"])
    # the same through the command line
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(_hostile()))
    out = tmp_path / "export.json"
    args = ["gdpr", "export", "--snapshot", str(path), "--email", "dev@example.com"]
    assert main([*args, "-o", f"json={out}"]) == 0
    _assert_clean(out.read_text())


def test_audit_outputs_hold_no_dropped_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(_hostile()))
    out = tmp_path / "findings.json"
    code = main(["audit", "--snapshot", str(path), "-o", f"json={out}", "-o", "text"])
    assert code in (0, 1)
    captured = capsys.readouterr()
    doc = json.loads(out.read_text())
    assert any("devTooling.user.apiToken" in w for w in doc["warnings"])
    assert "devTooling.user.apiToken" in captured.err  # the warning reaches the terminal
    for text in (out.read_text(), captured.out, captured.err):
        _assert_clean(text)


def test_sandbox_user_profile_holds_no_dropped_value() -> None:
    snap = loads_snapshot(json.dumps(_hostile()).encode(), source="hostile.json")
    with (
        sandbox(snap) as server,
        httpx.Client(base_url=server.url, timeout=10) as client,
    ):
        response = client.get("/v0.1/user", headers={"X-API-Token": "v-user-full"})
        assert response.status_code == 200
        body = response.json()
        assert body["email"] == "dev@example.com" and body["tokenLimit"] == 5
        assert "apiToken" not in body
        _assert_clean(response.text)


def test_collected_snapshot_holds_no_dropped_value(tmp_path: Path) -> None:
    """The collector builds its snapshot through the loader: a secret-looking field a server adds
    to the user profile or to a resource is dropped there too."""
    import asyncio

    from auditor.api import ClientSettings, DevToolingClient, ResourceManagerClient
    from auditor.api.collect import CollectResult, collect, write_snapshot

    domain = copy.deepcopy(estate_json()["domains"][0])
    domain["properties"]["accessKey"] = TOKEN

    def api_handler(request: httpx.Request) -> httpx.Response:
        if "/domains" in request.url.path:
            return httpx.Response(200, json={"value": [domain]})
        return httpx.Response(200, json={"value": []})

    def dev_handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v0.1/user":
            return httpx.Response(200, json={"email": "ana@example.test", "apiToken": TOKEN})
        return httpx.Response(200, json=[])

    async def go() -> CollectResult:
        base = "https://api.example.test"
        async with (
            ResourceManagerClient(
                base, "t", ClientSettings(), transport=httpx.MockTransport(api_handler)
            ) as api,
            DevToolingClient(
                base, "v", ClientSettings(), transport=httpx.MockTransport(dev_handler)
            ) as dev,
        ):
            return await collect(api, ["11111111-1111-4111-8111-111111111111"], devtooling=dev)

    result = asyncio.run(go())
    assert result.snapshot.devTooling is not None
    assert result.snapshot.devTooling.user is not None
    warning = " ".join(result.snapshot.warnings)
    assert "devTooling.user.apiToken" in warning and "domains[0].properties.accessKey" in warning
    out = tmp_path / "collected.json"
    write_snapshot(result, out, force=False)
    _assert_clean(out.read_text())
    assert "ana@example.test" in out.read_text()
