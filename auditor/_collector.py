"""The process's garbage-collector tricks, in one place.

A large estate is millions of objects that live as long as the command and hold no reference
cycle (records, index entries, findings). The cyclic collector would walk them again and again
while they are made (a young collection every few hundred containers, now and then a full one),
so the loader, the index builds, a batch of decisions, the access delta, the audit's rules, the
cache writer and the HTML report make them with the collector paused (:func:`paused`), and the
long-lived ones may be frozen (:func:`gc.freeze`) before it comes back, so that later collections
skip them. Every module that pauses the collector does it through :func:`paused`; the policies of
when to freeze stay with the module that knows what it made (the index's ``_settle``, the
engine's run, the command line's process).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["Pause", "paused"]


class Pause:
    """A :func:`paused` block's pause: :attr:`active` tells whether it turned the collector off
    (it was on, and ``when`` held); the block may set :attr:`freeze` to freeze the objects then
    alive before the collector comes back."""

    __slots__ = ("active", "freeze")

    def __init__(self, active: bool, freeze: bool) -> None:
        self.active = active
        self.freeze = freeze


@contextmanager
def paused(*, freeze: bool = False, when: bool = True) -> Iterator[Pause]:
    """No garbage collection while the block runs (``when`` false: the block runs as it is).

    The collector is left as it was found: if it was on, it is turned back on however the block
    ends, after freezing (:func:`gc.freeze`) the objects alive then when ``freeze`` (or the
    yielded :class:`Pause`'s :attr:`~Pause.freeze`, which the block may set) is true. A block run
    with the collector already off changes nothing (nested pauses are free)."""
    enabled = when and gc.isenabled()
    pause = Pause(enabled, freeze)
    if enabled:
        gc.disable()
    try:
        yield pause
    finally:
        if enabled:
            if pause.freeze:
                gc.freeze()
            gc.enable()
