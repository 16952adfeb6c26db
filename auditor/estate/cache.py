"""The persistent cache of loaded snapshots: the first command that loads a large snapshot writes
what it loaded to a cache directory; later commands on the same, unchanged file decode that instead
of parsing the JSON.

One entry per snapshot path (its name is a digest of the real path): one msgpack array (decoded
with ``msgspec``) holding the tool's version, the cache format and the record schema, the
snapshot's real path, size, modification time and SHA-256, then a list of chunks (msgpack ``bin``
values, each itself msgpack) and a CRC-32 of the chunks. The first chunk holds what the loader kept
beside the records (warnings, merge positions, unknown keys, where each small section lies in the
snapshot file); each other chunk up to :data:`CHUNK_RECORDS` records of one bulk section (the
loader's compact records, :mod:`auditor.estate.records`). Chunks are encoded and written one at a
time, and decoded one at a time with their strings shared at once (as the JSON loader does), so
neither side holds a second copy of the estate; a role assignment's id made of its scope and name is
left out and made again (a sixth of the bytes). The small sections (role definitions, clusters,
domains, health events, developer tooling) are the ones that can hold secrets (passwords, storage
keys, tokens): they are never written to the cache, but decoded again from the snapshot itself,
which is read in any case to check its hash.

What it saves, and what it does not: decoding a million records from msgpack and sharing their
strings costs about what msgspec's JSON path costs (the time is in making the Python objects, not
in parsing), so on the largest estates a hit is no faster than the JSON (``benchmarks/
bench_cache.py``); only decoding less than the whole estate (per-scope and per-principal blocks the
access engine would read on demand) would answer one question without it.

The cache is never trusted over the snapshot: an entry is used only when the snapshot's size,
modification time and content hash (read in full, in a thread beside the decoding: ``hashlib``
gives the interpreter lock back while it hashes) match, and the entry passes its own checksum, was
written by this version of the tool, this cache format and these record classes. Otherwise the
snapshot is loaded from its JSON and the entry written again, with one note saying why. Entries are
written to a temporary name (mode 0600) and renamed into place, so two commands building at once
each leave a whole entry and a reader never sees half of one.

Snapshots smaller than :data:`MIN_BYTES` are not cached (their JSON loads as fast as the cache would);
nor are inputs that are not a snapshot file (exports, HAR files, folders: see
:func:`auditor.sources.load_estate`), whose records carry provenance the cache does not keep.
"""

from __future__ import annotations

import contextlib
import hashlib
import mmap
import os
import stat
import tempfile
import threading
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from auditor import __version__
from auditor._resources import cache_folder_path
from auditor.errors import InputError
from auditor.estate import snapshot as _snapshot
from auditor.estate._files import UTF8_BOM
from auditor.estate.records import (
    BULK_SECTIONS,
    intern_strings,
)
from auditor.estate.snapshot import SECTION_ORDER, Snapshot

__all__ = [
    "CACHE_FORMAT",
    "MIN_BYTES",
    "CacheEntry",
    "EstateCache",
    "default_cache_directory",
]

CACHE_FORMAT = 1
"""The layout of an entry; entries of another layout are rebuilt."""
MIN_BYTES = 1 << 20
"""Snapshots smaller than this are loaded from their JSON, never cached."""
SUFFIX = ".estate.msgpack"
_MAGIC = "auditor-estate-cache"
_SMALL = tuple(key for key in SECTION_ORDER if key not in BULK_SECTIONS)
"""The sections decoded from the snapshot itself on a hit (the ones that can hold secrets)."""
_HASH_CHUNK = 8 << 20
CHUNK_RECORDS = 20_000
"""Records of one bulk section in a chunk."""


def default_cache_directory() -> Path:
    """The user's cache folder (:func:`auditor._resources.user_cache_dir`: ``$AUDITOR_CACHE_DIR``,
    else ``$XDG_CACHE_HOME/auditor``, else ``~/.cache/auditor``)."""
    return cache_folder_path()


def _schema() -> str:
    """A digest of the record classes' fields: entries written by other record classes (a code
    change without a version change) are rebuilt."""
    parts = []
    for cls in (*BULK_SECTIONS.values(), *_nested_records()):
        fields = msgspec.structs.fields(cls)
        parts.append(f"{cls.__name__}:" + ",".join(f"{f.name}={f.type!r}" for f in fields))
    return hashlib.blake2b("|".join(parts).encode(), digest_size=8).hexdigest()


def _nested_records() -> tuple[type[Any], ...]:
    from auditor.estate import records

    return (
        records.PrincipalRecord,
        records.DenyPermissionRecord,
        records.DenyAssignmentPropertiesRecord,
        records.RoleAssignmentPropertiesRecord,
    )


class _Head(msgspec.Struct, array_like=True):
    """The first fields of every entry, of any format: enough to tell whose it is."""

    magic: str
    format: int
    version: str
    schema: str


class _Entry(msgspec.Struct, array_like=True):
    magic: str
    format: int
    version: str
    schema: str
    source: str
    """The snapshot's real path."""
    size: int
    mtime_ns: int
    digest: str
    """SHA-256 of the snapshot's bytes."""
    chunks: list[memoryview]
    """The encoded :class:`_Meta`, then the bulk sections' chunks (views of the entry's bytes)."""
    checksum: int
    """CRC-32 of the chunks, one after another."""


class _Meta(msgspec.Struct, omit_defaults=True):
    snapshotVersion: int
    collectedAt: str | None = None
    tenantId: str | None = None
    sections: list[str] = []
    """The bulk section of each chunk after this one."""
    small: dict[str, tuple[int, int]] = {}
    """Offset and length of each small section in the snapshot file's bytes."""
    extra: dict[str, bytes] = {}
    preserved: dict[str, dict[int, Any]] = {}
    warnings: list[str] = []
    positions: dict[str, list[int]] = {}
    present: list[str] | None = None
    blank_ids: list[int] = []
    """The role assignments whose id is really empty (see :func:`_ra_chunk`)."""


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


@dataclass
class EstateCache:
    """A cache directory of loaded snapshots.

    >>> cache = EstateCache(Path("~/.cache/auditor").expanduser())   # doctest: +SKIP
    >>> snapshot = cache.load("estate.json", load_snapshot)           # doctest: +SKIP

    ``note`` receives one line when an entry is rebuilt or cannot be written (the command line
    prints it on standard error); ``min_bytes``: smaller snapshots are not cached.
    """

    directory: Path
    note: Callable[[str], None] | None = None
    min_bytes: int = MIN_BYTES

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
        """Delete every entry (and temporary file left by an interrupted write); the number of
        files and bytes deleted. Other files in the directory are left alone."""
        files = freed = 0
        for path in self._files(temporary=True):
            with contextlib.suppress(OSError):
                size = path.stat().st_size
                path.unlink()
                files += 1
                freed += size
        return files, freed

    def _files(self, *, temporary: bool = False) -> Iterator[Path]:
        try:
            names = sorted(os.listdir(self.directory))
        except OSError:
            return
        for name in names:
            left = name.startswith(".") and name.endswith(".tmp") and SUFFIX in name
            if name.endswith(SUFFIX) or (temporary and left):
                path = self.directory / name
                if path.is_file() and not path.is_symlink():
                    yield path

    # -- loading

    def load(self, path: str | os.PathLike[str], load: Callable[[str], Snapshot]) -> Snapshot:
        """The snapshot ``path`` names: from its entry when the entry is sound and the file has
        not changed, else ``load(path)`` (writing the entry when what it gave is a snapshot file's
        estate). Errors of ``load`` propagate unchanged; the cache's own never do."""
        name = os.fspath(path)
        try:
            info = os.stat(name)
        except OSError:
            return load(name)
        if not stat.S_ISREG(info.st_mode) or info.st_size < self.min_bytes:
            return load(name)
        entry = self.entry_path(name)
        why: str | None = None
        if entry.is_file() and _private(entry.parent, create=False):
            try:
                return self._read(entry, name, info)
            except _Stale as stale:
                why = str(stale)
        return self._build(entry, name, info, load, why)

    def _read(self, entry: Path, name: str, info: os.stat_result) -> Snapshot:
        try:
            with open(entry, "rb") as fh, _mapped(fh.fileno()) as data:
                return self._decode(data, name, info)
        except _Stale:
            raise
        except (OSError, ValueError) as exc:
            raise _Stale(f"its cache entry could not be read ({type(exc).__name__})") from None

    def _decode(self, data: memoryview, name: str, info: os.stat_result) -> Snapshot:
        try:
            head = msgspec.msgpack.decode(data, type=_Head)
        except (msgspec.DecodeError, msgspec.ValidationError):
            raise _Stale("its cache entry is damaged") from None
        if head.magic != _MAGIC:
            raise _Stale("its cache entry is damaged")
        if (head.format, head.version, head.schema) != (CACHE_FORMAT, __version__, _schema()):
            raise _Stale(f"its cache entry was written by another version ({head.version})")
        try:
            top = msgspec.msgpack.decode(data, type=_Entry)
        except (msgspec.DecodeError, msgspec.ValidationError):
            raise _Stale("its cache entry is damaged") from None
        if (top.size, top.mtime_ns) != (info.st_size, info.st_mtime_ns):
            raise _Stale("the snapshot changed since it was cached")
        # the snapshot's hash is checked in a thread while the entry is checked and decoded
        hasher = _Hasher(name)
        hasher.start()
        try:
            crc = 0
            for chunk in top.chunks:
                crc = zlib.crc32(chunk, crc)
            if crc != top.checksum or not top.chunks:
                raise _Stale("its cache entry is damaged (checksum)")
            try:
                snap, small = _assemble(top.chunks, name, data)
            except (msgspec.DecodeError, msgspec.ValidationError, LookupError, TypeError):
                raise _Stale("its cache entry is damaged") from None
        finally:
            digest = hasher.result()
        if digest is None or digest != top.digest:
            raise _Stale("the snapshot changed since it was cached")
        _share_small(snap, name, small)
        return snap

    # -- building

    def _build(
        self,
        entry: Path,
        name: str,
        info: os.stat_result,
        load: Callable[[str], Snapshot],
        why: str | None,
    ) -> Snapshot:
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
            after = os.stat(name)
            if _identity(after) != _identity(info):
                return snapshot  # changed while it was read: cache nothing
            small = _small_sections(snapshot, name)
            if small is None:
                return snapshot
            head = [
                _MAGIC,
                CACHE_FORMAT,
                __version__,
                _schema(),
                os.path.realpath(name),
                info.st_size,
                info.st_mtime_ns,
                digest,
            ]
            _write(entry, head, _chunk_count(snapshot), _chunks(snapshot, small))
        except OSError as exc:
            self._say(f"cannot write the cache in {self.directory}: {exc.strerror or exc}")
        except (msgspec.EncodeError, OverflowError, TypeError, ValueError):
            pass  # a value msgpack cannot hold (an integer beyond 64 bits): not cached
        return snapshot

    def _say(self, text: str) -> None:
        if self.note is not None:
            self.note(text)


def _identity(info: os.stat_result) -> tuple[int, int, int, int]:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


@contextlib.contextmanager
def _mapped(fd: int) -> Iterator[memoryview]:
    """A read-only map of the file ``fd`` as a memoryview (released on exit); an empty file is
    an empty view."""
    if os.fstat(fd).st_size == 0:
        yield memoryview(b"")
        return
    mapped = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    view = memoryview(mapped)
    try:
        yield view
    finally:
        with contextlib.suppress(BufferError):  # views still held (a traceback's frames)
            view.release()
            mapped.close()


class _Hasher(threading.Thread):
    """The SHA-256 of a file, computed in a thread (``hashlib`` releases the interpreter lock on
    large buffers, so the hashing runs beside the decoding on another core)."""

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


def _chunk_count(snapshot: Snapshot) -> int:
    return 1 + sum(-(-len(getattr(snapshot, key)) // CHUNK_RECORDS) for key in BULK_SECTIONS)


def _chunks(snapshot: Snapshot, small: dict[str, tuple[int, int]]) -> Iterator[bytes]:
    """The encoded chunks of an entry: what the loader kept, then the bulk sections (one chunk
    encoded at a time)."""
    sections = [
        key for key in BULK_SECTIONS for _ in range(0, len(getattr(snapshot, key)), CHUNK_RECORDS)
    ]
    yield msgspec.msgpack.encode(
        _Meta(
            snapshotVersion=snapshot.snapshotVersion,
            collectedAt=snapshot.collectedAt,
            tenantId=snapshot.tenantId,
            sections=sections,
            small=small,
            extra=snapshot.extra,
            preserved=snapshot.preserved,
            warnings=snapshot.warnings,
            positions=snapshot.positions,
            present=None if snapshot.present is None else sorted(snapshot.present),
            blank_ids=[i for i, ra in enumerate(snapshot.roleAssignments) if not ra.id],
        )
    )
    encode = msgspec.msgpack.Encoder().encode
    for key in BULK_SECTIONS:
        records = getattr(snapshot, key)
        for start in range(0, len(records), CHUNK_RECORDS):
            chunk = records[start : start + CHUNK_RECORDS]
            yield _ra_chunk(chunk, encode) if key == "roleAssignments" else encode(chunk)


_RA_INFIX = "/providers/Cloud.Authorization/roleAssignments/"


def _ra_chunk(records: list[Any], encode: Callable[[Any], bytes]) -> bytes:
    """Role assignments encoded with each id that is its scope, :data:`_RA_INFIX` and its name
    left empty (a sixth of the bytes; :func:`_restore_ids` makes it again). The records are
    changed only while they are encoded."""
    derived: list[tuple[Any, str]] = []
    for record in records:
        name = record.name
        if name is not None and record.id == f"{record.properties.scope}{_RA_INFIX}{name}":
            derived.append((record, record.id))
            record.id = ""
    try:
        return encode(records)
    finally:
        for record, rid in derived:
            record.id = rid


def _restore_ids(records: list[Any]) -> None:
    for record in records:
        if not record.id and record.name is not None:
            record.id = f"{record.properties.scope}{_RA_INFIX}{record.name}"


def _small_sections(snapshot: Snapshot, name: str) -> dict[str, tuple[int, int]] | None:
    """Where each small section of ``snapshot`` lies in the file (offsets in the file's bytes),
    checked by decoding them from there: None when they do not give back what was loaded."""
    with open(name, "rb") as fh, _mapped(fh.fileno()) as data:
        start = len(UTF8_BOM) if data[: len(UTF8_BOM)] == UTF8_BOM else 0
        try:
            top = msgspec.json.decode(data[start:], type=dict[str, msgspec.Raw])
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            return None
        found: dict[str, tuple[int, int]] = {}
        floor = start  # sections lie in file order, one after another: search from the last end
        for key, raw in top.items():
            length = len(raw)
            if key in _SMALL:
                at = _find(data, bytes(raw), floor)
                if at < 0:
                    return None
                found[key] = (at, length)
                floor = at + length
            else:
                floor += length
        del top
        _release(data)
    try:
        again = _small_from(name, found)
    except InputError:
        return None
    if any(getattr(again, key) != getattr(snapshot, key) for key in _SMALL):
        return None
    return found


def _find(data: memoryview, needle: bytes, start: int) -> int:
    mapped = data.obj
    if isinstance(mapped, mmap.mmap):
        return mapped.find(needle, start)
    return bytes(data).find(needle, start)


def _small_from(name: str, where: dict[str, tuple[int, int]]) -> Snapshot:
    """A snapshot holding only the small sections, read from their places in the file ``name``
    and decoded as the loader decodes them."""
    top: dict[str, Any] = {}
    if where:
        fd = os.open(name, os.O_RDONLY | os.O_CLOEXEC)
        try:
            for key, (at, length) in where.items():
                top[key] = msgspec.Raw(os.pread(fd, length, at))
        finally:
            os.close(fd)
    return _snapshot._from_sections(top, b"", name)


def _assemble(
    chunks: list[memoryview], name: str, data: memoryview
) -> tuple[Snapshot, dict[str, tuple[int, int]]]:
    """The snapshot of an entry's chunks (the small sections are read later, once the snapshot's
    hash is known to match: :func:`_share_small`). Each chunk's strings are shared as soon as it is
    decoded, and the pages of the chunks decoded are given back as it goes."""
    meta = msgspec.msgpack.decode(chunks[0], type=_Meta)
    if len(meta.sections) != len(chunks) - 1:
        raise msgspec.DecodeError("chunks and sections disagree")
    snap = Snapshot(
        snapshotVersion=meta.snapshotVersion,
        collectedAt=meta.collectedAt,
        tenantId=meta.tenantId,
        extra=meta.extra,
        preserved=meta.preserved,
        source=name,
        warnings=meta.warnings,
        positions=meta.positions,
        present=None if meta.present is None else frozenset(meta.present),
    )
    decoders = {
        key: msgspec.msgpack.Decoder(list[cls])  # type: ignore[valid-type]
        for key, cls in BULK_SECTIONS.items()
    }
    done = len(chunks[0])
    for key, chunk in zip(meta.sections, chunks[1:], strict=True):
        records = decoders[key].decode(chunk)
        intern_strings(key, records)
        if key == "roleAssignments":
            _restore_ids(records)
        getattr(snap, key).extend(records)
        done += len(chunk)
        _release(data, done)
    for index in meta.blank_ids:
        snap.roleAssignments[index].id = ""
    return snap, meta.small


def _share_small(snap: Snapshot, name: str, where: dict[str, tuple[int, int]]) -> None:
    """Put the small sections, decoded from the snapshot file itself, into ``snap``."""
    if where:
        small = _small_from(name, where)
        for key in _SMALL:
            setattr(snap, key, getattr(small, key))


def _release(data: memoryview, upto: int | None = None) -> None:
    """Give back the pages of a read-only map up to ``upto`` (all by default): they are read
    again from the file if touched again, so this only keeps resident memory down."""
    mapped = data.obj
    if not isinstance(mapped, mmap.mmap):
        return
    length = len(mapped) if upto is None else upto - upto % mmap.PAGESIZE
    if length > 0:
        with contextlib.suppress(OSError, ValueError):
            mapped.madvise(mmap.MADV_DONTNEED, 0, min(length, len(mapped)))


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


def _write(entry: Path, head: list[Any], count: int, chunks: Iterator[bytes]) -> None:
    """The entry (``head``'s values, the chunks, their CRC-32: one msgpack array, see
    :class:`_Entry`) to ``entry`` through a temporary file (mode 0600) and a rename. The chunks are
    written as they come: their list and each ``bin`` get msgpack's 32-bit length headers, so
    nothing is joined in memory."""
    if not _private(entry.parent, create=True):
        raise PermissionError(
            0, "the folder is shared (not this user's own, or writable by others)"
        )
    fd, tmp = tempfile.mkstemp(prefix=f".{entry.name}.", suffix=".tmp", dir=entry.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            prefix = msgspec.msgpack.encode(head)
            fh.write(bytes([0x90 | (len(head) + 2)]) + prefix[1:])  # fixarray of head + 2
            fh.write(b"\xdd" + count.to_bytes(4, "big"))  # array 32
            crc = 0
            written = 0
            for chunk in chunks:
                written += 1
                fh.write(b"\xc6" + len(chunk).to_bytes(4, "big"))  # bin 32
                fh.write(chunk)
                crc = zlib.crc32(chunk, crc)
            fh.write(msgspec.msgpack.encode(crc))
        if written != count:
            raise ValueError("the chunks counted and written differ")
        os.replace(tmp, entry)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _describe(path: Path, size: int) -> CacheEntry:
    try:
        with open(path, "rb") as fh, _mapped(fh.fileno()) as data:
            head = msgspec.msgpack.decode(data, type=_Head)
            current = (head.magic, head.format, head.version, head.schema) == (
                _MAGIC,
                CACHE_FORMAT,
                __version__,
                _schema(),
            )
            if head.magic == _MAGIC and head.format == CACHE_FORMAT:
                top = msgspec.msgpack.decode(data, type=_Entry)
                source, snapshot_bytes = top.source, top.size
                del top
            else:
                source, snapshot_bytes = None, None
            return CacheEntry(path, size, source, snapshot_bytes, head.version, current)
    except (OSError, ValueError, msgspec.DecodeError, msgspec.ValidationError):
        return CacheEntry(path, size, None, None, None, False)
