"""Run budgets: a time and a memory limit for one audit or gate run (``--max-time``,
``--max-memory``).

The engine checks the budget between rules and every few thousand findings within a rule
(cooperative: the run stops where it stands, keeps what it evaluated, and reports the rules it did
not finish). A rule that computes for long without yielding a finding is stopped too: while the
rules run, a watchdog thread looks at the clock and the resident memory ten times a second and, past
the budget, interrupts the main thread (:func:`_thread.interrupt_main` with a signal handler armed
only for the duration of the run). The loader and the report writers are not interrupted; they are
linear in the input.

Memory is the process's resident set size read from ``/proc/self/statm`` (Linux; elsewhere the peak
resident size from :func:`resource.getrusage`), so the budget is what the machine sees, not only
Python's objects; it can be overshot by what is allocated between two looks.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

WATCH_INTERVAL = 0.1
"""Seconds between two looks of the watchdog."""
CHECK_EVERY = 2048
"""Findings between two cooperative checks within a rule."""


class BudgetExceeded(Exception):
    """Raised in the main thread by the watchdog when the run is over its budget."""


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident_mb() -> float:
    """The process's resident memory in MiB (current on Linux, peak elsewhere)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE / 2**20
    except (OSError, IndexError, ValueError):
        import resource
        import sys

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / 2**20 if sys.platform == "darwin" else peak / 1024


@dataclass
class Budget:
    """A time limit (seconds from :attr:`started`) and a memory limit (MiB of resident memory);
    None is no limit."""

    max_seconds: float | None = None
    max_memory_mb: float | None = None
    started: float = field(default_factory=time.monotonic)
    exceeded: str | None = None
    """Why the run stopped (None while within budget)."""

    @property
    def limited(self) -> bool:
        return self.max_seconds is not None or self.max_memory_mb is not None

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def over(self) -> bool:
        """Whether the budget is exhausted now (and :attr:`exceeded` says why)."""
        if self.exceeded is not None:
            return True
        if self.max_seconds is not None and self.elapsed() > self.max_seconds:
            self.exceeded = (
                f"the time budget of {self.max_seconds:g} s (--max-time) was exceeded "
                f"after {self.elapsed():.1f} s"
            )
            return True
        if self.max_memory_mb is not None:
            rss = resident_mb()
            if rss > self.max_memory_mb:
                self.exceeded = (
                    f"the memory budget of {self.max_memory_mb:g} MB (--max-memory) was exceeded "
                    f"({rss:.0f} MB resident)"
                )
                return True
        return False

    @contextmanager
    def watchdog(self) -> Iterator[None]:
        """Within the block, :class:`BudgetExceeded` is raised in the main thread once the budget
        is exhausted, even inside a long computation (a no-op without limits, or when not called
        from the main thread: the cooperative checks remain)."""
        if not self.limited or threading.current_thread() is not threading.main_thread():
            yield
            return
        armed = True
        stop = threading.Event()

        def handler(signum: int, frame: object) -> None:
            if armed:
                raise BudgetExceeded(self.exceeded or "over budget")

        previous = signal.signal(signal.SIGUSR1, handler)

        def watch() -> None:
            import _thread

            while not stop.wait(WATCH_INTERVAL):
                if self.over():
                    _thread.interrupt_main(signal.SIGUSR1)
                    return

        thread = threading.Thread(target=watch, name="auditor-budget", daemon=True)
        thread.start()
        try:
            yield
        finally:
            # the watchdog interrupts once at most; should that land here, the inner block still
            # disarms, stops and restores
            try:
                armed = False
            finally:
                stop.set()
                thread.join()
                signal.signal(signal.SIGUSR1, previous)
