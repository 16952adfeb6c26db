"""Start-up stays light (issue: instant start-up): the command line imports a heavy library only
where a command uses it. A test of what is imported, not of time: each case runs in a fresh
interpreter and lists the modules it ended with."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from auditor.estate.sample import sample_snapshot_bytes

HEAVY = (
    "pydantic",
    "lark",
    "httpx",
    "jinja2",
    "rich",
    "msgspec",
    "yaml",
    "networkx",
    "starlette",
    "uvicorn",
    "weasyprint",
    "click",  # typer brings its own
    "auditor.access",
    "auditor.audit",
    "auditor.model",
    "auditor.report",
    "auditor.sources",
)
"""Never imported by ``import auditor.cli``, ``auditor --version`` or ``auditor --help``."""

NOT_FOR_A_DECISION = (
    "lark",
    "httpx",
    "jinja2",
    "rich",
    "yaml",
    "networkx",
    "starlette",
    "uvicorn",
    "weasyprint",
    "auditor.access.analysis",
    "auditor.access.delta",
    "auditor.access.plan_change",
    "auditor.access.queries",
    "auditor.audit",
    "auditor.report",
    "auditor.sources.deployment",
    "auditor.sources.gate",
)
"""Never imported by ``auditor access check ... --format json`` on a small snapshot."""


def _modules(code: str, cwd: Path) -> set[str]:
    """The modules a fresh interpreter holds after ``code`` (its last line of output, JSON)."""
    run = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys, json; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env={**os.environ, "AUDITOR_CACHE_DIR": ""},  # set but empty: no cache
    )
    assert run.returncode == 0, run.stderr
    return set(json.loads(run.stdout.strip().splitlines()[-1]))


def _loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return [name for name in names if name in modules]


@pytest.mark.parametrize(
    "code",
    [
        "import auditor.cli",
        "from auditor.cli import main; main(['--version'])",
        "from auditor.cli import main; main(['--help'])",
        "from auditor.cli import main; main(['access', '--help'])",
    ],
)
def test_light_commands_import_no_heavy_library(code: str, tmp_path: Path) -> None:
    modules = _modules(code, tmp_path)
    assert "typer" in modules and "auditor.cli" in modules  # the run did happen
    heavy = _loaded(modules, HEAVY)
    if "typer._adapters" in modules:  # a typer that checks option values with pydantic
        heavy.remove("pydantic")
    assert heavy == []
    if "--help" not in code:  # a command module is imported when one of its commands runs
        assert not any(m.startswith("auditor.cli._") and m != "auditor.cli._ci" for m in modules)


def test_a_decision_imports_only_what_deciding_needs(tmp_path: Path) -> None:
    snapshot = tmp_path / "sample.json"
    snapshot.write_bytes(sample_snapshot_bytes())
    owner = "cd18c18a-775c-5776-a857-fb9fc1e4af11"  # the sample's break-glass account
    argv = [
        "access", "check", "--snapshot", str(snapshot), "--principal", owner,
        "--action", "Cloud.Compute/virtualMachines/write",
        "--scope", "/providers/Cloud.Management/managementGroups/mg-sample-root",
        "--format", "json",
    ]  # fmt: skip
    code = f"from auditor.cli import main; assert main({argv!r}) == 0"
    modules = _modules(code, tmp_path)
    assert {"auditor.access.decision", "auditor.estate.snapshot"} <= modules
    assert _loaded(modules, NOT_FOR_A_DECISION) == []
    assert "auditor.cli._audit" not in modules and "auditor.cli._sandbox" not in modules


NOT_FOR_A_SNAPSHOT_AUDIT = (
    "auditor.estate.plan",
    "auditor.audit.baseline",
    "auditor.sources.deployment",
    "auditor.sources.gate",
)
"""Never imported by ``auditor audit --snapshot FILE``: a plan's reader and the baseline's are
only for runs that read them."""


def test_a_snapshot_audit_imports_no_plan_reader(tmp_path: Path) -> None:
    snapshot = tmp_path / "sample.json"
    snapshot.write_bytes(sample_snapshot_bytes())
    report = tmp_path / "report.json"
    argv = ["audit", "--snapshot", str(snapshot), "-o", f"json={report}", "--fail-on", "none"]
    code = f"from auditor.cli import main; assert main({argv!r}) == 0"
    modules = _modules(code, tmp_path)
    assert {"auditor.audit.engine", "auditor.audit.runner"} <= modules  # the audit did run
    assert json.loads(report.read_text())["findings"]
    assert _loaded(modules, NOT_FOR_A_SNAPSHOT_AUDIT) == []


def test_a_baseline_run_imports_the_baseline_reader(tmp_path: Path) -> None:
    """The lazy imports are the ones a run asks for: ``--create-baseline`` writes its file."""
    snapshot = tmp_path / "sample.json"
    snapshot.write_bytes(sample_snapshot_bytes())
    baseline = tmp_path / "baseline.json"
    argv = ["audit", "--snapshot", str(snapshot), "--create-baseline", str(baseline)]
    argv += ["-o", f"json={tmp_path / 'report.json'}", "--fail-on", "none"]
    code = f"from auditor.cli import main; assert main({argv!r}) == 0"
    modules = _modules(code, tmp_path)
    assert "auditor.audit.baseline" in modules
    assert "auditor.estate.plan" not in modules
    assert json.loads(baseline.read_text())
