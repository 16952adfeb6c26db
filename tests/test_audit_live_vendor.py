"""``auditor audit --base-url`` with the live options of ``collect`` (issue 18, item 4):
``--namespace vendor`` audits the vendor's management API (``Microsoft.*`` paths, against the
sandbox serving the vendor's names, as ``sandbox serve --namespace vendor`` does, on a free loopback
port) with the findings of the seed's namespace, and the bearer token of ``--token-command`` or
the environment never appears in any output. The options are one definition shared with
``collect``."""

from __future__ import annotations

import json
import logging
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer

from auditor.cli import app, main
from auditor.estate.snapshot import dumps_snapshot
from auditor.sandbox import SandboxConfig, SandboxServer
from tests.test_collect_vendor import ESTATE, SUBSCRIPTIONS  # the sample estate, its subscriptions

TOKEN = "audit-live-token-4c1e9b"
AS_OF = "2026-11-21"


def _server(namespace: str) -> SandboxServer:
    config = SandboxConfig(reader_token=TOKEN, namespace=namespace, page_size=4)  # type: ignore[arg-type]
    return SandboxServer(ESTATE, config)


@pytest.fixture(scope="module")
def vendor() -> Iterator[SandboxServer]:
    with _server("vendor") as server:
        yield server


@pytest.fixture(scope="module")
def directory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The estate's hierarchy, principals and role definitions (the API serves none of them)."""
    path = tmp_path_factory.mktemp("directory") / "directory.json"
    path.write_bytes(dumps_snapshot(ESTATE))
    return path


@pytest.fixture(autouse=True)
def _no_api_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AUDITOR_API_TOKEN", raising=False)


def _audit(url: str, report: Path, *more: str) -> list[str]:
    argv = ["audit", "--base-url", url, "--as-of", AS_OF, "-o", f"json={report}", "-o", "text"]
    for sub in SUBSCRIPTIONS:
        argv += ["--subscription", sub]
    return [*argv, "--soft-fail", *more]


def _findings(report: Path, url: str = "") -> list[dict[str, Any]]:
    """The report's findings, ``url`` (where they were read: in each finding's source) as URL."""
    text = report.read_text()
    findings: list[dict[str, Any]] = json.loads(text.replace(url, "URL") if url else text)
    return findings["findings"]  # type: ignore[call-overload,no-any-return]


def test_the_vendors_namespace_gives_the_findings_of_the_seeds(
    vendor: SandboxServer,
    directory: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("AUDITOR_TOKEN", TOKEN)
    from_vendor, from_seed = tmp_path / "vendor.json", tmp_path / "seed.json"
    more = ("--directory", str(directory))
    assert main(_audit(vendor.url, from_vendor, "--namespace", "vendor", *more)) == 0
    captured = capsys.readouterr()
    assert TOKEN not in captured.out + captured.err + from_vendor.read_text()
    with _server("seed") as seed:
        assert main(_audit(seed.url, from_seed, *more)) == 0
        seed_findings = _findings(from_seed, seed.url)
    capsys.readouterr()
    vendor_findings = _findings(from_vendor, vendor.url)
    assert vendor_findings == seed_findings
    assert vendor_findings[0]["source"]["file"] == "the answers of URL"
    assert {f["status"] for f in vendor_findings} >= {"pass", "fail"}
    audited = {f["resourceId"] for f in vendor_findings}
    assert {r.id for r in ESTATE.roleAssignments} <= audited
    assert not any("Microsoft." in f["resourceId"] for f in vendor_findings)
    # the vendor's paths are not the seed's: the seed's namespace against them reads nothing
    failed = tmp_path / "failed.json"
    assert main([*_audit(vendor.url, failed), "--namespace", "seed"]) == 3
    capsys.readouterr()
    assert "HTTP 404" in json.dumps(json.loads(failed.read_text())["incomplete"])


def test_the_token_commands_token_never_appears(
    vendor: SandboxServer,
    directory: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.delenv("AUDITOR_TOKEN", raising=False)
    script = tmp_path / "token.py"
    script.write_text(f"print({TOKEN!r})\n")
    command = shlex.join([sys.executable, str(script)])
    caplog.set_level(logging.DEBUG)
    reports = [tmp_path / "r.sarif", tmp_path / "r.xml", tmp_path / "r.csv"]
    argv = _audit(vendor.url, tmp_path / "r.json", "--namespace", "vendor", "--directory")
    argv.append(str(directory))
    argv += ["--token-command", command, "-o", f"sarif={reports[0]}", "-o", f"junit={reports[1]}"]
    assert main([*argv, "-o", f"csv={reports[2]}"]) == 0
    captured = capsys.readouterr()
    assert "Role assignment" in captured.out or "RBAC-" in captured.out  # the text report
    written = "".join(p.read_text() for p in [tmp_path / "r.json", *reports])
    assert TOKEN not in captured.out + captured.err + caplog.text + written
    findings = _findings(tmp_path / "r.json")
    assert {f["resourceId"] for f in findings} >= {r.id for r in ESTATE.roleAssignments}


def test_a_failing_token_command_and_misused_options_are_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("AUDITOR_TOKEN", raising=False)
    script = tmp_path / "failing.py"
    script.write_text(f"import sys\nprint({TOKEN!r})\nsys.exit(5)\n")
    failing = shlex.join([sys.executable, str(script)])
    url = "http://127.0.0.1:9"  # never reached: the token comes first
    report = tmp_path / "r.json"
    assert main(_audit(url, report, "--namespace", "vendor", "--token-command", failing)) == 2
    err = capsys.readouterr().err
    assert "token command 'python" in err and "exit status 5" in err and TOKEN not in err
    assert not report.exists()
    assert main(_audit(url, report)) == 2  # no token at all
    assert "AUDITOR_TOKEN is not set" in capsys.readouterr().err
    snapshot = tmp_path / "estate.json"
    snapshot.write_bytes(dumps_snapshot(ESTATE))
    for argv, expected in (
        (
            _audit(url, report, "--token-command", "x", "--token-source", "azure-identity"),
            "not both",
        ),
        (_audit(url, report, "--namespace", "other"), "expected seed or vendor"),
        (_audit(url, report, "--token-source", "vault"), "expected env or azure-identity"),
        (["audit", "--snapshot", str(snapshot), "--namespace", "vendor"], "only used with --base"),
        (["audit", "--snapshot", str(snapshot), "--token-command", "x"], "only used with --base"),
        (["audit", "--subscription", SUBSCRIPTIONS[0]], "exactly one of --snapshot"),
    ):
        assert main(argv) == 2, argv
        assert expected in capsys.readouterr().err, argv
    assert not report.exists()


def test_namespace_vendor_alone_means_the_vendors_management_api(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without --base-url, --namespace vendor collects from the vendor's API (not reached here:
    the collection itself is replaced)."""
    import auditor.cli._audit as audit_cli

    seen: list[tuple[str, str]] = []

    def collect(base_url: str, *args: Any, namespace: str, **kw: Any) -> Any:
        seen.append((base_url, namespace))
        raise typer.Exit(0)

    monkeypatch.setattr(audit_cli, "_collect", collect)
    argv = ["audit", "--namespace", "vendor", "--subscription", SUBSCRIPTIONS[0]]
    assert main(argv) == 0
    assert seen == [("https://management.azure.com", "vendor")]


def test_audit_and_collect_share_one_definition_of_the_live_options() -> None:
    command = typer.main.get_command(app)
    assert isinstance(command, typer.core.TyperGroup)
    params = {
        name: {p.name: p for p in command.commands[name].params} for name in ("audit", "collect")
    }
    for option in ("namespace", "token_command", "token_source", "token_env", "api_token_env"):
        audit, collect = params["audit"][option], params["collect"][option]
        assert audit.opts == collect.opts and audit.default == collect.default, option
        if option in ("namespace", "token_command", "token_source"):
            assert getattr(audit, "help", None) == getattr(collect, "help", None), option
