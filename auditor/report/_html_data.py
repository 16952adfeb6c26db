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
import gzip
import json
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

    def __call__(self, text: str) -> int:
        found = self.index.get(text)
        if found is None:
            found = self.index[text] = len(self.index)
        return found

    def opt(self, text: str | None) -> int:
        """The index of ``text``, or -1 for none (or empty)."""
        return self(xml_text(text)) if text else -1


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
    s = _Strings()
    col: dict[str, list[Any]] = {k: [] for k in COLUMNS}
    sev_of = {name: i for i, name in enumerate(SEVERITIES)}
    status_of = {name: i for i, name in enumerate(statuses)}
    waiver_rows: list[list[Any]] = []
    waiver_at: dict[tuple[str, str, str, bool], int] = {}
    position: dict[int, int] = {}
    for group in groups:
        rule: RuleInfo = group.rule
        rule_at = s(xml_text(rule.id))
        rule_refs = tuple(rule.references)
        for view in group.findings:
            f: Finding = view.f
            position[view.n] = len(col["n"])
            col["n"].append(view.n)
            col["r"].append(rule_at)
            col["sv"].append(sev_of.get(f.severity, len(SEVERITIES) - 1))
            col["st"].append(status_of.get(f.status, 0))
            col["res"].append(s(xml_text(f.resourceId)))
            col["nm"].append(s.opt(view.name))
            col["m"].append(s(xml_text(f.message)))
            col["ev"].append(_evidence(f.evidence, s) if f.evidence else 0)
            col["fp"].append(xml_text(f.fingerprint))
            col["src"].append(s.opt(f.source))
            line = f.line
            col["ln"].append(-1 if line is None else line)
            col["at"].append(s.opt(f.address))
            col["loc"].append(s.opt(f.location))
            w = f.waiver
            if w is None:
                col["wv"].append(-1)
            else:
                key = (w.id, w.expires, w.justification, w.expired)
                at = waiver_at.get(key)
                if at is None:
                    at = waiver_at[key] = len(waiver_rows)
                    waiver_rows.append(
                        [xml_text(w.id), xml_text(w.expires), xml_text(w.justification),
                         int(w.expired)]
                    )  # fmt: skip
                col["wv"].append(at)
            rem = f.remediation
            col["rem"].append(s.opt(rem) if rem and rem != rule.remediation else -1)
            refs = tuple(f.references)
            col["refs"].append([s(xml_text(r)) for r in refs] if refs and refs != rule_refs else 0)
    res_rows = [
        [
            s(xml_text(r.resource)),
            s(xml_text(r.resourceType)),
            s.opt(r.name),
            [position[v.n] for v in r.findings if v.n in position],
        ]
        for r in resources
    ]
    priv = [
        [
            s(xml_text(sub)),
            s(xml_text(p.displayName)),
            s(xml_text(p.principalId)),
            s(xml_text(p.principalType)),
            s(xml_text(p.role)),
            [s(xml_text(v)) for v in p.via],
        ]
        for sub, rows in (privileged or {}).items()
        for p in rows
    ]
    doc = {
        "v": 1,
        "priv": priv,
        "sevs": list(SEVERITIES),
        "sts": list(statuses),
        "s": list(s.index),
        "w": waiver_rows,
        "f": col,
        "res": res_rows,
    }
    raw = json.dumps(doc, ensure_ascii=False, separators=(",", ":"), check_circular=False)
    packed = gzip.compress(raw.encode("utf-8"), compresslevel=6, mtime=0)
    return base64.b64encode(packed).decode("ascii"), len(col["n"])


def _evidence(evidence: dict[str, Any], s: _Strings) -> list[list[Any]]:
    """Evidence as ``[key, kind, value]`` items (see :data:`EV_TEXT`): text as a string-table
    index, markup as a tree, anything else as the JSON value itself (its strings made inert),
    which the script shows as the markup page does (short JSON on one line, long JSON
    indented)."""
    out: list[list[Any]] = []
    for key, value in evidence.items():
        k = s(xml_text(str(key)))
        if isinstance(value, str):
            if looks_like_html(value):
                out.append([k, EV_RICH, rich_tree(value)])
            else:
                out.append([k, EV_TEXT, s(xml_text(value))])
        elif isinstance(value, dict | list | tuple):
            out.append([k, EV_PRE, _inert_json(value)])
        else:
            out.append([k, EV_TEXT, s(xml_text(_scalar(value)))])
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
