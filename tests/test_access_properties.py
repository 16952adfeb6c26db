"""Properties of the decision function over generated small estates (hypothesis): decisions do not
depend on the order of assignments or on the casing of ids; adding a deny assignment never turns a
refusal into an allowance; adding a role assignment never turns an allowance into a refusal."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.access import AccessEngine, AccessRequest, Decision
from auditor.estate.records import (
    DenyAssignmentRecord,
    DirectoryPrincipalRecord,
    RoleAssignmentRecord,
)
from auditor.estate.roles import CONTRIBUTOR, OWNER, READER
from auditor.estate.snapshot import Snapshot
from auditor.model.access import RoleDefinition
from tests.test_access_support import ALL, build, deny, group, ra, role, user

MG_A = "/providers/Cloud.Management/managementGroups/mg-a"
MG_B = "/providers/Cloud.Management/managementGroups/mg-b"
SUB1 = "/subscriptions/sub-1"
SUB2 = "/subscriptions/sub-2"
RG11 = SUB1 + "/resourceGroups/rg-11"
RG12 = SUB1 + "/resourceGroups/rg-12"
RG21 = SUB2 + "/resourceGroups/rg-21"
VM = RG11 + "/providers/Cloud.Compute/virtualMachines/vm-1"
ST = RG11 + "/providers/Cloud.Storage/storageAccounts/st-1"
NET = RG21 + "/providers/Cloud.Network/virtualNetworks/net-1"

SCOPES = ["/", MG_A, MG_B, SUB1, SUB2, RG11, RG12, RG21, VM, ST, NET]
PARENT = {
    MG_A: "/",
    MG_B: MG_A,
    SUB1: MG_B,
    SUB2: "/",
    RG11: SUB1,
    RG12: SUB1,
    RG21: SUB2,
    VM: RG11,
    ST: RG11,
    NET: RG21,
}
HIERARCHY = [(MG_A, "/"), (MG_B, MG_A), (SUB1, MG_B)]

USERS = ["u0", "u1", "u2", "u3"]
GROUPS = ["g0", "g1", "g2"]
PRINCIPALS = USERS + GROUPS

CONTROL_OPS = [
    "Cloud.Compute/virtualMachines/write",
    "Cloud.Compute/virtualMachines/read",
    "Cloud.Network/virtualNetworks/delete",
    "Cloud.Network/virtualNetworks/subnets/read",
    "Cloud.Authorization/roleAssignments/write",
    "Cloud.Storage/storageAccounts/read",
]
DATA_OPS = [
    "Cloud.Storage/storageAccounts/blobServices/containers/blobs/read",
    "Cloud.Storage/storageAccounts/blobServices/containers/blobs/write",
]
CONTROL_PATTERNS = [
    "*",
    "*/read",
    "Cloud.Compute/*",
    "Cloud.Network/*/delete",
    "Cloud.Authorization/*",
    "cloud.storage/*",
    *CONTROL_OPS,
]
DATA_PATTERNS = ["*", "Cloud.Storage/*", "*/read", *DATA_OPS]
CUSTOM = [f"44444444-0000-0000-0000-00000000000{i}" for i in range(3)]
BUILTINS = [OWNER, READER, CONTRIBUTOR]


@dataclass
class Estate:
    principals: list[DirectoryPrincipalRecord]
    roles: list[RoleDefinition]
    assignments: list[RoleAssignmentRecord]
    denies: list[DenyAssignmentRecord]

    def snapshot(self) -> Snapshot:
        return build(
            principals=self.principals,
            roles=self.roles,
            assignments=self.assignments,
            denies=self.denies,
            hierarchy=HIERARCHY,
        )

    def engine(self) -> AccessEngine:
        return AccessEngine.from_snapshot(self.snapshot())


def _subset(items: list[str], max_size: int) -> st.SearchStrategy[list[str]]:
    return st.lists(st.sampled_from(items), max_size=max_size, unique=True)


@st.composite
def _permission(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "actions": draw(_subset(CONTROL_PATTERNS, 3)),
        "notActions": draw(_subset(CONTROL_PATTERNS, 2)),
        "dataActions": draw(_subset(DATA_PATTERNS, 2)),
        "notDataActions": draw(_subset(DATA_PATTERNS, 1)),
    }


@st.composite
def estates(draw: st.DrawFn, *, acyclic: bool = False) -> Estate:
    principals = []
    for name in USERS:
        principals.append(user(name, *draw(_subset(GROUPS, 2))))
    for index, name in enumerate(GROUPS):
        choices = GROUPS[index + 1 :] if acyclic else [g for g in GROUPS if g != name]
        principals.append(group(name, *draw(_subset(choices, 2))) if choices else group(name))
    roles = [
        role(guid, f"custom {i}", permissions=draw(st.lists(_permission(), min_size=1, max_size=2)))
        for i, guid in enumerate(CUSTOM)
    ]
    assignments = [
        ra(
            f"ra{i}",
            draw(st.sampled_from(PRINCIPALS)),
            draw(st.sampled_from(CUSTOM + BUILTINS)),
            draw(st.sampled_from(SCOPES)),
            principal_type="Group",
        )
        for i in range(draw(st.integers(0, 8)))
    ]
    denies = [draw(deny_assignments(f"d{i}")) for i in range(draw(st.integers(0, 3)))]
    return Estate(principals, roles, assignments, denies)


@st.composite
def deny_assignments(draw: st.DrawFn, name: str) -> DenyAssignmentRecord:
    named = draw(st.lists(st.sampled_from([ALL, *PRINCIPALS]), min_size=1, max_size=2, unique=True))
    return deny(
        name,
        draw(st.sampled_from(SCOPES)),
        actions=draw(_subset(CONTROL_PATTERNS, 2)),
        not_actions=draw(_subset(CONTROL_PATTERNS, 1)),
        data_actions=draw(_subset(DATA_PATTERNS, 1)),
        not_data_actions=draw(_subset(DATA_PATTERNS, 1)),
        principals=named,
        excluded=draw(_subset(PRINCIPALS, 2)),
        at_scope_only=draw(st.booleans()),
    )


REQUEST_SCOPES = ["/", MG_B, SUB1, SUB2, RG11, VM, NET]
REQUESTS = [
    AccessRequest(p, op, s, data)
    for p in PRINCIPALS
    for ops, data in ((CONTROL_OPS[::2], False), (DATA_OPS[:1], True))
    for op in ops
    for s in REQUEST_SCOPES
]


def decisions(engine: AccessEngine) -> list[Decision]:
    return list(engine.check_many(REQUESTS))


def _summary(decision: Decision) -> tuple[str, frozenset[str], frozenset[str]]:
    return (
        decision.decision,
        frozenset(i.lower() for i in decision.grantedBy),
        frozenset(i.lower() for i in decision.deniedBy),
    )


# ------------------------------------------------------------------------------------ properties


@settings(max_examples=30)
@given(estates(), st.integers(0, 2**32))
def test_order_of_assignments_does_not_matter(estate: Estate, seed: int) -> None:
    rng = random.Random(seed)
    before = [_summary(d) for d in decisions(estate.engine())]
    shuffled = replace(
        estate,
        assignments=rng.sample(estate.assignments, len(estate.assignments)),
        denies=rng.sample(estate.denies, len(estate.denies)),
        principals=rng.sample(estate.principals, len(estate.principals)),
    )
    assert [_summary(d) for d in decisions(shuffled.engine())] == before


def _recase(text: str, rng: random.Random) -> str:
    return "".join(c.upper() if rng.random() < 0.5 else c.lower() for c in text)


def _recased(estate: Estate, rng: random.Random) -> Estate:
    principals = [
        DirectoryPrincipalRecord(
            id=_recase(p.id or "", rng),
            type=p.type,
            displayName=p.displayName,
            memberOf=[_recase(g, rng) for g in p.memberOf],
        )
        for p in estate.principals
    ]
    assignments = []
    for record in estate.assignments:
        props = record.properties
        assignments.append(
            msgspec.structs.replace(
                record,
                properties=msgspec.structs.replace(
                    props,
                    principalId=_recase(props.principalId or "", rng),
                    scope=_recase(props.scope or "", rng) + ("/" if rng.random() < 0.3 else ""),
                    roleDefinitionId=_recase(props.roleDefinitionId or "", rng),
                ),
            )
        )
    denies = []
    for record in estate.denies:
        props = record.properties
        denies.append(
            msgspec.structs.replace(
                record,
                properties=msgspec.structs.replace(
                    props,
                    scope=_recase(props.scope or "", rng),
                    principals=[
                        msgspec.structs.replace(p, id=_recase(p.id or "", rng))
                        for p in props.principals
                    ],
                    excludePrincipals=[
                        msgspec.structs.replace(p, id=_recase(p.id or "", rng))
                        for p in props.excludePrincipals
                    ],
                ),
            )
        )
    return replace(estate, principals=principals, assignments=assignments, denies=denies)


@settings(max_examples=30)
@given(estates(), st.integers(0, 2**32))
def test_casing_of_ids_does_not_matter(estate: Estate, seed: int) -> None:
    rng = random.Random(seed)
    before = [_summary(d) for d in decisions(estate.engine())]
    recased = _recased(estate, rng).engine()
    requests = [
        msgspec.structs.replace(
            r, principalId=_recase(r.principalId, rng), scope=_recase(r.scope, rng)
        )
        for r in REQUESTS
    ]
    assert [_summary(d) for d in recased.check_many(requests)] == before


@settings(max_examples=30)
@given(estates(), deny_assignments("extra"))
def test_adding_a_deny_never_allows_more(estate: Estate, extra: DenyAssignmentRecord) -> None:
    before = decisions(estate.engine())
    after = decisions(replace(estate, denies=[*estate.denies, extra]).engine())
    for old, new in zip(before, after, strict=True):
        if old.decision != "allowed":
            assert new.decision != "allowed", (old, new)
        if old.decision == "denied":
            assert new.decision == "denied"


@settings(max_examples=30)
@given(
    estates(),
    st.sampled_from(PRINCIPALS),
    st.sampled_from(CUSTOM + BUILTINS),
    st.sampled_from(SCOPES),
)
def test_adding_a_grant_never_refuses_more(
    estate: Estate, principal: str, guid: str, scope: str
) -> None:
    before = decisions(estate.engine())
    extra = ra("extra", principal, guid, scope)
    after = decisions(replace(estate, assignments=[*estate.assignments, extra]).engine())
    for old, new in zip(before, after, strict=True):
        if old.decision == "allowed":
            assert new.decision == "allowed", (old, new)
        if old.decision == "denied":
            assert new.decision == "denied"
