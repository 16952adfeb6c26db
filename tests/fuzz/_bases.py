"""Valid base documents the fuzz tests mutate: a small snapshot, plans, access requests, waivers
and a configuration, each with the seeded secrets in its secret fields (so a valid input that leaks
is caught too)."""

from __future__ import annotations

import copy
import datetime as dt
import json
from functools import cache
from typing import Any

from auditor.estate.sample import sample_plans, sample_snapshot_json
from tests.fuzz._hostile import DupKeys, Raw, seed_secrets, to_json
from tests.fuzz._secrets import HEX_TOKEN, PASSWORD, PRIVATE_KEY, SSH_KEY, STORAGE_KEY

AS_OF = "2026-11-21"

_TRIM = {
    "principals": 10,
    "roleAssignments": 8,
    "denyAssignments": 3,
    "clusters": 2,
    "domains": 2,
    "healthEvents": 3,
}


def _cluster_secrets(cluster: dict[str, Any]) -> None:
    props = cluster.setdefault("properties", {})
    props["storageProfile"] = {
        "storageaccounts": [
            {
                "name": "fuzzstore.blob.example",
                "isDefault": True,
                "container": "c",
                "key": STORAGE_KEY,
            }
        ]
    }
    definition = props.setdefault("clusterDefinition", {})
    definition["configurations"] = {
        "gateway": {"restAuthCredential.isEnabled": True, "restAuthCredential.password": PASSWORD}
    }
    for role in props.get("computeProfile", {}).get("roles", []):
        profile = role.setdefault("osProfile", {}).setdefault("linuxOperatingSystemProfile", {})
        profile["password"] = PASSWORD
        profile["sshProfile"] = {"publicKeys": [{"certificateData": SSH_KEY}]}


@cache
def _snapshot() -> dict[str, Any]:
    doc = sample_snapshot_json()
    for section, n in _TRIM.items():
        doc[section] = doc[section][:n]
    for cluster in doc["clusters"]:
        _cluster_secrets(cluster)
    dev = doc["devTooling"]
    dev["tokens"] = dev["tokens"][:3]
    if dev["tokens"]:
        dev["tokens"][0]["value"] = HEX_TOKEN
    doc["roleAssignments"][0]["properties"]["condition"] = (
        "((!(ActionMatches{'Cloud.Storage/storageAccounts/blobServices/containers/blobs/read'}))"
        " OR (@Resource[Cloud.Storage/storageAccounts/blobServices/containers:name]"
        " StringLike 'logs-*'))"
    )
    doc["roleAssignments"][0]["properties"]["conditionVersion"] = "2.0"
    return seed_secrets(doc)


def snapshot() -> dict[str, Any]:
    """A small valid snapshot (a slice of the sample estate) with secrets in its secret fields."""
    return copy.deepcopy(_snapshot())


@cache
def snapshot_bytes() -> bytes:
    return to_json(_snapshot())


def principal_ids() -> list[str]:
    return [p["id"] for p in _snapshot()["principals"]]


def emails() -> list[str]:
    return [p["email"] for p in _snapshot()["principals"] if p.get("email")]


def scopes() -> list[str]:
    return [ra["properties"]["scope"] for ra in _snapshot()["roleAssignments"]]


ACTIONS = (
    "Cloud.Authorization/roleAssignments/write",
    "Cloud.Compute/virtualMachines/write",
    "Cloud.Storage/storageAccounts/blobServices/containers/blobs/read",
    "*",
    "Cloud.AnalyticsCluster/clusters/read",
)


@cache
def _plans() -> tuple[dict[str, Any], ...]:
    plans = sample_plans()
    risky = plans["risky-plan"]
    compliant = plans["compliant-plan"]
    cluster = compliant["requests"][1]["body"]["properties"]
    profile = cluster["computeProfile"]["roles"][0]["osProfile"]["linuxOperatingSystemProfile"]
    profile["sshProfile"]["publicKeys"].append({"certificateData": PRIVATE_KEY})
    return seed_secrets(risky), seed_secrets(compliant)


def plans() -> list[dict[str, Any]]:
    """Two valid plans (risky and compliant) whose literal secret fields hold the seeded
    secrets."""
    return copy.deepcopy(list(_plans()))


def requests() -> list[dict[str, Any]]:
    """Valid access requests (contracts 4) about the small snapshot."""
    ids, where = principal_ids(), scopes()
    container = "@Resource[Cloud.Storage/storageAccounts/blobServices/containers:name]"
    out: list[dict[str, Any]] = []
    for i, action in enumerate(ACTIONS):
        request: dict[str, Any] = {
            "principalId": ids[i % len(ids)],
            "action": action,
            "scope": where[i % len(where)],
        }
        if i % 2:
            request["dataAction"] = action.endswith("/read")
            request["attributes"] = {
                container: "logs-1",
                "@Environment[UtcNow]": f"{AS_OF}T10:00:00Z",
            }
        out.append(request)
    return out


def requests_bytes(items: list[Any]) -> bytes:
    return b"\n".join(to_json(r) for r in items) + b"\n"


def waivers() -> dict[str, Any]:
    """A valid waivers document (contracts 7)."""
    return {
        "version": 1,
        "waivers": [
            {
                "id": "W-0001",
                "rule": "RBAC-*",
                "resource": "/subscriptions/*/resourceGroups/rg-*",
                "justification": "Reviewed quarterly",
                "expires": dt.date(2027, 3, 31),
            },
            {
                "id": "W-0002",
                "rule": "DOM-003",
                "resource": "/subscriptions/2c9d84f9-ce09-5276-b083-02d2ccc1c024/*",
                "justification": "Partner ranges",
                "expires": "2026-01-01",
            },
        ],
    }


def config() -> dict[str, Any]:
    """A valid configuration (docs/configuration.md)."""
    return {
        "fail-on": "high",
        "as-of": dt.date(2026, 11, 21),
        "check": ["RBAC-*", "DOM-*", "CLU-*", "TOK-*"],
        "skip-check": ["info"],
        "settings": {"ipv4MinPrefixLength": 24, "genericTokenDescriptions": ["token", "test"]},
        "rules": {"DOM-008": {"requireWithinRegion": True}},
    }


# --- TOML ---------------------------------------------------------------------------------------


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, int | float):
        return repr(value) if isinstance(value, float) else str(value)
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            value = value.encode("utf-8", "replace").decode("utf-8")
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, DupKeys):
        return "{" + ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.pairs) + "}"
    return '""'  # None: TOML has no null


def _toml_key(key: str) -> str:
    plain = key and all(c.isascii() and (c.isalnum() or c in "-_") for c in key)
    return key if plain else _toml_value(key)


def to_toml(doc: Any) -> str:
    """A TOML text for a configuration-shaped document (top-level scalars, then tables); any
    other shape is written as well as TOML allows, which is part of the fuzzing."""
    if not isinstance(doc, dict):
        return f"value = {_toml_value(doc)}\n"
    lines: list[str] = []
    tables: list[tuple[str, dict[str, Any]]] = []
    for key, value in doc.items():
        if isinstance(value, dict) and key in ("settings", "rules", "tool"):
            tables.append((key, value))
        else:
            lines.append(f"{_toml_key(str(key))} = {_toml_value(value)}")
    for name, table in tables:
        nested = {k: v for k, v in table.items() if isinstance(v, dict)}
        lines.append(f"\n[{_toml_key(name)}]")
        lines += [
            f"{_toml_key(str(k))} = {_toml_value(v)}" for k, v in table.items() if k not in nested
        ]
        for sub, inner in nested.items():
            lines.append(f"\n[{_toml_key(name)}.{_toml_key(str(sub))}]")
            lines += [f"{_toml_key(str(k))} = {_toml_value(v)}" for k, v in inner.items()]
    return "\n".join(lines) + "\n"
