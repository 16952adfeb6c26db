"""Opening a history file: one SQLite database, checked to be ours, migrated, in WAL mode.

Every problem with the file is an :class:`~auditor.errors.InputError` (exit 2) naming it: a file that
is not an SQLite database or not an auditor history, one written by a newer auditor, one that is
missing (for reading) or not a regular file, one another process kept locked past the busy timeout.
Concurrent writers (two CI jobs on one file) take turns: WAL mode lets readers read while a run is
written, and each run is one ``BEGIN IMMEDIATE`` transaction that waits up to ``timeout`` seconds
for the other's to end.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import time
from collections.abc import Iterator
from pathlib import Path

from auditor.errors import InputError
from auditor.history.schema import SchemaError, migrate, version_of

BUSY_TIMEOUT = 60.0
"""Seconds a write waits for another process's transaction on the same file."""
PAGE_SIZE = 16384
"""Bytes a database page of a new file (findings are about 1 KB; 4 KB pages left a sixth empty)."""


def open_history(
    path: str | os.PathLike[str], *, create: bool = False, timeout: float = BUSY_TIMEOUT
) -> sqlite3.Connection:
    """A connection to the history at ``path`` at the current schema (an older file is migrated).

    ``create``: a missing or empty file becomes a new history (its folder is made); otherwise a
    missing file is an input error. The connection is in autocommit mode: callers open their
    transactions with ``BEGIN IMMEDIATE`` (see :func:`transaction`)."""
    where = os.fspath(path)
    try:
        st = os.stat(where)
    except FileNotFoundError:
        if not create:
            raise InputError("no such history file", source=where) from None
        Path(where).parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot read the history file: {exc.strerror}", source=where) from None
    else:
        if not stat.S_ISREG(st.st_mode):
            raise InputError("not a regular file (expected a history database)", source=where)
    try:
        conn = sqlite3.connect(where, timeout=timeout, isolation_level=None)
    except sqlite3.Error as exc:
        raise InputError(f"cannot open the history file ({exc})", source=where) from None
    try:
        _prepare(conn, where, create)
    except BaseException:
        conn.close()
        raise
    return conn


def _prepare(conn: sqlite3.Connection, where: str, create: bool) -> None:
    try:
        version = version_of(conn)
        if version == 0 and not create:
            raise InputError(
                "not an auditor history database (an empty file: no run was recorded in it)",
                source=where,
            )
        if version == 0:
            conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")  # a new file: before any table
        _use_wal(conn)
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA cache_size = -65536")
        migrate(conn)
    except SchemaError as exc:
        raise InputError(str(exc), source=where) from None
    except sqlite3.DatabaseError as exc:
        raise database_error(exc, where) from None


def _use_wal(conn: sqlite3.Connection, tries: int = 200) -> None:
    """Put the file in WAL mode. Switching needs the file to itself, and SQLite answers "locked"
    at once instead of waiting when another process is creating the same history: try again for
    a few seconds (the other process's switch usually settles it)."""
    for attempt in range(tries):
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == tries - 1:
                raise
            time.sleep(0.02)


def database_error(exc: sqlite3.Error, where: str) -> InputError:
    """An SQLite error on the history file as an input error naming it."""
    text = str(exc)
    if isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text):
        return InputError(
            "the history database stayed locked by another process (another run being "
            "recorded?); try again",
            source=where,
        )
    if "not a database" in text or "malformed" in text:
        return InputError(
            f"not an auditor history database (SQLite: {text})",
            source=where,
        )
    return InputError(f"cannot use the history database (SQLite: {text})", source=where)


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection, where: str) -> Iterator[sqlite3.Connection]:
    """One write transaction (``BEGIN IMMEDIATE``): committed when the block ends, rolled back
    when it raises, so the file never holds half a change."""
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.Error as exc:
        raise database_error(exc, where) from None
    try:
        yield conn
    except sqlite3.Error as exc:
        _rollback(conn)
        raise database_error(exc, where) from None
    except BaseException:
        _rollback(conn)
        raise
    try:
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        _rollback(conn)
        raise database_error(exc, where) from None


def _rollback(conn: sqlite3.Connection) -> None:
    if conn.in_transaction:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
