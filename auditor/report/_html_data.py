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
import json
import zlib
from html.parser import HTMLParser
from typing import TYPE_CHECKING, Any

from auditor.audit.findings import SEVERITIES
from auditor.report._sanitize import (
    SAFE_TAGS,
    clean_html,
    looks_like_html,
    scalar_text,
    xml_text,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from auditor.audit.findings import Finding, Privileged, RuleInfo

FORMAT = "json+gzip+base64"
"""The block's ``data-format``: what the script expects."""

EV_TEXT, EV_RICH, EV_PRE = 0, 1, 2
"""Kinds of an evidence value: plain text, cleaned markup (a tree), a JSON block."""


class _Strings:
    """The string table: each distinct (inert) text once, referred to by its index."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def put(self, text: Any) -> int:
        """The index of ``text`` made inert (:func:`~auditor.report._sanitize.xml_text`, whose
        common case, printable text, is decided here without a call)."""
        index = self.index
        if text.__class__ is not str or not text.isprintable():
            text = xml_text(text)
        return index.setdefault(text, len(index))

    def opt(self, text: Any) -> int:
        """The index of ``text``, or -1 for none (or empty)."""
        return self.put(text) if text else -1


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
    privileged principals per subscription (a large estate has tens of thousands).

    The JSON is never held whole: the findings' columns are encoded :data:`BATCH` rows at a time
    (a large report's evidence as objects took more memory than its text), and the document's
    parts are compressed one by one; the bytes are those of the whole document compressed at
    once."""
    packed, count = packed_block(groups, resources, statuses, privileged)
    return packed.decode("ascii"), count


def packed_block(
    groups: list[Any],
    resources: list[Any],
    statuses: tuple[str, ...],
    privileged: Mapping[str, Sequence[Privileged]] | None = None,
) -> tuple[bytes, int]:
    """:func:`data_block` with its text as ASCII bytes, as the page is written."""
    parts, count = _document(groups, resources, statuses, privileged)
    return _pack(parts), count


def _pack(parts: list[str]) -> bytes:
    """The document's parts compressed and base64-encoded. ``gzip.compress(raw, 6, mtime=0)`` is
    zlib's gzip wrapper (wbits 31) over the whole text: this is the same stream, fed a part at a
    time."""
    packer = zlib.compressobj(6, zlib.DEFLATED, 31)
    packed = [packer.compress(part.encode("utf-8")) for part in parts]
    packed.append(packer.flush())
    return base64.b64encode(b"".join(packed))


BATCH = 4_096
"""Listed findings whose columns are encoded together."""


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), check_circular=False)


def _document(
    groups: list[Any],
    resources: list[Any],
    statuses: tuple[str, ...],
    privileged: Mapping[str, Sequence[Privileged]] | None,
) -> tuple[list[str], int]:
    """The data document's JSON text as parts (joined, ``json.dumps`` of the whole document)
    and how many findings it lists."""
    s = _Strings()
    put = s.put
    opt = s.opt
    encoded: dict[str, list[str]] = {k: [] for k in COLUMNS}
    col: dict[str, list[Any]] = {k: [] for k in COLUMNS}
    c_n, c_r, c_sv, c_st, c_res, c_nm, c_m, c_ev, c_fp, c_src, c_ln, c_at, c_loc, c_wv, c_rem, c_refs = (
        col[k] for k in COLUMNS
    )  # fmt: skip
    sev_of = {name: i for i, name in enumerate(SEVERITIES)}
    last_sev = len(SEVERITIES) - 1
    status_of = {name: i for i, name in enumerate(statuses)}
    waiver_rows: list[list[Any]] = []
    waiver_at: dict[tuple[str, str, str, bool], int] = {}
    position: dict[int, int] = {}
    count = 0

    def flush() -> None:
        for key, values in col.items():
            if values:
                encoded[key].append(_json(values)[1:-1])
                values.clear()

    for group in groups:
        rule: RuleInfo = group.rule
        rule_at = put(rule.id)
        rule_refs = tuple(rule.references)
        rule_rem = rule.remediation
        for view in group.findings:
            f: Finding = view.f
            position[view.n] = count
            count += 1
            c_n.append(view.n)
            c_r.append(rule_at)
            c_sv.append(sev_of.get(f.severity, last_sev))
            c_st.append(status_of.get(f.status, 0))
            c_res.append(put(f.resourceId))
            c_nm.append(opt(view.name))
            c_m.append(put(f.message))
            evidence = f.evidence
            c_ev.append(_evidence(evidence, s) if evidence else 0)
            c_fp.append(xml_text(f.fingerprint))
            c_src.append(opt(f.source))
            line = f.line
            c_ln.append(-1 if line is None else line)
            c_at.append(opt(f.address))
            c_loc.append(opt(f.location))
            w = f.waiver
            if w is None:
                c_wv.append(-1)
            else:
                known = (w.id, w.expires, w.justification, w.expired)
                at = waiver_at.get(known)
                if at is None:
                    at = waiver_at[known] = len(waiver_rows)
                    waiver_rows.append(
                        [xml_text(w.id), xml_text(w.expires), xml_text(w.justification),
                         int(w.expired)]
                    )  # fmt: skip
                c_wv.append(at)
            rem = f.remediation
            c_rem.append(opt(rem) if rem and rem != rule_rem else -1)
            refs = tuple(f.references)
            c_refs.append([put(r) for r in refs] if refs and refs != rule_refs else 0)
            if len(c_n) >= BATCH:
                flush()
    flush()
    res_rows = [
        [
            put(r.resource),
            put(r.resourceType),
            opt(r.name),
            [position[v.n] for v in r.findings if v.n in position],
        ]
        for r in resources
    ]
    priv = [
        [
            put(sub),
            put(p.displayName),
            put(p.principalId),
            put(p.principalType),
            put(p.role),
            [put(v) for v in p.via],
        ]
        for sub, rows in (privileged or {}).items()
        for p in rows
    ]
    # the document {"v", "priv", "sevs", "sts", "s", "w", "f", "res"} as json.dumps writes it
    parts = [
        '{"v":1,"priv":',
        _json(priv),
        ',"sevs":',
        _json(list(SEVERITIES)),
        ',"sts":',
        _json(list(statuses)),
        ',"s":',
        _json(list(s.index)),
        ',"w":',
        _json(waiver_rows),
        ',"f":{',
    ]
    for i, key in enumerate(COLUMNS):
        parts.append(("," if i else "") + _json(key) + ":[")
        pieces = encoded[key]
        for j, piece in enumerate(pieces):
            if j:
                parts.append(",")
            parts.append(piece)
        parts.append("]")
    parts += ['},"res":', _json(res_rows), "}"]
    return parts, count


def _evidence(evidence: dict[str, Any], s: _Strings) -> list[list[Any]]:
    """Evidence as ``[key, kind, value]`` items (see :data:`EV_TEXT`): text as a string-table
    index, markup as a tree, anything else as the JSON value itself (its strings made inert),
    which the script shows as the markup page does (short JSON on one line, long JSON
    indented)."""
    put = s.put
    out: list[list[Any]] = []
    for key, value in evidence.items():
        k = put(str(key))
        if isinstance(value, str):
            if looks_like_html(value):
                out.append([k, EV_RICH, rich_tree(value)])
            else:
                out.append([k, EV_TEXT, put(value)])
        elif isinstance(value, dict | list | tuple):
            out.append([k, EV_PRE, _inert_json(value)])
        else:
            out.append([k, EV_TEXT, put(_scalar(value))])
    return out


def _inert_json(value: Any) -> Any:
    """A JSON value with every string (keys too) made inert; objects JSON does not know shown
    by ``str()`` (a secret: its mask), as :func:`~auditor.report._sanitize.evidence_json` does.
    (Printable strings, nearly all of them, are checked inline: this runs for every evidence
    object of a large report.)"""
    if value.__class__ is str:
        return value if value.isprintable() else xml_text(value)
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
