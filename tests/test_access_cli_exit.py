"""``auditor access check|who|what`` as a process end without the interpreter's clean-up (issue 23:
a question answered in under a tenth of a second; the clean-up took a fifth of it): the engine is
held to the end (:func:`auditor.cli.hold_until_exit`) and the process ends with ``os._exit`` once
its output is flushed. What the process writes and its exit code are those of the same command in
process (:func:`auditor.cli.main`, which holds nothing back), answers, warnings and errors alike."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import auditor.cli
from auditor.access import AccessEngine
from auditor.cli import main
from auditor.estate.sample import sample_snapshot_bytes

OWNER = "cd18c18a-775c-5776-a857-fb9fc1e4af11"  # the sample estate's break-glass account
ROOT = "/providers/Cloud.Management/managementGroups/mg-sample-root"
WRITE = "Cloud.Compute/virtualMachines/write"


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("exit") / "sample.json"
    path.write_bytes(sample_snapshot_bytes())
    return path


def _cases(sample: Path, requests: Path) -> list[list[str]]:
    snap = ["--snapshot", str(sample), "--no-cache"]
    return [
        ["access", "check", *snap, "--principal", OWNER, "--action", WRITE, "--scope", ROOT],
        ["access", "check", *snap, "--principal", OWNER, "--action", WRITE, "--scope", ROOT,
         "--format", "json"],
        # an unknown action: the answer with its warning, then exit 2
        ["access", "check", *snap, "--principal", OWNER, "--action", "Cloud.Nope/x/write",
         "--scope", ROOT, "--format", "json", "--strict"],
        ["access", "check", *snap, "--principal", "nobody at all", "--action", WRITE,
         "--scope", ROOT],
        ["access", "check", *snap, "--requests", str(requests), "--format", "json", "--strict"],
        ["access", "check", *snap, "--requests", str(requests)],
        ["access", "who", *snap, "--action", WRITE, "--scope", ROOT, "--format", "json"],
        ["access", "what", *snap, "--principal", OWNER],
        ["access", "check", *snap, "--principal", OWNER, "--action", WRITE, "--scope", "nope"],
    ]  # fmt: skip


def _requests(path: Path) -> Path:
    lines = [
        {"principalId": OWNER, "action": WRITE, "scope": ROOT},
        {"principalId": "unknown-principal", "action": WRITE, "scope": ROOT + "/x"},
        {"principalId": OWNER, "action": "Cloud.Storage/x/read", "scope": ROOT, "dataAction": True},
    ]
    out = path / "requests.jsonl"
    out.write_text(
        "".join(json.dumps(r) + "\n" for r in lines * 40) + '{"principalId": 1}\n',
        encoding="utf-8",
    )
    return out


def test_the_process_says_what_the_command_says_in_process(
    sample: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env = {**os.environ, "AUDITOR_DEBUG": "", "AUDITOR_CACHE_DIR": str(tmp_path / "cache")}
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "PYTHONUNBUFFERED"):  # output to pipes, buffered
        env.pop(name, None)
    codes = set()
    for args in _cases(sample, _requests(tmp_path)):
        proc = subprocess.run(
            [sys.executable, "-m", "auditor", *args],
            capture_output=True,
            cwd=tmp_path,
            env=env,
            check=False,
            timeout=120,
        )
        code = main(args)
        assert auditor.cli._HELD is None  # in process, nothing is held back
        out, err = capsys.readouterr()
        assert (proc.returncode, proc.stdout.decode(), proc.stderr.decode()) == (code, out, err)
        assert out or err  # every case says something
        codes.add(code)
    assert codes == {0, 2}


@pytest.mark.parametrize(
    "args",
    [
        ["access", "check", "--principal", OWNER, "--action", WRITE, "--scope", ROOT],
        ["access", "who", "--action", WRITE, "--scope", ROOT],
        ["access", "what", "--principal", OWNER],
    ],
)
def test_the_engine_is_held_to_the_end_of_the_process(
    sample: Path,
    args: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    held: list[Any] = []
    monkeypatch.setattr(auditor.cli, "_HELD", held)  # as run() sets it for the console script
    assert main([*args, "--snapshot", str(sample), "--no-cache"]) == 0
    assert capsys.readouterr().out
    assert [type(item) for item in held] == [AccessEngine]
