"""Fuzzing access requests (contracts 4): JSON Lines batches for ``auditor access check --requests``,
structured (hostile values, wildcard-heavy actions, huge attributes) and as damaged bytes."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz._bases import requests, requests_bytes, snapshot_bytes
from tests.fuzz._harness import budget, run_and_check
from tests.fuzz._hostile import hostile_strings, mutated_bytes, mutated_documents, to_json

FILE = "requests.jsonl"
ESTATE = "estate.json"

ODD_LINES = st.sampled_from(
    [
        b"",
        b"   ",
        b"\r",
        b"[]",
        b'"text"',
        b"1e999",
        b"null",
        b"{",
        b"\xff\xfe",
        b'{"principalId": "\xc3\x28"}',
        b"\xef\xbb\xbf{}",
        b'{"action": "' + b"*" * 100_000 + b'"}',
        b"[" * 10_000,
    ]
)


@st.composite
def batches(draw: st.DrawFn) -> bytes:
    items = draw(mutated_documents(requests(), root_ops=False))
    lines = [to_json(item) for item in (items if isinstance(items, list) else [items])]
    for _ in range(draw(st.integers(0, 2))):
        lines.insert(draw(st.integers(0, len(lines))), draw(ODD_LINES))
    sep = draw(st.sampled_from([b"\n", b"\r\n"]))
    return sep.join(lines) + draw(st.sampled_from([sep, b""]))


@st.composite
def heavy_attributes(draw: st.DrawFn) -> bytes:
    """Requests whose action and attribute values are long and match-hostile (the engine's
    globs and condition operators must stay linear)."""
    out: list[Any] = []
    for request in requests():
        request["action"] = draw(st.sampled_from(["a" * 200, "Cloud." + "x/" * 100, "*" * 50]))
        request["attributes"] = {
            "@Resource[Cloud.Storage/storageAccounts/blobServices/containers:name]": draw(
                st.one_of(hostile_strings, st.just("a" * 200))
            ),
            "@Request[Cloud.Storage/x:tags]": draw(st.lists(st.just("a" * 200), max_size=50)),
        }
        out.append(request)
    return requests_bytes(out)


def _check(fmt: str) -> list[str]:
    return ["access", "check", "--snapshot", ESTATE, "--requests", FILE, "--format", fmt]


@budget(quick=40)
@given(data=st.one_of(batches(), heavy_attributes()), fmt=st.sampled_from(["json", "text"]))
def test_structured_request_batches(data: bytes, fmt: str) -> None:
    run_and_check(_check(fmt), inputs={ESTATE: snapshot_bytes(), FILE: data}, input_name=FILE)


@budget(quick=30)
@given(data=mutated_bytes(requests_bytes(requests())), fmt=st.sampled_from(["json", "text"]))
def test_damaged_request_bytes(data: bytes, fmt: str) -> None:
    run_and_check(
        _check(fmt),
        inputs={ESTATE: snapshot_bytes(), FILE: data},
        input_name=FILE,
        secrets_in="messages",
    )
