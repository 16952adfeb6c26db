"""``auditor estate show|generate`` and ``auditor demo`` through ``auditor.cli.main``, and every way a
snapshot file can be unusable: exit code 2, a message naming the file, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from auditor.cli import main
from auditor.estate import sample as S
from auditor.estate.snapshot import load_snapshot

Capsys = pytest.CaptureFixture[str]


@pytest.fixture
def sample_file(tmp_path: Path) -> Path:
    path = tmp_path / "sample.json"
    path.write_bytes(S.sample_snapshot_bytes())
    return path


def _run(capsys: Capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- estate show ------------------------------------------------------------------------------------


def test_show_table(capsys: Capsys, sample_file: Path) -> None:
    code, out, err = _run(capsys, "estate", "show", str(sample_file))
    assert code == 0, err
    assert str(sample_file) in out
    assert "Records per kind" in out and "Per subscription" in out
    for title in ("Role assignments", "Deny assignments", "Health events", "API tokens"):
        assert title in out
    for sub in S.SUBSCRIPTIONS.values():
        assert sub in out
    assert S.SUBSCRIPTION_NAMES["prod"] in out
    assert "(above subscriptions)" in out


def test_show_json(capsys: Capsys, sample_file: Path) -> None:
    code, out, err = _run(capsys, "estate", "show", str(sample_file), "--format", "json")
    assert code == 0, err
    summary = json.loads(out)
    data = S.sample_snapshot_json()
    assert summary["file"] == str(sample_file)
    assert summary["counts"] == {
        "hierarchy": len(data["hierarchy"]),
        "principals": len(data["principals"]),
        "roleDefinitions": len(data["roleDefinitions"]),
        "roleAssignments": len(data["roleAssignments"]),
        "denyAssignments": len(data["denyAssignments"]),
        "clusters": len(data["clusters"]),
        "domains": len(data["domains"]),
        "healthEvents": len(data["healthEvents"]),
        "devTooling.apps": len(data["devTooling"]["apps"]),
        "devTooling.tokens": len(data["devTooling"]["tokens"]),
    }
    assert summary["managementGroups"] == 4
    assert summary["subscriptionCount"] == 4
    rows = {r["subscriptionId"]: r for r in summary["subscriptions"]}
    prod = rows[S.SUBSCRIPTIONS["prod"]]
    prod_scope = S.sub_scope("prod")

    def under(ids: list[str]) -> int:
        return sum(1 for i in ids if i.startswith(prod_scope + "/") or i == prod_scope)

    assert prod["displayName"] == S.SUBSCRIPTION_NAMES["prod"]
    assert prod["roleAssignments"] == under(
        [ra["properties"]["scope"] for ra in data["roleAssignments"]]
    )
    assert prod["denyAssignments"] == under(
        [d["properties"]["scope"] for d in data["denyAssignments"]]
    )
    assert prod["clusters"] == prod["domains"] == 1
    assert prod["healthEvents"] == under([e["id"] for e in data["healthEvents"]])
    assert rows[S.SUBSCRIPTIONS["sandbox"]]["displayName"] is None  # not in the hierarchy
    assert summary["aboveSubscriptions"]["roleAssignments"] == 3
    total = sum(r["roleAssignments"] for r in rows.values())
    assert total + summary["aboveSubscriptions"]["roleAssignments"] == len(data["roleAssignments"])


def test_show_subscriptions_compare_case_insensitively(capsys: Capsys, tmp_path: Path) -> None:
    data = S.sample_snapshot_json()
    ra = data["roleAssignments"][5]
    ra["properties"]["scope"] = (
        ra["properties"]["scope"].upper().replace("/SUBSCRIPTIONS/", "/subscriptions/")
    )
    path = tmp_path / "mixed.json"
    path.write_bytes(msgspec.json.encode(data))
    code, out, _ = _run(capsys, "estate", "show", str(path), "-f", "json")
    assert code == 0
    assert json.loads(out)["subscriptionCount"] == 4


# --- estate generate --------------------------------------------------------------------------------


def test_generate_and_refuse_to_overwrite(capsys: Capsys, tmp_path: Path) -> None:
    out = tmp_path / "synthetic.json"
    args = ["estate", "generate", "--role-assignments", "500", "--seed", "4", "--out", str(out)]
    code, stdout, err = _run(capsys, *args)
    assert code == 0, err
    assert f"wrote {out}" in stdout and "500 role assignments" in stdout
    first = out.read_bytes()
    assert load_snapshot(out).counts()["roleAssignments"] == 500

    code, stdout, err = _run(capsys, *args)
    assert code == 2
    assert str(out) in err and "exists already" in err and "--force" in err
    assert "Traceback" not in err + stdout
    assert out.read_bytes() == first

    code, _, err = _run(capsys, *args[:-2], "--out", str(out), "--force", "--seed", "5")
    assert code == 0, err
    assert out.read_bytes() != first


def test_generate_options(capsys: Capsys, tmp_path: Path) -> None:
    out = tmp_path / "small.json"
    code, _, err = _run(
        capsys, "estate", "generate", "--role-assignments", "40", "--seed", "1", "--out", str(out),
        "--principals", "12", "--deny-assignments", "3",
    )  # fmt: skip
    assert code == 0, err
    counts = load_snapshot(out).counts()
    assert (counts["roleAssignments"], counts["principals"], counts["denyAssignments"]) == (
        40,
        12,
        3,
    )


def test_generate_rejects_negative_numbers(capsys: Capsys, tmp_path: Path) -> None:
    out = tmp_path / "x.json"
    for option in ("--role-assignments", "--principals", "--deny-assignments"):
        args = {"--role-assignments": "10", "--principals": "5", "--deny-assignments": "1"}
        args[option] = "-5"
        flat = [x for kv in args.items() for x in kv]
        code, _, err = _run(capsys, "estate", "generate", *flat, "--seed", "1", "--out", str(out))
        assert code == 2, err
        assert "negative" in err and "Traceback" not in err
        assert not out.exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["estate", "show", "x.json", "--format", "yaml"],
        ["estate", "generate", "--seed", "1", "--out", "x.json"],
        ["estate", "generate", "--role-assignments", "many", "--seed", "1", "--out", "x.json"],
        ["demo", "--bogus"],
    ],
)
def test_usage_errors_exit_2(capsys: Capsys, argv: list[str]) -> None:
    code, _, err = _run(capsys, *argv)
    assert code == 2, err
    assert "Traceback" not in err and "internal error" not in err


# --- demo -------------------------------------------------------------------------------------------


def test_help_lists_the_commands(capsys: Capsys) -> None:
    code, out, _ = _run(capsys, "--help")
    assert code == 0
    assert "estate" in out and "demo" in out
    code, out, _ = _run(capsys, "estate", "--help")
    assert code == 0
    assert "show" in out and "generate" in out


# --- unusable snapshot files --------------------------------------------------------------------------


def _deep_type_error() -> bytes:
    data: dict[str, Any] = S.sample_snapshot_json()
    data["denyAssignments"][3]["properties"]["doNotApplyToChildScopes"] = "true"
    return msgspec.json.format(msgspec.json.encode(data), indent=2)


BAD_FILES: dict[str, tuple[bytes | None, tuple[str, ...]]] = {
    "missing": (None, ("no such",)),
    "directory": (b"", ("directory",)),
    "empty": (b"", ("empty",)),
    "whitespace": (b"  \n\t\n", ("empty",)),
    "invalid-json": (b'{"snapshotVersion": 1,\n  "principals": [}\n', ("line 2", "column")),
    "truncated": (S.sample_snapshot_bytes()[:5000], ("truncated", "line", "column")),
    "not-utf8": (b'{"snapshotVersion": 1, "tenantId": "caf\xe9"}', ("UTF-8", "line 1")),
    "top-level-array": (b"[1, 2, 3]\n", ("object", "array")),
    "deep-type-error": (
        _deep_type_error(),
        ("denyAssignments[3].properties.doNotApplyToChildScopes", '"true"'),
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
@pytest.mark.parametrize("command", ["show", "show-json"])
def test_unusable_snapshot_files(capsys: Capsys, tmp_path: Path, case: str, command: str) -> None:
    content, needles = BAD_FILES[case]
    path = tmp_path / f"{case}.json"
    if case == "directory":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    args = ["estate", "show", str(path)] + (["--format", "json"] if command == "show-json" else [])
    code, out, err = _run(capsys, *args)
    assert code == 2, (out, err)
    assert out == ""
    assert str(path) in err
    for needle in needles:
        assert needle in err, (needle, err)
    assert "Traceback" not in err
    assert err.startswith("auditor: error: ")


def test_estate_commands_import_heavy_modules_lazily() -> None:
    """Loading the command module alone pulls in neither the loader nor msgspec, pydantic or rich."""
    probe = (
        "import importlib.util, sys\n"
        "spec = importlib.util.spec_from_file_location('probe', sys.argv[1])\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(module)\n"
        "heavy = [m for m in sys.modules if m.split('.')[0] in ('msgspec', 'pydantic', 'rich')\n"
        "         or m.startswith('auditor.estate')]\n"
        "print(heavy)\n"
    )
    import auditor.cli._estate as module

    done = subprocess.run(
        [sys.executable, "-c", probe, module.__file__ or ""],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "[]", done.stdout + done.stderr
