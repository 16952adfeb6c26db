"""``auditor access check|who|what`` and ``auditor gdpr export`` through ``auditor.cli.main``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from auditor.cli import main
from auditor.estate.snapshot import dump_snapshot
from tests.test_access_support import (
    CONTRIBUTOR,
    OWNER,
    RG,
    SUB,
    VM,
    VM_WRITE,
    build,
    deny,
    group,
    ra,
    user,
)

BLOB = "Cloud.Storage/storageAccounts/blobServices/containers/blobs/read"
COND = (
    "((!(ActionMatches{'" + BLOB + "'})) OR "
    "(@Resource[Cloud.Storage/storageAccounts/blobServices/containers:name] StringEquals 'logs'))"
)


@pytest.fixture(scope="module")
def snapshot_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("access") / "snapshot.json"
    snapshot = build(
        principals=[
            user("alice", "team", name="Alice", email="alice@example.com"),
            user("bob", name="Bob"),
            group("team", name="Team"),
        ],
        assignments=[
            ra("a1", "team", CONTRIBUTOR, SUB, principal_type="Group"),
            ra("a2", "bob", "2a2b9908-6ea1-4ae2-8e65-a410df84e7d1", RG, condition=COND),
            ra("a3", "bob", OWNER, VM, created_by="alice"),
        ],
        denies=[deny("d1", RG, actions=["Cloud.Compute/*/delete"], name="No deletes")],
    )
    dump_snapshot(snapshot, path)
    return str(path)


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_check_json(snapshot_file: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        capsys,
        "access", "check", "--snapshot", snapshot_file, "--principal", "ALICE",
        "--action", VM_WRITE, "--scope", VM, "--format", "json",
    )  # fmt: skip
    assert code == 0
    decision = json.loads(out)
    assert decision["decision"] == "allowed"
    assert decision["principalId"] == "ALICE"
    assert decision["grantedBy"][0].endswith("/a1")


def test_check_text(snapshot_file: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        capsys,
        "access", "check", "--snapshot", snapshot_file, "--principal", "alice",
        "--action", "Cloud.Compute/virtualMachines/delete", "--scope", VM,
    )  # fmt: skip
    assert code == 0
    assert out.startswith("DENIED")
    assert "'No deletes'" in out


def test_check_attributes(snapshot_file: str, capsys: pytest.CaptureFixture[str]) -> None:
    base = [
        "access", "check", "--snapshot", snapshot_file, "--principal", "bob",
        "--action", BLOB, "--data-action", "--scope", RG, "--format", "json",
    ]  # fmt: skip
    _code, out, _ = _run(capsys, *base)
    assert json.loads(out)["decision"] == "conditional"
    key = "@Resource[Cloud.Storage/storageAccounts/blobServices/containers:name]"
    _code, out, _ = _run(capsys, *base, "--attribute", f"{key}=logs")
    assert json.loads(out)["decision"] == "allowed"
    _code, out, _ = _run(capsys, *base, "--attribute", f"{key}=other")
    assert json.loads(out)["decision"] == "notGranted"


def test_check_batch_in_order(
    snapshot_file: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    requests = tmp_path / "requests.jsonl"
    lines = [
        {"principalId": "alice", "action": VM_WRITE, "scope": VM},
        {"principalId": "bob", "action": VM_WRITE, "scope": RG},
        {"principalId": "alice", "action": "Cloud.Compute/virtualMachines/delete", "scope": VM},
        {"principalId": "bob", "action": BLOB, "dataAction": True, "scope": RG},
        {"principalId": "bob", "action": BLOB, "dataAction": True, "scope": RG, "attributes": {}},
    ]
    requests.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n")
    code, out, _ = _run(
        capsys, "access", "check", "--snapshot", snapshot_file, "--requests", str(requests),
        "--format", "json",
    )  # fmt: skip
    assert code == 0
    answers = [json.loads(line) for line in out.splitlines()]
    assert [a["decision"] for a in answers] == [
        "allowed",
        "notGranted",
        "denied",
        "conditional",
        "notGranted",
    ]
    code, out, _ = _run(
        capsys, "access", "check", "--snapshot", snapshot_file, "--requests", str(requests)
    )
    assert code == 0 and out.count("\n  ") >= 5


def test_check_batch_bad_line(
    snapshot_file: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    requests = tmp_path / "bad.jsonl"
    requests.write_text(
        json.dumps({"principalId": "alice", "action": VM_WRITE, "scope": VM})
        + "\n"
        + json.dumps({"principalId": "alice", "action": VM_WRITE, "scope": VM, "dataAction": 1})
        + "\n"
    )
    code, out, err = _run(
        capsys, "access", "check", "--snapshot", snapshot_file, "--requests", str(requests),
        "--format", "json",
    )  # fmt: skip
    assert code == 2
    assert len(out.splitlines()) == 1
    assert f"{requests}: line 2, field dataAction" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "args",
    [
        ["--principal", "alice", "--action", VM_WRITE],
        ["--principal", "alice", "--action", VM_WRITE, "--scope", "nope"],
        ["--principal", "alice", "--action", VM_WRITE, "--scope", "/", "--format", "xml"],
        ["--principal", "a", "--action", "b", "--scope", "/", "--attribute", "novalue"],
        ["--requests", "missing.jsonl"],
        ["--requests", "x.jsonl", "--principal", "alice"],
    ],
)
def test_check_usage_errors(
    snapshot_file: str, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    code, _out, err = _run(capsys, "access", "check", "--snapshot", snapshot_file, *args)
    assert code == 2
    assert err.startswith("auditor: error:") and "Traceback" not in err


def test_bad_snapshot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"roleAssignments": [{"id": 5}]}')
    code, _out, err = _run(
        capsys, "access", "who", "--snapshot", str(broken), "--action", "x", "--scope", "/"
    )
    assert code == 2 and "broken.json" in err and "roleAssignments[0]" in err


def test_who(snapshot_file: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        capsys, "access", "who", "--snapshot", snapshot_file, "--action",
        "Cloud.Compute/virtualMachines/delete", "--scope", VM, "--format", "json",
    )  # fmt: skip
    assert code == 0
    result = json.loads(out)
    assert {e["principalId"] for e in result["allowed"]} == set()
    assert {e["principalId"] for e in result["denied"]} == {"alice", "team", "bob"}
    code, out, _ = _run(
        capsys, "access", "who", "--snapshot", snapshot_file, "--action", VM_WRITE, "--scope", VM
    )
    assert code == 0 and "Alice" in out and "through Team" in out


def test_what(snapshot_file: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        capsys, "access", "what", "--snapshot", snapshot_file, "--principal", "alice",
        "--format", "json",
    )  # fmt: skip
    assert code == 0
    result = json.loads(out)
    assert [s["scope"] for s in result["scopes"]] == [SUB]
    code, out, _ = _run(
        capsys, "access", "what", "--snapshot", snapshot_file, "--principal", "alice",
        "--scope", VM,
    )  # fmt: skip
    assert code == 0 and "Contributor" in out and "partlyBlocked" in out


def test_gdpr_export(
    snapshot_file: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "export.json"
    code, out, _ = _run(
        capsys, "gdpr", "export", "--snapshot", snapshot_file, "--email", "ALICE@example.com",
        "-o", "json", "-o", f"json={target}",
    )  # fmt: skip
    assert code == 0
    document = json.loads(out)
    assert document == json.loads(target.read_text())
    assert document["subject"]["principalId"] == "alice"
    assert [r["name"] for r in document["roleAssignments"]["asCreatedBy"]] == ["a3"]
    code, _out, err = _run(
        capsys, "gdpr", "export", "--snapshot", snapshot_file, "--principal-id", "x", "-o", "pdf"
    )
    assert code == 2 and "-o pdf=PATH" in err
    code, _out, err = _run(
        capsys, "gdpr", "export", "--snapshot", snapshot_file, "--principal-id", "x", "-o", "xml"
    )
    assert code == 2 and "json or pdf" in err
    code, _out, err = _run(capsys, "gdpr", "export", "--snapshot", snapshot_file)
    assert code == 2


def test_gdpr_export_as_pdf(
    snapshot_file: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pypdf import PdfReader

    target = tmp_path / "export.pdf"
    code, _out, err = _run(
        capsys, "gdpr", "export", "--snapshot", snapshot_file, "--email", "ALICE@example.com",
        "-o", f"pdf={target}",
    )  # fmt: skip
    assert code == 0, err
    text = "\n".join(page.extract_text() for page in PdfReader(target).pages)
    assert "Personal data export" in text and "a3" in text
