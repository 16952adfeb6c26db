"""The collector against hostile servers (issue 16, item 5): an overall ``--deadline``, a
per-request time limit a trickling server cannot defeat, a cap on pages per listing, retries of
truncated bodies, and malformed pages that leave out their bad items and mark the listing
incomplete (exit 3) while everything else is kept and written.

The servers are tiny raw HTTP/1.1 servers on a free loopback port (:class:`ScriptedServer`),
started and stopped by each test; they may sleep between the bytes they send (that is the
behaviour under test), the tests never sleep."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.api import (
    ApiError,
    ClientSettings,
    DeadlineError,
    PagingError,
    ResourceManagerClient,
    RetryPolicy,
)
from auditor.api._nesting import MAX_DEPTH, find_deep, without
from auditor.api.collect import CollectResult, collect
from auditor.cli import main

SUB = "11111111-1111-4111-8111-111111111111"
SCOPE = f"/subscriptions/{SUB}"
READER = "acdd72a7-3385-48ef-bd42-f606fba81ae7"
QUICK_RETRY = RetryPolicy(attempts=3, backoff=0.001, backoff_max=0.005, retry_after_max=30.0)


def ra(name: str) -> dict[str, Any]:
    return {
        "id": f"{SCOPE}/providers/Cloud.Authorization/roleAssignments/{name}",
        "name": name,
        "properties": {
            "scope": SCOPE,
            "principalId": "aaaaaaaa-0000-4000-8000-000000000001",
            "roleDefinitionId": f"/providers/Cloud.Authorization/roleDefinitions/{READER}",
        },
    }


def deep(levels: int) -> Any:
    value: Any = "bottom"
    for _ in range(levels):
        value = {"a": [value]}
    return value


# --- a scripted raw HTTP server ----------------------------------------------------------------


@dataclass
class Reply:
    """What the server writes: chunks, each after its delay; then it closes the connection when
    ``close``."""

    chunks: list[tuple[bytes, float]]
    close: bool = False


def _head(status: int, length: int | None, close: bool, extra: str = "") -> bytes:
    reason = {200: "OK", 500: "Internal Server Error", 503: "Service Unavailable"}.get(status, "X")
    lines = [f"HTTP/1.1 {status} {reason}", "Content-Type: application/json", *extra.splitlines()]
    if length is not None:
        lines.append(f"Content-Length: {length}")
    if close:
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def answer(body: Any, status: int = 200, delay: float = 0.0, extra: str = "") -> Reply:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return Reply([(_head(status, len(data), False, extra) + data, delay)])


def trickle(body: Any, every: float) -> Reply:
    """The whole answer, one byte every ``every`` seconds."""
    data = json.dumps(body).encode()
    head = _head(200, len(data), False)
    return Reply([(head, 0.0), *((data[i : i + 1], every) for i in range(len(data)))])


def cut_short(body: Any, keep: int, *, announce: bool) -> Reply:
    """The answer cut after ``keep`` bytes of its body, then the connection closed; with
    ``announce`` the header promises the full length, without it the body simply ends."""
    data = json.dumps(body).encode()
    head = _head(200, len(data) if announce else None, True)
    return Reply([(head + data[:keep], 0.0)], close=True)


@dataclass
class ScriptedServer:
    """``handler(path, query, n)`` -> :class:`Reply` (``n``: how many requests for this path and
    query came before)."""

    handler: Callable[[str, dict[str, str], int], Reply]
    seen: dict[str, int] = field(default_factory=dict)
    url: str = ""

    async def _serve(
        self, ready: threading.Event, stop: list[asyncio.AbstractEventLoop | asyncio.Event]
    ) -> None:
        done = asyncio.Event()
        stop.extend([asyncio.get_running_loop(), done])
        tasks: set[asyncio.Task[None]] = set()

        async def client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            task = asyncio.current_task()
            assert task is not None
            tasks.add(task)
            try:
                while line := await reader.readline():
                    while (await reader.readline()).strip():
                        pass  # headers
                    target = line.decode().split(" ")[1]
                    parts = urlsplit(target)
                    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
                    key = target
                    n = self.seen.get(key, 0)
                    self.seen[key] = n + 1
                    reply = self.handler(parts.path, query, n)
                    for chunk, delay in reply.chunks:
                        if delay:
                            await asyncio.sleep(delay)
                        writer.write(chunk)
                        await writer.drain()
                    if reply.close:
                        break
            except (ConnectionError, asyncio.CancelledError):
                pass
            finally:
                tasks.discard(task)
                writer.close()

        server = await asyncio.start_server(client, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        ready.set()
        await done.wait()
        server.close()
        for task in list(tasks):
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    @contextmanager
    def running(self) -> Iterator[ScriptedServer]:
        ready = threading.Event()
        stop: list[Any] = []
        thread = threading.Thread(target=lambda: asyncio.run(self._serve(ready, stop)), daemon=True)
        thread.start()
        assert ready.wait(10), "the scripted server did not start"
        try:
            yield self
        finally:
            loop, done = stop
            loop.call_soon_threadsafe(done.set)
            thread.join(10)
            assert not thread.is_alive()


def listing(path: str) -> str:
    """Which listing of the collector a path is."""
    for name in ("roleAssignments", "denyAssignments", "events", "clusters", "domains"):
        if path.endswith("/" + name):
            return name
    return "?"


def run_collect(url: str, settings: ClientSettings) -> CollectResult:
    async def go() -> CollectResult:
        async with ResourceManagerClient(url, "t-reader", settings) as api:
            return await collect(api, [SUB])

    return asyncio.run(go())


def cli(url: str, out: Path, *extra: str) -> int:
    return main(["collect", "--base-url", url, "--subscription", SUB, "--out", str(out), *extra])


@pytest.fixture(autouse=True)
def _token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUDITOR_TOKEN", "t-reader-secret")
    monkeypatch.delenv("AUDITOR_API_TOKEN", raising=False)


# --- time --------------------------------------------------------------------------------------


def test_a_trickling_server_cannot_hold_a_request_past_the_timeout() -> None:
    # one byte every 50 ms: httpx's per-read timeout (0.3 s) never fires; the answer would take
    # over a minute
    page = {"value": [ra(f"ra{i}") for i in range(10)]}
    server = ScriptedServer(lambda path, q, n: trickle(page, 0.05))
    settings = ClientSettings(timeout=0.3, retry=RetryPolicy(attempts=2, backoff=0.001))

    async def go(url: str) -> None:
        async with ResourceManagerClient(url, "t", settings) as api:
            try:
                await api.access.list_role_assignments("/")
            finally:
                assert api.transport.requests == 2  # retried once, like a lost connection

    started = time.perf_counter()
    with server.running(), pytest.raises(ApiError) as info:
        asyncio.run(go(server.url))
    assert "no complete answer within 0.3 s" in str(info.value)
    assert time.perf_counter() - started < 3


def test_the_deadline_bounds_the_whole_collection_and_keeps_what_was_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # role assignments: a page every 0.1 s, with a new nextLink every time (endless); deny
    # assignments trickle; the rest answer at once
    def handler(path: str, query: dict[str, str], n: int) -> Reply:
        kind = listing(path)
        if kind == "roleAssignments":
            page = int(query.get("$skipToken", "0"))
            body = {"value": [ra(f"ra{page}")], "nextLink": str(page + 1)}
            return answer(body, delay=0.1)
        if kind == "denyAssignments":
            return trickle({"value": []}, 0.05)
        return answer({"value": []})

    out = tmp_path / "estate.json"
    server = ScriptedServer(handler)
    started = time.perf_counter()
    with server.running():
        code = cli(server.url, out, "--deadline", "0.6", "--timeout", "30")
    elapsed = time.perf_counter() - started
    assert code == 3
    assert elapsed < 4  # the deadline, plus start-up and writing
    written = json.loads(out.read_text())
    names = [item["name"] for item in written["roleAssignments"]]
    assert names and names == [f"ra{i}" for i in range(len(names))]  # the pages read, in order
    incomplete = {entry["what"]: entry["error"] for entry in written["incomplete"]}
    assert set(incomplete) == {f"roleAssignments of {SCOPE}", f"denyAssignments of {SCOPE}"}
    assert all("deadline of 0.6 s passed" in error for error in incomplete.values())
    err = capsys.readouterr().err
    assert f"warning: incomplete: roleAssignments of {SCOPE}" in err
    assert f"denyAssignments of {SCOPE}" in err.split("error:")[-1]  # the exit message names both
    assert "t-reader-secret" not in err


def test_the_deadline_is_not_waited_past_for_a_retry() -> None:
    server = ScriptedServer(
        lambda path, q, n: answer({"error": {"code": "Busy"}}, status=503, extra="Retry-After: 20")
    )
    settings = ClientSettings(timeout=5, deadline=0.5, retry=QUICK_RETRY)

    async def go(url: str) -> None:
        async with ResourceManagerClient(url, "t", settings) as api:
            await api.access.list_role_assignments("/")

    started = time.perf_counter()
    with server.running(), pytest.raises(DeadlineError) as info:
        asyncio.run(go(server.url))
    assert time.perf_counter() - started < 2
    assert "deadline of 0.5 s would pass before the next attempt" in str(info.value)
    assert "HTTP 503" in str(info.value)


# --- pages -------------------------------------------------------------------------------------


def test_a_listing_longer_than_max_pages_ends_incomplete_with_its_pages_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def handler(path: str, query: dict[str, str], n: int) -> Reply:
        if listing(path) != "roleAssignments":
            return answer({"value": []})
        page = int(query.get("$skipToken", "0"))
        return answer(
            {"value": [ra(f"ra{page}")], "nextLink": f"{server.url}{path}?$skipToken={page + 1}"}
        )

    out = tmp_path / "estate.json"
    server = ScriptedServer(handler)
    with server.running():
        assert cli(server.url, out, "--max-pages", "5") == 3
    written = json.loads(out.read_text())
    assert [item["name"] for item in written["roleAssignments"]] == [f"ra{i}" for i in range(5)]
    [entry] = written["incomplete"]
    assert entry["what"] == f"roleAssignments of {SCOPE}"
    assert "stopped after 5 pages" in entry["error"]
    assert sum(server.seen.values()) == 5 + 4  # 5 pages, and one page of each other listing
    assert "stopped after 5 pages" in capsys.readouterr().err


@pytest.mark.parametrize("announce", [False, True], ids=["body-ends", "length-promised"])
def test_a_truncated_page_is_asked_for_again(announce: bool) -> None:
    page = {"value": [ra("ra1"), ra("ra2")]}

    def handler(path: str, query: dict[str, str], n: int) -> Reply:
        return cut_short(page, 40, announce=announce) if n < 2 else answer(page)

    server = ScriptedServer(handler)
    settings = ClientSettings(timeout=5, retry=QUICK_RETRY)

    async def go(url: str) -> tuple[list[dict[str, Any]], int]:
        async with ResourceManagerClient(url, "t", settings) as api:
            items = await api.access.list_role_assignments("/")
            return items, api.transport.retries

    with server.running():
        items, retries = asyncio.run(go(server.url))
    assert [item["name"] for item in items] == ["ra1", "ra2"] and retries == 2


def test_a_page_always_cut_short_leaves_its_listing_incomplete() -> None:
    def handler(path: str, query: dict[str, str], n: int) -> Reply:
        if listing(path) == "clusters":
            return cut_short({"value": [{"id": "x"}]}, 12, announce=False)
        if listing(path) == "roleAssignments":
            return answer({"value": [ra("ra1")]})
        return answer({"value": []})

    server = ScriptedServer(handler)
    with server.running():
        result = run_collect(server.url, ClientSettings(timeout=5, retry=QUICK_RETRY))
    [failure] = result.incomplete
    assert failure.what == f"clusters of {SCOPE}"
    assert "not complete JSON" in failure.error and "(3 attempts)" in failure.error
    assert [r.name for r in result.snapshot.roleAssignments] == ["ra1"]  # the rest goes on


# --- malformed pages ---------------------------------------------------------------------------


def test_malformed_items_are_left_out_named_and_the_rest_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong_type = ra("ra-wrong")
    wrong_type["properties"]["scope"] = 5
    first = {
        "value": [ra("ra1"), 5, {"id": 7}, {"id": "x", "deep": "DEEP"}, wrong_type, ra("ra2")],
        "nextLink": "page2",
    }
    # too deep for any recursive decoder: written as text
    first_page = json.dumps(first).replace('"DEEP"', '{"a": [' * 1500 + "0" + "]}" * 1500).encode()

    def handler(path: str, query: dict[str, str], n: int) -> Reply:
        kind = listing(path)
        if kind == "roleAssignments":
            return answer(first_page if "$skipToken" not in query else {"value": [ra("ra3")]})
        if kind == "domains":
            return answer({"value": ["not a domain"]})
        return answer({"value": []})

    out = tmp_path / "estate.json"
    server = ScriptedServer(handler)
    with server.running():
        assert cli(server.url, out) == 3
    written = json.loads(out.read_text())
    assert [item["name"] for item in written["roleAssignments"]] == ["ra1", "ra2", "ra3"]
    assert written["domains"] == []
    incomplete = {entry["what"]: entry["error"] for entry in written["incomplete"]}
    assert set(incomplete) == {f"roleAssignments of {SCOPE}", f"domains of {SCOPE}"}
    error = incomplete[f"roleAssignments of {SCOPE}"]
    assert error.startswith("4 item(s) left out: ")
    for expected in (
        "page 1, value[1]: expected an object, found a number",
        "page 1, value[2].id: expected a string, found a number",
        f"page 1, value[3]: nested deeper than {MAX_DEPTH} levels (at value[3].deep.a[0].a[0].a ... (56 more levels))",
        "page 1, value[4].properties.scope: expected a string",
    ):
        assert expected in error
    assert incomplete[f"domains of {SCOPE}"].startswith("1 item(s) left out: page 1, value[0]")
    err = capsys.readouterr().err
    assert f"warning: incomplete: roleAssignments of {SCOPE}: 4 item(s) left out" in err
    assert len(err) < 5_000


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b'{"value": 5}', "page 1: the answer is not a list page"),
        (b'{"value": [], "nextLink": 5}', "page 1: the answer is not a list page"),
        (b"[1, 2]", "page 1: the answer is not a list page"),
        (b'{"items": []}', "page 1: the answer has no 'value' array"),
        (
            b'{"value": [], "x": ' + b"[" * 5000 + b"]" * 5000 + b"}",
            f"page 1: the answer nests deeper than {MAX_DEPTH} levels at x[0][0]",
        ),
    ],
)
def test_a_page_that_is_not_a_list_page_stops_its_listing(body: bytes, words: str) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body)

    async def go() -> None:
        transport = httpx.MockTransport(handler)
        settings = ClientSettings(retry=QUICK_RETRY)
        async with ResourceManagerClient(
            "https://api.example.test", "t", settings, transport=transport
        ) as api:
            await api.access.list_role_assignments("/")

    with pytest.raises(PagingError) as info:
        asyncio.run(go())
    assert words in str(info.value)


def test_server_text_quoted_in_messages_is_bounded() -> None:
    huge = "A" * 800_000

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(400, json={"error": {"code": "C" * 5000, "message": huge}})

    async def go() -> None:
        transport = httpx.MockTransport(handler)
        async with ResourceManagerClient(
            "https://api.example.test", "t", transport=transport
        ) as api:
            await api.access.list_role_assignments("/")

    with pytest.raises(ApiError) as info:
        asyncio.run(go())
    text = str(info.value)
    assert len(text) < 600 and "more characters" in text


def test_deadline_and_max_pages_are_checked_on_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "x.json"
    url = "http://127.0.0.1:9"
    assert cli(url, out, "--deadline", "0") == 2
    assert cli(url, out, "--max-pages", "0") == 2
    assert main(["audit", "--snapshot", str(out), "--deadline", "3"]) == 2
    assert not out.exists()


def test_audit_base_url_honours_the_deadline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = ScriptedServer(lambda path, q, n: trickle({"value": []}, 0.05))
    started = time.perf_counter()
    with server.running():
        code = main(
            [
                *("audit", "--base-url", server.url, "--subscription", SUB),
                *("--deadline", "0.4", "-o", f"json={tmp_path / 'r.json'}"),
            ]
        )
    assert code == 3
    assert time.perf_counter() - started < 8
    report = json.loads((tmp_path / "r.json").read_text())
    assert "deadline of 0.4 s passed" in json.dumps(report)


# --- the nesting scan --------------------------------------------------------------------------

_shallow = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=60)
@given(
    st.lists(
        st.one_of(
            _shallow.map(lambda value: ("shallow", value)),
            st.integers(26, 40).map(lambda levels: ("deep", levels)),
        ),
        max_size=6,
    )
)
def test_the_nesting_scan_finds_exactly_the_too_deep_items(spec: list[tuple[str, Any]]) -> None:
    items = [deep(value) if kind == "deep" else value for kind, value in spec]
    page = msgspec.json.encode({"value": items, "nextLink": "n"})
    nesting = find_deep(page)
    depths = [_depth(item) + 2 for item in items]  # the page's object and its array above
    assert nesting.elsewhere is None
    assert [d.index for d in nesting.items] == [i for i, d in enumerate(depths) if d > MAX_DEPTH]
    kept = msgspec.json.decode(without(page, nesting.items))
    too_deep = {d.index for d in nesting.items}
    assert kept["nextLink"] == "n"
    assert kept["value"] == [None if i in too_deep else item for i, item in enumerate(items)]


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


# --- property: whatever the pages hold, collect keeps every good item and never fails ---------

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["id", "name", "properties", "scope", "x"]), inner, max_size=4
        )
    ),
    max_leaves=10,
)


@settings(max_examples=40)
@given(
    st.lists(st.one_of(st.just("good"), _json), max_size=12),
    st.integers(1, 4),
)
def test_collect_keeps_every_good_item_whatever_else_a_page_holds(
    spec: list[Any], page_size: int
) -> None:
    items = [ra(f"ra{i}") if s == "good" else s for i, s in enumerate(spec)]
    good = {f"ra{i}" for i, s in enumerate(spec) if s == "good"}
    pages = [items[i : i + page_size] for i in range(0, len(items), page_size)] or [[]]

    def handler(request: httpx.Request) -> httpx.Response:
        if listing(request.url.path) != "roleAssignments":
            return httpx.Response(200, json={"value": []})
        n = int(request.url.params.get("$skipToken", "0"))
        body: dict[str, Any] = {"value": pages[n]}
        if n + 1 < len(pages):
            body["nextLink"] = str(n + 1)
        return httpx.Response(200, content=msgspec.json.encode(body))

    async def go() -> CollectResult:
        transport = httpx.MockTransport(handler)
        async with ResourceManagerClient(
            "https://api.example.test", "t", ClientSettings(retry=QUICK_RETRY), transport=transport
        ) as api:
            return await collect(api, [SUB])

    result = asyncio.run(go())
    kept = {r.name for r in result.snapshot.roleAssignments}
    assert good <= kept
    others = [f for f in result.incomplete if f.what != f"roleAssignments of {SCOPE}"]
    assert not others
    if len(result.snapshot.roleAssignments) < len(items):
        [failure] = result.incomplete
        assert "left out: page " in failure.error


def test_malformed_developer_tooling_answers_are_incomplete_parts() -> None:
    from auditor.api import DevToolingClient

    def api_handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"value": []})

    def dev_handler(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/v0.1/user":
            return httpx.Response(200, json={"login": "ana", "email": "ana@example.test"})
        if path == "/v0.1/api_tokens":
            return httpx.Response(200, content=b'[{"id": "tok-1", "kind": "us')  # always cut
        if path == "/v0.1/apps":
            return httpx.Response(200, json=[{"owner": "ana", "name": "app"}, 5])
        return httpx.Response(200, json=[])

    async def go() -> CollectResult:
        settings = ClientSettings(retry=QUICK_RETRY)
        base = "https://api.example.test"
        async with (
            ResourceManagerClient(
                base, "t", settings, transport=httpx.MockTransport(api_handler)
            ) as api,
            DevToolingClient(
                base, "v", settings, transport=httpx.MockTransport(dev_handler)
            ) as dev,
        ):
            return await collect(api, [SUB], devtooling=dev)

    result = asyncio.run(go())
    errors = {f.what: f.error for f in result.incomplete}
    assert "not complete JSON" in errors["devTooling user API tokens"]
    assert "[1]: expected an object, found a number" in errors["devTooling apps"]
    dev = result.snapshot.devTooling
    assert dev is not None and dev.user is not None  # what was read is kept
