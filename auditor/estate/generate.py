"""A seeded generator of synthetic estates, for benchmarks and scale tests.

:func:`generate_estate` writes a snapshot file (contracts section 2) *streaming*: section by section,
bulk records in chunks encoded by msgspec, so memory stays bounded whatever the size (it holds the
principal ids, the subscription ids and one chunk, never the estate). The same arguments give the same
bytes.

The shape follows a real tenant:

- a management-group tree of depth 2 to 4, with subscriptions under its groups;
- resource groups and resources (some nested) in every subscription, so scopes have depth;
- principals: ~80% users (some guests, some disabled), ~12% groups nested 1 to 4 levels deep (plus a few
  longer chains; never a cycle), ~8% service principals;
- role assignments spread so that no subscription holds more than 4,000 (the vendor's limit), with a
  Zipf-like skew (a few principals hold many), mostly built-in roles, some custom ones, a small share
  with conditions, and a few whose principal is no longer in the directory;
- deny assignments (1% of role assignments by default), the first an all-principals one with
  exclusions;
- a few clusters, domains, health events, developer-tooling apps and tokens.
"""

from __future__ import annotations

import contextlib
import math
import os
import random
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final

import msgspec

from auditor.errors import InputError
from auditor.estate import roles as builtin
from auditor.estate.records import (
    DenyAssignmentPropertiesRecord,
    DenyAssignmentRecord,
    DenyPermissionRecord,
    DirectoryPrincipalRecord,
    HierarchyRecord,
    PrincipalRecord,
    RoleAssignmentPropertiesRecord,
    RoleAssignmentRecord,
)
from auditor.estate.sample import make_cluster, make_domain, make_health_event
from auditor.model.access import ALL_PRINCIPALS_ID

MAX_ROLE_ASSIGNMENTS_PER_SUBSCRIPTION: Final = 4000
"""The vendor's limit of role assignments per subscription."""

TARGET_PER_SUBSCRIPTION: Final = 3000
"""Average role assignments per subscription the generator aims at (quotas vary by +-25%)."""

CHUNK: Final = 20_000
"""Records encoded and written at a time."""

COLLECTED_AT: Final = "2026-11-21T10:00:00Z"

_AUTHZ = "Cloud.Authorization"
_SA = "Cloud.Storage/storageAccounts"
_BLOBS_READ = f"{_SA}/blobServices/containers/blobs/read"

# built-in role GUID -> weight (semantics section 7); the remaining weight goes to custom roles
_ROLE_WEIGHTS: Final[tuple[tuple[str, float], ...]] = (
    (builtin.READER, 0.30),
    (builtin.CONTRIBUTOR, 0.17),
    (builtin.OWNER, 0.03),
    (builtin.USER_ACCESS_ADMINISTRATOR, 0.01),
    (builtin.RBAC_ADMINISTRATOR, 0.01),
    ("2a2b9908-6ea1-4ae2-8e65-a410df84e7d1", 0.10),  # Storage Blob Data Reader
    ("ba92f5b4-2d11-453d-a403-e96b0029c9fe", 0.08),  # Storage Blob Data Contributor
    ("b7e6dc6d-f1e8-4753-8033-0f276bb0955b", 0.02),  # Storage Blob Data Owner
    ("00482a5a-887f-4fb3-b363-3b7fe8e74483", 0.02),  # Key Vault Administrator
    ("4633458b-17de-408a-b874-0445c86b69e6", 0.07),  # Key Vault Secrets User
    ("8b54135c-b56d-4d72-a534-26097cfdc8d8", 0.01),  # Key Vault Data Access Administrator
    ("d5a91429-5739-47e2-a06b-3470a27159e7", 0.04),  # EventGrid Data Sender
    ("1e241071-0855-49ea-94dc-649edcd759de", 0.03),  # EventGrid Contributor
    ("61ed4efc-fab3-44fd-b111-e24485cc132a", 0.03),  # HDInsight Cluster Operator
)
_CUSTOM_ROLE_SHARE: Final = 0.08
_BLOB_DATA_ROLES: Final = frozenset(
    {"2a2b9908-6ea1-4ae2-8e65-a410df84e7d1", "ba92f5b4-2d11-453d-a403-e96b0029c9fe"}
)
_CONDITION_SHARE: Final = 0.10
"""Share of blob data role assignments (about 1.8% of all) that carry a condition."""
_ORPHAN_SHARE: Final = 0.001

_RESOURCE_TYPES: Final[tuple[tuple[str, str], ...]] = (
    ("Cloud.Storage/storageAccounts", "st"),
    ("Cloud.Compute/virtualMachines", "vm"),
    ("Cloud.KeyVault/vaults", "kv"),
    ("Cloud.Web/sites", "app"),
    ("Cloud.Network/virtualNetworks", "vnet"),
    ("Cloud.EventRouting/domains", "evd"),
    ("Cloud.AnalyticsCluster/clusters", "hdi"),
    ("Cloud.Sql/servers", "sql"),
)
_WORKLOADS: Final = (
    "billing", "catalog", "checkout", "crm", "data", "edge", "finance", "hr", "identity",
    "inventory", "logistics", "ml", "mobile", "network", "payments", "portal", "reporting",
    "search", "shared", "web",
)  # fmt: skip
_ENVS: Final = ("prod", "test", "dev", "qa", "dr")
_FIRST: Final = (
    "Ada", "Ben", "Chloe", "Dmitri", "Elena", "Farid", "Greta", "Hiro", "Ines", "Jonas", "Kofi",
    "Lena", "Mateo", "Nora", "Omar", "Priya", "Quentin", "Rosa", "Sven", "Tara", "Uma", "Viktor",
    "Wen", "Xavier", "Yara", "Zoe",
)  # fmt: skip
_LAST: Final = (
    "Adams", "Berg", "Costa", "Dubois", "Eklund", "Fischer", "Garcia", "Haas", "Ito", "Jansen",
    "Kim", "Larsen", "Moreau", "Novak", "Okafor", "Park", "Quinn", "Rossi", "Silva", "Tanaka",
    "Usman", "Varga", "Weber", "Xu", "Young", "Zimmer",
)  # fmt: skip
_REGIONS: Final = (
    "westeurope", "northeurope", "eastus", "eastus2", "westus2", "uksouth", "swedencentral",
    "japaneast",
)  # fmt: skip
_REGION_NAMES: Final = {
    "westeurope": "West Europe", "northeurope": "North Europe", "eastus": "East US",
    "eastus2": "East US 2", "westus2": "West US 2", "uksouth": "UK South",
    "swedencentral": "Sweden Central", "japaneast": "Japan East",
}  # fmt: skip
_USER = 0
_GROUP = 1
_SP = 2
_TYPE_NAMES: Final = ("User", "Group", "ServicePrincipal")


@dataclass(frozen=True)
class GeneratedEstate:
    """What :func:`generate_estate` wrote."""

    path: str | None
    """The file written, or None for a stream."""
    bytes_written: int
    counts: dict[str, int]
    """Records per section (``devTooling.apps`` and ``devTooling.tokens`` for the last one)."""
    subscriptions: int
    max_role_assignments_per_subscription: int
    seed: int


@dataclass
class _Layout:
    """The sizes and the few things kept for the whole run (ids, not records)."""

    seed: int
    n_ra: int
    n_principals: int
    n_deny: int
    tenant: str
    sub_ids: list[str]
    sub_quota: list[int]
    mg_ids: list[str]
    mg_parent: list[int]
    mg_depth: int
    sub_mg: list[int]
    n_mg_ra: int
    principal_ids: list[str]
    principal_kind: bytearray
    n_groups: int
    n_sps: int
    custom_roles: list[tuple[str, str, str, list[str], list[str]]] = field(default_factory=list)
    """(guid, name, description, actions, dataActions); assignable at the root group."""


def _guid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) & 3]}{h[17:20]}-{h[20:32]}"


def default_principals(role_assignments: int) -> int:
    """Principals when not given: one per ten role assignments (100,000 for a million), at least 50."""
    return max(50, role_assignments // 10)


def default_deny_assignments(role_assignments: int) -> int:
    """Deny assignments when not given: 1% of the role assignments, at least one."""
    return max(1, role_assignments // 100)


def subscriptions_for(role_assignments: int) -> int:
    """How many subscriptions hold ``role_assignments``: about 3,000 each, never over 4,000."""
    return max(1, math.ceil(role_assignments / TARGET_PER_SUBSCRIPTION))


def _make_layout(seed: int, n_ra: int, n_principals: int, n_deny: int) -> _Layout:
    rng = random.Random(f"auditor-estate/{seed}/layout")
    n_subs = subscriptions_for(n_ra)
    # management groups: a tree of depth 2..4 below the root group
    depth = rng.randint(2, 4)
    mg_ids = ["mg-root"]
    mg_parent = [-1]
    level = [0]
    n_mgs = min(60, 2 + n_subs // 8 + depth)
    while len(mg_ids) < n_mgs:
        candidates = [i for i, lv in enumerate(level) if lv < depth - 1]
        parent = rng.choice(candidates)
        mg_ids.append(f"mg-{rng.choice(_WORKLOADS)}-{len(mg_ids):03d}")
        mg_parent.append(parent)
        level.append(level[parent] + 1)
    # make sure the tree reaches the chosen depth
    for lv in range(1, depth):
        if lv not in level:
            parent = max(i for i, x in enumerate(level) if x == lv - 1)
            mg_ids.append(f"mg-deep-{len(mg_ids):03d}")
            mg_parent.append(parent)
            level.append(lv)
    sub_mg = [rng.choice(range(1, len(mg_ids))) for _ in range(n_subs)]
    # management-group level assignments: a few, outside the subscription limit
    n_mg_ra = min(n_ra // 1000, 50 * len(mg_ids))
    quotas = _quotas(rng, n_ra - n_mg_ra, n_subs)
    # principals: groups first, then service principals, then users
    n_groups = max(1, round(n_principals * 0.12)) if n_principals >= 3 else 0
    n_sps = max(1, round(n_principals * 0.08)) if n_principals >= 3 else 0
    kinds = bytearray([_GROUP] * n_groups + [_SP] * n_sps)
    kinds.extend([_USER] * (n_principals - n_groups - n_sps))
    ids_rng = random.Random(f"auditor-estate/{seed}/ids")
    layout = _Layout(
        seed=seed,
        n_ra=n_ra,
        n_principals=n_principals,
        n_deny=n_deny,
        tenant=_guid(ids_rng),
        sub_ids=[_guid(ids_rng) for _ in range(n_subs)],
        sub_quota=quotas,
        mg_ids=mg_ids,
        mg_parent=mg_parent,
        mg_depth=depth,
        sub_mg=sub_mg,
        n_mg_ra=n_mg_ra,
        principal_ids=[_guid(ids_rng) for _ in range(n_principals)],
        principal_kind=kinds,
        n_groups=n_groups,
        n_sps=n_sps,
    )
    n_custom = min(40, 4 + n_subs // 10)
    custom_actions: tuple[tuple[list[str], list[str]], ...] = (
        (["Cloud.Compute/virtualMachines/start/action", "Cloud.Compute/virtualMachines/restart/action",
          "Cloud.Compute/virtualMachines/read"], []),
        (["Cloud.Web/sites/*", "Cloud.Resources/deployments/*"], []),
        ([f"{_SA}/blobServices/containers/read"], [_BLOBS_READ]),
        (["*/read", "Cloud.Support/*"], []),
        ([f"{_SA}/listKeys/action", f"{_SA}/read"], []),
        (["Cloud.Network/*"], []),
        ([f"{_AUTHZ}/roleAssignments/write", "*/read"], []),
        (["*"], []),
    )  # fmt: skip
    for k in range(n_custom):
        actions, data_actions = custom_actions[k % len(custom_actions)]
        layout.custom_roles.append(
            (
                _guid(ids_rng),
                f"Custom {rng.choice(_WORKLOADS).title()} Operator {k + 1}",
                "Generated custom role",
                list(actions),
                list(data_actions),
            )
        )
    return layout


def _quotas(rng: random.Random, total: int, n_subs: int) -> list[int]:
    """Split ``total`` over ``n_subs`` subscriptions, varied, none above the vendor's limit."""
    if total <= 0:
        return [0] * n_subs
    weights = [0.75 + 0.5 * rng.random() for _ in range(n_subs)]
    scale = total / sum(weights)
    quotas = [min(MAX_ROLE_ASSIGNMENTS_PER_SUBSCRIPTION, int(w * scale)) for w in weights]
    rest = total - sum(quotas)
    i = 0
    while rest > 0:  # hand out the remainder where there is room
        room = MAX_ROLE_ASSIGNMENTS_PER_SUBSCRIPTION - quotas[i % n_subs]
        give = min(room, rest, max(1, rest // n_subs + 1))
        quotas[i % n_subs] += give
        rest -= give
        i += 1
    return quotas


@dataclass
class _Subscription:
    index: int
    id: str
    scope: str
    rgs: list[str]
    resources: list[str]
    """Resource ids (some nested), by resource group."""
    resource_types: list[str]


def _subscription(layout: _Layout, index: int) -> _Subscription:
    """The resource groups and resources of a subscription, rebuilt from its own seed when needed
    (so nothing of the kind is kept between sections)."""
    rng = random.Random(f"auditor-estate/{layout.seed}/sub/{index}")
    sub_id = layout.sub_ids[index]
    scope = f"/subscriptions/{sub_id}"
    rgs: list[str] = []
    resources: list[str] = []
    types: list[str] = []
    for k in range(rng.randint(3, 12)):
        rg = f"{scope}/resourceGroups/rg-{rng.choice(_WORKLOADS)}-{rng.choice(_ENVS)}-{k:02d}"
        rgs.append(rg)
        for n in range(rng.randint(1, 8)):
            rtype, prefix = rng.choice(_RESOURCE_TYPES)
            name = f"{prefix}{rng.choice(_WORKLOADS)}{index:04d}{k:02d}{n}"
            rid = f"{rg}/providers/{rtype}/{name}"
            resources.append(rid)
            types.append(rtype)
            if rtype == "Cloud.Sql/servers" and rng.random() < 0.7:
                resources.append(f"{rid}/databases/db-{rng.choice(_WORKLOADS)}")
                types.append("Cloud.Sql/servers/databases")
    return _Subscription(index, sub_id, scope, rgs, resources, types)


def _person(index: int) -> tuple[str, str]:
    first = _FIRST[index % len(_FIRST)]
    last = _LAST[(index // len(_FIRST)) % len(_LAST)]
    return first, last


def _display_name(layout: _Layout, index: int) -> str:
    kind = layout.principal_kind[index]
    if kind == _GROUP:
        return f"grp-{_WORKLOADS[index % len(_WORKLOADS)]}-{index:06d}"
    if kind == _SP:
        return f"sp-{_WORKLOADS[index % len(_WORKLOADS)]}-automation-{index:06d}"
    first, last = _person(index)
    return f"{first} {last} {index}"


def _email(layout: _Layout, index: int, guest: bool) -> str:
    first, last = _person(index)
    domain = "partner.example" if guest else "contoso-synthetic.example"
    return f"{first.lower()}.{last.lower()}{index}@{domain}"


def _principal_ref(layout: _Layout, index: int) -> PrincipalRecord:
    return PrincipalRecord(
        id=layout.principal_ids[index],
        type=_TYPE_NAMES[layout.principal_kind[index]],
        displayName=_display_name(layout, index),
    )


# --------------------------------------------------------------------------------------------------
# Sections
# --------------------------------------------------------------------------------------------------


def _hierarchy(layout: _Layout) -> Iterator[list[Any]]:
    records: list[Any] = []
    for i, mg in enumerate(layout.mg_ids):
        parent = "/" if layout.mg_parent[i] < 0 else _mg_scope(layout.mg_ids[layout.mg_parent[i]])
        records.append(HierarchyRecord(id=_mg_scope(mg), parent=parent, displayName=mg))
    for i, sub in enumerate(layout.sub_ids):
        records.append(
            HierarchyRecord(
                id=f"/subscriptions/{sub}",
                parent=_mg_scope(layout.mg_ids[layout.sub_mg[i]]),
                displayName=f"Synthetic subscription {i + 1:04d}",
            )
        )
        if len(records) >= CHUNK:
            yield records
            records = []
    yield records


def _mg_scope(name: str) -> str:
    return f"/providers/Cloud.Management/managementGroups/{name}"


def _principals(layout: _Layout, tick: Callable[[int], None]) -> Iterator[list[Any]]:
    rng = random.Random(f"auditor-estate/{layout.seed}/principals")
    n_groups = layout.n_groups
    ids = layout.principal_ids
    # group nesting: a group of level L (0..3) is a member of 1-2 groups of level L-1, so nesting is
    # 1 to 4 levels deep and acyclic; the last groups form a few longer chains
    by_level: list[list[int]] = [[], [], [], []]
    group_parents: dict[int, list[int]] = {}
    n_chain = 3 * 8 if n_groups >= 60 else 0
    top = max(1, n_groups // 5)
    for g in range(n_groups - n_chain):
        if g < top:
            by_level[0].append(g)
            continue
        lv = rng.randint(1, 3)
        while not by_level[lv - 1]:
            lv -= 1
        parents = rng.sample(by_level[lv - 1], k=min(len(by_level[lv - 1]), rng.randint(1, 2)))
        group_parents[g] = parents
        by_level[lv].append(g)
    for c in range(n_chain // 8):  # three chains of eight, each below a top-level group
        first = n_groups - n_chain + 8 * c
        group_parents[first] = [rng.choice(by_level[0])]
        for g in range(first + 1, first + 8):
            group_parents[g] = [g - 1]
    records: list[Any] = []
    for i in range(layout.n_principals):
        kind = layout.principal_kind[i]
        if kind == _GROUP:
            rec = DirectoryPrincipalRecord(
                id=ids[i],
                type="Group",
                displayName=_display_name(layout, i),
                accountEnabled=True,
                memberOf=[ids[p] for p in group_parents.get(i, [])],
            )
        else:
            member_of: list[str] = []
            if n_groups:
                k = rng.choices((0, 1, 2, 3), weights=(25, 40, 25, 10))[0]
                member_of = [ids[g] for g in {rng.randrange(n_groups) for _ in range(k)}]
            if kind == _SP:
                rec = DirectoryPrincipalRecord(
                    id=ids[i],
                    type="ServicePrincipal",
                    displayName=_display_name(layout, i),
                    accountEnabled=rng.random() >= 0.02,
                    memberOf=member_of,
                )
            else:
                guest = rng.random() < 0.05
                rec = DirectoryPrincipalRecord(
                    id=ids[i],
                    type="User",
                    displayName=_display_name(layout, i),
                    email=_email(layout, i, guest),
                    userType="Guest" if guest else "Member",
                    accountEnabled=rng.random() >= 0.03,
                    memberOf=member_of,
                )
        records.append(rec)
        if len(records) >= CHUNK:
            tick(len(records))
            yield records
            records = []
    tick(len(records))
    yield records


def _role_definitions(layout: _Layout) -> Iterator[list[Any]]:
    root = _mg_scope(layout.mg_ids[0])
    yield [
        {
            "id": f"{root}/providers/{_AUTHZ}/roleDefinitions/{guid}",
            "name": guid,
            "type": f"{_AUTHZ}/roleDefinitions",
            "properties": {
                "roleName": name,
                "type": "CustomRole",
                "description": description,
                "assignableScopes": [root],
                "permissions": [
                    {
                        "actions": actions,
                        "notActions": [],
                        "dataActions": data_actions,
                        "notDataActions": [],
                    }
                ],
            },
        }
        for guid, name, description, actions, data_actions in layout.custom_roles
    ]


def _timestamps(rng: random.Random) -> list[str]:
    return [
        f"{rng.randint(2019, 2026)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T"
        f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z"
        for _ in range(4096)
    ]


def _role_assignments(layout: _Layout, tick: Callable[[int], None]) -> Iterator[list[Any]]:
    rng = random.Random(f"auditor-estate/{layout.seed}/role-assignments")
    n = layout.n_principals
    # Zipf-like skew over a random ranking of the principals: weight 1 / (rank + 10)
    ranking = list(range(n))
    rng.shuffle(ranking)
    cum: list[float] = []
    total = 0.0
    for r in range(n):
        total += 1.0 / (r + 10)
        cum.append(total)
    role_guids = [g for g, _ in _ROLE_WEIGHTS] + [c[0] for c in layout.custom_roles]
    role_cum: list[float] = []
    acc = 0.0
    builtin_total = sum(w for _, w in _ROLE_WEIGHTS)
    for _, w in _ROLE_WEIGHTS:
        acc += w * (1 - _CUSTOM_ROLE_SHARE) / builtin_total
        role_cum.append(acc)
    n_custom = len(layout.custom_roles)
    for _ in range(n_custom):
        acc += _CUSTOM_ROLE_SHARE / n_custom
        role_cum.append(acc)
    stamps = _timestamps(rng)
    ids = layout.principal_ids
    kinds = layout.principal_kind
    creators = [ids[i] for i in range(min(n, 25))] if n else [_guid(rng)]
    random_ = rng.random
    getrandbits = rng.getrandbits
    conditions = [
        f"((!(ActionMatches{{'{_BLOBS_READ}'}})) OR "
        f"(@Resource[{_SA}/blobServices/containers:name] StringEquals '{name}'))"
        for name in ("logs", "exports", "reports", "backups", "public")
    ]
    ra_type = f"{_AUTHZ}/roleAssignments"

    def make(scope: str, role_prefix: str, pick: int, role: str) -> RoleAssignmentRecord:
        h = f"{getrandbits(128):032x}"
        name = f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"
        if n and random_() >= _ORPHAN_SHARE:
            index = ranking[pick]
            principal_id = ids[index]
            principal_type = _TYPE_NAMES[kinds[index]]
        else:  # a principal deleted from the directory
            principal_id = _guid(rng)
            principal_type = "User"
        stamp = stamps[getrandbits(12)]
        creator = creators[getrandbits(16) % len(creators)]
        condition = version = None
        if role in _BLOB_DATA_ROLES and random_() < _CONDITION_SHARE:
            condition = conditions[getrandbits(16) % len(conditions)]
            version = "2.0"
        return RoleAssignmentRecord(
            id=f"{scope}/providers/{_AUTHZ}/roleAssignments/{name}",
            name=name,
            type=ra_type,
            properties=RoleAssignmentPropertiesRecord(
                roleDefinitionId=f"{role_prefix}/providers/{_AUTHZ}/roleDefinitions/{role}",
                principalId=principal_id,
                principalType=principal_type,
                scope=scope,
                condition=condition,
                conditionVersion=version,
                createdOn=stamp,
                updatedOn=stamp,
                createdBy=creator,
                updatedBy=creator,
            ),
        )

    def picks(k: int) -> tuple[list[int], list[str]]:
        who = rng.choices(range(n), cum_weights=cum, k=k) if n else [0] * k
        roles = rng.choices(role_guids, cum_weights=role_cum, k=k)
        return who, roles

    records: list[Any] = []
    # management-group level assignments
    if layout.n_mg_ra:
        who, roles = picks(layout.n_mg_ra)
        for j in range(layout.n_mg_ra):
            mg = _mg_scope(layout.mg_ids[getrandbits(16) % len(layout.mg_ids)])
            records.append(make(mg, "", who[j], roles[j]))
    for s in range(len(layout.sub_ids)):
        quota = layout.sub_quota[s]
        if not quota:
            continue
        sub = _subscription(layout, s)
        rgs, resources = sub.rgs, sub.resources
        # two or three owners at the subscription itself, then the rest at random
        n_owners = min(quota, 2 + (s % 2))
        who, roles = picks(quota)
        for j in range(quota):
            role = builtin.OWNER if j < n_owners else roles[j]
            u = random_() if j >= n_owners else 0.0
            if u < 0.15:
                scope = sub.scope
            elif u < 0.60:
                scope = rgs[getrandbits(16) % len(rgs)]
            else:
                scope = resources[getrandbits(20) % len(resources)]
            records.append(make(scope, sub.scope, who[j], role))
            if len(records) >= CHUNK:
                tick(len(records))
                yield records
                records = []
    tick(len(records))
    yield records


_DENY_PERMISSIONS: Final[tuple[tuple[list[str], list[str]], ...]] = (
    (["*"], ["*/read"]),
    (["*/delete"], []),
    (["Cloud.Network/*/write", "Cloud.Network/*/delete"], []),
    ([f"{_AUTHZ}/roleAssignments/write", f"{_AUTHZ}/roleDefinitions/write"], []),
    (["Cloud.KeyVault/vaults/delete", "Cloud.KeyVault/vaults/write"], []),
    (["Cloud.Storage/storageAccounts/delete"], []),
)


def _deny_assignments(layout: _Layout, tick: Callable[[int], None]) -> Iterator[list[Any]]:
    rng = random.Random(f"auditor-estate/{layout.seed}/deny-assignments")
    n_subs = len(layout.sub_ids)
    stamps = _timestamps(rng)
    first_sp = layout.n_groups
    n_sps = layout.n_sps
    everyone = PrincipalRecord(
        id=ALL_PRINCIPALS_ID, type="SystemDefined", displayName="All Principals"
    )
    records: list[Any] = []
    sub_cache: tuple[int, _Subscription] | None = None
    for k in range(layout.n_deny):
        s = (k * n_subs) // max(1, layout.n_deny)
        if sub_cache is None or sub_cache[0] != s:
            sub_cache = (s, _subscription(layout, s))
        sub = sub_cache[1]
        system = k == 0 or rng.random() < 0.7
        scope = sub.scope if k == 0 or rng.random() < 0.3 else rng.choice(sub.rgs)
        actions, not_actions = _DENY_PERMISSIONS[
            0 if k == 0 else rng.randrange(len(_DENY_PERMISSIONS))
        ]
        if system and layout.n_principals:  # a managed-application style lock: everyone but a few
            principals = [everyone]
            excluded = [
                _principal_ref(layout, first_sp + rng.randrange(n_sps))
                if n_sps
                else _principal_ref(layout, rng.randrange(layout.n_principals))
                for _ in range(rng.randint(1, 2))
            ]
        elif layout.n_principals:
            principals = [
                _principal_ref(layout, rng.randrange(layout.n_principals))
                for _ in range(rng.randint(1, 3))
            ]
            excluded = []
        else:
            principals, excluded = [everyone], []
        name = _guid(rng)
        stamp = stamps[rng.getrandbits(12)]
        records.append(
            DenyAssignmentRecord(
                id=f"{scope}/providers/{_AUTHZ}/denyAssignments/{name}",
                name=name,
                type=f"{_AUTHZ}/denyAssignments",
                properties=DenyAssignmentPropertiesRecord(
                    denyAssignmentName=(
                        f"Managed application lock {k + 1}" if system else f"Guard rail {k + 1}"
                    ),
                    description="Created by the platform" if system else "Created by the team",
                    scope=scope,
                    doNotApplyToChildScopes=rng.random() < 0.1,
                    permissions=[DenyPermissionRecord(actions=actions, notActions=not_actions)],
                    principals=principals,
                    excludePrincipals=excluded,
                    isSystemProtected=system,
                    createdOn=stamp,
                    updatedOn=stamp,
                ),
            )
        )
        if len(records) >= CHUNK:
            tick(len(records))
            yield records
            records = []
    tick(len(records))
    yield records


def _pick_rg(rng: random.Random, layout: _Layout, k: int, count: int) -> tuple[str, str]:
    s = (k * len(layout.sub_ids)) // max(1, count)
    sub = _subscription(layout, s)
    rg = rng.choice(sub.rgs)
    return sub.id, rg.rsplit("/", 1)[1]


def _clusters(layout: _Layout) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    rng = random.Random(f"auditor-estate/{layout.seed}/clusters")
    count = min(30, 2 + len(layout.sub_ids) // 10)
    out = []
    located = []
    for k in range(count):
        sub_id, rg = _pick_rg(rng, layout, k, count)
        location = rng.choice(_REGIONS)
        good = rng.random() < 0.6
        cluster = make_cluster(
            sub_id,
            rg,
            f"hdi-{rng.choice(_WORKLOADS)}-{k:03d}",
            location,
            version=rng.choice(("5.1.3000.0", "5.1.2000.0", "5.0.3000.0", "4.0.3000.1")),
            kind=rng.choice(("spark", "hadoop", "kafka")),
            in_transit=good or rng.random() < 0.5,
            at_host=good or rng.random() < 0.5,
            customer_key=good and rng.random() < 0.7,
            vnet_roles=(("headnode", "workernode", "zookeepernode") if good else ("headnode",)),
            provider_connection="Outbound" if good else rng.choice(("Inbound", "Outbound")),
            private_link="Enabled" if good else rng.choice(("Enabled", "Disabled")),
            compute_isolation=rng.random() < 0.3,
            provisioning_state="Succeeded" if rng.random() < 0.9 else "Failed",
        )
        out.append(cluster)
        located.append((cluster["id"], location))
    return out, located


def _domains(layout: _Layout) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    rng = random.Random(f"auditor-estate/{layout.seed}/domains")
    count = min(30, 2 + len(layout.sub_ids) // 10)
    out = []
    located = []
    for k in range(count):
        sub_id, rg = _pick_rg(rng, layout, k, count)
        location = rng.choice(_REGIONS)
        props: dict[str, Any] = {"inputSchema": "CloudEventSchemaV1_0"}
        if rng.random() < 0.5:
            props["publicNetworkAccess"] = "Disabled"
        elif rng.random() < 0.5:
            props["publicNetworkAccess"] = "Enabled"
            props["inboundIpRules"] = [
                {"ipMask": f"203.0.{rng.randint(0, 255)}.0/24", "action": "Allow"}
            ]
        if rng.random() < 0.7:
            props["minimumTlsVersionAllowed"] = "1.2"
        if rng.random() < 0.6:
            props["disableLocalAuth"] = True
        domain = make_domain(
            sub_id,
            rg,
            f"evd-{rng.choice(_WORKLOADS)}-{k:03d}",
            location,
            props,
            identity={"type": "SystemAssigned"} if rng.random() < 0.6 else None,
            private_endpoints=[(f"pe-{k:03d}", "Approved")] if rng.random() < 0.5 else [],
        )
        out.append(domain)
        located.append((domain["id"], location))
    return out, located


_EVENT_TYPES: Final = (
    "ServiceIssue", "PlannedMaintenance", "HealthAdvisory", "SecurityAdvisory", "RCA",
    "EmergingIssues",
)  # fmt: skip
_LEVELS: Final = ("Critical", "Error", "Warning", "Informational")


def _health_events(layout: _Layout, resources: list[tuple[str, str]]) -> list[dict[str, Any]]:
    rng = random.Random(f"auditor-estate/{layout.seed}/health")
    count = min(200, 4 + len(layout.sub_ids))
    out = []
    for k in range(count):
        event_type = rng.choice(_EVENT_TYPES)
        status = "Active" if rng.random() < 0.4 else "Resolved"
        level = rng.choice(_LEVELS)
        if resources and rng.random() < 0.2:
            listed_for, location = rng.choice(resources)
            sub_id = listed_for.split("/")[2]
        else:
            sub_id = layout.sub_ids[rng.randrange(len(layout.sub_ids))]
            listed_for, location = f"/subscriptions/{sub_id}", rng.choice(_REGIONS)
        rank = ("ServiceIssue", "PlannedMaintenance", "HealthAdvisory")
        if event_type in rank:
            priority = 8 * rank.index(event_type) + 2 * _LEVELS.index(level)
            priority += 0 if status == "Active" else 1
            if rng.random() < 0.03:
                priority = (priority + 5) % 24
        else:
            priority = rng.randint(0, 23)
        letters = "ABCDEFGHJKLMNPQRSTUVWXYZ"
        tracking = (
            "".join(rng.choice(letters) for _ in range(2))
            + f"{rng.randint(0, 9)}{rng.choice(letters)}-{rng.randint(0, 9)}"
            + "".join(rng.choice(letters) for _ in range(2))
            + f"{k:04d}"
        )
        out.append(
            make_health_event(
                listed_for,
                tracking,
                event_type=event_type,
                status=status,
                event_level=level,
                priority=priority,
                title=f"{event_type}: {rng.choice(_WORKLOADS)} service in {_REGION_NAMES[location]}",
                service=rng.choice(("Analytics Cluster", "Event Routing", "Storage", "Compute")),
                regions=[_REGION_NAMES[location]],
                subscriptions=[sub_id],
                is_hir=rng.random() < 0.02,
                mitigated=None if status == "Active" else "2026-11-20T12:00:00Z",
            )
        )
    return out


def _dev_tooling(layout: _Layout) -> dict[str, Any]:
    rng = random.Random(f"auditor-estate/{layout.seed}/devtooling")
    apps = [
        {
            "owner": "synthetic-org" if k % 3 else "ops-user",
            "ownerType": "org" if k % 3 else "user",
            "name": f"{rng.choice(_WORKLOADS)}-app-{k}",
            "users": [
                {"email": f"dev{j}@contoso-synthetic.example",
                 "role": rng.choice(("admin", "developer", "viewer"))}
                for j in range(rng.randint(1, 4))
            ],
        }
        for k in range(5)
    ]  # fmt: skip
    descriptions = ("Release upload", "token", "", "CI", "Crash reports export", "Nightly build")
    tokens = []
    for _ in range(min(40, 8 + len(layout.sub_ids) // 20)):
        app = rng.choice(apps) if rng.random() < 0.7 else None
        tokens.append(
            {
                "id": _guid(rng),
                "kind": "app" if app else "user",
                "app": f"{app['owner']}/{app['name']}" if app else None,
                "accessType": "full" if rng.random() < 0.4 else "readOnly",
                "description": rng.choice(descriptions),
                "createdAt": f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T08:00:00Z",
            }
        )
    return {
        "user": {
            "id": _guid(rng),
            "name": "ops-user",
            "displayName": "Ops User",
            "email": "ops-user@contoso-synthetic.example",
        },
        "apps": apps,
        "tokens": tokens,
    }


# --------------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------------


class _Writer:
    """Writes the snapshot object piece by piece and counts bytes."""

    def __init__(self, fh: IO[bytes]) -> None:
        self._fh = fh
        self._encoder = msgspec.json.Encoder()
        self._buffer = bytearray()
        self.bytes_written = 0
        self._first_key = True

    def _write(self, data: bytes | bytearray | memoryview) -> None:
        self._fh.write(data)
        self.bytes_written += len(data)

    def begin(self) -> None:
        self._write(b"{")

    def end(self) -> None:
        self._write(b"}\n")

    def _key(self, key: str) -> None:
        self._write((b"" if self._first_key else b",") + self._encoder.encode(key) + b":")
        self._first_key = False

    def value(self, key: str, value: Any) -> None:
        self._key(key)
        self._write(self._encoder.encode(value))

    def array(self, key: str, chunks: Iterable[list[Any]]) -> int:
        """Write ``key: [...]`` from chunks of items; returns how many items were written."""
        self._key(key)
        self._write(b"[")
        count = 0
        for chunk in chunks:
            if not chunk:
                continue
            self._encoder.encode_into(chunk, self._buffer)
            # the chunk's own brackets are dropped: items join the open array
            if count:
                self._write(b",")
            with memoryview(self._buffer) as view, view[1:-1] as items:
                self._write(items)
            count += len(chunk)
        self._write(b"]")
        return count


def _write_estate(
    fh: IO[bytes], layout: _Layout, tick: Callable[[int], None]
) -> tuple[int, dict[str, int]]:
    w = _Writer(fh)
    counts: dict[str, int] = {}
    w.begin()
    w.value("snapshotVersion", 1)
    w.value("collectedAt", COLLECTED_AT)
    w.value("tenantId", layout.tenant)
    counts["hierarchy"] = w.array("hierarchy", _hierarchy(layout))
    counts["principals"] = w.array("principals", _principals(layout, tick))
    counts["roleDefinitions"] = w.array("roleDefinitions", _role_definitions(layout))
    counts["roleAssignments"] = w.array("roleAssignments", _role_assignments(layout, tick))
    counts["denyAssignments"] = w.array("denyAssignments", _deny_assignments(layout, tick))
    clusters, cluster_locations = _clusters(layout)
    domains, domain_locations = _domains(layout)
    counts["clusters"] = w.array("clusters", [clusters])
    counts["domains"] = w.array("domains", [domains])
    counts["healthEvents"] = w.array(
        "healthEvents", [_health_events(layout, cluster_locations + domain_locations)]
    )
    dev = _dev_tooling(layout)
    w.value("devTooling", dev)
    counts["devTooling.apps"] = len(dev["apps"])
    counts["devTooling.tokens"] = len(dev["tokens"])
    w.end()
    return w.bytes_written, counts


def generate_estate(
    role_assignments: int,
    *,
    seed: int,
    principals: int | None = None,
    deny_assignments: int | None = None,
    out: str | os.PathLike[str] | IO[bytes],
    overwrite: bool = False,
    progress: bool | None = None,
) -> GeneratedEstate:
    """Write a synthetic estate of ``role_assignments`` role assignments as a snapshot file.

    ``out`` is a path (written through a temporary file and renamed into place; an existing file is
    refused with an :class:`InputError` unless ``overwrite``) or a binary stream. ``principals`` and
    ``deny_assignments`` default to :func:`default_principals` and :func:`default_deny_assignments`.
    ``progress`` None shows a progress bar only when stderr is a terminal.
    """
    for name, value in (
        ("role assignments", role_assignments),
        ("principals", principals),
        ("deny assignments", deny_assignments),
    ):
        if value is not None and value < 0:
            raise InputError(f"the number of {name} must not be negative, found {value}")
    if principals == 0 and role_assignments > 0:
        raise InputError("role assignments need principals; give --principals 1 or more")
    n_principals = default_principals(role_assignments) if principals is None else principals
    n_deny = (
        default_deny_assignments(role_assignments) if deny_assignments is None else deny_assignments
    )
    layout = _make_layout(seed, role_assignments, n_principals, n_deny)
    show = sys.stderr.isatty() if progress is None else progress
    total = n_principals + role_assignments + n_deny
    with _progress(show, total) as tick:
        if isinstance(out, str | os.PathLike):
            path = os.fspath(out)
            written, counts = _write_file(path, layout, tick, overwrite=overwrite)
        else:
            path = None
            written, counts = _write_estate(out, layout, tick)
    return GeneratedEstate(
        path=path,
        bytes_written=written,
        counts=counts,
        subscriptions=len(layout.sub_ids),
        max_role_assignments_per_subscription=max(layout.sub_quota, default=0),
        seed=seed,
    )


def _write_file(
    path: str, layout: _Layout, tick: Callable[[int], None], *, overwrite: bool
) -> tuple[int, dict[str, int]]:
    target = Path(path)
    if target.is_dir():
        raise InputError("expected a file name, found a directory", source=path)
    if target.exists() and not overwrite:
        raise InputError(
            "the output file exists already; choose another name or pass --force to overwrite it",
            source=path,
        )
    folder = target.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise InputError(f"cannot write the output file: {exc.strerror}", source=path) from None
    try:
        with os.fdopen(fd, "wb", buffering=1 << 20) as fh:
            result = _write_estate(fh, layout, tick)
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise InputError(f"cannot write the output file: {exc.strerror}", source=path) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return result


@contextlib.contextmanager
def _progress(show: bool, total: int) -> Iterator[Callable[[int], None]]:
    if not show:
        yield lambda n: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(
        TextColumn("generating estate"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task("records", total=total)
        yield lambda n: bar.advance(task, n)
