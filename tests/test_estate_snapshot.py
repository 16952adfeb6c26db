"""Snapshot files: load, dump, round trips, unknown fields, and errors that name the JSON path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from auditor.errors import InputError
from auditor.estate.snapshot import (
    Snapshot,
    dump_snapshot,
    dumps_snapshot,
    load_snapshot,
    loads_snapshot,
)

text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
opt_text = st.none() | text


@st.composite
def role_assignments(draw: st.DrawFn) -> dict[str, Any]:
    props = {
        "scope": draw(text),
        "roleDefinitionId": draw(text),
        "principalId": draw(text),
    }
    for key in (
        "principalType",
        "description",
        "condition",
        "conditionVersion",
        "createdBy",
        "createdOn",
        "updatedBy",
        "updatedOn",
        "delegatedManagedIdentityResourceId",
    ):
        if draw(st.booleans()):
            props[key] = draw(opt_text)
    doc: dict[str, Any] = {"id": draw(text), "properties": props}
    for key in ("name", "type"):
        if draw(st.booleans()):
            doc[key] = draw(text)
    if draw(st.integers(0, 4)) == 0:
        doc["x-unknown"] = draw(st.integers() | text)
    return doc


principal = st.fixed_dictionaries(
    {"id": text}, optional={"type": opt_text, "displayName": opt_text, "email": opt_text}
)


@st.composite
def deny_assignments(draw: st.DrawFn) -> dict[str, Any]:
    perms = st.fixed_dictionaries(
        {},
        optional={
            "actions": st.lists(text, max_size=3),
            "notActions": st.lists(text, max_size=2),
            "dataActions": st.lists(text, max_size=2),
            "notDataActions": st.lists(text, max_size=2),
            "condition": opt_text,
            "conditionVersion": opt_text,
        },
    )
    props = draw(
        st.fixed_dictionaries(
            {"scope": text},
            optional={
                "denyAssignmentName": opt_text,
                "doNotApplyToChildScopes": st.none() | st.booleans(),
                "isSystemProtected": st.booleans(),
                "permissions": st.lists(perms, max_size=2),
                "principals": st.lists(principal, max_size=2),
                "excludePrincipals": st.lists(principal, max_size=2),
            },
        )
    )
    return {"id": draw(text), "properties": props}


def _id_key(entry: dict[str, Any]) -> str:
    return str(entry["id"]).rstrip("/").lower()


snapshots = st.fixed_dictionaries(
    {"snapshotVersion": st.just(1)},
    optional={
        "tenantId": text,
        "collectedAt": text,
        "hierarchy": st.lists(
            st.fixed_dictionaries({"id": text}, optional={"parent": opt_text}),
            max_size=3,
            unique_by=_id_key,
        ),
        "principals": st.lists(
            st.fixed_dictionaries(
                {"id": text},
                optional={
                    "userType": st.sampled_from(["Member", "Guest"]),
                    "accountEnabled": st.booleans(),
                    "memberOf": st.lists(text, max_size=3),
                },
            ),
            max_size=3,
            unique_by=_id_key,
        ),
        # one entry per id: entries sharing an id are merged on load (tests/test_budgets.py)
        "roleAssignments": st.lists(role_assignments(), max_size=4, unique_by=_id_key),
        "denyAssignments": st.lists(deny_assignments(), max_size=3, unique_by=_id_key),
        "futureTopLevel": st.lists(st.integers(), max_size=2),
    },
)


@given(snapshots)
def test_round_trip_is_equal(doc: dict[str, Any]) -> None:
    snap = loads_snapshot(json.dumps(doc).encode())
    again = loads_snapshot(dumps_snapshot(snap))
    assert again == snap
    # what was given comes back: every section and key as it was, unknown fields included
    # (an explicit null or empty list and an absent optional field are the same value)
    dumped = json.loads(dumps_snapshot(snap))
    for key, value in doc.items():
        assert _without_nulls(dumped[key]) == _without_nulls(value)


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None and v != []}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def test_unknown_fields_are_kept_not_refused() -> None:
    doc = {
        "roleAssignments": [
            {
                "id": "a",
                "properties": {
                    "scope": "/",
                    "roleDefinitionId": "r",
                    "principalId": "p",
                    "futureProperty": {"x": [1]},
                },
                "etag": "W/1",
            },
        ],
        "clusters": [{"id": "c", "properties": {"clusterState": "Hibernating", "newThing": 1}}],
    }
    snap = loads_snapshot(json.dumps(doc).encode())
    assert snap.roleAssignments[0].properties.principalId == "p"
    dumped = json.loads(dumps_snapshot(snap))
    assert dumped["roleAssignments"] == doc["roleAssignments"]
    assert dumped["clusters"] == doc["clusters"]


@pytest.mark.parametrize(
    ("data", "location", "words"),
    [
        (
            {
                "denyAssignments": [{"id": "d", "properties": {"scope": "/"}}] * 3
                + [{"id": "d", "properties": {"scope": "/", "doNotApplyToChildScopes": "true"}}]
            },
            "denyAssignments[3].properties.doNotApplyToChildScopes",
            'found a string ("true")',
        ),
        ({"roleAssignments": [{"id": 7}]}, "roleAssignments[0].id", "found a number (7)"),
        (
            {"roleAssignments": [{"id": "a", "properties": {"scope": "/", "principalId": "p"}}]},
            "roleAssignments[0].properties.roleDefinitionId",
            "required",
        ),
        (
            {"domains": [{"properties": {"disableLocalAuth": "yes"}}]},
            "domains[0].properties.disableLocalAuth",
            "expected true or false",
        ),
        ({"healthEvents": {"a": 1}}, "healthEvents", "expected an array"),
        ({"snapshotVersion": 3}, "snapshotVersion", "expected 1"),
        (
            {"principals": [{"id": "u", "accountEnabled": "no"}]},
            "principals[0].accountEnabled",
            "true, false or null",
        ),
    ],
)
def test_type_errors_name_the_json_path(data: dict[str, Any], location: str, words: str) -> None:
    with pytest.raises(InputError) as info:
        loads_snapshot(json.dumps(data).encode(), source="estate.json")
    err = info.value
    assert err.source == "estate.json"
    assert err.location == location
    assert words in str(err)
    assert str(err).startswith(f"estate.json: {location}: ")


def test_secret_looking_values_are_not_echoed_in_errors() -> None:
    data = {
        "clusters": [
            {
                "properties": {
                    "computeProfile": {
                        "roles": [
                            {"osProfile": {"linuxOperatingSystemProfile": {"password": 12345678}}}
                        ]
                    }
                }
            }
        ]
    }
    with pytest.raises(InputError) as info:
        loads_snapshot(json.dumps(data).encode())
    assert "12345678" not in str(info.value)


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (b'{"roleAssignments": [1, 2,, 3]}', "line 1, column 27"),
        (b'{\n  "a": 1,\n  "b": tru\n}', "line 3"),
        (b'{"roleAssignments": [', "truncated"),
        (b"[]", "top level, found an array"),
        (b'"x"', "top level, found a string"),
    ],
)
def test_bad_json_gives_line_and_column(raw: bytes, words: str) -> None:
    with pytest.raises(InputError) as info:
        loads_snapshot(raw, source="s.json")
    assert words in str(info.value)


def test_bad_files(tmp_path: Path) -> None:
    cases = {
        "missing.json": None,
        "empty.json": b"",
        "blank.json": b"  \n",
        "latin1.json": '{"tenantId": "caf\u00e9"}'.encode("latin-1"),
    }
    expect = {
        "missing.json": "no such snapshot file",
        "empty.json": "empty",
        "blank.json": "empty",
        "latin1.json": "not UTF-8",
    }
    for name, content in cases.items():
        path = tmp_path / name
        if content is not None:
            path.write_bytes(content)
        with pytest.raises(InputError) as info:
            load_snapshot(path)
        assert expect[name] in str(info.value), name
        assert str(path) in str(info.value)
    with pytest.raises(InputError, match="directory"):
        load_snapshot(tmp_path)
    bom = tmp_path / "bom.json"
    bom.write_bytes(b'\xef\xbb\xbf{"tenantId": "t"}')
    assert load_snapshot(bom).tenantId == "t"


def test_dump_is_atomic_and_never_overwrites_by_default(tmp_path: Path) -> None:
    path = tmp_path / "out" / "snap.json"
    snap = Snapshot(tenantId="t")
    dump_snapshot(snap, path)
    assert load_snapshot(path) == snap
    with pytest.raises(InputError, match="exists already"):
        dump_snapshot(Snapshot(tenantId="other"), path)
    assert load_snapshot(path).tenantId == "t"
    dump_snapshot(Snapshot(tenantId="other"), path, overwrite=True)
    assert load_snapshot(path).tenantId == "other"
    assert [p.name for p in path.parent.iterdir()] == ["snap.json"]


def _repeating_assignments(count: int) -> list[dict[str, Any]]:
    """Role assignments over three scopes and five principals (values that repeat)."""
    return [
        {
            "id": f"a{i}",
            "properties": {
                "scope": f"/subscriptions/s{i % 3}",
                "roleDefinitionId": "r",
                "principalId": f"p{i % 5}",
            },
        }
        for i in range(count)
    ]


def test_large_sections_decode_in_chunks_with_the_same_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from auditor.estate import snapshot as snapshot_module

    doc = {"roleAssignments": _repeating_assignments(50)}
    data = json.dumps(doc).encode()
    whole = loads_snapshot(data)
    monkeypatch.setattr(snapshot_module, "_CHUNK_BYTES", 10)
    monkeypatch.setattr(snapshot_module, "_CHUNK_ITEMS", 7)
    chunked = loads_snapshot(data)
    assert chunked == whole
    assert (
        chunked.roleAssignments[3].properties.scope is chunked.roleAssignments[0].properties.scope
    )
    bad = json.loads(json.dumps(doc))
    bad["roleAssignments"][40]["properties"]["principalId"] = 5
    with pytest.raises(InputError) as info:
        loads_snapshot(json.dumps(bad).encode())
    assert info.value.location == "roleAssignments[40].properties.principalId"


def test_large_files_are_memory_mapped_with_the_same_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from auditor.estate import _files
    from auditor.estate import snapshot as snapshot_module

    doc = {
        "tenantId": "caf\u00e9",
        "roleAssignments": _repeating_assignments(200),
    }
    path = tmp_path / "big.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(doc, ensure_ascii=False).encode())
    expected = load_snapshot(path)  # read the ordinary way
    monkeypatch.setattr(_files, "MAP_BYTES", 100)
    monkeypatch.setattr(_files, "_CHUNK", 4096)
    monkeypatch.setattr(snapshot_module, "_CHUNK_BYTES", 64)
    monkeypatch.setattr(snapshot_module, "_CHUNK_ITEMS", 9)
    data = _files.read_input(path)
    assert isinstance(data, memoryview)
    mapped = load_snapshot(path)
    assert mapped == expected
    assert mapped.tenantId == "caf\u00e9"
    # errors keep their positions and paths through the mapping
    path.write_bytes(b'{"roleAssignments": [' + b"1," * 100 + b",]}")
    with pytest.raises(InputError, match="line 1, column 222"):
        load_snapshot(path)
    bad = json.loads(json.dumps(doc))
    bad["roleAssignments"][150]["properties"]["scope"] = 5
    path.write_bytes(json.dumps(bad).encode())
    with pytest.raises(InputError) as info:
        load_snapshot(path)
    assert info.value.location == "roleAssignments[150].properties.scope"
    path.write_bytes(b'{"tenantId": "' + b"x" * 5000 + b'\xff"}')
    with pytest.raises(InputError, match="not UTF-8"):
        load_snapshot(path)


@given(
    st.lists(
        st.sampled_from(
            [
                b"a",
                b"\n",
                b"\xc3\xa9",
                b"\xe2\x82\xac",
                b"\xf0\x9f\x98\x80",
                b"\xff",
                b"\xc3",
                b"\x80",
            ]
        ),
        max_size=40,
    )
)
def test_chunked_utf8_check_agrees_with_the_decoder(pieces: list[bytes]) -> None:
    from unittest import mock

    from auditor.estate import _files

    data = b"".join(pieces)
    try:
        data.decode("utf-8")
        expected = None
    except UnicodeDecodeError as exc:
        expected = exc.start
    with mock.patch.object(_files, "_CHUNK", 3):
        try:
            _files.check_utf8(data, "f.json")
            found = None
        except InputError as err:
            found = err
    if expected is None:
        assert found is None
    else:
        assert found is not None
        line, column = _files.line_column(data, expected)
        assert found.location == f"line {line}, column {column}"
