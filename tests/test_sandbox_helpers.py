"""A small estate whose every list answer is known, and a sandbox server around it (shared by the
sandbox, api and collect tests; this module holds no tests)."""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import msgspec

from auditor.estate.snapshot import Snapshot, loads_snapshot
from auditor.sandbox import FaultConfig, SandboxConfig, SandboxServer

SUB1 = "11111111-1111-4111-8111-111111111111"
SUB2 = "22222222-2222-4222-8222-222222222222"
S1 = f"/subscriptions/{SUB1}"
S2 = f"/subscriptions/{SUB2}"
MG = "/providers/Cloud.Management/managementGroups/mg-root"
MG_OTHER = "/providers/Cloud.Management/managementGroups/mg-empty"
RG1 = f"{S1}/resourceGroups/rg1"
RG2 = f"{S2}/resourceGroups/rg2"
VM1 = f"{RG1}/providers/Cloud.Compute/virtualMachines/vm1"
TENANT = "99999999-9999-4999-8999-999999999999"

USER = "aaaaaaaa-0000-4000-8000-000000000001"
GROUP = "aaaaaaaa-0000-4000-8000-000000000002"
OUTER_GROUP = "aaaaaaaa-0000-4000-8000-000000000003"
OTHER = "aaaaaaaa-0000-4000-8000-000000000004"
READER = "aaaaaaaa-0000-4000-8000-000000000005"
NOBODY = "aaaaaaaa-0000-4000-8000-000000000006"
ALL = "00000000-0000-0000-0000-000000000000"

OWNER_ROLE = "8e3af657-a8ff-443c-a75c-2fe8c4bcb635"
CONTRIBUTOR_ROLE = "b24988ac-6180-42a0-ab88-20f7382dd24c"
READER_ROLE = "acdd72a7-3385-48ef-bd42-f606fba81ae7"

BEARER_TOKENS = {
    "t-user": USER,
    "t-other": OTHER,
    "t-reader": READER,
    "t-nobody": NOBODY,
}
READER_TOKEN = "t-sandbox-reader"

API_TOKENS = {
    "v-user-full": "tok-user-full",
    "v-user-ro": "tok-user-ro",
    "v-app1-full": "tok-app1-full",
    "v-app2-ro": "tok-app2-ro",
    "v-app2-dev-full": "tok-app2-full",
}


def role_assignment(
    name: str, scope: str, role: str, principal: str, ptype: str = "User"
) -> dict[str, Any]:
    return {
        "id": f"{scope.rstrip('/')}/providers/Cloud.Authorization/roleAssignments/{name}",
        "name": name,
        "type": "Cloud.Authorization/roleAssignments",
        "properties": {
            "roleDefinitionId": f"/providers/Cloud.Authorization/roleDefinitions/{role}",
            "principalId": principal,
            "principalType": ptype,
            "scope": scope,
        },
    }


def deny_assignment(
    name: str,
    scope: str,
    principals: list[tuple[str, str]],
    excluded: Sequence[tuple[str, str]] = (),
    display: str | None = None,
) -> dict[str, Any]:
    return {
        "id": f"{scope}/providers/Cloud.Authorization/denyAssignments/{name}",
        "name": name,
        "type": "Cloud.Authorization/denyAssignments",
        "properties": {
            "denyAssignmentName": display or name,
            "description": f"about {name}",
            "scope": scope,
            "permissions": [{"actions": ["*/write"]}],
            "principals": [{"id": i, "type": t} for i, t in principals],
            "excludePrincipals": [{"id": i, "type": t} for i, t in excluded],
            "isSystemProtected": True,
        },
    }


def health_event(
    base: str, name: str, event_type: str, updated: str, service: str = "Virtual Machines"
) -> dict[str, Any]:
    return {
        "id": f"{base}/providers/Cloud.ResourceHealth/events/{name}",
        "name": name,
        "type": "Cloud.ResourceHealth/events",
        "properties": {
            "eventType": event_type,
            "status": "Active",
            "title": f"event {name}",
            "lastUpdateTime": updated,
            "impact": [
                {
                    "impactedService": service,
                    "impactedRegions": [{"impactedRegion": "westeurope", "status": "Active"}],
                }
            ],
        },
    }


ROLE_ASSIGNMENTS = [
    role_assignment("ra-root", "/", READER_ROLE, READER),
    role_assignment("ra-mg", MG, CONTRIBUTOR_ROLE, GROUP, "Group"),
    role_assignment("ra-mg-empty", MG_OTHER, READER_ROLE, OTHER),
    role_assignment("ra-sub1", S1, OWNER_ROLE, USER),
    role_assignment("ra-rg1", RG1, READER_ROLE, OTHER),
    role_assignment("ra-vm1", VM1, CONTRIBUTOR_ROLE, USER),
    role_assignment("ra-sub2", S2, READER_ROLE, OTHER),
    role_assignment("ra-outer", RG2, READER_ROLE, OUTER_GROUP, "Group"),
]

DENY_ASSIGNMENTS = [
    deny_assignment(
        "da-all", S1, [(ALL, "SystemDefined")], [(USER, "User")], display="Deny writes"
    ),
    deny_assignment("da-other", RG1, [(OTHER, "User")]),
    deny_assignment("da-group", S2, [(GROUP, "Group")]),
    deny_assignment("da-root", "/", [(OTHER, "User")]),
]

HEALTH_EVENTS = [
    health_event(S1, "EV1", "ServiceIssue", "2024-05-02T10:00:00Z"),
    health_event(S1, "EV2", "SecurityAdvisory", "2024-04-30T23:59:59Z", service="Storage"),
    health_event(VM1, "EV3", "PlannedMaintenance", "2024-05-10T08:00:00Z"),
    health_event(S1, "EV4", "HealthAdvisory", "2024-05-01T00:00:00Z", service="Storage"),
    health_event(S2, "EV5", "ServiceIssue", "2024-06-01T00:00:00Z"),
]

CLUSTERS = [
    {
        "id": f"{RG1}/providers/Cloud.AnalyticsCluster/clusters/existing",
        "name": "existing",
        "type": "Cloud.AnalyticsCluster/clusters",
        "location": "westeurope",
        "properties": {"clusterVersion": "5.1.3000.0.2308052231", "provisioningState": "Succeeded"},
    }
]

DOMAINS = [
    {
        "id": f"{RG2}/providers/Cloud.EventRouting/domains/dom-existing",
        "name": "dom-existing",
        "type": "Cloud.EventRouting/domains",
        "location": "northeurope",
        "properties": {"provisioningState": "Succeeded", "publicNetworkAccess": "Disabled"},
    }
]

DEV_TOOLING = {
    "user": {"id": "u-1", "email": "dev@example.com", "name": "devuser", "displayName": "Dev"},
    "apps": [
        {
            "owner": "devuser",
            "ownerType": "user",
            "name": "app1",
            "users": [
                {"email": "dev@example.com", "role": "admin"},
                {"email": "x@example.com", "role": "developer"},
            ],
        },
        {
            "owner": "org1",
            "ownerType": "org",
            "name": "app2",
            "users": [
                {"email": "dev@example.com", "role": "developer"},
                {"email": "y@example.com", "role": "admin"},
            ],
        },
    ],
    "tokens": [
        {
            "id": "tok-user-full",
            "kind": "user",
            "app": None,
            "accessType": "full",
            "description": "ci",
            "createdAt": "2024-01-01T00:00:00Z",
        },
        {
            "id": "tok-user-ro",
            "kind": "user",
            "app": None,
            "accessType": "readOnly",
            "description": "dashboards",
            "createdAt": "2024-01-02T00:00:00Z",
        },
        {
            "id": "tok-app1-full",
            "kind": "app",
            "app": "devuser/app1",
            "accessType": "full",
            "description": "release",
            "createdAt": "2024-01-03T00:00:00Z",
        },
        {
            "id": "tok-app2-ro",
            "kind": "app",
            "app": "org1/app2",
            "accessType": "readOnly",
            "description": "viewer",
            "createdAt": "2024-01-04T00:00:00Z",
        },
        {
            "id": "tok-app2-full",
            "kind": "app",
            "app": "org1/app2",
            "accessType": "full",
            "description": "admin",
            "createdAt": "2024-01-05T00:00:00Z",
        },
    ],
}


def estate_json() -> dict[str, Any]:
    return copy.deepcopy(
        {
            "snapshotVersion": 1,
            "collectedAt": "2024-06-01T00:00:00Z",
            "tenantId": TENANT,
            "hierarchy": [
                {"id": MG, "parent": "/", "displayName": "root"},
                {"id": MG_OTHER, "parent": "/", "displayName": "empty"},
                {"id": S1, "parent": MG, "displayName": "sub one"},
            ],
            "principals": [
                {"id": USER, "type": "User", "memberOf": [GROUP]},
                {"id": GROUP, "type": "Group", "memberOf": [OUTER_GROUP]},
                {"id": OUTER_GROUP, "type": "Group"},
                {"id": OTHER, "type": "User"},
                {"id": READER, "type": "User"},
                {"id": NOBODY, "type": "User"},
            ],
            "roleAssignments": ROLE_ASSIGNMENTS,
            "denyAssignments": DENY_ASSIGNMENTS,
            "clusters": CLUSTERS,
            "domains": DOMAINS,
            "healthEvents": HEALTH_EVENTS,
            "devTooling": DEV_TOOLING,
        }
    )


def estate() -> Snapshot:
    return loads_snapshot(msgspec.json.encode(estate_json()), source="test estate")


def config(**overrides: Any) -> SandboxConfig:
    values: dict[str, Any] = {
        "bearer_tokens": dict(BEARER_TOKENS),
        "api_tokens": dict(API_TOKENS),
        "reader_token": READER_TOKEN,
        "page_size": 2,
        "async_delay": 0.2,
        "faults": FaultConfig(),
    }
    values.update(overrides)
    return SandboxConfig(**values)


@contextmanager
def sandbox(snapshot: Snapshot | None = None, **overrides: Any) -> Iterator[SandboxServer]:
    """A sandbox on a free loopback port for the duration of the block."""
    with SandboxServer(snapshot if snapshot is not None else estate(), config(**overrides)) as s:
        yield s


def names(body: dict[str, Any]) -> list[str]:
    return sorted(item["name"] for item in body["value"])
