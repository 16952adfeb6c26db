"""The access delta (contracts §9, issue 19): against the brute force (deciding every principal,
privileged operation and scope of the universe before and after) for generated estates and
generated changes; its algebra (the empty change, a change and its inverse, a new deny); scenarios
(a group made Owner, its removal, a deny, a membership, a moved subscription); ``auditor access
diff``."""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from unittest import mock

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.access import (
    PRIVILEGED_ACTIONS,
    AccessDelta,
    AccessEngine,
    AccessRequest,
    access_delta,
    delta_universe,
)
from auditor.access import delta as delta_module
from auditor.access.scopes import scope_key
from auditor.cli import main
from auditor.estate.records import DenyAssignmentRecord, RoleAssignmentRecord
from auditor.estate.snapshot import dump_snapshot
from auditor.model.access import ALL_PRINCIPALS_ID
from tests.test_access_properties import (
    BUILTINS,
    CUSTOM,
    HIERARCHY,
    MG_A,
    MG_B,
    PRINCIPALS,
    SCOPES,
    SUB1,
    SUB2,
    Estate,
    _permission,
    deny_assignments,
    estates,
)
from tests.test_access_support import (
    ALL,
    CONTRIBUTOR,
    OWNER,
    RBAC_ADMINISTRATOR,
    READER,
    SUB,
    USER_ACCESS_ADMINISTRATOR,
    VM,
    build,
    deny,
    group,
    ra,
    role,
    user,
)

READS = "@Resource[Cloud.Storage/storageAccounts/blobServices/containers:name] StringEquals 'logs'"
"""A condition that reads an attribute: undecidable without attributes (conditional)."""
TARGETED = (
    "((!(ActionMatches{'Cloud.Storage/storageAccounts/blobServices/containers/blobs/read'})) OR "
    f"({READS}))"
)
"""A condition that bites only on one data action: true for every privileged operation."""
CONDITIONS = [None, None, READS, TARGETED]
ADMINS = [OWNER, CONTRIBUTOR, USER_ACCESS_ADMINISTRATOR, RBAC_ADMINISTRATOR]
DENIED = [
    "*",
    "Cloud.Authorization/*",
    "Cloud.Authorization/roleAssignments/write",
    "*/delete",
    "Cloud.Authorization/denyAssignments/*",
]

Key = tuple[str, str, bool, str]


# --------------------------------------------------------------------------------- estates, changes


@dataclass
class Version:
    """An estate and its hierarchy (which a change may move)."""

    estate: Estate
    hierarchy: list[tuple[str, str | None]] = field(default_factory=lambda: list(HIERARCHY))

    def engine(self) -> AccessEngine:
        e = self.estate
        return AccessEngine.from_snapshot(
            build(
                principals=e.principals,
                roles=e.roles,
                assignments=e.assignments,
                denies=e.denies,
                hierarchy=self.hierarchy,
            )
        )


def _with_condition(record: RoleAssignmentRecord, condition: str | None) -> RoleAssignmentRecord:
    return msgspec.structs.replace(
        record,
        properties=msgspec.structs.replace(
            record.properties, condition=condition, conditionVersion="2.0" if condition else None
        ),
    )


@st.composite
def versions(draw: st.DrawFn) -> Version:
    estate = draw(estates())
    assignments = [
        _with_condition(r, draw(st.sampled_from(CONDITIONS))) for r in estate.assignments
    ]
    # administrators, so that the privileged operations move
    for n in range(draw(st.integers(1, 3))):
        extra = ra(
            f"admin{n}",
            draw(st.sampled_from(PRINCIPALS)),
            draw(st.sampled_from(ADMINS)),
            draw(st.sampled_from(SCOPES)),
        )
        assignments.append(_with_condition(extra, draw(st.sampled_from([None, *CONDITIONS]))))
    return Version(replace(estate, assignments=assignments))


@st.composite
def privileged_denies(draw: st.DrawFn, name: str) -> DenyAssignmentRecord:
    """Deny assignments that block privileged operations, often for every principal."""
    return deny(
        name,
        draw(st.sampled_from(SCOPES)),
        actions=draw(st.lists(st.sampled_from(DENIED), min_size=1, max_size=2, unique=True)),
        principals=draw(st.sampled_from([[ALL], [ALL], *([p] for p in PRINCIPALS)])),
        excluded=draw(st.lists(st.sampled_from(PRINCIPALS), max_size=2, unique=True)),
        at_scope_only=draw(st.booleans()),
        condition=draw(st.sampled_from([None, None, READS])),
    )


EDITS = [
    "add",
    "add",
    "remove",
    "modify",
    "addDeny",
    "removeDeny",
    "modifyDeny",
    "role",
    "member",
    "member",
    "move",
    "recase",
    "metadata",
]
MOVES: list[list[tuple[str, str | None]]] = [
    [(MG_A, "/"), (MG_B, MG_A), (SUB1, MG_A)],
    [(MG_A, "/"), (MG_B, MG_A), (SUB1, MG_B), (SUB2, MG_B)],
    [(MG_A, "/"), (MG_B, "/"), (SUB1, MG_B)],
    [(MG_A, "/"), (MG_B, MG_A)],
]


@st.composite
def changed(draw: st.DrawFn, version: Version) -> Version:
    """``version`` after one to four random edits."""
    e = version.estate
    principals, roles = list(e.principals), list(e.roles)
    assignments, denies = list(e.assignments), list(e.denies)
    hierarchy = list(version.hierarchy)
    for n in range(draw(st.integers(1, 4))):
        edit = draw(st.sampled_from(EDITS))
        if edit == "add" or (
            edit in ("remove", "modify", "recase", "metadata") and not assignments
        ):
            extra = ra(
                f"new{n}",
                draw(st.sampled_from([*PRINCIPALS, "ghost"])),
                draw(st.sampled_from(CUSTOM + BUILTINS)),
                draw(st.sampled_from(SCOPES)),
                principal_type="Group",
            )
            assignments.append(_with_condition(extra, draw(st.sampled_from(CONDITIONS))))
        elif edit == "remove":
            assignments.pop(draw(st.integers(0, len(assignments) - 1)))
        elif edit in ("modify", "recase", "metadata"):
            i = draw(st.integers(0, len(assignments) - 1))
            record = assignments[i]
            props = record.properties
            if edit == "recase":
                assignments[i] = msgspec.structs.replace(record, id=record.id.upper())
            elif edit == "metadata":
                props = msgspec.structs.replace(props, createdOn="2026-01-01T00:00:00Z")
                assignments[i] = msgspec.structs.replace(record, properties=props)
            else:
                props = msgspec.structs.replace(
                    props,
                    principalId=draw(st.sampled_from(PRINCIPALS)),
                    roleDefinitionId=props.roleDefinitionId.rsplit("/", 1)[0]
                    + "/"
                    + draw(st.sampled_from(CUSTOM + BUILTINS)),
                )
                assignments[i] = _with_condition(
                    msgspec.structs.replace(record, properties=props),
                    draw(st.sampled_from(CONDITIONS)),
                )
        elif edit == "addDeny" or (edit in ("removeDeny", "modifyDeny") and not denies):
            strategy = draw(st.sampled_from([deny_assignments, privileged_denies]))
            denies.append(draw(strategy(f"nd{n}")))
        elif edit == "removeDeny":
            denies.pop(draw(st.integers(0, len(denies) - 1)))
        elif edit == "modifyDeny":
            i = draw(st.integers(0, len(denies) - 1))
            props = denies[i].properties
            props = msgspec.structs.replace(
                props,
                doNotApplyToChildScopes=not props.doNotApplyToChildScopes,
                excludePrincipals=props.excludePrincipals[:-1],
                condition=draw(st.sampled_from([None, READS])),
                conditionVersion="2.0",
            )
            denies[i] = msgspec.structs.replace(denies[i], properties=props)
        elif edit == "role":
            i = draw(st.integers(0, len(roles) - 1))
            guid = CUSTOM[i]
            roles[i] = role(
                guid,
                f"custom {i}",
                permissions=draw(st.lists(_permission(), min_size=1, max_size=2)),
            )
        elif edit == "member":
            i = draw(st.integers(0, len(principals) - 1))
            me = principals[i].id
            choices = [g for g in ("g0", "g1", "g2") if g != me]
            groups = draw(st.lists(st.sampled_from(choices), max_size=2, unique=True))
            principals[i] = msgspec.structs.replace(principals[i], memberOf=groups)
        else:
            hierarchy = list(draw(st.sampled_from(MOVES)))
    return Version(
        Estate(principals, roles, assignments, denies),
        hierarchy,
    )


# ------------------------------------------------------------------------------------ brute force


def _universe(version: Version) -> tuple[set[str], set[str]]:
    """The principal and scope keys of contracts §9, read off the records (independently of the
    delta's own reading)."""
    e = version.estate
    principals = {p.id.lower() for p in e.principals}
    principals |= {r.properties.principalId.lower() for r in e.assignments}
    for d in e.denies:
        for p in (*d.properties.principals, *d.properties.excludePrincipals):
            if p.id and p.id != ALL_PRINCIPALS_ID:
                principals.add(p.id.lower())
    scopes = {"/"}
    for scope, parent in version.hierarchy:
        scopes.add(scope_key(scope))
        scopes.add(scope_key(parent or "/"))
    scopes |= {scope_key(r.properties.scope) for r in e.assignments}
    scopes |= {scope_key(d.properties.scope) for d in e.denies}
    return principals, scopes


_NO = {"denied", "notGranted"}


def brute_force(
    before: AccessEngine, after: AccessEngine, all_actions: bool = False
) -> dict[Key, tuple[str, str, tuple[str, ...], tuple[str, ...], str]]:
    """Every (principal, operation, scope) of the universe decided before and after: the changes,
    each with the decision of the state it describes."""
    principals, operations, scopes = delta_universe(before, after, all_actions=all_actions)
    out: dict[Key, tuple[str, str, tuple[str, ...], tuple[str, ...], str]] = {}
    for principal in principals:
        for action, data in operations:
            for scope in scopes:
                request = AccessRequest(principal, action, scope, data)
                old, new = before.check(request), after.check(request)
                if old.decision == new.decision or {old.decision, new.decision} <= _NO:
                    continue
                described = old if new.decision == "notGranted" else new
                out[(principal.lower(), action.lower(), data, scope_key(scope))] = (
                    old.decision,
                    new.decision,
                    described.grantedBy,
                    described.deniedBy,
                    described.reason,
                )
    return out


def _found(delta: AccessDelta) -> dict[Key, tuple[str, str, tuple[str, ...], tuple[str, ...], str]]:
    out = {}
    for c in delta.changes:
        key = (c.principalId.lower(), c.action.lower(), c.dataAction, scope_key(c.scope))
        assert key not in out, key
        out[key] = (c.before, c.after, c.grantedBy, c.deniedBy, c.reason)
    return out


def _check_paths(delta: AccessDelta, before: Version, after: Version) -> None:
    """Each path is a chain of direct memberships from the principal to the group the first
    granting (or blocking) assignment names."""
    for c in delta.changes:
        version = before if c.after == "notGranted" else after
        member_of = {
            p.id.lower(): {g.lower() for g in p.memberOf} for p in version.estate.principals
        }
        hops = [c.principalId.lower(), *(g.lower() for g in c.path)]
        for left, right in itertools.pairwise(hops):
            assert right in member_of.get(left, set()), (c, hops)
        if c.grantedBy:
            (holder,) = {
                r.properties.principalId.lower()
                for r in version.estate.assignments
                if r.id.lower() == c.grantedBy[0].lower()
            }
            assert hops[-1] == holder, c
        elif c.path:
            (named,) = {
                tuple(p.id.lower() for p in d.properties.principals if p.id)
                for d in version.estate.denies
                if d.id.lower() == c.deniedBy[0].lower()
            }
            assert hops[-1] in named, c


# ------------------------------------------------------------------------------------- properties

_FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_FAST
@given(st.data())
def test_the_delta_is_the_brute_force(data: st.DataObject) -> None:
    before = data.draw(versions())
    after = data.draw(changed(before))
    old, new = before.engine(), after.engine()
    delta = access_delta(old, new)
    expected = brute_force(old, new)
    assert _found(delta) == expected
    _check_paths(delta, before, after)
    with mock.patch.object(delta_module, "_SHARE_FROM", 1):  # members share decisions
        assert _found(access_delta(old, new)) == expected
    # the universe read by the delta is the one of contracts §9
    principals, operations, scopes = delta_universe(old, new)
    p_before, s_before = _universe(before)
    p_after, s_after = _universe(after)
    assert {p.lower() for p in principals} == p_before | p_after
    assert {scope_key(s) for s in scopes} == s_before | s_after
    assert [a for a, _ in operations] == list(PRIVILEGED_ACTIONS)
    summary = delta.summary
    assert summary["newlyAllowed"] + summary["newlyBlocked"] + summary["changedConditional"] == len(
        delta.changes
    )


@settings(max_examples=15, deadline=None)
@given(st.data())
def test_all_actions_is_the_brute_force(data: st.DataObject) -> None:
    before = data.draw(versions())
    after = data.draw(changed(before))
    old, new = before.engine(), after.engine()
    delta = access_delta(old, new, all_actions=True)
    assert _found(delta) == brute_force(old, new, all_actions=True)


@_FAST
@given(versions(), st.data())
def test_adding_a_deny_never_adds_access(version: Version, data: st.DataObject) -> None:
    extra = data.draw(
        st.one_of(privileged_denies("extra"), privileged_denies("extra"), deny_assignments("extra"))
    )
    denied = Version(replace(version.estate, denies=[*version.estate.denies, extra]))
    old, new = version.engine(), denied.engine()
    delta = access_delta(old, new)
    assert _found(delta) == brute_force(old, new)
    for change in delta.changes:
        assert change.before in ("allowed", "conditional"), change
        assert change.after != "allowed", change
        assert change.deniedBy, change
    assert delta.summary["newlyAllowed"] == 0


@_FAST
@given(st.data())
def test_a_change_and_its_inverse_give_opposite_deltas(data: st.DataObject) -> None:
    before = data.draw(versions())
    after = data.draw(changed(before))
    old, new = before.engine(), after.engine()
    forward = {k: v[:2] for k, v in _found(access_delta(old, new)).items()}
    backward = {k: v[:2] for k, v in _found(access_delta(new, old)).items()}
    assert backward == {k: (b, a) for k, (a, b) in forward.items()}


@settings(max_examples=20, deadline=None)
@given(versions())
def test_the_empty_change_gives_the_empty_delta(version: Version) -> None:
    engine = version.engine()
    assert access_delta(engine, engine).changes == ()
    again = access_delta(engine, version.engine())  # the same estate, built anew
    assert again.changes == ()
    assert again.stats.decisions == 0
    assert again.to_wire()["summary"] == {
        "newlyAllowed": 0,
        "newlyBlocked": 0,
        "changedConditional": 0,
        "principals": 0,
    }


# -------------------------------------------------------------------------------------- scenarios

MEMBERS = [
    user("ann", "ops", name="Ann"),
    user("ben", "ops", name="Ben"),
    user("cy", "night", name="Cy"),
    group("night", "ops", name="Night shift"),
    group("ops", name="Operators"),
    user("dee", name="Dee"),
]
OWNER_TO_OPS = ra("grant-ops", "ops", OWNER, SUB, principal_type="Group")
BASE = [ra("base", "dee", READER, VM)]


def _delta(before: dict[str, Any], after: dict[str, Any], **kwargs: Any) -> AccessDelta:
    return access_delta(
        AccessEngine.from_snapshot(build(**before)),
        AccessEngine.from_snapshot(build(**after)),
        **kwargs,
    )


def test_owner_to_a_group_names_every_member_with_the_path() -> None:
    delta = _delta(
        {"principals": MEMBERS, "assignments": BASE},
        {"principals": MEMBERS, "assignments": [*BASE, OWNER_TO_OPS]},
    )
    by = delta.by_principal()
    assert set(by) == {"ann", "ben", "cy", "night", "ops"}
    # the universe's scopes at and below the subscription: itself and the VM that holds an
    # assignment (the resource group holds none, so it is not in the universe)
    for changes in by.values():
        assert {(c.action, c.scope) for c in changes} == {
            (action, scope) for action in PRIVILEGED_ACTIONS for scope in (SUB, VM)
        }
        for change in changes:
            assert (change.before, change.after) == ("notGranted", "allowed")
            assert change.grantedBy == (OWNER_TO_OPS.id,)
            assert "Owner" in change.reason
    assert by["ann"][0].path == ("ops",)
    assert by["cy"][0].path == ("night", "ops")
    assert by["ops"][0].path == ()
    assert delta.summary == {
        "newlyAllowed": 50,
        "newlyBlocked": 0,
        "changedConditional": 0,
        "principals": 5,
    }
    assert delta.names["ann"] == "Ann"
    assert delta.names["night"] == "Night shift"
    assert delta.stats.roleAssignments == 1


def test_removing_the_assignment_gives_the_opposite() -> None:
    added = _delta(
        {"principals": MEMBERS, "assignments": BASE},
        {"principals": MEMBERS, "assignments": [*BASE, OWNER_TO_OPS]},
    )
    removed = _delta(
        {"principals": MEMBERS, "assignments": [*BASE, OWNER_TO_OPS]},
        {"principals": MEMBERS, "assignments": BASE},
    )
    assert [(c.principalId, c.action, c.scope) for c in removed.changes] == [
        (c.principalId, c.action, c.scope) for c in added.changes
    ]
    for change in removed.changes:
        assert (change.before, change.after) == ("allowed", "notGranted")
        # a removal is described by the state before it: the assignment that granted
        assert change.grantedBy == (OWNER_TO_OPS.id,)
    assert removed.changes[0].kind == "newlyBlocked"
    assert removed.summary["newlyBlocked"] == 50


def test_a_deny_assignment_added_blocks() -> None:
    lock = deny(
        "lock", SUB, actions=["Cloud.Authorization/roleAssignments/write"], excluded=["ben"]
    )
    delta = _delta(
        {"principals": MEMBERS, "assignments": [OWNER_TO_OPS]},
        {"principals": MEMBERS, "assignments": [OWNER_TO_OPS], "denies": [lock]},
    )
    assert {c.principalId for c in delta.changes} == {"ann", "cy", "night", "ops"}
    for change in delta.changes:
        assert change.action == "Cloud.Authorization/roleAssignments/write"
        assert (change.before, change.after) == ("allowed", "denied")
        assert change.deniedBy == (lock.id,)
        assert change.grantedBy == ()
        assert change.path == ()  # the deny names every principal
    assert delta.summary["newlyBlocked"] == 4  # at the subscription, the only scope below it


@pytest.mark.parametrize("share_from", [1, 10_000])
def test_members_a_deny_tells_apart_are_decided_apart(share_from: int) -> None:
    """Members of one group who meet the same grants but not the same deny assignment (one is
    excluded) do not share their decisions, however many members the group has."""
    lock = deny(
        "lock", SUB, actions=["Cloud.Authorization/roleAssignments/write"], excluded=["ben"]
    )
    with mock.patch.object(delta_module, "_SHARE_FROM", share_from):
        delta = _delta(
            {"principals": MEMBERS, "denies": [lock]},
            {"principals": MEMBERS, "assignments": [OWNER_TO_OPS], "denies": [lock]},
        )
    write = "Cloud.Authorization/roleAssignments/write"
    got = {(c.principalId, c.action) for c in delta.changes if c.scope == SUB}
    assert ("ben", write) in got
    assert ("ann", write) not in got  # notGranted before, denied after: not a change
    assert {a for p, a in got if p == "ann"} == set(PRIVILEGED_ACTIONS) - {write}


def test_a_new_member_gains_what_the_group_holds() -> None:
    joined = [*MEMBERS[:-1], user("dee", "night", name="Dee")]
    delta = _delta(
        {"principals": MEMBERS, "assignments": [OWNER_TO_OPS]},
        {"principals": joined, "assignments": [OWNER_TO_OPS]},
    )
    assert {c.principalId for c in delta.changes} == {"dee"}
    assert {c.path for c in delta.changes} == {("night", "ops")}
    assert delta.stats.memberships == 1


def test_a_conditioned_grant_is_a_conditional_change() -> None:
    conditioned = ra("maybe", "dee", OWNER, SUB, condition=READS)
    delta = _delta({"principals": MEMBERS}, {"principals": MEMBERS, "assignments": [conditioned]})
    assert {c.after for c in delta.changes} == {"conditional"}
    assert delta.summary["changedConditional"] == len(delta.changes) == 5


def test_a_moved_subscription_inherits_its_new_parent() -> None:
    mg = "/providers/Cloud.Management/managementGroups/mg-top"
    grant = ra("mg-owner", "dee", OWNER, mg)
    hierarchy: list[tuple[str, str | None]] = [(mg, "/"), (SUB, "/")]
    delta = _delta(
        {"principals": MEMBERS, "assignments": [grant], "hierarchy": hierarchy},
        {"principals": MEMBERS, "assignments": [grant], "hierarchy": [(mg, "/"), (SUB, mg)]},
    )
    assert {(c.principalId, c.scope) for c in delta.changes} == {("dee", SUB)}
    assert delta.stats.hierarchy == 1


def test_metadata_and_recased_ids_change_nothing() -> None:
    record = ra("Grant", "ops", OWNER, SUB, principal_type="Group")
    touched = msgspec.structs.replace(
        record,
        id=record.id.upper(),
        properties=msgspec.structs.replace(record.properties, createdOn="2026-01-01T00:00:00Z"),
    )
    delta = _delta(
        {"principals": MEMBERS, "assignments": [record]},
        {"principals": MEMBERS, "assignments": [touched]},
    )
    assert delta.changes == ()
    assert delta.stats.roleAssignments == 0


def test_ids_written_twice_are_compared_as_multisets() -> None:
    first = ra("twice", "ann", OWNER, SUB)
    second = ra("twice", "ben", OWNER, SUB)
    for before, after in (([first, second], [first]), ([first], [second, first])):
        old = AccessEngine.from_snapshot(build(principals=MEMBERS, assignments=before))
        new = AccessEngine.from_snapshot(build(principals=MEMBERS, assignments=after))
        delta = access_delta(old, new)
        assert _found(delta) == brute_force(old, new)
        assert {c.principalId for c in delta.changes} == {"ben"}


def test_all_actions_compares_what_the_roles_name() -> None:
    reader = ra("read", "dee", READER, SUB)
    plain = _delta({"principals": MEMBERS}, {"principals": MEMBERS, "assignments": [reader]})
    assert plain.changes == ()
    wide = _delta(
        {"principals": MEMBERS}, {"principals": MEMBERS, "assignments": [reader]}, all_actions=True
    )
    actions = {c.action for c in wide.changes}
    assert "*/read" in actions  # Reader's own pattern, asked literally
    assert "Cloud.Resources/subscriptions/read" in actions  # named by another built-in role
    assert all(a.lower().endswith("/read") for a in actions)
    assert ("*/read", False) in wide.operations


def test_wire_shape() -> None:
    delta = _delta(
        {"principals": MEMBERS, "assignments": BASE},
        {"principals": MEMBERS, "assignments": [*BASE, OWNER_TO_OPS]},
    )
    wire = json.loads(json.dumps(delta.to_wire()))
    assert set(wire) == {"schemaVersion", "changes", "summary"}
    assert wire["schemaVersion"] == 1
    assert set(wire["changes"][0]) == {
        "principalId",
        "action",
        "dataAction",
        "scope",
        "before",
        "after",
        "grantedBy",
        "deniedBy",
        "path",
        "reason",
    }


# --------------------------------------------------------------------------------------------- CLI


@pytest.fixture
def two_files(tmp_path: Path) -> tuple[str, str]:
    before, after = tmp_path / "before.json", tmp_path / "after.json"
    dump_snapshot(build(principals=MEMBERS, assignments=BASE), before)
    dump_snapshot(build(principals=MEMBERS, assignments=[*BASE, OWNER_TO_OPS]), after)
    return str(before), str(after)


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_text_and_json(two_files: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    before, after = two_files
    code, out, _ = _run(capsys, "access", "diff", before, after)
    assert code == 0
    assert out.startswith("Access changes: 50 for 5 principals (50 newly allowed")
    assert "Ann (ann)" in out
    assert "through Night shift → Operators; granted by roleAssignments/grant-ops" in out
    code, out, _ = _run(capsys, "access", "diff", before, after, "-o", "json")
    assert code == 0
    assert json.loads(out)["summary"]["principals"] == 5


def test_cli_writes_files(
    two_files: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before, after = two_files
    target = tmp_path / "delta.json"
    code, out, err = _run(capsys, "access", "diff", before, after, "-o", f"json={target}")
    assert code == 0
    assert out == ""
    assert "wrote json access delta" in err
    assert json.loads(target.read_text())["summary"]["newlyAllowed"] == 50
    code, out, _ = _run(capsys, "access", "diff", after, after)
    assert (code, out) == (0, "No access changes.\n")


def test_cli_input_errors(two_files: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    before, _after = two_files
    code, _out, err = _run(capsys, "access", "diff", before, before + ".missing")
    assert code == 2
    assert ".missing" in err
    code, _out, err = _run(capsys, "access", "diff", before, before, "-o", "sarif")
    assert code == 2
    assert "text or json" in err
