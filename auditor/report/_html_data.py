"""The HTML report's findings as one compressed data block, rendered in the browser.

A large estate lists a hundred thousand findings; as markup they made a page of hundreds of
megabytes that no browser opens. Instead the page carries them once, as JSON with every repeated
text (resource ids, names, messages, evidence keys and values) stored once in a string table and
the findings as columns of indexes, gzip-compressed and base64-encoded inside an inert
``<template>`` element. The page's script decompresses it (``DecompressionStream``), filters and
searches the data, and builds a page of rows at a time with ``textContent`` (never ``innerHTML``);
a finding's details are built when it is opened.

Every string is made inert here (:func:`~auditor.report._sanitize.xml_text`), as the templates
do for what they print; evidence that carries markup is cleaned by nh3 and shipped as a tree of
allowed elements and text, which the script rebuilds element by element.
"""

from __future__ import annotations

import base64
import zlib
from html.parser import HTMLParser
from itertools import chain, islice
from operator import attrgetter
from typing import TYPE_CHECKING, Any

import msgspec

from auditor.audit.findings import SEVERITIES
from auditor.report._sanitize import (
    SAFE_TAGS,
    clean_html,
    looks_like_html,
    scalar_text,
    xml_text,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence

    from auditor.audit.findings import Finding, Privileged, RuleInfo, WaiverInfo

FORMAT = "json+gzip+base64"
"""The block's ``data-format``: what the script expects."""

EV_TEXT, EV_RICH, EV_PRE = 0, 1, 2
"""Kinds of an evidence value: plain text, cleaned markup (a tree), a JSON block."""


class _Strings:
    """The string table: each distinct (inert) text once, referred to by its index."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        index = self.index
        get = index.get
        setdefault = index.setdefault

        def put(text: Any) -> int:
            """The index of ``text`` made inert (:func:`~auditor.report._sanitize.xml_text`).
            A text already in the table, most of them, is found by one lookup: the table's texts
            are inert, and an inert text stays itself when made inert again."""
            at = get(text)
            if at is not None:
                return at
            if text.__class__ is not str or not text.isprintable():
                text = xml_text(text)
            return setdefault(text, len(index))

        self.put = put
        self.get = get

    def opt(self, text: Any) -> int:
        """The index of ``text``, or -1 for none (or empty)."""
        return self.put(text) if text else -1

    def put_all(self, texts: list[Any]) -> list[int]:
        """:meth:`put` of each text (those in the table found without a call)."""
        get = self.get
        put = self.put
        return [i if (i := get(t)) is not None else put(t) for t in texts]

    def opt_all(self, texts: list[Any]) -> list[int]:
        """:meth:`opt` of each text (as :meth:`put_all`)."""
        get = self.get
        put = self.put
        return [-1 if not t else i if (i := get(t)) is not None else put(t) for t in texts]


class _Tree(HTMLParser):
    """Cleaned markup (nh3 output) as nested lists: ``[tag, {attr: value}, child, ...]``, text
    as strings (made inert again: entities are decoded here)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root: list[Any] = ["div", {}]
        self.stack: list[list[Any]] = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in SAFE_TAGS:
            return
        keep = {k: xml_text(v) for k, v in attrs if k in ("href", "title") and v is not None}
        node: list[Any] = [tag, keep]
        self.stack[-1].append(node)
        if tag != "br":
            self.stack.append(node)

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth][0] == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].append(xml_text(data))


def rich_tree(markup: str) -> list[Any]:
    """Untrusted HTML as the tree the script rebuilds: cleaned by nh3, then parsed."""
    parser = _Tree()
    parser.feed(clean_html(markup))
    parser.close()
    return parser.root[2:]


COLUMNS = (
    "n", "r", "sv", "st", "res", "nm", "m", "ev", "fp", "src", "ln", "at", "loc", "wv", "rem",
    "refs",
)  # fmt: skip
"""The listed findings' fields, one list each, in display order: the finding's number (its
``#f-N`` anchor), rule, severity, status, resource id, resource name, message, evidence,
fingerprint, source file, line, address, location, waiver, remediation and references (the last
two only where they differ from the rule's)."""


def data_block(
    groups: list[Any],
    resources: list[Any],
    statuses: tuple[str, ...],
    privileged: Mapping[str, Sequence[Privileged]] | None = None,
) -> tuple[str, int]:
    """The base64 text of the compressed findings data and how many findings it holds.

    ``groups`` are the report's rule groups in display order (their ``findings`` sorted),
    ``resources`` the resource index rows in display order, ``privileged`` the access section's
    privileged principals per subscription (a large estate has tens of thousands)."""
    text = b"".join(packed_parts(groups, resources, statuses, privileged)).decode("ascii")
    return text, sum(len(group.findings) for group in groups)


def packed_parts(
    groups: list[Any],
    resources: list[Any],
    statuses: tuple[str, ...],
    privileged: Mapping[str, Sequence[Privileged]] | None = None,
) -> Iterator[bytes]:
    """:func:`data_block`'s text as ASCII parts, made while the page is written.

    The document is never held whole: it is encoded a column (the evidence :data:`BATCH` findings)
    at a time, each part compressed as soon as it is made (one gzip stream) and dropped. The
    string table, which is complete only once everything else is encoded, comes last (the script
    parses the whole document, so its keys' order does not matter)."""
    return _base64(_compressed(_document(groups, resources, statuses, privileged)))


LEVEL = 1
"""The block's zlib compression level: the fastest, for a block a tenth larger than level 4's and
well under the page's size goal (1,000,000 role assignments: 0.21 s against 0.39 s at level 4
and 0.72 s at zlib's default, 6; 11.0 MB compressed against 10.0 MB and 9.6 MB, a page of
17.2 MB against 15.9 MB)."""

BATCH = 4_096
"""Listed findings whose evidence is encoded together (and strings of the table, rows of the
resource index and of the privileged principals, 4 times as many)."""

_PART = 1 << 18
"""Bytes of the document handed to the compressor at once (small parts are gathered)."""


def _plain(value: Any) -> Any:
    """For msgspec: subclasses of ``str``, ``int`` and ``float`` (a ``SourcePath``) as the plain
    values ``json.dumps`` writes for them."""
    for kind in (str, int, float):
        if isinstance(value, kind):
            return kind(value)
    raise TypeError(f"cannot encode {type(value).__name__}")


_encode = msgspec.json.Encoder(enc_hook=_plain).encode


def _array(slices: Iterable[Sequence[Any]]) -> Iterator[bytes]:
    """A JSON array written from slices of its items, each encoded at once."""
    yield b"["
    sep = b""
    for items in slices:
        if items:
            yield sep
            yield _encode(items)[1:-1]
            sep = b","
    yield b"]"


def _slices(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _document(
    groups: list[Any],
    resources: list[Any],
    statuses: tuple[str, ...],
    privileged: Mapping[str, Sequence[Privileged]] | None,
) -> Iterator[bytes]:
    """The data document's JSON text as parts: ``{"v", "sevs", "sts", "f", "w", "res", "priv",
    "s"}``, the findings a column at a time (:data:`COLUMNS`)."""
    s = _Strings()
    put = s.put
    opt = s.opt
    put_all = s.put_all
    opt_all = s.opt_all
    views: list[Any] = [v for group in groups for v in group.findings]
    fs: list[Finding] = [v.f for v in views]
    rules: list[RuleInfo] = [group.rule for group in groups for _ in group.findings]
    yield _encode({"v": 1, "sevs": list(SEVERITIES), "sts": list(statuses)})[:-1]
    yield b',"f":{'
    sev_of = {name: i for i, name in enumerate(SEVERITIES)}
    last_sev = len(SEVERITIES) - 1
    status_of = {name: i for i, name in enumerate(statuses)}
    waiver_rows: list[list[Any]] = []
    waiver_at: dict[tuple[str, str, str, bool], int] = {}

    def waiver(w: WaiverInfo | None) -> int:
        if w is None:
            return -1
        known = (w.id, w.expires, w.justification, w.expired)
        at = waiver_at.get(known)
        if at is None:
            at = waiver_at[known] = len(waiver_rows)
            waiver_rows.append(
                [xml_text(w.id), xml_text(w.expires), xml_text(w.justification), int(w.expired)]
            )
        return at

    def column(key: str) -> Iterable[Sequence[Any]]:
        if key == "ev":  # most of the document: a batch at a time
            shown: dict[int, tuple[Any, Any]] = {}  # (findings share evidence lists)
            return (
                [_evidence(e, s, shown) if (e := f.evidence) else 0 for f in batch]
                for batch in _slices(fs, BATCH)
            )
        if key == "n":
            values = [v.n for v in views]
        elif key == "r":
            values = []
            for group in groups:
                values += [put(group.rule.id)] * len(group.findings)
        elif key == "sv":
            values = [sev_of.get(f.severity, last_sev) for f in fs]
        elif key == "st":
            values = [status_of.get(f.status, 0) for f in fs]
        elif key == "res":
            values = put_all([f.resourceId for f in fs])
        elif key == "nm":
            values = opt_all([v.name for v in views])
        elif key == "m":
            values = put_all([f.message for f in fs])
        elif key == "fp":
            values = [xml_text(f.fingerprint) for f in fs]
        elif key == "src":
            values = opt_all([f.source for f in fs])
        elif key == "ln":
            values = [-1 if (line := f.line) is None else line for f in fs]
        elif key == "at":
            values = opt_all([f.address for f in fs])
        elif key == "loc":
            values = opt_all([f.location for f in fs])
        elif key == "wv":
            values = [waiver(f.waiver) for f in fs]
        elif key == "rem":
            values = [
                opt(rem) if (rem := f.remediation) and rem != rule.remediation else -1
                for f, rule in zip(fs, rules, strict=True)
            ]
        else:  # "refs"
            values = [
                list(map(put, refs))
                if (refs := tuple(f.references)) and refs != tuple(rule.references)
                else 0
                for f, rule in zip(fs, rules, strict=True)
            ]
        return [values]

    for i, key in enumerate(COLUMNS):
        yield (b',"' if i else b'"') + key.encode("ascii") + b'":'
        yield from _array(column(key))
    fs.clear()
    rules.clear()
    yield b'},"w":'
    yield _encode(waiver_rows)
    position = {v.n: at for at, v in enumerate(views)}.get
    views.clear()

    def resource_rows(rows: Sequence[Any]) -> list[list[Any]]:
        # (each field's texts put at once; a loop: most resources list one finding)
        ids = put_all([r.resource for r in rows])
        types = put_all([r.resourceType for r in rows])
        names = opt_all([r.name for r in rows])
        lists = list(map(_findings_of, rows))
        found: list[Any] = list(map(position, map(_n_of, chain.from_iterable(lists))))
        if None in found:  # (a view not in the groups: left out)
            listed = [[at for v in r if (at := position(v.n)) is not None] for r in lists]
        elif (sizes := list(map(len, lists))).count(1) == len(sizes):  # (one each, as most)
            listed = list(map(list, zip(found)))
        else:
            taken = iter(found)
            listed = [list(islice(taken, n)) for n in sizes]
        return list(map(list, zip(ids, types, names, listed, strict=True)))

    def privileged_rows(rows: Sequence[tuple[str, Privileged]]) -> list[list[Any]]:
        fields = (
            put_all([sub for sub, _ in rows]),
            put_all([p.displayName for _, p in rows]),
            put_all([p.principalId for _, p in rows]),
            put_all([p.principalType for _, p in rows]),
            put_all([p.role for _, p in rows]),
            [list(map(put, p.via)) if p.via else [] for _, p in rows],  # (most: direct)
        )
        return list(map(list, zip(*fields, strict=True)))

    yield b',"res":'
    yield from _array(resource_rows(rows) for rows in _slices(resources, 4 * BATCH))
    yield b',"priv":'
    pairs = [(sub, p) for sub, rows in (privileged or {}).items() for p in rows]
    yield from _array(privileged_rows(rows) for rows in _slices(pairs, 4 * BATCH))
    yield b',"s":'
    yield from _array(_slices(list(s.index), 4 * BATCH))
    yield b"}"


def _compressed(parts: Iterable[bytes]) -> Iterator[bytes]:
    """``parts`` compressed as one gzip stream (``gzip.compress`` of their concatenation, level
    :data:`LEVEL`), the compressed bytes as they come. (Compressing on a worker thread while the
    next parts are made was measured and left out: at 1,000,000 role assignments it saved 0.1-0.2 s
    on a quiet machine, cost 10-15 MB more at the peak, and was slower on a busy one.)"""
    packer = zlib.compressobj(LEVEL, zlib.DEFLATED, 31)
    gathered: list[bytes] = []
    size = 0
    for part in parts:
        gathered.append(part)
        size += len(part)
        if size >= _PART:
            yield packer.compress(b"".join(gathered))
            gathered.clear()
            size = 0
    yield packer.compress(b"".join(gathered))
    yield packer.flush()


def _base64(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """The base64 text of the chunks' concatenation, as parts (each a multiple of 3 bytes
    encoded, the rest carried to the next)."""
    rest = b""
    for chunk in chunks:
        if rest:
            chunk = rest + chunk
        cut = len(chunk) - len(chunk) % 3
        rest = chunk[cut:]
        if cut:
            yield base64.b64encode(chunk[:cut])
    if rest:
        yield base64.b64encode(rest)


def _evidence(
    evidence: dict[str, Any], s: _Strings, shown: dict[int, tuple[Any, Any]]
) -> list[list[Any]]:
    """Evidence as ``[key, kind, value]`` items (see :data:`EV_TEXT`): text as a string-table
    index, markup as a tree, anything else as the JSON value itself (its strings made inert),
    which the script shows as the markup page does (short JSON on one line, long JSON
    indented). (Keys and texts already in the table, most of them, are found by one lookup, as
    :meth:`_Strings.put_all` finds them; a list or object that several findings share, such as a
    guest list, is made inert once: ``shown`` keeps it by its identity, beside the list itself
    so that the identity is not reused.)"""
    put = s.put
    get = s.get
    out: list[list[Any]] = []
    for key, value in evidence.items():
        k = get(key)
        if k is None:
            k = put(str(key))
        cls = value.__class__
        if cls is str or isinstance(value, str):
            if ("<" in value or "&" in value) and looks_like_html(value):  # (tags, entities)
                out.append([k, EV_RICH, rich_tree(value)])
            else:
                i = get(value)
                out.append([k, EV_TEXT, put(value) if i is None else i])
        elif cls is bool:
            out.append([k, EV_TEXT, put("true" if value else "false")])
        elif isinstance(value, dict | list | tuple):
            known = shown.get(id(value))
            if known is None:
                known = shown[id(value)] = (value, _inert_json(value))
            out.append([k, EV_PRE, known[1]])
        else:
            out.append([k, EV_TEXT, put(_scalar(value))])
    return out


_STR = frozenset({str})
_findings_of = attrgetter("findings")
_n_of = attrgetter("n")


def _inert_json(value: Any) -> Any:
    """A JSON value with every string (keys too) made inert; objects JSON does not know shown
    by ``str()`` (a secret: its mask), as :func:`~auditor.report._sanitize.evidence_json` does.
    (This runs for every evidence object of a large report: a list or object whose items are all
    printable plain strings, most of them, is kept as it is, decided by a few calls in C.)"""
    cls = value.__class__
    if cls is str:
        return value if value.isprintable() else xml_text(value)
    if cls is list or cls is tuple:
        if _STR.issuperset(map(type, value)) and "".join(value).isprintable():
            return value
    elif cls is dict and _STR.issuperset(map(type, value)) and "".join(value).isprintable():
        if _STR.issuperset(map(type, value.values())) and "".join(value.values()).isprintable():
            return value
        return {
            k: v if v.__class__ is str and v.isprintable() else _inert_json(v)
            for k, v in value.items()
        }
    if isinstance(value, dict):
        return {
            (k if k.__class__ is str and k.isprintable() else _inert_json(str(k))): (
                v if v.__class__ is str and v.isprintable() else _inert_json(v)
            )
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [v if v.__class__ is str and v.isprintable() else _inert_json(v) for v in value]
    if value is None or isinstance(value, bool | int | float):
        return value
    return xml_text(str(value))


def _scalar(value: Any) -> str:
    """A scalar as JSON writes it (``true``, ``3``, ``null``); anything else by ``str()``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return scalar_text(value) if isinstance(value, float) else str(value)
    return str(value)
