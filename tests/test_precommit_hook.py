"""The shipped pre-commit hook (``.pre-commit-hooks.yaml``: ``auditor-gate``) run for real by
``pre-commit try-repo`` on a fixture repository: it fails on a template that breaks a rule and
passes on one that does not.

pre-commit installs a ``language: python`` hook into its own virtualenv with pip, from a clone
of the hook's repository. The test gives it a copy of this project as that repository (a git
repository in a temporary folder) and no network: pip may not reach an index
(``PIP_NO_INDEX``) and installs the project alone (``PIP_NO_DEPS``, no build isolation), finding
the build backend and the dependencies already installed in this virtualenv through
``PYTHONPATH``. The hook entry itself is the one users copy.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SHIPPED = (".pre-commit-hooks.yaml", "pyproject.toml", "README.md", "auditor", "grammar", "rules",
           "reports")  # fmt: skip
GIT = ["git", "-c", "user.name=auditor tests", "-c", "user.email=tests@example.invalid",
       "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"]  # fmt: skip


def _domain(name: str, *, public: bool) -> dict[str, object]:
    return {
        "type": "Microsoft.EventGrid/domains",
        "apiVersion": "2025-02-15",
        "name": name,
        "location": "westeurope",
        "identity": {"type": "SystemAssigned"},
        "properties": {
            "publicNetworkAccess": "Enabled" if public else "Disabled",
            "minimumTlsVersionAllowed": "1.0" if public else "1.2",
            "disableLocalAuth": True,
            "inputSchema": "CloudEventSchemaV1_0",
            "autoCreateTopicWithFirstSubscription": False,
            "autoDeleteTopicWithLastSubscription": False,
        },
    }


def _template(*resources: dict[str, object]) -> str:
    schema = "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#"
    doc = {"$schema": schema, "contentVersion": "1.0.0.0", "resources": list(resources)}
    return json.dumps(doc, indent=2) + "\n"


def _git(cwd: Path, *args: str) -> None:
    subprocess.run([*GIT, *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def _hook_repo(tmp: Path) -> Path:
    """This project as a hook repository: its shipped files committed in a fresh git repo."""
    repo = tmp / "hook-repo"
    repo.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in SHIPPED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, repo / name, ignore=ignore)
        else:
            shutil.copy2(source, repo / name)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "hook")
    return repo


def _try_repo(project: Path, hook_repo: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(home),
        "PIP_NO_INDEX": "1",
        "PIP_NO_DEPS": "1",
        "PIP_NO_BUILD_ISOLATION": "0",  # pip reads this "no" switch inverted: 0 turns isolation off
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PYTHONPATH": sysconfig.get_paths()["purelib"],
        "NO_COLOR": "1",
    }
    env.pop("PIP_INDEX_URL", None)
    command = [str(BIN / "pre-commit"), "try-repo", str(hook_repo), "auditor-gate", "--all-files"]
    return subprocess.run(
        command, cwd=project, env=env, capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not (BIN / "pre-commit").is_file():
        pytest.fail("pre-commit is missing: it is a development dependency (pip install -e .[dev])")
    return _hook_repo(tmp_path_factory.mktemp("pre-commit"))


def test_pre_commit_try_repo_fails_on_a_bad_template_and_passes_a_good_one(
    hook_repo: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    (project / "templates").mkdir(parents=True)
    (project / "templates" / "azuredeploy.json").write_text(
        _template(_domain("locked", public=False))
    )
    (project / "README.md").write_text("not gated\n")
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    home = tmp_path / "pre-commit-home"

    good = _try_repo(project, hook_repo, home)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "auditor gate" in good.stdout and "Passed" in good.stdout

    (project / "templates" / "network-template.json").write_text(
        _template(_domain("open", public=True))
    )
    _git(project, "add", "-A")
    bad = _try_repo(project, hook_repo, home)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "Failed" in bad.stdout and "- hook id: auditor-gate" in bad.stdout
    # --quiet (the hook's args): the one summary line, with the reason for the exit code
    assert "auditor: exit 1, the gate failed" in bad.stdout
    assert re.search(r"findings: [1-9]\d* failing \([1-9]\d* high", bad.stdout), bad.stdout
