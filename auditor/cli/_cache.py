"""``auditor cache info|clear``, and the cache options of every command that loads a snapshot
(``--no-cache``, ``--cache-dir DIR``).

Which cache a command uses: none with ``--no-cache``; else ``--cache-dir DIR``; else the ``cache``
key of the configuration file (``false``; ``true``: the user's cache folder,
:func:`auditor.estate.default_cache_directory`, which ``AUDITOR_CACHE_DIR`` moves; or a folder);
else the user's cache folder: the cache is on by default for snapshots of :data:`MIN_BYTES` or more
(README, "Cache"). The cache itself is :mod:`auditor.estate.cache`, its index
:mod:`auditor.access.partial`.

Light at import: the commands of other groups import the options from here at start-up.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from auditor.estate.cache import EstateCache, Tables
    from auditor.estate.snapshot import Snapshot


_CHOICE: dict[str, Any] = {}
"""What the running command's options asked for (``off``, ``dir``); cleared when it ends."""


def _remember(ctx: Any, key: str, value: Any) -> None:
    if not _CHOICE:
        ctx.call_on_close(_CHOICE.clear)  # a command's options last for that command only
    _CHOICE[key] = value


def _no_cache_option(ctx: Any, value: bool) -> bool:
    _remember(ctx, "off", bool(value))
    return value


def _cache_dir_option(ctx: Any, value: Path | None) -> Path | None:
    _remember(ctx, "dir", value)
    return value


NoCache = Annotated[
    bool,
    typer.Option(
        "--no-cache",
        help="Load the snapshot from its JSON: neither read nor write the persistent cache.",
        callback=_no_cache_option,
        expose_value=False,
    ),
]
"""``--no-cache``, for a command that loads a snapshot (its value is kept here, not passed)."""
CacheDir = Annotated[
    Path | None,
    typer.Option(
        "--cache-dir",
        metavar="DIR",
        help="Cache loaded snapshots in DIR (default: the configuration's `cache`, else the "
        "user's cache folder).",
        callback=_cache_dir_option,
        expose_value=False,
    ),
]
"""``--cache-dir DIR`` (its value is kept here, not passed)."""


def _note(text: str) -> None:
    from auditor.inert import inert

    sys.stderr.write(f"auditor: note: {inert(text, limit=2_000)}\n")


def cache_directory(config: str | os.PathLike[str] | None = None) -> Path | None:
    """The cache directory the running command uses, or None when caching is off.

    ``config``: the configuration file the command was given (``--config``); by default the one
    found from the current directory."""
    if _CHOICE.get("off"):
        return None
    given = _CHOICE.get("dir")
    if given is not None:
        return Path(given).expanduser()
    from auditor.audit.settings import cache_setting

    setting = cache_setting(config)
    if isinstance(setting, str):
        return Path(setting)
    if setting is False:
        return None
    given = os.environ.get("AUDITOR_CACHE_DIR")
    if given is not None and not given.strip():
        return None  # set but empty: every cache off
    from auditor.estate.cache import default_cache_directory

    return default_cache_directory()  # on unless turned off


MIN_BYTES = 1 << 20
"""As :data:`auditor.estate.cache.MIN_BYTES` (kept here so that a small input costs no import)."""
BACKGROUND = True
"""Entries are written by a background process: the command that loads the snapshot answers in
the time the JSON takes (an entry of a million role assignments takes about as long again)."""


def estate_cache(
    path: str | os.PathLike[str], config: str | os.PathLike[str] | None = None
) -> EstateCache | None:
    """The cache of loaded snapshots the running command uses for the input ``path`` (None when
    off, or when ``path`` is no regular file large enough to be worth caching); its notes (an
    entry rebuilt, a cache that cannot be written) go to standard error."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size < MIN_BYTES:
        return None
    directory = cache_directory(config)
    if directory is None:
        return None
    from auditor.estate.cache import EstateCache

    return EstateCache(
        directory, note=_note, min_bytes=MIN_BYTES, indexer=_tables, background=BACKGROUND
    )


def _tables(snapshot: Snapshot) -> Tables:
    """The access engine's index of ``snapshot`` (:func:`auditor.access.partial.cache_tables`),
    imported only when an entry is written: commands that only load stay light."""
    from auditor.access.partial import cache_tables

    return cache_tables(snapshot)


def _cache_for_maintenance(directory: Path | None) -> EstateCache:
    from auditor.estate.cache import EstateCache, default_cache_directory

    if directory is None:  # the configured folder, else the user's (AUDITOR_CACHE_DIR moves it)
        from auditor.audit.settings import cache_setting

        setting = cache_setting(None)
        directory = Path(setting) if isinstance(setting, str) else default_cache_directory()
    return EstateCache(directory.expanduser())


_DIR_OPTION = typer.Option(
    None, "--cache-dir", metavar="DIR", help="The cache directory (default: as for every command)."
)


def register(app: typer.Typer) -> None:
    """Add ``cache info`` and ``cache clear`` to ``app``."""
    cache = typer.Typer(
        name="cache",
        help="The persistent cache of loaded snapshots (see README, 'Cache').",
        no_args_is_help=True,
    )

    @cache.command("info")
    def info(
        cache_dir: Path | None = _DIR_OPTION,
        output_format: str = typer.Option(
            "text", "--format", help="text or json.", metavar="FORMAT"
        ),
    ) -> None:
        """The cache directory, its entries (the snapshot each holds) and their sizes."""
        from auditor.errors import InputError
        from auditor.inert import inert

        fmt = output_format.lower()
        if fmt not in ("text", "json"):
            raise InputError(f"expected text or json, found {output_format!r}", source="--format")
        store = _cache_for_maintenance(cache_dir)
        entries = store.entries()
        total = sum(e.bytes for e in entries)
        if fmt == "json":
            doc = {
                "directory": str(store.directory),
                "entries": [
                    {
                        "file": str(e.path),
                        "bytes": e.bytes,
                        "snapshot": e.source,
                        "snapshotBytes": e.snapshot_bytes,
                        "version": e.version,
                        "current": e.current,
                    }
                    for e in entries
                ],
                "bytes": total,
            }
            typer.echo(json.dumps(doc, indent=2))
            return
        typer.echo(f"directory: {inert(str(store.directory))}")
        typer.echo(f"entries: {len(entries):,} ({_size(total)})")
        for e in entries:
            state = "" if e.current else " (stale: rebuilt on next use)"
            what = inert(e.source) if e.source else "(unreadable)"
            typer.echo(f"  {_size(e.bytes):>10}  {what}{state}")

    @cache.command("clear")
    def clear(cache_dir: Path | None = _DIR_OPTION) -> None:
        """Delete every entry of the cache directory (other files are left alone)."""
        from auditor.inert import inert

        store = _cache_for_maintenance(cache_dir)
        files, freed = store.clear()
        entries = "entry" if files == 1 else "entries"
        where = inert(str(store.directory))
        typer.echo(f"removed {files:,} {entries} ({_size(freed)}) from {where}")

    app.add_typer(cache)


def _size(n: int) -> str:
    value = float(n)
    for unit in ("B", "KB", "MB"):
        if value < 1024:
            return f"{n:,} B" if unit == "B" else f"{value:,.1f} {unit}"
        value /= 1024
    return f"{value:,.1f} GB"
