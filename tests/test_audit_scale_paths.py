"""The faster paths of the 1M audit (issue 23, part C) give the answers of the general ones: the
principal fields read straight from the directory entry equal the fields of the whole principal,
and the verdicts found in bulk equal those of each row judged alone."""

from __future__ import annotations

import datetime as dt
import json
from array import array
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.access.views import _PRINCIPAL_FIELDS, _value_at
from auditor.audit.engine import Engine
from auditor.audit.packs import render_template
from auditor.audit.resources import _access_rows
from auditor.estate.snapshot import loads_snapshot
from tests.test_rules_as_data import snapshots

AS_OF = dt.date(2026, 11, 21)

PRINCIPAL_PATHS = [
    "principal/inDirectory",
    "principal/enabled",
    "principal/userType",
    "principal/guest",
    "principalType",
    "guests",
    "guestNames",
    "membershipDepth",
]


def _slow_value(rows: Any, key: Any, path: str) -> Any:
    """The value at ``path`` of the whole principal fields of ``key`` (the general path)."""
    principal, given_type = key if isinstance(key, tuple) else (key, None)
    parts = path.casefold().split("/")
    return _value_at(rows._principal(principal, given_type), parts)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=snapshots())
def test_principal_fields_read_straight_equal_the_whole_principals(doc: dict[str, Any]) -> None:
    snapshot = loads_snapshot(json.dumps(doc).encode(), source="generated.json")
    rows = _access_rows(Engine(settings={}, as_of=AS_OF, snapshot=snapshot).context).assignments
    entry = rows._ix.directory.entry
    for path in PRINCIPAL_PATHS:
        getter = rows._principal_getter(tuple(path.casefold().split("/")))
        assert getter is not None, path
        for key in set(rows.column("principal")):
            principal, given_type = key if isinstance(key, tuple) else (key, None)
            fast = getter(principal, given_type, entry(principal))
            assert fast == _slow_value(rows, key, path), (path, key)
            assert type(fast) is type(_slow_value(rows, key, path)), (path, key)
        # and the key columns group the assignments as the whole values do
        column = rows.key_column(path)
        assert column is not None and len(column) in (0, len(rows))
        if len(column):
            keys = rows.column("principal")
            seen: dict[Any, Any] = {}
            for code, key in zip(column, keys, strict=True):
                value = json.dumps(_slow_value(rows, key, path))
                assert seen.setdefault(code, value) == value, (path, key)
            if isinstance(column, array):  # numbered values: equal values, one number
                assert len(set(seen.values())) == len(seen), path


def test_other_paths_take_the_general_path() -> None:
    snapshot = loads_snapshot(b'{"snapshotVersion": 1}', source="s.json")
    rows = _access_rows(Engine(settings={}, as_of=AS_OF, snapshot=snapshot).context).assignments
    for path in ("principalName", "principalId", "principal", "principal/displayName", "x"):
        assert rows._principal_getter(tuple(path.casefold().split("/"))) is None, path
    assert set(_PRINCIPAL_FIELDS) >= {"guests", "guestnames", "membershipdepth"}


def _render_by_regex(template: str, lookup: Any) -> str:
    """The renderer before templates were split once: a regular expression's substitution."""
    from auditor.audit.packs import _PLACEHOLDER

    def sub(m: Any) -> str:
        name = m.group(1)
        return m.group(0)[0] if name is None else str(lookup(name.strip()))

    return _PLACEHOLDER.sub(sub, template)


@given(template=st.text(alphabet="ab {}x.", max_size=30))
def test_templates_render_as_by_the_regular_expression(template: str) -> None:
    seen: list[str] = []

    def lookup(name: str) -> str:
        seen.append(name)
        return f"<{name}>"

    expected_seen: list[str] = []

    def expected_lookup(name: str) -> str:
        expected_seen.append(name)
        return f"<{name}>"

    assert render_template(template, lookup) == _render_by_regex(template, expected_lookup)
    assert seen == expected_seen  # the same placeholders, in the same order


def _subscription_rows_one_by_one(engine: Any) -> list[dict[str, Any]]:
    """The subscription rows as made before their loops ran in C: one assignment at a time."""
    from collections import defaultdict

    from auditor.access.scopes import ScopeTree
    from auditor.access.views import MAX_LISTED, SUBSCRIPTIONS

    ix = engine.indexes
    types = {k: str(r.type).lower() for k, r in ix.directory.entries() if r.type}
    direct: dict[str, list[str]] = defaultdict(list)
    for entry in ix.assignments:
        found = ScopeTree.subscription_of(entry.scope)
        if found is None:
            continue
        sub = ix.scopes.display(found)
        kind = types.get(entry.principal)
        if kind is None:
            kind = (entry.record.properties.principalType or "User").lower()
        if kind == "user":
            direct[sub].append(entry.record.id or "")
    return [
        {
            "type": SUBSCRIPTIONS,
            "id": subs.subscription,
            "name": subs.subscription,
            "ownerCount": subs.count,
            "owners": [o.principalId for o in subs.owners][:MAX_LISTED],
            "directUserAssignments": len(direct.get(subs.subscription, [])),
            "directUserAssignmentIds": direct.get(subs.subscription, [])[:MAX_LISTED],
        }
        for subs in engine.subscription_owners()
    ]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=snapshots())
def test_subscription_rows_equal_those_made_one_assignment_at_a_time(doc: dict[str, Any]) -> None:
    from auditor.access.views import subscription_rows

    snapshot = loads_snapshot(json.dumps(doc).encode(), source="generated.json")
    engine = Engine(settings={}, as_of=AS_OF, snapshot=snapshot).context.access()
    expected = _subscription_rows_one_by_one(engine)
    assert subscription_rows(engine) == expected
    # with the audit's assignment rows, their principal column already made (or not)
    from auditor.access import AssignmentRows

    rows = AssignmentRows(engine, bool(snapshot.principals))
    assert subscription_rows(engine, rows) == expected
    rows.column("principal")
    assert subscription_rows(engine, rows) == expected


def test_subscription_rows_list_the_first_ids_and_count_them_all() -> None:
    import io

    from auditor.access.views import MAX_LISTED, subscription_rows
    from auditor.estate.generate import generate_estate

    buffer = io.BytesIO()
    generate_estate(3_000, seed=3, principals=150, deny_assignments=5, out=buffer, progress=False)
    snapshot = loads_snapshot(buffer.getvalue(), source="generated")
    engine = Engine(settings={}, as_of=AS_OF, snapshot=snapshot).context.access()
    rows = subscription_rows(engine)
    assert rows == _subscription_rows_one_by_one(engine)
    assert any(r["directUserAssignments"] > MAX_LISTED for r in rows)  # the cut is exercised


@pytest.mark.parametrize("byte_combinations", [0, 256])
def test_verdicts_in_bytes_and_in_numbers_agree_with_each_row(
    byte_combinations: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both ways of numbering combinations (a byte each, or 8 bytes each past 256 of them), on an
    estate of more than 256 principals (their key codes 2 bytes each)."""
    import io

    from auditor.audit import resources
    from auditor.estate.generate import generate_estate
    from tests.test_access_rows_memory import _one_by_one, _view_rules

    monkeypatch.setattr(resources, "_BYTE_COMBINATIONS", byte_combinations)
    buffer = io.BytesIO()
    generate_estate(1_200, seed=11, principals=400, deny_assignments=5, out=buffer, progress=False)
    snapshot = loads_snapshot(buffer.getvalue(), source="generated")
    engine = Engine(settings={}, as_of=AS_OF, snapshot=snapshot)
    rows = _access_rows(engine.context).assignments
    assert rows.facet_codes("principal")[0].typecode != "B"
    for rule in _view_rules(engine):
        applies = rule.applies_to or (lambda _doc: True)
        got = resources._verdicts(rule, rows, rule.predicate, applies)
        assert got == _one_by_one(rule, rows), rule.id


def test_the_command_ends_without_freeing_the_estate_and_says_the_same(tmp_path: Any) -> None:
    """``auditor audit`` as a process (it ends with os._exit once the reports are written,
    not freeing the estate object by object) gives the exit code and the report that the
    command gives in process (:func:`auditor.cli.main`, which holds nothing back)."""
    import os
    import re
    import subprocess
    import sys

    from auditor import cli
    from auditor.estate.sample import sample_snapshot_bytes

    estate = tmp_path / "estate.json"
    estate.write_bytes(sample_snapshot_bytes())
    args = ["audit", "--snapshot", str(estate), "--as-of", "2026-11-21", "--no-cache"]
    env = {**os.environ, "AUDITOR_DEBUG": ""}
    proc = subprocess.run(
        [sys.executable, "-m", "auditor", *args, "-o", f"json={tmp_path / 'process.json'}"],
        capture_output=True,
        cwd=tmp_path,
        env=env,
        check=False,
        timeout=120,
    )
    code = cli.main([*args, "-o", f"json={tmp_path / 'inprocess.json'}"])
    assert cli._HELD is None  # in process, nothing is held back
    assert proc.returncode == code == 1, proc.stderr.decode()[-500:]
    assert b"exit 1, the gate failed" in proc.stderr  # standard error flushed before the end
    stamps = re.compile(rb'"(startedAt|finishedAt)": "[^"]*"')
    process, inprocess = ((tmp_path / f"{n}.json").read_bytes() for n in ("process", "inprocess"))
    assert stamps.sub(b"", process) == stamps.sub(b"", inprocess)


def _columns_one_by_one(rows: Any, facet: str) -> list[Any]:
    """The facet keys as made before their loops ran in C: one assignment at a time."""
    from auditor.access.scopes import ScopeTree

    entries = rows._ix.assignments
    if facet == "role":
        return [e.role for e in entries]
    if facet == "scopeLevel":
        return [ScopeTree.kind(e.scope) for e in entries]
    if facet == "principal":
        typed = {k for k, r in rows._ix.directory.entries() if r.type}
        return [
            e.principal
            if e.principal in typed
            else (e.principal, e.record.properties.principalType)
            for e in entries
        ]
    out = []
    for e in entries:
        c, v = e.record.properties.condition, e.record.properties.conditionVersion
        out.append((None, None) if c is None and v is None else (c, v))
    return out


def _check_columns(snapshot: Any) -> None:
    rows = _access_rows(Engine(settings={}, as_of=AS_OF, snapshot=snapshot).context).assignments
    for facet in ("role", "scopeLevel", "principal", "condition"):
        column = rows.column(facet)
        assert column == _columns_one_by_one(rows, facet), facet
        distinct = rows._distinct(facet)
        assert len(distinct) == len(set(distinct)) and set(distinct) == set(column), facet
        pairs = [k for k in column if isinstance(k, tuple)]
        assert len({id(k) for k in pairs}) == len(set(pairs)), facet  # equal pairs: one tuple


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=snapshots())
def test_facet_columns_equal_those_made_one_assignment_at_a_time(doc: dict[str, Any]) -> None:
    _check_columns(loads_snapshot(json.dumps(doc).encode(), source="generated.json"))


def test_an_empty_condition_or_a_version_alone_keeps_its_own_key() -> None:
    base = "/subscriptions/s1/providers/Cloud.Authorization/roleAssignments/"
    role = "/providers/Cloud.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"
    props: list[dict[str, Any]] = [{}, {"condition": ""}, {"conditionVersion": "2.0"}]
    doc = {
        "snapshotVersion": 1,
        "roleAssignments": [
            {
                "id": f"{base}ra{i}",
                "properties": {
                    "roleDefinitionId": role,
                    "principalId": f"p{i}",
                    "scope": "/subscriptions/s1",
                    **extra,
                },
            }
            for i, extra in enumerate(props)
        ],
    }
    snapshot = loads_snapshot(json.dumps(doc).encode(), source="s.json")
    _check_columns(snapshot)
    rows = _access_rows(Engine(settings={}, as_of=AS_OF, snapshot=snapshot).context).assignments
    assert rows.column("condition")[:3] == [(None, None), ("", None), (None, "2.0")]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=snapshots(), data=st.data())
def test_names_found_by_location_equal_those_found_by_a_pass_over_every_record(
    doc: dict[str, Any], data: st.DataObject
) -> None:
    from auditor.audit.names import estate_names

    snapshot = loads_snapshot(json.dumps(doc).encode(), source="generated.json")
    records = snapshot.roleAssignments
    ids = [ra.id for ra in records] + [
        "/subscriptions/x/providers/Cloud.Authorization/roleAssignments/gone"
    ]
    # right, wrong, out of range, malformed and missing locations; ids in another case
    places = st.one_of(
        st.none(),
        st.integers(0, len(records) + 2).map(lambda i: f"roleAssignments[{i}]"),
        st.sampled_from(["roleAssignments[]", "roleAssignments[-1]", "denyAssignments[0]"]),
    )
    chosen = data.draw(st.lists(st.sampled_from(ids), max_size=8))
    chosen = [rid.upper() if data.draw(st.booleans()) else rid for rid in chosen]
    located = [(rid, data.draw(places)) for rid in chosen]
    located += [(ra.id, f"roleAssignments[{i}]") for i, ra in enumerate(records[:3])]
    given_ids = [rid for rid, _ in located]
    assert estate_names(snapshot, given_ids, located=located) == estate_names(snapshot, given_ids)
