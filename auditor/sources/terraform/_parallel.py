"""Many Terraform modules read at once (a repository scan): the modules are shared between this
process and one forked worker (each takes the next module when it is free, the largest first) when
the machine has two cores or more and there is enough to read (:data:`MIN_PARALLEL_BYTES` of
``.tf`` text in :data:`MIN_PARALLEL_MODULES` modules or more); a small folder is read here, in one
process.

The caller gets one result per module in the order given, so findings come out in the same order
as a serial read. A module the worker could not read (an input error, anything else) comes back as
``None`` and the caller reads it itself, so its error is raised where, and exactly as, a serial
read raises it. The worker is a fork of this process (nothing is imported again, nothing is sent
to it); it is stopped when this process stops reading (an error, Ctrl-C) and never outlives it.
Where ``fork`` is not available, or other threads run, everything is read here.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from auditor.sources.deployment import DeploymentSet

__all__ = ["MIN_PARALLEL_BYTES", "MIN_PARALLEL_MODULES", "read_modules"]

MIN_PARALLEL_BYTES = 256 << 10
"""``.tf`` text (bytes) below which modules are read in this process only."""
MIN_PARALLEL_MODULES = 8
"""Modules below which they are read in this process only."""

Reader = Callable[[str], DeploymentSet]


def _module_bytes(folder: str) -> int:
    total = 0
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.endswith(".tf") and entry.is_file():
                    total += entry.stat().st_size
    except OSError:
        pass
    return total


def _parallel_possible() -> bool:
    import threading

    if (os.cpu_count() or 1) < 2 or threading.active_count() != 1:
        return False
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def _read_or_none(read: Reader, folder: str) -> DeploymentSet | None:
    try:
        return read(folder)
    except Exception:  # read again by the caller, which raises the error where it belongs
        return None


def _take(counter: Any) -> int:
    """The next module's index, shared by the two processes (whoever is free takes the next)."""
    with counter.get_lock():
        index = int(counter.value)
        counter.value = index + 1
    return index


def _work(conn: Any, read: Reader, order: list[str], counter: Any) -> None:
    """The worker: read the modules it takes, send {folder: result or None}."""
    try:
        out: dict[str, DeploymentSet | None] = {}
        while (index := _take(counter)) < len(order):
            out[order[index]] = _read_or_none(read, order[index])
        conn.send(out)
    except BaseException:  # Ctrl-C, a closed pipe: the parent reads what is missing itself
        pass
    finally:
        conn.close()


def read_modules(
    folders: Sequence[str], read: Reader, *, meanwhile: Callable[[], object] | None = None
) -> list[DeploymentSet | None]:
    """``read(folder)`` for each of ``folders``, in order, shared with a worker process when it
    pays (see the module's description); ``None`` where the caller must read the module itself.
    ``meanwhile`` (only with a worker) is this process's other work, done first while the worker
    reads (it then takes a smaller share of the modules)."""
    folders = list(folders)
    if len(folders) < MIN_PARALLEL_MODULES or not _parallel_possible():
        return [None] * len(folders)
    sizes = {folder: _module_bytes(folder) for folder in folders}
    if sum(sizes.values()) < MIN_PARALLEL_BYTES:
        return [None] * len(folders)
    order = sorted(folders, key=lambda f: -sizes[f])  # largest first: the two end together
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    receiver, sender = ctx.Pipe(duplex=False)
    counter = ctx.Value("i", 0)
    for stream in (sys.stdout, sys.stderr):  # (nothing buffered here is written twice)
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    worker = ctx.Process(target=_work, args=(sender, read, order, counter), daemon=True)
    worker.start()
    sender.close()
    results: dict[str, DeploymentSet | None] = {}
    done = False
    try:
        if meanwhile is not None:
            meanwhile()
        while (index := _take(counter)) < len(order):
            results[order[index]] = _read_or_none(read, order[index])
        with contextlib.suppress(EOFError, OSError):  # (the worker died: the caller reads)
            results.update(receiver.recv())
        done = True
    finally:
        receiver.close()
        if not done:  # Ctrl-C or an error here: the worker's reading is not wanted
            worker.terminate()
        worker.join(timeout=10)
        if worker.is_alive():
            worker.kill()
            worker.join()
    return [results.get(folder) for folder in folders]
