"""Instant start-up (issue 23, part B): the light commands (``--version``, ``--help``, a group's
``--help``, one ``access check`` on the sample estate) import no heavy library they do not use.
A test of what is imported, not of time: each case runs in a fresh interpreter and lists the
modules it ended with (``benchmarks/bench_startup.py`` measures the time)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from auditor.estate.sample import sample_snapshot_bytes

OWNER = "cd18c18a-775c-5776-a857-fb9fc1e4af11"  # the sample's break-glass account
ROOT_MG = "/providers/Cloud.Management/managementGroups/mg-sample-root"
OUTSIDE = "/subscriptions/00000000-0000-0000-0000-00000000beef/resourceGroups/rg"

NEVER_AT_START = ("pydantic", "pydantic_core", "typer._adapters", "rich", "lark", "networkx")
"""Not imported by ``--version`` or any ``--help`` (typer checks option values without pydantic:
pyproject pins a typer that does)."""

NEVER_FOR_A_QUESTION = ("typer._adapters", "rich", "lark", "networkx", "httpx", "yaml", "jinja2")
"""Not imported by one ``access check --format json`` on a small snapshot."""


def _modules(argv: list[str], cwd: Path) -> tuple[int, set[str]]:
    """The exit code of ``auditor ARGV`` run in a fresh interpreter, and the modules it held."""
    code = (
        "import sys, json\n"
        "from auditor.cli import main\n"
        f"rc = main({argv!r})\n"
        "sys.stdout.flush()\n"
        "sys.stderr.write('\\n' + json.dumps([rc, sorted(sys.modules)]) + '\\n')\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env={**os.environ, "AUDITOR_CACHE_DIR": ""},  # set but empty: no cache
    )
    assert run.returncode == 0, run.stderr
    rc, modules = json.loads(run.stderr.strip().splitlines()[-1])
    return rc, set(modules)


def test_the_installed_typer_checks_options_without_pydantic() -> None:
    # typer 0.29 builds a pydantic TypeAdapter for every option it parses (about 50 ms a command)
    assert importlib.util.find_spec("typer._adapters") is None


@pytest.mark.parametrize(
    "argv", [["--version"], ["--help"], ["access", "--help"], ["access", "check", "--help"]]
)
def test_light_commands_load_no_heavy_library(argv: list[str], tmp_path: Path) -> None:
    rc, modules = _modules(argv, tmp_path)
    assert rc == 0
    assert "auditor.cli" in modules
    assert [name for name in NEVER_AT_START if name in modules] == []


@pytest.mark.parametrize("fmt", ["json", "text"])  # text to a pipe: plain lines, no rich
@pytest.mark.parametrize(
    ("action", "scope"),
    [
        ("Cloud.Compute/virtualMachines/write", ROOT_MG),
        ("Cloud.Nothing/at/all", OUTSIDE),  # warnings: no role names it, no resource is there
    ],
)
def test_one_question_loads_only_what_it_uses(
    action: str, scope: str, fmt: str, tmp_path: Path
) -> None:
    snapshot = tmp_path / "sample.json"
    snapshot.write_bytes(sample_snapshot_bytes())
    argv = [
        "access", "check", "--snapshot", str(snapshot), "--principal", OWNER,
        "--action", action, "--scope", scope, "--format", fmt,
    ]  # fmt: skip
    rc, modules = _modules(argv, tmp_path)
    assert rc == 0
    assert "auditor.access.decision" in modules  # the question was answered
    assert [name for name in NEVER_FOR_A_QUESTION if name in modules] == []
    assert "pydantic" not in modules  # the small snapshot read through msgspec alone
    # only the model modules the snapshot's sections need (auditor.model imports them lazily)
    assert "auditor.model.errors" not in modules and "auditor.model.snapshot" not in modules


def _answers(argvs: list[list[str]], capsys: pytest.CaptureFixture[str]) -> list[tuple[int, str]]:
    from auditor.cli import main

    out = []
    for argv in argvs:
        code = main(argv)
        out.append((code, capsys.readouterr().out))
    return out


def test_answers_from_the_light_load_are_the_full_loads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from auditor.estate.light import light_snapshot

    snapshot = tmp_path / "sample.json"
    snapshot.write_bytes(sample_snapshot_bytes())
    assert light_snapshot(snapshot) is not None  # the light load is the one measured
    sample = json.loads(sample_snapshot_bytes())
    principals = [p["id"] for p in sample["principals"]][:8]
    scopes = [ROOT_MG, *sorted({a["properties"]["scope"] for a in sample["roleAssignments"]})[:3]]
    actions = ["Cloud.Compute/virtualMachines/write", "Cloud.Authorization/roleAssignments/write"]
    base = ["--snapshot", str(snapshot)]
    argvs = [
        ["access", "check", *base, "--principal", p, "--action", a, "--scope", s, "--format", f]
        for p in principals[:4]
        for a in actions
        for s in scopes
        for f in ("json", "text")
    ]
    argvs += [
        ["access", "check", *base, "--principal", p, "--action", "No.Such/op", "--scope", OUTSIDE]
        for p in [*principals[:2], "nobody@example.com"]
    ]
    argvs += [["access", "what", *base, "--principal", p, "--format", "json"] for p in principals]
    argvs += [
        ["access", "who", *base, "--action", a, "--scope", s] for a in actions for s in scopes
    ]
    argvs.append(["estate", "show", str(snapshot), "--format", "json"])
    light = _answers(argvs, capsys)
    monkeypatch.setattr("auditor.estate.light.LIGHT_LIMIT", 0)  # every answer from the full load
    assert light_snapshot(snapshot) is None
    full = _answers(argvs, capsys)
    assert light == full
    assert {code for code, _ in full} == {0, 2}  # 2: nobody@example.com is no principal
