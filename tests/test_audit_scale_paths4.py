"""Differential tests of the access rows' faster paths at scale (fourth part): each new path
against the code it replaced, kept here as the oracle."""

from __future__ import annotations

import json
import operator
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from itertools import compress, repeat
from typing import Any

from hypothesis import HealthCheck, given, settings

from auditor.access import AccessEngine, AssignmentRows, subscription_rows, views
from auditor.access.scopes import ScopeTree
from auditor.estate.snapshot import loads_snapshot
from tests.test_rules_as_data import snapshots

_NO_CONDITION_KEY = views._NO_CONDITION_KEY


def _engine(doc: dict[str, Any]) -> tuple[AccessEngine, bool]:
    snapshot = loads_snapshot(json.dumps(doc).encode(), source="generated.json")
    return AccessEngine.from_snapshot(snapshot), bool(snapshot.principals)


def _old_condition_column(entries: list[Any]) -> list[Any]:
    """The condition column as it was made before, in two passes over the records (the oracle)."""
    shared: dict[tuple[Any, Any], tuple[Any, Any]] = {}
    share = shared.setdefault
    conditions = [entry.record.properties.condition for entry in entries]
    versions = [entry.record.properties.conditionVersion for entry in entries]
    out: list[Any] = [_NO_CONDITION_KEY] * len(entries)
    has = map(operator.is_not, conditions, repeat(None))
    if versions.count(None) != len(versions):
        has = map(operator.or_, has, map(operator.is_not, versions, repeat(None)))
    for index in compress(range(len(entries)), has):
        c, v = conditions[index], versions[index]
        out[index] = share((c, v), (c, v))
    return out


def _old_first_ids(
    subs: list[str | None], users: Iterable[Any], counts: Counter[str | None]
) -> dict[str, list[str]]:
    """The first ids of each subscription as listed before, by one walk (the oracle)."""
    listed: dict[str, list[str]] = defaultdict(list)
    left = sum(min(n, views.MAX_LISTED) for n in counts.values())
    for sub, entry in zip(subs, users, strict=True):
        if left == 0:
            break
        if sub is None:
            continue
        ids = listed[sub]
        if len(ids) < views.MAX_LISTED:
            ids.append(entry.record.id or "")
            left -= 1
    return dict(listed)


def _old_subscription_rows(engine: AccessEngine, rows: AssignmentRows) -> list[dict[str, Any]]:
    """:func:`subscription_rows` as it was before (the oracle)."""
    ix = engine.indexes
    entries = ix.assignments
    types = {k: str(r.type).lower() for k, r in ix.directory.entries() if r.type}
    codes, keys = rows.facet_codes("principal")
    user_key = [
        (key[1] or "User").lower() == "user" if type(key) is tuple else types.get(key) == "user"
        for key in keys
    ]
    to_user = list(map(user_key.__getitem__, codes))
    scopes = [entry.scope for entry in compress(entries, to_user)]
    subscription_of: Callable[[str], str | None] = ScopeTree.subscription_of
    sub_of: dict[str, str | None] = {}
    for scope in set(scopes):
        found = subscription_of(scope)
        sub_of[scope] = None if found is None else ix.scopes.display(found)
    subs = list(map(sub_of.__getitem__, scopes))
    counts = Counter(subs)
    counts.pop(None, None)
    listed = _old_first_ids(subs, compress(entries, to_user), counts)
    return [
        {
            "type": views.SUBSCRIPTIONS,
            "id": owners.subscription,
            "name": owners.subscription,
            "ownerCount": owners.count,
            "owners": [o.principalId for o in owners.owners][: views.MAX_LISTED],
            "directUserAssignments": counts.get(owners.subscription, 0),
            "directUserAssignmentIds": listed.get(owners.subscription, []),
        }
        for owners in engine.subscription_owners()
    ]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=snapshots())
def test_condition_column_made_in_one_pass_equals_the_two_passes(doc: dict[str, Any]) -> None:
    """The condition column found in one pass over the records gives each assignment the key
    the two passes gave, equal pairs shared as one object, the rest the no-condition key."""
    engine, listed = _engine(doc)
    column = AssignmentRows(engine, listed).column("condition")
    expected = _old_condition_column(engine.indexes.assignments)
    assert column == expected
    assert [key is _NO_CONDITION_KEY for key in column] == [
        key is _NO_CONDITION_KEY for key in expected
    ]
    assert len({id(key) for key in column}) == len(set(column))  # equal pairs are one object


def test_a_version_alone_or_a_blank_condition_has_its_own_key() -> None:
    """An assignment with a version but no condition, or a blank condition, is keyed by its pair
    (what RBAC-011 judges), not as one without a condition."""
    base = "/subscriptions/s1/providers/Cloud.Authorization/roleAssignments"
    role = "/providers/Cloud.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"
    extra: list[dict[str, Any]] = [{}, {"conditionVersion": "1.0"}, {"condition": ""}, {}]
    doc = {
        "roleAssignments": [
            {
                "id": f"{base}/ra{i}",
                "name": f"ra{i}",
                "properties": {
                    "roleDefinitionId": role,
                    "principalId": "ann",
                    "scope": "/subscriptions/s1",
                    **more,
                },
            }
            for i, more in enumerate(extra)
        ]
    }
    engine, listed = _engine(doc)
    column = AssignmentRows(engine, listed).column("condition")
    assert column == [_NO_CONDITION_KEY, (None, "1.0"), ("", None), _NO_CONDITION_KEY]
    assert column[0] is column[3] is _NO_CONDITION_KEY


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=snapshots())
def test_subscription_rows_equal_those_made_before(doc: dict[str, Any]) -> None:
    """The subscription rows (owners, assignments to users and the first ids) equal those the
    old walk made."""
    engine, listed = _engine(doc)
    found = subscription_rows(engine, AssignmentRows(engine, listed))
    assert found == _old_subscription_rows(engine, AssignmentRows(engine, listed))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=snapshots())
def test_principal_codes_and_arguments_read_each_principals_entry(doc: dict[str, Any]) -> None:
    """Each assignment's principal code names its key (the bare key when the directory gives its
    principal a type, else the pair with the assignment's principalType), and each key's
    arguments hold the directory entry :meth:`Directory.entry` gives."""
    engine, listed = _engine(doc)
    rows = AssignmentRows(engine, listed)
    ix = engine.indexes
    codes, keys = rows.facet_codes("principal")
    typed = {key for key, record in ix.directory.entries() if record.type}
    expected = [
        entry.principal
        if entry.principal in typed
        else (entry.principal, entry.record.properties.principalType)
        for entry in ix.assignments
    ]
    assert [keys[code] for code in codes] == expected
    principals, given_types, records = rows._principal_arguments(keys)
    assert records == [ix.directory.entry(p) for p in principals]
    assert given_types == [k[1] if type(k) is tuple else None for k in keys]
