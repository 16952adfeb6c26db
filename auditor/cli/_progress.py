"""Feedback for long work: a spinner naming the stage on a terminal, a plain line otherwise."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def stage(what: str, *, quiet_when_piped: bool = True) -> Iterator[None]:
    """Show ``what`` while the block runs: a rich spinner when standard error is a terminal.

    When it is not a terminal nothing is printed, unless ``quiet_when_piped`` is False (then one
    plain line, for long pipelines such as the demo whose log reads better with stages). Under
    ``--quiet`` nothing is shown; under ``--no-color`` (or ``NO_COLOR``) the spinner has no colour.
    """
    from auditor.cli import _ci

    if _ci.mode.quiet:
        yield
        return
    if sys.stderr.isatty():
        from rich.console import Console
        from rich.live import Live
        from rich.spinner import Spinner

        # Not Console.status: it redirects standard output while it spins, and reports written
        # to standard output must stay there.
        spinner = Spinner("dots", text=what + " ...")
        with Live(
            spinner,
            console=Console(stderr=True, no_color=_ci.mode.no_color or None),
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
        ):
            yield
        return
    if not quiet_when_piped:
        sys.stderr.write(what + " ...\n")
    yield
