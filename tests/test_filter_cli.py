"""``auditor filter check EXPR`` (contracts section 5): canonical form, or the error with its caret."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from auditor.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_check_prints_the_canonical_form(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys,
        "filter",
        "check",
        "Properties/EventType  EQ 'ServiceIssue'   OR properties/eventType eq 'Security''s'",
    )
    assert code == 0
    assert out == (
        "Properties/EventType eq 'ServiceIssue' or properties/eventType eq 'Security''s'\n"
    )
    assert err == ""


def test_check_accepts_the_endpoint_functions(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "filter", "check", "ATSCOPE() and assignedTo('p')")
    assert (code, out) == (0, "atScope() and assignedTo('p')\n")


def test_acceptance_example(capsys: pytest.CaptureFixture[str]) -> None:
    text = "properties/eventType eq 'ServiceIssue' or"
    code, out, err = run(capsys, "filter", "check", text)
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert lines[0].startswith("auditor: error: filter syntax error at line 1, column 42")
    assert "expected a value" in lines[0]
    assert lines[1] == f"  {text}"
    assert lines[2] == "  " + " " * len(text) + "^"
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("text", "column"),
    [("a eq1", 3), ("a eq 'x", 6), ("foo(1)", 1), ("a eq 1 eq 2", 8), ("", 1), ("(" * 3000, 3001)],
)
def test_errors_exit_2_with_a_caret(
    capsys: pytest.CaptureFixture[str], text: str, column: int
) -> None:
    code, out, err = run(capsys, "filter", "check", text)
    assert code == 2
    assert out == ""
    assert f"column {column}" in err.splitlines()[0]
    assert err.splitlines()[2].endswith("^")
    assert "Traceback" not in err


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "filter", "check", "--help")
    assert code == 0
    assert "EXPR" in out
    code, out, _ = run(capsys, "--help")
    assert code == 0
    assert "filter" in out and "condition" in out


def test_a_missing_argument_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "filter", "check")
    assert code == 2, err


def _python(script: str, env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def test_the_cli_loads_no_filter_machinery_until_a_filter_command_runs() -> None:
    loaded = _python(
        "import sys\n"
        "import auditor.cli\n"
        "print(sorted(m for m in sys.modules if m == 'lark' or m.startswith('auditor.expr.filter')))",
        dict(os.environ),
    )
    assert loaded.strip() == "[]"


def test_filter_check_adds_little_to_the_cli_start(tmp_path: Path) -> None:
    """What ``auditor filter check`` adds to the CLI's start (lark, the parser from its cache, the
    parse and the print) costs well under the half second the whole command may take.  Measured in
    CPU time, which other work on the machine inflates less than wall time; best of three runs (the
    first also writes the parser cache)."""
    env = {**os.environ, "AUDITOR_CACHE_DIR": str(tmp_path)}
    script = (
        "import resource, sys\n"
        "def cpu():\n"
        "    usage = resource.getrusage(resource.RUSAGE_SELF)\n"
        "    return usage.ru_utime + usage.ru_stime\n"
        "import auditor.cli\n"
        "start = cpu()\n"
        "from auditor.expr.filter import parse_filter, print_filter\n"
        "text = print_filter(parse_filter(\"a eq 'x'\"))\n"
        "print(text, cpu() - start, cpu())\n"
    )
    runs = [_python(script, env).split() for _ in range(3)]
    assert all(run[:3] == ["a", "eq", "'x'"] for run in runs)
    assert min(float(run[3]) for run in runs) < 0.25
    assert min(float(run[4]) for run in runs) < 1.5  # the whole process, typer included
    assert (tmp_path / "filter-grammar.lark-cache").is_file()
