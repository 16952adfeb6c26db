"""Table-driven scenarios for every statement of semantics §1-2 (effective access, conditions)."""

from __future__ import annotations

from typing import Any

import pytest

from auditor.access import AccessEngine, AccessRequest
from tests.test_access_support import (
    BLOB_READ,
    BLOB_READER,
    CONTRIBUTOR,
    MG,
    MG2,
    OWNER,
    READER,
    RG,
    SUB,
    SUB2,
    USER_ACCESS_ADMINISTRATOR,
    VM,
    VM_WRITE,
    build,
    check,
    deny,
    engine,
    group,
    ra,
    role,
    user,
)

CONTAINER = "@Resource[Cloud.Storage/storageAccounts/blobServices/containers:name]"
COND_LOGS = (
    "((!(ActionMatches{'Cloud.Storage/storageAccounts/blobServices/containers/blobs/read'})) "
    f"OR ({CONTAINER} StringEquals 'logs'))"
)
COND_PLAIN = f"{CONTAINER} StringEquals 'logs'"
LOGS = {CONTAINER: "logs"}
OTHER = {CONTAINER: "other"}
BLOB_SCOPE = RG + "/providers/Cloud.Storage/storageAccounts/st1/blobServices/default/containers/c"
RA_WRITE = "Cloud.Authorization/roleAssignments/write"

WRITER = "11111111-0000-0000-0000-000000000001"
TWO_ENTRIES = "11111111-0000-0000-0000-000000000002"
DATA_ALL = "11111111-0000-0000-0000-000000000003"
GLOBS = "11111111-0000-0000-0000-000000000004"
PERM_COND = "11111111-0000-0000-0000-000000000005"

ROLES = [
    role(WRITER, "VM Writer", [VM_WRITE]),
    role(
        TWO_ENTRIES,
        "Two entries",
        permissions=[
            {"actions": ["*"], "notActions": ["Cloud.Network/*"]},
            {"actions": ["Cloud.Network/virtualNetworks/read"]},
        ],
    ),
    role(DATA_ALL, "All data", data_actions=["*"]),
    role(GLOBS, "Globs", ["Cloud.Network/*/read", "Cloud.Compute/*", "*/delete"]),
    role(PERM_COND, "Conditioned permission", data_actions=[BLOB_READ], condition=COND_PLAIN),
]

DIRECTORY = [
    user("alice", "g-inner"),
    user("bob"),
    user("carol", "g-excluded"),
    group("g-inner", "g-outer", name="Inner"),
    group("g-outer", name="Outer"),
    group("g-excluded", name="Excluded"),
]


def _estate(assignments: list[Any], denies: list[Any] = (), **kw: Any) -> AccessEngine:  # type: ignore[assignment]
    return engine(principals=DIRECTORY, roles=ROLES, assignments=assignments, denies=denies, **kw)


# (id, assignments, denies, request kwargs, expected verdict)
SCENARIOS: list[Any] = [
    # §1.3 grants at the scope or above; §1.6 inherited downward only
    (
        "direct grant",
        [ra("a1", "alice", WRITER, RG)],
        [],
        dict(p="alice", a=VM_WRITE, s=RG),
        "allowed",
    ),
    (
        "grant at parent",
        [ra("a1", "alice", WRITER, SUB)],
        [],
        dict(p="alice", a=VM_WRITE, s=VM),
        "allowed",
    ),
    (
        "child grant not upward",
        [ra("a1", "alice", WRITER, VM)],
        [],
        dict(p="alice", a=VM_WRITE, s=RG),
        "notGranted",
    ),
    (
        "sibling scope",
        [ra("a1", "alice", WRITER, SUB + "/resourceGroups/rg-2")],
        [],
        dict(p="alice", a=VM_WRITE, s=RG),
        "notGranted",
    ),
    (
        "other principal",
        [ra("a1", "bob", WRITER, RG)],
        [],
        dict(p="alice", a=VM_WRITE, s=RG),
        "notGranted",
    ),
    # §1.1 nested groups
    (
        "via direct group",
        [ra("a1", "g-inner", WRITER, RG, principal_type="Group")],
        [],
        dict(p="alice", a=VM_WRITE, s=VM),
        "allowed",
    ),
    (
        "via nested group",
        [ra("a1", "g-outer", WRITER, RG, principal_type="Group")],
        [],
        dict(p="alice", a=VM_WRITE, s=VM),
        "allowed",
    ),
    # §1.3 additive grants; notActions only inside their own entry
    (
        "additive",
        [ra("a1", "alice", READER, RG), ra("a2", "alice", WRITER, RG)],
        [],
        dict(p="alice", a=VM_WRITE, s=RG),
        "allowed",
    ),
    (
        "notActions within role",
        [ra("a1", "alice", CONTRIBUTOR, SUB)],
        [],
        dict(p="alice", a=RA_WRITE, s=SUB),
        "notGranted",
    ),
    (
        "notActions not across roles",
        [ra("a1", "alice", CONTRIBUTOR, SUB), ra("a2", "alice", USER_ACCESS_ADMINISTRATOR, SUB)],
        [],
        dict(p="alice", a=RA_WRITE, s=SUB),
        "allowed",
    ),
    (
        "notActions not across entries",
        [ra("a1", "alice", TWO_ENTRIES, SUB)],
        [],
        dict(p="alice", a="Cloud.Network/virtualNetworks/read", s=SUB),
        "allowed",
    ),
    (
        "notActions inside entry",
        [ra("a1", "alice", TWO_ENTRIES, SUB)],
        [],
        dict(p="alice", a="Cloud.Network/virtualNetworks/write", s=SUB),
        "notGranted",
    ),
    # §1.4 data vs control plane; actions * never grants data
    (
        "data action granted",
        [ra("a1", "alice", BLOB_READER, RG)],
        [],
        dict(p="alice", a=BLOB_READ, s=BLOB_SCOPE, d=True),
        "allowed",
    ),
    (
        "data action as control",
        [ra("a1", "alice", BLOB_READER, RG)],
        [],
        dict(p="alice", a=BLOB_READ, s=BLOB_SCOPE),
        "notGranted",
    ),
    (
        "owner star no data",
        [ra("a1", "alice", OWNER, "/")],
        [],
        dict(p="alice", a=BLOB_READ, s=BLOB_SCOPE, d=True),
        "notGranted",
    ),
    (
        "dataActions star grants data",
        [ra("a1", "alice", DATA_ALL, RG)],
        [],
        dict(p="alice", a=BLOB_READ, s=BLOB_SCOPE, d=True),
        "allowed",
    ),
    (
        "dataActions star no control",
        [ra("a1", "alice", DATA_ALL, RG)],
        [],
        dict(p="alice", a=VM_WRITE, s=RG),
        "notGranted",
    ),
    # §1.5 globs
    (
        "star read nested",
        [ra("a1", "alice", READER, SUB)],
        [],
        dict(p="alice", a="Cloud.Network/virtualNetworks/subnets/read", s=RG),
        "allowed",
    ),
    (
        "mid glob",
        [ra("a1", "alice", GLOBS, SUB)],
        [],
        dict(p="alice", a="Cloud.Network/a/b/c/read", s=RG),
        "allowed",
    ),
    (
        "mid glob needs suffix",
        [ra("a1", "alice", GLOBS, SUB)],
        [],
        dict(p="alice", a="Cloud.Network/a/write", s=RG),
        "notGranted",
    ),
    (
        "prefix glob",
        [ra("a1", "alice", GLOBS, SUB)],
        [],
        dict(p="alice", a="Cloud.Compute/disks/beginGetAccess/action", s=RG),
        "allowed",
    ),
    (
        "leading glob",
        [ra("a1", "alice", GLOBS, SUB)],
        [],
        dict(p="alice", a="Cloud.Storage/storageAccounts/delete", s=RG),
        "allowed",
    ),
    (
        "literal needs whole",
        [ra("a1", "alice", WRITER, SUB)],
        [],
        dict(p="alice", a=VM_WRITE + "x", s=RG),
        "notGranted",
    ),
    # case and trailing slashes
    (
        "case of action",
        [ra("a1", "alice", WRITER, RG)],
        [],
        dict(p="alice", a="CLOUD.compute/VIRTUALMACHINES/Write", s=RG),
        "allowed",
    ),
    (
        "case of ids",
        [ra("a1", "ALICE", WRITER, RG.upper())],
        [],
        dict(p="Alice", a=VM_WRITE, s=VM.lower()),
        "allowed",
    ),
    (
        "case of group ids",
        [ra("a1", "G-OUTER", WRITER, RG, principal_type="Group")],
        [],
        dict(p="alice", a=VM_WRITE, s=RG),
        "allowed",
    ),
    (
        "trailing slashes",
        [ra("a1", "alice", WRITER, RG + "/")],
        [],
        dict(p="alice", a=VM_WRITE, s=VM + "//"),
        "allowed",
    ),
    (
        "root with slash",
        [ra("a1", "alice", WRITER, "/")],
        [],
        dict(p="alice", a=VM_WRITE, s=SUB2 + "/"),
        "allowed",
    ),
    # hierarchy: management groups via the snapshot's hierarchy
    (
        "mg inheritance",
        [ra("a1", "alice", WRITER, MG)],
        [],
        dict(p="alice", a=VM_WRITE, s=VM),
        "allowed",
    ),
    (
        "nested mg inheritance",
        [ra("a1", "alice", WRITER, MG2.upper())],
        [],
        dict(p="alice", a=VM_WRITE, s=RG),
        "allowed",
    ),
    (
        "mg not above unlisted sub",
        [ra("a1", "alice", WRITER, MG)],
        [],
        dict(p="alice", a=VM_WRITE, s=SUB2),
        "notGranted",
    ),
    (
        "root above unlisted sub",
        [ra("a1", "alice", WRITER, "/")],
        [],
        dict(p="alice", a=VM_WRITE, s=SUB2 + "/resourceGroups/x"),
        "allowed",
    ),
    (
        "mg grants nothing to parent mg",
        [ra("a1", "alice", WRITER, MG2)],
        [],
        dict(p="alice", a=VM_WRITE, s=MG),
        "notGranted",
    ),
    # §1.2 deny assignments
    (
        "deny at parent",
        [ra("a1", "alice", OWNER, SUB)],
        [deny("d1", SUB, actions=["*"])],
        dict(p="alice", a=VM_WRITE, s=VM),
        "denied",
    ),
    (
        "deny at child only",
        [ra("a1", "alice", OWNER, SUB)],
        [deny("d1", VM, actions=["*"])],
        dict(p="alice", a=VM_WRITE, s=RG),
        "allowed",
    ),
    (
        "deny at scope only, child",
        [ra("a1", "alice", OWNER, SUB)],
        [deny("d1", SUB, actions=["*"], at_scope_only=True)],
        dict(p="alice", a=VM_WRITE, s=RG),
        "allowed",
    ),
    (
        "deny at scope only, own",
        [ra("a1", "alice", OWNER, SUB)],
        [deny("d1", SUB, actions=["*"], at_scope_only=True)],
        dict(p="alice", a=VM_WRITE, s=SUB),
        "denied",
    ),
    (
        "deny at scope only, own with slash",
        [ra("a1", "alice", OWNER, SUB)],
        [deny("d1", SUB, actions=["*"], at_scope_only=True)],
        dict(p="alice", a=VM_WRITE, s=SUB.upper() + "/"),
        "denied",
    ),
    (
        "deny via mg hierarchy",
        [ra("a1", "alice", OWNER, SUB)],
        [deny("d1", MG, actions=["*"])],
        dict(p="alice", a=VM_WRITE, s=VM),
        "denied",
    ),
    (
        "deny names group",
        [ra("a1", "alice", OWNER, SUB)],
        [deny("d1", SUB, actions=["*"], principals=["g-outer"])],
        dict(p="alice", a=VM_WRITE, s=RG),
        "denied",
    ),
    (
        "deny names someone else",
        [ra("a1", "alice", OWNER, SUB)],
        [deny("d1", SUB, actions=["*"], principals=["bob"])],
        dict(p="alice", a=VM_WRITE, s=RG),
        "allowed",
    ),
    (
        "all principals",
        [ra("a1", "bob", OWNER, SUB)],
        [deny("d1", SUB, actions=["*"])],
        dict(p="bob", a=VM_WRITE, s=RG),
        "denied",
    ),
    (
        "all principals excluded",
        [ra("a1", "bob", OWNER, SUB)],
        [deny("d1", SUB, actions=["*"], excluded=["bob"])],
        dict(p="bob", a=VM_WRITE, s=RG),
        "allowed",
    ),
    (
        "exclusion through group",
        [ra("a1", "carol", OWNER, SUB)],
        [deny("d1", SUB, actions=["*"], excluded=["g-excluded"])],
        dict(p="carol", a=VM_WRITE, s=RG),
        "allowed",
    ),
    (
        "exclusion through nested group",
        [ra("a1", "alice", OWNER, SUB)],
        [deny("d1", SUB, actions=["*"], excluded=["G-OUTER"])],
        dict(p="alice", a=VM_WRITE, s=RG),
        "allowed",
    ),
    (
        "named and excluded",
        [ra("a1", "alice", OWNER, SUB)],
        [deny("d1", SUB, actions=["*"], principals=["alice"], excluded=["alice"])],
        dict(p="alice", a=VM_WRITE, s=RG),
        "allowed",
    ),
    (
        "named directly excluded via group",
        [ra("a1", "alice", OWNER, SUB)],
        [deny("d1", SUB, actions=["*"], principals=["alice"], excluded=["g-inner"])],
        dict(p="alice", a=VM_WRITE, s=RG),
        "allowed",
    ),
    (
        "deny notActions spare",
        [ra("a1", "alice", OWNER, SUB)],
        [deny("d1", SUB, actions=["*"], not_actions=["*/read"])],
        dict(p="alice", a="Cloud.Compute/virtualMachines/read", s=RG),
        "allowed",
    ),
    (
        "deny notActions block rest",
        [ra("a1", "alice", OWNER, SUB)],
        [deny("d1", SUB, actions=["*"], not_actions=["*/read"])],
        dict(p="alice", a=VM_WRITE, s=RG),
        "denied",
    ),
    (
        "deny data only",
        [ra("a1", "alice", OWNER, SUB), ra("a2", "alice", BLOB_READER, SUB)],
        [deny("d1", SUB, data_actions=["*"])],
        dict(p="alice", a=VM_WRITE, s=RG),
        "allowed",
    ),
    (
        "deny data blocks data",
        [ra("a2", "alice", BLOB_READER, SUB)],
        [deny("d1", SUB, data_actions=["*"])],
        dict(p="alice", a=BLOB_READ, s=BLOB_SCOPE, d=True),
        "denied",
    ),
    (
        "deny control star spares data",
        [ra("a2", "alice", BLOB_READER, SUB)],
        [deny("d1", SUB, actions=["*"])],
        dict(p="alice", a=BLOB_READ, s=BLOB_SCOPE, d=True),
        "allowed",
    ),
    (
        "deny without grant",
        [],
        [deny("d1", SUB, actions=["*"])],
        dict(p="alice", a=VM_WRITE, s=RG),
        "denied",
    ),
    (
        "deny other action",
        [ra("a1", "alice", OWNER, SUB)],
        [deny("d1", SUB, actions=["Cloud.Network/*"])],
        dict(p="alice", a=VM_WRITE, s=RG),
        "allowed",
    ),
    # §2 conditions on assignments
    (
        "condition true",
        [ra("a1", "alice", BLOB_READER, RG, condition=COND_LOGS)],
        [],
        dict(p="alice", a=BLOB_READ, s=BLOB_SCOPE, d=True, attrs=LOGS),
        "allowed",
    ),
    (
        "condition false",
        [ra("a1", "alice", BLOB_READER, RG, condition=COND_LOGS)],
        [],
        dict(p="alice", a=BLOB_READ, s=BLOB_SCOPE, d=True, attrs=OTHER),
        "notGranted",
    ),
    (
        "condition undecidable",
        [ra("a1", "alice", BLOB_READER, RG, condition=COND_LOGS)],
        [],
        dict(p="alice", a=BLOB_READ, s=BLOB_SCOPE, d=True),
        "conditional",
    ),
    (
        "condition empty attributes",
        [ra("a1", "alice", BLOB_READER, RG, condition=COND_LOGS)],
        [],
        dict(p="alice", a=BLOB_READ, s=BLOB_SCOPE, d=True, attrs={}),
        "notGranted",
    ),
    (
        "condition not targeting",
        [ra("a1", "alice", BLOB_READER, RG, condition=COND_LOGS)],
        [],
        dict(p="alice", a="Cloud.Storage/storageAccounts/blobServices/containers/read", s=RG),
        "allowed",
    ),
    (
        "condition bypassed",
        [
            ra("a1", "alice", BLOB_READER, RG, condition=COND_LOGS),
            ra("a2", "g-outer", BLOB_READER, SUB, principal_type="Group"),
        ],
        [],
        dict(p="alice", a=BLOB_READ, s=BLOB_SCOPE, d=True),
        "allowed",
    ),
    (
        "permission condition undecidable",
        [ra("a1", "alice", PERM_COND, RG)],
        [],
        dict(p="alice", a=BLOB_READ, s=BLOB_SCOPE, d=True),
        "conditional",
    ),
    (
        "permission condition true",
        [ra("a1", "alice", PERM_COND, RG)],
        [],
        dict(p="alice", a=BLOB_READ, s=BLOB_SCOPE, d=True, attrs=LOGS),
        "allowed",
    ),
    (
        "permission condition false",
        [ra("a1", "alice", PERM_COND, RG)],
        [],
        dict(p="alice", a=BLOB_READ, s=BLOB_SCOPE, d=True, attrs=OTHER),
        "notGranted",
    ),
    (
        "invalid condition",
        [ra("a1", "alice", BLOB_READER, RG, condition="@Resource[x] Bogus 1")],
        [],
        dict(p="alice", a=BLOB_READ, s=BLOB_SCOPE, d=True, attrs=LOGS),
        "conditional",
    ),
    (
        "wrong condition version",
        [ra("a1", "alice", BLOB_READER, RG, condition=COND_LOGS, version="1.0")],
        [],
        dict(p="alice", a=BLOB_READ, s=BLOB_SCOPE, d=True, attrs=LOGS),
        "conditional",
    ),
    (
        "sub-operation condition",
        [
            ra(
                "a1",
                "alice",
                BLOB_READER,
                RG,
                condition="!(SubOperationMatches{'Blob.List'}) OR @Resource[x] StringEquals 'y'",
            )
        ],
        [],
        dict(p="alice", a=BLOB_READ, s=BLOB_SCOPE, d=True, sub="Blob.List"),
        "conditional",
    ),
    (
        "sub-operation not matching",
        [
            ra(
                "a1",
                "alice",
                BLOB_READER,
                RG,
                condition="!(SubOperationMatches{'Blob.List'}) OR @Resource[x] StringEquals 'y'",
            )
        ],
        [],
        dict(p="alice", a=BLOB_READ, s=BLOB_SCOPE, d=True, sub="Other"),
        "allowed",
    ),
    # conditioned denies
    (
        "conditioned deny true",
        [ra("a1", "alice", BLOB_READER, RG)],
        [deny("d1", SUB, data_actions=["*"], condition=COND_PLAIN)],
        dict(p="alice", a=BLOB_READ, s=BLOB_SCOPE, d=True, attrs=LOGS),
        "denied",
    ),
    (
        "conditioned deny false",
        [ra("a1", "alice", BLOB_READER, RG)],
        [deny("d1", SUB, data_actions=["*"], condition=COND_PLAIN)],
        dict(p="alice", a=BLOB_READ, s=BLOB_SCOPE, d=True, attrs=OTHER),
        "allowed",
    ),
    (
        "conditioned deny undecidable",
        [ra("a1", "alice", BLOB_READER, RG)],
        [deny("d1", SUB, data_actions=["*"], condition=COND_PLAIN)],
        dict(p="alice", a=BLOB_READ, s=BLOB_SCOPE, d=True),
        "conditional",
    ),
    (
        "conditioned deny settled by no grant",
        [],
        [deny("d1", SUB, data_actions=["*"], condition=COND_PLAIN)],
        dict(p="alice", a=BLOB_READ, s=BLOB_SCOPE, d=True),
        "notGranted",
    ),
    (
        "conditioned deny permission",
        [ra("a1", "alice", BLOB_READER, RG)],
        [deny("d1", SUB, data_actions=["*"], permission_condition=COND_PLAIN)],
        dict(p="alice", a=BLOB_READ, s=BLOB_SCOPE, d=True),
        "conditional",
    ),
    (
        "unconditioned deny settles",
        [ra("a1", "alice", BLOB_READER, RG, condition=COND_LOGS)],
        [
            deny("d1", SUB, data_actions=["*"]),
            deny("d2", SUB, data_actions=["*"], condition=COND_PLAIN),
        ],
        dict(p="alice", a=BLOB_READ, s=BLOB_SCOPE, d=True),
        "denied",
    ),
    # unknown roles, role ids by GUID
    (
        "unknown role",
        [ra("a1", "alice", "99999999-9999-9999-9999-999999999999", RG)],
        [],
        dict(p="alice", a=VM_WRITE, s=RG),
        "notGranted",
    ),
]


@pytest.mark.parametrize(
    ("assignments", "denies", "req", "expected"),
    [pytest.param(a, d, r, e, id=i) for i, a, d, r, e in SCENARIOS],
)
def test_semantics(assignments: Any, denies: Any, req: dict[str, Any], expected: str) -> None:
    eng = _estate(assignments, denies)
    decision = check(
        eng,
        req["p"],
        req["a"],
        req["s"],
        data=req.get("d", False),
        attributes=req.get("attrs"),
        sub_operation=req.get("sub"),
    )
    assert decision.decision == expected, decision.reason
    assert decision.reason
    assert decision.principalId == req["p"]
    assert decision.action == req["a"]
    assert decision.scope == req["s"]
    if expected == "allowed":
        assert decision.grantedBy and not decision.deniedBy and not decision.conditions
    if expected == "denied":
        assert decision.deniedBy and not decision.grantedBy
    if expected == "notGranted":
        assert not decision.grantedBy and not decision.deniedBy
    if expected == "conditional":
        assert decision.conditions


def test_decision_wire_shape() -> None:
    eng = _estate([ra("a1", "alice", WRITER, RG)])
    wire = check(eng, "alice", VM_WRITE, VM).to_wire()
    assert list(wire) == [
        "decision",
        "principalId",
        "action",
        "scope",
        "grantedBy",
        "deniedBy",
        "conditions",
        "reason",
    ]
    assert wire["grantedBy"] == [RG + "/providers/Cloud.Authorization/roleAssignments/a1"]


def test_allowed_reason_names_role_scope_and_group_path() -> None:
    eng = _estate([ra("a1", "g-outer", WRITER, RG, principal_type="Group")])
    decision = check(eng, "alice", VM_WRITE, VM)
    assert "'VM Writer'" in decision.reason
    assert RG in decision.reason
    assert "'Inner' → 'Outer'" in decision.reason


def test_denied_reason_names_deny_and_lists_all() -> None:
    eng = _estate(
        [ra("a1", "alice", OWNER, SUB)],
        [
            deny("d2", RG, actions=["*"], name="Lock RG"),
            deny("d1", SUB, actions=["Cloud.Compute/*"], name="Lock sub"),
        ],
    )
    decision = check(eng, "alice", VM_WRITE, VM)
    assert decision.decision == "denied"
    assert "'Lock RG'" in decision.reason  # the nearest deny is named
    assert [d.rsplit("/", 1)[-1] for d in decision.deniedBy] == ["d2", "d1"]


def test_conditional_lists_conditions_and_candidates() -> None:
    eng = _estate(
        [ra("a1", "alice", BLOB_READER, RG, condition=COND_LOGS)],
        [deny("d1", SUB, data_actions=["*"], condition=COND_PLAIN)],
    )
    decision = check(eng, "alice", BLOB_READ, BLOB_SCOPE, data=True)
    assert decision.decision == "conditional"
    assert decision.conditions == (COND_PLAIN, COND_LOGS)
    assert len(decision.grantedBy) == 1 and len(decision.deniedBy) == 1


def test_conditional_with_definite_grant_and_undecided_deny() -> None:
    eng = _estate(
        [ra("a1", "alice", BLOB_READER, RG)],
        [deny("d1", SUB, data_actions=["*"], condition=COND_PLAIN)],
    )
    decision = check(eng, "alice", BLOB_READ, BLOB_SCOPE, data=True)
    assert decision.decision == "conditional"
    assert decision.conditions == (COND_PLAIN,)
    assert "blocks it where its condition holds" in decision.reason


def test_all_principals_needs_system_defined_type() -> None:
    from auditor.estate.records import PrincipalRecord

    record = deny("d1", SUB, actions=["*"])
    record.properties.principals = [
        PrincipalRecord(id="00000000-0000-0000-0000-000000000000", type="User")
    ]
    eng = _estate([ra("a1", "alice", OWNER, SUB)], [record])
    assert check(eng, "alice", VM_WRITE, RG).decision == "allowed"


def test_snapshot_role_replaces_builtin() -> None:
    replaced = role(OWNER, "Owner (narrowed)", ["*/read"])
    eng = AccessEngine.from_snapshot(
        build(principals=DIRECTORY, roles=[replaced], assignments=[ra("a1", "alice", OWNER, SUB)])
    )
    assert check(eng, "alice", VM_WRITE, RG).decision == "notGranted"
    assert check(eng, "alice", "Cloud.Compute/virtualMachines/read", RG).decision == "allowed"


def test_membership_cycle_does_not_hang() -> None:
    eng = engine(
        principals=[user("u", "g1"), group("g1", "g2"), group("g2", "g3"), group("g3", "g1")],
        assignments=[ra("a1", "g3", OWNER, SUB, principal_type="Group")],
    )
    assert check(eng, "u", VM_WRITE, RG).decision == "allowed"
    assert check(eng, "g2", VM_WRITE, RG).decision == "allowed"
    cycles = eng.membership_cycles()
    assert len(cycles) == 1 and sorted(cycles[0]) == ["g1", "g2", "g3"]


def test_hierarchy_cycle_does_not_hang() -> None:
    eng = engine(
        principals=[user("u")],
        assignments=[ra("a1", "u", OWNER, "/")],
        hierarchy=[(MG, MG2), (MG2, MG), (SUB, MG)],
    )
    assert check(eng, "u", VM_WRITE, RG).decision == "allowed"
    assert eng.hierarchy_cycles()


def test_unknown_principal_and_scope() -> None:
    eng = _estate([ra("a1", "alice", OWNER, "/")])
    decision = check(eng, "nobody", VM_WRITE, "/subscriptions/zzz")
    assert decision.decision == "notGranted"


def test_check_accepts_json_objects_and_check_many_keeps_order() -> None:
    eng = _estate([ra("a1", "alice", WRITER, RG)])
    one = eng.check({"principalId": "alice", "action": VM_WRITE, "scope": RG})
    assert one.decision == "allowed"
    requests = [
        AccessRequest("alice", VM_WRITE, RG),
        AccessRequest("bob", VM_WRITE, RG),
        AccessRequest("alice", VM_WRITE, SUB),
    ]
    assert [d.decision for d in eng.check_many(requests)] == ["allowed", "notGranted", "notGranted"]


def test_remembered_deny_reasons_follow_the_operation_count_and_naming() -> None:
    """Reasons for a deny naming every principal are remembered per deny, count and operation;
    a deny naming the principal or its group is never answered from that memo."""
    eng = engine(
        principals=[user("u"), user("v", "g"), group("g", name="Ops")],
        assignments=[ra("a1", "u", OWNER, SUB), ra("a2", "v", OWNER, SUB)],
        denies=[
            deny("all", SUB, actions=["Cloud.Compute/*"]),
            deny("second", SUB, actions=["Cloud.Compute/virtualMachines/delete"]),
            deny("ops", SUB, actions=["Cloud.Network/*"], principals=["g"]),
        ],
    )
    write = check(eng, "u", VM_WRITE, VM)
    again = check(eng, "v", VM_WRITE, VM)
    other = check(eng, "u", "Cloud.Compute/virtualMachines/delete", VM)
    data = check(eng, "u", VM_WRITE, VM, data=True)
    group_deny = check(eng, "v", "Cloud.Network/virtualNetworks/write", VM)
    for_u = check(eng, "u", "Cloud.Network/virtualNetworks/write", VM)
    assert write.reason == again.reason and VM_WRITE in write.reason
    assert "naming all principals" in write.reason and "more deny" not in write.reason
    assert "Cloud.Compute/virtualMachines/delete" in other.reason
    assert "1 more deny assignment also applies" in other.reason
    assert data.decision == "notGranted"
    assert group_deny.decision == "denied" and "its group 'Ops'" in group_deny.reason
    assert for_u.decision == "allowed"
