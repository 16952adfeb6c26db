"""who-can, what-can and the estate-wide analyses (escalation, bypassed conditions, dead grants, weak
child denies, owners, guests) and the GDPR export."""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings

from auditor.access import AccessEngine, AccessRequest, queries
from auditor.access.indexes import Indexes
from auditor.access.queries import Holding, WhatResult, applicable_denies, held_permission
from auditor.errors import InputError
from auditor.estate.records import DirectoryPrincipalRecord
from auditor.model.devtooling import DevTooling
from tests.test_access_properties import MG_B, NET, PRINCIPALS, RG11, SUB1, Estate, estates
from tests.test_access_properties import VM as VM1
from tests.test_access_support import (
    BLOB_READ,
    BLOB_READER,
    CONTRIBUTOR,
    MG,
    OWNER,
    RBAC_ADMINISTRATOR,
    READER,
    RG,
    SUB,
    SUB2,
    USER_ACCESS_ADMINISTRATOR,
    VM,
    VM_WRITE,
    build,
    deny,
    engine,
    group,
    ra,
    role,
    user,
)

ESCALATOR = "33333333-0000-0000-0000-000000000001"
DEF_WRITER = "33333333-0000-0000-0000-000000000002"
ROLES = [
    role(ESCALATOR, "Access Fiddler", ["Cloud.Authorization/roleAssignments/*", "*/read"]),
    role(DEF_WRITER, "Definition Writer", ["Cloud.Authorization/roleDefinitions/write"]),
]
COND = (
    "((!(ActionMatches{'Cloud.Storage/storageAccounts/blobServices/containers/blobs/read'})) "
    "OR (@Resource[Cloud.Storage/storageAccounts/blobServices/containers:name] StringEquals 'x'))"
)


def _people() -> list[DirectoryPrincipalRecord]:
    return [
        user("alice", "team", name="Alice"),
        user("bob", "team", name="Bob"),
        user("carol", name="Carol"),
        user("guest", "nested", name="Guest", guest=True, email="Guest@Partner.example"),
        group("team", "all-staff", name="Team"),
        group("nested", "team", name="Nested"),
        group("all-staff", name="All staff"),
    ]


# ----------------------------------------------------------------------------------------- who


def test_who_expands_groups_and_reports_denies() -> None:
    eng = engine(
        principals=_people(),
        assignments=[
            ra("a1", "all-staff", CONTRIBUTOR, SUB, principal_type="Group"),
            ra("a2", "carol", OWNER, RG),
            ra("a3", "alice", OWNER, VM),  # below the scope: grants nothing there
        ],
        denies=[deny("d1", SUB, actions=["Cloud.Compute/*"], principals=["bob"])],
    )
    result = eng.who(VM_WRITE, RG)
    allowed = {e.principalId for e in result.allowed}
    assert allowed == {"alice", "carol", "guest", "team", "nested", "all-staff"}
    assert {e.principalId for e in result.denied} == {"bob"}
    bob = result.denied[0]
    assert bob.deniedBy and bob.paths[0].via == ("bob", "team", "all-staff")
    guest = next(e for e in result.entries if e.principalId == "guest")
    assert guest.paths[0].via == ("guest", "nested", "team", "all-staff")
    assert guest.paths[0].viaNames[-1] == "All staff"
    wire = result.to_wire()
    assert set(wire) == {"action", "dataAction", "scope", "allowed", "conditional", "denied"}
    json.dumps(wire)


def test_who_agrees_with_check() -> None:
    eng = engine(
        principals=_people(),
        assignments=[
            ra("a1", "team", READER, MG, principal_type="Group"),
            ra("a2", "carol", BLOB_READER, RG, condition=COND),
        ],
        denies=[deny("d1", RG, actions=["*"], not_actions=["*/read"], excluded=["alice"])],
    )
    for action, data in (("Cloud.Compute/virtualMachines/read", False), (BLOB_READ, True)):
        result = eng.who(action, VM, data)
        for entry in result.entries:
            decision = eng.check(AccessRequest(entry.principalId, action, VM, data))
            assert decision.decision == entry.decision
    conditional = eng.who(BLOB_READ, VM, True).conditional
    assert [e.principalId for e in conditional] == ["carol"]
    assert conditional[0].conditions == (COND,)


# ---------------------------------------------------------------------------------------- what


def test_what_lists_holdings_per_scope_after_denies() -> None:
    eng = engine(
        principals=_people(),
        assignments=[
            ra("a1", "team", CONTRIBUTOR, SUB, principal_type="Group"),
            ra("a2", "alice", READER, RG),
            ra("a3", "alice", BLOB_READER, VM),
        ],
        denies=[
            deny("d1", SUB, actions=["*"], not_actions=["*/read"], principals=["alice"]),
            deny("d2", SUB, actions=["Cloud.Compute/*"], principals=["alice"]),
        ],
    )
    result = eng.what("ALICE")
    scopes = list(result.by_scope())
    assert scopes == [SUB, RG, VM]
    contributor = result.by_scope()[SUB][0]
    assert contributor.roleName == "Contributor" and contributor.via == ("alice", "team")
    star = contributor.permissions[0].patterns[0]
    assert star.pattern == "*" and star.status == "partlyBlocked"
    reader = result.by_scope()[RG][0].permissions[0].patterns[0]
    assert reader.pattern == "*/read" and reader.status == "partlyBlocked"
    assert [d.rsplit("/", 1)[-1] for d in reader.deniedBy] == ["d2"]  # d1 spares */read
    blob = result.by_scope()[VM][0]
    statuses = {(p.pattern, p.dataAction): p.status for p in blob.permissions[0].patterns}
    assert statuses[(BLOB_READ, True)] == "granted"
    at_rg = eng.what("alice", RG)
    assert [h.scope for h in at_rg.holdings] == [SUB, RG]
    json.dumps(result.to_wire())


def test_what_blocked_pattern() -> None:
    eng = engine(
        principals=_people(),
        assignments=[ra("a1", "carol", OWNER, RG)],
        denies=[deny("d1", SUB, actions=["*"])],
    )
    pattern = eng.what("carol").holdings[0].permissions[0].patterns[0]
    assert pattern.status == "blocked" and pattern.deniedBy


def _what_by_hand(ix: Indexes, principal_id: str, scope: str | None) -> dict[str, Any]:
    """What-can the slow way: every assignment of every identity, each permission judged by
    :func:`held_permission` against :func:`applicable_denies`, nothing memoised."""
    principal = principal_id.lower()
    directory = ix.directory
    identities = directory.identities(principal)
    chain = None if scope is None else ix.scopes.resolve(scope)[1]
    rows = []
    for identity in identities:
        for entry in ix.assignments_of(identity):
            own = ix.scopes.chain(entry.scope)
            if chain is not None and entry.scope not in chain:
                continue
            at = own if chain is None else chain
            order = len(own) if chain is None else len(chain) - chain.index(entry.scope)
            denies = tuple(applicable_denies(ix, identities, at))
            role = ix.catalogue.role(entry.role)
            path = directory.group_path(principal, identity)
            holding = Holding(
                roleAssignmentId=entry.id,
                scope=entry.record.properties.scope or "/",
                roleDefinitionId=entry.record.properties.roleDefinitionId or "",
                roleName=ix.catalogue.name(entry.role),
                via=tuple(directory.display(k) for k in path),
                viaNames=tuple(directory.name(k) for k in path),
                condition=None if entry.cond is None else entry.cond.text,
                permissions=tuple(
                    held_permission(p, denies) for p in (role.permissions if role else ())
                ),
            )
            rows.append(((order, entry.scope, entry.id.lower()), holding))
    rows.sort(key=lambda row: row[0])
    return WhatResult(principal_id, scope, tuple(h for _key, h in rows)).to_wire()


WHAT_ASKS = [
    (principal, scope)
    for principal in [*PRINCIPALS, "U1", "G2", "nobody"]
    for scope in [None, "/", MG_B, SUB1, RG11, VM1, NET, VM1 + "/extensions/new"]
]


@settings(max_examples=40)
@given(estates())
def test_what_agrees_with_judging_every_assignment(estate: Estate) -> None:
    """The memoised what-can answers as the slow walk does: cold, warm, in another order, and
    with a memo trimmed at every step."""
    engine = estate.engine()
    expected = [_what_by_hand(engine.indexes, p, s) for p, s in WHAT_ASKS]
    assert [engine.what(p, s).to_wire() for p, s in WHAT_ASKS] == expected
    assert [engine.what(p, s).to_wire() for p, s in WHAT_ASKS] == expected
    fresh = estate.engine()
    backwards = [fresh.what(p, s).to_wire() for p, s in reversed(WHAT_ASKS)]
    assert backwards == expected[::-1]
    with mock.patch.multiple(queries, _LEVELS_LIMIT=1, _JUDGES_LIMIT=1, _JUDGED_LIMIT=1):
        trimmed = estate.engine()
        assert [trimmed.what(p, s).to_wire() for p, s in WHAT_ASKS] == expected
        assert [trimmed.what(p, s).to_wire() for p, s in WHAT_ASKS] == expected


# ---------------------------------------------------------------------------------- escalation


def test_escalation_paths() -> None:
    eng = engine(
        principals=_people(),
        roles=ROLES,
        assignments=[
            ra("a1", "nested", ESCALATOR, SUB, principal_type="Group"),
            ra("a2", "carol", DEF_WRITER, MG),
            ra("a3", "alice", OWNER, SUB),  # alice holds Owner: not a shadow admin
            ra("a4", "bob", ESCALATOR, RG),  # resource group: not counted
            ra("a5", "bob", RBAC_ADMINISTRATOR, SUB2),
            ra("a6", "bob", ESCALATOR, SUB2),
        ],
        denies=[deny("d1", SUB, actions=["Cloud.Authorization/*"], principals=["team"])],
    )
    found = {(e.principalId, e.scope): e for e in eng.escalations()}
    assert set(found) == {("carol", MG)}
    carol = found[("carol", MG)]
    assert carol.operations == ("Cloud.Authorization/roleDefinitions/write",)
    kinds = [s.kind for s in carol.path]
    assert kinds == ["principal", "roleAssignment", "roleDefinition", "permission", "operation"]
    json.dumps(carol.to_wire())


def test_escalation_through_nested_groups() -> None:
    eng = engine(
        principals=_people(),
        roles=ROLES,
        assignments=[ra("a1", "team", ESCALATOR, SUB, principal_type="Group")],
    )
    found = {e.principalId: e for e in eng.escalations()}
    assert set(found) == {"alice", "bob", "guest"}
    guest = found["guest"]
    assert [s.kind for s in guest.path][:4] == ["principal", "group", "group", "roleAssignment"]
    assert "'Nested'" in guest.path_text and "'Team'" in guest.path_text


def test_escalation_excludes_admin_roles_above() -> None:
    eng = engine(
        principals=_people(),
        roles=ROLES,
        assignments=[
            ra("a1", "carol", ESCALATOR, SUB),
            ra("a2", "carol", USER_ACCESS_ADMINISTRATOR, MG),
        ],
    )
    assert eng.escalations() == []


# ------------------------------------------------------------------------ bypass, dead, weak


def test_bypassed_condition() -> None:
    eng = engine(
        principals=_people(),
        assignments=[
            ra("c1", "alice", BLOB_READER, RG, condition=COND),
            ra("b1", "team", BLOB_READER, SUB, principal_type="Group"),
            ra("b2", "carol", BLOB_READER, SUB),  # another principal: no bypass
            ra("b3", "alice", READER, SUB),  # does not grant the data action
        ],
    )
    found = eng.bypassed_conditions()
    assert len(found) == 1
    bypass = found[0]
    assert bypass.roleAssignmentId.endswith("/c1") and bypass.bypassingAssignmentId.endswith("/b1")
    assert bypass.via == ("alice", "team") and bypass.operations == (BLOB_READ,)


def test_bypass_needs_same_scope_or_above() -> None:
    eng = engine(
        principals=_people(),
        assignments=[
            ra("c1", "alice", BLOB_READER, RG, condition=COND),
            ra("b1", "alice", BLOB_READER, VM),
        ],
    )
    assert eng.bypassed_conditions() == []


def test_dead_grant() -> None:
    eng = engine(
        principals=_people(),
        assignments=[
            ra("a1", "alice", READER, RG),
            ra("a2", "bob", READER, RG),
            ra("a3", "alice", CONTRIBUTOR, RG),
            ra("a4", "team", READER, RG, principal_type="Group"),
        ],
        denies=[deny("d1", SUB, actions=["*/read"], principals=["alice"])],
    )
    dead = eng.dead_grants()
    assert [d.roleAssignmentId.rsplit("/", 1)[-1] for d in dead] == ["a1"]
    # a group grant is dead only if no member escapes the deny
    eng2 = engine(
        principals=_people(),
        assignments=[ra("a4", "team", READER, RG, principal_type="Group")],
        denies=[deny("d1", SUB, actions=["*"], excluded=["bob"])],
    )
    assert eng2.dead_grants() == []
    eng3 = engine(
        principals=_people(),
        assignments=[ra("a4", "team", READER, RG, principal_type="Group")],
        denies=[deny("d1", SUB, actions=["*"], excluded=["carol"])],
    )
    assert len(eng3.dead_grants()) == 1


def test_weak_child_deny() -> None:
    snapshot = build(
        principals=_people(),
        assignments=[ra("a1", "alice", READER, VM)],
        denies=[
            deny("d1", RG, actions=["Cloud.Compute/virtualMachines/delete"], at_scope_only=True),
            deny("d2", RG, actions=["Cloud.Network/*/delete"], at_scope_only=True),
            deny("d3", SUB, actions=["*"]),
        ],
    )
    eng = AccessEngine.from_snapshot(snapshot)
    weak = eng.weak_child_denies()
    assert [w.denyAssignmentId.rsplit("/", 1)[-1] for w in weak] == ["d1"]
    assert weak[0].childScopes == (VM,)
    assert weak[0].operations == ("Cloud.Compute/virtualMachines/delete",)


def test_weak_child_deny_at_management_group() -> None:
    eng = engine(
        principals=_people(),
        assignments=[ra("a1", "alice", READER, RG)],
        denies=[deny("d1", MG, actions=["*/delete"], at_scope_only=True)],
    )
    weak = eng.weak_child_denies()
    assert len(weak) == 1 and RG in weak[0].childScopes and SUB in weak[0].childScopes


# ------------------------------------------------------------------------- owners and guests


def test_subscription_owners_counts_groups_once() -> None:
    eng = engine(
        principals=_people(),
        assignments=[
            ra("o1", "team", OWNER, SUB, principal_type="Group"),
            ra("o2", "carol", OWNER, MG),
            ra("o3", "carol", OWNER, SUB),
            ra("o4", "alice", OWNER, RG),  # below the subscription: not an owner of it
            ra("o5", "bob", OWNER, SUB2),
        ],
    )
    owners = {o.subscription: o for o in eng.subscription_owners()}
    assert owners[SUB].count == 2
    assert {h.principalId for h in owners[SUB].owners} == {"team", "carol"}
    assert owners[SUB2].count == 1


def test_guest_privileges_through_nested_groups() -> None:
    eng = engine(
        principals=_people(),
        assignments=[
            ra("p1", "all-staff", CONTRIBUTOR, RG, principal_type="Group"),
            ra("p2", "guest", READER, SUB),
        ],
    )
    found = eng.guest_privileges()
    assert len(found) == 1
    assert found[0].roleName == "Contributor"
    assert found[0].via == ("guest", "nested", "team", "all-staff")


# ------------------------------------------------------------------------------------- GDPR


def _gdpr_snapshot() -> AccessEngine:
    snapshot = build(
        principals=_people(),
        assignments=[
            ra("g1", "guest", READER, SUB, created_by="alice"),
            ra("g2", "carol", READER, SUB, created_by="GUEST", updated_by="guest"),
            ra("g3", "alice", READER, SUB),
        ],
        denies=[
            deny("d1", SUB, actions=["*"], principals=["guest"]),
            deny("d2", SUB, actions=["*"], excluded=["GUEST"]),
            deny("d3", SUB, actions=["*"], principals=["alice"]),
        ],
    )
    snapshot.devTooling = DevTooling.model_validate(
        {
            "user": {"email": "guest@partner.example", "name": "guestdev"},
            "apps": [
                {
                    "owner": "guestdev",
                    "ownerType": "user",
                    "name": "app1",
                    "users": [{"email": "GUEST@partner.example", "role": "admin"}],
                },
                {"owner": "org", "ownerType": "org", "name": "app2", "users": []},
            ],
            "tokens": [
                {
                    "id": "t1",
                    "kind": "user",
                    "app": None,
                    "accessType": "full",
                    "description": "ci",
                    "createdAt": "2025-01-01T00:00:00Z",
                    "value": "super-secret-token-value",
                }
            ],
        }
    )
    return AccessEngine.from_snapshot(snapshot)


def test_gdpr_export_by_email() -> None:
    eng = _gdpr_snapshot()
    doc = eng.gdpr_export(email="guest@PARTNER.example")
    text = json.dumps(doc)
    assert "super-secret-token-value" not in text
    assert doc["subject"]["principalId"] == "guest" and doc["subject"]["inDirectory"]
    assert [g["id"] for g in doc["groupMemberships"]["direct"]] == ["nested"]
    assert {g["id"] for g in doc["groupMemberships"]["transitive"]} == {
        "nested",
        "team",
        "all-staff",
    }
    roles = doc["roleAssignments"]
    assert [r["name"] for r in roles["asPrincipal"]] == ["g1"]
    assert [r["name"] for r in roles["asCreatedBy"]] == ["g2"]
    assert [r["name"] for r in roles["asUpdatedBy"]] == ["g2"]
    denies = {d["name"]: d for d in doc["denyAssignments"]}
    assert set(denies) == {"d1", "d2"}
    assert denies["d1"]["subjectIs"] == ["named"]
    assert denies["d2"]["subjectIs"] == ["allPrincipals", "excluded"]
    assert set(denies["d1"]["properties"]) == {"denyAssignmentName", "description"}
    dev = doc["devTooling"]
    assert dev["appMemberships"] == [{"app": "guestdev/app1", "ownerType": "user", "role": "admin"}]
    assert dev["ownedApps"] == ["guestdev/app1"]
    assert dev["tokens"][0]["id"] == "t1" and "value" not in dev["tokens"][0]
    assert doc["healthEvents"]["included"] is False


def test_gdpr_export_by_principal_and_errors() -> None:
    eng = _gdpr_snapshot()
    doc = eng.gdpr_export(principal_id="ALICE")
    assert doc["directoryEntry"]["displayName"] == "Alice"
    assert doc["devTooling"]["tokens"] == []
    with pytest.raises(InputError):
        eng.gdpr_export()
    missing = eng.gdpr_export(email="nobody@example.com")
    assert missing["subject"]["principalId"] is None and missing["notes"]


def test_escalation_conditional_only_on_request() -> None:
    kv_data_access_admin = "8b54135c-b56d-4d72-a534-26097cfdc8d8"
    eng = engine(principals=_people(), assignments=[ra("k1", "carol", kv_data_access_admin, SUB)])
    assert eng.escalations() == []
    found = eng.escalations(include_conditional=True)
    assert [(e.principalId, e.decision) for e in found] == [("carol", "conditional")]
    assert found[0].operations == ("Cloud.Authorization/roleAssignments/write",)


def test_who_with_membership_cycle() -> None:
    eng = engine(
        principals=[user("u", "g1"), group("g1", "g2"), group("g2", "g1")],
        assignments=[ra("a1", "g2", OWNER, SUB, principal_type="Group")],
    )
    assert {e.principalId for e in eng.who(VM_WRITE, RG).allowed} == {"u", "g1", "g2"}
