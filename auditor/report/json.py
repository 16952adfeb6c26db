"""The findings document of contracts section 6 (``schemaVersion`` 1), as JSON.

Values are kept exactly (tools match ids and fingerprints), but DEL, C1 controls and invisible bidi
and format characters are written as ``\\u`` escapes, so the file shows nothing raw in a terminal or
an editor (:func:`auditor.inert.inert_json`); JSON already escapes the other controls.

The document is written as a stream (:func:`chunks`): the parts around the findings array, then
the findings a chunk at a time, each encoded by msgspec and indented as the whole document would
be, so a million passes never exist as objects or as one string. Passes held compactly
(:class:`~auditor.audit.findings.PassBlock` with a shared ``proto``) are written from their
resource id and location alone. The bytes are those of :func:`render_document` (the whole
document encoded at once), which the tests compare.
"""

from __future__ import annotations

import binascii
import hashlib
import itertools
import operator
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import repeat
from typing import TYPE_CHECKING, Any

import msgspec

from auditor.inert import inert_json, inert_json_bytes

if TYPE_CHECKING:
    from auditor.audit.findings import AuditResult, Finding, PassBlock
    from auditor.report import RenderOptions

CHUNK = 500
"""Findings encoded at a time (2,000 held 34 MB more at once, and wrote no faster)."""
_FINDINGS_KEY = b'\n  "findings": ['
_INDENT = b"\n    "
_encode = msgspec.json.Encoder().encode


def _default(value: object) -> object:
    isoformat = getattr(value, "isoformat", None)
    if callable(isoformat):
        return isoformat()
    return str(value)


_encode_any = msgspec.json.Encoder(enc_hook=_default).encode


def render_document(result: AuditResult) -> bytes:
    """``result.to_json()`` encoded at once as indented UTF-8 JSON with a final newline: the
    reference the stream of :func:`chunks` equals (it holds the whole document in memory)."""
    doc = result.to_json()
    try:
        data = msgspec.json.format(_encode_any(doc), indent=2)
    except UnicodeEncodeError:  # a lone surrogate (a plan read by json.loads may hold one)
        return _fallback(doc)
    return inert_json_bytes(data) + b"\n"


def _fallback(doc: Any) -> bytes:
    import json

    text = json.dumps(doc, indent=2, ensure_ascii=False, default=_default)
    return inert_json(text).encode("utf-8") + b"\n"  # written as a \\u escape


def render(result: AuditResult, options: RenderOptions) -> bytes:
    """The document as one value (:func:`chunks` joined)."""
    return b"".join(chunks(result, options))


def chunks(result: AuditResult, options: RenderOptions | None = None) -> Iterator[bytes]:
    """The document of :func:`render_document`, a part at a time."""
    try:
        head = msgspec.json.format(_encode_any(result.document([])), indent=2)
    except UnicodeEncodeError:
        yield render_document(result)
        return
    cut = head.find(_FINDINGS_KEY)
    if cut < 0:  # pragma: no cover - the document always has its findings array
        yield render_document(result)
        return
    cut += len(_FINDINGS_KEY)
    yield inert_json_bytes(head[:cut])
    separator = b"\n"
    for part in _findings(result.findings):
        yield separator  # apart: the parts are megabytes, not copied again
        yield part
        separator = b",\n"
    if separator != b"\n":
        yield b"\n  "
    yield inert_json_bytes(head[cut:]) + b"\n"


def _findings(findings: Iterable[Finding]) -> Iterator[bytes]:
    """The findings array's items, indented, a chunk at a time (no separator at either end)."""
    from auditor.audit.findings import Findings

    if not isinstance(findings, Findings):
        yield from _objects(findings)
        return
    for segment in findings.segments():
        if isinstance(segment, list) or segment.proto is None:
            yield from _objects(segment)
        else:
            yield from _proto_passes(segment)


def _objects(findings: Iterable[Finding]) -> Iterator[bytes]:
    it = iter(findings)
    while batch := list(itertools.islice(it, CHUNK)):
        docs = [f.to_json() for f in batch]
        try:
            data = msgspec.json.format(_encode_any(docs), indent=2)
        except UnicodeEncodeError:  # a lone surrogate: as the whole document's fallback
            yield from (_fallback_item(doc) for doc in docs)
            continue
        yield _items(data)


def _items(data: bytes) -> bytes:
    """The items of a formatted JSON array, indented one level deeper (as the findings array's
    items are in the document), without the brackets."""
    body = data.replace(b"\n", b"\n  ")
    return inert_json_bytes(body[2:-4])  # "[\n" ... "\n  ]"


def _fallback_item(doc: Any) -> bytes:
    import json

    text = json.dumps(doc, indent=2, ensure_ascii=False, default=_default)
    return b"    " + inert_json(text).encode("utf-8").replace(b"\n", _INDENT)


_SENTINEL = {"rid": "\x00\x01rid\x00", "loc": "\x00\x01loc\x00", "fp": "\x00\x01fp\x00"}
_SENTINELS = {_encode(v)[1:-1]: k for k, v in _SENTINEL.items()}
_SPLIT = re.compile(b"(" + b"|".join(re.escape(k) for k in _SENTINELS) + b")")


_VALUE_INDEX = {"rid": 0, "fp": 1, "loc": 2}
_SEPARATOR = b",\n"


def _template(block: PassBlock, located: bool) -> tuple[tuple[bytes, ...], Callable[[Any], Any]]:
    """The indented JSON of the block's passes, then the separator: its constant parts and
    the getter that, given ``(resource id, fingerprint, location)`` (encoded) followed by those
    parts, picks every piece in order. The shared finding encoded with sentinels in the places
    of the values says where they go."""
    import dataclasses

    proto = block.proto
    assert proto is not None
    sample = dataclasses.replace(
        proto,
        resourceId=_SENTINEL["rid"],
        location=_SENTINEL["loc"] if located else None,
        fingerprint=_SENTINEL["fp"],
    )
    data = b"    " + msgspec.json.format(_encode_any(sample.to_json()), indent=2).replace(
        b"\n", _INDENT
    )
    pieces = _SPLIT.split(data)
    constants = (*pieces[::2], _SEPARATOR)
    order: list[int] = []
    for n in range(len(constants)):
        order.append(3 + n)
        if n < len(pieces) // 2:
            order.append(_VALUE_INDEX[_SENTINELS[pieces[2 * n + 1]]])
    return constants, operator.itemgetter(*order)


def _proto_passes(block: PassBlock) -> Iterator[bytes]:
    """The passes of a block that shares one finding, written from their ids and locations a
    chunk at a time, column by column (the loops run in C: a million passes each)."""
    templates: dict[bool, tuple[tuple[bytes, ...], Callable[[Any], Any]]] = {}
    relocate = block.relocate
    rule_id, kind = block.ruleId, block.source_kind
    head, tail = rule_id.upper() + "\x1f", "\x1f" + kind + "\x1f"
    for rids, locations in _columns(block.items):
        if relocate is not None:
            locations = [relocate(loc) if loc else loc for loc in locations]
        located = locations[0] is not None
        if (None in locations) if located else any(loc is not None for loc in locations):
            # located and unlocated passes mixed (not seen in practice): one at a time
            for n in range(len(rids)):
                yield from _proto_passes(_single(block, rids[n], locations[n]))
            continue
        template = templates.get(located)
        if template is None:
            template = templates[located] = _template(block, located)
        try:
            columns = (_strings(rids), _fingerprints(rids, head, tail), _strings(locations))
        except UnicodeEncodeError:  # a lone surrogate: these passes as findings
            part = type(block)(
                rule_id,
                list(zip(rids, locations, strict=True)),
                types={},
                proto=block.proto,
                source_kind=kind,
            )
            yield from _objects(part)
            continue
        constants, order = template
        streams = order((*columns, *(itertools.repeat(c) for c in constants)))
        out = list(itertools.chain.from_iterable(zip(*streams, strict=False)))
        out.pop()  # the last separator
        yield inert_json_bytes(b"".join(out))


def _columns(items: Sequence[Any]) -> Iterator[tuple[list[str], Sequence[str | None]]]:
    """The ids and locations of ``items``, a chunk at a time."""
    from auditor.audit.findings import Located

    if isinstance(items, Located):
        for start in range(0, len(items), CHUNK):
            ids, locations = items.columns(start, start + CHUNK)
            yield ids, locations
        return
    it = iter(items)
    while batch := list(itertools.islice(it, CHUNK)):
        yield [item[0] for item in batch], [item[1] for item in batch]


def _single(block: PassBlock, rid: str, location: str | None) -> PassBlock:
    return type(block)(
        block.ruleId,
        [(rid, location)],
        types={},
        proto=block.proto,
        source_kind=block.source_kind,
    )


def _strings(values: Sequence[str | None]) -> Iterable[bytes]:
    """Each string JSON-encoded without its quotes (one encoder call for them all: in the
    encoded list, ``","`` only ever separates two items); None: empty."""
    if not values or values[0] is None:
        return itertools.repeat(b"")
    data = _encode(values)
    return data[2:-2].split(b'","') if len(data) > 4 else [b"" for _ in values]


def _fingerprints(rids: list[str], head: str, tail: str) -> Iterable[bytes]:
    """:func:`~auditor.audit.findings.fingerprint` (no detail) of each resource id."""
    norms = list(map(str.lower, map(str.rstrip, map(str.strip, rids), itertools.repeat("/"))))
    if "" in norms:
        norms = [n or "/" for n in norms]
    texts = map(str.encode, map(operator.add, map(operator.add, repeat(head), norms), repeat(tail)))
    digests = map(operator.methodcaller("digest"), map(hashlib.sha256, texts))
    # the first 32 hex digits of the digest: of its first 16 bytes
    return map(binascii.hexlify, map(operator.itemgetter(slice(0, 16)), digests))
