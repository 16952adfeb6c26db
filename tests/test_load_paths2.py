"""The snapshot load of a memory-mapped file, old paths against new (issue 23, the load's CPU).

The UTF-8 check leaves the mapped file's pages mapped for the split that follows; the role
assignments are decoded right after the split (their pages given back as they go, so each is mapped
in once, and the split's items freed as they are consumed); the first item is found by its whole
text; the directory's principals are shared a batch at a time; the duplicate check calls
``str.rstrip`` through ``map``. Each test keeps the code of 5102402 as its oracle and checks the same
records, warnings, errors (message and JSON path, line and column), preserved JSON and bytes
written back.
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from operator import attrgetter, methodcaller
from pathlib import Path
from typing import Any
from unittest import mock

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.errors import InputError
from auditor.estate import _duplicates, _errors
from auditor.estate import _files as files_module
from auditor.estate import records as records_module
from auditor.estate import snapshot as snapshot_module
from auditor.estate.records import BULK_SECTIONS
from auditor.estate.snapshot import Snapshot, dumps_snapshot, load_snapshot
from auditor.model.unknown_fields import (
    drop_secret_looking_extras,
    dropped_fields_warning,
    is_secret_looking_name,
)
from tests.test_load_paths import SECRET, snapshot_docs

# -- the oracles: the code of 5102402


def _old_read_input(path: str | os.PathLike[str], *, what: str = "file") -> Any:
    f = files_module
    name = os.fspath(path)
    try:
        info = os.stat(name)
    except OSError:
        return f.read_input_bytes(name, what=what)
    if not stat.S_ISREG(info.st_mode) or info.st_size <= f.MAP_BYTES:
        return f.read_input_bytes(name, what=what)
    try:
        with os.fdopen(f.open_input(name, what=what), "rb") as fh:
            mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return f.read_input_bytes(name, what=what)
    view = memoryview(mapped)
    start = len(f.UTF8_BOM) if mapped[: len(f.UTF8_BOM)] == f.UTF8_BOM else 0
    if not mapped[start : start + 4096].strip():
        raise InputError(f"the {what} is empty; expected a JSON object", source=name)
    data = view[start:] if start else view
    f.check_utf8(data, name)  # (it gave the checked pages back then: memory only, not answers)
    return data


def _old_from_sections(top: dict[str, Any], data: Any, source: str) -> Snapshot:
    s = snapshot_module
    pager = files_module.Pager.of(data)
    if pager is not None:
        pager.release_all()
    snap = Snapshot(source=source)
    snap.present = frozenset(key for key in top if key in s.SECTION_ORDER)
    dropped: list[str] = []
    for key, raw in top.items():
        if key == "snapshotVersion":
            version = s._scalar(raw, int, source, key)
            if version != s.SNAPSHOT_VERSION:
                raise InputError(
                    f"expected {s.SNAPSHOT_VERSION}, found {_errors.describe_value(version)}",
                    source=source,
                    location=key,
                )
        elif key in ("collectedAt", "tenantId"):
            setattr(snap, key, s._scalar(raw, str | None, source, key))
        elif isinstance(raw, list):
            s._set_bulk(snap, key, s._decode_parts(key, raw, pager), {}, source)
        elif key in BULK_SECTIONS:
            records, preserved = s._decode_bulk(key, raw, source, pager, dropped)
            s._set_bulk(snap, key, records, preserved, source)
        elif key in s.SECTION_ORDER:
            value = s._decode_small(key, raw, source)
            drop_secret_looking_extras(value, key, dropped)
            if key == "devTooling":
                snap.devTooling = s._merge_dev_tooling(snap, value, source)
            else:
                s._set_merged(
                    snap,
                    key,
                    _duplicates.merge_models(key, value or [], s._MODEL_KEYS[key], source),
                )
        elif is_secret_looking_name(key):
            dropped.append(key)
        else:
            snap.extra[key] = s._without_secret_looking(key, bytes(raw), dropped)
    if dropped:
        snap.warnings.append(dropped_fields_warning(dropped))
    return snap


def _old_decode_chunked(
    key: str, cls: type[Any], raw: msgspec.Raw | list[msgspec.Raw], pager: Any
) -> list[Any]:
    s = snapshot_module
    parts = raw if isinstance(raw, list) else msgspec.json.decode(raw, type=list[msgspec.Raw])
    decode = msgspec.json.Decoder(cls).decode
    share = records_module.batch_sharer(key)
    records: list[Any] = []
    first = -1
    consumed = 0
    for start in range(0, len(parts), s._CHUNK_ITEMS):
        chunk = parts[start : start + s._CHUNK_ITEMS]
        if share is None:
            records.extend(map(decode, chunk))
        else:
            for at in range(0, len(chunk), s._SHARE_ITEMS):
                fresh = list(map(decode, chunk[at : at + s._SHARE_ITEMS]))
                share(fresh)
                records += fresh
        if pager is not None and start + s._CHUNK_ITEMS < len(parts):
            if start == 0:
                first = pager.locate(memoryview(parts[0])[:64].tobytes(), 0)
            consumed += sum(map(len, chunk))
            if first >= 0:
                pager.release_before(first + consumed)
    if pager is not None:
        pager.release_all()
    return records


def _old_role_assignment_sharer() -> Callable[[Iterable[Any]], None]:
    types: dict[str, str] = {}
    scopes: dict[str, str] = {}
    roles: dict[str, str] = {}
    kinds: dict[str, str] = {}
    people: dict[str, str] = {}
    last = ["", "", "", ""]

    def share(records: Iterable[Any]) -> None:
        type_, scope, role, kind = last
        one_type, one_scope, one_role = types.setdefault, scopes.setdefault, roles.setdefault
        one_kind, one_person, intern = kinds.setdefault, people.setdefault, records_module._intern
        for ra in records:
            value = ra.type
            if value is not None:
                ra.type = type_ if value == type_ else (type_ := one_type(value, value))
            p = ra.properties
            value = p.scope
            p.scope = scope if value == scope else (scope := one_scope(value, value))
            value = p.roleDefinitionId
            p.roleDefinitionId = role if value == role else (role := one_role(value, value))
            p.principalId = intern(p.principalId)
            value = p.principalType
            if value is not None:
                p.principalType = kind if value == kind else (kind := one_kind(value, value))
            created = p.createdBy
            if created is not None:
                p.createdBy = created = one_person(created, created)
            value = p.updatedBy
            if value is not None:
                p.updatedBy = created if value == created else one_person(value, value)
            if p.updatedOn is not None and p.updatedOn == p.createdOn:
                p.updatedOn = p.createdOn
        last[:] = type_, scope, role, kind

    return share


def _old_share_principal(pr: Any) -> None:
    intern = records_module._intern
    if pr.type is not None:
        pr.type = intern(pr.type)
    if pr.userType is not None:
        pr.userType = intern(pr.userType)
    pr.memberOf = [intern(g) for g in pr.memberOf]


_new_merge_records = _duplicates.merge_records


def _old_merge_records(
    section: str, records: list[Any], preserved: dict[int, Any], source: str
) -> tuple[_duplicates.Merged, dict[int, Any]]:
    ids = map(attrgetter("id"), records)
    if _duplicates._all_distinct(
        map(str.lower, map(methodcaller("rstrip", "/"), ids)), len(records)
    ):
        return _duplicates.Merged(records, None), preserved
    return _new_merge_records(section, records, preserved, source)  # the rest is unchanged


def _old_patches(stack: ExitStack) -> None:
    sharers = {
        **records_module._SHARERS,
        "roleAssignments": _old_role_assignment_sharer,
        "principals": lambda: records_module._each(_old_share_principal),
    }
    stack.enter_context(mock.patch.object(records_module, "_SHARERS", sharers))
    for name, old in (
        ("read_input", _old_read_input),
        ("_from_sections", _old_from_sections),
        ("_decode_chunked", _old_decode_chunked),
        ("merge_records", _old_merge_records),
    ):
        stack.enter_context(mock.patch.object(snapshot_module, name, old))


@contextlib.contextmanager
def _small_limits(*, mapped: bool) -> Iterator[None]:
    """Every file memory-mapped (``mapped``), read and decoded in tiny chunks: each boundary is
    crossed many times."""
    with ExitStack() as stack:
        for module, name, value in (
            (files_module, "MAP_BYTES", 0 if mapped else 1 << 40),
            (files_module, "_CHUNK", 5),
            (snapshot_module, "_CHUNK_BYTES", 10),
            (snapshot_module, "_CHUNK_ITEMS", 4),
            (snapshot_module, "_SHARE_ITEMS", 3),
        ):
            stack.enter_context(mock.patch.object(module, name, value))
        yield


def _load(path: Path, *, old: bool, mapped: bool = True) -> Snapshot | InputError:
    with ExitStack() as stack:
        stack.enter_context(_small_limits(mapped=mapped))
        if old:
            _old_patches(stack)
        try:
            return load_snapshot(path)
        except InputError as exc:
            return exc


def _facts(loaded: Snapshot | InputError) -> Any:
    if isinstance(loaded, InputError):
        return ("error", str(loaded), loaded.source, loaded.location)
    return (
        loaded,
        loaded.warnings,
        loaded.positions,
        loaded.preserved,
        loaded.present,
        dumps_snapshot(loaded),
    )


def _shared_fields(snap: Snapshot) -> Iterator[list[Any]]:
    """The values of each shared field, by section (the sections share through tables of
    their own)."""
    ras = [(ra, ra.properties) for ra in snap.roleAssignments]
    yield [ra.type for ra, _ in ras]
    for name in ("scope", "roleDefinitionId", "principalType"):
        yield [getattr(p, name) for _, p in ras]
    yield [p.principalId for _, p in ras]
    yield [value for _, p in ras for value in (p.createdBy, p.updatedBy)]
    yield [pr.type for pr in snap.principals]
    yield [pr.userType for pr in snap.principals]
    yield [group for pr in snap.principals for group in pr.memberOf]


def _twisted_bytes(draw: st.DrawFn, data: bytes) -> bytes:
    """The document's bytes, sometimes with a byte-order mark, a byte that is not UTF-8, a
    sequence cut short, or the file truncated."""
    how = draw(st.sampled_from(["same", "same", "same", "bom", "bad", "cut-sequence", "truncated"]))
    at = draw(st.integers(0, max(0, len(data) - 1)))
    if how == "bom":
        return b"\xef\xbb\xbf" + data
    if how == "bad":
        return data[:at] + draw(st.sampled_from([b"\xff", b"\x80", b"\xc3("])) + data[at:]
    if how == "cut-sequence":
        return data[:at] + b"\xe2\x82" + data[at:]
    if how == "truncated":
        return data[:at]
    return data


@st.composite
def snapshot_files(draw: st.DrawFn) -> bytes:
    doc = draw(snapshot_docs())
    if draw(st.booleans()) and doc.get("principals"):
        for pr in doc["principals"]:
            pr["userType"] = draw(st.sampled_from([None, "Member", "Guest"]))
    indent = draw(st.sampled_from([None, None, 1]))
    data = json.dumps(doc, ensure_ascii=False, indent=indent).encode()
    return _twisted_bytes(draw, data)


@settings(max_examples=60, deadline=None)
@given(snapshot_files())
def test_a_mapped_snapshot_loads_as_it_did(data: bytes) -> None:
    with tempfile.TemporaryDirectory(prefix="load-paths2-") as tmp:
        path = Path(tmp) / "snapshot.json"
        path.write_bytes(data)
        old = _load(path, old=True)
        new = _load(path, old=False)
        assert _facts(new) == _facts(old)
        assert _facts(_load(path, old=False, mapped=False)) == _facts(old)
    if isinstance(new, InputError):
        assert SECRET not in str(new)
        return
    assert SECRET not in " ".join(new.warnings) and SECRET.encode() not in dumps_snapshot(new)
    # the loader still shares repeated values: equal values of a shared field are one string
    for values in _shared_fields(new):
        seen: dict[Any, Any] = {}
        for value in values:
            if value is not None:
                assert seen.setdefault(value, value) is value


def _role_assignment(n: int, head: str) -> dict[str, Any]:
    return {
        "id": f"{head}/providers/Cloud.Authorization/roleAssignments/{n:04d}",
        "properties": {"scope": head, "roleDefinitionId": "r", "principalId": f"p{n % 3}"},
    }


def test_pages_are_given_back_from_the_first_item_and_never_ahead(tmp_path: Path) -> None:
    # a hierarchy entry begins with the same 64 bytes as the first role assignment: the first
    # item is found by its whole text, so the pages before it go at once, and each release stays
    # behind the items decoded so far
    head = "/providers/Cloud.Management/managementGroups/" + "m" * 40
    items = [json.dumps(_role_assignment(n, head), separators=(",", ":")) for n in range(30)]
    prefix = json.dumps({"hierarchy": [{"id": head}]}, separators=(",", ":"))[:-1]
    text = prefix + ',"roleAssignments":[' + ",".join(items) + "]}"
    data = text.encode()
    assert data.index(items[0][:64].encode()) < data.index(items[0].encode())
    starts = [data.index(item.encode()) for item in items]
    path = tmp_path / "snap.json"
    path.write_bytes(data)
    released: list[int] = []
    real = files_module.Pager.release_before

    def release_before(self: files_module.Pager, offset: int) -> None:
        released.append(offset)
        real(self, offset)

    with ExitStack() as stack:
        stack.enter_context(mock.patch.object(files_module, "MAP_BYTES", 0))
        stack.enter_context(mock.patch.object(snapshot_module, "_CHUNK_ITEMS", 4))
        stack.enter_context(mock.patch.object(files_module.Pager, "release_before", release_before))
        snap = load_snapshot(path)
    assert [ra.id for ra in snap.roleAssignments] == [json.loads(i)["id"] for i in items]
    assert released[0] == starts[0]
    for n, offset in enumerate(released[1:], start=1):
        assert starts[n * 4 - 1] < offset <= starts[n * 4]  # 4 items decoded between releases
    assert len(released) == len(range(0, len(items), 4))


def test_the_split_items_are_consumed_as_they_are_decoded() -> None:
    raws = [msgspec.Raw(json.dumps(_role_assignment(n, "/s")).encode()) for n in range(10)]
    with mock.patch.object(snapshot_module, "_CHUNK_ITEMS", 4):
        records = snapshot_module._decode_chunked(
            "roleAssignments", records_module.RoleAssignmentRecord, raws, None
        )
    assert [r.id for r in records] == [_role_assignment(n, "/s")["id"] for n in range(10)]
    assert raws == [None] * 10


def test_a_file_that_is_not_utf8_is_reported_at_its_first_bad_byte(tmp_path: Path) -> None:
    path = tmp_path / "snap.json"
    path.write_bytes(b'{"tenantId": "' + "é".encode() * 3000 + b'",\n "x": "\xff"}')
    for old in (True, False):
        error = _load(path, old=old)
        assert isinstance(error, InputError)
        assert error.location == "line 2, column 8"
        assert "byte 0xff" in str(error)


@pytest.mark.parametrize("mapped", [True, False])
def test_principals_share_as_they_did(tmp_path: Path, mapped: bool) -> None:
    principals = [
        {"id": f"u{n}", "type": t, "userType": u, "memberOf": g}
        for n, (t, u, g) in enumerate(
            [("User", "Member", ["g1"]), ("User", None, []), ("Group", "Member", ["g1", "G2"])] * 3
        )
    ]
    path = tmp_path / "snap.json"
    path.write_text(json.dumps({"principals": principals, "roleAssignments": []}))
    old, new = _load(path, old=True, mapped=mapped), _load(path, old=False, mapped=mapped)
    assert isinstance(new, Snapshot) and _facts(new) == _facts(old)
    prs = new.principals
    assert prs[0].type is prs[3].type and prs[2].memberOf[0] is prs[0].memberOf[0]
    assert prs[0].userType is prs[2].userType
