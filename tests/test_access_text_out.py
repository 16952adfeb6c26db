"""The text answers of ``auditor access`` print the same characters through rich (on a terminal,
or with colour forced) and through the plain writer (a pipe, which spares rich's import)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.cli import _access


@settings(max_examples=150, deadline=None)
@given(
    st.text(max_size=60)
    | st.sampled_from(["[bold]x[/bold]", ":smile:", "\\[red]", "a\tb", "[/]", "x\\"])
)
def test_rich_and_plain_print_the_same_characters(value: str) -> None:
    with pytest.MonkeyPatch.context() as mp:
        import io
        import sys

        for rich in (True, False):
            buffer = io.StringIO()
            mp.setattr(sys, "stdout", buffer)
            mp.setattr(_access, "_wants_rich", lambda rich=rich: rich)
            out = _access._console()
            out.print(f"{out.styled('bold red', 'DENIED')}  {out.value(value)}")
            out.print(out.styled("bold", out.value(value)))
            if rich:
                through_rich = buffer.getvalue()
            else:
                plain = buffer.getvalue()
    assert plain == through_rich
    assert plain.startswith("DENIED  ")


def test_a_pipe_gets_plain_lines_and_a_forced_colour_gets_rich(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    assert _access._wants_rich() is False  # pytest captures standard output: no terminal
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert _access._wants_rich() is True
    monkeypatch.delenv("FORCE_COLOR")
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    assert _access._wants_rich() is True
