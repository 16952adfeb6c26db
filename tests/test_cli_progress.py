"""Long work names its stage on a terminal, and stays silent when piped."""

from __future__ import annotations

import io
import sys

import pytest

from auditor.cli._progress import stage


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_sees_the_stage(monkeypatch: pytest.MonkeyPatch) -> None:
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    monkeypatch.setenv("TERM", "xterm")
    with stage("Loading big.json"):
        pass
    assert "Loading big.json" in term.getvalue()


def test_a_pipe_sees_nothing_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    pipe = io.StringIO()
    monkeypatch.setattr(sys, "stderr", pipe)
    with stage("Quiet work"):
        pass
    assert pipe.getvalue() == ""
    with stage("Demo step", quiet_when_piped=False):
        pass
    assert pipe.getvalue() == "Demo step ...\n"


def test_standard_output_stays_standard_output_while_spinning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    term = _Terminal()
    out = io.StringIO()
    monkeypatch.setattr(sys, "stderr", term)
    monkeypatch.setattr(sys, "stdout", out)
    with stage("Writing the reports"):
        sys.stdout.write("REPORT-BODY\n")
    assert out.getvalue() == "REPORT-BODY\n"
    assert "REPORT-BODY" not in term.getvalue()
