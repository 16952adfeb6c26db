"""The persistent index of loaded snapshots: the first command that loads a large snapshot writes an
entry for it to a cache directory; later questions about the same, unchanged file read only the few
blocks of the entry they need (memory-mapped, decoded with ``msgspec``) instead of parsing the JSON.

What is in an entry is chosen by the *indexer* the cache is given (the access engine's,
:func:`auditor.access.partial.cache_tables`): whole *blocks* (say the hierarchy) and keyed *tables*
(say role assignments by scope, the directory by principal id), each
value any msgpack value ``msgspec`` encodes (the records of :mod:`auditor.estate.records` included).
This module keeps the file, its trust and its integrity; it knows nothing of access.

Layout of an entry (every value is msgpack; only the lead is written with fixed-width integers, so
that its stat fields can be updated in place)::

    lead    a msgpack array of 11: the magic string, the cache format, the head's offset, length
            and CRC-32, the entry's total length, then the snapshot's size, mtime_ns, ctime_ns,
            inode and device (integers as msgpack uint 64 / int 64: 112 bytes in all)
    blocks  one after another: each whole block, then each table's buckets. A table of N keys is
            cut into about N / per_bucket buckets; a key lives in bucket crc32(key) % buckets, and a
            bucket is a msgpack map key -> value. A lookup checks its bucket's CRC-32 and splits
            it into its keys' encoded values (``msgspec.Raw``: nothing decoded), then decodes the
            one value it wants: small buckets read little, and a bucket's other values cost
            next to nothing.
    refs    per table, a block holding a msgpack ``bin`` of its buckets' offsets, lengths and
            CRC-32s (little-endian unsigned 64-bit triples: a lookup reads one in place)
    head    a msgpack map (:class:`_Head`): tool version, record schema and index layout, the
            snapshot's real path, SHA-256 and quick digest, where its small sections lie in it, what
            the loader kept (warnings, merge positions), each block's offset, length and CRC-32.

Every block is checked against its CRC-32 when read; a mismatch, a lead or head that does not
decode or disagrees with the file's length, or another tool version, schema or layout makes the
entry stale: the caller loads the JSON (and the entry is rebuilt, with one note saying why). A
damaged block is therefore never decoded into an answer.

Trust: an entry records the snapshot's size, ``mtime_ns``, ``ctime_ns``, inode and device and its
full SHA-256. When all five stat fields match, the file has not been written since the entry was
made (any write moves ``ctime``, and so does any ``utime`` that puts ``mtime`` back; no user call
sets ``ctime``), so only a quick check runs: the SHA-256 of the file's first and last MiB and of its
small sections' bytes (read in any case, see below). When ``ctime``, inode or device moved (the file
was copied back, touched, restored), the whole file is hashed: if the SHA-256 still matches, the
entry's stat fields are updated in place; otherwise it is stale. A size or ``mtime`` that differs is
stale at once.

Secrets: the small sections (role definitions, clusters, domains, health events, developer tooling)
are the ones that can hold secrets (passwords, storage keys, tokens): they are never written to the
cache; their offsets in the snapshot are, and they are decoded again from the snapshot itself.

Entries are written to a temporary name (mode 0600, in a folder of this user's that nobody else can
write to) and renamed into place, so two commands building at once each leave a whole entry and a
reader never sees half of one. With ``background`` (the command line's choice) the entry is written
by a background process, so the command that loaded the snapshot does not wait for it. A whole
snapshot is still loaded from its JSON (measured faster than decoding a million records from
msgpack); the entry serves the questions that need a few blocks.

Snapshots smaller than :data:`MIN_BYTES` never touch the cache (their JSON loads as fast as the
cache would); nor do inputs that are not a snapshot file (exports, HAR files, folders: see
:func:`auditor.sources.load_estate`), whose records carry provenance the cache does not keep.
"""

from __future__ import annotations

import contextlib
import hashlib
import mmap
import os
import stat
import struct
import sys
import tempfile
import threading
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

from auditor import __version__
from auditor._collector import paused
from auditor._resources import cache_folder_path
from auditor.errors import InputError
from auditor.estate import snapshot as _snapshot
from auditor.estate._files import UTF8_BOM
from auditor.estate.records import BULK_SECTIONS
from auditor.estate.snapshot import SECTION_ORDER, Snapshot

if TYPE_CHECKING:
    from auditor.estate.light import LazySnapshot

__all__ = [
    "CACHE_FORMAT",
    "MIN_BYTES",
    "CacheEntry",
    "CachedEstate",
    "EstateCache",
    "Indexer",
    "Tables",
    "default_cache_directory",
]

CACHE_FORMAT = 3
"""The layout of an entry; entries of another layout are rebuilt."""
MIN_BYTES = 1 << 20
"""Snapshots smaller than this are loaded from their JSON, never cached."""
SUFFIX = ".estate.msgpack"
_MAGIC = "auditor-estate-cache"
_SMALL = tuple(key for key in SECTION_ORDER if key not in BULK_SECTIONS)
"""The sections decoded from the snapshot itself (the ones that can hold secrets)."""
_HASH_CHUNK = 8 << 20
_QUICK = 1 << 20
"""Bytes of the snapshot's head and tail the quick check hashes."""
_LEAD_BYTES = 112
_T = TypeVar("_T")


def default_cache_directory() -> Path:
    """The user's cache folder (:func:`auditor._resources.user_cache_dir`: ``$AUDITOR_CACHE_DIR``,
    else ``$XDG_CACHE_HOME/auditor``, else ``~/.cache/auditor``)."""
    return cache_folder_path()


def _schema() -> str:
    """A digest of the record classes' fields: entries written by other record classes (a code
    change without a version change) are rebuilt."""
    from auditor.estate import records

    parts = []
    classes: tuple[type[msgspec.Struct], ...] = (
        *BULK_SECTIONS.values(),
        records.PrincipalRecord,
        records.DenyPermissionRecord,
        records.DenyAssignmentPropertiesRecord,
        records.RoleAssignmentPropertiesRecord,
    )
    for cls in classes:
        fields = msgspec.structs.fields(cls)
        parts.append(f"{cls.__name__}:" + ",".join(f"{f.name}={f.type!r}" for f in fields))
    return hashlib.blake2b("|".join(parts).encode(), digest_size=8).hexdigest()


# -- what an indexer gives


@dataclass
class Tables:
    """What an :data:`Indexer` makes of a loaded snapshot: ``layout`` names its own format (an
    entry of another layout is stale); ``blocks`` are stored whole, ``tables`` by key, about
    ``per_bucket[name]`` keys (default 16) to a bucket; ``writing``, when given, is entered
    while the entry is encoded (an indexer may leave out, for that time, what it makes again when
    it reads: ids derived from other fields)."""

    layout: str
    blocks: dict[str, Any] = field(default_factory=dict)
    tables: dict[str, dict[str, Any]] = field(default_factory=dict)
    per_bucket: dict[str, int] = field(default_factory=dict)
    writing: Callable[[], contextlib.AbstractContextManager[None]] | None = None


Indexer = Callable[[Snapshot], Tables]
"""Makes the blocks and tables of an entry from a loaded snapshot."""


# -- the file


class _Lead(msgspec.Struct, array_like=True):
    magic: str
    format: int
    head_offset: int
    head_length: int
    head_crc: int
    total: int
    size: int
    mtime_ns: int
    ctime_ns: int
    ino: int
    dev: int


_STAT_AT = _LEAD_BYTES - 5 * 9
"""Where the five stat fields start in the lead."""


def _lead_bytes(lead: _Lead) -> bytes:
    out = bytearray(b"\x9b")  # fixarray of 11
    magic = lead.magic.encode()
    out += bytes([0xA0 | len(magic)]) + magic
    for value in (lead.format, lead.head_offset, lead.head_length, lead.head_crc, lead.total):
        out += b"\xcf" + value.to_bytes(8, "big")
    out += _stat_bytes(lead.size, lead.mtime_ns, lead.ctime_ns, lead.ino, lead.dev)
    assert len(out) == _LEAD_BYTES
    return bytes(out)


def _stat_bytes(size: int, mtime_ns: int, ctime_ns: int, ino: int, dev: int) -> bytes:
    out = bytearray()
    out += b"\xcf" + size.to_bytes(8, "big")
    out += b"\xd3" + mtime_ns.to_bytes(8, "big", signed=True)
    out += b"\xd3" + ctime_ns.to_bytes(8, "big", signed=True)
    out += b"\xcf" + ino.to_bytes(8, "big")
    out += b"\xcf" + dev.to_bytes(8, "big")
    return bytes(out)


_REF = struct.Struct("<QQQ")
Ref = tuple[int, int, int]
"""A block's offset, length and CRC-32 in the entry."""


class _Meta(msgspec.Struct, omit_defaults=True):
    snapshotVersion: int
    collectedAt: str | None = None
    tenantId: str | None = None
    warnings: list[str] = []
    positions: dict[str, list[int]] = {}
    present: list[str] | None = None
    counts: dict[str, int] = {}


class _Head(msgspec.Struct):
    version: str
    schema: str
    layout: str
    source: str
    digest: str
    """SHA-256 of the snapshot's bytes."""
    quick: str
    """SHA-256 of its first and last MiB and of its small sections' bytes."""
    small: dict[str, tuple[int, int]]
    """Offset and length of each small section in the snapshot file's bytes."""
    meta: _Meta
    blocks: dict[str, Ref]
    tables: dict[str, Ref]
    """For each table, the block of its buckets' refs: a msgpack ``bin`` of (offset, length,
    CRC-32) triples as little-endian unsigned 64-bit integers, one per bucket, read in place."""


@dataclass(frozen=True)
class CacheEntry:
    """One entry of a cache directory, as ``auditor cache info`` lists it."""

    path: Path
    bytes: int
    source: str | None
    """The snapshot it caches (None when the entry is not readable)."""
    snapshot_bytes: int | None
    version: str | None
    current: bool
    """Written by this version of the tool, cache format and record classes."""


class _Stale(Exception):
    """An entry that cannot be used; the text says why (for the note)."""


_Bucket = dict[str, msgspec.Raw]
"""A bucket as read: its keys and their values, still encoded."""


def _bucket_of(key: str, buckets: int) -> int:
    return zlib.crc32(key.encode("utf-8", "surrogatepass")) % buckets


class CachedEstate:
    """An open, trusted entry: its blocks and tables decoded on demand (see the module's notes).

    Values are decoded into new objects, so they outlive :meth:`close`."""

    def __init__(
        self,
        path: str,
        head: _Head,
        data: memoryview,
        small: dict[str, bytes],
        entry: Path | None = None,
        note: Callable[[str], None] | None = None,
    ) -> None:
        self.path = path
        self.entry = entry
        self._note = note
        self._head = head
        self._data = data
        self._small = small
        self._decoders: dict[Any, msgspec.msgpack.Decoder[Any]] = {}
        self._buckets: dict[str, dict[int, _Bucket]] = {}
        """Per table, the buckets read (by number), split into their keys' encoded values."""
        self._refs: dict[str, memoryview] = {}

    @property
    def layout(self) -> str:
        return self._head.layout

    @property
    def warnings(self) -> list[str]:
        """What the loader told when the snapshot was loaded (duplicates merged, fields dropped)."""
        return list(self._head.meta.warnings)

    @property
    def counts(self) -> dict[str, int]:
        """How many records each bulk section holds."""
        return dict(self._head.meta.counts)

    def _decoder(self, typ: Any) -> msgspec.msgpack.Decoder[Any]:
        dec = self._decoders.get(typ)
        if dec is None:
            dec = self._decoders[typ] = msgspec.msgpack.Decoder(typ)
        return dec

    def _read(self, ref: Ref, typ: Any) -> Any:
        at, length, crc = ref
        view = self._data[at : at + length]
        if len(view) != length or zlib.crc32(view) != crc:
            raise InputError(
                "the cache entry is damaged (a block fails its checksum)", source=self.path
            )
        try:
            return self._decoder(typ).decode(view)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise InputError(f"the cache entry is damaged ({exc})", source=self.path) from None

    def block(self, name: str, typ: type[_T] | Any) -> Any:
        """The whole block ``name``, decoded as ``typ`` (None when the entry has no such block).
        A block that fails its checksum raises :class:`InputError`."""
        ref = self._head.blocks.get(name)
        return None if ref is None else self._read(ref, typ)

    def get(self, table: str, key: str, typ: Any) -> Any:
        """The value of ``key`` in table ``table`` (decoded as ``typ``), or None."""
        raw = self._raw(table, key)
        if raw is None:
            return None
        try:
            return self._decoder(typ).decode(raw)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise InputError(f"the cache entry is damaged ({exc})", source=self.path) from None

    def get_many(self, table: str, keys: Iterable[str], typ: Any) -> dict[str, Any]:
        """The values of ``keys`` in table ``table`` (decoded as ``typ``), by key: keys not in the
        table are left out. One call for many keys (a level of a walk through the directory)."""
        found: dict[str, msgspec.Raw] = {}
        with paused():  # many small containers, no cycle among them
            for key in keys:
                raw = self._raw(table, key)
                if raw is not None:
                    found[key] = raw
            values = self.decode_all(list(found.values()), typ)
        return dict(zip(found, values, strict=True))

    def decode_all(self, raws: list[msgspec.Raw], typ: Any) -> list[Any]:
        """Encoded values read from this entry (``msgspec.Raw``), each decoded as ``typ``, in one
        call (as a msgpack array of them); a value that does not decode raises
        :class:`InputError`."""
        whole = b"\xdd" + len(raws).to_bytes(4, "big") + b"".join(raws)
        try:
            values: list[Any] = self._decoder(list[typ]).decode(whole)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise InputError(f"the cache entry is damaged ({exc})", source=self.path) from None
        return values

    def _raw(self, table: str, key: str) -> msgspec.Raw | None:
        """The encoded value of ``key`` in ``table`` (its bucket checked and split once)."""
        refs = self._table_refs(table)
        if refs is None:
            return None
        index = _bucket_of(key, len(refs) // _REF.size)
        buckets = self._buckets.setdefault(table, {})
        bucket = buckets.get(index)
        if bucket is None:
            at = _REF.unpack_from(refs, index * _REF.size)
            bucket = buckets[index] = self._read(at, _Bucket)
        return bucket.get(key)

    def _table_refs(self, table: str) -> memoryview | None:
        """The refs of table ``table``'s buckets (None when the entry has no such table)."""
        refs = self._refs.get(table)
        if refs is None:
            ref = self._head.tables.get(table)
            if ref is None:
                return None
            refs = self._refs[table] = self._read(ref, memoryview)
            if len(refs) % _REF.size or not refs:
                raise InputError("the cache entry is damaged (a table)", source=self.path)
        return refs

    def small_sections(self, keys: tuple[str, ...] = _SMALL) -> Snapshot:
        """A snapshot holding the small sections ``keys``, decoded from the snapshot file's own
        bytes (read and checked when the entry was opened) as the loader decodes them."""
        top = {k: msgspec.Raw(self._small[k]) for k in keys if k in self._small}
        return _snapshot._from_sections(top, b"", self.path)

    def small_bytes(self, key: str) -> bytes | None:
        """The snapshot file's own bytes of the small section ``key`` (None when absent)."""
        return self._small.get(key)

    def snapshot_shell(self) -> LazySnapshot:
        """An empty snapshot carrying the loaded snapshot's top-level values (a
        :class:`~auditor.estate.light.LazySnapshot`: small sections may be given as bytes)."""
        from auditor.estate.light import LazySnapshot

        meta = self._head.meta
        return LazySnapshot(
            snapshotVersion=meta.snapshotVersion,
            collectedAt=meta.collectedAt,
            tenantId=meta.tenantId,
            source=self.path,
            warnings=list(meta.warnings),
            positions=meta.positions,
            present=None if meta.present is None else frozenset(meta.present),
        )

    def discard(self, why: str) -> None:
        """Close the entry and delete it (it failed a check: the snapshot is loaded again, which
        writes it again), with one note saying why."""
        self.close()
        if self.entry is not None:
            with contextlib.suppress(OSError):
                self.entry.unlink()
        if self._note is not None:
            self._note(f"{self.path}: {why}; rebuilding the cache")

    def close(self) -> None:
        self._buckets.clear()
        for refs in self._refs.values():
            refs.release()
        self._refs.clear()
        data, self._data = self._data, memoryview(b"")
        mapped = data.obj
        with contextlib.suppress(BufferError):
            data.release()
            if isinstance(mapped, mmap.mmap):
                mapped.close()

    def __enter__(self) -> CachedEstate:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class EstateCache:
    """A cache directory of snapshot entries.

    >>> cache = EstateCache(Path("~/.cache/auditor").expanduser(), indexer=cache_tables)  # doctest: +SKIP
    >>> snapshot = cache.load("estate.json", load_snapshot)   # JSON; writes the entry if needed
    >>> opened = cache.open("estate.json")                     # the entry, or None

    ``note`` receives one line when an entry is rebuilt or cannot be written (the command line
    prints it on standard error); ``min_bytes``: smaller snapshots never touch the cache;
    ``indexer``: what an entry holds (without one, :meth:`load` writes nothing).
    """

    directory: Path
    note: Callable[[str], None] | None = None
    min_bytes: int = MIN_BYTES
    indexer: Indexer | None = None
    background: bool = False
    """Write entries in a background process (the command goes on at once; see
    :func:`_spawned`)."""
    _why: dict[str, str] = field(default_factory=dict, repr=False)

    # -- entries

    def entry_path(self, snapshot: str | os.PathLike[str]) -> Path:
        """Where the entry of the snapshot file ``snapshot`` lives."""
        real = os.path.realpath(os.fspath(snapshot))
        name = hashlib.blake2b(os.fsencode(real), digest_size=16).hexdigest()
        return self.directory / f"{name}{SUFFIX}"

    def entries(self) -> list[CacheEntry]:
        """The entries of the directory, by path (none when it does not exist)."""
        found: list[CacheEntry] = []
        for path in self._files():
            try:
                size = path.stat().st_size
            except OSError:
                continue
            found.append(_describe(path, size))
        return found

    def clear(self) -> tuple[int, int]:
        """Delete every entry (and temporary file left by an interrupted write, and lock file);
        the number of files (locks aside) and bytes deleted. Other files in the directory are left
        alone."""
        files = freed = 0
        for path in self._files(temporary=True):
            with contextlib.suppress(OSError):
                size = path.stat().st_size
                path.unlink()
                if path.suffix != ".lock":
                    files += 1
                    freed += size
        return files, freed

    def _files(self, *, temporary: bool = False) -> Iterator[Path]:
        try:
            names = sorted(os.listdir(self.directory))
        except OSError:
            return
        for name in names:
            left = name.startswith(".") and name.endswith((".tmp", ".lock")) and SUFFIX in name
            if name.endswith(SUFFIX) or (temporary and left):
                path = self.directory / name
                if path.is_file() and not path.is_symlink():
                    yield path

    # -- opening

    def _eligible(self, name: str) -> os.stat_result | None:
        try:
            info = os.stat(name)
        except OSError:
            return None
        if not stat.S_ISREG(info.st_mode) or info.st_size < self.min_bytes:
            return None
        return info

    def open(self, path: str | os.PathLike[str]) -> CachedEstate | None:
        """The entry of the snapshot ``path`` when it is sound, current and the file has not
        changed since it was written (see the module's notes); else None (the reason is kept for
        the note :meth:`load` gives when it rebuilds the entry)."""
        name = os.fspath(path)
        info = self._eligible(name)
        if info is None:
            return None
        entry = self.entry_path(name)
        if not (entry.is_file() and _private(entry.parent, create=False)):
            return None
        try:
            return self._open(entry, name, info)
        except _Stale as stale:
            self._why[name] = str(stale)
            return None

    def _open(self, entry: Path, name: str, info: os.stat_result) -> CachedEstate:
        try:
            with open(entry, "rb") as fh:
                data = _map(fh.fileno())
        except (OSError, ValueError) as exc:
            raise _Stale(f"its cache entry could not be read ({type(exc).__name__})") from None
        try:
            lead, head = _head_of(data)
            small = self._trusted(entry, name, info, lead, head)
        except BaseException:
            _unmap(data)
            raise
        return CachedEstate(name, head, data, small, entry, self.note)

    def _trusted(
        self, entry: Path, name: str, info: os.stat_result, lead: _Lead, head: _Head
    ) -> dict[str, bytes]:
        """The small sections' bytes, once the snapshot is known to be the one cached."""
        if (lead.size, lead.mtime_ns) != (info.st_size, info.st_mtime_ns):
            raise _Stale("the snapshot changed since it was cached")
        try:
            quick, small = _quick_digest(name, info.st_size, head.small)
        except OSError as exc:
            raise _Stale(f"the snapshot could not be read ({exc.strerror or exc})") from None
        if quick != head.quick:
            raise _Stale("the snapshot changed since it was cached")
        if (lead.ctime_ns, lead.ino, lead.dev) != (info.st_ctime_ns, info.st_ino, info.st_dev):
            # written, touched or replaced since: only the whole content can tell
            if _sha256(name) != head.digest:
                raise _Stale("the snapshot changed since it was cached")
            with contextlib.suppress(OSError):
                _restamp(entry, info)
        return small

    # -- loading

    def load(self, path: str | os.PathLike[str], load: Callable[[str], Snapshot]) -> Snapshot:
        """The snapshot ``path`` names, loaded by ``load(path)``; when it is a snapshot file large
        enough and its entry is missing or stale, the entry is written (with a note saying why it
        was stale). Errors of ``load`` propagate unchanged; the cache's own never do."""
        name = os.fspath(path)
        info = self._eligible(name)
        if info is None or self.indexer is None:
            return load(name)
        opened = self.open(name)
        if opened is not None:
            opened.close()
            return load(name)
        why = self._why.pop(name, None)
        return self._build(self.entry_path(name), name, info, load, why)

    # -- building

    def _build(
        self,
        entry: Path,
        name: str,
        info: os.stat_result,
        load: Callable[[str], Snapshot],
        why: str | None,
    ) -> Snapshot:
        assert self.indexer is not None
        if why is not None:
            self._say(f"{name}: {why}; rebuilding the cache")
        hasher = _Hasher(name)  # hashed while the loader parses
        hasher.start()
        try:
            snapshot = load(name)
        finally:
            digest = hasher.result()
        if type(snapshot) is not Snapshot or digest is None:
            return snapshot  # an export or a folder: not cached
        try:
            if _identity(os.stat(name)) != _identity(info):
                return snapshot  # changed while it was read: cache nothing
            if not _private(entry.parent, create=True):
                raise PermissionError(
                    0, "the folder is shared (not this user's own, or writable by others)"
                )
            claim = _claim(entry)
        except OSError as exc:
            self._say(f"cannot write the cache in {self.directory}: {exc.strerror or exc}")
            return snapshot
        if claim is None:
            return snapshot  # another command is writing this entry now
        try:
            if not (
                self.background
                and _spawned(lambda: self._make(entry, name, info, snapshot, digest))
            ):
                self._make(entry, name, info, snapshot, digest)
        finally:
            os.close(claim)  # a background writer holds its own copy until it is done
        return snapshot

    def _make(
        self, entry: Path, name: str, info: os.stat_result, snapshot: Snapshot, digest: str
    ) -> None:
        """Write the entry of ``snapshot`` (loaded from ``name``, whose stat was ``info`` and
        SHA-256 ``digest``); problems are notes, never errors."""
        try:
            small = _small_sections(snapshot, name)
            if small is None:
                return
            quick, _bytes = _quick_digest(name, info.st_size, small)
            # the collector off while an entry is made: its tables are millions of containers
            # without a cycle, which young collections would walk again and again
            with paused():
                self._write_entry(entry, name, info, snapshot, digest, small, quick)
        except OSError as exc:
            self._say(f"cannot write the cache in {self.directory}: {exc.strerror or exc}")
        except (msgspec.EncodeError, OverflowError, TypeError, ValueError):
            pass  # a value msgpack cannot hold (an integer beyond 64 bits): not cached

    def _write_entry(
        self,
        entry: Path,
        name: str,
        info: os.stat_result,
        snapshot: Snapshot,
        digest: str,
        small: dict[str, tuple[int, int]],
        quick: str,
    ) -> None:
        assert self.indexer is not None
        tables = self.indexer(snapshot)
        meta = _Meta(
            snapshotVersion=snapshot.snapshotVersion,
            collectedAt=snapshot.collectedAt,
            tenantId=snapshot.tenantId,
            warnings=snapshot.warnings,
            positions=snapshot.positions,
            present=None if snapshot.present is None else sorted(snapshot.present),
            counts={key: len(getattr(snapshot, key)) for key in BULK_SECTIONS},
        )
        head = _Head(
            version=__version__,
            schema=_schema(),
            layout=tables.layout,
            source=os.path.realpath(name),
            digest=digest,
            quick=quick,
            small=small,
            meta=meta,
            blocks={},
            tables={},
        )
        with tables.writing() if tables.writing is not None else contextlib.nullcontext():
            _write(entry, info, head, tables)

    def _say(self, text: str) -> None:
        if self.note is not None:
            self.note(text)


def _claim(entry: Path) -> int | None:
    """A descriptor holding the lock on writing ``entry`` (an exclusive ``flock`` of a lock file
    beside it), or None when another process holds it: commands that load the snapshot while its
    entry is being written go on without writing one more (no lock where ``fcntl`` is missing)."""
    lock = entry.parent / f".{entry.name}.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return fd
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _spawned(work: Callable[[], None]) -> bool:
    """Run ``work`` in a background process (a grandchild, so that nobody has to wait for it:
    its standard streams on ``/dev/null``, so that a pipe reading this command's output ends when
    the command does; at a lower priority); False when this system cannot fork. The process sees
    this one's memory as it was (copy-on-write), so it needs no copy of the estate."""
    fork = getattr(os, "fork", None)
    if fork is None:
        return False
    try:
        pid = fork()
    except OSError:
        return False
    if pid:
        with contextlib.suppress(OSError):
            os.waitpid(pid, 0)
        return True
    try:  # the child: hands the work on and leaves at once
        if fork() == 0:
            try:
                devnull = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(devnull, fd)
                # fresh stream objects: another thread (a progress display) may have held the
                # old ones' locks at the fork, and a note written through them would never end
                sys.stdout = sys.stderr = open(devnull, "w", closefd=False)  # noqa: SIM115
                with contextlib.suppress(OSError):
                    os.nice(10)
                work()
            finally:
                os._exit(0)
    finally:
        os._exit(0)


def _identity(info: os.stat_result) -> tuple[int, int, int, int, int]:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _map(fd: int) -> memoryview:
    if os.fstat(fd).st_size == 0:
        return memoryview(b"")
    return memoryview(mmap.mmap(fd, 0, access=mmap.ACCESS_READ))


def _unmap(data: memoryview) -> None:
    mapped = data.obj
    with contextlib.suppress(BufferError):
        data.release()
        if isinstance(mapped, mmap.mmap):
            mapped.close()


def _head_of(data: memoryview) -> tuple[_Lead, _Head]:
    """The lead and head of an entry's bytes, checked (:class:`_Stale` when they are not sound or
    not this version's)."""
    try:
        lead = msgspec.msgpack.decode(data[:_LEAD_BYTES], type=_Lead)
    except (msgspec.DecodeError, msgspec.ValidationError):
        magic = _MAGIC.encode()
        if bytes(data[1 : 2 + len(magic)]) == bytes([0xA0 | len(magic)]) + magic:
            raise _Stale("its cache entry was written by another version of the tool") from None
        raise _Stale("its cache entry is damaged") from None
    if lead.magic != _MAGIC:
        raise _Stale("its cache entry is damaged")
    if lead.format != CACHE_FORMAT:
        raise _Stale(f"its cache entry was written by another version (format {lead.format})")
    if lead.total != len(data):
        raise _Stale("its cache entry is damaged (truncated)")
    view = data[lead.head_offset : lead.head_offset + lead.head_length]
    if len(view) != lead.head_length or zlib.crc32(view) != lead.head_crc:
        raise _Stale("its cache entry is damaged (checksum)")
    try:
        head = msgspec.msgpack.decode(view, type=_Head)
    except (msgspec.DecodeError, msgspec.ValidationError):
        raise _Stale("its cache entry is damaged") from None
    if (head.version, head.schema) != (__version__, _schema()):
        raise _Stale(f"its cache entry was written by another version ({head.version})")
    return lead, head


def _restamp(entry: Path, info: os.stat_result) -> None:
    """Put the snapshot's current stat fields in the entry's lead (in place: fixed width)."""
    fd = os.open(entry, os.O_WRONLY | os.O_CLOEXEC)
    try:
        stamp = _stat_bytes(
            info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev
        )
        os.pwrite(fd, stamp, _STAT_AT)
    finally:
        os.close(fd)


def _quick_digest(
    name: str, size: int, small: dict[str, tuple[int, int]]
) -> tuple[str, dict[str, bytes]]:
    """The quick digest of the snapshot file (its first and last :data:`_QUICK` bytes, its small
    sections' bytes) and those sections' bytes."""
    h = hashlib.sha256()
    found: dict[str, bytes] = {}
    fd = os.open(name, os.O_RDONLY | os.O_CLOEXEC)
    try:
        h.update(os.pread(fd, _QUICK, 0))
        h.update(os.pread(fd, _QUICK, max(0, size - _QUICK)))
        for key, (at, length) in sorted(small.items(), key=lambda kv: kv[1][0]):
            raw = os.pread(fd, length, at)
            if len(raw) != length:
                raise OSError(0, "the snapshot is shorter than when it was cached")
            h.update(raw)
            found[key] = raw
    finally:
        os.close(fd)
    return h.hexdigest(), found


def _sha256(name: str) -> str | None:
    hasher = _Hasher(name)
    hasher.run()
    return hasher.digest


class _Hasher(threading.Thread):
    """The SHA-256 of a file, computed in a thread (``hashlib`` releases the interpreter lock on
    large buffers, so the hashing runs beside the loading on another core)."""

    def __init__(self, name: str) -> None:
        super().__init__(name="auditor-cache-hash", daemon=True)
        self.path = name
        self.digest: str | None = None

    def run(self) -> None:
        try:
            h = hashlib.sha256()
            buffer = bytearray(_HASH_CHUNK)
            view = memoryview(buffer)
            with open(self.path, "rb", buffering=0) as fh:
                while n := fh.readinto(buffer):
                    h.update(view[:n])
            self.digest = h.hexdigest()
        except (OSError, ValueError):
            self.digest = None

    def result(self) -> str | None:
        self.join()
        return self.digest


def _small_sections(snapshot: Snapshot, name: str) -> dict[str, tuple[int, int]] | None:
    """Where each small section of ``snapshot`` lies in the file (offsets in the file's bytes),
    checked by decoding them from there: None when they do not give back what was loaded."""
    with open(name, "rb") as fh:
        data = _map(fh.fileno())
    try:
        start = len(UTF8_BOM) if data[: len(UTF8_BOM)] == UTF8_BOM else 0
        try:
            top = msgspec.json.decode(data[start:], type=dict[str, msgspec.Raw])
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            return None
        found: dict[str, tuple[int, int]] = {}
        floor = start  # sections lie in file order, one after another: search from the last end
        mapped = data.obj
        for key, raw in top.items():
            length = len(raw)
            if key in _SMALL:
                needle = bytes(raw)
                if isinstance(mapped, mmap.mmap):
                    at = mapped.find(needle, floor)
                else:
                    at = bytes(data).find(needle, floor)
                if at < 0:
                    return None
                found[key] = (at, length)
                floor = at + length
            else:
                floor += length
        del top
    finally:
        _unmap(data)
    try:
        _quick, raw_small = _quick_digest(name, os.stat(name).st_size, found)
        top2 = {k: msgspec.Raw(v) for k, v in raw_small.items()}
        again = _snapshot._from_sections(top2, b"", name)
    except (InputError, OSError):
        return None
    if any(getattr(again, key) != getattr(snapshot, key) for key in _SMALL):
        return None
    return found


def _private(directory: Path, *, create: bool) -> bool:
    """Whether ``directory`` (created 0700 when ``create``) belongs to this user and nobody else
    can write to it: entries from a shared folder are never read nor written."""
    if create:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        info = directory.stat()
    except OSError:
        return False
    getuid = getattr(os, "getuid", None)
    owner_ok = getuid is None or info.st_uid == getuid()
    return stat.S_ISDIR(info.st_mode) and owner_ok and not info.st_mode & 0o022


def _write(entry: Path, info: os.stat_result, head: _Head, tables: Tables) -> None:
    """The entry (lead, blocks, buckets, head: see the module's notes) to ``entry`` through a
    temporary file (mode 0600) and a rename; blocks are encoded and written one at a time."""
    if not _private(entry.parent, create=True):
        raise PermissionError(
            0, "the folder is shared (not this user's own, or writable by others)"
        )
    fd, tmp = tempfile.mkstemp(prefix=f".{entry.name}.", suffix=".tmp", dir=entry.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(bytes(_LEAD_BYTES))
            at = _LEAD_BYTES
            encode = msgspec.msgpack.Encoder().encode

            def put(value: Any) -> Ref:
                nonlocal at
                data = encode(value)
                fh.write(data)
                ref = (at, len(data), zlib.crc32(data))
                at += len(data)
                return ref

            for name, value in tables.blocks.items():
                head.blocks[name] = put(value)
            for name, table in tables.tables.items():
                per = max(1, tables.per_bucket.get(name, 16))
                count = max(1, -(-len(table) // per))
                buckets: list[dict[str, Any]] = [{} for _ in range(count)]
                for key, value in table.items():
                    buckets[_bucket_of(key, count)][key] = value
                refs = b"".join(_REF.pack(*put(bucket)) for bucket in buckets)
                head.tables[name] = put(refs)
                del buckets
            data = encode(head)
            fh.write(data)
            lead = _Lead(
                _MAGIC,
                CACHE_FORMAT,
                at,
                len(data),
                zlib.crc32(data),
                at + len(data),
                info.st_size,
                info.st_mtime_ns,
                info.st_ctime_ns,
                info.st_ino,
                info.st_dev,
            )
            fh.seek(0)
            fh.write(_lead_bytes(lead))
        os.replace(tmp, entry)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _describe(path: Path, size: int) -> CacheEntry:
    try:
        with open(path, "rb") as fh:
            data = _map(fh.fileno())
        try:
            lead = msgspec.msgpack.decode(data[:_LEAD_BYTES], type=_Lead)
            if lead.magic != _MAGIC or lead.format != CACHE_FORMAT:
                return CacheEntry(path, size, None, None, None, False)
            view = data[lead.head_offset : lead.head_offset + lead.head_length]
            head = msgspec.msgpack.decode(view, type=_Head)
            current = (head.version, head.schema) == (__version__, _schema())
            return CacheEntry(path, size, head.source, lead.size, head.version, current)
        finally:
            _unmap(data)
    except (OSError, ValueError, msgspec.DecodeError, msgspec.ValidationError):
        return CacheEntry(path, size, None, None, None, False)
