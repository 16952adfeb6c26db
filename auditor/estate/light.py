"""A small snapshot read without pydantic (issue 23: instant start-up).

:func:`light_snapshot` reads a snapshot file of at most :data:`LIGHT_LIMIT` bytes through
``msgspec`` alone: the bulk sections into their records as the full loader does, the small sections
through their mirrors (:mod:`auditor.estate.wire_records`), which only validate them. The result is
a :class:`LazySnapshot`: each small section becomes its pydantic wire models the first time
something reads it, from its own bytes, by the full loader's own functions; the access engine reads
role definitions from the mirrors (:func:`role_definitions`) and so never imports pydantic.

It answers only when the answer is provably the full loader's: the file is a snapshot by its first
bytes, every key and field is known, every value has the type the models require, and no section
holds two entries with one id (all of which the full loader would report in a warning or an
error). Anything else gives None, and the caller reads the file with the full loader, which reads,
warns and refuses exactly as before.
"""

from __future__ import annotations

import dataclasses
import os
import re
import stat
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import msgspec
from msgspec import UNSET, UnsetType

from auditor.errors import InputError
from auditor.estate._duplicates import id_key, merge_records
from auditor.estate._files import open_input
from auditor.estate.records import BULK_SECTIONS, intern_strings
from auditor.estate.snapshot import SECTION_ORDER, SNAPSHOT_VERSION, Snapshot
from auditor.estate.wire_records import SECTION_TYPES, RoleDefinitionRecord

if TYPE_CHECKING:
    from auditor.model.access import RoleDefinition
    from auditor.model.cluster import Cluster
    from auditor.model.devtooling import DevTooling
    from auditor.model.domain import Domain
    from auditor.model.health import HealthEvent

__all__ = [
    "LIGHT_LIMIT",
    "LazySnapshot",
    "lazy_role_definitions",
    "light_snapshot",
    "resource_ids",
    "role_definitions",
]

LIGHT_LIMIT = 8 << 20
"""Bytes of a snapshot file read this way, at most (a larger one pays for pydantic anyway)."""

_SNAPSHOT_HEAD = re.compile(rb'^\s*\{\s*"snapshotVersion"\s*:')
"""How the readers recognise a snapshot file by its first bytes (``auditor.sources``)."""

_LAZY = ("roleDefinitions", "clusters", "domains", "healthEvents", "devTooling")
_KEYS: dict[str, tuple[str, ...]] = {
    "roleDefinitions": ("id",),
    "clusters": ("id",),
    "domains": ("id",),
    "healthEvents": ("id",),
}


class _Top(msgspec.Struct, forbid_unknown_fields=True):
    """The top level of a snapshot with only known keys, split into its sections' bytes."""

    snapshotVersion: int
    collectedAt: str | None = None
    tenantId: str | None = None
    hierarchy: msgspec.Raw | UnsetType = UNSET
    principals: msgspec.Raw | UnsetType = UNSET
    roleDefinitions: msgspec.Raw | UnsetType = UNSET
    roleAssignments: msgspec.Raw | UnsetType = UNSET
    denyAssignments: msgspec.Raw | UnsetType = UNSET
    clusters: msgspec.Raw | UnsetType = UNSET
    domains: msgspec.Raw | UnsetType = UNSET
    healthEvents: msgspec.Raw | UnsetType = UNSET
    devTooling: msgspec.Raw | UnsetType = UNSET


def light_snapshot(path: str | os.PathLike[str]) -> LazySnapshot | None:
    """The snapshot file ``path`` read without pydantic, or None when only the full loader
    (:func:`auditor.estate.snapshot.load_snapshot`) can say what it holds (see the module)."""
    name = os.fspath(path)
    if os.path.splitext(name)[1].lower() in (".yaml", ".yml"):
        return None  # read as a VCR cassette by the readers, whatever it holds
    try:
        fd = open_input(name, what="snapshot file")
    except InputError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or not 0 < info.st_size <= LIGHT_LIMIT:
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(LIGHT_LIMIT + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) > LIGHT_LIMIT or not _SNAPSHOT_HEAD.match(data[:4096]):
        return None  # a byte-order mark, or not a snapshot by its head: the readers decide
    try:
        return _light(data, name)
    except (msgspec.DecodeError, RecursionError, UnicodeDecodeError, InputError):
        return None  # msgspec.ValidationError is a DecodeError


def _light(data: bytes, source: str) -> LazySnapshot | None:
    top = msgspec.json.decode(data, type=_Top)
    if top.snapshotVersion != SNAPSHOT_VERSION:
        return None
    sections: dict[str, Any] = {}
    raw: dict[str, bytes] = {}
    mirrors: list[RoleDefinitionRecord] | None = None
    ids: list[str | None] = []
    for key in SECTION_ORDER:
        value = getattr(top, key)
        if value is UNSET:
            continue
        if key in BULK_SECTIONS:
            kind: Any = list[BULK_SECTIONS[key]]  # type: ignore[valid-type]
            records = msgspec.json.decode(value, type=kind)
            intern_strings(key, records)
            merged, _ = merge_records(key, records, {}, source)
            if merged.positions is not None:
                return None  # duplicates: merged with a warning by the full loader
            sections[key] = records
            continue
        checked = msgspec.json.decode(value, type=SECTION_TYPES[key])
        if not _distinct(key, checked):
            return None
        if key == "roleDefinitions":
            mirrors = checked
        elif key != "devTooling":
            ids.extend(item.id for item in checked)
        raw[key] = bytes(value)
    snap = LazySnapshot(
        collectedAt=top.collectedAt, tenantId=top.tenantId, source=source, **sections
    )
    snap.present = frozenset(key for key in SECTION_ORDER if getattr(top, key) is not UNSET)
    snap.__dict__["_raw"].update(raw)
    if mirrors is not None:
        snap.__dict__["_mirrors"] = mirrors
    snap.__dict__["_resource_ids"] = ids
    return snap


def _distinct(key: str, value: Any) -> bool:
    """Whether no two entries of a small section share a key (as the full loader keys them)."""
    if value is None:
        return True
    if key == "devTooling":
        return _keys_distinct(value.tokens, ("id",)) and _keys_distinct(
            value.apps, ("owner", "name")
        )
    return _keys_distinct(value, _KEYS[key])


def _keys_distinct(items: Sequence[Any], fields: tuple[str, ...]) -> bool:
    keys: list[str] = []
    for item in items:
        parts = [getattr(item, f, None) for f in fields]
        if any(isinstance(p, str) and p for p in parts):
            keys.append("/".join(id_key(p) if isinstance(p, str) else "" for p in parts))
    return len(set(keys)) == len(keys)


_BUILDING = threading.RLock()
"""Held while a section is built: rules that run in threads read a section once built."""


def _section(name: str) -> property:
    def get(self: LazySnapshot) -> Any:
        state = self.__dict__
        if name in state["_raw"]:
            with _BUILDING:
                raw = state["_raw"].get(name)
                if raw is not None:
                    state["_values"][name] = _materialize(self, name, raw)
                    del state["_raw"][name]  # after the value is there
        return state["_values"].get(name)

    def put(self: LazySnapshot, value: Any) -> None:
        self.__dict__["_values"][name] = value
        self.__dict__["_raw"].pop(name, None)
        self.__dict__.pop("_mirrors" if name == "roleDefinitions" else "_resource_ids", None)

    return property(get, put, doc=f"``{name}``: its wire models, built on first read.")


def _materialize(snap: LazySnapshot, key: str, raw: bytes) -> Any:
    """A small section's wire models, as the full loader builds them from the same bytes."""
    from auditor.estate._duplicates import merge_models
    from auditor.estate.snapshot import _decode_small, _merge_dev_tooling

    value = _decode_small(key, msgspec.Raw(raw), snap.source or "<snapshot>")
    if key == "devTooling":
        return _merge_dev_tooling(snap, value, snap.source or "<snapshot>")
    return merge_models(key, value or [], _KEYS[key], snap.source or "<snapshot>").items


class LazySnapshot(Snapshot):
    """A :class:`~auditor.estate.snapshot.Snapshot` whose small sections become wire models when
    first read (see the module); equal to the snapshot the full loader reads from the same file."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.__dict__["_values"] = {}
        self.__dict__["_raw"] = {}
        super().__init__(*args, **kwargs)

    roleDefinitions: list[RoleDefinition] = _section("roleDefinitions")  # type: ignore[assignment]
    clusters: list[Cluster] = _section("clusters")  # type: ignore[assignment]
    domains: list[Domain] = _section("domains")  # type: ignore[assignment]
    healthEvents: list[HealthEvent] = _section("healthEvents")  # type: ignore[assignment]
    devTooling: DevTooling | None = _section("devTooling")  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Snapshot):
            return NotImplemented
        return all(
            getattr(self, f.name) == getattr(other, f.name)
            for f in dataclasses.fields(Snapshot)
            if f.compare
        )

    __hash__ = None  # type: ignore[assignment]  # as the dataclass (eq without frozen)

    def __copy__(self) -> LazySnapshot:
        """A shallow copy whose sections are set apart from this one's, as a dataclass copy's."""
        copied = object.__new__(type(self))
        copied.__dict__.update(self.__dict__)
        copied.__dict__["_values"] = dict(self.__dict__["_values"])
        copied.__dict__["_raw"] = dict(self.__dict__["_raw"])
        return copied


def lazy_role_definitions(snap: LazySnapshot, raw: bytes) -> bool:
    """Give ``snap`` the role definitions section ``raw`` (a snapshot file's own bytes) as
    :func:`light_snapshot` gives it: wire models built when first read, the mirrors for the access
    engine meanwhile. False (``snap`` untouched) when the mirrors refuse it or two definitions share
    an id: then only the full loader's decoding says what it holds."""
    try:
        checked = msgspec.json.decode(raw, type=SECTION_TYPES["roleDefinitions"])
    except (msgspec.DecodeError, RecursionError, UnicodeDecodeError):
        return False
    if not _distinct("roleDefinitions", checked):
        return False
    snap.__dict__["_raw"]["roleDefinitions"] = bytes(raw)
    if checked is not None:
        snap.__dict__["_mirrors"] = checked
    return True


def resource_ids(snapshot: Snapshot) -> list[str | None]:
    """The ids of the snapshot's clusters, domains and health events, in that order: from the
    mirrors of a :class:`LazySnapshot` whose sections nobody has replaced (no pydantic), else from
    the wire models."""
    ids = snapshot.__dict__.get("_resource_ids")
    if ids is not None:
        return ids  # type: ignore[no-any-return]
    sections = (*snapshot.clusters, *snapshot.domains, *snapshot.healthEvents)
    return [getattr(resource, "id", None) for resource in sections]


def role_definitions(snapshot: Snapshot) -> Sequence[RoleDefinition | RoleDefinitionRecord]:
    """The snapshot's role definitions for the access engine: the mirrors of a
    :class:`LazySnapshot` whose role definitions nobody has read or replaced (no pydantic), else
    the wire models. Both hold the same values."""
    mirrors = snapshot.__dict__.get("_mirrors")
    if mirrors is not None:
        return mirrors  # type: ignore[no-any-return]
    return snapshot.roleDefinitions
