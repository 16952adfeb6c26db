"""The snapshot load and the access index, old paths against new (issue 23).

The role assignments' strings are shared a batch at a time through tables of their own (no longer
:func:`sys.intern` one record at a time), and the directory is built without a method call per id.
Each test keeps the code before the change as its oracle and checks the same records, warnings,
errors, preserved JSON and bytes written back, and the same indexes.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from typing import Any
from unittest import mock

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.access import Indexes
from auditor.access.directory import Directory
from auditor.errors import InputError
from auditor.estate import records as records_module
from auditor.estate import snapshot as snapshot_module
from auditor.estate.records import DirectoryPrincipalRecord
from auditor.estate.snapshot import Snapshot, dumps_snapshot, loads_snapshot

SECRET = "s3cr3t-Value-never-shown"

# -- the oracles: the code before the change


def _old_role_assignment_sharer() -> Callable[[Any], None]:
    intern = sys.intern
    type_ = scope = role = kind = ""

    def share(ra: Any) -> None:
        nonlocal type_, scope, role, kind
        value = ra.type
        if value is not None:
            ra.type = type_ if value == type_ else (type_ := intern(value))
        p = ra.properties
        value = p.scope
        p.scope = scope if value == scope else (scope := intern(value))
        value = p.roleDefinitionId
        p.roleDefinitionId = role if value == role else (role := intern(value))
        p.principalId = intern(p.principalId)
        value = p.principalType
        if value is not None:
            p.principalType = kind if value == kind else (kind := intern(value))
        created = p.createdBy
        if created is not None:
            p.createdBy = created = intern(created)
        value = p.updatedBy
        if value is not None:
            p.updatedBy = created if value == created else intern(value)
        if p.updatedOn is not None and p.updatedOn == p.createdOn:
            p.updatedOn = p.createdOn

    return share


def _old_batch() -> Callable[[Iterable[Any]], None]:
    share = _old_role_assignment_sharer()

    def share_all(records: Iterable[Any]) -> None:
        for record in records:
            share(record)

    return share_all


def _old_directory(principals: list[DirectoryPrincipalRecord]) -> Directory:
    directory = Directory()
    add = directory.add
    entries = directory._entries
    member_of = directory._member_of
    keys: dict[str, str] = {}
    for record in principals:
        raw = record.id
        if raw is None:
            continue
        key = add(raw)
        if key not in entries:
            entries[key] = record
        if record.memberOf:
            groups: list[str] = []
            for raw in record.memberOf:
                group = keys.get(raw)
                if group is None:
                    group = keys[raw] = add(raw)
                groups.append(group)
            previous = member_of.get(key)
            if previous:
                groups[:0] = previous
            member_of[key] = tuple(dict.fromkeys(groups)) if len(groups) > 1 else (groups[0],)
    return directory


# -- generated snapshots: few distinct values (so that sharing matters), casing twists, duplicates,
# unknown fields, secrets in unknown fields

PIDS = ["0c5e4ad3-9c33-4a5e-9d1e-9a6b3c1f0e42", "ab0d7c1e-27aa-4f5e-b7f1-1e0d4c1b9f00", "gr\u00fcn"]
SCOPES = [
    "/subscriptions/s1",
    "/subscriptions/s1/resourceGroups/RG",
    "/providers/Cloud.Management/x",
]
ROLES = ["/providers/Cloud.Authorization/roleDefinitions/r1", "r2", "R2"]
PEOPLE = ["admin@example.com", "Admin@example.com", "ops"]
TIMES = ["2024-01-01T00:00:00Z", "2025-06-02T08:00:00Z"]


def _twist(draw: st.DrawFn, value: str) -> str:
    how = draw(st.sampled_from(["same", "same", "upper", "lower", "slash"]))
    return {"same": value, "upper": value.upper(), "lower": value.lower(), "slash": value + "/"}[
        how
    ]


@st.composite
def role_assignment(draw: st.DrawFn, n: int) -> dict[str, Any]:
    props: dict[str, Any] = {
        "roleDefinitionId": draw(st.sampled_from(ROLES)),
        "principalId": _twist(draw, draw(st.sampled_from(PIDS))),
        "scope": _twist(draw, draw(st.sampled_from(SCOPES))),
    }
    optional: dict[str, st.SearchStrategy[Any]] = {
        "principalType": st.sampled_from([None, "User", "Group", "user"]),
        "condition": st.sampled_from([None, "", "@Resource[x] StringEquals 'y'"]),
        "createdBy": st.sampled_from([None, *PEOPLE]),
        "createdOn": st.sampled_from([None, *TIMES]),
        "updatedBy": st.sampled_from([None, *PEOPLE]),
        "updatedOn": st.sampled_from([None, *TIMES]),
    }
    for key, values in optional.items():
        if draw(st.booleans()):
            props[key] = draw(values)
    doc: dict[str, Any] = {"id": f"{draw(st.sampled_from(SCOPES))}/ra/{n}", "properties": props}
    if draw(st.booleans()):
        doc["type"] = draw(st.sampled_from(["Cloud.Authorization/roleAssignments", "other"]))
    unknown = draw(st.integers(0, 7))
    if unknown == 0:
        doc["x-note"] = draw(st.sampled_from(["kept", 3]))
    elif unknown == 1:
        doc["clientSecret"] = SECRET
    elif unknown == 2:
        props["x-extra"] = {"password": SECRET, "fine": 1}
    return doc


@st.composite
def snapshot_docs(draw: st.DrawFn) -> dict[str, Any]:
    count = draw(st.integers(0, 14))
    items = [draw(role_assignment(n)) for n in range(count)]
    # duplicates: identical copies, copies whose id differs in casing or a trailing slash, and
    # (rarely) a copy with different content
    for _ in range(draw(st.integers(0, 3)) if items else 0):
        copy = json.loads(json.dumps(draw(st.sampled_from(items))))
        copy["id"] = _twist(draw, copy["id"])
        if draw(st.integers(0, 5)) == 0:
            copy["properties"]["principalId"] = "someone-else"
        items.insert(draw(st.integers(0, len(items))), copy)
    doc: dict[str, Any] = {"snapshotVersion": 1, "roleAssignments": items}
    if draw(st.booleans()):
        groups = ["G1", "g1", "g2", PIDS[0]]
        doc["principals"] = [
            {
                "id": _twist(draw, pid),
                "type": "User",
                "memberOf": draw(st.lists(st.sampled_from(groups), max_size=3)),
            }
            for pid in draw(st.lists(st.sampled_from([*PIDS, "G1", "g2"]), max_size=6))
        ]
    if draw(st.integers(0, 4)) == 0:
        doc["futureTopLevel"] = {"token": SECRET, "n": 1}
    return doc


def _load(data: bytes, *, chunked: bool, old: bool) -> Snapshot | InputError:
    with ExitStack() as stack:
        if chunked:
            stack.enter_context(mock.patch.object(snapshot_module, "_CHUNK_BYTES", 10))
            stack.enter_context(mock.patch.object(snapshot_module, "_CHUNK_ITEMS", 4))
            stack.enter_context(mock.patch.object(snapshot_module, "_SHARE_ITEMS", 3))
        if old:
            sharers = {**records_module._SHARERS, "roleAssignments": _old_batch}
            stack.enter_context(mock.patch.object(records_module, "_SHARERS", sharers))
        try:
            return loads_snapshot(data, source="gen.json")
        except InputError as exc:
            return exc


def _facts(loaded: Snapshot | InputError) -> Any:
    if isinstance(loaded, InputError):
        return ("error", str(loaded), loaded.location)
    return (loaded, loaded.warnings, loaded.positions, loaded.preserved, dumps_snapshot(loaded))


def _index_facts(ix: Indexes) -> Any:
    return (
        ix.principal_keys,
        list(ix.principal_numbers),
        [(e.record.id, e.principal, e.scope, e.role, e.cond is None) for e in ix.assignments],
        {s: {p: [e.record.id for e in b] for p, b in t.items()} for s, t in ix.at_scope.items()},
        {s: [e.record.id for e in b] for s, b in ix.by_scope.items()},
        list(ix.directory._display.items()),
    )


@settings(max_examples=60, deadline=None)
@given(snapshot_docs())
def test_the_new_load_and_index_give_what_the_old_ones_gave(doc: dict[str, Any]) -> None:
    data = json.dumps(doc, ensure_ascii=False).encode()
    old = _load(data, chunked=False, old=True)
    for chunked in (False, True):
        new = _load(data, chunked=chunked, old=False)
        assert _facts(new) == _facts(old)
    if isinstance(old, InputError):
        assert SECRET not in str(old)
        return
    new = _load(data, chunked=True, old=False)
    assert isinstance(new, Snapshot)
    assert SECRET not in " ".join(new.warnings) and SECRET.encode() not in dumps_snapshot(new)
    # the indexes are the same, and number the principals in order of first appearance
    old_ix, new_ix = Indexes(old), Indexes(new)
    assert _index_facts(new_ix) == _index_facts(old_ix)
    keys = list(dict.fromkeys(ra.properties.principalId.lower() for ra in new.roleAssignments))
    assert new_ix.principal_keys == keys
    assert new == old and dumps_snapshot(new) == dumps_snapshot(old)  # sharing changed no value
    # the loader's sharing: equal values of the shared fields are one string
    seen: dict[Any, Any] = {}
    for ra in new.roleAssignments:
        p = ra.properties
        for value in (
            ra.type,
            p.scope,
            p.roleDefinitionId,
            p.principalId,
            p.principalType,
            p.createdBy,
            p.updatedBy,
        ):
            if value is not None:
                assert seen.setdefault(value, value) is value
        if p.updatedOn is not None and p.updatedOn == p.createdOn:
            assert p.updatedOn is p.createdOn


@settings(max_examples=40, deadline=None)
@given(snapshot_docs())
def test_the_directory_is_built_as_before(doc: dict[str, Any]) -> None:
    principals = doc.get("principals") or []
    recs = msgspec.convert(principals, list[DirectoryPrincipalRecord])
    new, old = Directory(recs), _old_directory(recs)
    for name in ("_entries", "_display", "_member_of"):
        assert list(getattr(new, name).items()) == list(getattr(old, name).items())
    for key in new._display:
        assert new.identity_tuple(key) == old.identity_tuple(key)


def test_an_item_the_records_refuse_names_its_path_on_every_path() -> None:
    items: list[dict[str, Any]] = [
        {
            "id": f"/s/{n}",
            "properties": {"scope": "/s", "roleDefinitionId": "r", "principalId": "p"},
        }
        for n in range(12)
    ]
    items[9]["properties"]["principalId"] = 5
    data = json.dumps({"roleAssignments": items}).encode()
    for chunked in (False, True):
        error = _load(data, chunked=chunked, old=False)
        assert isinstance(error, InputError)
        assert error.location == "roleAssignments[9].properties.principalId"


def test_batches_share_across_their_boundaries() -> None:
    items = [
        {
            "id": f"/s/{n}",
            "properties": {
                "scope": "/s",
                "roleDefinitionId": "r" * 20,
                "principalId": "p" * 20,
                "createdBy": "c" * 20,
            },
        }
        for n in range(10)
    ]
    snap = _load(json.dumps({"roleAssignments": items}).encode(), chunked=True, old=False)
    assert isinstance(snap, Snapshot)
    props = [ra.properties for ra in snap.roleAssignments]
    assert all(p.roleDefinitionId is props[0].roleDefinitionId for p in props)
    assert all(p.createdBy is props[0].createdBy for p in props)
    assert all(p.principalId is props[0].principalId for p in props)


@pytest.mark.parametrize("section", ["roleAssignments", "denyAssignments", "principals"])
def test_one_record_at_a_time_shares_as_a_batch_does(section: str) -> None:
    cls = records_module.BULK_SECTIONS[section]
    items: dict[str, dict[str, Any]] = {
        "roleAssignments": {
            "id": "/a",
            "type": "t" * 9,
            "properties": {"scope": "/s" * 9, "roleDefinitionId": "r", "principalId": "p"},
        },
        "denyAssignments": {"id": "/d", "type": "t" * 9, "properties": {"scope": "/s" * 9}},
        "principals": {"id": "u", "type": "User" * 3, "memberOf": ["g" * 9]},
    }
    item = items[section]
    one = records_module.string_sharer(section)
    assert one is not None
    recs: list[Any] = [msgspec.convert(item, cls) for _ in range(3)]
    for rec in recs:
        one(rec)
    assert recs[0].type is recs[2].type
    assert all(rec == msgspec.convert(item, cls) for rec in recs)
