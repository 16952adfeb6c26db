"""Feedback for long work: a spinner naming the stage on a terminal, a plain line otherwise."""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def stage(what: str, *, quiet_when_piped: bool = True, delay: float = 0.0) -> Iterator[None]:
    """Show ``what`` while the block runs: a rich spinner when standard error is a terminal.

    When it is not a terminal nothing is printed, unless ``quiet_when_piped`` is False (then one
    plain line, for long pipelines such as the demo whose log reads better with stages). Under
    ``--quiet`` nothing is shown; under ``--no-color`` (or ``NO_COLOR``) the spinner has no colour.
    With ``delay`` (seconds) the spinner appears only once the block has run that long: work that
    is over sooner shows nothing and never loads rich (a small estate's answer starts at once).
    """
    from auditor.cli import _ci

    if _ci.mode.quiet:
        yield
        return
    if sys.stderr.isatty():
        if delay > 0:
            with _spinner_after(delay, what, no_color=_ci.mode.no_color):
                yield
            return
        with _spinner(what, no_color=_ci.mode.no_color):
            yield
        return
    if not quiet_when_piped:
        sys.stderr.write(what + " ...\n")
    yield


def _live(what: str, *, no_color: bool) -> Any:
    from rich.console import Console
    from rich.live import Live
    from rich.spinner import Spinner

    # Not Console.status: it redirects standard output while it spins, and reports written
    # to standard output must stay there.
    return Live(
        Spinner("dots", text=what + " ..."),
        console=Console(stderr=True, no_color=no_color or None),
        transient=True,
        redirect_stdout=False,
        redirect_stderr=False,
    )


@contextlib.contextmanager
def _spinner(what: str, *, no_color: bool) -> Iterator[None]:
    with _live(what, no_color=no_color):
        yield


@contextlib.contextmanager
def _spinner_after(delay: float, what: str, *, no_color: bool) -> Iterator[None]:
    """The spinner, started by a timer after ``delay`` seconds unless the block is over first."""
    lock = threading.Lock()
    shown: list[Any] = []
    over = False

    def start() -> None:
        with lock:
            if not over:
                live = _live(what, no_color=no_color)
                live.start()
                shown.append(live)

    timer = threading.Timer(delay, start)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        with lock:
            over = True
            for live in shown:
                live.stop()
