"""The snapshot file of contracts section 2: load, dump, errors with JSON paths.

Loading is built for a million role assignments: the file is split into its top-level sections without
building Python objects (``msgspec.Raw``); bulk sections decode straight into compact records
(:mod:`auditor.estate.records`); the small sections (role definitions, clusters, domains, health events,
developer tooling) are validated by the pydantic wire models. Unknown fields are kept and written back,
except those with secret-looking names (:mod:`auditor.model.unknown_fields`), which are dropped and
named in a warning. Entries of one section that share an id are merged (:mod:`auditor.estate._duplicates`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec
from msgspec import UNSET, UnsetType

from auditor._collector import paused
from auditor.errors import InputError
from auditor.estate import _errors
from auditor.estate._duplicates import Merged, merge_models, merge_records, merged_warning
from auditor.estate._files import InputData, Pager, line_column, read_input, write_atomic
from auditor.estate._json import refuses_deep_nesting
from auditor.estate._unknown import drop_secret_looking, known_fields
from auditor.estate.records import (
    BULK_SECTIONS,
    DenyAssignmentRecord,
    DirectoryPrincipalRecord,
    HierarchyRecord,
    RoleAssignmentRecord,
    batch_sharer,
    intern_strings,
)
from auditor.model.unknown_fields import (
    drop_from_unknown,
    drop_secret_looking_extras,
    dropped_fields_warning,
    is_secret_looking_name,
    may_hold_secret_looking_name,
)

if TYPE_CHECKING:  # the wire models (pydantic) are imported when a small section is validated
    from pydantic import TypeAdapter

    from auditor.model.access import RoleDefinition
    from auditor.model.cluster import Cluster
    from auditor.model.devtooling import DevTooling
    from auditor.model.domain import Domain
    from auditor.model.health import HealthEvent

SNAPSHOT_VERSION = 1

SECTION_ORDER = (
    "hierarchy",
    "principals",
    "roleDefinitions",
    "roleAssignments",
    "denyAssignments",
    "clusters",
    "domains",
    "healthEvents",
    "devTooling",
)

_SMALL_SECTIONS: dict[str, TypeAdapter[Any]] = {}
_LOCATION = re.compile(r"^([A-Za-z]+(?:\.tokens|\.apps)?)\[(\d+)\]")
_MODEL_KEYS: dict[str, tuple[str, ...]] = {
    "roleDefinitions": ("id",),
    "clusters": ("id",),
    "domains": ("id",),
    "healthEvents": ("id",),
}


def _small_adapter(section: str) -> TypeAdapter[Any]:
    adapter = _SMALL_SECTIONS.get(section)
    if adapter is None:
        from pydantic import ConfigDict, TypeAdapter

        from auditor.model.access import RoleDefinition
        from auditor.model.cluster import Cluster
        from auditor.model.devtooling import DevTooling
        from auditor.model.domain import Domain
        from auditor.model.health import HealthEvent

        model: Any = {
            "roleDefinitions": list[RoleDefinition],
            "clusters": list[Cluster],
            "domains": list[Domain],
            "healthEvents": list[HealthEvent],
            "devTooling": DevTooling | None,
        }[section]
        adapter = _SMALL_SECTIONS[section] = TypeAdapter(
            model, config=ConfigDict(hide_input_in_errors=True)
        )
    return adapter


@dataclass(eq=True)
class Snapshot:
    """The whole estate at one moment (contracts section 2).

    Bulk sections hold records (:mod:`auditor.estate.records`), the others pydantic wire models. Field
    names are the file's keys.
    """

    snapshotVersion: int = SNAPSHOT_VERSION
    collectedAt: str | None = None
    tenantId: str | None = None
    hierarchy: list[HierarchyRecord] = field(default_factory=list)
    principals: list[DirectoryPrincipalRecord] = field(default_factory=list)
    roleDefinitions: list[RoleDefinition] = field(default_factory=list)
    roleAssignments: list[RoleAssignmentRecord] = field(default_factory=list)
    denyAssignments: list[DenyAssignmentRecord] = field(default_factory=list)
    clusters: list[Cluster] = field(default_factory=list)
    domains: list[Domain] = field(default_factory=list)
    healthEvents: list[HealthEvent] = field(default_factory=list)
    devTooling: DevTooling | None = None
    extra: dict[str, bytes] = field(default_factory=dict)
    """Unknown top-level keys, as raw JSON, written back unchanged."""
    preserved: dict[str, dict[int, Any]] = field(default_factory=dict)
    """Original JSON of bulk items that carried unknown fields (section -> index -> value)."""
    source: str | None = field(default=None, compare=False)
    """Where the snapshot was read from, for messages."""
    warnings: list[str] = field(default_factory=list, compare=False)
    """What the loader changed and the user should know (duplicates merged, secret-looking unknown
    fields dropped); the audit's findings carry them on."""
    positions: dict[str, list[int]] = field(default_factory=dict, compare=False)
    """For a section whose duplicates were merged: the file index of each entry kept (section ->
    list), so JSON paths can name the file's entries (:meth:`file_location`)."""
    present: frozenset[str] | None = field(default=None, compare=False)
    """The sections of :data:`SECTION_ORDER` the source listed (an empty list given is listed:
    "none"; a key left out is "not collected"); None for a snapshot built in code, whose every
    section counts as listed. See :meth:`has_section`."""

    def has_section(self, name: str) -> bool:
        """Whether section ``name`` was listed by the source (so an empty section means "none",
        not "not collected"); a section holding entries always counts as listed."""
        if self.present is None or name in self.present:
            return True
        value = getattr(self, name, None)
        return bool(value) if name != "devTooling" else value is not None

    def file_location(self, location: str) -> str:
        """``location`` (a JSON path into this snapshot's sections) as a path into the file it was
        read from: the same unless duplicates were merged before that entry."""
        if not self.positions:
            return location
        m = _LOCATION.match(location)
        if m is None:
            return location
        kept = self.positions.get(m.group(1))
        index = int(m.group(2))
        if kept is None or index >= len(kept):
            return location
        return f"{m.group(1)}[{kept[index]}]{location[m.end() :]}"

    def counts(self) -> dict[str, int]:
        """How many records each section holds."""
        out = {name: len(getattr(self, name)) for name in SECTION_ORDER if name != "devTooling"}
        dev = self.devTooling
        out["devTooling.apps"] = len(dev.apps) if dev else 0
        out["devTooling.tokens"] = len(dev.tokens) if dev else 0
        return out


def load_snapshot(path: str | os.PathLike[str]) -> Snapshot:
    """Read and validate a snapshot file. Raises :class:`InputError` (exit code 2) naming the file and
    the JSON path of the first problem."""
    name = os.fspath(path)
    return loads_snapshot(read_input(name, what="snapshot file"), source=name)


class _Sections(msgspec.Struct, forbid_unknown_fields=True):
    """The top level of a snapshot split in one pass, the role assignments into their items."""

    snapshotVersion: msgspec.Raw | UnsetType = UNSET
    collectedAt: msgspec.Raw | UnsetType = UNSET
    tenantId: msgspec.Raw | UnsetType = UNSET
    hierarchy: msgspec.Raw | UnsetType = UNSET
    principals: msgspec.Raw | UnsetType = UNSET
    roleDefinitions: msgspec.Raw | UnsetType = UNSET
    roleAssignments: list[msgspec.Raw] | UnsetType = UNSET
    denyAssignments: msgspec.Raw | UnsetType = UNSET
    clusters: msgspec.Raw | UnsetType = UNSET
    domains: msgspec.Raw | UnsetType = UNSET
    healthEvents: msgspec.Raw | UnsetType = UNSET
    devTooling: msgspec.Raw | UnsetType = UNSET


class _Retry(Exception):
    """The one-pass split met something only the general path handles (or reports)."""


@refuses_deep_nesting
def loads_snapshot(data: InputData, *, source: str = "<snapshot>") -> Snapshot:
    """Validate snapshot JSON bytes (see :func:`load_snapshot`).

    ``data`` may be a view of a memory map (:func:`~auditor.estate._files.read_input`); its pages
    are then given back as the sections are decoded.

    A snapshot with only the known top-level keys is split in one pass, the role assignments
    straight into their items; anything else (unknown keys or fields, an error to report) takes the
    general path, which reads the top level as it comes and names the first problem in file order.
    """
    if len(data) <= _CHUNK_BYTES:
        return _loads(data, source)
    # a large snapshot makes hundreds of thousands of containers and no cycle: the collector's
    # passes over them while they are made (a full one at a million assignments) are waste
    with paused():
        return _loads(data, source)


def _loads(data: InputData, source: str) -> Snapshot:
    try:
        sections = msgspec.json.decode(data, type=_Sections)
    except (msgspec.ValidationError, msgspec.DecodeError):
        sections = None
    if sections is not None:
        top: dict[str, Any] = {}
        for name in _Sections.__struct_fields__:
            value = getattr(sections, name)
            if value is not UNSET:
                top[name] = value
        del sections
        try:
            return _from_sections(top, data, source)
        except (_Retry, InputError):
            del top
    return _from_sections(_decode_top(data, source), data, source)


def _from_sections(top: dict[str, Any], data: InputData, source: str) -> Snapshot:
    pager = Pager.of(data)
    # items split in one pass (the role assignments) are decoded first, while the split has the
    # mapped file's pages in memory: each page is given back once its items are decoded, never
    # faulted in a second time (the other sections, a small part of the file, are read after)
    decoded = {
        key: _decode_parts(key, raw, pager) for key, raw in top.items() if isinstance(raw, list)
    }
    if pager is not None:
        pager.release_all()
    snap = Snapshot(source=source)
    snap.present = frozenset(key for key in top if key in SECTION_ORDER)
    dropped: list[str] = []
    for key, raw in top.items():
        if key == "snapshotVersion":
            version = _scalar(raw, int, source, key)
            if version != SNAPSHOT_VERSION:
                raise InputError(
                    f"expected {SNAPSHOT_VERSION}, found {_errors.describe_value(version)}",
                    source=source,
                    location=key,
                )
        elif key in ("collectedAt", "tenantId"):
            setattr(snap, key, _scalar(raw, str | None, source, key))
        elif key in decoded:  # items split in one pass (role assignments)
            _set_bulk(snap, key, decoded.pop(key), {}, source)
        elif key in BULK_SECTIONS:
            records, preserved = _decode_bulk(key, raw, source, pager, dropped)
            _set_bulk(snap, key, records, preserved, source)
        elif key in SECTION_ORDER:
            value = _decode_small(key, raw, source)
            drop_secret_looking_extras(value, key, dropped)
            if key == "devTooling":
                snap.devTooling = _merge_dev_tooling(snap, value, source)
            else:
                _set_merged(snap, key, merge_models(key, value or [], _MODEL_KEYS[key], source))
        elif is_secret_looking_name(key):
            dropped.append(key)
        else:
            snap.extra[key] = _without_secret_looking(key, bytes(raw), dropped)
    if dropped:
        snap.warnings.append(dropped_fields_warning(dropped))
    return snap


def _set_merged(snap: Snapshot, key: str, merged: Merged) -> None:
    setattr(snap, key, merged.items)
    if merged.positions is not None:
        snap.positions[key] = merged.positions
        snap.warnings.append(merged_warning(key, merged))


def _set_bulk(
    snap: Snapshot, key: str, records: list[Any], preserved: dict[int, Any], source: str
) -> None:
    merged, preserved = merge_records(key, records, preserved, source)
    _set_merged(snap, key, merged)
    if preserved:
        snap.preserved[key] = preserved


def _merge_dev_tooling(snap: Snapshot, dev: DevTooling | None, source: str) -> DevTooling | None:
    if dev is None:
        return None
    for name, keys in (("tokens", ("id",)), ("apps", ("owner", "name"))):
        merged = merge_models(f"devTooling.{name}", getattr(dev, name), keys, source)
        if merged.positions is not None:
            setattr(dev, name, merged.items)
            snap.positions[f"devTooling.{name}"] = merged.positions
            snap.warnings.append(merged_warning(f"devTooling.{name}", merged))
    return dev


def _without_secret_looking(key: str, raw: bytes, dropped: list[str]) -> bytes:
    """An unknown top-level section without the secret-looking keys it holds (decoded only when its
    bytes could hold one)."""
    if not may_hold_secret_looking_name(raw):
        return raw
    found: list[str] = []
    value = drop_from_unknown(msgspec.json.decode(raw), key, found)
    if not found:
        return raw
    dropped.extend(found)
    return msgspec.json.encode(value)


def _decode_top(data: InputData, source: str) -> dict[str, msgspec.Raw]:
    try:
        top = msgspec.json.decode(data, type=dict[str, msgspec.Raw])
    except msgspec.ValidationError:
        kind = _json_kind(data)
        raise InputError(
            f"expected a JSON object at the top level, found {kind}", source=source
        ) from None
    except msgspec.DecodeError as exc:
        raise _syntax_error(exc, data, source) from None
    return top


def _json_kind(data: InputData) -> str:
    first = bytes(data[:4096]).lstrip()[:1]
    return {b"[": "an array", b'"': "a string", b"n": "null", b"t": "true", b"f": "false"}.get(
        first, "a number"
    )


def _syntax_error(exc: msgspec.DecodeError, data: InputData, source: str) -> InputError:
    text = str(exc)
    if "truncated" in text:
        line, column = line_column(data, len(data))
        return InputError(
            "the JSON ends too early (the file is truncated?); expected more input",
            source=source,
            location=f"line {line}, column {column}",
        )
    m = re.search(r"byte (\d+)", text)
    offset = int(m.group(1)) if m else 0
    line, column = line_column(data, offset)
    near = bytes(data[offset : offset + 1]).decode("utf-8", errors="replace")
    what = f"unexpected {near!r}" if near.strip() else "unexpected input"
    return InputError(
        f"invalid JSON: {what}; expected a JSON value, a comma or a closing bracket",
        source=source,
        location=f"line {line}, column {column}",
    )


def _scalar(raw: msgspec.Raw, typ: Any, source: str, key: str) -> Any:
    try:
        return msgspec.json.decode(raw, type=typ)
    except msgspec.ValidationError as exc:
        raise _errors.from_msgspec(exc, source=source, prefix=key, raw=bytes(raw)) from None


_CHUNK_BYTES = 32 << 20
"""Sections larger than this decode in chunks, each interned before the next is decoded, so the
duplicate strings of a million records never exist all at once (lower peak memory)."""
_CHUNK_ITEMS = 4_096
"""Items decoded between two releases of the mapped file's pages (a few megabytes)."""
_SHARE_ITEMS = 256
"""Records decoded before their strings are shared (they are still in the processor's caches)."""


def _decode_bulk(
    key: str,
    raw: msgspec.Raw,
    source: str,
    pager: Pager | None = None,
    dropped: list[str] | None = None,
) -> tuple[list[Any], dict[int, Any]]:
    cls = BULK_SECTIONS[key]
    try:
        if len(raw) > _CHUNK_BYTES:
            records = _decode_chunked(key, cls, raw, pager)
        else:
            records = msgspec.json.decode(raw, type=list[cls])  # type: ignore[valid-type]
            intern_strings(key, records)
        return records, {}
    except msgspec.ValidationError as exc:
        if "unknown field" not in str(exc):
            # decode the whole section again for an error whose path counts from its start
            try:
                msgspec.json.decode(raw, type=list[cls])  # type: ignore[valid-type]
            except msgspec.ValidationError as whole:
                exc = whole
            if "unknown field" not in str(exc):
                raise _errors.from_msgspec(exc, source=source, prefix=key, raw=bytes(raw)) from None
    return _decode_bulk_keeping_unknown(key, cls, raw, source, dropped)


def _decode_parts(key: str, parts: list[msgspec.Raw], pager: Pager | None) -> list[Any]:
    """A bulk section from its items; an item the records refuse (an unknown field, an error to
    report with its path) sends the whole load down the general path."""
    try:
        return _decode_chunked(key, BULK_SECTIONS[key], parts, pager)
    except msgspec.ValidationError:
        raise _Retry from None


def _decode_chunked(
    key: str, cls: type[Any], raw: msgspec.Raw | list[msgspec.Raw], pager: Pager | None
) -> list[Any]:
    parts: list[Any] = (
        raw if isinstance(raw, list) else msgspec.json.decode(raw, type=list[msgspec.Raw])
    )
    # one item at a time: cheaper than joining each chunk's items into a new JSON array; the
    # records' strings are shared a few hundred at a time, while they are fresh in the
    # processor's caches
    decode = msgspec.json.Decoder(cls).decode
    share = batch_sharer(key)
    records: list[Any] = []
    first = -1  # where the first item starts in the mapped file
    if pager is not None and parts:
        # found once by its text (its head alone may begin an entry of an earlier section too:
        # an earlier match only delays the release); what comes before it is given back now
        first = pager.locate(memoryview(parts[0])[:4096].tobytes(), 0)
        pager.release_before(max(first, 0))
    consumed = 0
    for start in range(0, len(parts), _CHUNK_ITEMS):
        chunk = parts[start : start + _CHUNK_ITEMS]
        # the items are consumed: their slots are emptied, so the memory of the decoded ones
        # serves the records that follow (``parts`` is never read again, even on a retry)
        parts[start : start + len(chunk)] = [None] * len(chunk)
        if share is None:
            records.extend(map(decode, chunk))
        else:
            for at in range(0, len(chunk), _SHARE_ITEMS):
                fresh = list(map(decode, chunk[at : at + _SHARE_ITEMS]))
                share(fresh)
                records += fresh
        if first >= 0 and pager is not None and start + _CHUNK_ITEMS < len(parts):
            # give back the pages of the items decoded so far: from the first item on, at least
            # their lengths (the commas and blanks between them are not counted, so the release
            # lags by a few pages, never runs ahead)
            consumed += sum(map(len, chunk))
            pager.release_before(first + consumed)
    if pager is not None:
        pager.release_all()
    return records


def _decode_bulk_keeping_unknown(
    key: str, cls: type[Any], raw: msgspec.Raw, source: str, dropped: list[str] | None = None
) -> tuple[list[Any], dict[int, Any]]:
    """The slow path: items with unknown fields are decoded without them and kept as given (but
    for unknown fields with secret-looking names, dropped and their paths added to ``dropped``)."""
    items = msgspec.json.decode(raw)
    if not isinstance(items, list):
        raise InputError(
            f"expected an array, found {_errors.describe_value(items)}", source=source, location=key
        )
    records: list[Any] = []
    preserved: dict[int, Any] = {}
    for index, item in enumerate(items):
        known, had_unknown = known_fields(item, cls)
        try:
            records.append(msgspec.convert(known, cls))
        except msgspec.ValidationError as exc:
            raise _errors.from_msgspec(
                exc, source=source, prefix=f"{key}[{index}]", raw=msgspec.json.encode(item)
            ) from None
        if had_unknown:
            if dropped is not None:
                before = len(dropped)
                drop_secret_looking(item, cls, f"{key}[{index}]", dropped)
                if len(dropped) > before and not known_fields(item, cls)[1]:
                    continue  # nothing unknown is left: the record is the whole item
            preserved[index] = item
    intern_strings(key, records)
    return records, preserved


def _decode_small(key: str, raw: msgspec.Raw, source: str) -> Any:
    from pydantic import ValidationError

    try:
        return _small_adapter(key).validate_json(bytes(raw), strict=True)
    except ValidationError as exc:
        raise _errors.from_pydantic(exc, source=source, prefix=key) from None


def dumps_snapshot(snapshot: Snapshot, *, indent: int | None = None) -> bytes:
    """The snapshot as JSON bytes: every section it has (:meth:`Snapshot.has_section`; a section
    the source did not list stays out, so "not collected" is not written as "none"), in the order of
    contracts section 2."""
    out: dict[str, Any] = {"snapshotVersion": snapshot.snapshotVersion}
    if snapshot.collectedAt is not None:
        out["collectedAt"] = snapshot.collectedAt
    if snapshot.tenantId is not None:
        out["tenantId"] = snapshot.tenantId
    for key in SECTION_ORDER:
        if not snapshot.has_section(key):
            continue
        value = getattr(snapshot, key)
        if key in BULK_SECTIONS:
            kept = snapshot.preserved.get(key)
            out[key] = [kept.get(i, r) for i, r in enumerate(value)] if kept else value
        elif key == "devTooling":
            if value is not None:
                out[key] = value.to_wire()
        else:
            out[key] = [m.to_wire() for m in value]
    for key, raw in snapshot.extra.items():
        out[key] = msgspec.Raw(raw)
    data = msgspec.json.encode(out)
    if indent:
        data = msgspec.json.format(data, indent=indent)
    return data + b"\n"


def dump_snapshot(
    snapshot: Snapshot,
    path: str | os.PathLike[str],
    *,
    overwrite: bool = False,
    indent: int | None = None,
) -> None:
    """Write the snapshot atomically; an existing file is refused unless ``overwrite``."""
    write_atomic(
        path, dumps_snapshot(snapshot, indent=indent), overwrite=overwrite, what="snapshot file"
    )
