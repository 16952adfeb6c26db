"""Reading input files with a clear message for every way they can be unusable, and writing output
files atomically (a reader never sees half a file; nothing the user gave is overwritten)."""

from __future__ import annotations

import codecs
import contextlib
import os
import tempfile
from pathlib import Path

from auditor.errors import InputError

_CHUNK = 1 << 24
UTF8_BOM = codecs.BOM_UTF8


def read_input_bytes(path: str | os.PathLike[str], *, what: str = "file") -> bytes:
    """The bytes of ``path``, refusing missing, unreadable, empty and non-UTF-8 files with a message.

    A UTF-8 byte-order mark is dropped.
    """
    name = os.fspath(path)
    p = Path(name)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise InputError(f"no such {what}", source=name) from None
    except IsADirectoryError:
        raise InputError(f"expected a {what}, found a directory", source=name) from None
    except PermissionError:
        raise InputError(f"cannot read the {what}: permission denied", source=name) from None
    except OSError as exc:
        raise InputError(f"cannot read the {what}: {exc.strerror}", source=name) from None
    if data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM) :]
    if not data.strip():
        raise InputError(f"the {what} is empty; expected a JSON object", source=name)
    check_utf8(data, name)
    return data


def check_utf8(data: bytes, source: str) -> None:
    """Raise an InputError naming line and column of the first byte that is not UTF-8."""
    if data.isascii():  # the common case, checked at memory speed
        return
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    for start in range(0, len(data), _CHUNK):
        try:
            decoder.decode(view[start : start + _CHUNK], final=start + _CHUNK >= len(data))
        except UnicodeDecodeError as exc:
            offset = start + exc.start
            # the decoder may hold back up to 3 bytes of a split sequence from the previous chunk
            offset = _first_bad_byte(data, max(0, start - 3), offset)
            line, column = line_column(data, offset)
            raise InputError(
                f"the file is not UTF-8 text: byte 0x{data[offset]:02x} cannot be decoded",
                source=source,
                location=f"line {line}, column {column}",
            ) from None


def _first_bad_byte(data: bytes, lo: int, guess: int) -> int:
    for i in range(lo, guess + 1):
        try:
            data[i : guess + 4].decode("utf-8")
        except UnicodeDecodeError as exc:
            return i + exc.start
    return guess


def line_column(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of byte ``offset``."""
    offset = max(0, min(offset, len(data)))
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[start:offset].decode("utf-8", errors="replace")) + 1
    return line, column


def write_atomic(
    path: str | os.PathLike[str], data: bytes, *, overwrite: bool = False, what: str = "file"
) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename.

    Without ``overwrite`` an existing file is refused (exit code 2), so no input is ever lost.
    """
    name = os.fspath(path)
    target = Path(name)
    if target.exists() and not overwrite:
        raise InputError(f"the {what} exists already; choose another name or allow overwriting")
    folder = target.parent if str(target.parent) else Path(".")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise InputError(f"cannot write the {what}: {exc.strerror}", source=name) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
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
