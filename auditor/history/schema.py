"""The history database's schema, its versions and the migrations between them.

The file is marked as ours with ``PRAGMA application_id`` (:data:`APPLICATION_ID`) and versioned with
``PRAGMA user_version``. :data:`MIGRATIONS` maps each version to the statements that bring a file
from the version before it; :func:`migrate` applies the missing ones in one transaction taken with
``BEGIN IMMEDIATE`` (so two processes opening an old file at once migrate it once, and a failed
migration leaves the file as it was). A file of a
newer version than :data:`SCHEMA_VERSION` is refused, never downgraded.

Version 1: runs, findings (deduplicated across runs by their content), the findings of each run (a
row each) and the pass counts of each run. Version 2: the findings of each run as ranges of finding
ids (20 runs of the 1,000,000-assignment estate took 48 MB of rows; they take kilobytes).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence

APPLICATION_ID = 0x61756469
"""``PRAGMA application_id`` of an auditor history database (``"audi"``)."""

V1: tuple[str, ...] = (
    """CREATE TABLE run (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        command TEXT NOT NULL,
        started_at TEXT NOT NULL,
        finished_at TEXT NOT NULL,
        recorded_at TEXT NOT NULL,
        target TEXT NOT NULL,
        target_kind TEXT NOT NULL,
        target_name TEXT NOT NULL,
        complete INTEGER NOT NULL,
        exit_code INTEGER NOT NULL,
        tool_version TEXT NOT NULL,
        ruleset TEXT NOT NULL,
        summary TEXT NOT NULL,
        counts TEXT NOT NULL,
        settings TEXT NOT NULL,
        inputs TEXT NOT NULL,
        rules TEXT NOT NULL,
        waivers TEXT NOT NULL,
        warnings TEXT NOT NULL
    )""",
    "CREATE INDEX run_by_target ON run (target, id)",
    """CREATE TABLE finding (
        id INTEGER PRIMARY KEY,
        digest BLOB NOT NULL UNIQUE,
        fingerprint TEXT NOT NULL,
        rule_id TEXT NOT NULL,
        severity TEXT NOT NULL,
        status TEXT NOT NULL,
        resource_id TEXT NOT NULL,
        resource_type TEXT
    )""",
    """CREATE TABLE finding_detail (
        id INTEGER PRIMARY KEY,
        title TEXT,
        message TEXT NOT NULL,
        evidence TEXT NOT NULL,
        source_file TEXT,
        source_line INTEGER,
        address TEXT,
        location TEXT,
        waiver_id TEXT
    )""",
    "CREATE INDEX finding_by_fingerprint ON finding (fingerprint)",
    """CREATE TABLE run_finding (
        run_id INTEGER NOT NULL,
        finding_id INTEGER NOT NULL,
        PRIMARY KEY (run_id, finding_id)
    ) WITHOUT ROWID""",
    """CREATE TABLE pass_count (
        run_id INTEGER NOT NULL,
        rule_id TEXT NOT NULL,
        resource_type TEXT NOT NULL,
        passed INTEGER NOT NULL,
        PRIMARY KEY (run_id, rule_id, resource_type)
    ) WITHOUT ROWID""",
    f"PRAGMA application_id = {APPLICATION_ID}",
)
"""The first schema. A finding is one row of ``finding`` (what comparing runs reads) and one of
``finding_detail`` (the same id: what showing it reads). A run's ``counts`` are its failing
findings counted by rule and by subscription, then severity (for trends). Its ``resource_type`` and ``title`` are
NULL when they are its rule's (the run's ``rules``), its ``address`` NULL when it is its
``location``."""

V2: tuple[str, ...] = (
    """CREATE TABLE run_range (
        run_id INTEGER NOT NULL,
        first_id INTEGER NOT NULL,
        last_id INTEGER NOT NULL,
        PRIMARY KEY (run_id, first_id)
    ) WITHOUT ROWID""",
    """INSERT INTO run_range (run_id, first_id, last_id)
        SELECT run_id, min(finding_id), max(finding_id) FROM (
            SELECT run_id, finding_id,
                finding_id - row_number() OVER (PARTITION BY run_id ORDER BY finding_id) AS span
            FROM run_finding)
        GROUP BY run_id, span""",
    "DROP TABLE run_finding",
)
"""A run's findings as ranges of finding ids (``first_id``-``last_id``, both included) instead of
one row a finding: findings a run shares with the runs before keep their ids, so a run of 83,000
findings is a handful of ranges (a few hundred bytes instead of 2.4 MB)."""

MIGRATIONS: dict[int, Sequence[str]] = {1: V1, 2: V2}
"""Version -> the statements that bring a file of the version before it to that version."""

SCHEMA_VERSION = max(MIGRATIONS)
"""The version this auditor writes and reads."""


class SchemaError(Exception):
    """The file is not an auditor history database, or of a newer schema (``kind``: ``foreign`` or
    ``newer``)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def version_of(conn: sqlite3.Connection) -> int:
    """The file's schema version: 0 for an empty file; SchemaError when the file is a database that
    is not ours. Raises sqlite3.DatabaseError when the file is not a database at all."""
    # one statement, so one snapshot of the file: read one by one, another process creating the
    # history in between would show its tables without its application id
    app, version, tables = conn.execute(
        "SELECT (SELECT application_id FROM pragma_application_id()),"
        " (SELECT user_version FROM pragma_user_version()),"
        " (SELECT count(*) FROM sqlite_master)"
    ).fetchone()
    version = int(version)
    if app == APPLICATION_ID and version > 0:
        return version
    if app == 0 and version == 0 and tables == 0:
        return 0
    raise SchemaError("foreign", "not an auditor history database")


def check_version(version: int) -> None:
    if version > SCHEMA_VERSION:
        raise SchemaError(
            "newer",
            f"written by a newer auditor (history schema version {version}; this auditor reads "
            f"up to version {SCHEMA_VERSION}): upgrade auditor to read it",
        )


def migrate(
    conn: sqlite3.Connection,
    to: int = SCHEMA_VERSION,
    *,
    on_step: Callable[[int], None] | None = None,
) -> int:
    """Bring the database to version ``to`` (an empty file is created at it) in one transaction;
    returns the version before. ``conn`` must be in autocommit mode
    (``isolation_level=None``)."""
    before = version_of(conn)
    check_version(before)
    if before >= to:
        return before
    conn.execute("BEGIN IMMEDIATE")
    try:
        current = version_of(conn)  # another process may have migrated meanwhile
        check_version(current)
        for version in range(current + 1, to + 1):
            for statement in MIGRATIONS[version]:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {version}")
            if on_step is not None:
                on_step(version)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return before
