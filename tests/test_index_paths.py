"""The access index's build, old paths against new (issue 23).

Role assignments whose principal ids are their own keys (lower case) are indexed with the ids as the
keys, the keys numbered afterwards in one pass in C; other estates take the general build, which
looks each id up. The directory interns its keys and keeps the ids as written as their display
casing. Each test keeps the code before the change as its oracle (:func:`_old_build_assignments`,
:class:`_OldDirectory`) and checks that every index the engine reads is the same, in the same order.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.access import indexes as indexes_module
from auditor.access.catalogue import CompiledPermission
from auditor.access.conditions import make_cond
from auditor.access.directory import Directory
from auditor.access.indexes import (
    _BUCKET_TUPLE_MAX,
    _FIRST,
    AssignmentEntry,
    DenyEntry,
    Indexes,
    _intern,
    is_all_principals,
)
from auditor.estate.records import (
    DenyAssignmentRecord,
    DirectoryPrincipalRecord,
    RoleAssignmentPropertiesRecord,
    RoleAssignmentRecord,
)
from auditor.estate.roles import role_guid
from auditor.estate.snapshot import Snapshot, loads_snapshot

# -- the oracles: the code before the change


def _old_build_assignments(self: Indexes, records: Iterable[RoleAssignmentRecord]) -> None:
    add_scope = self.scopes.add
    add_principal = self.directory.add
    at_scope: dict[str, dict[str, tuple[AssignmentEntry, ...]]] = {}
    by_scope: dict[str, list[AssignmentEntry]] = {}
    overflow: dict[tuple[str, str], list[AssignmentEntry]] = {}
    append = self.assignments.append
    # the loader shares repeated strings, so most lookups below hit these small caches; a
    # scope as written gives its key, its principal table and its list in one lookup (the
    # list in snapshot order: :attr:`by_scope`, made here while each record is fresh)
    scopes: dict[str, tuple[str, dict[str, tuple[AssignmentEntry, ...]], Any]] = {}
    # a principal id as written gives its key's number (each key numbered once, in order of
    # first appearance): :attr:`principal_numbers`, made here while each record is fresh
    principal_numbers: dict[str, int] = {}
    numbered: dict[str, int] = {}
    keys = self.principal_keys
    numbers = self.principal_numbers
    number_append = numbers.append
    role_keys: dict[str, str] = {}
    last_raw: Any = _FIRST  # no scope is this: the first record finds its slot
    scope = ""
    principals: dict[str, tuple[AssignmentEntry, ...]] = {}
    listed: Any = None
    for record in records:
        props = record.properties
        raw = props.scope
        if raw is not last_raw:
            last_raw = raw
            slot = scopes.get(raw)
            if slot is None:
                key = _intern(add_scope(raw or "/"))
                table = at_scope.get(key)
                if table is None:
                    table = at_scope[key] = {}
                    by_scope[key] = []
                slot = scopes[raw] = (key, table, by_scope[key].append)
            scope, principals, listed = slot
        raw = props.principalId
        number = principal_numbers.get(raw)
        if number is None:
            principal = _intern(add_principal(raw))
            number = principal_numbers[raw] = numbered.setdefault(principal, len(numbered))
            if number == len(keys):
                keys.append(principal)
        principal = keys[number]
        number_append(number)
        raw = props.roleDefinitionId
        role = role_keys.get(raw)
        if role is None:
            role = role_keys[raw] = _intern(role_guid(raw))
        if props.condition:
            entry = AssignmentEntry(
                record,
                principal,
                scope,
                role,
                make_cond(props.condition, props.conditionVersion),
            )
        else:
            entry = AssignmentEntry(record, principal, scope, role, None)
        append(entry)
        listed(entry)
        bucket = principals.get(principal)
        if bucket is None:
            principals[principal] = (entry,)
        elif len(bucket) < _BUCKET_TUPLE_MAX:
            principals[principal] = (*bucket, entry)
        else:
            overflow.setdefault((scope, principal), list(bucket)).append(entry)
            principals[principal] = bucket  # replaced below
    for (scope, principal), grown in overflow.items():
        at_scope[scope][principal] = tuple(grown)
    self.at_scope = at_scope
    self._by_scope = by_scope


def _old_build_denies(self: Indexes, records: Iterable[DenyAssignmentRecord]) -> None:
    shapes: dict[tuple[object, ...], int] = {}
    for record in records:
        props = record.properties
        scope = self.scopes.add(props.scope or "/")
        named = [p for p in props.principals if p.id]
        excluded = [p for p in props.excludePrincipals if p.id]
        entry = DenyEntry(
            record=record,
            id=record.id or "",
            name=props.denyAssignmentName or record.name or record.id or "",
            scope=scope,
            at_scope_only=bool(props.doNotApplyToChildScopes),
            everyone=any(is_all_principals(p) for p in named),
            principals=frozenset(
                self.directory.add(p.id) for p in named if p.id and not is_all_principals(p)
            ),
            excluded=frozenset(
                self.directory.add(p.id) for p in excluded if p.id and not is_all_principals(p)
            ),
            excludes_everyone=any(is_all_principals(p) for p in excluded),
            permissions=tuple(
                CompiledPermission.build(
                    i,
                    p.actions,
                    p.notActions,
                    p.dataActions,
                    p.notDataActions,
                    p.condition,
                    p.conditionVersion,
                )
                for i, p in enumerate(props.permissions)
            ),
            cond=make_cond(props.condition, props.conditionVersion),
        )
        entry.shape_id = shapes.setdefault(entry.shape, len(shapes))
        entry.position = len(self.denies)
        self.denies.append(entry)
        self.deny_by_scope.setdefault(scope, []).append(entry)
        for key in entry.principals:
            self.deny_naming.setdefault(key, []).append(entry)
        for key in entry.excluded:
            self.deny_excluding.setdefault(key, []).append(entry)


class _OldDirectory(Directory):
    def __init__(self, principals: Iterable[DirectoryPrincipalRecord] = ()) -> None:
        self._entries: dict[str, DirectoryPrincipalRecord] = {}
        self._display: dict[str, str] = {}
        self._member_of: dict[str, tuple[str, ...]] = {}
        self._closure: dict[str, frozenset[str]] = {}
        self._identities: dict[str, frozenset[str]] = {}
        self._members: dict[str, list[str]] | None = None
        self._transitive: dict[str, dict[str, str]] = {}
        self._paths: dict[tuple[str, str], tuple[str, ...]] = {}
        entries = self._entries
        member_of = self._member_of
        display = self._display
        intern = sys.intern
        keys: dict[str, str] = {}  # group ids as written -> keys (they repeat)
        for record in principals:
            raw = record.id
            if raw is None:
                continue
            key = raw.lower()
            if key not in display:  # :meth:`add`, inlined (a large directory's every entry)
                display[intern(key)] = key if key == raw else raw
            entries.setdefault(key, record)
            groups_raw = record.memberOf
            if groups_raw:
                groups: list[str] = []
                for raw in groups_raw:
                    group = keys.get(raw)
                    if group is None:
                        group = keys[raw] = raw.lower()
                        if group not in display:
                            display[intern(group)] = group if group == raw else raw
                    groups.append(group)
                previous = member_of.get(key)
                if previous:
                    groups[:0] = previous
                member_of[key] = tuple(dict.fromkeys(groups)) if len(groups) > 1 else (groups[0],)


def _old_indexes(snapshot: Snapshot) -> Indexes:
    with (
        mock.patch.object(indexes_module, "Directory", _OldDirectory),
        mock.patch.object(Indexes, "_build_assignments", _old_build_assignments),
        mock.patch.object(Indexes, "_build_denies", _old_build_denies),
    ):
        return Indexes(snapshot)


# -- what the engine reads of the indexes


def _deny_facts(ix: Indexes) -> Any:
    def permission(p: Any) -> Any:
        cond = None if p.cond is None else (p.cond.text, p.cond.version)
        return (p.index, p.actions, p.notActions, p.dataActions, p.notDataActions, cond)

    denies = [
        (
            d.record,
            d.id,
            d.name,
            d.scope,
            d.at_scope_only,
            d.everyone,
            d.principals,
            d.excluded,
            d.excludes_everyone,
            [permission(p) for p in d.permissions],
            d.cond,
            d.sort_key,
            d.shape,
            d.shape_id,
            d.position,
        )
        for d in ix.denies
    ]
    at = {
        name: [(k, [d.position for d in v]) for k, v in getattr(ix, name).items()]
        for name in ("deny_by_scope", "deny_naming", "deny_excluding")
    }
    return denies, at, ix.deny_subjects


def _facts(ix: Indexes) -> Any:
    directory = ix.directory
    return (
        ix.assignments,
        [(s, list(t.items())) for s, t in ix.at_scope.items()],
        list(ix.by_scope.items()),
        ix.principal_keys,
        ix.principal_numbers.tolist(),
        list(directory._display.items()),
        list(directory._entries.items()),
        list(directory._member_of.items()),
        list(ix.scopes._display.items()),
        _deny_facts(ix),
        ix._interesting,
        list(ix._levels_by_key.items()),
        list(ix._level_pairs.items()),
        [ix.principal(key) for key in directory._display],
    )


def _same(snapshot: Snapshot) -> Indexes:
    old, new = _old_indexes(snapshot), Indexes(snapshot)
    assert _facts(new) == _facts(old)
    # the numbers are the keys' places in order of first appearance
    assert new.principal_keys == list(
        dict.fromkeys(ra.properties.principalId.lower() for ra in snapshot.roleAssignments)
    )
    return new


# -- generated estates: ids mostly in lower case (the fast build), some not (the general build);
# repeated (scope, principal) pairs, conditions, directory entries with groups, deny assignments

LOWER = [
    "0c5e4ad3-9c33-4a5e-9d1e-9a6b3c1f0e42",
    "ab0d7c1e-27aa-4f5e-b7f1-1e0d4c1b9f00",
    "g1",
    "u-3",
]
MIXED = ["AB0D7C1E-27AA-4F5E-B7F1-1E0D4C1B9F00", "G1", "Gr\u00fcn", "1234", "\u00df-x"]
SCOPES = [
    "/",
    "/subscriptions/s1",
    "/subscriptions/S1/",
    "/subscriptions/s1/resourceGroups/RG",
    "/subscriptions/s1/resourcegroups/rg/providers/Cloud.Compute/virtualMachines/vm",
    "/providers/Cloud.Management/managementGroups/mg",
    "/providers/Cloud.Management/x",
]
ROLES = [
    "/providers/Cloud.Authorization/roleDefinitions/8e3af657-a8ff-443c-a75c-2fe8c4bcb635",
    "acdd72a7-3385-48ef-bd42-f606fba81ae7",
    "ACDD72A7-3385-48EF-BD42-F606FBA81AE7",
    "r2",
]
CONDITIONS = [None, "", "  ", "@Resource[x] StringEquals 'y'", "@Request[a] StringLike 'b*'"]
DENY_CONDITION = "@Principal[department] StringEquals 'ops'"
PERMISSIONS: list[dict[str, Any]] = [
    {"actions": ["*"], "notActions": ["*/read"]},
    {"actions": ["*"], "notActions": ["*/read"], "condition": DENY_CONDITION},
    {
        "actions": ["*"],
        "notActions": ["*/read"],
        "condition": DENY_CONDITION,
        "conditionVersion": "2.0",
    },
    {"dataActions": ["Cloud.Storage/*"], "notDataActions": []},
    {"dataActions": ["Cloud.Storage/*"], "notDataActions": ["Cloud.Storage/*/read"]},
    {"actions": ["Cloud.Compute/*/delete"]},
]


@st.composite
def estates(draw: st.DrawFn) -> dict[str, Any]:
    pids = draw(st.sampled_from([LOWER, LOWER, LOWER + MIXED]))
    items = []
    for n in range(draw(st.integers(0, 40))):
        props: dict[str, Any] = {
            "roleDefinitionId": draw(st.sampled_from(ROLES)),
            "principalId": draw(st.sampled_from(pids)),
            "scope": draw(st.sampled_from(SCOPES)),
        }
        condition = draw(st.sampled_from(CONDITIONS))
        if condition is not None:
            props["condition"] = condition
            props["conditionVersion"] = draw(st.sampled_from([None, "2.0", "1.0"]))
        items.append({"id": f"/subscriptions/s1/ra/{n}", "properties": props})
    doc: dict[str, Any] = {"snapshotVersion": 1, "roleAssignments": items}
    if draw(st.booleans()):
        groups = ["G1", "g1", "g2", LOWER[0], "Gr\u00fcn"]
        doc["principals"] = [
            {
                "id": pid,
                "type": draw(st.sampled_from(["User", "Group", "ServicePrincipal"])),
                "memberOf": draw(st.lists(st.sampled_from(groups), max_size=3)),
            }
            for pid in draw(
                st.lists(st.sampled_from([*LOWER, *MIXED, "g2"]), max_size=8, unique_by=str.lower)
            )
        ]
    if draw(st.booleans()):
        everyone = {"id": "00000000-0000-0000-0000-000000000000", "type": "SystemDefined"}
        doc["denyAssignments"] = [
            {
                "id": f"/subscriptions/s1/providers/Cloud.Authorization/denyAssignments/d{n}",
                "properties": {
                    "denyAssignmentName": f"deny {n}",
                    "scope": draw(st.sampled_from(SCOPES)),
                    "permissions": draw(st.lists(st.sampled_from(PERMISSIONS), max_size=2)),
                    "principals": [
                        {"id": p} if p != "*" else everyone
                        for p in draw(st.lists(st.sampled_from([*pids, "*"]), max_size=2))
                    ],
                    "excludePrincipals": [
                        {"id": p} if p != "*" else everyone
                        for p in draw(st.lists(st.sampled_from([*pids, "*"]), max_size=2))
                    ],
                },
            }
            for n in range(draw(st.integers(0, 3)))
        ]
    if draw(st.booleans()):
        doc["hierarchy"] = [
            {"id": "/providers/Cloud.Management/managementGroups/mg"},
            {
                "id": "/subscriptions/s1",
                "parent": "/providers/Cloud.Management/managementGroups/mg",
            },
        ]
    return doc


def _snapshot(doc: dict[str, Any]) -> Snapshot:
    return loads_snapshot(json.dumps(doc, ensure_ascii=False).encode(), source="gen.json")


@settings(max_examples=80, deadline=None)
@given(estates())
def test_the_index_is_built_as_before(doc: dict[str, Any]) -> None:
    _same(_snapshot(doc))


@settings(max_examples=40, deadline=None)
@given(estates(), st.booleans())
def test_either_build_gives_the_same_index(doc: dict[str, Any], lower: bool) -> None:
    """The probe of the first ids only picks the build: forced either way, the index is the
    same (an id not in lower case found after the probe sends the fast build to the general
    one)."""
    snapshot = _snapshot(doc)
    with mock.patch.object(indexes_module, "_lower_ids", lambda records: lower):
        _same(snapshot)


def test_a_late_id_in_upper_case_takes_the_general_build() -> None:
    ids = [f"{n:08x}-aaaa-bbbb-cccc-dddddddddddd" for n in range(300)]
    ids.append(ids[3].upper())  # the key of the fourth id, written otherwise, after the probe
    items = [
        {
            "id": f"/subscriptions/s1/ra/{n}",
            "properties": {
                "roleDefinitionId": "r1",
                "principalId": pid,
                "scope": "/subscriptions/s1",
            },
        }
        for n, pid in enumerate(ids)
    ]
    snapshot = _snapshot({"snapshotVersion": 1, "roleAssignments": items})
    calls: list[tuple[int, bool]] = []
    build = Indexes._build_rows

    def spy(self: Indexes, records: Any, key_of: Any) -> bool:
        calls.append((len(records), key_of is None))
        return build(self, records, key_of)

    with mock.patch.object(Indexes, "_build_rows", spy):
        ix = _same(snapshot)
    assert calls == [(301, True), (301, False)]  # ids as keys first, given up, then looked up
    assert ix.principal_numbers[-1] == 3 and len(ix.principal_keys) == 300
    assert ix.at_scope["/subscriptions/s1"][ids[3]] == (ix.assignments[3], ix.assignments[300])


@pytest.mark.parametrize("lower", [True, False])
def test_a_long_bucket_keeps_every_assignment_in_order(lower: bool) -> None:
    pid = "ab0d7c1e-27aa-4f5e-b7f1-1e0d4c1b9f00"
    items = [
        {
            "id": f"/subscriptions/s1/ra/{n}",
            "properties": {
                "roleDefinitionId": f"r{n % 3}",
                "principalId": pid if lower or n % 2 else pid.upper(),
                "scope": "/subscriptions/s1" if n % 5 else "/subscriptions/S1/",
            },
        }
        for n in range(3 * _BUCKET_TUPLE_MAX + 2)
    ]
    ix = _same(_snapshot({"snapshotVersion": 1, "roleAssignments": items}))
    assert ix.at_scope["/subscriptions/s1"][pid] == tuple(ix.assignments)
    assert ix.by_scope["/subscriptions/s1"] == ix.assignments
    assert ix.principal_numbers.tolist() == [0] * len(items)


def test_the_ids_serve_as_keys_and_are_registered_once() -> None:
    pid = "0c5e4ad3-9c33-4a5e-9d1e-9a6b3c1f0e42"
    other = "ab0d7c1e-27aa-4f5e-b7f1-1e0d4c1b9f00"
    doc = {
        "snapshotVersion": 1,
        "principals": [{"id": other.upper(), "type": "User", "memberOf": ["G1", "g1"]}],
        "roleAssignments": [
            {
                "id": f"/subscriptions/s1/ra/{n}",
                "properties": {"roleDefinitionId": "r1", "principalId": p, "scope": "/"},
            }
            for n, p in enumerate([pid, other, pid])
        ],
    }
    ix = _same(_snapshot(doc))
    assert ix.principal_keys == [pid, other]
    assert ix.principal_numbers.tolist() == [0, 1, 0]
    display = ix.directory._display
    # the directory's casing (first seen) stays; an id new to it is shown as written
    assert display[other] == other.upper() and display[pid] == pid and display["g1"] == "G1"
    assert list(display) == [other, "g1", pid]
    assert ix.directory.direct_groups(other) == ("g1",)
    assert ix.directory.knows(pid) and not ix.directory.knows(pid.upper())


def test_the_directory_keys_are_the_interned_ids() -> None:
    pid = "".join(["0c5e4ad3-9c33-4a5e-9d1e-", "9a6b3c1f0e42"])  # made, not a constant
    canonical = sys.intern("0c5e4ad3-9c33-4a5e-9d1e-9a6b3c1f0e42")
    directory = Directory([DirectoryPrincipalRecord(id=pid.upper(), memberOf=["G1"])])
    (key,) = directory._entries
    assert key is canonical
    assert next(iter(directory._member_of)) is canonical
    assert directory.display(canonical) == pid.upper()


def test_an_id_that_is_no_string_fails_as_before() -> None:
    """Records made in code skip the loader's checks: an id that is no string, after the probe,
    sends the fast build to the general one, which fails as the old build did."""
    records = [
        RoleAssignmentRecord(
            id=f"/ra/{n}",
            properties=RoleAssignmentPropertiesRecord(
                roleDefinitionId="r1",
                principalId=f"{n:08x}-aaaa" if n < 300 else None,  # type: ignore[arg-type]
                scope="/subscriptions/s1",
            ),
        )
        for n in range(301)
    ]
    snapshot = Snapshot(roleAssignments=records)
    with pytest.raises(AttributeError) as old:
        _old_indexes(snapshot)
    with pytest.raises(AttributeError) as new:
        Indexes(snapshot)
    assert str(new.value) == str(old.value)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([*LOWER, *MIXED, "G1"]),
            st.lists(
                st.sampled_from(["G1", "g1", "g2", LOWER[0], "Gr\u00fcn", "GR\u00dcN"]), max_size=3
            ),
        ),
        max_size=8,
    )
)
def test_the_directory_is_built_as_before_from_any_records(
    principals: list[tuple[str, list[str]]],
) -> None:
    """Records made in code (the loader refuses an id twice with other content): repeated ids
    merge their groups as before."""
    records = [DirectoryPrincipalRecord(id=pid, memberOf=groups) for pid, groups in principals]
    new, old = Directory(records), _OldDirectory(records)
    for name in ("_entries", "_display", "_member_of"):
        assert list(getattr(new, name).items()) == list(getattr(old, name).items())
