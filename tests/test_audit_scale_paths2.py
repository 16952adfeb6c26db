"""Differential tests of the audit's faster paths at scale (second part): each new path against
the code it replaced, kept here as the oracle."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from itertools import compress
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.access.analysis import (
    _COND,
    _FULL,
    _NO_PRINCIPALS,
    BypassedCondition,
    DeadGrant,
    _deny_verdict,
    _grants_pattern,
    _planes,
    _spares_a_member,
    bypassed_conditions,
    dead_grants,
)
from auditor.access.indexes import DenyEntry, Indexes
from auditor.audit import resources
from auditor.audit.engine import Engine
from auditor.audit.names import _ASSIGNMENT, _AT, _ID
from auditor.audit.resources import _access_rows, _shown_names
from auditor.estate.snapshot import loads_snapshot
from tests.test_access_rows_memory import _one_by_one, _view_rules
from tests.test_audit_scale_paths import _deny_everyone_at
from tests.test_rules_as_data import snapshots

AS_OF = dt.date(2026, 11, 21)


def _dead_candidates(ix: Indexes, chain: tuple[str, ...]) -> tuple[DenyEntry, ...]:
    """(The old analysis's helper, part of the oracle.) The unconditioned deny assignments that
    reach ``chain[0]`` by scope (whoever they name), in the order
    :func:`auditor.access.queries.applicable_denies` finds them."""
    found: list[DenyEntry] = []
    deny_by_scope = ix.deny_by_scope
    for distance, level in enumerate(chain):
        for deny in deny_by_scope.get(level, ()):
            if distance and deny.at_scope_only:
                continue
            if deny.cond is None:
                found.append(deny)
    return tuple(found)


def _old_bypassed_conditions(ix: Any) -> list[BypassedCondition]:
    """The analysis as it was before (the oracle)."""
    directory = ix.directory
    at_scope = ix.at_scope
    results: list[BypassedCondition] = []
    # the conditioned assignments (a few of a million) found in C
    for entry in compress(ix.assignments, map(_COND, ix.assignments)):
        cond = entry.cond
        if cond is None or cond.problem is not None:
            continue
        role = ix.catalogue.role(entry.role)
        targets = sorted(cond.targeted_actions, key=str.lower)
        if not targets and role is not None:
            targets = sorted(
                {p for perm in role.permissions for d in (False, True) for p in perm.patterns(d)},
                key=str.lower,
            )
        planned = [(t, _planes(role, t)) for t in targets]
        planned = [(t, planes) for t, planes in planned if planes]
        if not planned:
            continue
        chain = ix.scopes.chain(entry.scope)
        for identity in sorted(directory.identities(entry.principal)):
            for level in chain:
                for other in at_scope.get(level, _NO_PRINCIPALS).get(identity, ()):
                    if other is entry or other.cond is not None:
                        continue
                    other_role = ix.catalogue.role(other.role)
                    if other_role is None:
                        continue
                    free = [p for p in other_role.permissions if p.cond is None]
                    ops = tuple(
                        t
                        for t, planes in planned
                        if any(_grants_pattern(p, t, d) for p in free for d in planes)
                    )
                    if not ops:
                        continue
                    path = directory.group_path(entry.principal, identity)
                    results.append(
                        BypassedCondition(
                            roleAssignmentId=entry.id,
                            principalId=directory.display(entry.principal),
                            scope=entry.record.properties.scope or "/",
                            condition=cond.text,
                            targetedActions=tuple(targets),
                            bypassingAssignmentId=other.id,
                            bypassingScope=other.record.properties.scope or "/",
                            bypassingRoleName=other_role.name,
                            via=tuple(directory.display(k) for k in path),
                            operations=ops,
                        )
                    )
    return results


def _old_dead_grants(ix: Any) -> list[DeadGrant]:
    """The analysis as it was before (the oracle)."""
    if not ix.deny_by_scope:
        return []
    directory = ix.directory
    catalogue = ix.catalogue
    results: list[DeadGrant] = []
    shape_ids: dict[tuple[object, ...], int] = {}
    sid_of: dict[int, int] = {}  # id(deny) -> its shape's number
    for deny in ix.denies:
        sid_of[id(deny)] = shape_ids.setdefault(deny.shape, len(shape_ids))
    # per role GUID: its granted globs (empty when the role is unknown or grants nothing)
    role_patterns: dict[str, tuple[tuple[str, bool], ...]] = {}
    # per (role GUID, shape): the bit mask of the role's globs that a deny of that shape blocks
    masks: dict[tuple[str, int], int] = {}
    # per (role GUID, shapes of the denies reaching a scope): could they block every glob?
    possible: dict[tuple[str, frozenset[int]], bool] = {}
    # per (role GUID, applicable denies): the blocking deny ids, or None when some glob survives
    verdicts: dict[tuple[str, tuple[int, ...]], tuple[str, ...] | None] = {}
    chain_of = ix.scopes.chain

    def mask(guid: str, deny: DenyEntry) -> int:
        key = (guid, sid_of[id(deny)])
        hit = masks.get(key)
        if hit is None:
            hit = 0
            for i, (pattern, data) in enumerate(role_patterns[guid]):
                if _deny_verdict(deny, pattern, data) == _FULL:
                    hit |= 1 << i
            masks[key] = hit
        return hit

    for level, bucket in ix.by_scope.items():
        candidates = _dead_candidates(ix, chain_of(level))
        if not candidates:
            continue
        shapes = frozenset(sid_of[id(d)] for d in candidates)
        for entry in bucket:
            guid = entry.role
            patterns = role_patterns.get(guid)
            if patterns is None:
                role = catalogue.role(guid)
                patterns = role_patterns[guid] = (
                    ()
                    if role is None
                    else tuple(
                        (pattern, data)
                        for perm in role.permissions
                        for data in (False, True)
                        for pattern in perm.patterns(data)
                    )
                )
            if not patterns:
                continue
            pkey = (guid, shapes)
            ok = possible.get(pkey)
            if ok is None:
                covered = 0
                for deny in candidates:
                    covered |= mask(guid, deny)
                ok = possible[pkey] = covered == (1 << len(patterns)) - 1
            if not ok:
                continue
            identities = directory.identities(entry.principal)
            denies = tuple(
                d
                for d in candidates
                if d.applies_to(identities) and not _spares_a_member(ix, d, entry.principal)
            )
            if not denies:
                continue
            vkey = (guid, tuple(id(d) for d in denies))
            if vkey in verdicts:
                blockers = verdicts[vkey]
            else:
                found: list[str] | None = []
                deny_masks = [(d.id, mask(guid, d)) for d in denies]
                for i in range(len(patterns)):
                    bit = 1 << i
                    by = [deny_id for deny_id, m in deny_masks if m & bit]
                    if not by:
                        found = None
                        break
                    assert found is not None
                    found.extend(dict.fromkeys(by))
                blockers = verdicts[vkey] = None if found is None else tuple(dict.fromkeys(found))
            if blockers is None:
                continue
            role = catalogue.role(guid)
            assert role is not None
            results.append(
                DeadGrant(
                    roleAssignmentId=entry.id,
                    principalId=directory.display(entry.principal),
                    scope=entry.record.properties.scope or "/",
                    roleName=role.name,
                    deniedBy=blockers,
                )
            )
    return results


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=snapshots(), data=st.data())
def test_bypassed_and_dead_analyses_equal_the_loops_they_replaced(
    doc: dict[str, Any], data: st.DataObject
) -> None:
    """RBAC-012's analysis, with what depends on the role and condition or on the principal and
    scope found once, and RBAC-013's, with the roles a scope's denies could block found once per
    scope, give the results of the loops they replaced (the same, in the same order); the
    assignments are repeated to make those shared parts meet again."""
    assignments = doc.get("roleAssignments", [])
    if assignments and data.draw(st.booleans()):
        scopes = [ra["properties"]["scope"] for ra in assignments]
        doc = {**doc, "denyAssignments": [_deny_everyone_at(data.draw(st.sampled_from(scopes)))]}
    if assignments and data.draw(st.booleans()):
        again = [
            {**ra, "id": f"{ra['id']}-again", "name": None}
            for ra in data.draw(st.lists(st.sampled_from(assignments), max_size=6))
        ]
        doc = {**doc, "roleAssignments": [*assignments, *again]}
    snapshot = loads_snapshot(json.dumps(doc).encode(), source="generated.json")
    ix = Engine(settings={}, as_of=AS_OF, snapshot=snapshot).context.access().indexes
    assert bypassed_conditions(ix) == _old_bypassed_conditions(ix)
    assert dead_grants(ix) == _old_dead_grants(ix)


def test_bypassed_conditions_met_twice_are_reported_twice() -> None:
    """Two conditioned assignments alike (one role, one condition, one principal and scope) and
    an unconditioned Owner above them: both are bypassed, each with its own finding."""
    owner = "/providers/Cloud.Authorization/roleDefinitions/8e3af657-a8ff-443c-a75c-2fe8c4bcb635"
    reader = "/providers/Cloud.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"
    condition = (
        "((!(ActionMatches{'Cloud.Storage/storageAccounts/read'})) OR "
        "(@Resource[Cloud.Storage/storageAccounts:name] StringEquals 'x'))"
    )
    scope = "/subscriptions/s1/resourceGroups/rg-1"

    def assignment(name: str, role: str, at: str, conditioned: bool) -> dict[str, Any]:
        props: dict[str, Any] = {"roleDefinitionId": role, "principalId": "p1", "scope": at}
        if conditioned:
            props.update(condition=condition, conditionVersion="2.0")
        return {
            "id": f"{at}/providers/Cloud.Authorization/roleAssignments/{name}",
            "properties": props,
        }

    doc = {
        "snapshotVersion": 1,
        "roleAssignments": [
            assignment("c1", reader, scope, True),
            assignment("c2", reader, scope, True),
            assignment("o1", owner, "/subscriptions/s1", False),
        ],
    }
    snapshot = loads_snapshot(json.dumps(doc).encode(), source="s.json")
    ix = Engine(settings={}, as_of=AS_OF, snapshot=snapshot).context.access().indexes
    found = bypassed_conditions(ix)
    assert [b.roleAssignmentId.rsplit("/", 1)[-1] for b in found] == ["c1", "c2"]
    assert found == _old_bypassed_conditions(ix)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=snapshots(), data=st.data())
def test_shown_rows_hold_the_whole_rows_fields_they_name(
    doc: dict[str, Any], data: st.DataObject
) -> None:
    """A row made of the fields a finding reads holds, for every name asked (any case), what the
    whole row holds there, and nothing the whole row does not hold, whether or not the whole
    principal was made first."""
    from auditor.access.views import ASSIGNMENT_FACETS

    snapshot = loads_snapshot(json.dumps(doc).encode(), source="generated.json")
    rows = _access_rows(Engine(settings={}, as_of=AS_OF, snapshot=snapshot).context).assignments
    if not len(rows):
        return
    names = frozenset(
        data.draw(st.lists(st.sampled_from([*ASSIGNMENT_FACETS, "nosuch", "settings.x"])))
    )
    indexes = data.draw(st.lists(st.integers(0, len(rows) - 1), max_size=12))
    if data.draw(st.booleans()):
        rows.row(indexes[0] if indexes else 0)  # a whole principal made first
    for index in indexes:
        whole = rows.row(index)
        shown = rows.shown_row(index, names)
        assert {k: whole[k] for k in shown} == shown
        assert {k for k in whole if k.casefold() in names} <= set(shown)
        assert {"type", "id", "name"} <= set(shown)


_TWISTED = (
    "{RoleName} {principal/displayName} {GUESTS} {nosuch} {Principal/Enabled} {settings.x}",
    ("Principal/Enabled", "guestNames", "/scopeLevel", "conditionProblems"),
)
"""A message and evidence reading row fields in another case, by path, and not at all."""


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=snapshots(), twisted=st.booleans())
def test_findings_from_shown_rows_equal_those_from_whole_rows(
    doc: dict[str, Any], twisted: bool
) -> None:
    """Every finding of every rule, passes included and in order, is the same whether the access
    rows' findings read a row of the fields they name or the whole row; also for rules whose
    message and evidence name fields in another case, by path, or not at all."""
    import dataclasses

    from auditor.audit.runner import AuditOptions, prepare

    prep = prepare(AuditOptions())
    rules = list(prep.rules)
    if twisted:
        message, evidence = _TWISTED
        rules = [
            dataclasses.replace(r, message=message, pass_message=message, evidence=evidence)
            if r.predicate is not None and r.resource_type in resources.VIEW_TYPES
            else r
            for r in rules
        ]
        assert all(_shown_names(r) is not None for r in rules if r.severity_predicates == ())

    def every(whole: bool) -> list[Any]:
        snapshot = loads_snapshot(json.dumps(doc).encode(), source="generated.json")
        with pytest.MonkeyPatch.context() as patch:
            if whole:
                patch.setattr(resources, "_shown_names", lambda _rule: None)
            engine = Engine(settings=prep.settings, as_of=AS_OF, snapshot=snapshot)
            return list(engine.run(rules).findings)

    assert every(False) == every(True)


def test_a_path_naming_no_field_reads_the_whole_row() -> None:
    """A placeholder or evidence path with no member (``{/}``), or a severity that reads the
    row, keeps the whole row."""
    import dataclasses

    from auditor.audit.runner import AuditOptions, prepare

    rule = next(r for r in prepare(AuditOptions()).rules if r.id == "RBAC-004")
    names = _shown_names(rule)
    assert names is not None and {"principalname", "rolename", "scope", "principal"} <= names
    assert _shown_names(dataclasses.replace(rule, evidence=("/",))) is None
    assert _shown_names(dataclasses.replace(rule, message="{ / }")) is None
    severe = dataclasses.replace(rule, severity_predicates=((lambda _doc: True, "low"),))
    assert _shown_names(severe) is None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=snapshots())
def test_verdicts_from_rows_merged_per_facet_equal_each_rows(doc: dict[str, Any]) -> None:
    """Each combination judged on a row merged from its facets' fields (each made once) gives
    the verdicts of every rule judging each whole row one by one."""
    snapshot = loads_snapshot(json.dumps(doc).encode(), source="generated.json")
    engine = Engine(settings={}, as_of=AS_OF, snapshot=snapshot)
    rows = _access_rows(engine.context).assignments
    for rule in _view_rules(engine):
        applies = rule.applies_to or (lambda _doc: True)
        assert resources._verdicts(rule, rows, rule.predicate, applies) == _one_by_one(rule, rows)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=snapshots(), keys_first=st.booleans())
def test_condition_codes_found_sparsely_name_each_assignments_key(
    doc: dict[str, Any], keys_first: bool
) -> None:
    """The condition facet's codes, set only where an assignment has a condition or a version,
    name each assignment's key of the column, whether the facet's keys were listed before or
    not; every key is listed once."""
    from auditor.access import AssignmentRows

    snapshot = loads_snapshot(json.dumps(doc).encode(), source="generated.json")
    engine = Engine(settings={}, as_of=AS_OF, snapshot=snapshot).context.access()
    rows = AssignmentRows(engine, bool(snapshot.principals))
    column = list(rows.column("condition"))
    if keys_first:
        rows._distinct("condition")
    codes, keys = rows.facet_codes("condition")
    assert [keys[code] for code in codes] == column
    assert len(keys) == len(set(keys)) == len(set(column))


_LEAVES = st.none() | st.booleans() | st.integers(-3, 3) | st.text("ab", max_size=9)
_NESTED = st.recursive(
    _LEAVES,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text("xy", max_size=2), inner, max_size=5)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(
    shared=st.lists(_NESTED, min_size=1, max_size=4),
    picks=st.lists(
        st.dictionaries(st.text("kv", max_size=3), st.integers(0, 7) | _LEAVES, max_size=6),
        min_size=1,
        max_size=5,
    ),
)
def test_evidence_bounded_with_shared_sizes_equals_the_walk_of_each(
    shared: list[Any], picks: list[dict[str, Any]]
) -> None:
    """Evidence whose list and object values are shared by several findings, each measured once
    (``sizes``), is bounded as when each evidence is walked whole, at bounds made small enough to
    be met (items, characters of one string, values and characters in all)."""
    from auditor.audit import limits

    with pytest.MonkeyPatch.context() as patch:
        for name, small in (
            ("MAX_ITEMS", 3),
            ("MAX_CHARS", 8),
            ("MAX_EVIDENCE_VALUES", 14),
            ("MAX_EVIDENCE_CHARS", 30),
        ):
            patch.setattr(limits, name, small)
        sizes: dict[int, Any] = {}
        for pick in picks:
            # an integer below len(shared) stands for that shared value (the same object)
            evidence = {
                k: shared[v] if type(v) is int and 0 <= v < len(shared) else v
                for k, v in pick.items()
            }
            assert limits._within_shared(evidence, sizes) == limits._within(evidence)
            assert limits.bound_evidence(evidence, (), sizes) == limits.bound_evidence(evidence)


@pytest.mark.parametrize("items", [10, 11, 12])
def test_shared_sizes_count_the_evidence_itself_as_the_walk_does(items: int) -> None:
    """At the bound on values in all (the evidence object, each list, each entry), measured
    sizes agree with the walk: one value under it is within, at it is not."""
    from auditor.audit import limits

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(limits, "MAX_EVIDENCE_VALUES", 13)
        evidence = {"a": list(range(items)), "b": 1}  # 1 + (1 + items) + 1 values
        assert limits._within_shared(evidence, {}) == limits._within(evidence) == (items < 10)


def _privileged_one_by_one(ix: Any) -> list[Any]:
    """The reports' privileged holders as listed before each assignment's fields were found once
    (the oracle)."""
    from auditor.access import PRIVILEGED_ROLES
    from auditor.access.scopes import ScopeTree
    from auditor.audit.findings import Privileged

    out = []
    subs = sorted(
        {s for s in (ScopeTree.subscription_of(k) for k in ix.scopes.known()) if s is not None}
    )
    for sub in subs:
        for level in ix.scopes.chain(sub):
            for entry in ix.by_scope.get(level, ()):
                if entry.role not in PRIVILEGED_ROLES:
                    continue
                record = ix.directory.entry(entry.principal)
                out.append(
                    Privileged(
                        subscription=ix.scopes.display(sub),
                        principalId=ix.directory.display(entry.principal),
                        displayName=ix.directory.name(entry.principal),
                        principalType=(record.type if record is not None and record.type else None)
                        or entry.record.properties.principalType
                        or "User",
                        role=ix.catalogue.name(entry.role),
                    )
                )
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=snapshots())
def test_privileged_holders_listed_as_one_by_one(doc: dict[str, Any]) -> None:
    """The access summary's privileged holders, each assignment's fields found once, are those
    listed one by one (the same, in the same order)."""
    from auditor.audit.runner import AuditOptions, access_summary, prepare

    snapshot = loads_snapshot(json.dumps(doc).encode(), source="generated.json")
    prep = prepare(AuditOptions())
    engine = Engine(settings=prep.settings, as_of=AS_OF, snapshot=snapshot)
    evaluation = engine.run([r for r in prep.rules if r.id == "RBAC-001"])
    ix = engine.context.access().indexes
    assert access_summary(evaluation).privileged == _privileged_one_by_one(ix)


def _old_estate_names(
    snapshot: Any,
    resource_ids: Iterable[str] = (),
    *,
    located: Iterable[tuple[str, str | None]] = (),
) -> dict[str, str]:
    """The names as found before (the oracle)."""
    from auditor.estate.roles import role_catalogue, role_guid

    names: dict[str, str] = {}
    for entry in snapshot.hierarchy:
        if entry.displayName:
            names[entry.id.lower()] = entry.displayName
    for role in snapshot.roleDefinitions:
        if role.id and role.properties is not None and role.properties.roleName:
            names[role.id.lower()] = role.properties.roleName
    roles = {
        key: role.properties.roleName
        for key, role in role_catalogue(snapshot.roleDefinitions).items()
        if role.properties is not None and role.properties.roleName
    }
    given = {rid for rid in resource_ids if _ASSIGNMENT in rid.lower()}
    wanted = {rid.lower() for rid in given}
    assignments: dict[str, tuple[str, str]] = {}
    if wanted:
        records = snapshot.roleAssignments
        found = []
        for rid, location in located:
            if location is None or not location.startswith(_AT) or rid not in given:
                continue
            index = location[len(_AT) : -1]
            if index.isdigit() and int(index) < len(records):
                record = records[int(index)]
                if record.id == rid:
                    found.append(record)
        rest = given.difference(ra.id for ra in found)
        if rest:
            # the ids findings show are the records' own: matched as given, in C; ids are
            # distinct without case (merged on load), so this finds what a case-insensitive
            # pass would
            more = list(compress(records, map(rest.__contains__, map(_ID, records))))
            lowered = {rid.lower() for rid in rest}
            if {ra.id.lower() for ra in more} != lowered:  # an id given in another case
                more = [ra for ra in records if ra.id.lower() in lowered]
            found.extend(more)
        for ra in found:
            props = ra.properties
            assignments[ra.id.lower()] = (
                props.principalId.lower(),
                role_guid(props.roleDefinitionId),
            )
    people: dict[str, str] = {}
    for principal in snapshot.principals:
        if principal.displayName:
            people[principal.id.lower()] = principal.displayName
    for key, (principal_id, role_id) in assignments.items():
        who = people.get(principal_id)
        what = roles.get(role_id)
        if who or what:
            names[key] = f"{who or principal_id} as {what or role_id}"
    names.update(people)
    names.update(roles)
    return names


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=snapshots())
def test_names_equal_those_found_before(doc: dict[str, Any]) -> None:
    """The reports' names (each role's GUID found once per definition id) are those found before,
    in the same order, for the findings of a whole run."""
    from auditor.audit.names import estate_names
    from auditor.audit.runner import AuditOptions, audit_snapshot

    snapshot = loads_snapshot(json.dumps(doc).encode(), source="generated.json")
    judged = audit_snapshot(snapshot, AuditOptions()).judged
    ids = [f.resourceId for f in judged]
    located = [(f.resourceId, f.location) for f in judged]
    got = estate_names(snapshot, ids, located=located)
    expected = _old_estate_names(snapshot, ids, located=located)
    assert list(got.items()) == list(expected.items())
