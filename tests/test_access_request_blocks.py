"""A requests file read a block of lines at a time (issue 23: the batch path at the engine's speed):
:func:`request_lines` hands :func:`read_request_lines` the lines of each read together, and a block
whose every line is a plain request is decoded without a Python step per line. The requests, the
order, the errors (message, line, column) and what comes before an error are those of reading the
same lines one by one (the old reader, kept here as the oracle), whatever the blocks' sizes and
whatever the lines hold."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import auditor.access.requests as requests_module
from auditor.access import read_request_lines, request_lines
from auditor.errors import InputError


def _old_bounded_lines(handle: Any, source: str, limit: int, block: int) -> Iterator[bytes]:
    """The reader before blocks (HEAD 5102402's ``_bounded_lines``), the oracle."""
    read = handle.read1
    number = 0
    rest = b""
    while True:
        data = read(block)
        if not data:
            break
        lines = (rest + data).split(b"\n") if rest else data.split(b"\n")
        rest = lines.pop()
        if lines and max(map(len, lines)) > limit:
            too_long = next(i for i, line in enumerate(lines) if len(line) > limit)
            raise requests_module._too_long(source, number + too_long + 1, limit)
        number += len(lines)
        yield from lines
        if len(rest) > limit:
            raise requests_module._too_long(source, number + 1, limit)
    if rest:
        yield rest


def _old_lines(path: Path, limit: int, block: int) -> Iterator[bytes]:
    with path.open("rb") as handle:
        yield from _old_bounded_lines(handle, str(path), limit, block)


def _outcome(make: Callable[[], Iterator[Any]]) -> tuple[list[Any], str | None, str | None]:
    """What an iterator gives before it stops, and the error it stops at (message, location)."""
    got: list[Any] = []
    try:
        for item in make():
            got.append(item)
    except InputError as exc:
        return got, str(exc), exc.location
    return got, None, None


PLAIN = {"principalId": "p-1", "action": "Cloud.Compute/virtualMachines/write", "scope": "/s"}
LINES = st.one_of(
    st.just(json.dumps(PLAIN)),
    st.just(json.dumps({**PLAIN, "dataAction": True, "subOperation": None})),
    st.just(json.dumps({**PLAIN, "attributes": {"a": "b", "n": [1, "x", True]}})),
    st.just(json.dumps({**PLAIN, "attributes": {"a": 1.5}})),  # refused: a float
    st.just(json.dumps({**PLAIN, "attributes": {}})),
    st.just(json.dumps({**PLAIN, "dataAction": None})),  # only the slow reader takes it
    st.just(json.dumps({**PLAIN, "principalId": "  "})),
    st.just(json.dumps({**PLAIN, "scope": "s"})),
    st.just(json.dumps({**PLAIN, "colour": "red"})),
    st.just(json.dumps({"principalId": "p"})),
    st.just(json.dumps({**PLAIN, "principalId": "ünï → \u202e"}, ensure_ascii=False)),
    st.just(json.dumps(PLAIN) + " " + json.dumps(PLAIN)),  # two objects on a line
    st.just(json.dumps(PLAIN)[:-1]),  # an object spread over lines ...
    st.just('"x": 1}'),  # ... and its end
    st.just("[1, 2]"),
    st.just(""),
    st.just("   "),
    st.just("\r"),
    st.just(json.dumps(PLAIN) + "\r"),
    st.just("\x0b"),
    st.just('{"principalId": "p", "action": "a", "scope": "/' + "x" * 90 + '"}'),  # long
    st.text(max_size=20),
)
BYTES = st.one_of(
    LINES.map(lambda line: line.encode("utf-8", "surrogatepass")),
    st.just(b'{"principalId": "\xff", "action": "a", "scope": "/"}'),  # not UTF-8
    st.binary(max_size=12),
)


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    lines=st.lists(BYTES, max_size=30),
    head=st.lists(st.sampled_from([json.dumps(PLAIN).encode(), b"", b"  "]), max_size=2),
    block=st.sampled_from([1, 7, 64, 200, 1 << 16]),
    limit=st.sampled_from([100, 1 << 20]),
    end=st.sampled_from([b"\n", b""]),
)
def test_blocks_read_what_lines_one_by_one_read(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    lines: list[bytes],
    head: list[bytes],
    block: int,
    limit: int,
    end: bytes,
) -> None:
    path = tmp_path_factory.mktemp("blocks") / "requests.jsonl"
    path.write_bytes(b"\n".join(head + lines) + end)
    monkeypatch.setattr(requests_module, "_BLOCK", block)
    source = str(path)
    # the lines: as the old reader cut them, and the same errors at the same place
    assert _outcome(lambda: request_lines(source, limit=limit)) == _outcome(
        lambda: _old_lines(path, limit, block)
    )
    # the requests
    new = _outcome(lambda: read_request_lines(request_lines(source, limit=limit), source=source))
    old = _outcome(lambda: read_request_lines(_old_lines(path, limit, block), source=source))
    assert new == old


def test_a_file_of_plain_requests_is_read_in_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fast path is taken (a block decoded in one call) and gives the same requests."""
    path = tmp_path / "requests.jsonl"
    many = [{**PLAIN, "principalId": f"p-{i}", "dataAction": i % 2 == 0} for i in range(3000)]
    path.write_text("".join(json.dumps(r) + "\n" for r in many), encoding="utf-8")
    calls: list[int] = []
    plain = requests_module._plain

    def counting(found: list[Any]) -> bool:
        calls.append(len(found))
        return plain(found)

    monkeypatch.setattr(requests_module, "_plain", counting)
    got = list(read_request_lines(request_lines(str(path)), source="x"))
    assert [r.principalId for r in got] == [r["principalId"] for r in many]
    assert [r.dataAction for r in got] == [r["dataAction"] for r in many]
    assert len(calls) >= 2 and sum(calls) >= len(many) - 100  # blocks, not lines
