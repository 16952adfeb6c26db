"""The HTML report's findings as one compressed data block, rendered in the browser.

A large estate lists a hundred thousand findings; as markup they made a page of hundreds of
megabytes that no browser opens. Instead the page carries them once, as JSON with every repeated
text (resource ids, names, messages, evidence keys and values) stored once in a string table and
the findings as columns of indexes (their evidence as rows of values under lists of keys that
findings share, each list or object they share written once: :class:`_Evidence`),
gzip-compressed and base64-encoded inside an inert ``<template>`` element. The page's script
decompresses it (``DecompressionStream``), filters and searches the data, and builds a page of
rows at a time with ``textContent`` (never ``innerHTML``); a finding's details are built when it
is opened.

Every string is made inert here (:func:`~auditor.report._sanitize.xml_text`), as the templates
do for what they print; evidence that carries markup is cleaned by nh3 and shipped as a tree of
allowed elements and text, which the script rebuilds element by element.
"""

from __future__ import annotations

import base64
import gc
import zlib
from html.parser import HTMLParser
from itertools import chain, compress, islice, repeat
from operator import attrgetter, is_, itemgetter, not_
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
    from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence

    from auditor.audit.findings import Finding, Privileged, RuleInfo, WaiverInfo

FORMAT = "json+gzip+base64"
"""The block's ``data-format``: what the script expects."""

EV_TEXT, EV_RICH, EV_PRE = 0, 1, 2
"""Kinds of an evidence value: plain text, cleaned markup (a tree), a JSON block."""


_CHUNK = 1_024
"""Texts :meth:`_Strings.put_all` takes at once: its passes over them (looked up, new ones
checked and numbered, looked up again) find them in the processor's cache."""

_PRINTABLE_ASCII = bytes(range(0x20, 0x7F))
"""The printable ASCII characters (to ``str.isprintable``, every other ASCII one is a control)."""


def _printable(texts: Collection[str]) -> bool:
    """Whether every one of ``texts`` is printable (``str.isprintable``), decided together. Most
    texts of a report are ASCII, which Python knows of a string without reading it; their bytes
    are then checked by one ``bytes.translate``, in C at about a byte a nanosecond, where
    ``str.isprintable`` takes several per character (a tenth of the block's time at 1,000,000
    role assignments, before)."""
    plain = list(map(str.isascii, texts))
    if all(plain):
        return not "".join(texts).encode("ascii").translate(None, _PRINTABLE_ASCII)
    joined = "".join(compress(texts, plain))  # (the others one at a time)
    return not joined.encode("ascii").translate(None, _PRINTABLE_ASCII) and all(
        map(str.isprintable, compress(texts, map(not_, plain)))
    )


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

    def put_all(self, texts: Sequence[Any]) -> list[int]:
        """:meth:`put` of each text. Those in the table are found by one lookup each, in C; the
        new ones, when all are printable plain strings (most columns), are numbered in order of
        first appearance by one update, and everything is looked up again (in C too)."""
        if len(texts) > _CHUNK:
            return list(chain.from_iterable(map(self.put_all, _slices(texts, _CHUNK))))
        get: Callable[[Any], Any] = self.get
        found: list[Any] = list(map(get, texts))
        if None not in found:
            return found
        index = self.index
        fresh = dict.fromkeys(compress(texts, map(is_, found, repeat(None))))
        if _STR.issuperset(map(type, fresh)) and _printable(fresh):
            start = len(index)
            index.update(zip(fresh, range(start, start + len(fresh)), strict=True))
            return list(map(get, texts))
        put = self.put
        return [i if i is not None else put(t) for t, i in zip(texts, found, strict=True)]

    def opt_all(self, texts: list[Any]) -> list[int]:
        """:meth:`opt` of each text (as :meth:`put_all`)."""
        if all(texts):
            return self.put_all(texts)
        if not any(texts):
            return [-1] * len(texts)
        picked = list(filter(None, texts))
        found = dict(zip(picked, self.put_all(picked), strict=True))
        return list(map(found.get, texts, repeat(-1)))


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
17.2 MB against 15.9 MB, measured with format 1; format 2's page is 14.9 MB at level 1)."""

BATCH = 2_048
"""Listed findings whose evidence is encoded together (and strings of the table, rows of the
resource index and of the privileged principals, 4 times as many). A batch's evidence is read a
key at a time: 2,048 findings' evidence stays in the processor's cache between keys (at
1,000,000 role assignments, 0.83 s for the block against 0.87 s with batches of 4,096)."""

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


def _array(slices: Iterable[Sequence[Any]]) -> Iterator[bytes | memoryview]:
    """A JSON array written from slices of its items, each encoded at once (its brackets left
    out by a view, not a copy)."""
    yield b"["
    sep = b""
    for items in slices:
        if items:
            yield sep
            yield memoryview(_encode(items))[1:-1]
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
) -> Iterator[bytes | memoryview]:
    """The data document's JSON text as parts: ``{"v", "sevs", "sts", "f", "evk", "evj", "w",
    "res", "priv", "s"}``, the findings a column at a time (:data:`COLUMNS`; their evidence as
    :class:`_Evidence` describes)."""
    s = _Strings()
    put = s.put
    opt = s.opt
    put_all = s.put_all
    opt_all = s.opt_all
    views: list[Any] = [v for group in groups for v in group.findings]
    fs: list[Finding] = [v.f for v in views]
    rules: list[RuleInfo] = [group.rule for group in groups for _ in group.findings]
    evidence = _Evidence(s)
    yield _encode({"v": 2, "sevs": list(SEVERITIES), "sts": list(statuses)})[:-1]
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
            return (evidence.rows(list(map(_evidence_of, batch))) for batch in _slices(fs, BATCH))
        if key == "n":
            values = list(map(_n_of, views))
        elif key == "r":
            values = []
            for group in groups:
                values += [put(group.rule.id)] * len(group.findings)
        elif key == "sv":
            values = [sev_of.get(f.severity, last_sev) for f in fs]
        elif key == "st":
            values = [status_of.get(f.status, 0) for f in fs]
        elif key == "res":
            values = put_all(list(map(_resource_of, fs)))
        elif key == "nm":
            values = opt_all(list(map(_name_of, views)))
        elif key == "m":
            values = put_all(list(map(_message_of, fs)))
        elif key == "fp":
            values = list(map(_fingerprint_of, fs))
            if not (_STR.issuperset(map(type, values)) and _printable(values)):
                values = list(map(xml_text, values))
        elif key == "src":
            values = opt_all(sources)
        elif key == "ln":  # (a property of the source: none at all, most often)
            values = [-1 if (line := f.line) is None else line for f in fs] if any_source else none
        elif key == "at":
            values = opt_all([f.address for f in fs]) if any_source else none
        elif key == "loc":
            values = opt_all(list(map(_location_of, fs)))
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

    sources = list(map(_source_of, fs))
    any_source = any(sources)
    none = [-1] * len(fs)
    for i, key in enumerate(COLUMNS):
        yield (b',"' if i else b'"') + key.encode("ascii") + b'":'
        yield from _array(column(key))
    fs.clear()
    rules.clear()
    sources.clear()
    yield b'},"evk":'
    yield _encode(list(evidence.shapes))
    yield b',"evj":'
    yield from _array(_slices(evidence.values, BATCH))
    evidence.shown.clear()
    evidence.values.clear()
    yield b',"w":'
    yield _encode(waiver_rows)
    position = {v.n: at for at, v in enumerate(views)}.get
    views.clear()

    def resource_rows(rows: Sequence[Any]) -> list[list[Any]]:
        # (each field's texts put at once; a loop: most resources list one finding)
        ids = put_all(list(map(_resource_row_of, rows)))
        types = put_all(list(map(_type_of, rows)))
        names = opt_all(list(map(_name_of, rows)))
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


def _compressed(parts: Iterable[bytes | memoryview]) -> Iterator[bytes]:
    """``parts`` compressed as one gzip stream (``gzip.compress`` of their concatenation, level
    :data:`LEVEL`), the compressed bytes as they come. (Compressing on a worker thread while the
    next parts are made was measured and left out: at 1,000,000 role assignments it saved 0.1-0.2 s
    on a quiet machine, cost 10-15 MB more at the peak, and was slower on a busy one.)"""
    packer = zlib.compressobj(LEVEL, zlib.DEFLATED, 31)
    gathered: list[bytes | memoryview] = []
    size = 0
    for part in parts:
        if len(part) >= _PART:  # (a large part as it is, not copied into a joined one)
            if gathered:
                yield packer.compress(b"".join(gathered))
                gathered.clear()
                size = 0
            yield packer.compress(part)
            continue
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


class _Evidence:
    """The findings' evidence for the script (format 2), a batch of findings at a time.

    A finding's evidence is ``0`` (none) or ``[shape, value, ...]``: ``shape`` indexes the
    document's ``evk``, the lists of keys (string-table indexes) that findings share, most of a
    rule's findings having the same keys in the same order; each value is a string-table index
    (text, :data:`EV_TEXT`), ``[EV_RICH, tree]`` (cleaned markup) or ``[EV_PRE, at]``, a JSON
    value of the document's ``evj``, each list or object that findings share (a guest list, a
    path) written once. (Format 1 gave each item as ``[key, kind, value]`` and each JSON value
    in full: a tenth of the document, at 1,000,000 role assignments, was guest lists again.)"""

    def __init__(self, s: _Strings) -> None:
        self.s = s
        self.shapes: dict[tuple[int, ...], int] = {}
        self.values: list[Any] = []
        self.shown: dict[int, tuple[Any, list[int]]] = {}  # id -> (the value, kept; its item)

    def rows(self, evidence: list[dict[str, Any]]) -> list[Any]:
        """The evidence of a batch of findings, made a column at a time: the values of a key
        are gathered for all the findings with the same keys and made inert together (texts put
        in the table at once, in C), and the rows zipped from the columns. (Keys that are not all
        plain strings, which may compare equal to other keys, ``1 == True``, are made one
        finding at a time, by :meth:`one`.)"""
        shapes = [tuple(e) if e else () for e in evidence]
        out: list[Any] = [0] * len(shapes)
        by_shape: dict[tuple[Any, ...], list[int]] = {}
        if shapes and shapes.count(shapes[0]) == len(shapes):  # (one rule, or rules alike)
            by_shape[shapes[0]] = list(range(len(shapes)))
        else:
            for at, shape in enumerate(shapes):
                by_shape.setdefault(shape, []).append(at)
        for shape, where in by_shape.items():
            if not shape:
                continue
            chosen = evidence if len(where) == len(evidence) else [evidence[at] for at in where]
            if not _STR.issuperset(map(type, shape)):
                rows: list[Any] = list(map(self.one, chosen))
            else:
                keys = tuple(self.s.put_all(shape))
                known = self.shapes.setdefault(keys, len(self.shapes))
                columns = [self.column(list(map(itemgetter(key), chosen))) for key in shape]
                rows = list(zip(repeat(known), *columns))
            if len(where) == len(evidence):
                return rows
            for at, row in zip(where, rows, strict=True):
                out[at] = row
        return out

    def column(self, values: list[Any]) -> Iterable[Any]:
        """One key's values (as :meth:`value` makes them). Plain texts without markup, most
        columns, are put in the table together; booleans are two texts."""
        kinds = set(map(type, values))
        if kinds == _STR:
            joined = "".join(values)
            if "<" not in joined and "&" not in joined:  # (no tags nor entities: plain text)
                return self.s.put_all(values)
        elif kinds == _BOOL:
            as_text = {flag: self.s.put("true" if flag else "false") for flag in set(values)}
            return map(as_text.__getitem__, values)
        elif _NESTED.issuperset(kinds):  # (lists and objects, most of them shared: found by id)
            value = self.value
            known = map(self.shown.get, map(id, values))
            return [v[1] if v is not None else value(e) for v, e in zip(known, values, strict=True)]
        return list(map(self.value, values))

    def one(self, evidence: dict[Any, Any]) -> list[Any]:
        """One finding's evidence, its keys whatever they are (shown by ``str()``)."""
        put = self.s.put
        get = self.s.get
        keys = tuple(k if (k := get(key)) is not None else put(str(key)) for key in evidence)
        known = self.shapes.setdefault(keys, len(self.shapes))
        return [known, *map(self.value, evidence.values())]

    def value(self, value: Any) -> Any:
        """Text as a string-table index, markup as ``[EV_RICH, tree]``, another scalar as the
        index of its JSON text (``true``, ``3``, ``null``), a list or object as ``[EV_PRE, at]``
        (its strings made inert), which the script shows as the markup page does (short JSON on
        one line, long JSON indented). A list or object that several findings share, such as a
        guest list, is made inert and written once: ``shown`` keeps its item by its identity,
        beside the value itself so that the identity is not reused."""
        cls = value.__class__
        if cls is str or isinstance(value, str):
            if ("<" in value or "&" in value) and looks_like_html(value):  # (tags, entities)
                return [EV_RICH, rich_tree(value)]
            return self.s.put(value)
        if cls is bool:
            return self.s.put("true" if value else "false")
        if isinstance(value, dict | list | tuple):
            known = self.shown.get(id(value))
            if known is None:
                known = self.shown[id(value)] = (value, [EV_PRE, len(self.values)])
                flat = cls is not dict and _STR.issuperset(map(type, value))  # (ids, actions)
                self.values.append(value if not flat and _as_is(value) else _inert_json(value))
            return known[1]
        return self.s.put(_scalar(value))


_STR = frozenset({str})
_BOOL = frozenset({bool})
_findings_of = attrgetter("findings")
_n_of = attrgetter("n")
_evidence_of = attrgetter("evidence")
_resource_of = attrgetter("resourceId")
_name_of = attrgetter("name")
_message_of = attrgetter("message")
_fingerprint_of = attrgetter("fingerprint")
_source_of = attrgetter("source")
_location_of = attrgetter("location")
_resource_row_of = attrgetter("resource")
_type_of = attrgetter("resourceType")


_JSON_KINDS = frozenset({str, int, float, bool, type(None), list, dict, tuple})
_NESTED = frozenset({list, dict, tuple})
_DEPTH = 64
"""Levels of lists and objects :func:`_as_is` looks into (inputs nest at most 64 levels)."""
_encode_plain = msgspec.json.Encoder().encode


def _as_is(value: dict[Any, Any] | list[Any] | tuple[Any, ...]) -> bool:
    """Whether a list or object is inert as it is, decided in C a level at a time (most
    evidence objects of a large report: lists of ids, guests with their paths): it holds only
    JSON's own values, of exactly those types (no subclass, which :func:`_inert_json` shows by
    ``str()``), with plain strings as keys, and its JSON text is printable ASCII without an
    escape (so no text or key holds a control character). ``gc.get_referents`` gives a level's
    items and values in one call; it leaves out the keys of an object whose keys are all plain
    strings, which the JSON text then checks. Anything else is left to :func:`_inert_json`."""
    level: list[Any] = [value]
    for _ in range(_DEPTH):  # (deeper, or a list holding itself: left to _inert_json)
        objects = [item for item in level if item.__class__ is dict]
        if objects and not _STR.issuperset(map(type, chain.from_iterable(objects))):
            return False
        items = gc.get_referents(*level)
        if not _JSON_KINDS.issuperset(map(type, items)):
            return False
        level = [item for item in items if item.__class__ in _NESTED]
        if not level:
            break
    else:
        return False
    text = _encode_plain(value)  # (printable ASCII without an escape: DEL is not escaped)
    return b"\\" not in text and not text.translate(None, _PRINTABLE_ASCII)


def _inert_json(value: Any) -> Any:
    """A JSON value with every string (keys too) made inert; objects JSON does not know shown
    by ``str()`` (a secret: its mask), as :func:`~auditor.report._sanitize.evidence_json` does.
    (This runs for every evidence object of a large report: a list or object whose items are all
    printable plain strings, most of them, is kept as it is, decided by a few calls in C.)"""
    cls = value.__class__
    if cls is str:
        return value if value.isprintable() else xml_text(value)
    if cls is list or cls is tuple:
        if _STR.issuperset(map(type, value)) and _printable(value):
            return value
    elif cls is dict and _STR.issuperset(map(type, value)) and _printable(value):
        if _STR.issuperset(map(type, value.values())) and _printable(value.values()):
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
