"""Reading input files with a clear message for every way they can be unusable, and writing output
files atomically (a reader never sees half a file; nothing the user gave is overwritten).

Inputs are regular files: a directory, a device (``/dev/zero`` would be read forever), a named pipe
(its writer may never come), a socket is refused with exit code 2 before anything is read. Outputs
replace a regular file atomically; a device, a pipe or a process's open file (``/dev/stdout``,
``/dev/null``) is written to in place, and a directory is refused.
"""

from __future__ import annotations

import codecs
import contextlib
import mmap
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from auditor.errors import InputError

_CHUNK = 1 << 24
UTF8_BOM = codecs.BOM_UTF8

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
)


def file_kind(mode: int) -> str:
    """``"a directory"``, ``"a named pipe"``, ... for a ``st_mode`` that is not a regular file."""
    for test, words in _KINDS:
        if test(mode):
            return words
    return "not a regular file"


_INPUTS: set[tuple[int, int, int, int]] = set()
"""The regular files read as inputs since :func:`track_inputs` (device, inode, size, modification
time): :func:`write_atomic` never writes over one of them, so no input is lost to an output path
that names it (``-o json=estate.json`` after ``--snapshot estate.json``)."""
_TRACKING = [False]


def _identity(info: os.stat_result) -> tuple[int, int, int, int]:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


@contextlib.contextmanager
def tracking_inputs() -> Iterator[None]:
    """A run whose inputs no output may be written over: the files read inside count as its
    inputs (the CLI runs each command inside one, so in-process runs in a row do not see each
    other's inputs). A library caller that loads a file and saves it back with ``overwrite=True``
    runs outside one."""
    _INPUTS.clear()
    _TRACKING[0] = True
    try:
        yield
    finally:
        _TRACKING[0] = False
        _INPUTS.clear()


def open_input(name: str, *, what: str = "file", pipes: bool = False) -> int:
    """A read-only descriptor of the regular file ``name`` (with ``pipes``, a pipe too), or an
    InputError: missing, unreadable, a directory, a device, a socket. Opening anything else never
    blocks (a named pipe without a writer would wait forever) and nothing is read."""
    flags = os.O_RDONLY | os.O_CLOEXEC
    with contextlib.suppress(OSError):
        if not (pipes and stat.S_ISFIFO(os.stat(name).st_mode)):
            flags |= os.O_NONBLOCK  # a pipe to stream waits for its writer, like `cat`
    try:
        fd = os.open(name, flags)
    except FileNotFoundError:
        raise InputError(f"no such {what}", source=name) from None
    except IsADirectoryError:
        raise InputError(f"expected a {what}, found a directory", source=name) from None
    except PermissionError:
        raise InputError(f"cannot read the {what}: permission denied", source=name) from None
    except OSError as exc:
        with contextlib.suppress(OSError):  # a socket cannot be opened: say what it is
            mode = os.stat(name).st_mode
            if not stat.S_ISREG(mode):
                raise InputError(
                    f"expected a {what} (a regular file), found {file_kind(mode)}", source=name
                ) from None
        raise InputError(f"cannot read the {what}: {exc.strerror}", source=name) from None
    info = os.fstat(fd)
    mode = info.st_mode
    if stat.S_ISREG(mode) or (pipes and stat.S_ISFIFO(mode)):
        os.set_blocking(fd, True)
        if stat.S_ISREG(mode) and _TRACKING[0]:
            _INPUTS.add(_identity(info))
        return fd
    os.close(fd)
    raise InputError(f"expected a {what} (a regular file), found {file_kind(mode)}", source=name)


def read_input_bytes(
    path: str | os.PathLike[str], *, what: str = "file", limit: int | None = None
) -> bytes:
    """The bytes of ``path``, refusing missing, unreadable, empty and non-UTF-8 files, and anything
    but a regular file, with a message. ``limit``: the most bytes the file may hold.

    A UTF-8 byte-order mark is dropped.
    """
    name = os.fspath(path)
    fd = open_input(name, what=what)
    try:
        with os.fdopen(fd, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if limit is not None and size > limit:
                raise InputError(
                    f"the {what} is too large: {size:,} bytes (at most {limit:,})", source=name
                )
            data = fh.read() if limit is None else fh.read(limit + 1)
    except OSError as exc:
        raise InputError(f"cannot read the {what}: {exc.strerror}", source=name) from None
    if limit is not None and len(data) > limit:
        raise InputError(f"the {what} is too large (more than {limit:,} bytes)", source=name)
    if data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM) :]
    if not data.strip():
        raise InputError(f"the {what} is empty; expected a JSON object", source=name)
    check_utf8(data, name)
    return data


def read_input_text(path: str | os.PathLike[str], *, what: str = "file", limit: int) -> str:
    """The text of the regular file ``path`` (UTF-8, at most ``limit`` bytes, a byte-order mark
    dropped); an empty file is the empty string. Errors name the file, and the line and column of
    a byte that is not UTF-8."""
    name = os.fspath(path)
    fd = open_input(name, what=what)
    try:
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise InputError(f"cannot read the {what}: {exc.strerror}", source=name) from None
    if len(data) > limit:
        raise InputError(f"the {what} is too large (more than {limit:,} bytes)", source=name)
    if data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM) :]
    check_utf8(data, name)
    return data.decode("utf-8")


MAP_BYTES = 64 << 20
"""Regular files larger than this are memory-mapped rather than read (see :func:`read_input`)."""

InputData = bytes | memoryview
"""What :func:`read_input` returns: the bytes, or a view of a read-only memory map."""


def read_input(path: str | os.PathLike[str], *, what: str = "file") -> InputData:
    """Like :func:`read_input_bytes`, but a large regular file is memory-mapped read-only.

    The pages of a mapping can be given back as they are consumed (:class:`Pager`), so the file's
    bytes need not sit in memory beside what is decoded from them. A UTF-8 byte-order mark is
    dropped.
    """
    name = os.fspath(path)
    try:
        info = os.stat(name)  # never blocks, not even on a named pipe
    except OSError:
        return read_input_bytes(name, what=what)  # the same careful messages
    if not stat.S_ISREG(info.st_mode) or info.st_size <= MAP_BYTES:
        return read_input_bytes(name, what=what)
    try:
        with os.fdopen(open_input(name, what=what), "rb") as fh:
            mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return read_input_bytes(name, what=what)
    view = memoryview(mapped)
    start = len(UTF8_BOM) if mapped[: len(UTF8_BOM)] == UTF8_BOM else 0
    if not mapped[start : start + 4096].strip():
        raise InputError(f"the {what} is empty; expected a JSON object", source=name)
    data = view[start:] if start else view
    # the pages checked stay mapped: the caller decodes the file next (a snapshot is split in
    # one pass right away) and gives them back as it goes; released here, each page would be
    # mapped in twice
    check_utf8(data, name)
    return data


class Pager:
    """Gives back the pages of a read-only memory map that have been consumed.

    Releasing is always safe: a released page that is read again is simply read from the file
    again. It only keeps the process's resident memory down while a large file is decoded.
    """

    def __init__(self, mapped: mmap.mmap) -> None:
        self.mapped = mapped
        self.released = 0

    @staticmethod
    def of(data: InputData) -> Pager | None:
        """The pager of ``data`` when it is a view of a memory map, else None."""
        if isinstance(data, memoryview) and isinstance(data.obj, mmap.mmap):
            return Pager(data.obj)
        return None

    def release_before(self, offset: int) -> None:
        aligned = offset - offset % mmap.PAGESIZE
        if aligned > self.released:
            with contextlib.suppress(OSError, ValueError):
                self.mapped.madvise(mmap.MADV_DONTNEED, self.released, aligned - self.released)
            self.released = aligned

    def release_all(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.mapped.madvise(mmap.MADV_DONTNEED)
        self.released = 0

    def locate(self, head: bytes, hint: int) -> int:
        """Where ``head`` (the first bytes of an item) next occurs from ``hint``, or -1."""
        return self.mapped.find(head, hint)


def check_utf8(data: InputData, source: str) -> None:
    """Raise an InputError naming line and column of the first byte that is not UTF-8.

    One pass in chunks: a chunk of plain ASCII is checked at memory speed, the others go through
    one incremental decoder (a sequence may straddle two chunks). The pages of a memory-mapped
    file stay mapped: its reader decodes them next, and gives them back as it goes.
    """
    if isinstance(data, bytes) and data.isascii():  # the common case, in one call
        return
    view = memoryview(data)
    decoder = codecs.getincrementaldecoder("utf-8")()
    for start in range(0, len(view), _CHUNK):
        piece = bytes(view[start : start + _CHUNK])
        final = start + _CHUNK >= len(view)
        pending = decoder.getstate()[0]
        try:
            if pending or not piece.isascii():
                decoder.decode(piece, final=final)
        except UnicodeDecodeError as exc:
            # the decoder may hold back up to 3 bytes of a split sequence from the previous chunk
            offset = _first_bad_byte(view, max(0, start - len(pending)), start + exc.start)
            line, column = line_column(data, offset)
            raise InputError(
                f"the file is not UTF-8 text: byte 0x{view[offset]:02x} cannot be decoded",
                source=source,
                location=f"line {line}, column {column}",
            ) from None


def _first_bad_byte(view: memoryview, lo: int, guess: int) -> int:
    for i in range(lo, guess + 1):
        try:
            bytes(view[i : guess + 4]).decode("utf-8")
        except UnicodeDecodeError as exc:
            return i + exc.start
    return guess


def line_column(data: InputData, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of byte ``offset``."""
    offset = max(0, min(offset, len(data)))
    if not isinstance(data, bytes):
        data = bytes(data[:offset])
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[start:offset].decode("utf-8", errors="replace")) + 1
    return line, column


_STREAM_PATHS = ("/proc/", "/dev/fd/", "/dev/stdout", "/dev/stderr")
"""A path that is (or links to) one of these names a process's open file: written to in place,
never replaced (``/dev/stdout`` redirected to a file keeps its file)."""


def _names_a_stream(name: str) -> bool:
    path = os.path.abspath(name)
    for _ in range(40):  # the kernel's own bound on a chain of symbolic links
        if path.startswith(_STREAM_PATHS):
            return True
        try:
            link = os.readlink(path)
        except OSError:
            return False
        path = os.path.normpath(os.path.join(os.path.dirname(path), link))
    return False


def write_atomic(
    path: str | os.PathLike[str],
    data: bytes | Iterable[bytes],
    *,
    overwrite: bool = False,
    what: str = "file",
    replace_input: bool = False,
) -> None:
    """Write ``data`` to ``path``.

    A regular file (or a new one) is written through a temporary file in the same folder and a
    rename, so a reader never sees half of it; without ``overwrite`` an existing file is refused
    (exit code 2), and so is a file this run read as an input (unless ``replace_input``: the
    sandbox's ``--persist`` writes its own snapshot back), so no input is ever lost. Anything else that exists (``/dev/null``, a named
    pipe, a symbolic link to one) and a process's open file (``/dev/stdout``, ``/dev/fd/N``,
    ``/proc/...``) is written to in place and never replaced; a directory is refused.
    ``data`` may be an iterable of parts, written one after another (a report streamed).
    """
    name = os.fspath(path)
    target = Path(name)
    try:
        info: os.stat_result | None = os.stat(name)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise InputError(f"cannot write the {what}: {exc.strerror}", source=name) from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise InputError(f"cannot write the {what}: it is a directory", source=name)
    special = info is not None and not stat.S_ISREG(info.st_mode)
    if special or (info is not None and _names_a_stream(name)):
        _write_in_place(name, data, what)
        return
    if info is not None and not overwrite:
        raise InputError(
            f"the {what} exists already; choose another name or allow overwriting", source=name
        )
    if info is not None and not replace_input and _identity(info) in _INPUTS:
        raise InputError(
            f"refusing to write the {what} over a file this run reads as an input; "
            "choose another name",
            source=name,
        )
    folder = target.parent if str(target.parent) else Path(".")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise InputError(f"cannot write the {what}: {exc.strerror}", source=name) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            _write_parts(fh, data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise InputError(f"cannot write the {what}: {exc.strerror}", source=name) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _write_parts(fh: BinaryIO, data: bytes | Iterable[bytes]) -> None:
    if isinstance(data, bytes | bytearray | memoryview):
        fh.write(data)
    else:
        fh.writelines(data)


def _write_in_place(name: str, data: bytes | Iterable[bytes], what: str) -> None:
    """Write to a device, a pipe or a stream that exists: opened for appending, never created nor
    truncated (``/dev/stdout`` redirected to a file keeps what was printed before)."""
    try:
        fd = os.open(name, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC | os.O_NOCTTY)
    except FileNotFoundError:
        raise InputError(f"cannot write the {what}: no such file", source=name) from None
    except OSError as exc:
        raise InputError(f"cannot write the {what}: {exc.strerror}", source=name) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            _write_parts(fh, data)
    except BrokenPipeError:
        raise InputError(f"cannot write the {what}: its reader went away", source=name) from None
    except OSError as exc:
        raise InputError(f"cannot write the {what}: {exc.strerror}", source=name) from None
