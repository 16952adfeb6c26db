"""Differential tests of the access rows' faster paths (seventh session): each new path against the
code it replaced, kept here as the oracle: the subscription rows' counts and first ids, the guests
behind each principal, the role facet's numbers, the ids of the passes read when asked for, and a
failing row's resource and evidence."""

from __future__ import annotations

import datetime as dt
import json
from array import array
from collections import defaultdict
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.access import AssignmentRows, views
from auditor.access.directory import Directory
from auditor.access.engine import AccessEngine
from auditor.audit import resources
from auditor.audit.checks._registry import Outcome
from auditor.audit.engine import Engine
from auditor.audit.resources import (
    _access_rows,
    _AssignmentIds,
    _evidence,
    _evidence_reader,
    _Paged,
    _row_resource,
    _row_value,
    _shown_names,
    view_outcomes,
)
from auditor.estate.snapshot import loads_snapshot
from tests.test_access_rows_memory import _view_rules
from tests.test_audit_scale_paths import _MEMBERS, _VALUES
from tests.test_audit_scale_paths4 import _old_subscription_rows
from tests.test_rules_as_data import MG, SA, SB, snapshots

AS_OF = dt.date(2026, 11, 21)
SLOW = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SC = "/subscriptions/cccccccc-0000-0000-0000-000000000003"
_SCOPES = ["/", MG, SA, SB, SC, f"{SA}/resourceGroups/rg", f"{SB}/resourceGroups/Rg/x"]


def _snapshot(doc: dict[str, Any]) -> Any:
    return loads_snapshot(json.dumps(doc).encode(), source="generated.json")


@st.composite
def _user_estates(draw: Any) -> dict[str, Any]:
    """Up to a hundred and twenty role assignments over three subscriptions, some above them, to
    users, groups, service principals and principals the directory does not type: subscriptions
    with more than :data:`views.MAX_LISTED` user assignments and with fewer, met in any order."""
    principals: list[dict[str, Any]] = [
        {"id": f"u{i}", "type": draw(st.sampled_from(["User", "user", "Group"]))}
        for i in range(draw(st.integers(0, 4)))
    ]
    principals += [{"id": "sp", "type": "ServicePrincipal"}, {"id": "untyped"}]
    ids = [p["id"] for p in principals] + ["ghost", "U0"]
    weights = draw(st.lists(st.integers(0, 6), min_size=len(_SCOPES), max_size=len(_SCOPES)))
    scopes = [s for s, w in zip(_SCOPES, weights, strict=True) for _ in range(w)] or ["/"]
    assignments = []
    for i in range(draw(st.integers(0, 120))):
        props: dict[str, Any] = {
            "roleDefinitionId": "/providers/Cloud.Authorization/roleDefinitions/r",
            "principalId": draw(st.sampled_from(ids)),
            "scope": draw(st.sampled_from(scopes)),
        }
        ptype = draw(st.sampled_from(["User", "Group", "user", None]))
        if ptype is not None:
            props["principalType"] = ptype
        name = f"ra{i}"
        assignments.append(
            {
                "id": draw(st.sampled_from([f"/x/{name}", f"/X/{name}"])),
                "name": name,
                "properties": props,
            }
        )
    return {
        "snapshotVersion": 1,
        "hierarchy": [
            {"id": MG, "parent": "/"},
            {"id": SA, "parent": MG},
            {"id": SC, "parent": "/"},
        ],
        "principals": principals,
        "roleAssignments": assignments,
    }


@SLOW
@given(doc=_user_estates(), listed=st.sampled_from([20, 3, 1]))
def test_subscription_rows_equal_the_walk_they_replaced(doc: dict[str, Any], listed: int) -> None:
    engine = AccessEngine.from_snapshot(_snapshot(doc))
    kept = views.MAX_LISTED
    views.MAX_LISTED = listed  # few assignments then fill a subscription's list
    try:
        got = views.subscription_rows(engine, AssignmentRows(engine, True))
        expected = _old_subscription_rows(engine, AssignmentRows(engine, True))
    finally:
        views.MAX_LISTED = kept
    assert got == expected


def test_a_subscription_with_few_users_late_is_listed_whole() -> None:
    """A subscription with fewer user assignments than are listed, the last of them after every
    other subscription has its list: its ids all, in order (the walk stops early; they are found
    by the pass over the few)."""
    a = [(SA, f"a{i}") for i in range(views.MAX_LISTED + 5)]
    doc = {
        "snapshotVersion": 1,
        "principals": [{"id": "u", "type": "User"}],
        "roleAssignments": [
            {
                "id": rid,
                "properties": {"roleDefinitionId": "r", "principalId": "u", "scope": scope},
            }
            for scope, rid in [(SB, "b0"), *a, (SB, "b1")]
        ],
    }
    engine = AccessEngine.from_snapshot(_snapshot(doc))
    rows = {r["id"]: r for r in views.subscription_rows(engine)}
    assert rows[SB]["directUserAssignmentIds"] == ["b0", "b1"]
    assert rows[SA]["directUserAssignmentIds"] == [rid for _, rid in a[: views.MAX_LISTED]]
    assert rows[SA]["directUserAssignments"] == len(a)


def _old_guests_of(directory: Directory) -> dict[str, list[tuple[str, tuple[str, ...]]]]:
    """:meth:`AssignmentRows._guests_of` as it was (the oracle): a search per guest and group."""
    found: dict[str, list[tuple[str, tuple[str, ...]]]] = defaultdict(list)
    guests = [k for k, r in directory.entries() if (r.userType or "").lower() == "guest"]
    for key in sorted(guests):
        for identity in sorted(directory.identities(key)):
            path = tuple(directory.display(k) for k in directory.group_path(key, identity))
            found[identity].append((key, path))
    return dict(found)


@st.composite
def _directories(draw: Any) -> list[dict[str, Any]]:
    """Guests and members in groups nested any way (cycles, a group of itself, diamonds, groups
    no entry lists), ids in any case."""
    groups = [f"G{i}" for i in range(draw(st.integers(0, 6)))]
    names = [*groups, "Gx"]
    out: list[dict[str, Any]] = []
    for group in groups:
        out.append(
            {
                "id": group,
                "type": "Group",
                "memberOf": draw(st.lists(st.sampled_from(names), max_size=3)),
            }
        )
    for i in range(draw(st.integers(0, 6))):
        out.append(
            {
                "id": draw(st.sampled_from([f"u{i}", f"U{i}"])),
                "type": "User",
                "displayName": draw(st.sampled_from([None, f"User {i}"])),
                "userType": draw(st.sampled_from(["Guest", "guest", "Member", None])),
                "memberOf": draw(st.lists(st.sampled_from(names), max_size=3)) if names else [],
            }
        )
    return out


@settings(max_examples=300, deadline=None)
@given(principals=_directories())
def test_guests_of_equal_a_search_per_group(principals: list[dict[str, Any]]) -> None:
    doc = {"snapshotVersion": 1, "principals": principals, "roleAssignments": []}
    engine = AccessEngine.from_snapshot(_snapshot(doc))
    got = AssignmentRows(engine, True)._guests_of()
    expected = _old_guests_of(AccessEngine.from_snapshot(_snapshot(doc)).indexes.directory)
    assert got == expected
    assert list(got) == list(expected)  # the same order, too


@SLOW
@given(doc=snapshots())
def test_role_numbers_name_each_assignments_role(doc: dict[str, Any]) -> None:
    engine = AccessEngine.from_snapshot(_snapshot(doc))
    rows = AssignmentRows(engine, True)
    codes, keys = rows.facet_codes("role")
    roles = [entry.role for entry in engine.indexes.assignments]
    assert [keys[c] for c in codes] == roles
    assert keys == list(dict.fromkeys(roles))  # each once, numbered as first met
    assert rows.column("role") == roles


@settings(max_examples=200, deadline=None)
@given(
    ids=st.lists(st.sampled_from(["a", "b", None, ""]), max_size=12),
    reads=st.lists(
        st.one_of(
            st.integers(-14, 13),
            st.tuples(st.integers(-14, 14), st.integers(-14, 14), st.sampled_from([1, 2, -1])),
        ),
        max_size=8,
    ),
    limit=st.integers(0, 6),
)
def test_ids_read_when_asked_equal_the_list(
    ids: list[str | None],
    reads: list[Any],
    limit: int,
) -> None:
    """:class:`_AssignmentIds` reads like the list of the ids, one by one or listed at once."""

    class Record:
        def __init__(self, rid: str | None) -> None:
            self.id = rid

    class Entry:
        def __init__(self, rid: str | None) -> None:
            self.record = Record(rid)

    kept = resources._IDS_READ_ONE_BY_ONE
    resources._IDS_READ_ONE_BY_ONE = limit
    try:
        lazy = _AssignmentIds([Entry(i) for i in ids])
        assert len(lazy) == len(ids)
        for read in reads:
            key: Any = read if isinstance(read, int) else slice(*read)
            try:
                expected = ids[key]
            except IndexError:
                with pytest.raises(IndexError):
                    lazy[key]
                continue
            assert lazy[key] == expected
        assert list(lazy) == ids
    finally:
        resources._IDS_READ_ONE_BY_ONE = kept


def _old_failing(rule: Any, rows: Any, index: int, source: str | None) -> tuple[Any, ...]:
    shown = _shown_names(rule)
    row = rows.row(index) if shown is None else rows.shown_row(index, shown)
    res = _row_resource(row, f"roleAssignments[{index}]", source)
    return res, _evidence(rule, row), row


@SLOW
@given(doc=snapshots())
def test_failing_rows_resources_and_evidence_equal_the_calls_they_replaced(
    doc: dict[str, Any],
) -> None:
    engine = Engine(settings={}, as_of=AS_OF, snapshot=_snapshot(doc))
    context = engine.context
    oracle = Engine(settings={}, as_of=AS_OF, snapshot=_snapshot(doc))
    old_rows = _access_rows(oracle.context).assignments
    for rule in _view_rules(engine):
        for outcome in view_outcomes(rule, context):
            if not isinstance(outcome, Outcome) or outcome.passed or outcome.resource is None:
                continue
            resource = outcome.resource
            if resource.resource_type != views.ROLE_ASSIGNMENTS or resource.location is None:
                continue
            index = int(resource.location.rsplit("[", 1)[1][:-1])
            res, evidence, row = _old_failing(rule, old_rows, index, context.source)
            assert resource == res
            assert outcome.evidence == evidence
            assert outcome.fields == row


@settings(max_examples=300, deadline=None)
@given(
    row=st.dictionaries(_MEMBERS, _VALUES, max_size=4),
    paths=st.lists(st.lists(_MEMBERS, min_size=1, max_size=3).map("/".join), max_size=4),
)
def test_evidence_reader_equals_each_paths_value(row: dict[str, Any], paths: list[str]) -> None:
    assert _evidence_reader(paths)(row) == {path: _row_value(row, path) for path in paths}


@settings(max_examples=200, deadline=None)
@given(
    size=st.integers(1, resources._PAGED_COMBINATIONS),
    data=st.data(),
)
def test_paged_numbers_and_verdicts_equal_a_set_and_a_table(size: int, data: Any) -> None:
    numbers = data.draw(st.lists(st.integers(0, size - 1), min_size=1, max_size=300))
    combos = array("H", numbers)
    paged = _Paged(combos, size)
    assert paged.present() == sorted(set(numbers))
    verdicts = {number: data.draw(st.integers(0, 2)) for number in set(numbers)}
    assert paged.verdict(verdicts) == bytes(verdicts[number] for number in numbers)
