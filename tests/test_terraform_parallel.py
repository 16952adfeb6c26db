"""A repository's Terraform modules read by two processes (issue 17, speed): the same findings in
the same order as one process, errors naming the file as a serial read names it, a small folder
read in one process, and no worker left behind (an error, Ctrl-C)."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest

from auditor.errors import InputError
from auditor.sources import read_deployment
from auditor.sources.deployment import DeploymentSet
from auditor.sources.terraform import _parallel, read_terraform_modules

_DOMAIN = """
variable "env" {{
  default = "e{i}"
}}
resource "azurerm_eventgrid_domain" "d{i}" {{
  name                = "evgd-${{var.env}}-{i}"
  location            = "westeurope"
  resource_group_name = "rg-{i}"
  public_network_access_enabled = {public}
  # auditor:skip=DOM-002 reviewed for module {i}
}}
"""


def _repository(root: Path, modules: int) -> Path:
    for i in range(modules):
        folder = root / f"m{i:02d}"
        folder.mkdir(parents=True)
        public = "true" if i % 2 else "false"
        (folder / "main.tf").write_text(_DOMAIN.format(i=i, public=public), encoding="utf-8")
    return root


@pytest.fixture
def parallel(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two processes for any folder of two modules or more (on a one-core machine too)."""
    monkeypatch.setattr(_parallel, "MIN_PARALLEL_BYTES", 0)
    monkeypatch.setattr(_parallel, "MIN_PARALLEL_MODULES", 2)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)


def _serial(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_parallel, "MIN_PARALLEL_MODULES", 10**9)


def test_two_processes_read_what_one_reads_in_the_same_order(
    tmp_path: Path, parallel: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repository(tmp_path, 12)
    shared = read_deployment([root])
    _serial(monkeypatch)
    alone = read_deployment([root])
    assert shared.plan.requests == alone.plan.requests
    assert (shared.warnings, shared.skipped) == (alone.warnings, alone.skipped)
    assert [r.source.address for r in shared.plan.requests if r.source] == [
        f"azurerm_eventgrid_domain.d{i}" for i in range(12)
    ]
    assert multiprocessing.active_children() == []


def test_the_modules_are_shared_between_two_processes(parallel: None) -> None:
    both_started = multiprocessing.get_context("fork").Event()

    def read(folder: str) -> DeploymentSet:
        if folder == "a":  # (taken first, by this process: waits for the worker's first module)
            assert both_started.wait(timeout=30)
        else:
            both_started.set()
        return DeploymentSet(inputs=[folder], warnings=[str(os.getpid())])

    found = _parallel.read_modules(["a", "b", "c", "d"], read)
    assert [ds.inputs for ds in found if ds is not None] == [["a"], ["b"], ["c"], ["d"]]
    pids = {ds.warnings[0] for ds in found if ds is not None}
    assert str(os.getpid()) in pids and len(pids) == 2
    assert multiprocessing.active_children() == []


def test_a_small_folder_is_read_in_one_process(tmp_path: Path) -> None:
    root = _repository(tmp_path, 3)
    folders = sorted(str(p) for p in root.iterdir())
    assert read_terraform_modules(folders) == [None, None, None]  # (read by the caller)
    assert len(read_deployment([root]).plan.requests) == 3


def test_an_error_in_a_module_is_raised_as_a_serial_read_raises_it(
    tmp_path: Path, parallel: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repository(tmp_path, 10)
    broken = root / "m07" / "main.tf"
    broken.write_text('resource "azurerm_eventgrid_domain" "x" {\n  name = [1,\n', "utf-8")
    with pytest.raises(InputError) as shared:
        read_deployment([root])
    _serial(monkeypatch)
    with pytest.raises(InputError) as alone:
        read_deployment([root])
    assert str(shared.value) == str(alone.value)
    assert shared.value.source == str(broken) and shared.value.location is not None
    assert multiprocessing.active_children() == []


def test_ctrl_c_stops_the_worker(parallel: None) -> None:
    parent = os.getpid()
    never = multiprocessing.get_context("fork").Event()

    def read(folder: str) -> DeploymentSet:
        if os.getpid() == parent:
            raise KeyboardInterrupt
        never.wait(timeout=60)  # (the worker is stopped long before)
        return DeploymentSet()

    with pytest.raises(KeyboardInterrupt):
        _parallel.read_modules(["a", "b", "c"], read)
    assert multiprocessing.active_children() == []


@pytest.mark.parametrize("shared", [True, False])
def test_the_callers_preparation_runs_once_in_this_process(
    tmp_path: Path, shared: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repository(tmp_path, 10)
    if shared:
        monkeypatch.setattr(_parallel, "MIN_PARALLEL_BYTES", 0)
        monkeypatch.setattr(_parallel, "MIN_PARALLEL_MODULES", 2)
        monkeypatch.setattr(os, "cpu_count", lambda: 2)
    calls: list[int] = []
    read = read_deployment([root], meanwhile=lambda: calls.append(os.getpid()))
    assert calls == [os.getpid()]
    assert len(read.plan.requests) == 10

    def refuse() -> None:
        raise InputError("no such file", source="--waivers w.yaml")

    with pytest.raises(InputError, match="no such file"):  # (its error is the caller's error)
        read_deployment([root], meanwhile=refuse)
    assert multiprocessing.active_children() == []
