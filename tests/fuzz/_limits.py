"""Limits an example runs under: a hard stop in time (SIGALRM) and a cap on the address space, and
the growth of the peak resident size measured (Linux ``/proc``)."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import time
from collections.abc import Callable, Iterator
from types import FrameType
from typing import TypeVar

T = TypeVar("T")

HARD_TIMEOUT = 10.0
"""Seconds after which a running example is stopped and fails as stalled."""
ADDRESS_SPACE_MARGIN = 2 * 2**30
"""Address space an example may add before allocations fail."""
_PAGE = os.sysconf("SC_PAGE_SIZE")


class Stalled(BaseException):
    """Raised by the alarm when an example runs past :data:`HARD_TIMEOUT` (a BaseException, so
    that no ``except Exception`` of the code under test swallows it)."""


RETRY_INTERVAL = 0.5
"""Seconds between further alarms once the limit has passed: an exception raised where Python
cannot pass it on (a garbage-collection callback, a ``__del__``) is lost, so the alarm repeats."""


@contextlib.contextmanager
def time_limit(seconds: float = HARD_TIMEOUT) -> Iterator[None]:
    """Raise :class:`Stalled` in the main thread after ``seconds`` (and again every
    :data:`RETRY_INTERVAL` until the block is left)."""

    def alarm(signum: int, frame: FrameType | None) -> None:
        raise Stalled(f"stalled: still running after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds, RETRY_INTERVAL)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _statm() -> tuple[int, int]:
    """(virtual size, resident size) of this process in bytes."""
    with open("/proc/self/statm") as f:
        size, resident = f.read().split()[:2]
    return int(size) * _PAGE, int(resident) * _PAGE


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM, the peak resident size
        return True
    except OSError:
        return False


def _peak_resident() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


@contextlib.contextmanager
def memory_limit(margin: int = ADDRESS_SPACE_MARGIN) -> Iterator[None]:
    """Limit the address space to its current size plus ``margin`` (restored afterwards)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = _statm()[0] + margin
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    if soft != resource.RLIM_INFINITY:
        limit = min(limit, soft)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def guarded(call: Callable[[], T]) -> tuple[T | None, str | None, float, int]:
    """``call()`` under the time and memory limits: (result, why it was stopped, seconds, growth
    of the peak resident size in bytes)."""
    resident_before = _statm()[1]
    peak_known = _reset_peak()
    started = time.perf_counter()
    stalled: str | None = None
    result: T | None = None
    try:
        with time_limit(), memory_limit():
            result = call()
    except Stalled as exc:
        stalled = str(exc)
    seconds = time.perf_counter() - started
    growth = (_peak_resident() if peak_known else _statm()[1]) - resident_before
    return result, stalled, seconds, growth
