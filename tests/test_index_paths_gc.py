"""The garbage collector during ``auditor audit`` (issue 23): the snapshot's load and the audit run
with the collector paused (:func:`auditor.cli.collector_paused`: the estate and the findings make no
cycles, and at a million role assignments the collections that walked them took about 0.13 s); in
the ``auditor`` process what they made is frozen, in process (tests, a library user) the collector
is only turned back on. The report is the same either way."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest

import auditor.cli
from auditor.audit import runner
from auditor.cli import _estate, main
from auditor.estate.sample import sample_snapshot_bytes


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # no configuration file of the checkout is found
    (tmp_path / "estate.json").write_bytes(sample_snapshot_bytes())
    return tmp_path


def _spy(monkeypatch: pytest.MonkeyPatch, module: Any, name: str, seen: list[str]) -> None:
    real = getattr(module, name)

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(f"{name} {'on' if gc.isenabled() else 'off'}")
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)


def _audit(work: Path, out: str) -> dict[str, Any]:
    code = main(["audit", "--snapshot", "estate.json", "--fail-on", "none", "-o", f"json={out}"])
    assert code == 0
    report: dict[str, Any] = json.loads((work / out).read_text(encoding="utf-8"))
    for key in ("startedAt", "finishedAt"):
        report.pop(key, None)
    return report


@pytest.mark.parametrize("as_process", [False, True])
def test_the_load_and_the_audit_run_with_the_collector_paused(
    work: Path, monkeypatch: pytest.MonkeyPatch, as_process: bool
) -> None:
    before = _audit(work, "before.json")
    seen: list[str] = []
    _spy(monkeypatch, _estate, "read_estate", seen)
    _spy(monkeypatch, runner, "audit_snapshot", seen)
    monkeypatch.setattr(auditor.cli, "_HELD", [] if as_process else None)
    frozen = gc.get_freeze_count()
    assert gc.isenabled()
    after = _audit(work, "after.json")
    assert seen == ["read_estate off", "audit_snapshot off"]
    assert gc.isenabled()  # back on after the command
    if as_process:
        assert gc.get_freeze_count() > frozen  # the estate and the result are never walked
    else:
        assert gc.get_freeze_count() <= frozen  # in process nothing is frozen
    assert after == before
