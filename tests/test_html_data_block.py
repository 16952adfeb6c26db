"""The HTML report's data block in format 2 (issue 23: its CPU at 1,000,000 role assignments),
against the per-item code it replaced, with the same answers.

- The string table's texts checked for printability together (ASCII by ``bytes.translate``) and
  put a column at a time: the same indexes as :meth:`_Strings.put` one text at a time, whatever
  the texts (printable or not, ASCII or not, plain or ``str`` subclasses, repeated, empty).
- Lists and objects kept as they are when :func:`_as_is` finds them inert: only when
  :func:`_inert_json` would give the same JSON; never a ``str`` subclass (a secret's mask).
- Evidence made a column at a time (:class:`_Evidence`): each finding's items, read back as the
  script reads them, equal the items made one finding at a time, whatever the keys (``1`` and
  ``True`` are equal keys in Python, shown as ``1`` and ``True``); shared lists written once.
  (``tests/test_report_stream_paths.py`` compares whole blocks with the old format's oracle.)"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from auditor.report import _html_data
from auditor.report._html_data import (
    EV_PRE,
    EV_RICH,
    EV_TEXT,
    _as_is,
    _Evidence,
    _inert_json,
    _printable,
    _Strings,
)
from auditor.report._sanitize import xml_text
from tests.test_report_stream_paths import _items, _text


class _Tag(str):
    """A ``str`` subclass whose text is not its value (as a masked secret is)."""

    def __str__(self) -> str:
        return "**********"


_odd = st.sampled_from(
    ["", "\x1b[31m", "\u202e", "é", "→ x", "\t", "a\nb", "\x7f", "~ ", "<b>x</b>"]
)
_texts = st.lists(_text | _odd | st.sampled_from(["/s/1", "/s/2", "rg-1"]), max_size=40)


@settings(max_examples=300, deadline=None)
@given(texts=st.lists(_text | _odd, max_size=12))
@example(texts=["plain", "é", "\x1f"])
@example(texts=["é\x00"])
def test_printable_is_str_isprintable(texts: list[str]) -> None:
    assert _printable(texts) == all(t.isprintable() for t in texts)


def _one_at_a_time(texts: list[Any], table: _Strings, *, optional: bool = False) -> list[int]:
    """The indexes :meth:`_Strings.put` gives one text at a time (``opt`` when ``optional``)."""
    return [table.opt(t) if optional else table.put(t) for t in texts]


@settings(max_examples=200, deadline=None)
@given(
    first=_texts,
    then=_texts,
    chunk=st.sampled_from([1, 3, 1024]),
    subclass=st.booleans(),
    optional=st.booleans(),
)
def test_put_all_gives_the_indexes_of_put(
    first: list[str], then: list[str], chunk: int, subclass: bool, optional: bool
) -> None:
    """Texts put together, in chunks, after others: each index names the text ``put`` would
    have stored (the same table, each text once), in the order ``put`` would have numbered new
    printable texts."""
    texts: list[Any] = [_Tag(t) if subclass and i % 3 == 0 else t for i, t in enumerate(then)]
    if optional:
        texts = [None if i % 4 == 1 else t for i, t in enumerate(texts)]
    old, new = _Strings(), _Strings()
    _one_at_a_time(first, old)
    new.put_all(first)
    with _patched(_html_data, "_CHUNK", chunk):
        got = new.opt_all(texts) if optional else new.put_all(texts)
    want = _one_at_a_time(texts, old, optional=optional)
    old_table, new_table = list(old.index), list(new.index)
    assert [new_table[i] if i >= 0 else None for i in got] == [
        old_table[i] if i >= 0 else None for i in want
    ]
    assert sorted(new_table) == sorted(old_table) and len(set(new_table)) == len(new_table)
    assert all(xml_text(t) == t for t in new_table)  # every text inert


class _patched:
    def __init__(self, module: Any, name: str, value: Any) -> None:
        self.module, self.name, self.value = module, name, value

    def __enter__(self) -> None:
        self.saved = getattr(self.module, self.name)
        setattr(self.module, self.name, self.value)

    def __exit__(self, *_: object) -> None:
        setattr(self.module, self.name, self.saved)


_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.floats(allow_nan=False), _text, _odd
)
_value = st.recursive(
    _leaf,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(_text | st.integers(0, 3) | st.booleans(), inner, max_size=3)
        | st.tuples(inner, inner)
        | st.builds(_Tag, _text)
    ),
    max_leaves=5,
)


@settings(max_examples=300, deadline=None)
@given(value=st.lists(_value, max_size=4) | st.dictionaries(_text, _value, max_size=4))
@example(value={"a": [_Tag("secret")]})
@example(value=[{"id": "x", "via": ["x", "\u202e"]}])
@example(value={"k": {1: "one", 2.0: "t"}})
@example(value=[{True: "t"}])
def test_a_value_kept_as_it_is_is_already_inert(value: Any) -> None:
    """``_as_is`` says yes only when ``_inert_json`` gives the same JSON; a ``str`` subclass is
    always left to ``_inert_json`` (shown by ``str()``: a secret's mask)."""
    inert = _inert_json(value)
    if _as_is(value):
        assert _html_data._encode(value) == _html_data._encode(inert)
        assert "**********" not in json.dumps(inert)
    if "**********" in json.dumps(inert):
        assert not _as_is(value)


def test_plain_guest_lists_and_id_lists_are_kept_as_they_are() -> None:
    guests = [{"id": "g1", "displayName": "Tara F", "via": ["g1", "grp"]}, {"id": "g2", "via": []}]
    assert _as_is(guests) and _as_is(["/s/1", "/s/2"]) and _as_is({"n": 1, "f": 0.5, "x": None})
    assert not _as_is([{"id": "g1", "via": ["\x1b"]}])  # a control character
    assert not _as_is([{"displayName": "Zoë"}])  # not ASCII: checked one text at a time
    assert not _as_is({1: "one"}) and not _as_is([{"k": {True: 1}}])  # keys not all plain strings
    assert not _as_is([_Tag("x")]) and not _as_is({"k": (1, b"x")})
    looped: list[Any] = []
    looped.append(looped)
    deep: list[Any] = ["x"]
    for _ in range(70):
        deep = [deep]
    assert not _as_is(looped) and not _as_is(deep)  # (no endless walk: left to _inert_json)
    assert _as_is(deep[0][0][0][0][0][0][0][0][0][0])  # (60 levels)


_keys = st.sampled_from(["a", "b", "c", "é\u202e", 1, True, 1.0])
_evidence = st.dictionaries(
    _keys, _value | st.sampled_from(["<b>bold</b> text", "a & b", "x < y"]), max_size=4
)


@settings(max_examples=200, deadline=None)
@given(
    findings=st.lists(
        st.sampled_from(
            [{"a": "x", "b": False}, {"a": "y", "b": True}, {"a": "\x1b", "b": True}, {}]
        )
        | _evidence,
        max_size=12,
    ),
    shared=st.booleans(),
)
@example(findings=[{1: "one"}, {True: "true"}, {"1": "text"}], shared=False)
def test_evidence_by_columns_equals_evidence_one_finding_at_a_time(
    findings: list[dict[Any, Any]], shared: bool
) -> None:
    """The rows of a batch read back as the script reads them equal ``one``'s rows, finding by
    finding (texts, trees and JSON values resolved)."""
    common = [{"id": "g", "via": ["g"]}]
    if shared and findings:  # findings sharing one list
        findings = [{**f, "guests": common} for f in findings]
    by_columns, one_at_a_time = _Evidence(_Strings()), _Evidence(_Strings())
    rows = by_columns.rows(findings)
    assert len(rows) == len(findings)
    for ev, got, evidence in zip(findings, rows, findings, strict=True):
        want = one_at_a_time.one(ev) if ev else 0
        assert _read(got, by_columns) == _read(want, one_at_a_time)
        if ev and not any(k.__class__ is _Tag for k in ev):  # keys shown by str(), in order
            assert [item[0] for item in _read(got, by_columns)] == [
                xml_text(str(k)) for k in evidence
            ]
    if shared and findings:  # the shared list written once
        assert [v for v in by_columns.values if v == common] == [common]


def _read(row: Any, evidence: _Evidence) -> Any:
    """A row as the script reads it (``tests/test_report_stream_paths.py``'s ``_items``)."""
    if not row:
        return row
    table = list(evidence.s.index)
    items = _items(
        json.loads(_html_data._encode(list(row))),
        [list(k) for k in evidence.shapes],
        json.loads(_html_data._encode(evidence.values)),
        table,
    )
    assert all(item[1] in (EV_TEXT, EV_RICH, EV_PRE) for item in items)
    return items
