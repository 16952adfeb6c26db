"""Differential tests of the access rows' faster paths at scale (fifth part): each new path
against the code it replaced, kept here as the oracle."""

from __future__ import annotations

import datetime as dt
import json
import math
import operator
from array import array
from collections.abc import Callable
from itertools import compress, repeat
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.access import AssignmentRows, views
from auditor.access.scopes import ScopeTree
from auditor.audit.engine import Engine
from auditor.audit.resources import (
    _BYTE_COMBINATIONS,
    _FAIL_MASK,
    _PASS_MASK,
    _SHORT_COMBINATIONS,
    _access_rows,
    _byte_combinations,
    _failing,
    _judged,
    _read_paths,
    _short_combinations,
    _typed,
)
from auditor.estate.snapshot import loads_snapshot
from tests.test_access_rows_memory import _view_rules
from tests.test_audit_scale_paths import PRINCIPAL_PATHS
from tests.test_rules_as_data import snapshots

AS_OF = dt.date(2026, 11, 21)
SLOW = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _rows(doc: dict[str, Any]) -> tuple[Engine, AssignmentRows]:
    snapshot = loads_snapshot(json.dumps(doc).encode(), source="generated.json")
    engine = Engine(settings={}, as_of=AS_OF, snapshot=snapshot)
    return engine, _access_rows(engine.context).assignments


def _old_judged(
    rule: Any, rows: Any, predicate: Callable[[Any], bool], applies: Callable[[Any], bool]
) -> tuple[list[int] | bytes, list[int]]:
    """:func:`resources._judged` as it was before: each key's values through the dictionaries of
    :meth:`AssignmentRows.key_values`, every value tagged with its type, each number's first key
    by a reversed dictionary, the distinct combinations by a set, the failures by a mask (the
    oracle)."""
    n = len(rows)
    passed: list[int] = []
    failed: list[int] = []
    facet_of = rows.facet_of
    constant = all(facet_of(p) is None for p in rule.applies_reads)
    applies_to = {p.split("/", 1)[0] for p in rule.applies_reads}
    if not n or (constant and not applies(rows.fields_row(applies_to, 0))):
        return passed, failed
    paths = _read_paths(rule)
    names = {p.split("/", 1)[0] for p in paths}
    by_facet: dict[str, list[str]] = {}
    for path in paths:
        facet = facet_of(path)
        if facet == "assignment":
            for index in range(n):
                row = rows.row(index)
                if applies(row):
                    (passed if predicate(row) else failed).append(index)
            return passed, failed
        if facet is not None:
            by_facet.setdefault(facet, []).append(path)
    if not by_facet:
        doc = rows.fields_row(names, 0)
        if applies(doc):
            return (list(range(n)), failed) if predicate(doc) else (passed, list(range(n)))
        return passed, failed
    facets = list(by_facet)
    codes_of: list[Any] = []
    luts: list[list[int]] = []
    keys_of: list[list[Any]] = []
    for facet in facets:
        codes, keys = rows.facet_codes(facet)
        typed: list[list[tuple[type, Any]]] = []
        for path in by_facet[facet]:
            found = list(map(rows.key_values(path).__getitem__, keys))
            typed.append(list(zip(map(type, found), found, strict=True)))
        per_key: list[Any] = typed[0] if len(typed) == 1 else list(zip(*typed, strict=True))
        numbers = {combo: n for n, combo in enumerate(dict.fromkeys(per_key))}
        lut = list(map(numbers.__getitem__, per_key))
        first = dict(zip(reversed(lut), reversed(keys), strict=True))
        codes_of.append(codes)
        luts.append(lut)
        keys_of.append([first[number] for number in range(len(numbers))])
    sizes = [len(example) for example in keys_of]
    combos: Any
    if math.prod(sizes) <= _BYTE_COMBINATIONS:
        combos = _byte_combinations(codes_of, luts, sizes, n)
    elif math.prod(sizes) <= _SHORT_COMBINATIONS:
        combos = _short_combinations(codes_of, luts, sizes, n)
    else:
        column: Any = None
        for codes, lut, size in zip(codes_of, luts, sizes, strict=True):
            digits = map(lut.__getitem__, codes)
            if column is None:
                column = digits
            else:
                column = map(operator.add, map(operator.mul, column, repeat(size)), digits)
        combos = list(column)
    verdicts: dict[int, int] = {}
    read_of = [[name for name in names if rows.facet_of(name) == facet] for facet in facets]
    last = len(facets) - 1
    for number in set(combos):
        merged: dict[str, Any] = {}
        rest = number
        for position in range(last, -1, -1):
            rest, digit = divmod(rest, sizes[position])
            chosen = {facets[position]: keys_of[position][digit]}
            merged.update(rows.fields_of(read_of[position], chosen))
        verdicts[number] = (1 if predicate(merged) else 2) if applies(merged) else 0
    verdict = bytes(map(verdicts.__getitem__, combos))
    failed = list(compress(range(n), verdict.translate(_FAIL_MASK)))
    return verdict.translate(_PASS_MASK), failed


@SLOW
@given(doc=snapshots(), release=st.booleans())
def test_judged_equals_the_code_it_replaced(doc: dict[str, Any], release: bool) -> None:
    """Every access rule's passes and failures are those the old numbering gave, whether the
    rows' keys and values were made for an earlier rule or made again after a release."""
    engine, rows = _rows(doc)
    for rule in _view_rules(engine):
        applies = rule.applies_to or (lambda _doc: True)
        got = _judged(rule, rows, rule.predicate, applies)
        if release:
            rows.keep(())  # numbers made without columns are dropped too
            assert not (rows._codes or rows._keysets or rows._value_lists or rows._columns)
        assert got == _old_judged(rule, rows, rule.predicate, applies), rule.id


_VALUES = st.one_of(
    st.booleans(),
    st.integers(-2, 2),
    st.sampled_from([0.0, 1.0, -0.0, 2.5]),
    st.sampled_from(["", "a", "1", "True"]),
    st.none(),
    st.sampled_from([("array", ()), ("object", ()), ("guests", (("g", ("g",)),))]),
)


def _partition(values: list[Any]) -> list[int]:
    """Each value's number, values numbered by first appearance (what :func:`_judged` does)."""
    numbers: dict[Any, int] = {}
    return [numbers.setdefault(v, len(numbers)) for v in values]


@settings(max_examples=300, deadline=None)
@given(columns=st.lists(st.lists(_VALUES, min_size=1, max_size=8), min_size=1, max_size=3))
def test_values_left_untyped_group_keys_as_the_typed_ones(columns: list[list[Any]]) -> None:
    """Values kept as they are where no two types present can be equal (else typed) number the
    keys exactly as values each tagged with its type: 1, 1.0 and true, 0 and false apart."""
    size = min(map(len, columns))
    columns = [c[:size] for c in columns]
    old = [list(zip(map(type, c), c, strict=True)) for c in columns]
    new = [_typed(c) for c in columns]
    assert _partition(list(zip(*old, strict=True))) == _partition(list(zip(*new, strict=True)))


def test_mixed_numbers_are_typed_and_plain_ones_are_not() -> None:
    assert _typed([True, None, "x", ("array", ())]) == [True, None, "x", ("array", ())]
    assert _typed([1, 2, None]) == [1, 2, None]
    assert _typed([1, True]) == [(int, 1), (bool, True)]
    assert _typed([1.0, 1]) == [(float, 1.0), (int, 1)]


@settings(max_examples=200, deadline=None)
@given(
    verdict=st.lists(st.sampled_from([0, 1, 2]), max_size=300).map(bytes),
    sparse=st.integers(0, 3),
)
def test_failures_found_one_by_one_equal_the_masks(verdict: bytes, sparse: int) -> None:
    """The failures found by a search each (few) or by a mask (many) are the mask's, in order."""
    verdict = verdict + bytes(sparse * 100)  # mostly passes and non-applying: the search
    assert _failing(verdict) == list(compress(range(len(verdict)), verdict.translate(_FAIL_MASK)))


def _old_scope_levels(rows: AssignmentRows) -> list[str]:
    """The scope level column as it was made before, each distinct scope's kind found once (the
    oracle)."""
    scopes = [entry.scope for entry in rows.engine.indexes.assignments]
    kinds = {scope: ScopeTree.kind(scope) for scope in dict.fromkeys(scopes)}
    return list(map(kinds.__getitem__, scopes))


_OTHER_SCOPE = "/providers/Cloud.Management/managementGroups/x"


@SLOW
@given(doc=snapshots(), listed=st.sampled_from(["index", "other", "more"]))
def test_scope_levels_numbered_straight_name_each_assignments_level(
    doc: dict[str, Any], listed: str
) -> None:
    """The scope level numbers read through their keys give each assignment the level the
    column gave, the keys are the distinct levels, and the column made from them is the old;
    also when the index lists other scopes than the assignments' (each scope then found) or
    more (a level no assignment has is no key)."""
    _engine, rows = _rows(doc)
    ix = rows.engine.indexes
    if listed == "other":
        ix.at_scope = {_OTHER_SCOPE: {}}
    elif listed == "more":
        ix.at_scope = {**ix.at_scope, _OTHER_SCOPE: {}}
    expected = _old_scope_levels(rows)
    codes, keys = rows.facet_codes("scopeLevel")
    assert [keys[code] for code in codes] == expected
    assert sorted(keys) == sorted(set(expected)) and keys is rows._distinct("scopeLevel")
    assert rows.column("scopeLevel") == expected


def test_a_level_only_the_index_lists_is_no_key() -> None:
    _engine, rows = _rows({"snapshotVersion": 1})
    rows.engine.indexes.at_scope = {_OTHER_SCOPE: {}}
    assert rows.facet_codes("scopeLevel") == (array("B"), [])


def _old_row(rows: AssignmentRows, index: int) -> dict[str, Any]:
    """:meth:`AssignmentRows.row` as it was before: each facet's key read from its column."""
    column = rows.column
    return {
        "type": views.ROLE_ASSIGNMENTS,
        **rows._assignment(index),
        **rows._facet("principal", column("principal")[index], index),
        **rows._facet("role", column("role")[index], index),
        **rows._facet("scopeLevel", column("scopeLevel")[index], index),
        **rows._facet("condition", column("condition")[index], index),
    }


@SLOW
@given(doc=snapshots(), data=st.data())
def test_rows_read_by_numbers_equal_rows_read_by_columns(
    doc: dict[str, Any], data: st.DataObject
) -> None:
    """A whole row and a shown row read through each facet's numbers hold what the rows read
    from the columns held, in the same order of fields."""
    _engine, rows = _rows(doc)
    if not len(rows):
        return
    names = frozenset(data.draw(st.lists(st.sampled_from([*views.ASSIGNMENT_FACETS, "nosuch"]))))
    for index in range(len(rows)):
        fresh = AssignmentRows(rows.engine, rows.directory_listed)
        shown = fresh.shown_row(index, names)
        whole = rows.row(index)
        assert list(whole.items()) == list(_old_row(rows, index).items())
        assert {k: whole[k] for k in shown} == shown


@SLOW
@given(doc=snapshots())
def test_key_value_lists_equal_the_values_by_key(doc: dict[str, Any]) -> None:
    """The values listed in the order of the facet's keys are the values :meth:`key_values`
    gives by key, and those of the whole facets (the principal paths the rules read straight from
    the directory, the guests as their pairs: equal exactly when the guest objects are)."""
    _engine, rows = _rows(doc)
    paths = [*PRINCIPAL_PATHS, "roleName", "privilegedRole", "scopeLevel", "conditionProblems"]
    for path in paths:
        facet = rows.facet_of(path)
        assert facet is not None
        keys, values = rows.key_value_list(path)
        assert keys is rows.facet_codes(facet)[1], path
        assert dict(zip(keys, values, strict=True)) == rows.key_values(path), path
        parts = path.casefold().split("/")
        whole = [views._value_at(rows._facet(facet, key, -1), parts) for key in keys]
        if path == "guests":  # equal pairs exactly for equal guest objects
            assert _partition(values) == _partition([views._frozen(v) for v in whole])
            continue
        expected = [v if isinstance(v, views._SCALARS) else views._frozen(v) for v in whole]
        assert values == expected, path
        assert list(map(type, values)) == list(map(type, expected)), path
