"""The sandbox under the vendor's paths and names (``sandbox serve --namespace vendor|both``):
a thin layer in front of the one pipeline (:class:`~auditor.sandbox.app.Sandbox`), which keeps its
store, routes and decision function in the seed's names.

On the way in, a request naming a vendor namespace (``/providers/Microsoft.Authorization/
roleAssignments``, ``Microsoft.HDInsight``, ``Microsoft.EventGrid``, ``Microsoft.ResourceHealth``)
has its path, its ``api-version`` (the vendor's, :data:`~auditor.sources.names.VENDOR_API_VERSIONS`)
and its JSON body put in the seed's names; on the way out, the answer's JSON and its ``Location``
and ``Azure-AsyncOperation`` headers are put in the vendor's. The mapping is the one table of
:mod:`auditor.sources.names`, applied as the export readers apply it (ids, scopes, types, actions,
conditions, the ``EventGridSchema`` value and the ``nextLink``; free text is kept), so what is served
and imported back is the estate served.

``vendor``: a path in the seed's namespaces is a 404, as on the vendor's API; ``both``: it is served
as the seed's. Paths that name no provider (the developer-tooling service, ``/openapi.json``) are
served as they are.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote, unquote_plus

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Message, Receive, Scope, Send

from auditor.model.defaults import SEED_API_VERSIONS
from auditor.sandbox._http import JSON, Area, error_response, shorten
from auditor.sandbox.config import SandboxNamespace
from auditor.sources.names import (
    VENDOR_API_VERSIONS,
    operation_of,
    seed_api_version,
    to_seed,
    to_seed_value,
    to_vendor,
    to_vendor_value,
)

NAMESPACES: tuple[SandboxNamespace, ...] = ("seed", "vendor", "both")

_VENDOR_PATH = re.compile(r"/providers/microsoft\.", re.IGNORECASE)
_SEED_PATH = re.compile(r"/providers/cloud\.", re.IGNORECASE)
_SEED_TYPE = re.compile(r"(?i)^cloud\.[a-z0-9]+(?:/|$)")
_VENDOR_TYPE = re.compile(r"(?i)^microsoft\.[a-z0-9]+(?:/|$)")
_VALUE_KEYS = frozenset({"inputSchema"})
_TEXT_KEYS = frozenset({"condition"})
_LINK_HEADERS = ("location", "azure-asyncoperation")
_WRITES = frozenset({"POST", "PUT", "PATCH"})

Handler = Callable[[Request], Awaitable[Response]]


class _Names(dict[str, str]):
    """``names[text]``: ``text`` renamed, remembered (scopes, types and the part of an id before
    its last segment repeat on every page)."""

    def __init__(self, rename: Callable[[str], str]) -> None:
        super().__init__()
        self._rename = rename

    def __missing__(self, text: str) -> str:
        found = self._rename(text)
        if len(self) < _MEMO_LIMIT:
            self[text] = found
        return found

    def __call__(self, text: str) -> str:
        head, slash, tail = text.rpartition("/")
        if not slash or "." in tail:
            return self[text]
        return self[head] + "/" + tail  # no namespace lies in a last segment without a dot


_MEMO_LIMIT = 1 << 16
_TO_VENDOR = _Names(to_vendor)
_TO_SEED = _Names(to_seed)


def _renamed(
    value: Any,
    rename: Callable[[str], str],
    rename_value: Callable[[str], str],
    type_like: re.Pattern[str],
    key: str | None = None,
) -> Any:
    if isinstance(value, str):
        first = value[:1]
        if first == "/":
            return rename(value)
        if key in _VALUE_KEYS:
            return rename_value(value)
        if key in _TEXT_KEYS or (first in "CcMm" and first and type_like.match(value)):
            return rename(value)
        return value
    if isinstance(value, dict):
        return {
            (rename(k) if k[:1] == "/" else k): _renamed(v, rename, rename_value, type_like, k)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_renamed(v, rename, rename_value, type_like, key) for v in value]
    return value


def to_vendor_json(value: Any) -> Any:
    """Plain JSON (an answer) in the vendor's names."""
    return _renamed(value, _TO_VENDOR, to_vendor_value, _SEED_TYPE)


def to_seed_json(value: Any) -> Any:
    """Plain JSON (a request body) in the seed's names."""
    return _renamed(value, _TO_SEED, to_seed_value, _VENDOR_TYPE)


def _vendor_link(link: str, operation: str | None) -> str:
    """A URL of the answer (``nextLink``, ``Location``) in the vendor's names: its path renamed,
    the seed's api-version of ``operation`` replaced by the vendor's."""
    head, mark, query = link.partition("?")
    scheme, sep, rest = head.partition("://")
    if sep:
        host, slash, path = rest.partition("/")
        head = f"{scheme}://{host}{slash}{to_vendor(path)}"
    else:
        head = to_vendor(head)
    if operation is not None and query:
        seed, vendor = SEED_API_VERSIONS[operation], VENDOR_API_VERSIONS[operation]
        if seed != vendor:
            query = query.replace(f"api-version={seed}", f"api-version={vendor}")
    return head + mark + query


def _seed_query(query: bytes, operation: str | None) -> bytes:
    """The query string with the vendor's api-version of ``operation`` replaced by the seed's
    (everything else exactly as sent)."""
    if operation is None or b"api-version" not in query.lower():
        return query
    text = query.decode("latin-1")
    pieces = text.split("&")
    for i, piece in enumerate(pieces):
        name, eq, value = piece.partition("=")
        if eq and unquote_plus(name).lower() == "api-version":
            seed = seed_api_version(operation, unquote_plus(value), SEED_API_VERSIONS[operation])
            pieces[i] = f"{name}={quote(seed, safe='')}"
    return "&".join(pieces).encode("latin-1")


async def _whole_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _seed_body(body: bytes) -> bytes:
    """A JSON request body in the seed's names (anything that is not JSON goes on unchanged, for
    the pipeline to refuse)."""
    if not body:
        return body
    try:
        value = msgspec.json.decode(body)
    except (msgspec.MsgspecError, UnicodeDecodeError, RecursionError):
        return body
    return msgspec.json.encode(to_seed_json(value))


def _vendor_error(body: dict[str, Any]) -> None:
    """An error body's message in the vendor's names (it may name a path or a permission)."""
    inner = body.get("error")
    detail: dict[str, Any] = inner if isinstance(inner, dict) else body
    if isinstance(detail.get("message"), str):
        detail["message"] = to_vendor(detail["message"])


def _vendor_response(response: Response, operation: str | None) -> Response:
    headers = {
        k: v
        for k, v in response.headers.items()
        if k.lower() not in ("content-length", "content-type")
    }
    for name in _LINK_HEADERS:
        for k in list(headers):
            if k.lower() == name:
                headers[k] = _vendor_link(headers[k], operation)
    body = bytes(response.body)
    media = response.media_type or response.headers.get("content-type") or JSON
    if body and "json" in media:
        try:
            value = msgspec.json.decode(body)
        except (msgspec.MsgspecError, UnicodeDecodeError, RecursionError):
            value = None
        else:
            if isinstance(value, dict):
                if isinstance(value.get("nextLink"), str):
                    value["nextLink"] = _vendor_link(value["nextLink"], operation)
                if response.status_code >= 400:
                    _vendor_error(value)
            body = msgspec.json.encode(to_vendor_json(value))
    return Response(body, status_code=response.status_code, headers=headers, media_type=media)


async def serve(
    handle: Handler, namespace: SandboxNamespace, scope: Scope, receive: Receive, send: Send
) -> None:
    """Answer one request of the sandbox serving ``namespace`` through ``handle`` (the seed's
    pipeline)."""
    raw = scope.get("raw_path") or scope["path"].encode("utf-8")
    raw_path = raw.decode("latin-1").split("?", 1)[0]
    if not _VENDOR_PATH.search(raw_path):
        if namespace == "vendor" and _SEED_PATH.search(raw_path):
            area: Area = "D" if "/providers/cloud.resourcehealth/" in raw_path.lower() else "A"
            response = error_response(
                area,
                404,
                "NotFound",
                f"No endpoint at {shorten(scope['path'])}: this sandbox serves the vendor's "
                "namespaces (Microsoft.*) only.",
            )
        else:
            response = await handle(Request(scope, receive))
        await response(scope, receive, send)
        return
    seed_raw = to_seed(raw_path)
    operation = operation_of(seed_raw)
    inner: Scope = {
        **scope,
        "path": to_seed(scope["path"]),
        "raw_path": seed_raw.encode("latin-1"),
        "query_string": _seed_query(scope.get("query_string", b""), operation),
    }
    inner_receive = receive
    if scope.get("method", "GET").upper() in _WRITES:
        body = _seed_body(await _whole_body(receive))
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        inner_receive = replay
    response = await handle(Request(inner, inner_receive))
    await _vendor_response(response, operation)(scope, receive, send)
