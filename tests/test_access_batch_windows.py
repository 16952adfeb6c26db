"""``auditor access check --requests`` a window of decisions at a time (issue 23: the batch path at
the engine's speed): :meth:`AccessEngine.check_windows` gives :meth:`~AccessEngine.check_many`'s
decisions in lists, the command line writes each list without a Python step per decision, keeps
the last window's decisions to the end of the process and pauses the collector for the batch. The
bytes written are those each decision encoded and made inert by itself writes (the old path, kept
here as the oracle), whatever the window, with bad lines anywhere and in the process's mode."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import auditor.access
import auditor.cli
from auditor.access import AccessEngine, Decision, read_request_lines
from auditor.cli import collector_paused, main
from auditor.cli._access import _write_windows
from auditor.inert import inert_json
from tests.test_access_batch_stream import _requests

BAD = [
    '{"principalId": "x", "action": "a/b", "scope": "/", "dataAction": "yes"}',
    '{"principalId": "x", "action": "a/b"}',
    '{"principalId": "x", "action": "a/b", "scope": "no-slash"}',
    '{"principalId": "x", "action": "a/b", "scope": "/", "colour": "red"}',
    "[1, 2]",
    '{"principalId": "x", "action": ',
]
"""Lines that stop a batch: each names its line."""


@pytest.fixture(scope="module")
def estate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, AccessEngine]:
    from auditor.estate.generate import generate_estate

    path = tmp_path_factory.mktemp("windows") / "generated.json"
    generate_estate(300, seed=11, principals=50, deny_assignments=6, out=path)
    return path, AccessEngine.from_file(path)


def _oracle(engine: AccessEngine, lines: list[str]) -> tuple[str, int]:
    """The old path: each decision of ``check_many`` encoded and made inert by itself, and how
    many carry warnings; the lines end at the first bad one."""
    requests = list(read_request_lines([line.encode() for line in lines], source="<test>"))
    decisions = list(engine.check_many(requests, warn=True))
    text = "".join(inert_json(d.to_json().decode()) + "\n" for d in decisions)
    return text, sum(bool(d.warnings) for d in decisions)


def _check(
    path: Path, requests: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, str, str]:
    args = ["--snapshot", str(path), "--requests", str(requests), *extra]
    code = main(["access", "check", *args, "--format", "json", "--no-cache"])
    out, err = capsys.readouterr()
    return code, out, err


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    count=st.integers(0, 60),
    window=st.sampled_from([2, 3, 7, 64, 1 << 18]),
    bad=st.one_of(st.none(), st.tuples(st.integers(0, 60), st.sampled_from(BAD))),
    as_process=st.booleans(),
    seed=st.integers(0, 1 << 16),
)
def test_windows_write_what_each_decision_wrote_by_itself(
    estate: tuple[Path, AccessEngine],
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    count: int,
    window: int,
    bad: tuple[int, str] | None,
    as_process: bool,
    seed: int,
) -> None:
    path, engine = estate
    lines = [
        json.dumps(r, ensure_ascii=i % 2 == 0) for i, r in enumerate(_requests(path, count, seed))
    ]
    if bad is not None:
        lines.insert(min(bad[0], len(lines)), bad[1])
    requests = tmp_path_factory.mktemp("req") / "requests.jsonl"
    requests.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    good = lines if bad is None else lines[: min(bad[0], len(lines) - 1)]
    expected, warned = _oracle(engine, good)
    held: list[Any] | None = [] if as_process else None
    monkeypatch.setattr(auditor.access, "BATCH_WINDOW", window)
    monkeypatch.setattr(auditor.cli, "_HELD", held)
    frozen = gc.get_freeze_count()
    code, out, err = _check(path, requests, capsys, "--strict")
    assert gc.isenabled()
    assert out == expected  # the same bytes, those before a bad line included
    if bad is not None:
        assert code == 2 and f"line {len(good) + 1}" in err and "Traceback" not in err
    else:
        assert code == (2 if warned else 0), err
        assert (f"{warned:,} decision" in err) == bool(warned)
    if held is None:
        assert gc.get_freeze_count() <= frozen  # in process nothing is frozen
        return
    assert any(isinstance(item, AccessEngine) for item in held)
    last = len(good) % window  # the decisions of the window not filled
    kept = [item for item in held if isinstance(item, list)]
    assert [len(item) for item in kept] == ([last] if last > 1 else [])
    assert all(isinstance(d, Decision) for item in kept for d in item)


def test_check_windows_gives_check_many_in_lists(estate: tuple[Path, AccessEngine]) -> None:
    path, engine = estate
    requests = list(
        read_request_lines([json.dumps(r) for r in _requests(path, 50, 4)], source="<test>")
    )
    alone = list(engine.check_many(requests, warn=True))
    for window in (1, 2, 7, 50, 64):
        windows = list(engine.check_windows(iter(requests), window=window, warn=True))
        assert [d for w in windows for d in w] == alone
        assert [len(w) for w in windows][:-1] == [window] * (len(windows) - 1)
        assert 0 < len(windows[-1]) <= window

    def failing() -> Iterator[Any]:
        yield from requests[:9]
        raise ValueError("a bad request")

    got: list[list[Decision]] = []
    with pytest.raises(ValueError):
        for block in engine.check_windows(failing(), window=4, warn=True):
            got.append(block)
    assert [len(w) for w in got] == [4, 4, 1]  # those read before the error come first
    assert [d for w in got for d in w] == alone[:9]


def test_writers_agree_and_flush_each_window_when_asked(
    estate: tuple[Path, AccessEngine], capsys: pytest.CaptureFixture[str]
) -> None:
    path, engine = estate
    requests = list(
        read_request_lines([json.dumps(r) for r in _requests(path, 150, 8)], source="<test>")
    )
    decisions = list(engine.check_many(requests, warn=True))
    expected = "".join(inert_json(d.to_json().decode()) + "\n" for d in decisions)
    warned = sum(bool(d.warnings) for d in decisions)
    assert _write_windows(iter([decisions]), each=False, window=0) == warned
    assert capsys.readouterr().out == expected
    windows = engine.check_windows(requests, window=1, warn=True)
    assert _write_windows(windows, each=True, window=1) == warned
    assert capsys.readouterr().out == expected


def test_the_collector_comes_back_and_freezes_only_in_the_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    frozen = gc.get_freeze_count()
    with collector_paused():
        assert not gc.isenabled()
        made = [[i] for i in range(100)]
    assert gc.isenabled() and gc.get_freeze_count() <= frozen
    monkeypatch.setattr(auditor.cli, "_HELD", [])
    with collector_paused():  # in the auditor process: what the block made is never walked
        made = [[i] for i in range(100)]
    assert gc.isenabled() and gc.get_freeze_count() >= frozen + len(made)
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()  # left as it was found
    finally:
        gc.enable()
