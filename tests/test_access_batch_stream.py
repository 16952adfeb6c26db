"""``auditor access check --requests``: the JSON Lines batch path writes exactly the bytes that
deciding, encoding and making inert each request by itself writes (the way it was written before it
was encoded a block of decisions at a time), warnings and escapes included; a bad line still stops
the batch after the decisions of the lines before it."""

from __future__ import annotations

import io
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.access import (
    AccessEngine,
    Decision,
    decisions_to_json_lines,
    read_request_lines,
)
from auditor.cli import main
from auditor.cli._access import _WRITE_EVERY, _inert_lines, _write_windows
from auditor.estate.generate import generate_estate
from auditor.estate.sample import sample_snapshot_bytes
from auditor.inert import inert_json, inert_json_bytes

ACTIONS = [
    "Cloud.Compute/virtualMachines/write",
    "Cloud.Compute/virtualMachines/read",
    "Cloud.Authorization/roleAssignments/write",
    "Cloud.Storage/storageAccounts/listKeys/action",
    "Cloud.Compute/virtualMachnes/write",  # misspelt: a warning
    "Cloud.Unknown/things/read",
]
DATA_ACTIONS = [
    "Cloud.Storage/storageAccounts/blobServices/containers/blobs/read",
    "Cloud.KeyVault/vaults/secrets/getSecret/action",
]
ODD = ["\u202eevil", "tab\there", "del\x7f", "c1\x85", "arrow → x", 'quote " and \\ slash', "ünï"]


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("batch") / "sample.json"
    path.write_bytes(sample_snapshot_bytes())
    return path


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("batch") / "generated.json"
    generate_estate(400, seed=5, principals=60, deny_assignments=8, out=path)
    return path


def _requests(snapshot: Path, count: int, seed: int) -> list[dict[str, Any]]:
    """Requests of every kind: principals and scopes the estate holds, children of its scopes,
    unknown principals, actions and scopes (warnings), attributes, text that must be escaped."""
    doc = json.loads(snapshot.read_bytes())
    assignments = [a["properties"] for a in doc["roleAssignments"]]
    principals = [p["id"] for p in doc["principals"]] + [a["principalId"] for a in assignments]
    scopes = [a["scope"] for a in assignments]
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        scope = rng.choice(scopes)
        roll = rng.random()
        if roll < 0.3:
            scope = (
                scope.rstrip("/") + f"/providers/Cloud.Compute/virtualMachines/vm{rng.randrange(5)}"
            )
        elif roll < 0.35:
            scope = "/subscriptions/00000000-0000-0000-0000-00000000dead"
        principal = rng.choice(principals)
        if rng.random() < 0.08:
            principal = rng.choice(ODD) if rng.random() < 0.5 else f"{rng.getrandbits(64):x}"
        data = rng.random() < 0.25
        request: dict[str, Any] = {
            "principalId": principal,
            "action": rng.choice(DATA_ACTIONS if data else ACTIONS),
            "scope": scope if rng.random() > 0.05 else f"/{rng.choice(ODD)}",
        }
        if data:
            request["dataAction"] = True
        if rng.random() < 0.1:
            request["attributes"] = {"@Resource[Cloud.Storage/x:name]": rng.choice(ODD)}
        out.append(request)
    return out


def _write(path: Path, requests: list[dict[str, Any]]) -> None:
    """One request a line; a third of them with ``\\u`` escapes, the rest with raw UTF-8."""
    text = "".join(json.dumps(r, ensure_ascii=i % 3 == 0) + "\n" for i, r in enumerate(requests))
    path.write_text(text, encoding="utf-8")


def _expected(snapshot: Path, lines: list[bytes]) -> str:
    """What the batch path wrote before: each decision encoded and made inert by itself."""
    engine = AccessEngine.from_file(snapshot)
    requests = list(read_request_lines(lines, source="<test>"))
    return "".join(
        inert_json(d.to_json().decode()) + "\n" for d in engine.check_many(requests, warn=True)
    )


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("which", ["sample", "generated"])
def test_the_batch_writes_what_one_by_one_wrote(
    which: str, request: pytest.FixtureRequest, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snapshot: Path = request.getfixturevalue(which)
    requests = _requests(snapshot, 2 * _WRITE_EVERY + 377, seed=len(which))
    path = tmp_path / "requests.jsonl"
    _write(path, requests)
    expected = _expected(snapshot, path.read_bytes().splitlines())
    code, out, err = _run(
        capsys, "access", "check", "--snapshot", str(snapshot), "--requests", str(path),
        "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    assert out == expected
    assert out.count("\n") == len(requests)
    assert '"warnings":[' in out and "\\u202e" in out and "\\u007f" in out  # warned, escaped
    assert "\u202e" not in out and "\x7f" not in out and "\x85" not in out
    # --strict: the same answers, then exit 2 naming how many carry warnings
    code, strict_out, err = _run(
        capsys, "access", "check", "--snapshot", str(snapshot), "--requests", str(path),
        "--format", "json", "--strict",
    )  # fmt: skip
    warned = sum('"warnings":[' in line for line in expected.splitlines())
    assert code == 2 and strict_out == expected
    assert f"{warned:,} decisions of the batch carry warnings" in err


def test_standard_input_is_read_the_same(
    sample: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    requests = _requests(sample, 1500, seed=9)
    data = "".join(json.dumps(r) + "\n" for r in requests).encode()

    class _Pipe(io.TextIOWrapper):
        def isatty(self) -> bool:
            return False

    monkeypatch.setattr(sys, "stdin", _Pipe(io.BytesIO(data)))
    code, out, err = _run(
        capsys, "access", "check", "--snapshot", str(sample), "--requests", "-", "--format", "json"
    )
    assert code == 0, err
    assert out == _expected(sample, data.splitlines())


def test_a_bad_line_stops_the_batch_after_the_decisions_before_it(
    generated: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = _requests(generated, _WRITE_EVERY + 250, seed=3)
    path = tmp_path / "bad.jsonl"
    lines = [json.dumps(r) for r in good]
    lines.append('{"principalId": "x", "action": "a/b", "scope": "/", "dataAction": "yes"}')
    lines.append(json.dumps(good[0]))
    path.write_text("\n".join(lines) + "\n")
    code, out, err = _run(
        capsys, "access", "check", "--snapshot", str(generated), "--requests", str(path),
        "--format", "json",
    )  # fmt: skip
    assert code == 2
    assert out == _expected(generated, [line.encode() for line in lines[: len(good)]])
    assert f"{path}: line {len(good) + 1}, field dataAction" in err
    assert "Traceback" not in err


_TEXT = st.text(
    st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from(['"', "\\", "\n", ",", "]", "}", "\x7f", "\x85", "\u202e", "→"]),
    ),
    max_size=12,
)
_TRICKY = st.one_of(_TEXT, st.just(',"warnings":[]}'), st.just('"warnings":[]}\n'))
_DECISIONS = st.builds(
    Decision,
    decision=st.sampled_from(["allowed", "denied", "notGranted", "conditional"]),
    principalId=_TRICKY,
    action=_TRICKY,
    scope=_TRICKY,
    grantedBy=st.lists(_TRICKY, max_size=2).map(tuple),
    deniedBy=st.lists(_TRICKY, max_size=2).map(tuple),
    conditions=st.lists(_TRICKY, max_size=2).map(tuple),
    reason=_TRICKY,
    warnings=st.lists(_TRICKY, max_size=2).map(tuple),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_DECISIONS, max_size=8))
def test_json_lines_of_decisions_are_their_json_each_on_a_line(decisions: list[Decision]) -> None:
    data = decisions_to_json_lines(decisions)
    assert data == b"".join(d.to_json() + b"\n" for d in decisions)
    assert _inert_lines(data) == b"".join(inert_json_bytes(d.to_json()) + b"\n" for d in decisions)
    for line, decision in zip(data.splitlines(), decisions, strict=True):
        wire = decision.to_wire()
        assert json.loads(line) == wire
        assert ("warnings" in json.loads(line)) == bool(decision.warnings)


def _failing(decisions: list[Decision], after: int) -> Iterator[list[Decision]]:
    yield decisions[:after]  # the window read before the bad request
    raise ValueError("a bad request")


def test_writing_keeps_what_came_before_an_error_and_needs_no_binary_stdout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    decisions = [
        Decision("allowed", f"p{i}", "a/b", "/", warnings=("w",) if i % 7 == 0 else ())
        for i in range(_WRITE_EVERY + 10)
    ]
    text = io.StringIO()  # no .buffer: written as text
    monkeypatch.setattr(sys, "stdout", text)
    with pytest.raises(ValueError):
        _write_windows(_failing(decisions, _WRITE_EVERY + 3), each=False, window=0)
    expected = b"".join(d.to_json() + b"\n" for d in decisions[: _WRITE_EVERY + 3]).decode()
    assert text.getvalue() == expected
    text.seek(0)
    text.truncate()
    assert _write_windows(([d] for d in decisions[:20]), each=True, window=1) == 3
    assert text.getvalue() == b"".join(d.to_json() + b"\n" for d in decisions[:20]).decode()
