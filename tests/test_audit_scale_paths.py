"""The faster paths of the 1M audit (issue 23, part C) give the answers of the general ones: the
principal fields read straight from the directory entry equal the fields of the whole principal,
and the verdicts found in bulk equal those of each row judged alone."""

from __future__ import annotations

import datetime as dt
import json
import operator
import random
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
        reader = rows._principal_reader(tuple(path.casefold().split("/")))
        assert reader is not None, path
        for key in set(rows.column("principal")):
            principal, given_type = key if isinstance(key, tuple) else (key, None)
            (fast,) = reader([principal], [given_type], [entry(principal)])
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
        assert rows._principal_reader(tuple(path.casefold().split("/"))) is None, path
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


@pytest.mark.parametrize(
    ("byte_combinations", "short_combinations"), [(0, 0), (0, 1 << 16), (256, 1 << 16)]
)
def test_verdicts_in_bytes_and_in_numbers_agree_with_each_row(
    byte_combinations: int, short_combinations: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every way of numbering combinations (a byte each, 2 bytes each past 256 of them, 8 bytes
    each past 65,536), on an estate of more than 256 principals (their key codes 2 bytes each)."""
    import io

    from auditor.audit import resources
    from auditor.estate.generate import generate_estate
    from tests.test_access_rows_memory import _one_by_one, _view_rules

    monkeypatch.setattr(resources, "_BYTE_COMBINATIONS", byte_combinations)
    monkeypatch.setattr(resources, "_SHORT_COMBINATIONS", short_combinations)
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
        codes, keys = rows.facet_codes(facet)  # numbered keys: each assignment's own
        assert [keys[c] for c in codes] == column, facet
        assert len(keys) == len(set(keys)) and set(keys) == set(column), facet


def _principal_codes_without_the_index_numbers(snapshot: Any) -> tuple[list[Any], list[Any]]:
    """The principal facet's column and codes made from the assignments themselves (the path of
    an index that gives no principal numbers)."""
    context = Engine(settings={}, as_of=AS_OF, snapshot=snapshot).context
    context.access().indexes.principal_numbers = None
    rows = _access_rows(context).assignments
    codes, keys = rows.facet_codes("principal")
    return rows.column("principal"), [keys[c] for c in codes]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=snapshots())
def test_principal_codes_from_the_index_equal_those_made_from_the_assignments(
    doc: dict[str, Any],
) -> None:
    """The principal facet numbered from the index's principal numbers (no assignment touched but
    those to principals the directory gives no type) equals the facet made from every
    assignment, and the index's numbers name each assignment's principal key."""
    snapshot = loads_snapshot(json.dumps(doc).encode(), source="generated.json")
    ix = Engine(settings={}, as_of=AS_OF, snapshot=snapshot).context.access().indexes
    assert [ix.principal_keys[n] for n in ix.principal_numbers] == [
        e.principal for e in ix.assignments
    ]
    assert len(set(ix.principal_keys)) == len(ix.principal_keys)
    rows = _access_rows(Engine(settings={}, as_of=AS_OF, snapshot=snapshot).context).assignments
    codes, keys = rows.facet_codes("principal")
    column, by_codes = _principal_codes_without_the_index_numbers(snapshot)
    assert [keys[c] for c in codes] == by_codes == column == rows.column("principal")


def test_an_untyped_principal_with_two_types_keeps_a_key_per_type() -> None:
    base = "/subscriptions/s1/providers/Cloud.Authorization/roleAssignments/"
    role = "/providers/Cloud.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"
    kinds = ["User", "Group", None, "User", "Group"]
    who = ["ghost", "ghost", "ghost", "u1", "GHOST"]
    doc = {
        "snapshotVersion": 1,
        "principals": [{"id": "u1", "type": "User"}],
        "roleAssignments": [
            {
                "id": f"{base}ra{i}",
                "properties": {
                    "roleDefinitionId": role,
                    "principalId": principal,
                    "scope": "/subscriptions/s1",
                    **({"principalType": kind} if kind else {}),
                },
            }
            for i, (principal, kind) in enumerate(zip(who, kinds, strict=True))
        ],
    }
    snapshot = loads_snapshot(json.dumps(doc).encode(), source="s.json")
    _check_columns(snapshot)
    rows = _access_rows(Engine(settings={}, as_of=AS_OF, snapshot=snapshot).context).assignments
    assert rows.column("principal") == [
        ("ghost", "User"),
        ("ghost", "Group"),
        ("ghost", None),
        "u1",
        ("ghost", "Group"),
    ]
    codes, keys = rows.facet_codes("principal")
    assert len(keys) == 4 and codes[1] == codes[4]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=snapshots())
def test_assignments_by_scope_made_with_the_index_equal_those_made_after(
    doc: dict[str, Any],
) -> None:
    snapshot = loads_snapshot(json.dumps(doc).encode(), source="generated.json")
    ix = Engine(settings={}, as_of=AS_OF, snapshot=snapshot).context.access().indexes
    made = ix.by_scope
    ix._by_scope = None  # made again from the assignments, in snapshot order
    again = ix.by_scope
    assert list(made) == list(again)
    assert all(made[k] == again[k] and all(map(operator.is_, made[k], again[k])) for k in made)


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


def _bypassed_one_by_one(ctx: Any) -> list[Any]:
    """RBAC-012's outcomes as made before the conditioned assignments were found in C: a pass
    over every assignment."""
    from collections import defaultdict

    from auditor.audit.checks import access as checks

    engine = ctx.access()
    ix = engine.indexes
    by_assignment: dict[str, list[Any]] = defaultdict(list)
    for b in engine.bypassed_conditions():
        by_assignment[b.roleAssignmentId.lower()].append(b)
    out = []
    for index, entry in enumerate(ix.assignments):
        if not entry.record.properties.condition:
            continue
        hits = by_assignment.get(entry.id.lower())
        out.append((index, bool(hits), checks._assignment_fields(ix, entry)))
    return out


def _dead_one_by_one(ctx: Any) -> list[Any]:
    """RBAC-013's verdicts as made before its loops ran in C: one assignment at a time."""
    engine = ctx.access()
    ix = engine.indexes
    dead = {d.roleAssignmentId.lower(): d for d in engine.dead_grants()}
    deny_scopes = set(ix.deny_by_scope)
    if not deny_scopes:
        return []
    above: set[str] = set()
    for scope in deny_scopes:
        above.update(ix.scopes.chain(scope))
    failed, passed = [], []
    for index, entry in enumerate(ix.assignments):
        d = dead.get(entry.id.lower()) if dead else None
        if d is not None:
            failed.append((index, d.roleName, list(d.deniedBy)))
        elif entry.scope in above or not deny_scopes.isdisjoint(ix.scopes.chain(entry.scope)):
            passed.append(index)
    return [*failed, ("passes", passed)]


def _outcome_row(outcome: Any) -> Any:
    from auditor.audit.checks._registry import PassMany

    if isinstance(outcome, PassMany):
        return (outcome.resource_type, list(outcome.items))
    return (
        outcome.passed,
        outcome.evidence,
        outcome.resource_id,
        outcome.resource_name,
        outcome.location,
        outcome.fields,
    )


def _deny_everyone_at(scope: str) -> dict[str, Any]:
    return {
        "id": f"{scope.rstrip('/')}/providers/Cloud.Authorization/denyAssignments/deny-all",
        "properties": {
            "denyAssignmentName": "deny-all",
            "scope": scope,
            "permissions": [{"actions": ["*"], "dataActions": ["*"]}],
            "principals": [{"id": "00000000-0000-0000-0000-000000000000", "type": "SystemDefined"}],
        },
    }


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=snapshots(), data=st.data())
def test_dead_and_bypassed_checks_equal_their_loops_over_every_assignment(
    doc: dict[str, Any], data: st.DataObject
) -> None:
    """RBAC-012 and RBAC-013 judge the assignments as a pass over each one did (the same
    outcomes in the same order), with dead grants made likely by a deny of everything."""
    from auditor.audit.checks import access as checks

    scopes = [ra["properties"]["scope"] for ra in doc.get("roleAssignments", [])]
    if scopes and data.draw(st.booleans()):
        doc = {**doc, "denyAssignments": [_deny_everyone_at(data.draw(st.sampled_from(scopes)))]}
    snapshot = loads_snapshot(json.dumps(doc).encode(), source="generated.json")
    ctx = Engine(settings={}, as_of=AS_OF, snapshot=snapshot).context
    bypassed = list(checks.bypassed_conditions(ctx))
    expected = _bypassed_one_by_one(ctx)
    assert [(o.location, not o.passed) for o in bypassed] == [
        (f"roleAssignments[{i}]", hit) for i, hit, _ in expected
    ]
    for o, (_, _, fields) in zip(bypassed, expected, strict=True):
        assert o.fields is not None and {k: o.fields[k] for k in fields} == fields
    _check_dead(ctx, snapshot)


def _check_dead(ctx: Any, snapshot: Any) -> int:
    """RBAC-013's outcomes equal the reference's; how many failed."""
    from auditor.audit.checks import access as checks
    from auditor.audit.checks._registry import PassMany

    dead = list(checks.dead_grants(ctx))
    reference = _dead_one_by_one(ctx)
    if not reference:
        assert dead == []
        return 0
    *failed, (_, passed) = reference
    assert isinstance(dead[-1], PassMany)
    items = ctx.cache["transient:passItems"]
    assert [_outcome_row(o) for o in dead[:-1]] == [
        (
            False,
            {"role": role, "deniedBy": denied},
            snapshot.roleAssignments[i].id,
            snapshot.roleAssignments[i].name or snapshot.roleAssignments[i].id,
            f"roleAssignments[{i}]",
            dead[n].fields,
        )
        for n, (i, role, denied) in enumerate(failed)
    ]
    assert _outcome_row(dead[-1])[1] == [items[i] for i in passed]
    return len(failed)


def test_dead_grants_found_in_c_fail_and_pass_as_one_by_one() -> None:
    role = "/providers/Cloud.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"
    scopes = ["/subscriptions/s1/resourceGroups/rg-1", "/subscriptions/s2", "/subscriptions/s1"]
    doc = {
        "snapshotVersion": 1,
        "roleAssignments": [
            {
                "id": f"{scope}/providers/Cloud.Authorization/roleAssignments/ra{i}",
                "properties": {"roleDefinitionId": role, "principalId": f"p{i}", "scope": scope},
            }
            for i, scope in enumerate(scopes)
        ],
        "denyAssignments": [_deny_everyone_at("/subscriptions/s1")],
    }
    snapshot = loads_snapshot(json.dumps(doc).encode(), source="s.json")
    ctx = Engine(settings={}, as_of=AS_OF, snapshot=snapshot).context
    assert _check_dead(ctx, snapshot) == 2  # the assignments below the deny; s2 is not judged


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=snapshots())
def test_whole_rows_equal_those_merged_from_their_parts(doc: dict[str, Any]) -> None:
    """A row made in one dict has the fields, values and order of the row merged as before: the
    assignment's own fields, then each facet's (a dict of them per combination of keys)."""
    from auditor.access.views import FACETS, ROLE_ASSIGNMENTS

    snapshot = loads_snapshot(json.dumps(doc).encode(), source="generated.json")
    rows = _access_rows(Engine(settings={}, as_of=AS_OF, snapshot=snapshot).context).assignments
    for index in range(len(rows)):
        fields: dict[str, Any] = {}
        for facet in FACETS[2:]:
            fields.update(rows._facet(facet, rows.column(facet)[index], index))
        expected = {"type": ROLE_ASSIGNMENTS, **rows._assignment(index), **fields}
        assert list(rows.row(index).items()) == list(expected.items())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=snapshots())
def test_bypassed_conditions_from_the_conditioned_assignments_equal_a_pass_over_all(
    doc: dict[str, Any],
) -> None:
    """RBAC-012's analysis reads only the conditioned assignments (found in C): the same results
    as when it looked at every assignment."""
    from auditor.access import analysis

    snapshot = loads_snapshot(json.dumps(doc).encode(), source="generated.json")
    ix = Engine(settings={}, as_of=AS_OF, snapshot=snapshot).context.access().indexes
    found = analysis.bypassed_conditions(ix)
    every = analysis._COND
    try:
        analysis._COND = lambda _entry: True  # type: ignore[assignment]
        assert analysis.bypassed_conditions(ix) == found
    finally:
        analysis._COND = every


def _every_finding(
    snapshot: Any, eager: bool, monkeypatch: pytest.MonkeyPatch, secret: str | None = None
) -> tuple[list[Any], int]:
    """Every finding of a run over ``snapshot`` in evaluation order (passes made when read), with
    the passes of access rules and per-run checks made at once (``eager``) or when read; and how
    many blocks of passes were kept as outcomes. ``secret``: a value the run knows from the
    start."""
    from auditor.audit.runner import AuditOptions, prepare

    if eager:
        monkeypatch.setattr(Engine, "_judged", Engine._finding)
    prep = prepare(AuditOptions())
    engine = Engine(settings=prep.settings, as_of=AS_OF, snapshot=snapshot)
    if secret is not None:
        engine.context.remember_secret(secret)
    findings = engine.run(prep.rules).findings
    monkeypatch.undo()
    kept = sum(1 for b in findings.blocks if type(b.items[0]).__name__ == "_Later")
    return list(findings), kept


@pytest.mark.parametrize("seed", [3, 5])
def test_passes_made_when_read_equal_those_made_at_once(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The passes of access rules and per-run checks, kept as outcomes and made into findings
    only when read (text, HTML and SARIF count them and never do), are the findings made at
    once: the same fields, in the same order; a run that knows a secret makes them at once."""
    import io

    from auditor.estate.generate import generate_estate
    from auditor.estate.sample import sample_snapshot_bytes

    buffer = io.BytesIO()
    generate_estate(600, seed=seed, principals=60, deny_assignments=8, out=buffer, progress=False)
    for data in (buffer.getvalue(), sample_snapshot_bytes()):
        snapshot = loads_snapshot(data, source="generated")
        later, kept = _every_finding(snapshot, False, monkeypatch)
        at_once, none = _every_finding(snapshot, True, monkeypatch)
        assert later == at_once
        assert kept > 0 and none == 0 and sum(f.status == "pass" for f in later) > 100
        # a secret known from the start (a role's name here): every pass is made at once
        known, kept = _every_finding(snapshot, False, monkeypatch, secret="Reader")
        assert kept == 0 and known == _every_finding(snapshot, True, monkeypatch, "Reader")[0]


@given(
    picks=st.lists(st.booleans(), max_size=40),
    nones=st.sets(st.integers(0, 39), max_size=5),
    chunk=st.integers(1, 8),
)
def test_entries_picked_by_a_mask_equal_their_subset(
    picks: list[bool], nones: set[int], chunk: int
) -> None:
    """A rule's passes kept as a byte per assignment (listed only when read) give the items,
    length and chunks of the subset of their indexes."""
    from auditor.audit.findings import Located

    ids = [None if i in nones else f"/x/ra{i}" for i in range(len(picks))]
    mask = bytes(picks)
    chosen = [i for i, p in enumerate(picks) if p]
    whole = Located(ids, "roleAssignments")
    picked, subset = whole.picked(mask), whole.subset(chosen)
    assert len(picked) == len(subset) == len(chosen)
    assert list(picked) == list(subset)
    assert [picked.columns(s, s + chunk) for s in range(0, len(chosen), chunk)] == [
        subset.columns(s, s + chunk) for s in range(0, len(chosen), chunk)
    ]
    assert (picked.indexes is None) == (subset.indexes is None)
    if chosen:  # a subset of a subset, picked again
        again = [i % 2 for i in range(len(chosen))]
        assert list(subset.picked(bytes(again))) == list(
            subset.subset([i for i, p in enumerate(again) if p])
        )


# -- issue 23, the text audit's margin: combinations in two bytes, a combination's fields alone,
# evidence by plain lookups


@st.composite
def _facet_digits(draw: Any) -> tuple[list[Any], list[list[int]], list[int], int]:
    """Per facet: every assignment's key codes (1, 2 or 4 bytes each), each key's digit and the
    facet's number of digits, with at most 65,536 combinations in all."""
    n = draw(st.integers(0, 40))
    facets = draw(st.integers(1, 3))
    codes_of: list[Any] = []
    luts: list[list[int]] = []
    sizes: list[int] = []
    room = 1 << 16
    for _ in range(facets):
        size = draw(st.integers(1, max(1, min(room, 3_000))))
        room //= size
        keys = draw(st.integers(1, 600))
        typecode = draw(st.sampled_from(["B", "H", "i"] if keys <= 256 else ["H", "i"]))
        pick = random.Random(draw(st.integers(0, 1 << 32)))
        lut = [pick.randrange(size) for _ in range(keys)]
        lut[pick.randrange(keys)] = size - 1  # the largest digit is there
        codes = array(typecode, [pick.randrange(keys) for _ in range(n)])
        codes_of.append(codes)
        luts.append(lut)
        sizes.append(size)
    return codes_of, luts, sizes, n


@settings(max_examples=100, deadline=None)
@given(case=_facet_digits())
def test_combinations_in_two_bytes_equal_those_numbered_one_by_one(
    case: tuple[list[Any], list[list[int]], list[int], int],
) -> None:
    from auditor.audit.resources import _short_combinations

    codes_of, luts, sizes, n = case
    expected = []
    for index in range(n):
        number = 0
        for codes, lut, size in zip(codes_of, luts, sizes, strict=True):
            number = number * size + lut[codes[index]]
        expected.append(number)
    got = _short_combinations(codes_of, luts, sizes, n)
    assert got.typecode == "H"
    assert list(got) == expected


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=snapshots())
def test_a_combinations_fields_alone_equal_those_of_its_whole_facets(doc: dict[str, Any]) -> None:
    """What a rule judges of a combination before any principal's whole fields are made (only
    the fields it reads) equals the same fields of the whole facets, made after."""
    from auditor.access import AssignmentRows
    from auditor.access.views import ASSIGNMENT_FACETS

    snapshot = loads_snapshot(json.dumps(doc).encode(), source="generated.json")
    engine = Engine(settings={}, as_of=AS_OF, snapshot=snapshot).context.access()
    fresh = AssignmentRows(engine, bool(snapshot.principals))
    whole = AssignmentRows(engine, bool(snapshot.principals))
    groups = [
        ["guests", "privilegedRole"],
        ["principal", "roleName"],
        ["PrincipalType", "guestNames", "membershipDepth"],
        ["principalId", "principalName", "scopeLevel", "conditionPresent"],
    ]
    for index in range(len(fresh)):
        for names in groups:
            facets = {ASSIGNMENT_FACETS[n.casefold()] for n in names}
            keys = {f: fresh.column(f)[index] for f in facets}
            got = fresh.fields_of(names, keys)
            row = whole.row(index)  # every facet of this assignment made whole
            # every field read is there, each field given is the whole row's
            assert {_canonical(n) for n in names} <= set(got)
            assert got == {k: row[k] for k in got}
            assert whole.fields_of(names, keys).items() >= got.items()


def _canonical(name: str) -> str:
    from auditor.access.views import _PRINCIPAL_FIELDS

    found = _PRINCIPAL_FIELDS.get(name.casefold())
    if found is not None:
        return found
    return {
        "privilegedrole": "privilegedRole",
        "rolename": "roleName",
        "scopelevel": "scopeLevel",
        "conditionpresent": "conditionPresent",
    }[name.casefold()]


_MEMBERS = st.sampled_from(["a", "A", "b", "enabled", "Enabled", "", "x"])
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 2) | st.text("ab", max_size=2),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_MEMBERS, inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(
    row=st.dictionaries(_MEMBERS, _VALUES, max_size=4),
    path=st.lists(_MEMBERS, min_size=1, max_size=3).map("/".join),
)
def test_evidence_by_plain_lookups_equals_the_general_path(row: dict[str, Any], path: str) -> None:
    from auditor.audit.resources import _row_value, get_path

    assert _row_value(row, path) == get_path(row, path)
    assert _row_value(row, "/" + path) == get_path(row, "/" + path)
