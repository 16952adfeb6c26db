"""What a CI job sees (issue 20, item 5): the one-line summary, ``--soft-fail``, ``--fail-on none``,
``--quiet``, ``--no-color``/``NO_COLOR``, shell completion, the remediation in the rich table, and
the commands of the shipped GitHub Action and pre-commit hook, run as they are written."""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from auditor.cli import _ci, main
from auditor.cli._progress import stage

ROOT = Path(__file__).resolve().parent.parent
TERRAFORM = ROOT / "tests" / "data" / "terraform"
CLUSTERS = TERRAFORM / "clusters"  # fails at high and above, and has 1 unknown finding
DOMAIN = TERRAFORM / "domain"
BIN = Path(sys.executable).parent
SUMMARY = re.compile(r"^auditor: exit (\d)[^\n]*; findings: (\d+) failing[^\n]*, (\d+) passed$")


@pytest.fixture(autouse=True)
def _no_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "auditor.toml").write_text("")  # no configuration found above tmp dirs
    monkeypatch.delenv("NO_COLOR", raising=False)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _summary_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if SUMMARY.match(line)]


def test_reports_to_files_print_one_summary_line_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "findings.json"
    code = main(["gate", str(CLUSTERS), "-o", f"json={out}"])
    captured = capsys.readouterr()
    assert code == 1
    assert captured.out == ""
    lines = _summary_lines(captured.err)
    assert len(lines) == 1, captured.err
    doc = json.loads(out.read_text())
    summary = doc["summary"]
    failing = sum(summary[s] for s in ("critical", "high", "medium", "low", "info"))
    match = SUMMARY.match(lines[0])
    assert match is not None
    assert match.groups() == ("1", str(failing), str(summary["passed"]))
    assert "the gate failed" in lines[0] and "at or above high" in lines[0]
    assert f"{summary['critical']} critical" in lines[0]


def test_a_passing_run_to_files_still_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["gate", str(CLUSTERS), "--fail-on", "none", "-o", f"sarif={tmp_path / 'a'}"])
    lines = _summary_lines(capsys.readouterr().err)
    assert code == 0
    assert len(lines) == 1 and "exit 0: --fail-on none: no failing finding blocks" in lines[0]


def test_text_on_standard_output_keeps_its_own_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["gate", str(DOMAIN), "--fail-on", "critical"])
    captured = capsys.readouterr()
    assert code == 0 and "PASSED" in captured.out
    assert _summary_lines(captured.err) == []  # the report on the terminal said it


def test_soft_fail_reports_and_exits_0_but_input_errors_stay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "a.sarif"
    assert main(["gate", str(CLUSTERS), "--soft-fail", "-o", f"sarif={out}"]) == 0
    lines = _summary_lines(capsys.readouterr().err)
    assert len(lines) == 1 and "exit 0 (--soft-fail): the gate failed" in lines[0]
    assert json.loads(out.read_text())["runs"][0]["results"]
    assert main(["gate", str(tmp_path / "missing.tf"), "--soft-fail"]) == 2
    assert "missing.tf" in capsys.readouterr().err


def test_fail_on_none_still_blocks_on_what_was_asked(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["gate", str(CLUSTERS), "--fail-on", "none", "--fail-on-unknown", "-q"])
    err = capsys.readouterr().err
    assert code == 1
    assert "1 unknown finding(s) with --fail-on-unknown" in err
    assert "at or above" not in err
    assert main(["gate", str(CLUSTERS), "--fail-on", "nothing"]) == 2
    assert "--fail-on" in capsys.readouterr().err


def test_quiet_prints_only_the_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.json"
    code = main(["gate", str(CLUSTERS), "--quiet", "-o", f"json={out}"])
    captured = capsys.readouterr()
    assert code == 1 and out.is_file()
    assert captured.out == ""
    assert captured.err.splitlines() == _summary_lines(captured.err)
    assert len(captured.err.splitlines()) == 1
    assert main(["gate", str(CLUSTERS), "-q"]) == 1  # no -o: no report, only the summary
    captured = capsys.readouterr()
    assert captured.out == "" and len(_summary_lines(captured.err)) == 1
    assert main(["gate", str(CLUSTERS), "-q", "-o", "text"]) == 1  # asked for: printed
    assert "CLU-" in capsys.readouterr().out


def _rich_gate(monkeypatch: pytest.MonkeyPatch, *args: str) -> str:
    term = _Terminal()
    monkeypatch.setattr(sys, "stdout", term)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("COLUMNS", "200")
    main(["gate", str(CLUSTERS / "kafka.tf"), *args])
    return term.getvalue()


def test_the_rich_table_shows_colour_and_the_remediation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    coloured = _rich_gate(monkeypatch)
    assert _colours(coloured)
    assert "fix:" in coloured  # the remediation the plain text shows


@pytest.mark.parametrize("how", ["option", "environment"])
def test_no_color(monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    if how == "environment":
        monkeypatch.setenv("NO_COLOR", "1")
        plain = _rich_gate(monkeypatch)
    else:
        plain = _rich_gate(monkeypatch, "--no-color")
    assert "FAILED" in plain and "fix:" in plain
    assert _colours(plain) == set()  # bold and dim stay: NO_COLOR is about colour


def _colours(text: str) -> set[str]:
    """The colour parameters (30-49, 90-107) of the SGR escape sequences in ``text``."""
    params = {p for seq in re.findall(r"\x1b\[([0-9;]*)m", text) for p in seq.split(";")}
    return {p for p in params if p.isdigit() and (30 <= int(p) <= 49 or 90 <= int(p) <= 107)}


def test_no_spinner_under_quiet_nor_beside_a_report(monkeypatch: pytest.MonkeyPatch) -> None:
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    monkeypatch.setenv("TERM", "xterm")
    _ci.mode = _ci.CiMode(quiet=True)
    try:
        with stage("Loading big.json"):
            pass
    finally:
        _ci.mode = _ci.CiMode()
    assert term.getvalue() == ""
    # a text report to the terminal is written outside any spinner: stderr gets no frame
    rich = _rich_gate(monkeypatch)
    assert "Writing the reports" not in rich and "\r" not in rich.split("\n", 1)[0]


def test_shell_completion_is_installable() -> None:
    env = {**os.environ, "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    out = subprocess.run(
        [str(BIN / "auditor"), "--show-completion", "bash"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert out.returncode == 0, out.stderr
    assert "_auditor_completion" in out.stdout and "complete " in out.stdout
    helped = subprocess.run(
        [str(BIN / "auditor"), "--help"], capture_output=True, text=True, timeout=60
    )
    assert "--install-completion" in helped.stdout


# --- the shipped CI files -------------------------------------------------------------------


def _action() -> dict[str, Any]:
    doc = yaml.safe_load((ROOT / "action.yml").read_text())
    assert isinstance(doc, dict)
    return doc


def test_the_action_is_a_composite_that_installs_gates_and_uploads() -> None:
    action = _action()
    assert action["runs"]["using"] == "composite"
    assert set(action["inputs"]) >= {"path", "fail-on", "args"}
    steps = action["runs"]["steps"]
    uses = [s.get("uses", "") for s in steps]
    assert any(u.startswith("actions/setup-python@") for u in uses)
    assert any(u.startswith("github/codeql-action/upload-sarif@") for u in uses)
    install = next(s["run"] for s in steps if "pip install" in s.get("run", ""))
    assert "${{ github.action_path }}" in install
    upload = next(s for s in steps if "upload-sarif" in s.get("uses", ""))
    assert upload["with"]["sarif_file"] == "auditor.sarif"


GITHUB = {
    "server_url": "https://github.com",
    "action_repository": "example/auditor",
    "action_ref": "v1",
}


def _expand(text: str, inputs: dict[str, str]) -> str:
    """The Action's ``${{ inputs.NAME }}`` and ``${{ github.NAME }}`` expressions, as the runner
    fills them."""
    text = re.sub(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", lambda m: inputs[m.group(1)], text)
    return re.sub(r"\$\{\{\s*github\.(\w+)\s*\}\}", lambda m: GITHUB[m.group(1)], text)


@pytest.mark.parametrize(
    ("fail_on", "args", "expected"),
    [("high", "", 1), ("none", "--soft-fail", 0)],
)
def test_the_actions_gate_step_runs_as_written(
    tmp_path: Path, fail_on: str, args: str, expected: int
) -> None:
    action = _action()
    step = next(s for s in action["runs"]["steps"] if s.get("id") == "gate")
    inputs = {"path": str(CLUSTERS), "fail-on": fail_on, "args": args}
    env = {
        **os.environ,
        **{k: _expand(str(v), inputs) for k, v in step.get("env", {}).items()},
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    assert step["shell"] == "bash"
    done = subprocess.run(
        ["bash", "-e", "-c", _expand(step["run"], inputs)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == expected, done.stderr
    assert len(_summary_lines(done.stderr)) == 1
    sarif = json.loads((tmp_path / "auditor.sarif").read_text())
    schema = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.validate(sarif, schema)
    assert sarif["runs"][0]["results"]
    rules = sarif["runs"][0]["tool"]["driver"]["rules"]
    page = "https://github.com/example/auditor/blob/v1/docs/rules/"
    assert rules and all(r["helpUri"] == f"{page}{r['id']}.md" for r in rules)
    assert all((ROOT / "docs" / "rules" / f"{r['id']}.md").is_file() for r in rules)


def _hook() -> dict[str, Any]:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    (hook,) = [h for h in hooks if h["id"] == "auditor-gate"]
    assert isinstance(hook, dict)
    return hook


def _fixture_repo(root: Path) -> Path:
    repo = root / "repo"
    (repo / "infra").mkdir(parents=True)
    for tf in DOMAIN.glob("*.tf"):
        shutil.copy(tf, repo / "infra" / tf.name)
    (repo / "infra" / "prod.tfvars").write_text('location = "westeurope"\n')
    (repo / "templates").mkdir()
    (repo / "templates" / "README.md").write_text("not gated\n")
    return repo


def test_the_pre_commit_hook_selects_templates_and_runs_its_entry(tmp_path: Path) -> None:
    hook = _hook()
    assert hook["language"] == "python" and hook["pass_filenames"] is True
    repo = _fixture_repo(tmp_path)
    files = sorted(p.relative_to(repo).as_posix() for p in repo.rglob("*") if p.is_file())
    include, exclude = re.compile(hook["files"]), re.compile(hook.get("exclude", "^$"))
    chosen = [f for f in files if include.search(f) and not exclude.search(f)]
    assert chosen == ["infra/main.tf", "infra/variables.tf"]
    for name in ("plans/deploy.json", "templates/azuredeploy.json", "x/azuredeploy.json"):
        assert include.search(name)
    assert exclude.search("templates/azuredeploy.parameters.json")
    entry = shlex.split(hook["entry"])
    command = [str(BIN / entry[0]), *entry[1:], *hook.get("args", []), *chosen]
    done = subprocess.run(command, cwd=repo, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert done.stdout == ""  # --quiet: the summary line only
    assert len(_summary_lines(done.stderr)) == 1 and len(done.stderr.splitlines()) == 1
