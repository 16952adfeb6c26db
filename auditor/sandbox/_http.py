"""Request context, error bodies (seed 7), query strings decoded exactly once, and paging."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import parse_qsl, unquote_plus

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from auditor.sandbox.auth import BearerIdentity
from auditor.sandbox.store import Store

Area = Literal["A", "B", "C", "D", "E"]

JSON = "application/json; charset=utf-8"

_encoder = msgspec.json.Encoder()


def json_response(status: int, payload: Any, headers: dict[str, str] | None = None) -> Response:
    return Response(_encoder.encode(payload), status_code=status, headers=headers, media_type=JSON)


def error_response(
    area: Area,
    status: int,
    code: str,
    message: str,
    *,
    target: str | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    """The error body of seed 7: ``ErrorResponse`` for areas A-C (and, by decision, area E), the
    flat ``{code, message, details}`` of area D."""
    if area == "D":
        body: dict[str, Any] = {"code": code, "message": message, "details": target or ""}
    else:
        detail: dict[str, Any] = {"code": code, "message": message}
        if target:
            detail["target"] = target
        body = {"error": detail}
    return json_response(status, body, headers)


def shorten(text: str, limit: int = 200) -> str:
    """``text`` cut to ``limit`` characters (with ``...``), for echoing a caller's input in a
    message: error messages stay short whatever the request."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


class HttpError(Exception):
    """Raised by a handler to answer with an error body of its area."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        target: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.target = target
        self.headers = headers


class QueryError(Exception):
    pass


def parse_query(raw: bytes, single: Sequence[str]) -> dict[str, str]:
    """The query string decoded exactly once (``%27``, ``%28``, ``%2F``, ``+`` or raw characters
    alike), keyed by lower-case parameter name. A parameter of ``single`` given twice is an error."""
    try:
        text = raw.decode("utf-8")
        pairs = parse_qsl(text, keep_blank_values=True, encoding="utf-8", errors="strict")
    except UnicodeDecodeError:
        raise QueryError("the query string is not UTF-8 (after percent-decoding)") from None
    out: dict[str, str] = {}
    for name, value in pairs:
        key = name.lower()
        if key in out and key in single:
            raise QueryError(f"the query parameter '{name}' is given more than once")
        out.setdefault(key, value)
    return out


@dataclass
class Ctx:
    request: Request
    store: Store
    area: Area
    params: dict[str, str]
    query: dict[str, str]
    caller: BearerIdentity | None = None
    token_id: str | None = None
    body: bytes = b""
    extra: dict[str, Any] = field(default_factory=dict)


# --- paging ------------------------------------------------------------------------------------

_TOKEN = re.compile(r"^[A-Za-z0-9_-]{1,200}$")


def query_digest(ctx: Ctx) -> str:
    """A short digest of what a list call asked (path and every parameter but the skip token), so
    that a token of one query is refused by another."""
    parts = [ctx.request.url.path.lower()]
    for key in sorted(ctx.query):
        if key != "$skiptoken":
            parts.append(f"{key}={ctx.query[key]}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:12]


def encode_skip_token(offset: int, digest: str) -> str:
    raw = f"{offset}.{digest}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_skip_token(token: str, digest: str) -> int:
    if not _TOKEN.match(token):
        raise ValueError("malformed")
    padded = token + "=" * (-len(token) % 4)
    try:
        text = base64.urlsafe_b64decode(padded).decode()
    except (ValueError, UnicodeDecodeError):
        raise ValueError("malformed") from None
    offset_text, _, token_digest = text.partition(".")
    if token_digest != digest or not offset_text.isdigit():
        raise ValueError("another query")
    return int(offset_text)


def next_link(ctx: Ctx, token: str) -> str:
    """The original request URL, absolute, with its query exactly as sent but for the skip token,
    plus ``$skipToken``."""
    request = ctx.request
    base = str(request.base_url).rstrip("/")
    raw_path = request.scope.get("raw_path") or request.url.path.encode()
    path = raw_path.decode("latin-1").split("?", 1)[0]
    query = request.scope.get("query_string", b"").decode("latin-1")
    kept = [
        piece
        for piece in query.split("&")
        if piece and unquote_plus(piece.split("=", 1)[0]).lower() != "$skiptoken"
    ]
    kept.append(f"$skipToken={token}")
    return f"{base}{path}?{'&'.join(kept)}"


def page(ctx: Ctx, items: Sequence[Any], page_size: int) -> tuple[Sequence[Any], str | None]:
    """One page of ``items`` from the request's ``$skipToken``, and the next link (or None)."""
    digest = query_digest(ctx)
    token = ctx.query.get("$skiptoken")
    offset = 0
    if token is not None:
        try:
            offset = decode_skip_token(token, digest)
        except ValueError:
            raise HttpError(
                400,
                "InvalidSkipToken",
                "The $skipToken is not valid for this request; start again without it.",
                target="$skipToken",
            ) from None
    end = offset + page_size
    link = next_link(ctx, encode_skip_token(end, digest)) if end < len(items) else None
    return items[offset:end], link


def list_body(items: Sequence[Any], link: str | None) -> dict[str, Any]:
    body: dict[str, Any] = {"value": items}
    if link is not None:
        body["nextLink"] = link
    return body
