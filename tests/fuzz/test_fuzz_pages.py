"""Fuzzing collected pages: the API's list answers (``value``/``nextLink``) with hostile items,
links, statuses and bytes, fed to :func:`auditor.api.collect.collect` through an in-memory httpx
transport (the library path every page takes: paging, item ids, merging, the snapshot loader) and
served by a loopback HTTP server to ``auditor collect`` and ``auditor audit --base-url``.

Asserted besides the harness' contract: collect returns or raises an AuditorError (nothing else);
the collected snapshot and every failure message hold no seeded secret; a listing reported complete
holds every item served (nothing lost silently).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import json
import math
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from auditor.api import ClientSettings, DevToolingClient, ResourceManagerClient, RetryPolicy
from auditor.api.collect import CollectResult, collect
from auditor.errors import AuditorError
from auditor.estate.snapshot import dumps_snapshot
from auditor.model.secrets import Secret
from tests.fuzz._bases import AS_OF, snapshot
from tests.fuzz._harness import budget, failure_type, keep_inputs, memory_bound, run_and_check
from tests.fuzz._hostile import (
    HOSTILE_STRINGS,
    hostile_strings,
    mutated_bytes,
    mutated_documents,
    to_json,
)
from tests.fuzz._limits import guarded
from tests.fuzz._secrets import BEARER_TOKEN, GITHUB_TOKEN, leaks_in

SUBSCRIPTION = "2c9d84f9-ce09-5276-b083-02d2ccc1c024"
BASE = "https://api.fuzz.test"
SECTIONS = ("roleAssignments", "denyAssignments", "healthEvents", "clusters", "domains")
_ROUTES = {
    "roleassignments": "roleAssignments",
    "denyassignments": "denyAssignments",
    "resourcehealth": "healthEvents",
    "clusters": "clusters",
    "domains": "domains",
}
FAST = ClientSettings(
    timeout=2.0,
    retry=RetryPolicy(attempts=2, backoff=0.001, backoff_max=0.01, retry_after_max=0.01),
)


@dataclass
class Answer:
    status: int = 200
    body: bytes = b'{"value": []}'
    truncated: bool = False
    """Announce more bytes than are sent, then close (a broken read)."""
    damaged: bool = False
    """Damaged bytes (a client may take them for a cut answer and retry)."""


@dataclass
class Service:
    """What the fake API answers: the pages of one listing (the others are empty) and, for the
    developer-tooling service, the user."""

    section: str
    pages: list[Answer]
    user: bytes = b'{"id": "u", "name": "sam"}'
    served_items: list[list[Any]] = field(default_factory=list)
    """The items of each page when every page is a clean 200 with a followable link (else empty):
    a complete listing must hold them all."""

    def answer(self, path: str, query: str) -> Answer:
        low = path.lower()
        if low.startswith("/v0.1/user") and "api_tokens" not in low:
            return Answer(body=self.user)
        if low.startswith("/v0.1"):
            return Answer(body=b"[]")
        section = next((s for key, s in _ROUTES.items() if key in low), None)
        if section != self.section:
            return Answer()
        params = parse_qs(query)
        token = (params.get("page") or params.get("$skipToken") or ["p0"])[0]
        try:
            index = int(token.lstrip("p"))
        except ValueError:
            index = 0
        if index >= len(self.pages):
            return Answer(404, b'{"error": {"code": "NotFound", "message": "no such page"}}')
        return self.pages[index]


def _items(section: str) -> list[Any]:
    return list(snapshot()[section])


@st.composite
def links(draw: st.DrawFn, section: str, index: int) -> tuple[str | None, bool]:
    """A nextLink to page ``index`` (absolute, a path, or a bare skip token), and whether it is
    one a client must follow."""
    route = next(key for key, name in _ROUTES.items() if name == section)
    path = f"/subscriptions/{SUBSCRIPTION}/providers/x/{route}"
    good = [f"{BASE}{path}?page=p{index}", f"{path}?page=p{index}", f"p{index}"]
    hostile = [
        "http://[::1/x",
        "https://elsewhere.example/steal?page=p1",
        f"{BASE}{path}?page=p0",
        "javascript:alert(1)",
        "//elsewhere.example/x",
        "/" + "a" * 100_000,
        *HOSTILE_STRINGS[:12],
    ]
    if draw(st.integers(0, 4)):
        return draw(st.sampled_from(good)), True
    return draw(st.one_of(st.sampled_from(hostile), hostile_strings)), False


ERROR_MESSAGES = st.sampled_from(
    [
        "\x1b]0;owned\x07\x1b[2Jplease re-enter your password",
        "\u202eerror\u202c",
        "x" * 800_000,
        "ok",
    ]
)


@st.composite
def services(draw: st.DrawFn) -> Service:
    section = draw(st.sampled_from(SECTIONS))
    items = _items(section)
    clean = draw(st.booleans())
    if not clean:
        mutated = draw(mutated_documents(items, root_ops=False))
        items = mutated if isinstance(mutated, list) else [mutated]
    n = draw(st.integers(1, 3))
    chunks = [items[i::n] for i in range(n)]
    answers: list[Answer] = []
    followable = True
    for i, chunk in enumerate(chunks):
        page: dict[str, Any] = {"value": chunk}
        if i + 1 < n:
            page["nextLink"], ok = draw(links(section, i + 1))
            followable = followable and ok
        elif draw(st.integers(0, 4)) == 0:
            page["nextLink"], _ = draw(links(section, i + 1))
            followable = False
        kind = draw(st.integers(0, 9))
        if kind == 0:  # the page itself damaged: no value, value not an array, deep, ...
            page = draw(mutated_documents(page))
            followable = False
        body = to_json(page)
        answer = Answer(body=body)
        if kind == 1:
            answer = Answer(body=draw(mutated_bytes(body)), damaged=True)
            followable = False
        elif kind == 2:
            status = draw(st.sampled_from([400, 401, 403, 404, 429, 500, 503]))
            message = draw(ERROR_MESSAGES)
            answer = Answer(
                status, json.dumps({"error": {"code": "X", "message": message}}).encode()
            )
            followable = False
        elif kind == 3:
            answer = Answer(body=body, truncated=True)
            followable = False
        answers.append(answer)
    user = snapshot()["devTooling"]["user"]
    user = draw(mutated_documents(user)) if draw(st.booleans()) else user
    service = Service(section, answers, to_json(user))
    if clean and followable:
        service.served_items = chunks
    return service


def _handler(service: Service) -> Any:
    def handle(request: httpx.Request) -> httpx.Response:
        answer = service.answer(request.url.path, request.url.query.decode())
        if answer.truncated:
            raise httpx.RemoteProtocolError("peer closed the connection", request=request)
        headers = {"Content-Type": "application/json"}
        return httpx.Response(answer.status, content=answer.body, headers=headers)

    return handle


def _served_bytes(service: Service) -> int:
    return sum(len(a.body) for a in service.pages) + len(service.user)


def _expected_ids(service: Service) -> set[str]:
    ids: set[str] = set()
    for chunk in service.served_items:
        ids.update(str(item["id"]).lower().rstrip("/") for item in chunk if isinstance(item, dict))
    return ids


async def _collect(service: Service, devtooling: bool, namespace: str = "seed") -> Any:
    transport = httpx.MockTransport(_handler(service))
    async with ResourceManagerClient(
        BASE,
        Secret(BEARER_TOKEN),
        FAST,
        transport=transport,
        namespace=namespace,
    ) as api:
        if not devtooling:
            return await collect(api, [SUBSCRIPTION], collected_at=f"{AS_OF}T00:00:00Z")
        async with DevToolingClient(
            BASE, Secret(GITHUB_TOKEN), FAST, transport=httpx.MockTransport(_handler(service))
        ) as dev:
            return await collect(
                api, [SUBSCRIPTION], devtooling=dev, collected_at=f"{AS_OF}T00:00:00Z"
            )


@budget(quick=60)
@given(
    service=services(),
    devtooling=st.booleans(),
    namespace=st.sampled_from(["seed", "seed", "vendor"]),
)
def test_collect_library_on_hostile_pages(
    service: Service, devtooling: bool, namespace: str
) -> None:
    def run() -> Any:
        try:
            return asyncio.run(_collect(service, devtooling, namespace))
        except AuditorError as exc:
            return exc
        except Exception as exc:  # anything else escaping collect is a defect
            return exc

    result, stalled, _, growth = guarded(run)
    where = f"(section {service.section}, pages {service.pages!r:.1500})"
    if stalled or not isinstance(result, CollectResult | AuditorError):
        pages = {f"page{i}-{a.status}.json": a.body for i, a in enumerate(service.pages)}
        where += f"; pages kept in {keep_inputs({**pages, 'user.json': service.user})}"
    if stalled:
        raise failure_type("Stalled")(f"{stalled} {where}")
    if growth > memory_bound(_served_bytes(service)):
        raise failure_type("Memory")(f"peak memory grew by {growth / 2**20:,.0f} MB {where}")
    if isinstance(result, Exception) and not isinstance(result, AuditorError):
        # one failure type per exception, so that hypothesis reports each apart
        kind = f"CollectRaised_{type(result).__name__}"
        raise failure_type(kind)(
            f"collect raised {type(result).__name__}: {result!s:.1000} {where}"
        )
    if isinstance(result, AuditorError):
        assert result.exit_code in (2, 3), result
        assert not leaks_in([("error", str(result))]), str(result)[:2_000]
        return
    assert result is not None
    messages = " ".join(f"{f.what}: {f.error}" for f in result.incomplete)
    assert not leaks_in([("failures", messages)]), messages[:2_000]
    if not any(a.damaged for a in service.pages):
        # (damaged bytes may turn "password" into an ordinary field, where a value is no secret)
        assert not leaks_in([("snapshot", dumps_snapshot(result.snapshot))])
    if result.complete and service.served_items:
        kept = result.counts().get(service.section, 0)
        assert kept >= len(_expected_ids(service)), (
            f"{service.section}: {kept} kept of {len(_expected_ids(service))} served, reported complete"
        )


# --- the command line against a loopback server ---------------------------------------------------


class _Server(http.server.ThreadingHTTPServer):
    service: Service = Service("roleAssignments", [])


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        answer = self.server.service.answer(parts.path, parts.query)
        self.send_response(answer.status)
        self.send_header("Content-Type", "application/json")
        extra = 100 if answer.truncated else 0
        self.send_header("Content-Length", str(len(answer.body) + extra))
        self.end_headers()
        with contextlib.suppress(OSError):  # the client may have gone
            self.wfile.write(answer.body)
        self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[_Server]:
    srv = _Server(("127.0.0.1", 0), _Handler)
    srv.daemon_threads = True
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(5)


def _cli(which: int, url: str) -> list[str]:
    if which == 0:
        return [
            "collect", "--base-url", url, "--subscription", SUBSCRIPTION, "--out", "estate.json",
            "--retries", "1", "--timeout", "2",
        ]  # fmt: skip
    return [
        "audit", "--base-url", url, "--subscription", SUBSCRIPTION, "--as-of", AS_OF,
        "-o", "json=report.json", "-o", "text",
    ]  # fmt: skip


RETRIED = frozenset({429, 500, 502, 503, 504})


def _strict_json(body: bytes) -> bool:
    """True when ``body`` is plain JSON: no NaN, no number beyond a double or a 64-bit integer, no
    lone surrogate, nesting Python can read."""

    def refuse(text: str) -> Any:
        raise ValueError(text)

    def number(text: str) -> float:
        value = float(text)
        return value if math.isfinite(value) else refuse(text)

    def integer(text: str) -> int:
        value = int(text)
        return value if -(2**63) <= value < 2**64 else refuse(text)

    try:
        json.loads(body, parse_constant=refuse, parse_float=number, parse_int=integer)
        return "\\ud8" not in body.decode("utf-8").lower()
    except (ValueError, RecursionError, UnicodeError):
        return False


def _without_retries(service: Service) -> Service:
    """The same service with the answers a client retries (with its default backoff of seconds,
    as designed: errors, broken reads, bodies that do not decode) made final ones, as ``audit
    --base-url`` has no --retries option."""
    pages = [
        a
        if a.status == 200 and not (a.truncated or a.damaged) and _strict_json(a.body)
        else Answer(404, b'{"error": {"code": "NotFound", "message": "gone"}}')
        for a in service.pages
    ]
    user = service.user if _strict_json(service.user) else b'{"id": "u", "name": "sam"}'
    return Service(service.section, pages, user, service.served_items)


@budget(quick=25)
@given(service=services(), which=st.integers(0, 1), devtooling=st.booleans())
def test_collect_command_against_a_hostile_server(
    server: _Server, service: Service, which: int, devtooling: bool
) -> None:
    server.service = service if which == 0 else _without_retries(service)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    env = {"AUDITOR_TOKEN": BEARER_TOKEN}
    env["AUDITOR_API_TOKEN"] = GITHUB_TOKEN if devtooling else ""
    allowed = frozenset({0, 3}) if which == 0 else frozenset({0, 1, 3})
    damaged = any(a.damaged for a in server.service.pages)
    run_and_check(
        _cli(which, url),
        env=env,
        allowed=allowed,
        secrets_in="messages" if damaged else "all",
        input_bytes=_served_bytes(server.service),
    )
