"""``auditor audit``, ``auditor gate`` and ``auditor rules list`` through ``auditor.cli.main``:
exit codes 0 / 1 / 2 (contracts 5), outputs to files and standard output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from auditor.audit.packs import shipped_catalogue
from auditor.cli import main
from auditor.estate.sample import SAMPLE_API_TOKEN, sample_plans, sample_snapshot_bytes


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("cli")
    out = {"snapshot": root / "snapshot.json"}
    out["snapshot"].write_bytes(sample_snapshot_bytes())
    for name, doc in sample_plans().items():
        out[name] = root / f"{name}.json"
        out[name].write_text(json.dumps(doc))
    return out


@pytest.fixture(autouse=True)
def _no_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no auditor.toml / pyproject.toml above tmp dirs


def test_audit_fails_on_high_and_writes_json(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "reports" / "findings.json"
    code = main(
        [
            "audit",
            "--snapshot",
            str(files["snapshot"]),
            "--as-of",
            "2026-11-21",
            "-o",
            f"json={out}",
            "-o",
            "text",
        ]
    )
    captured = capsys.readouterr()
    assert code == 1
    assert "FAILED" in captured.out and "RBAC-010" in captured.out
    doc = json.loads(out.read_text())
    assert doc["schemaVersion"] == 1 and doc["summary"]["critical"] >= 1
    assert {"ruleId", "severity", "status", "resourceId", "fingerprint", "evidence"} <= set(
        doc["findings"][0]
    )


def test_audit_exit_0_when_nothing_blocks(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "audit",
            "--snapshot",
            str(files["snapshot"]),
            "--check",
            "DOM-*",
            "--fail-on",
            "critical",
            "-o",
            "json",
        ]
    )
    doc = json.loads(capsys.readouterr().out)
    assert code == 0
    assert {f["ruleId"][:3] for f in doc["findings"]} == {"DOM"}


@pytest.mark.parametrize(
    "args",
    [
        ["audit"],
        ["audit", "--snapshot", "missing.json"],
        ["audit", "--snapshot", "{snapshot}", "--fail-on", "urgent"],
        ["audit", "--snapshot", "{snapshot}", "--check", "NOPE-999"],
        ["audit", "--snapshot", "{snapshot}", "-o", "yaml"],
        ["audit", "--snapshot", "{snapshot}", "--as-of", "tomorrow"],
        ["audit", "--snapshot", "{snapshot}", "--waivers", "missing.yaml"],
        ["gate", "missing-plan.json"],
        ["audit", "--snapshot", "{snapshot}", "--no-such-option"],
    ],
)
def test_input_errors_exit_2(
    files: dict[str, Path], args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([a.format(snapshot=files["snapshot"]) for a in args]) == 2


def test_bad_waivers_file_names_the_entry(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    w = tmp_path / "w.yaml"
    w.write_text(
        "version: 1\nwaivers:\n  - id: W-7\n    rule: DOM-001\n    resource: '*'\n    justification: ''\n    expires: 2027-01-01\n"
    )
    assert main(["audit", "--snapshot", str(files["snapshot"]), "--waivers", str(w)]) == 2
    err = capsys.readouterr().err
    assert "W-7" in err and "justification" in err


def test_expired_waiver_exit_1(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    w = tmp_path / "w.yaml"
    w.write_text(
        "version: 1\nwaivers:\n  - id: W-8\n    rule: DOM-011\n    resource: '*'\n    justification: reserved field, harmless\n    expires: 2026-01-01\n"
    )
    args = [
        "audit",
        "--snapshot",
        str(files["snapshot"]),
        "--check",
        "DOM-011",
        "--waivers",
        str(w),
        "--as-of",
        "2026-11-21",
    ]
    assert main(args) == 1
    assert "Expired waivers" in capsys.readouterr().out
    assert main([*args[:-1], "2025-12-31"]) == 0
    out = capsys.readouterr().out
    assert "Waived findings (1)" in out and "W-8" in out


def test_gate_plans(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gate", str(files["compliant-plan"])]) == 0
    assert "PASSED" in capsys.readouterr().out
    assert main(["gate", str(files["risky-plan"]), "-o", "json"]) == 1
    out = capsys.readouterr().out
    assert SAMPLE_API_TOKEN not in out
    assert any(
        f["ruleId"] == "PLAN-001" and f["status"] == "fail" for f in json.loads(out)["findings"]
    )


def test_gate_apply_needs_base_url(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["gate", str(files["compliant-plan"]), "--apply"]) == 2


def test_baseline_round_trip(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = tmp_path / "baseline.json"
    args = ["audit", "--snapshot", str(files["snapshot"]), "--as-of", "2026-11-21"]
    assert main([*args, "--create-baseline", str(base)]) == 0
    assert main([*args, "--baseline", str(base), "-o", "json"]) == 0
    capsys.readouterr()
    assert main([*args, "--baseline", str(base), "--check", "DOM-*", "-o", "json"]) == 0


def test_config_file_in_current_directory(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "auditor.toml").write_text(
        'fail-on = "critical"\nskip-check = ["critical", "HLT-001"]\n'
    )
    assert main(["audit", "--snapshot", str(files["snapshot"])]) == 0
    (tmp_path / "auditor.toml").write_text("[settings]\nbogus = 1\n")
    assert main(["audit", "--snapshot", str(files["snapshot"])]) == 2


def test_rules_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "list", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    ids = [r["id"] for r in doc["rules"]]
    assert "DOM-001" in ids and "RBAC-010" in ids and "PLAN-001" in ids
    assert ids == [r.id for r in shipped_catalogue().rules]  # counted from the packs
    rule = next(r for r in doc["rules"] if r["id"] == "DOM-001")
    assert rule["references"][0] == "AP f8f774be-6aee-492a-9e29-486ef81f3a68"
    assert doc["settings"]["minimumClusterVersion"]["default"] == "5.1"
    assert main(["rules", "list"]) == 0
    table = capsys.readouterr().out
    assert "DOM-001" in table and "ipv4MinPrefixLength" in table
    assert main(["rules", "list", "--format", "xml"]) == 2


def test_sarif_anchor_and_pdf_needs_a_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import json as _json

    from auditor.cli import main as _main
    from auditor.estate.sample import sample_snapshot_bytes

    monkeypatch.chdir(tmp_path)
    snap = tmp_path / "estate.json"
    snap.write_bytes(sample_snapshot_bytes())
    anchor = tmp_path / "infra" / "main.bicep"
    anchor.parent.mkdir()
    anchor.write_text("// deployment\n")
    sarif = tmp_path / "out.sarif"
    code = _main(
        ["audit", "--snapshot", str(snap), "-o", f"sarif={sarif}", "--sarif-anchor", str(anchor)]
    )
    assert code == 1
    results = _json.loads(sarif.read_text())["runs"][0]["results"]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert results and uris == {"infra/main.bicep"}
    capsys.readouterr()
    assert _main(["audit", "--snapshot", str(snap), "-o", "pdf"]) == 2
    assert "-o pdf=PATH" in capsys.readouterr().err
