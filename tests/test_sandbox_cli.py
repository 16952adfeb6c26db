"""``auditor sandbox serve`` as a user runs it (a real process), and the fault injector."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import msgspec

from auditor.cli import main
from auditor.sandbox.config import FaultConfig, FaultInjector
from tests.test_sandbox_helpers import S1, USER, estate_json


def _serve(*args: str) -> tuple[subprocess.Popen[str], str, str | None]:
    process = subprocess.Popen(
        [sys.executable, "-m", "auditor", "sandbox", "serve", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    url = token = None
    for line in process.stdout:  # printed once the socket listens
        if m := re.match(r"Serving the sandbox at (\S+)", line):
            url = m.group(1)
        if m := re.match(r"Bearer token \(read access at /\): (\S+)", line):
            token = m.group(1)
        if line.startswith("Press Ctrl-C"):
            break
    assert url is not None, process.stderr.read() if process.stderr else ""
    return process, url, token


def _stop(process: subprocess.Popen[str]) -> int:
    process.send_signal(signal.SIGINT)
    try:
        return process.wait(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()


def test_serve_the_sample_estate_with_a_generated_token() -> None:
    process, url, token = _serve()
    try:
        assert token is not None and len(token) >= 24
        headers = {"Authorization": f"Bearer {token}"}
        path = "/providers/Cloud.Authorization/roleAssignments?api-version=2022-04-01"
        r = httpx.get(url + path, headers=headers, timeout=10)
        assert r.status_code == 200 and r.json()["value"]
        assert httpx.get(url + path, timeout=10).status_code == 401
    finally:
        assert _stop(process) == 0
    assert process.stderr is not None
    assert token not in process.stderr.read()


def test_serve_a_snapshot_with_bearers_and_persist(tmp_path: Path) -> None:
    path = tmp_path / "estate.json"
    path.write_bytes(msgspec.json.encode(estate_json()))
    process, url, token = _serve(
        "--snapshot",
        str(path),
        "--bearer",
        f"tok-1={USER}",
        "--api-token",
        "v1=tok-user-full",
        "--page-size",
        "1",
        "--persist",
    )
    try:
        assert token is None  # bearers given: none generated
        r = httpx.get(
            f"{url}{S1}/providers/Cloud.Authorization/roleAssignments",
            params={"api-version": "2022-04-01"},
            headers={"Authorization": "Bearer tok-1"},
        )
        assert r.status_code == 200
        r = httpx.post(
            f"{url}/v0.1/api_tokens", json={"description": "cli"}, headers={"X-API-Token": "v1"}
        )
        assert r.status_code == 201
    finally:
        _stop(process)
    assert '"description": "cli"' in path.read_text()


def test_serve_refuses_bad_options(tmp_path: Path) -> None:
    assert main(["sandbox", "serve", "--persist"]) == 2
    assert main(["sandbox", "serve", "--bearer", "no-equals-sign"]) == 2
    assert main(["sandbox", "serve", "--fault-kinds", "418"]) == 2
    path = tmp_path / "estate.json"
    path.write_bytes(msgspec.json.encode(estate_json()))
    assert main(["sandbox", "serve", "--snapshot", str(path), "--api-token", "v=unknown-id"]) == 2


def test_faults_are_deterministic_bounded_and_filterable() -> None:
    config = FaultConfig(rate=0.5, seed=3, max_consecutive=2)
    first = [FaultInjector(config).draw("k") for _ in range(1)]
    a, b = FaultInjector(config), FaultInjector(config)
    draws_a = [a.draw(f"k{i % 3}") for i in range(60)]
    draws_b = [b.draw(f"k{i % 3}") for i in range(60)]
    assert draws_a == draws_b and first
    assert {d for d in draws_a if d} <= {"429", "500", "503"}
    c = FaultInjector(FaultConfig(rate=1.0, max_consecutive=2))
    assert [c.draw("same") is not None for _ in range(3)] == [True, True, False]
    d = FaultInjector(FaultConfig(rate=1.0, only="denyAssignments"))
    assert d.draw("x", "/subscriptions/s/providers/Cloud.Authorization/roleAssignments") is None
    assert d.draw("x", "/subscriptions/s/providers/Cloud.Authorization/denyAssignments") is not None


def test_page_size_default_is_the_sandbox_default() -> None:
    import typer

    from auditor.cli import app
    from auditor.sandbox.config import DEFAULT_PAGE_SIZE, SandboxConfig

    group = typer.main.get_command(app)
    serve = group.commands["sandbox"].commands["serve"]  # type: ignore[attr-defined]
    option = next(p for p in serve.params if p.name == "page_size")
    assert option.default == DEFAULT_PAGE_SIZE == SandboxConfig().page_size == 200
