"""Recorded HTTP traffic: HAR files (a browser's export of a portal session) and VCR cassettes
(vcrpy's YAML and JSON, Betamax's JSON, and the JSON recordings of the vendor's SDK test suites).

Only responses are read, and only those of GET requests to a recognised endpoint
(:mod:`auditor.sources.exports._endpoints`) with a 2xx status; every other exchange is listed as
skipped with its reason. Request headers (bearer tokens, cookies) are never read: the recordings are
decoded into structures that do not have them. A query string (it may carry a signature) is never
shown. Bodies may be base64 (HAR ``encoding``, YAML ``!!binary``, Betamax ``base64_string``) and
gzip-compressed (decompressed up to :data:`MAX_BODY` bytes).
"""

from __future__ import annotations

import base64
import binascii
import zlib
from collections.abc import Callable
from typing import Any

import msgspec

from auditor.errors import InputError, clip
from auditor.sources.exports._documents import FileRead, read_document, split_top
from auditor.sources.exports._endpoints import recognise, url_path

MAX_BODY = 256 << 20
"""Bytes of one decompressed response body, at most."""


class _HarContent(msgspec.Struct):
    text: str | None = None
    encoding: str | None = None


class _HarResponse(msgspec.Struct):
    status: int = 0
    content: _HarContent | None = None


class _HarRequest(msgspec.Struct):
    method: str = ""
    url: str = ""


class _HarEntry(msgspec.Struct):
    request: _HarRequest | None = None
    response: _HarResponse | None = None
    startedDateTime: str | None = None


class _HarLog(msgspec.Struct):
    entries: list[_HarEntry] = []


class _Har(msgspec.Struct):
    log: _HarLog


class _VcrStatus(msgspec.Struct):
    code: int = 0


class _VcrRequest(msgspec.Struct):
    method: str = ""
    uri: str = ""


class _VcrResponse(msgspec.Struct):
    status: _VcrStatus | int | None = None
    body: Any = None


class _VcrInteraction(msgspec.Struct):
    request: _VcrRequest | None = None
    response: _VcrResponse | None = None
    recorded_at: Any = None


class _Cassette(msgspec.Struct):
    interactions: list[_VcrInteraction] | None = None
    http_interactions: list[_VcrInteraction] | None = None


Body = bytes | tuple[Any]
"""A response body: its bytes, or (for recordings that keep the parsed JSON) a 1-tuple of it."""


def _shape_error(exc: msgspec.ValidationError, what: str, source: str) -> InputError:
    # msgspec's messages name types and paths, never values
    return InputError(f"expected {what}: {clip(str(exc), 300)}", source=source)


def read_har(fr: FileRead, data: bytes | memoryview) -> FileRead:
    """The responses of a HAR file."""
    try:
        har = msgspec.json.decode(data, type=_Har)
    except msgspec.ValidationError as exc:
        raise _shape_error(
            exc, "a HAR file (log.entries with request and response)", fr.file
        ) from None
    entries = har.log.entries
    fr.kind = f"HAR recording ({len(entries):,} entries)"
    requested: set[str] = set()
    for i, entry in enumerate(entries):
        where = f"log.entries[{i}]"
        req, resp = entry.request, entry.response
        if req is None or resp is None:
            fr.skip(where, "no request or response recorded")
            continue
        content = resp.content

        def body(content: _HarContent | None = content) -> Body | None:
            if content is None or content.text is None:
                return None
            if (content.encoding or "").lower() == "base64":
                try:
                    return base64.b64decode(content.text)
                except (binascii.Error, ValueError):
                    return None
            return content.text.encode("utf-8", errors="surrogatepass")

        if _exchange(fr, where, req.method, req.url, resp.status, body, requested):
            fr.recorded_at(entry.startedDateTime)
    _unfollowed(fr, requested)
    return fr


def read_cassette(fr: FileRead, document: Any) -> FileRead:
    """The responses of a VCR cassette: ``document`` is its JSON bytes or its plain YAML value."""
    try:
        if isinstance(document, bytes | memoryview):
            cassette = msgspec.json.decode(document, type=_Cassette)
        else:
            cassette = msgspec.convert(document, _Cassette, strict=False)
    except msgspec.ValidationError as exc:
        raise _shape_error(
            exc, "a VCR cassette (interactions with request and response)", fr.file
        ) from None
    key = "interactions" if cassette.interactions is not None else "http_interactions"
    interactions = cassette.interactions or cassette.http_interactions or []
    fr.kind = f"VCR cassette ({len(interactions):,} interactions)"
    requested: set[str] = set()
    for i, item in enumerate(interactions):
        where = f"{key}[{i}]"
        req, resp = item.request, item.response
        if req is None or resp is None:
            fr.skip(where, "no request or response recorded")
            continue
        status = resp.status.code if isinstance(resp.status, _VcrStatus) else resp.status or 0

        def body(value: Any = resp.body) -> Body | None:
            return _cassette_body(value)

        if _exchange(fr, where, req.method, req.uri, status, body, requested) and isinstance(
            item.recorded_at, str
        ):
            fr.recorded_at(item.recorded_at)
    _unfollowed(fr, requested)
    return fr


def _cassette_body(value: Any) -> Body | None:
    text: Any = value
    if isinstance(value, dict):
        if "data" in value:  # recordings of the vendor's SDK tests keep the parsed JSON
            return (value["data"],)
        if "base64_string" in value:
            try:
                text = base64.b64decode(str(value["base64_string"]))
            except (binascii.Error, ValueError):
                return None
        else:
            text = value.get("string")
    if isinstance(text, str):
        return text.encode("utf-8", errors="surrogatepass")
    if isinstance(text, bytes | bytearray):
        return bytes(text)
    return None


def _gunzip(data: bytes) -> bytes | None:
    if data[:2] != b"\x1f\x8b":
        return data
    try:
        inflater = zlib.decompressobj(wbits=47)
        out = inflater.decompress(data, MAX_BODY + 1)
    except zlib.error:
        return None
    return out if len(out) <= MAX_BODY else None


def _exchange(
    fr: FileRead,
    where: str,
    method: str,
    url: str,
    status: int,
    body: Callable[[], Body | None],
    requested: set[str],
) -> bool:
    """Read one request's response; True when it was read."""
    path = clip(url_path(url) or "(no path)", 160)
    shown = f"{clip(method.upper(), 10)} {path}"
    endpoint = recognise(url)
    if endpoint is None:
        fr.skip(where, f"{shown}: not an endpoint the audit reads")
        return False
    if method.upper() != "GET":
        fr.skip(where, f"{shown}: not a GET (only the responses of GET requests are read)")
        return False
    if not 200 <= status < 300:
        fr.skip(where, f"{shown}: status {status}")
        return False
    found = body()
    if isinstance(found, bytes):
        found = _gunzip(found)
        if found is None:
            fr.skip(
                where, f"{shown}: the body cannot be decompressed (or is over {MAX_BODY:,} bytes)"
            )
            return False
    if found is None or found == b"":
        fr.skip(where, f"{shown}: no response body recorded")
        return False
    requested.add(_page_key(url))
    if isinstance(found, tuple):
        top, data = found[0], None
    else:
        try:
            top = split_top(found, fr.file)
        except InputError as exc:
            fr.skip(where, f"{shown}: the body is not usable JSON ({clip(exc.detail, 120)})")
            return False
        data = found
    reason = read_document(
        fr, top, data=data, prefix=f"{where} > ", whole="(the response body)", endpoint=endpoint
    )
    if reason is not None:
        fr.skip(where, f"{shown}: {reason}")
        return False
    return True


def _page_key(url: str) -> str:
    """A URL as compared with a nextLink: without scheme and host, case kept."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    return parts.path + ("?" + parts.query if parts.query else "")


def _unfollowed(fr: FileRead, requested: set[str]) -> None:
    missing = [link for link in fr.next_links if _page_key(link) not in requested]
    fr.next_links.clear()
    if missing:
        fr.notes.append(
            f"{len(missing):,} listing(s) continue at a page the recording does not hold "
            "(nextLink): their records beyond the recorded pages are missing"
        )
