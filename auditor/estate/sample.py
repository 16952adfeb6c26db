"""The curated sample estate: a small, realistic tenant in which every rule of the shipped catalogue both
fails and passes at least once, plus the plan files (contracts section 3) that exercise the plan-only
rules.

- :func:`sample_snapshot_json` is the snapshot file as JSON (contracts section 2), :func:`sample_snapshot`
  the same validated through :func:`~auditor.estate.snapshot.loads_snapshot`, and :func:`sample_plans`
  the plan files by name.
- What a correct audit of them reports, rule by rule, lives with the tests
  (``tests/sample_outcomes.py``); the estate layer names no rule.

The estate ("Sample Corp"): management groups ``mg-sample-root`` > ``mg-platform`` and
``mg-landingzones`` > ``mg-corp``; subscriptions *prod* (under mg-corp), *dev* (mg-landingzones),
*shared* (mg-platform) and *sandbox* (missing from the hierarchy, so directly under ``/``). Ids are
GUIDs derived from readable labels (:func:`sample_id`), so the tables below can name things by label:
:data:`PRINCIPALS`, :data:`ROLE_ASSIGNMENTS`, :data:`ROLE_DEFINITIONS`, :data:`DENY_ASSIGNMENTS`,
:data:`CLUSTERS`, :data:`DOMAINS`, :data:`HEALTH_EVENTS`, :data:`TOKENS`.

Every secret here is obviously fake (``Sample-Pa55word!``, ``SampleStorageKey/NotReal...``); the only
token-shaped value is :data:`SAMPLE_API_TOKEN`, pasted into one plan body on purpose (token scanning).
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final, Literal

import msgspec

from auditor.estate.roles import (
    CONTRIBUTOR,
    OWNER,
    RBAC_ADMINISTRATOR,
    READER,
    USER_ACCESS_ADMINISTRATOR,
)
from auditor.model.access import ALL_PRINCIPALS_ID

if TYPE_CHECKING:
    from auditor.estate.snapshot import Snapshot

STORAGE_BLOB_DATA_READER: Final = "2a2b9908-6ea1-4ae2-8e65-a410df84e7d1"

SampleVariant = Literal["default", "token-sprawl"]

_NAMESPACE = uuid.UUID("6f1c9a52-3d2e-4b8a-9c71-5e0d4f2a8b13")


def sample_id(label: str) -> str:
    """A stable GUID for a readable label (uuid5: the same on every machine and Python version)."""
    return str(uuid.uuid5(_NAMESPACE, label))


# --------------------------------------------------------------------------------------------------
# Scopes
# --------------------------------------------------------------------------------------------------

TENANT_ID: Final = sample_id("tenant:sample-corp")
COLLECTED_AT: Final = "2026-11-21T10:00:00Z"
AUTHZ: Final = "Cloud.Authorization"

SUBSCRIPTIONS: Final[dict[str, str]] = {
    key: sample_id(f"subscription:{key}") for key in ("prod", "dev", "shared", "sandbox")
}
"""Subscription GUIDs by label."""

SUBSCRIPTION_NAMES: Final[dict[str, str]] = {
    "prod": "Sample Corp Production",
    "dev": "Sample Corp Development",
    "shared": "Sample Corp Shared Services",
    "sandbox": "Sample Corp Sandbox",
}


def mg_scope(name: str) -> str:
    return f"/providers/Cloud.Management/managementGroups/{name}"


def sub_scope(sub: str) -> str:
    """The scope of the subscription labelled ``sub``."""
    return f"/subscriptions/{SUBSCRIPTIONS[sub]}"


def rg_scope(sub: str, rg: str) -> str:
    return f"{sub_scope(sub)}/resourceGroups/{rg}"


def resource_scope(sub: str, rg: str, namespace_type: str, name: str) -> str:
    return f"{rg_scope(sub, rg)}/providers/{namespace_type}/{name}"


MG_ROOT: Final = mg_scope("mg-sample-root")
MG_PLATFORM: Final = mg_scope("mg-platform")
MG_LANDINGZONES: Final = mg_scope("mg-landingzones")
MG_CORP: Final = mg_scope("mg-corp")

SCOPES: Final[dict[str, str]] = {
    "/": "/",
    "mg-sample-root": MG_ROOT,
    "mg-platform": MG_PLATFORM,
    "mg-landingzones": MG_LANDINGZONES,
    "mg-corp": MG_CORP,
    **{key: sub_scope(key) for key in SUBSCRIPTIONS},
    "rg-app-prod": rg_scope("prod", "rg-app-prod"),
    "rg-events": rg_scope("prod", "rg-events"),
    "rg-managed-app": rg_scope("prod", "rg-managed-app"),
    "rg-app-dev": rg_scope("dev", "rg-app-dev"),
    "rg-network-hub": rg_scope("shared", "rg-network-hub"),
    "rg-shared-data": rg_scope("shared", "rg-shared-data"),
    "rg-platform-events": rg_scope("shared", "rg-platform-events"),
    "rg-sandbox-lab": rg_scope("sandbox", "rg-sandbox-lab"),
    "stprodlogs": resource_scope(
        "prod", "rg-app-prod", "Cloud.Storage/storageAccounts", "stprodlogs"
    ),
    "stmanagedapp": resource_scope(
        "prod", "rg-managed-app", "Cloud.Storage/storageAccounts", "stmanagedapp"
    ),
    "stsandboxlab": resource_scope(
        "sandbox", "rg-sandbox-lab", "Cloud.Storage/storageAccounts", "stsandboxlab"
    ),
    "vnet-hub": resource_scope(
        "shared", "rg-network-hub", "Cloud.Network/virtualNetworks", "vnet-hub"
    ),
}
"""Every scope the sample uses, by label."""

_HIERARCHY: list[tuple[str, str, str]] = [
    (MG_ROOT, "/", "Sample Corp"),
    (MG_PLATFORM, MG_ROOT, "Platform"),
    (MG_LANDINGZONES, MG_ROOT, "Landing zones"),
    (MG_CORP, MG_LANDINGZONES, "Corp"),
    (sub_scope("prod"), MG_CORP, SUBSCRIPTION_NAMES["prod"]),
    (sub_scope("dev"), MG_LANDINGZONES, SUBSCRIPTION_NAMES["dev"]),
    (sub_scope("shared"), MG_PLATFORM, SUBSCRIPTION_NAMES["shared"]),
    # the sandbox subscription is deliberately missing: it sits directly under "/"
]

# --------------------------------------------------------------------------------------------------
# Directory
# --------------------------------------------------------------------------------------------------

_DOMAIN_NAME = "samplecorp.example"

# label, type, display name, email, userType, accountEnabled, memberOf (labels)
_PRINCIPALS: list[tuple[str, str, str, str | None, str | None, bool, list[str]]] = [
    ("alice", "User", "Alice Archer (break-glass)", "alice", "Member", True, ["g-platform-admins"]),
    ("bob", "User", "Bob Brennan", "bob", "Member", True, []),
    ("carol", "User", "Carol Chen", "carol", "Member", True, []),
    ("dave", "User", "Dave Dimitrov", "dave", "Member", True, ["g-engineering"]),
    ("eve", "User", "Eve Eriksen (Partner)", "eve@partner.example", "Guest", True, []),
    ("frank", "User", "Frank Foster (left)", "frank", "Member", False, []),
    (
        "grace",
        "User",
        "Grace Garcia (Contractor)",
        "grace@contractor.example",
        "Guest",
        True,
        ["g-contractors"],
    ),
    ("henry", "User", "Henry Hughes (Auditor)", "henry@audit-firm.example", "Guest", True, []),
    ("ivan", "User", "Ivan Ivanov", "ivan", "Member", True, ["g-release-managers"]),
    ("judy", "User", "Judy Jensen", "judy", "Member", True, ["g-data-analysts"]),
    ("kate", "User", "Kate Kowalski", "kate", "Member", True, []),
    ("liam", "User", "Liam Lopez", "liam", "Member", True, ["g-platform-admins"]),
    ("mia", "User", "Mia Moreau", "mia", "Member", True, []),
    ("nina", "User", "Nina Nakamura", "nina", "Member", True, ["g-contractors"]),
    ("oscar", "User", "Oscar Okafor", "oscar", "Member", True, []),
    ("peter", "User", "Peter Petrov", "peter", "Member", True, []),
    ("quinn", "User", "Quinn Quade", "quinn", "Member", True, []),
    ("rita", "User", "Rita Rossi", "rita", "Member", True, []),
    ("sam", "User", "Sam Sato", "sam", "Member", True, ["g-sandbox-admins"]),
    ("tom", "User", "Tom Tanaka", "tom", "Member", True, ["g-prod-owners"]),
    # groups: grace -> g-contractors -> g-app-team -> g-engineering is three levels of nesting
    ("g-engineering", "Group", "Engineering", None, None, True, []),
    ("g-app-team", "Group", "App Team", None, None, True, ["g-engineering"]),
    ("g-contractors", "Group", "Contractors", None, None, True, ["g-app-team"]),
    ("g-prod-owners", "Group", "Production Owners", None, None, True, []),
    ("g-data-analysts", "Group", "Data Analysts", None, None, True, []),
    ("g-release-managers", "Group", "Release Managers", None, None, True, []),
    ("g-release-bots", "Group", "Release Bots", None, None, True, ["g-release-managers"]),
    ("g-platform-admins", "Group", "Platform Admins", None, None, True, []),
    ("g-sandbox-admins", "Group", "Sandbox Admins", None, None, True, []),
    # service principals
    ("sp-deploy-prod", "ServicePrincipal", "deploy-prod-pipeline", None, None, True, []),
    ("sp-app-backend", "ServicePrincipal", "app-backend", None, None, True, []),
    ("sp-legacy-automation", "ServicePrincipal", "legacy-automation", None, None, True, []),
    ("sp-managed-app", "ServicePrincipal", "managed-app-publisher", None, None, True, []),
    (
        "sp-release-pipeline",
        "ServicePrincipal",
        "release-pipeline",
        None,
        None,
        True,
        ["g-release-bots"],
    ),
    ("sp-old-integration", "ServicePrincipal", "old-crm-integration", None, None, False, []),
]

PRINCIPALS: Final[dict[str, str]] = {
    label: sample_id(f"principal:{label}") for label, *_ in _PRINCIPALS
}
"""Principal ids by label (users, groups, service principals)."""

ORPHAN_PRINCIPAL_ID: Final = sample_id("principal:deleted-user")
"""A principal that role assignments name but the directory does not hold (an orphaned assignment)."""

_PRINCIPAL_TYPES = {label: kind for label, kind, *_ in _PRINCIPALS}
_DISPLAY_NAMES = {label: name for label, _k, name, *_ in _PRINCIPALS}


def _email(label: str, given: str | None) -> str | None:
    if given is None:
        return None
    return given if "@" in given else f"{given}@{_DOMAIN_NAME}"


def _principal_ref(label: str) -> dict[str, Any]:
    """A ``Principal`` of a deny assignment (seed 2.A)."""
    email = next((_email(label, e) for lab, _k, _n, e, *_ in _PRINCIPALS if lab == label), None)
    out: dict[str, Any] = {
        "id": PRINCIPALS[label],
        "type": _PRINCIPAL_TYPES[label],
        "displayName": _DISPLAY_NAMES[label],
    }
    if email:
        out["email"] = email
    return out


_ALL_PRINCIPALS_REF: Final[dict[str, Any]] = {
    "id": ALL_PRINCIPALS_ID,
    "type": "SystemDefined",
    "displayName": "All Principals",
}

# --------------------------------------------------------------------------------------------------
# Role definitions (custom) and role assignments
# --------------------------------------------------------------------------------------------------

_SA = "Cloud.Storage/storageAccounts"
_BLOBS_READ = f"{_SA}/blobServices/containers/blobs/read"

# label, name, description, assignableScopes, actions, notActions, dataActions, notDataActions
_CUSTOM_ROLES: list[tuple[str, str, str, list[str], list[str], list[str], list[str], list[str]]] = [
    (
        "super-operator",
        "Super Operator (legacy)",
        "Everything, for the old automation account. Scheduled for removal.",
        [sub_scope("dev")],
        ["*"],
        [],
        [],
        [],
    ),
    (
        "access-delegator",
        "Access Delegator",
        "Lets team leads grant access to their own people.",
        [sub_scope("prod")],
        [f"{AUTHZ}/roleAssignments/write", f"{AUTHZ}/roleAssignments/delete", "*/read"],
        [],
        [],
        [],
    ),
    (
        "release-access-manager",
        "Release Access Manager",
        "Deployments plus the role assignments a release needs.",
        [sub_scope("dev")],
        [
            f"{AUTHZ}/roleAssignments/*",
            "Cloud.Resources/deployments/*",
            "Cloud.Resources/subscriptions/resourceGroups/read",
        ],
        [],
        [],
        [],
    ),
    (
        "storage-key-operator",
        "Storage Key Operator",
        "Lists and rotates storage account keys.",
        [sub_scope("prod")],
        [f"{_SA}/listKeys/action", f"{_SA}/regenerateKey/action"],
        [],
        [],
        [],
    ),
    (
        "blob-auditor",
        "Blob Auditor",
        "Reads every blob for the yearly audit.",
        [MG_CORP],
        [f"{_SA}/blobServices/containers/read"],
        [],
        [_BLOBS_READ],
        [],
    ),
    (
        "log-container-reader",
        "Log Container Reader",
        "Reads log blobs, not their tags.",
        [sub_scope("prod"), sub_scope("dev")],
        [f"{_SA}/blobServices/containers/read"],
        [],
        [_BLOBS_READ],
        [f"{_SA}/blobServices/containers/blobs/tags/read"],
    ),
]

ROLE_DEFINITION_GUIDS: Final[dict[str, str]] = {
    label: sample_id(f"role:{label}") for label, *_ in _CUSTOM_ROLES
}
ROLE_DEFINITIONS: Final[dict[str, str]] = {
    label: f"{scopes[0]}/providers/{AUTHZ}/roleDefinitions/{ROLE_DEFINITION_GUIDS[label]}"
    for label, _n, _d, scopes, *_ in _CUSTOM_ROLES
}
"""Custom role definition ids by label."""

_BUILTIN: dict[str, str] = {
    "Owner": OWNER,
    "Contributor": CONTRIBUTOR,
    "Reader": READER,
    "UAA": USER_ACCESS_ADMINISTRATOR,
    "RBAC Admin": RBAC_ADMINISTRATOR,
    "Blob Reader": STORAGE_BLOB_DATA_READER,
}

CONDITION_LOGS_CONTAINER: Final = (
    f"((!(ActionMatches{{'{_BLOBS_READ}'}})) OR "
    f"(@Resource[{_SA}/blobServices/containers:name] StringEquals 'logs'))"
)
"""A valid condition (version 2.0): blob reads only in the container ``logs``."""

CONDITION_PROJECT_TAG: Final = (
    f"((!(ActionMatches{{'{_BLOBS_READ}'}})) OR "
    f"(@Resource[{_SA}/blobServices/containers/blobs/tags:Project<$key_case_sensitive$>] "
    f"StringEquals 'Cascade'))"
)
"""A valid condition (version 2.0): blob reads only of blobs tagged ``Project=Cascade``."""

CONDITION_UNPARSABLE: Final = (
    f"((!(ActionMatches{{'{_BLOBS_READ}'}})) OR "
    f"(@Resource[{_SA}/blobServices/containers:name] StringEquals 'exports'"
)
"""A condition that does not parse: the closing parenthesis is missing."""

# label, principal label (or "orphan"), role (built-in alias of _BUILTIN or custom label), scope label,
# condition (key of _CONDITIONS)
_ROLE_ASSIGNMENTS: list[tuple[str, str, str, str, str | None]] = [
    # management groups
    ("alice-owner-root", "alice", "Owner", "mg-sample-root", None),
    ("liam-uaa-root", "liam", "UAA", "mg-sample-root", None),
    ("platform-admins-reader-platform", "g-platform-admins", "Reader", "mg-platform", None),
    # prod
    ("bob-owner-prod", "bob", "Owner", "prod", None),
    ("eve-owner-prod", "eve", "Owner", "prod", None),
    ("prod-owners-owner-prod", "g-prod-owners", "Owner", "prod", None),
    ("deploy-sp-owner-prod", "sp-deploy-prod", "Owner", "prod", None),
    ("tom-contributor-prod", "tom", "Contributor", "prod", None),
    ("sam-reader-prod", "sam", "Reader", "prod", None),
    ("mia-access-delegator-prod", "mia", "access-delegator", "prod", None),
    ("analysts-blob-reader-rg", "g-data-analysts", "Blob Reader", "rg-app-prod", None),
    ("judy-blob-reader-conditioned", "judy", "Blob Reader", "stprodlogs", "tag"),
    ("kate-blob-reader-conditioned", "kate", "Blob Reader", "stprodlogs", "logs"),
    ("oscar-key-operator-managed", "oscar", "storage-key-operator", "rg-managed-app", None),
    ("sam-reader-managed", "sam", "Reader", "rg-managed-app", None),
    ("managed-app-sp-contributor", "sp-managed-app", "Contributor", "rg-managed-app", None),
    # dev
    ("dave-owner-dev", "dave", "Owner", "dev", None),
    ("henry-reader-dev", "henry", "Reader", "dev", None),
    ("engineering-reader-dev", "g-engineering", "Reader", "dev", None),
    ("app-team-contributor-rg", "g-app-team", "Contributor", "rg-app-dev", None),
    ("frank-contributor-rg", "frank", "Contributor", "rg-app-dev", None),
    ("backend-sp-contributor-rg", "sp-app-backend", "Contributor", "rg-app-dev", None),
    ("legacy-sp-super-operator-dev", "sp-legacy-automation", "super-operator", "dev", None),
    ("release-managers-access-dev", "g-release-managers", "release-access-manager", "dev", None),
    # shared
    ("peter-rbac-admin-shared", "peter", "RBAC Admin", "shared", None),
    ("peter-owner-network-rg", "peter", "Owner", "rg-network-hub", None),
    ("orphan-reader-shared", "orphan", "Reader", "shared", None),
    # sandbox
    ("carol-owner-sandbox", "carol", "Owner", "sandbox", None),
    ("sandbox-admins-owner-sandbox", "g-sandbox-admins", "Owner", "sandbox", None),
    ("peter-uaa-sandbox-rg", "peter", "UAA", "rg-sandbox-lab", None),
    ("quinn-blob-reader-bad-condition", "quinn", "Blob Reader", "stsandboxlab", "unparsable"),
    ("rita-blob-reader-v1-condition", "rita", "Blob Reader", "stsandboxlab", "v1"),
]

_RA_DESCRIPTIONS: dict[str, str] = {
    "alice-owner-root": "Break-glass account",
    "eve-owner-prod": "Partner engagement 2026",
    "deploy-sp-owner-prod": "Pipeline deploys infrastructure",
    "analysts-blob-reader-rg": "Analysts read everything in the app resource group",
    "judy-blob-reader-conditioned": "Only Project=Cascade blobs",
    "kate-blob-reader-conditioned": "Only the logs container",
    "managed-app-sp-contributor": "Managed application publisher",
    "henry-reader-dev": "External audit, read only",
    "orphan-reader-shared": "Account deleted in 2025",
}

_CONDITIONS: dict[str, tuple[str, str]] = {
    "logs": (CONDITION_LOGS_CONTAINER, "2.0"),
    "tag": (CONDITION_PROJECT_TAG, "2.0"),
    "unparsable": (CONDITION_UNPARSABLE, "2.0"),
    "v1": (CONDITION_LOGS_CONTAINER, "1.0"),  # a valid text, but version 1.0
}

ROLE_ASSIGNMENTS: Final[dict[str, str]] = {
    label: f"{SCOPES[scope]}/providers/{AUTHZ}/roleAssignments/{sample_id('ra:' + label)}"
    for label, _p, _r, scope, *_ in _ROLE_ASSIGNMENTS
}
"""Role assignment ids by label."""


def _role_definition_id(role: str, scope: str) -> str:
    guid = _BUILTIN.get(role) or ROLE_DEFINITION_GUIDS[role]
    if scope.startswith("/subscriptions/"):
        sub = "/".join(scope.split("/")[:3])
        return f"{sub}/providers/{AUTHZ}/roleDefinitions/{guid}"
    return f"/providers/{AUTHZ}/roleDefinitions/{guid}"


def _role_assignment(
    index: int,
    label: str,
    principal: str,
    role: str,
    scope_label: str,
    condition_key: str | None,
) -> dict[str, Any]:
    scope = SCOPES[scope_label]
    if principal == "orphan":
        principal_id, principal_type = ORPHAN_PRINCIPAL_ID, "User"
    else:
        principal_id, principal_type = PRINCIPALS[principal], _PRINCIPAL_TYPES[principal]
    created = f"2025-{1 + index % 12:02d}-{1 + index % 27:02d}T09:{index % 60:02d}:00Z"
    props: dict[str, Any] = {
        "roleDefinitionId": _role_definition_id(role, scope),
        "principalId": principal_id,
        "principalType": principal_type,
        "scope": scope,
    }
    if label in _RA_DESCRIPTIONS:
        props["description"] = _RA_DESCRIPTIONS[label]
    if condition_key is not None:
        props["condition"], props["conditionVersion"] = _CONDITIONS[condition_key]
    props.update(
        {
            "createdOn": created,
            "updatedOn": created,
            "createdBy": PRINCIPALS["alice"],
            "updatedBy": PRINCIPALS["alice"],
        }
    )
    return {
        "id": ROLE_ASSIGNMENTS[label],
        "name": sample_id("ra:" + label),
        "type": f"{AUTHZ}/roleAssignments",
        "properties": props,
    }


def _role_definition(
    label: str,
    name: str,
    description: str,
    scopes: list[str],
    actions: list[str],
    not_actions: list[str],
    data_actions: list[str],
    not_data_actions: list[str],
) -> dict[str, Any]:
    return {
        "id": ROLE_DEFINITIONS[label],
        "name": ROLE_DEFINITION_GUIDS[label],
        "type": f"{AUTHZ}/roleDefinitions",
        "properties": {
            "roleName": name,
            "type": "CustomRole",
            "description": description,
            "assignableScopes": scopes,
            "permissions": [
                {
                    "actions": actions,
                    "notActions": not_actions,
                    "dataActions": data_actions,
                    "notDataActions": not_data_actions,
                }
            ],
        },
    }


# --------------------------------------------------------------------------------------------------
# Deny assignments
# --------------------------------------------------------------------------------------------------

# label, scope label, name, description, doNotApplyToChildScopes, isSystemProtected, principals,
# excludePrincipals, actions, notActions
_DENY_ASSIGNMENTS: list[
    tuple[str, str, str, str, bool, bool, list[str], list[str], list[str], list[str]]
] = [
    (
        "managed-app-lock",
        "rg-managed-app",
        "Managed application lock",
        "Created by the managed application: only the publisher may change its resources.",
        False,
        True,
        ["*"],
        ["sp-managed-app"],
        ["*"],
        ["*/read"],
    ),
    (
        "no-role-writes-mia",
        "prod",
        "No role writes for Mia",
        "Mia delegates access through the ticketing flow only.",
        False,
        False,
        ["mia"],
        [],
        [f"{AUTHZ}/roleAssignments/write", f"{AUTHZ}/roleDefinitions/write"],
        [],
    ),
    (
        "protect-event-domains",
        "rg-events",
        "Protect event domains",
        "Nobody but the platform admins deletes domains in rg-events.",
        True,
        False,
        ["*"],
        ["g-platform-admins"],
        ["Cloud.EventRouting/domains/delete"],
        [],
    ),
    (
        "contractor-network-guard",
        "dev",
        "Contractors cannot delete network resources",
        "Guards the dev network against contractors.",
        False,
        False,
        ["nina", "g-contractors"],
        ["nina"],
        ["Cloud.Network/*/delete"],
        [],
    ),
    (
        "sandbox-cluster-guard",
        "rg-sandbox-lab",
        "Keep lab clusters",
        "No cluster deletes at the lab resource group itself.",
        True,
        False,
        ["*"],
        ["carol"],
        ["Cloud.AnalyticsCluster/clusters/delete"],
        [],
    ),
]

DENY_ASSIGNMENTS: Final[dict[str, str]] = {
    label: f"{SCOPES[scope]}/providers/{AUTHZ}/denyAssignments/{sample_id('deny:' + label)}"
    for label, scope, *_ in _DENY_ASSIGNMENTS
}
"""Deny assignment ids by label."""


def _deny_assignment(
    label: str,
    scope_label: str,
    name: str,
    description: str,
    child_scopes_off: bool,
    system_protected: bool,
    principals: list[str],
    excluded: list[str],
    actions: list[str],
    not_actions: list[str],
) -> dict[str, Any]:
    def ref(p: str) -> dict[str, Any]:
        return dict(_ALL_PRINCIPALS_REF) if p == "*" else _principal_ref(p)

    return {
        "id": DENY_ASSIGNMENTS[label],
        "name": sample_id("deny:" + label),
        "type": f"{AUTHZ}/denyAssignments",
        "properties": {
            "denyAssignmentName": name,
            "description": description,
            "scope": SCOPES[scope_label],
            "doNotApplyToChildScopes": child_scopes_off,
            "permissions": [
                {
                    "actions": actions,
                    "notActions": not_actions,
                    "dataActions": [],
                    "notDataActions": [],
                }
            ],
            "principals": [ref(p) for p in principals],
            "excludePrincipals": [ref(p) for p in excluded],
            "isSystemProtected": system_protected,
            "createdBy": PRINCIPALS["sp-managed-app" if system_protected else "alice"],
            "createdOn": "2025-06-02T08:00:00Z",
            "updatedBy": PRINCIPALS["sp-managed-app" if system_protected else "alice"],
            "updatedOn": "2025-06-02T08:00:00Z",
        },
    }


# --------------------------------------------------------------------------------------------------
# Analytics clusters (Cluster responses, seed 2.B)
# --------------------------------------------------------------------------------------------------

CLUSTER_TYPE: Final = "Cloud.AnalyticsCluster/clusters"


def make_cluster(
    sub_id: str,
    rg: str,
    name: str,
    location: str,
    *,
    version: str = "5.1.3000.0",
    kind: str = "spark",
    in_transit: bool | None = True,
    at_host: bool | None = True,
    customer_key: bool = True,
    vnet_roles: tuple[str, ...] = ("headnode", "workernode", "zookeepernode"),
    provider_connection: str | None = "Outbound",
    private_link: str | None = "Enabled",
    compute_isolation: bool | None = True,
    provisioning_state: str = "Succeeded",
    cluster_state: str = "Running",
    created: str = "2025-09-01T10:00:00Z",
    tags: dict[str, str] | None = None,
    zones: list[str] | None = None,
) -> dict[str, Any]:
    """A Cluster response (seed 2.B) with the security-relevant properties as parameters.

    The generator uses it too. A property given as None is left out of the response.
    """
    rid = f"/subscriptions/{sub_id}/resourceGroups/{rg}/providers/{CLUSTER_TYPE}/{name}"
    vnet = (
        f"/subscriptions/{sub_id}/resourceGroups/{rg}/providers/Cloud.Network/virtualNetworks/"
        f"vnet-{name}"
    )
    roles: list[dict[str, Any]] = []
    for role, count, size in (
        ("headnode", 2, "standard_e8_v3"),
        ("workernode", 4, "standard_e16_v3"),
        ("zookeepernode", 3, "standard_a2_v2"),
    ):
        item: dict[str, Any] = {
            "name": role,
            "targetInstanceCount": count,
            "hardwareProfile": {"vmSize": size},
            "osProfile": {"linuxOperatingSystemProfile": {"username": "sshuser"}},
        }
        if role in vnet_roles:
            item["virtualNetworkProfile"] = {"id": vnet, "subnet": f"{vnet}/subnets/default"}
        roles.append(item)
    props: dict[str, Any] = {
        "clusterVersion": version,
        "osType": "Linux",
        "tier": "Standard",
        "clusterId": sample_id(f"cluster-id:{rid}").replace("-", ""),
        "clusterDefinition": {
            "blueprint": f"https://{name}.analytics.example.net/blueprint",
            "kind": kind,
            "componentVersion": {"Spark": "3.3"} if kind == "spark" else {"Hadoop": "3.3"},
        },
        "computeProfile": {"roles": roles},
        "provisioningState": provisioning_state,
        "clusterState": cluster_state,
        "createdDate": created,
        "quotaInfo": {"coresUsed": 84},
        "connectivityEndpoints": [
            {
                "name": "SSH",
                "protocol": "TCP",
                "location": f"{name}-ssh.analytics.example.net",
                "port": 22,
            },
            {
                "name": "HTTPS",
                "protocol": "TCP",
                "location": f"{name}.analytics.example.net",
                "port": 443,
            },
        ],
    }
    network: dict[str, Any] = {}
    if provider_connection is not None:
        network["resourceProviderConnection"] = provider_connection
    if private_link is not None:
        network["privateLink"] = private_link
    props["networkProperties"] = network
    if compute_isolation is not None:
        props["computeIsolationProperties"] = {
            "enableComputeIsolation": compute_isolation,
            "hostSku": None,
        }
    if in_transit is not None:
        props["encryptionInTransitProperties"] = {"isEncryptionInTransitEnabled": in_transit}
    disk: dict[str, Any] = {
        "vaultUri": None,
        "keyName": None,
        "keyVersion": None,
        "encryptionAlgorithm": None,
        "msiResourceId": None,
    }
    if at_host is not None:
        disk["encryptionAtHost"] = at_host
    if customer_key:
        disk.update(
            {
                "vaultUri": f"https://kv-{name}.vault.example.net",
                "keyName": f"{name}-disk-key",
                "keyVersion": sample_id(f"key:{rid}").replace("-", ""),
                "encryptionAlgorithm": "RSA-OAEP",
                "msiResourceId": (
                    f"/subscriptions/{sub_id}/resourceGroups/{rg}/providers/"
                    f"Cloud.ManagedIdentity/userAssignedIdentities/id-{name}"
                ),
            }
        )
    props["diskEncryptionProperties"] = disk
    out: dict[str, Any] = {
        "id": rid,
        "name": name,
        "type": CLUSTER_TYPE,
        "location": location,
        "etag": sample_id(f"etag:{rid}"),
        "tags": tags,
    }
    if zones:
        out["zones"] = zones
    out["properties"] = props
    return out


def _cluster_id(sub: str, rg: str, name: str) -> str:
    return resource_scope(sub, rg, CLUSTER_TYPE, name)


CLUSTERS: Final[dict[str, str]] = {
    "hdi-prod-analytics": _cluster_id("prod", "rg-app-prod", "hdi-prod-analytics"),
    "hdi-dev-sandbox": _cluster_id("dev", "rg-app-dev", "hdi-dev-sandbox"),
    "hdi-shared-etl": _cluster_id("shared", "rg-shared-data", "hdi-shared-etl"),
}
"""Cluster ids by name."""


def _clusters() -> list[dict[str, Any]]:
    return [
        # compliant with every cluster rule; its location is hit by an active service issue
        make_cluster(
            SUBSCRIPTIONS["prod"],
            "rg-app-prod",
            "hdi-prod-analytics",
            "westeurope",
            tags={"env": "prod", "costCenter": "4711"},
            zones=["1", "2"],
        ),
        # fails nearly everything
        make_cluster(
            SUBSCRIPTIONS["dev"],
            "rg-app-dev",
            "hdi-dev-sandbox",
            "eastus",
            version="4.0.3000.1",
            kind="hadoop",
            in_transit=False,
            at_host=False,
            customer_key=False,
            vnet_roles=("headnode", "zookeepernode"),
            provider_connection="Inbound",
            private_link="Disabled",
            compute_isolation=False,
            tags={"env": "dev"},
        ),
        # private link without Outbound, no customer-managed key, a failed deployment
        make_cluster(
            SUBSCRIPTIONS["shared"],
            "rg-shared-data",
            "hdi-shared-etl",
            "North Europe",
            version="5.1.2000.0",
            customer_key=False,
            provider_connection="Inbound",
            private_link="Enabled",
            compute_isolation=False,
            provisioning_state="Failed",
            cluster_state="Error",
            tags=None,
        ),
    ]


# --------------------------------------------------------------------------------------------------
# Event-routing domains (Domain responses, seed 2.C)
# --------------------------------------------------------------------------------------------------

DOMAIN_TYPE: Final = "Cloud.EventRouting/domains"


def _pec(domain_id: str, name: str, status: str, state: str = "Succeeded") -> dict[str, Any]:
    """A private endpoint connection of a domain."""
    endpoint = (
        domain_id.split("/providers/")[0] + f"/providers/Cloud.Network/privateEndpoints/{name}"
    )
    return {
        "id": f"{domain_id}/privateEndpointConnections/{name}.{sample_id(name)[:8]}",
        "name": f"{name}.{sample_id(name)[:8]}",
        "type": f"{DOMAIN_TYPE}/privateEndpointConnections",
        "properties": {
            "groupIds": ["domain"],
            "privateEndpoint": {"id": endpoint},
            "privateLinkServiceConnectionState": {
                "actionsRequired": "None",
                "description": f"{status} by the platform team",
                "status": status,
            },
            "provisioningState": state,
        },
    }


def make_domain(
    sub_id: str,
    rg: str,
    name: str,
    location: str,
    properties: dict[str, Any],
    *,
    identity: dict[str, Any] | None = None,
    tags: dict[str, str] | None = None,
    private_endpoints: Sequence[tuple[str, str]] = (),
    provisioning_state: str = "Succeeded",
) -> dict[str, Any]:
    """A Domain response (seed 2.C): ``properties`` as given (so a missing property stays missing)
    plus the response-only fields."""
    rid = f"/subscriptions/{sub_id}/resourceGroups/{rg}/providers/{DOMAIN_TYPE}/{name}"
    props = dict(properties)
    props["endpoint"] = (
        f"https://{name}.{location.replace(' ', '').lower()}-1.eventrouting.example.net/api/events"
    )
    props["metricResourceId"] = sample_id(f"metric:{rid}")
    props["privateEndpointConnections"] = [_pec(rid, n, s) for n, s in private_endpoints]
    props["provisioningState"] = provisioning_state
    out: dict[str, Any] = {"id": rid, "name": name, "type": DOMAIN_TYPE, "location": location}
    if tags is not None:
        out["tags"] = tags
    if identity is not None:
        out["identity"] = identity
    out["systemData"] = {
        "createdAt": "2025-04-10T12:00:00Z",
        "createdBy": f"alice@{_DOMAIN_NAME}",
        "createdByType": "User",
        "lastModifiedAt": "2026-10-01T08:30:00Z",
        "lastModifiedBy": PRINCIPALS["sp-deploy-prod"],
        "lastModifiedByType": "Application",
    }
    out["properties"] = props
    return out


def _domain_id(sub: str, rg: str, name: str) -> str:
    return resource_scope(sub, rg, DOMAIN_TYPE, name)


DOMAINS: Final[dict[str, str]] = {
    "dom-orders": _domain_id("prod", "rg-events", "dom-orders"),
    "dom-dev-telemetry": _domain_id("dev", "rg-app-dev", "dom-dev-telemetry"),
    "dom-platform-audit": _domain_id("shared", "rg-platform-events", "dom-platform-audit"),
    "dom-sandbox-events": _domain_id("sandbox", "rg-sandbox-lab", "dom-sandbox-events"),
}
"""Domain ids by name."""

_FULL_MAPPING: Final[dict[str, Any]] = {
    "inputSchemaMappingType": "Json",
    "properties": {
        "id": {"sourceField": "eventId"},
        "eventTime": {"sourceField": "occurredAt"},
        "topic": {"sourceField": "stream"},
        "subject": {"sourceField": "entity", "defaultValue": "unknown"},
        "eventType": {"sourceField": "kind"},
        "dataVersion": {"defaultValue": "1.0"},
    },
}


def _system_identity(label: str) -> dict[str, Any]:
    return {
        "type": "SystemAssigned",
        "principalId": sample_id(f"msi:{label}"),
        "tenantId": TENANT_ID,
    }


def _domains() -> list[dict[str, Any]]:
    uai = (
        f"{rg_scope('sandbox', 'rg-sandbox-lab')}/providers/Cloud.ManagedIdentity/"
        "userAssignedIdentities/id-sandbox-events"
    )
    return [
        # compliant with every domain rule (in-region residency included)
        make_domain(
            SUBSCRIPTIONS["prod"],
            "rg-events",
            "dom-orders",
            "northeurope",
            {
                "autoCreateTopicWithFirstSubscription": None,
                "dataResidencyBoundary": "WithinRegion",
                "disableLocalAuth": True,
                "inboundIpRules": [],
                "inputSchema": "CloudEventSchemaV1_0",
                "minimumTlsVersionAllowed": "1.2",
                "publicNetworkAccess": "Disabled",
            },
            identity=_system_identity("dom-orders"),
            tags={"env": "prod"},
            private_endpoints=[("pe-dom-orders", "Approved")],
        ),
        # defaults everywhere: public, no rules, no TLS floor, local auth, no identity, no endpoint
        make_domain(
            SUBSCRIPTIONS["dev"],
            "rg-app-dev",
            "dom-dev-telemetry",
            "eastus",
            {
                "dataResidencyBoundary": "WithinGeopair",
                "disableLocalAuth": False,
                "inputSchema": "CustomEventSchema",
            },
        ),
        # public with one good rule and 0.0.0.0/0; TLS 1.1; identity None; pending endpoint
        make_domain(
            SUBSCRIPTIONS["shared"],
            "rg-platform-events",
            "dom-platform-audit",
            "westus2",
            {
                "disableLocalAuth": True,
                "inboundIpRules": [
                    {"ipMask": "10.20.0.0/16", "action": "Allow"},
                    {"ipMask": "0.0.0.0/0", "action": "Allow"},
                ],
                "inputSchema": "CustomEventSchema",
                "inputSchemaMapping": {
                    "inputSchemaMappingType": "Json",
                    "properties": {
                        "id": {"sourceField": "auditId"},
                        "eventTime": {"sourceField": "time"},
                        "subject": {},
                        "eventType": {"sourceField": "action", "defaultValue": "audit"},
                    },
                },
                "minimumTlsVersionAllowed": "1.1",
                "publicNetworkAccess": "Enabled",
            },
            identity={"type": "None"},
            private_endpoints=[("pe-platform-audit", "Pending")],
        ),
        # private, yet IP rules given; reserved userAssignedIdentities; one rejected endpoint
        make_domain(
            SUBSCRIPTIONS["sandbox"],
            "rg-sandbox-lab",
            "dom-sandbox-events",
            "uksouth",
            {
                "autoDeleteTopicWithLastSubscription": False,
                "dataResidencyBoundary": "WithinRegion",
                "disableLocalAuth": True,
                "inboundIpRules": [{"ipMask": "198.51.100.0/24", "action": "Allow"}],
                "inputSchema": "CustomEventSchema",
                "inputSchemaMapping": copy.deepcopy(_FULL_MAPPING),
                "minimumTlsVersionAllowed": "1.2",
                "publicNetworkAccess": "Disabled",
            },
            identity={
                "type": "UserAssigned",
                "userAssignedIdentities": {
                    uai: {"clientId": sample_id("client:uai"), "principalId": sample_id("uai")}
                },
            },
            private_endpoints=[("pe-sandbox-a", "Approved"), ("pe-sandbox-b", "Rejected")],
        ),
    ]


# --------------------------------------------------------------------------------------------------
# Health events (seed 2.D)
# --------------------------------------------------------------------------------------------------

HEALTH_EVENT_TYPE: Final = "Cloud.ResourceHealth/events"

HTML_DESCRIPTION: Final = (
    "<p><b>bold</b><script>alert(1)</script> Between 08:10 UTC and now, a subset of customers "
    "using Analytics Cluster in West Europe may see job submission failures.</p>"
    '<p><a href="javascript:alert(2)" onclick="alert(3)">Status page</a></p>'
)
"""A description carrying HTML and script, for the renderers' sanitising."""


def make_health_event(
    listed_for: str,
    tracking_id: str,
    *,
    event_type: str,
    status: str,
    event_level: str,
    priority: int | None,
    title: str,
    service: str,
    regions: list[str],
    subscriptions: list[str],
    start: str = "2026-11-20T08:10:00Z",
    last_update: str = "2026-11-21T09:00:00Z",
    mitigated: str | None = None,
    description: str | None = None,
    is_hir: bool = False,
    event_source: str = "ServiceHealth",
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A health event as listed for ``listed_for`` (a subscription or resource id, contracts 2)."""
    props: dict[str, Any] = {
        "eventType": event_type,
        "eventSource": event_source,
        "status": status,
        "eventLevel": event_level,
        "level": "Critical" if event_level in ("Critical", "Error") else "Warning",
        "title": title,
        "summary": f"{title}. See the description for details.",
        "header": "Your service might have been impacted by an issue",
        "description": description or f"{title}. Engineers are investigating.",
        "impactStartTime": start,
        "lastUpdateTime": last_update,
        "impact": [
            {
                "impactedService": service,
                "impactedServiceGuid": sample_id(f"service:{service}"),
                "impactedRegions": [
                    {
                        "impactedRegion": region,
                        "status": status,
                        "impactedSubscriptions": subscriptions,
                        "impactedTenants": [TENANT_ID],
                        "lastUpdateTime": last_update,
                        "updates": [
                            {"summary": f"Update on {title}", "updateDateTime": last_update}
                        ],
                    }
                    for region in regions
                ],
            }
        ],
        "isHIR": is_hir,
        "enableMicrosoftSupport": True,
        "enableChatWithUs": False,
        "platformInitiated": event_type == "PlannedMaintenance",
        "externalIncidentId": tracking_id,
        "impactType": event_type,
    }
    if mitigated is not None:
        props["impactMitigationTime"] = mitigated
        props["duration"] = 3600
    if priority is not None:
        props["priority"] = priority
    if extra:
        props.update(extra)
    return {
        "id": f"{listed_for}/providers/{HEALTH_EVENT_TYPE}/{tracking_id}",
        "name": tracking_id,
        "type": HEALTH_EVENT_TYPE,
        "systemData": {
            "createdAt": start,
            "createdBy": "service-health",
            "createdByType": "Application",
            "lastModifiedAt": last_update,
            "lastModifiedBy": "service-health",
            "lastModifiedByType": "Application",
        },
        "properties": props,
    }


# label -> (listed for, tracking id)
_EVENT_KEYS: dict[str, tuple[str, str]] = {
    "service-issue-westeurope": (sub_scope("prod"), "VT1C-5X8"),
    "service-issue-eastus-resolved": (sub_scope("dev"), "KL2M-7QP"),
    "maintenance-shared-cluster": (CLUSTERS["hdi-shared-etl"], "PM3K-9QZ"),
    "health-advisory-dev": (sub_scope("dev"), "HA4T-2WB"),
    "security-advisory-active": (sub_scope("prod"), "SA5R-8NC"),
    "security-advisory-resolved": (sub_scope("shared"), "SA6D-1LX"),
    "emerging-issue-hir": (sub_scope("prod"), "EI7F-3HV"),
    "rca-out-of-range": (sub_scope("sandbox"), "RC8J-4ZT"),
}

HEALTH_EVENTS: Final[dict[str, str]] = {
    label: f"{listed}/providers/{HEALTH_EVENT_TYPE}/{tid}"
    for label, (listed, tid) in _EVENT_KEYS.items()
}
"""Health event ids by label."""


def _health_events() -> list[dict[str, Any]]:
    p, d, s, x = (SUBSCRIPTIONS[k] for k in ("prod", "dev", "shared", "sandbox"))

    def ev(label: str, **kw: Any) -> dict[str, Any]:
        listed, tid = _EVENT_KEYS[label]
        return make_health_event(listed, tid, **kw)

    return [
        ev(
            "service-issue-westeurope",
            event_type="ServiceIssue",
            status="Active",
            event_level="Error",
            priority=2,
            title="Analytics Cluster - job submission failures in West Europe",
            service="Analytics Cluster",
            regions=["West Europe"],
            subscriptions=[p],
            description=HTML_DESCRIPTION,
        ),
        ev(
            "service-issue-eastus-resolved",
            event_type="ServiceIssue",
            status="Resolved",
            event_level="Warning",
            priority=5,
            title="Event Routing - delayed deliveries",
            service="Event Routing",
            regions=["East US"],
            subscriptions=[d],
            mitigated="2026-11-20T10:10:00Z",
        ),
        ev(
            "maintenance-shared-cluster",
            event_type="PlannedMaintenance",
            status="Active",
            event_level="Warning",
            priority=3,  # the documented order gives 12
            title="Planned maintenance of Analytics Cluster head nodes",
            service="Analytics Cluster",
            regions=["North Europe"],
            subscriptions=[s],
            event_source="ResourceHealth",
            start="2026-11-25T01:00:00Z",
        ),
        ev(
            "health-advisory-dev",
            event_type="HealthAdvisory",
            status="Active",
            event_level="Informational",
            priority=22,
            title="Retirement: TLS 1.0 and 1.1 for Event Routing",
            service="Event Routing",
            regions=["East US"],
            subscriptions=[d],
        ),
        ev(
            "security-advisory-active",
            event_type="SecurityAdvisory",
            status="Active",
            event_level="Critical",
            priority=1,
            title="Security advisory: rotate Analytics Cluster gateway credentials",
            service="Analytics Cluster",
            regions=["West Europe", "North Europe"],
            subscriptions=[p],
            extra={
                "article": {
                    "articleContent": "<p>Rotate the gateway password of every cluster.</p>",
                    "articleId": "SA5R-8NC",
                    "parameters": {"service": "Analytics Cluster"},
                },
                "additionalInformation": {"message": "Credentials may have been logged."},
                "links": [
                    {
                        "type": "Hyperlink",
                        "displayText": {
                            "value": "Rotation guide",
                            "localizedValue": "Rotation guide",
                        },
                        "extensionName": "Cloud_Health",
                        "bladeName": "AdvisoryBlade",
                        "parameters": {"trackingId": "SA5R-8NC"},
                    }
                ],
                "recommendedActions": {
                    "message": "Do this now",
                    "localeCode": "en-us",
                    "actions": [{"groupId": 1, "actionText": "Rotate the gateway password"}],
                },
                "faqs": [
                    {
                        "question": "Am I affected?",
                        "answer": "If you run a cluster, yes.",
                        "localeCode": "en-us",
                    }
                ],
            },
        ),
        ev(
            "security-advisory-resolved",
            event_type="SecurityAdvisory",
            status="Resolved",
            event_level="Warning",
            priority=3,
            title="Security advisory: storage SDK update",
            service="Storage",
            regions=["westus2"],
            subscriptions=[s],
            mitigated="2026-10-02T00:00:00Z",
        ),
        ev(
            "emerging-issue-hir",
            event_type="EmergingIssues",
            status="Active",
            event_level="Warning",
            priority=9,
            title="Emerging issue: sign-in delays across several services",
            service="Identity",
            regions=["Global"],
            subscriptions=[p],
            is_hir=True,
            extra={"hirStage": "preliminary"},
        ),
        ev(
            "rca-out-of-range",
            event_type="RCA",
            status="Resolved",
            event_level="Informational",
            priority=24,
            title="Root cause analysis: storage latency in UK South",
            service="Storage",
            regions=["UK South"],
            subscriptions=[x],
            mitigated="2026-11-01T06:00:00Z",
        ),
    ]


# --------------------------------------------------------------------------------------------------
# Developer tooling (seed 2.E)
# --------------------------------------------------------------------------------------------------

DEV_TOOLING_USER_ID: Final = sample_id("devtooling:user:sam")
"""The developer-tooling account (the token limit is judged per account)."""

# label, kind, app, accessType, description, createdAt
_TOKENS: list[tuple[str, str, str | None, str, str, str]] = [
    (
        "user-full-laptop",
        "user",
        None,
        "full",
        "Local CLI on Sam's build laptop",
        "2024-03-04T10:00:00Z",
    ),
    ("user-readonly-generic", "user", None, "readOnly", "token", "2024-05-06T10:00:00Z"),
    (
        "app-full-ios-release",
        "app",
        "sample-corp/field-service-ios",
        "full",
        "Release pipeline - iOS store upload",
        "2024-06-07T10:00:00Z",
    ),
    (
        "app-readonly-empty",
        "app",
        "sample-corp/field-service-android",
        "readOnly",
        "",
        "2024-07-08T10:00:00Z",
    ),
    (
        "app-readonly-short",
        "app",
        "sam/release-notes-bot",
        "readOnly",
        "CI bot",
        "2024-08-09T10:00:00Z",
    ),
    (
        "app-readonly-dashboard",
        "app",
        "sample-corp/field-service-android",
        "readOnly",
        "Crash dashboard read access",
        "2024-09-10T10:00:00Z",
    ),
]

TOKENS: Final[dict[str, str]] = {label: sample_id(f"token:{label}") for label, *_ in _TOKENS}
"""API token ids by label."""

TOKEN_SPRAWL_COUNT: Final = 4600
"""Extra tokens of the ``token-sprawl`` variant: 4,606 in all, over 90% of the 5,000 limit."""


def _dev_tooling(variant: SampleVariant) -> dict[str, Any]:
    tokens = [
        {
            "id": TOKENS[label],
            "kind": kind,
            "app": app,
            "accessType": access,
            "description": desc,
            "createdAt": created,
        }
        for label, kind, app, access, desc, created in _TOKENS
    ]
    if variant == "token-sprawl":
        for n in range(TOKEN_SPRAWL_COUNT):
            tokens.append(
                {
                    "id": sample_id(f"token:sprawl:{n}"),
                    "kind": "app",
                    "app": "sample-corp/field-service-android",
                    "accessType": "readOnly",
                    "description": f"Upload symbols for build {10000 + n}",
                    "createdAt": f"2024-{1 + n % 12:02d}-{1 + n % 28:02d}T{n % 24:02d}:00:00Z",
                }
            )
    return {
        "user": {
            "id": DEV_TOOLING_USER_ID,
            "name": "sam",
            "displayName": "Sam Sato",
            "email": f"sam@{_DOMAIN_NAME}",
        },
        "apps": [
            {
                "owner": "sam",
                "ownerType": "user",
                "name": "release-notes-bot",
                "users": [{"email": f"sam@{_DOMAIN_NAME}", "role": "admin"}],
            },
            {
                "owner": "sample-corp",
                "ownerType": "org",
                "name": "field-service-ios",
                "users": [
                    {"email": f"sam@{_DOMAIN_NAME}", "role": "admin"},
                    {"email": f"ivan@{_DOMAIN_NAME}", "role": "developer"},
                    {"email": "henry@audit-firm.example", "role": "viewer"},
                ],
            },
            {
                "owner": "sample-corp",
                "ownerType": "org",
                "name": "field-service-android",
                "users": [
                    {"email": f"sam@{_DOMAIN_NAME}", "role": "admin"},
                    {"email": f"judy@{_DOMAIN_NAME}", "role": "developer"},
                ],
            },
        ],
        "tokens": tokens,
    }


# --------------------------------------------------------------------------------------------------
# The snapshot
# --------------------------------------------------------------------------------------------------


def sample_snapshot_json(variant: SampleVariant = "default") -> dict[str, Any]:
    """The sample estate as snapshot JSON (contracts section 2); a fresh object on every call.

    ``variant="token-sprawl"`` adds 4,600 app tokens (the only difference), past 90% of the account's token limit.
    """
    principals = []
    for label, kind, name, email, user_type, enabled, member_of in _PRINCIPALS:
        item: dict[str, Any] = {"id": PRINCIPALS[label], "type": kind, "displayName": name}
        if email is not None:
            item["email"] = _email(label, email)
        if user_type is not None:
            item["userType"] = user_type
        item["accountEnabled"] = enabled
        item["memberOf"] = [PRINCIPALS[g] for g in member_of]
        principals.append(item)
    return {
        "snapshotVersion": 1,
        "collectedAt": COLLECTED_AT,
        "tenantId": TENANT_ID,
        "hierarchy": [
            {"id": scope, "parent": parent, "displayName": name}
            for scope, parent, name in _HIERARCHY
        ],
        "principals": principals,
        "roleDefinitions": [_role_definition(*row) for row in _CUSTOM_ROLES],
        "roleAssignments": [_role_assignment(i, *row) for i, row in enumerate(_ROLE_ASSIGNMENTS)],
        "denyAssignments": [_deny_assignment(*row) for row in _DENY_ASSIGNMENTS],
        "clusters": _clusters(),
        "domains": _domains(),
        "healthEvents": _health_events(),
        "devTooling": _dev_tooling(variant),
    }


def sample_snapshot_bytes(variant: SampleVariant = "default", *, indent: int | None = 2) -> bytes:
    """The sample snapshot file's bytes (UTF-8 JSON)."""
    data = msgspec.json.encode(sample_snapshot_json(variant))
    if indent:
        data = msgspec.json.format(data, indent=indent)
    return data + b"\n"


def sample_snapshot(variant: SampleVariant = "default") -> Snapshot:
    """The sample estate, validated by the snapshot loader."""
    from auditor.estate.snapshot import loads_snapshot

    return loads_snapshot(sample_snapshot_bytes(variant, indent=None), source="<sample estate>")


# --------------------------------------------------------------------------------------------------
# Plans (contracts section 3)
# --------------------------------------------------------------------------------------------------

SAMPLE_API_TOKEN: Final = "5a3b1e0c7d9f4a2b8c6e0d1f3a5b7c9e1f2a4b6c"
"""A developer-tooling token value (40 hex digits, fake) pasted into a plan body (token scanning)."""

STRONG_LITERAL_PASSWORD: Final = "Sample-Pa55word!"
WEAK_GATEWAY_PASSWORD: Final = "Sample1!"  # 8 characters: too short
WEAK_METASTORE_PASSWORD: Final = "samplepass"  # no upper case, digit or symbol
LITERAL_STORAGE_KEY: Final = "SampleStorageKey/NotReal/000000000000000000000000000000000000=="
SSH_PUBLIC_KEY: Final = (
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQCsampleSAMPLEsampleNotARealKey sample@ops"
)

CLUSTER_API_VERSION: Final = "2021-06-01"
DOMAIN_API_VERSION: Final = "2025-02-15"

_JDBC_DRIVERS = {
    "sqlserver": "com.microsoft.sqlserver.jdbc.SQLServerDriver",
    "postgresql": "org.postgresql.Driver",
    "mysql": "com.mysql.cj.jdbc.Driver",
    "mariadb": "org.mariadb.jdbc.Driver",
    "oracle": "oracle.jdbc.OracleDriver",
}


def _jdbc_kind(url: str) -> str:
    return url.split(":")[1].lower()


def _metastore(
    hive_url: str | None,
    oozie_url: str | None,
    hive_password: str = "<PASSWORD>",
    oozie_password: str = "${OOZIE_DB_PASSWORD}",
) -> dict[str, Any]:
    """The hive and oozie configuration groups for external metastores at the given URLs."""
    out: dict[str, Any] = {}
    if hive_url is not None:
        kind = _jdbc_kind(hive_url)
        out["hive-site"] = {
            "javax.jdo.option.ConnectionURL": hive_url,
            "javax.jdo.option.ConnectionUserName": "hiveadmin",
            "javax.jdo.option.ConnectionPassword": hive_password,
            "javax.jdo.option.ConnectionDriverName": _JDBC_DRIVERS.get(kind, "unknown"),
        }
        out["hive-env"] = {
            "hive_database": f"Existing {kind} Database",
            "hive_database_name": "hivemeta",
            "hive_database_type": kind,
            f"hive_existing_{kind}_server_database": "hivemeta",
            f"hive_existing_{kind}_server_host": "metastore.db.example.net",
            "hive_hostname": "metastore.db.example.net",
        }
    if oozie_url is not None:
        kind = _jdbc_kind(oozie_url)
        out["oozie-site"] = {
            "oozie.service.JPAService.jdbc.url": oozie_url,
            "oozie.service.JPAService.jdbc.username": "oozieadmin",
            "oozie.service.JPAService.jdbc.password": oozie_password,
            "oozie.service.JPAService.jdbc.driver": _JDBC_DRIVERS.get(kind, "unknown"),
            "oozie.db.schema.name": "oozie",
        }
        out["oozie-env"] = {
            "oozie_database": f"Existing {kind} Database",
            "oozie_database_name": "ooziemeta",
            "oozie_database_type": kind,
            f"oozie_existing_{kind}_server_database": "ooziemeta",
            f"oozie_existing_{kind}_server_host": "metastore.db.example.net",
            "oozie_hostname": "metastore.db.example.net",
        }
    return out


JDBC_SQLSERVER_ENCRYPT: Final = (
    "jdbc:sqlserver://sample-metastore.database.example.net:1433;database=hivemeta;encrypt=true;"
    "trustServerCertificate=false;hostNameInCertificate=*.database.example.net;loginTimeout=30"
)
JDBC_POSTGRES_VERIFY_FULL: Final = (
    "jdbc:postgresql://sample-pg.example.net:5432/ooziemeta?sslmode=verify-full"
)


def compliant_cluster_body(
    name: str, *, location: str = "westeurope", sub: str = "prod", rg: str = "rg-app-prod"
) -> dict[str, Any]:
    """A cluster create body (seed 2.B) that passes every cluster rule: references for every secret,
    SSH keys and no node password, a private network, TLS to the metastores, one default account."""
    vnet = f"{rg_scope(sub, rg)}/providers/Cloud.Network/virtualNetworks/vnet-analytics"

    def role(role_name: str, count: int, size: str) -> dict[str, Any]:
        return {
            "name": role_name,
            "targetInstanceCount": count,
            "hardwareProfile": {"vmSize": size},
            "osProfile": {
                "linuxOperatingSystemProfile": {
                    "username": "sshuser",
                    "sshProfile": {"publicKeys": [{"certificateData": SSH_PUBLIC_KEY}]},
                }
            },
            "virtualNetworkProfile": {"id": vnet, "subnet": f"{vnet}/subnets/analytics"},
        }

    return {
        "location": location,
        "tags": {"env": sub, "owner": "data-platform"},
        "zones": ["1"],
        "properties": {
            "clusterVersion": "5.1",
            "osType": "Linux",
            "tier": "Standard",
            "clusterDefinition": {
                "kind": "spark",
                "configurations": {
                    "gateway": {
                        "restAuthCredential.isEnabled": True,
                        "restAuthCredential.username": "admin",
                        "restAuthCredential.password": "${GATEWAY_PASSWORD}",
                    },
                    "ambari-conf": {
                        "database-server": "sample-metastore.database.example.net",
                        "database-name": "ambarimeta",
                        "database-user-name": "ambariadmin",
                        "database-user-password": "<AMBARI_DB_PASSWORD>",
                    },
                    **_metastore(JDBC_SQLSERVER_ENCRYPT, JDBC_POSTGRES_VERIFY_FULL),
                },
            },
            "storageProfile": {
                "storageaccounts": [
                    {
                        "name": f"st{name.replace('-', '')}.blob.example.net",
                        "isDefault": True,
                        "container": name,
                        "key": "<STORAGE_KEY>",
                    },
                    {
                        "name": "stsharedlogs.blob.example.net",
                        "isDefault": False,
                        "container": "logs",
                        "key": "${SHARED_LOGS_STORAGE_KEY}",
                    },
                ]
            },
            "computeProfile": {
                "roles": [
                    role("headnode", 2, "Large"),
                    role("workernode", 4, "Standard_E16_V3"),
                    role("zookeepernode", 3, "Small"),
                ]
            },
            "networkProperties": {
                "resourceProviderConnection": "Outbound",
                "privateLink": "Enabled",
            },
            "computeIsolationProperties": {"enableComputeIsolation": True, "hostSku": None},
            "diskEncryptionProperties": {"encryptionAtHost": True},
            "encryptionInTransitProperties": {"isEncryptionInTransitEnabled": True},
        },
    }


def compliant_domain_body(location: str = "northeurope") -> dict[str, Any]:
    """A domain create body (seed 2.C) that passes every domain rule."""
    return {
        "location": location,
        "tags": {"env": "prod"},
        "identity": {"type": "SystemAssigned"},
        "properties": {
            "autoCreateTopicWithFirstSubscription": None,
            "dataResidencyBoundary": "WithinRegion",
            "disableLocalAuth": True,
            "inputSchema": "EventRoutingSchema",
            "minimumTlsVersionAllowed": "1.2",
            "publicNetworkAccess": "Disabled",
        },
    }


def _cluster_request(
    sub: str, rg: str, name: str, body: dict[str, Any], api_version: str = CLUSTER_API_VERSION
) -> dict[str, Any]:
    url = f"{resource_scope(sub, rg, CLUSTER_TYPE, name)}?api-version={api_version}"
    return {"method": "PUT", "url": url, "body": body}


def _domain_request(
    sub: str, rg: str, name: str, body: dict[str, Any], api_version: str = DOMAIN_API_VERSION
) -> dict[str, Any]:
    url = f"{resource_scope(sub, rg, DOMAIN_TYPE, name)}?api-version={api_version}"
    return {"method": "PUT", "url": url, "body": body}


def _set(body: dict[str, Any], path: tuple[str | int, ...], value: Any) -> None:
    node: Any = body
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value


def _compliant_plan() -> list[dict[str, Any]]:
    return [
        _domain_request("prod", "rg-events", "dom-orders-v2", compliant_domain_body()),
        _cluster_request(
            "prod", "rg-app-prod", "hdi-prod-etl", compliant_cluster_body("hdi-prod-etl")
        ),
    ]


def _risky_plan() -> list[dict[str, Any]]:
    # [0] a public domain open to everybody, old TLS, local auth, a pasted API token
    open_domain = {
        "location": "eastus",
        "tags": {"team": "partners", "appcenter-api-token": SAMPLE_API_TOKEN},
        "identity": {"type": "None"},
        "properties": {
            "dataResidencyBoundary": "WithinGeopair",
            "inboundIpRules": [
                {"ipMask": "0.0.0.0/0", "action": "Allow"},
                {"ipMask": "300.1.2.3/24", "action": "Allow"},
            ],
            "inputSchema": "CustomEventSchema",
            "inputSchemaMapping": {
                "inputSchemaMappingType": "Json",
                "properties": {
                    "id": {"sourceField": "id"},
                    "eventTime": {"sourceField": "ts"},
                    "eventType": {},
                },
            },
            "minimumTlsVersionAllowed": "1.0",
        },
    }
    # [1] public but narrowed by valid rules; reserved userAssignedIdentities
    narrowed = compliant_domain_body("eastus")
    narrowed["identity"] = {
        "type": "SystemAssigned, UserAssigned",
        "userAssignedIdentities": {
            f"{rg_scope('dev', 'rg-app-dev')}/providers/Cloud.ManagedIdentity/"
            "userAssignedIdentities/id-webhooks": {}
        },
    }
    narrowed["properties"].update(
        {
            "publicNetworkAccess": "Enabled",
            "inboundIpRules": [
                {"ipMask": "203.0.113.0/24", "action": "Allow"},
                {"ipMask": "2001:db8:1234::/48", "action": "Allow"},
                {"ipMask": "198.51.100.7", "action": "Allow"},
                {"ipMask": "192.0.2.77/24", "action": "Allow"},
            ],
            "inputSchema": "CustomEventSchema",
            "inputSchemaMapping": copy.deepcopy(_FULL_MAPPING),
        }
    )
    # [2] public with one valid rule, but also too-wide and non-Allow rules
    wide = compliant_domain_body("uksouth")
    wide["properties"].update(
        {
            "publicNetworkAccess": "Enabled",
            "inboundIpRules": [
                {"ipMask": "10.0.0.0/8", "action": "Allow"},
                {"ipMask": "2001:db8::/32", "action": "Allow"},
                {"ipMask": "203.0.113.0/24", "action": "Deny"},
                {"ipMask": "198.51.100.0/24", "action": "Allow"},
            ],
        }
    )
    # [3] a cluster that gets everything wrong
    bad = compliant_cluster_body("hdi-risky-adhoc", location="eastus", sub="dev", rg="rg-app-dev")
    props = bad["properties"]
    props["clusterVersion"] = "4.0"
    props["clusterDefinition"]["configurations"] = {
        "gateway": {
            "restAuthCredential.isEnabled": False,
            "restAuthCredential.username": "admin",
            "restAuthCredential.password": WEAK_GATEWAY_PASSWORD,
        },
        **_metastore(
            "jdbc:sqlserver://sample-metastore.database.example.net:1433;database=hivemeta",
            None,
            hive_password=WEAK_METASTORE_PASSWORD,
        ),
    }
    props["storageProfile"]["storageaccounts"] = [
        {
            "name": "strisky1.blob.example.net",
            "isDefault": True,
            "container": "data",
            "key": LITERAL_STORAGE_KEY,
        },
        {
            "name": "strisky2.blob.example.net",
            "isDefault": True,
            "container": "logs",
            "key": "<STORAGE_KEY>",
        },
    ]
    for role in props["computeProfile"]["roles"]:
        linux = role["osProfile"]["linuxOperatingSystemProfile"]
        linux["password"] = STRONG_LITERAL_PASSWORD
        del linux["sshProfile"]
    del props["computeProfile"]["roles"][1]["virtualNetworkProfile"]
    props["networkProperties"] = {
        "resourceProviderConnection": "Inbound",
        "privateLink": "Disabled",
    }
    props["computeIsolationProperties"] = {"enableComputeIsolation": False}
    props["diskEncryptionProperties"] = {"encryptionAtHost": False}
    props["encryptionInTransitProperties"] = {"isEncryptionInTransitEnabled": False}
    # [4] mostly right, but a strong literal gateway password, a node password reference and no
    # default storage account
    nightly = compliant_cluster_body("hdi-batch-nightly")
    nprops = nightly["properties"]
    gateway = nprops["clusterDefinition"]["configurations"]["gateway"]
    gateway["restAuthCredential.isEnabled"] = "true"
    gateway["restAuthCredential.password"] = STRONG_LITERAL_PASSWORD
    for group in ("hive-site", "hive-env", "oozie-site", "oozie-env", "ambari-conf"):
        del nprops["clusterDefinition"]["configurations"][group]
    _set(
        nprops,
        ("computeProfile", "roles", 0, "osProfile", "linuxOperatingSystemProfile", "password"),
        "${NODE_PASSWORD}",
    )
    nprops["storageProfile"]["storageaccounts"] = [
        {
            "name": "stnightly.blob.example.net",
            "isDefault": False,
            "container": "nightly",
            "key": "${NIGHTLY_STORAGE_KEY}",
        },
    ]
    return [
        _domain_request(
            "dev", "rg-app-dev", "dom-partner-ingest", open_domain, api_version="2021-12-01"
        ),
        _domain_request("dev", "rg-app-dev", "dom-partner-webhooks", narrowed),
        _domain_request("sandbox", "rg-sandbox-lab", "dom-legacy-bridge", wide),
        _cluster_request(
            "dev", "rg-app-dev", "hdi-risky-adhoc", bad, api_version="2023-04-15-preview"
        ),
        _cluster_request("prod", "rg-app-prod", "hdi-batch-nightly", nightly),
    ]


METASTORE_URLS: Final[list[tuple[str | None, str | None, bool]]] = [
    # (hive URL, oozie URL, requires verified TLS)
    (
        JDBC_SQLSERVER_ENCRYPT,
        "jdbc:sqlserver://sample-metastore.database.example.net:1433;database=ooziemeta;"
        "encrypt=strict",
        True,
    ),
    (
        "jdbc:sqlserver://sample-metastore.database.example.net:1433;database=hivemeta;"
        "loginTimeout=30",
        JDBC_POSTGRES_VERIFY_FULL,
        False,
    ),
    (
        "jdbc:sqlserver://sample-metastore.database.example.net:1433;database=hivemeta;"
        "encrypt=true;trustServerCertificate=true",
        None,
        False,
    ),
    (
        "jdbc:postgresql://sample-pg.example.net:5432/hivemeta?sslmode=require",
        "jdbc:postgresql://sample-pg.example.net:5432/ooziemeta?sslmode=verify-ca&"
        "sslrootcert=/etc/ssl/certs/sample-ca.pem",
        True,
    ),
    (
        "jdbc:postgresql://sample-pg.example.net:5432/hivemeta?sslmode=disable",
        "jdbc:postgresql://sample-pg.example.net:5432/ooziemeta",
        False,
    ),
    (
        "jdbc:mysql://sample-mysql.example.net:3306/hivemeta?sslMode=REQUIRED",
        "jdbc:mariadb://sample-mariadb.example.net:3306/ooziemeta?sslMode=VERIFY_IDENTITY",
        True,
    ),
    (
        "jdbc:mysql://sample-mysql.example.net:3306/hivemeta?sslMode=PREFERRED&serverTimezone=UTC",
        "jdbc:mariadb://sample-mariadb.example.net:3306/ooziemeta?sslMode=VERIFY_CA",
        False,
    ),
    ("jdbc:mariadb://sample-mariadb.example.net:3306/hivemeta?useUnicode=true", None, False),
    ("jdbc:oracle:thin:@//sample-oracle.example.net:1521/HIVEMETA", None, False),
    (
        "jdbc:sqlserver://sample-metastore.database.example.net:1433;DATABASE=hivemeta;"
        "Encrypt=TRUE;TrustServerCertificate=False",
        "jdbc:mysql://sample-mysql.example.net:3306/ooziemeta?SSLMODE=verify_identity",
        True,
    ),
]
"""The metastore plan's JDBC URLs, one cluster request each: every kind of metastore connection,
with and without verified TLS (and property names and values in odd case)."""


def _metastore_plan() -> list[dict[str, Any]]:
    requests = []
    for n, (hive, oozie, _ok) in enumerate(METASTORE_URLS, start=1):
        name = f"hdi-meta-{n:02d}"
        body = compliant_cluster_body(name, location="eastus", sub="dev", rg="rg-app-dev")
        configs = body["properties"]["clusterDefinition"]["configurations"]
        for group in ("hive-site", "hive-env", "oozie-site", "oozie-env"):
            del configs[group]
        configs.update(_metastore(hive, oozie))
        requests.append(_cluster_request("dev", "rg-app-dev", name, body))
    return requests


PLAN_NAMES: Final = ("compliant-plan", "risky-plan", "metastore-plan")


def sample_plans() -> dict[str, dict[str, Any]]:
    """The sample plan files (contracts section 3) by name; fresh objects on every call."""
    return {
        "compliant-plan": {"planVersion": 1, "requests": _compliant_plan()},
        "risky-plan": {"planVersion": 1, "requests": _risky_plan()},
        "metastore-plan": {"planVersion": 1, "requests": _metastore_plan()},
    }


def plan_ref(plan: str, index: int) -> str:
    """How the tests name a plan request: ``<plan name>#requests[<i>]``."""
    return f"{plan}#requests[{index}]"
