"""The built wheel works outside the checkout: data folders ship inside it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{cmd} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    """A fresh virtual environment with the wheel installed, and a work folder outside the checkout.

    No network: the wheel is installed with --no-index --no-deps and the dependencies are borrowed
    from the development environment through a .pth file (whose own .pth hooks, such as the editable
    install of the checkout, are not processed).
    """
    tmp = tmp_path_factory.mktemp("wheel")
    dist = tmp / "dist"
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(ROOT),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(dist),
        ],
        cwd=tmp,
    )
    wheels = list(dist.glob("auditor-*.whl"))
    assert len(wheels) == 1
    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=tmp)
    py = venv / "bin" / "python"
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(py),
            "install",
            "-q",
            "--no-index",
            "--no-deps",
            str(wheels[0]),
        ],
        cwd=tmp,
    )
    purelib = _run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=tmp
    ).strip()
    Path(purelib, "_dev_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    work = tmp / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    return venv, work, env


def test_package_and_data_come_from_the_wheel(installed: tuple[Path, Path, dict[str, str]]) -> None:
    venv, work, env = installed
    out = _run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import auditor, json; from auditor._resources import data_dir;"
            "print(json.dumps([auditor.__file__, str(data_dir('grammar')), str(data_dir('rules')),"
            " str(data_dir('reports'))]))",
        ],
        cwd=work,
        env=env,
    )
    paths = json.loads(out)
    assert all(str(venv) in p for p in paths), paths
    assert all(str(ROOT) not in p for p in paths), paths
    assert (Path(paths[1]) / "filter.lark").is_file()
    assert (Path(paths[1]) / "condition.lark").is_file()


def test_real_commands_run_from_the_wheel(installed: tuple[Path, Path, dict[str, str]]) -> None:
    venv, work, env = installed
    auditor = str(venv / "bin" / "auditor")
    assert "auditor" in _run([auditor, "--version"], cwd=work, env=env)
    canonical = _run(
        [auditor, "filter", "check", "properties/status EQ 'Active'"], cwd=work, env=env
    )
    assert "eq 'Active'" in canonical
    _run([auditor, "demo", "--out", str(work / "out")], cwd=work, env=env)
    shown = _run(
        [auditor, "estate", "show", str(work / "out" / "sample-snapshot.json"), "--format", "json"],
        cwd=work,
        env=env,
    )
    assert json.loads(shown)["counts"]["roleAssignments"] > 0
