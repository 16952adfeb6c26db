"""The access rows' memory and time savings change no verdict (issue 23): lists and objects read by
a rule share a key when equal (so a million assignments to principals without guests are judged
once), the rows' keys and facets are dropped once no rule left reads them (and made again when
read), and the report's names find role assignments by their ids as given or in another case."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from hypothesis import HealthCheck, given, settings

from auditor.audit.engine import Engine
from auditor.audit.names import estate_names
from auditor.audit.packs import bind_rule, shipped_catalogue
from auditor.audit.resources import (
    VIEW_TYPES,
    _access_rows,
    _verdicts,
    release_access_rows,
)
from auditor.estate.roles import OWNER
from auditor.estate.snapshot import Snapshot, loads_snapshot
from tests.test_rules_as_data import SA, snapshots

AS_OF = dt.date(2026, 11, 21)


def _view_rules(engine: Engine) -> list[Any]:
    settings_ = engine.context.settings
    return [
        bind_rule(r, settings_, AS_OF)
        for r in shipped_catalogue().rules
        if r.predicate is not None and r.resource_type in VIEW_TYPES
    ]


def _one_by_one(rule: Any, rows: Any) -> tuple[list[int], list[int]]:
    applies = rule.applies_to or (lambda _doc: True)
    passed: list[int] = []
    failed: list[int] = []
    for index in range(len(rows)):
        row = rows.row(index)
        if applies(row):
            (passed if rule.predicate(row) else failed).append(index)
    return passed, failed


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=snapshots())
def test_verdicts_by_shared_keys_and_after_release_agree_with_each_row(doc: dict[str, Any]) -> None:
    snapshot = loads_snapshot(json.dumps(doc).encode(), source="generated.json")
    engine = Engine(settings={}, as_of=AS_OF, snapshot=snapshot)
    rows = _access_rows(engine.context).assignments
    whole = [rows.row(i) for i in range(len(rows))]
    for rule in _view_rules(engine):
        applies = rule.applies_to or (lambda _doc: True)
        expected = _one_by_one(rule, rows)
        assert _verdicts(rule, rows, rule.predicate, applies) == expected, rule.id
        rows.keep(())  # every key and facet dropped: made again when read
        assert _verdicts(rule, rows, rule.predicate, applies) == expected, rule.id
    rows.keep(())
    assert [rows.row(i) for i in range(len(rows))] == whole


def _estate(principals: list[dict[str, Any]], holders: list[str]) -> Snapshot:
    doc = {
        "snapshotVersion": 1,
        "principals": principals,
        "roleAssignments": [
            {
                "id": f"{SA}/providers/Cloud.Authorization/roleAssignments/RA{i}",
                "name": f"RA{i}",
                "properties": {
                    "roleDefinitionId": f"/providers/Cloud.Authorization/roleDefinitions/{OWNER}",
                    "principalId": holder,
                    "scope": SA,
                },
            }
            for i, holder in enumerate(holders)
        ],
    }
    return loads_snapshot(json.dumps(doc).encode(), source="s.json")


PRINCIPALS = [
    {"id": "g1", "type": "Group", "displayName": "Group 1"},
    {"id": "u1", "type": "User", "displayName": "User 1"},
    {"id": "u2", "type": "User", "displayName": "User 2"},
    {"id": "x1", "type": "User", "displayName": "Guest", "userType": "Guest", "memberOf": ["g1"]},
]


def test_a_list_read_gives_one_key_to_principals_with_the_same_list() -> None:
    snapshot = _estate(PRINCIPALS, ["u1", "u2", "g1", "u1"])
    rows = _access_rows(Engine(settings={}, as_of=AS_OF, snapshot=snapshot).context).assignments
    keys = rows.key_column("guests")
    assert keys is not None
    assert keys[0] == keys[1] == keys[3]  # no guests: one key, judged once
    assert keys[2] != keys[0]  # the group a guest belongs to
    assert rows.row(2)["guests"][0]["id"] == "x1"


def test_release_drops_what_no_rule_left_reads_and_all_when_none_is_left() -> None:
    snapshot = _estate(PRINCIPALS, ["u1", "g1"])
    engine = Engine(settings={}, as_of=AS_OF, snapshot=snapshot)
    ctx = engine.context
    rows = _access_rows(ctx).assignments
    before = [rows.row(i) for i in range(len(rows))]
    assert rows.key_column("guests") is not None and rows.key_column("roleName") is not None
    by_id = {r.id: r for r in _view_rules(engine)}
    release_access_rows(ctx, [by_id["RBAC-011"]])  # condition fields only
    assert "guests" not in rows._paths and "rolename" not in rows._paths
    assert "principal" not in rows._columns and "role" not in rows._columns
    assert [rows.row(i) for i in range(len(rows))] == before  # made again when read
    release_access_rows(ctx, [])
    assert "transient:accessRows" not in ctx.cache


def test_names_find_role_assignments_by_id_as_given_and_in_another_case() -> None:
    snapshot = _estate(PRINCIPALS, ["u1", "u2"])
    ra0 = snapshot.roleAssignments[0].id
    ra1 = snapshot.roleAssignments[1].id
    assert ra0 is not None and ra1 is not None
    names = estate_names(snapshot, [ra0])
    assert names[ra0.lower()] == "User 1 as Owner"
    assert ra1.lower() not in names
    names = estate_names(snapshot, [ra0, ra1.upper()])
    assert names[ra0.lower()] == "User 1 as Owner"
    assert names[ra1.lower()] == "User 2 as Owner"


def test_a_run_within_a_budget_releases_rows_and_gives_the_same_findings() -> None:
    import io

    from auditor.audit.budget import Budget
    from auditor.audit.runner import AuditOptions, audit_snapshot
    from auditor.estate.generate import generate_estate

    buffer = io.BytesIO()
    generate_estate(1_500, seed=5, principals=200, deny_assignments=10, out=buffer, progress=False)
    snapshot = loads_snapshot(buffer.getvalue(), source="generated")
    options = {"as_of": dt.date(2026, 11, 21), "use_config": False}
    free = audit_snapshot(snapshot, AuditOptions(**options))
    budgeted = audit_snapshot(
        snapshot,
        AuditOptions(**options, budget=Budget(max_seconds=600, max_memory_mb=100_000)),
    )
    assert not budgeted.incomplete and budgeted.exit_code == free.exit_code
    assert [f.to_json() for f in budgeted.findings] == [f.to_json() for f in free.findings]
