"""The compact records carry exactly the fields of the wire models they stand for."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from pydantic import BaseModel

from auditor.estate import records
from auditor.model import access
from auditor.model.snapshot import DirectoryPrincipal, HierarchyEntry

PAIRS: list[tuple[type[msgspec.Struct], type[BaseModel]]] = [
    (records.PrincipalRecord, access.Principal),
    (records.DenyPermissionRecord, access.DenyAssignmentPermission),
    (records.DenyAssignmentPropertiesRecord, access.DenyAssignmentProperties),
    (records.DenyAssignmentRecord, access.DenyAssignment),
    (records.RoleAssignmentPropertiesRecord, access.RoleAssignmentProperties),
    (records.RoleAssignmentRecord, access.RoleAssignment),
    (records.DirectoryPrincipalRecord, DirectoryPrincipal),
    (records.HierarchyRecord, HierarchyEntry),
]


@pytest.mark.parametrize(("record", "model"), PAIRS, ids=lambda c: c.__name__)
def test_record_fields_match_wire_model(
    record: type[msgspec.Struct], model: type[BaseModel]
) -> None:
    record_fields = {f.encode_name for f in msgspec.structs.fields(record)}
    assert record_fields == set(model.model_fields)


def _ra(**props: Any) -> dict[str, Any]:
    base = {"scope": "/subscriptions/s", "roleDefinitionId": "r", "principalId": "p"}
    return {"id": "/subscriptions/s/x", "properties": {**base, **props}}


def test_record_and_model_agree_on_a_full_assignment() -> None:
    doc = _ra(principalType="User", condition="c", conditionVersion="2.0", createdOn="2024-01-01")
    rec = msgspec.convert(doc, records.RoleAssignmentRecord)
    model = access.RoleAssignment.model_validate(doc)
    assert msgspec.to_builtins(rec) == model.to_wire()


def test_intern_strings_shares_repeated_values() -> None:
    data = json.dumps([_ra(), _ra()]).encode()
    recs = msgspec.json.decode(data, type=list[records.RoleAssignmentRecord])
    assert recs[0].properties.scope is not recs[1].properties.scope
    records.intern_strings("roleAssignments", recs)
    assert recs[0].properties.scope is recs[1].properties.scope
    assert recs[0].properties.principalId is recs[1].properties.principalId


def test_a_loaded_snapshot_shares_repeated_values_in_every_bulk_section() -> None:
    from auditor.estate.snapshot import loads_snapshot

    principal = {"id": "u1", "type": "User", "userType": "Member", "memberOf": ["g1"]}
    deny = {
        "id": "/subscriptions/s/d",
        "type": "Cloud.Authorization/denyAssignments",
        "properties": {"scope": "/subscriptions/s", "permissions": [], "principals": []},
    }
    doc = {
        "principals": [principal, {**principal, "id": "u2"}],
        "roleAssignments": [_ra(createdBy="admin"), {**_ra(createdBy="admin"), "id": "/s/y"}],
        "denyAssignments": [deny, {**deny, "id": "/subscriptions/s/d2"}],
    }
    snapshot = loads_snapshot(json.dumps(doc).encode())
    first, second = (ra.properties for ra in snapshot.roleAssignments)
    assert first.scope is second.scope and first.principalId is second.principalId
    assert first.roleDefinitionId is second.roleDefinitionId
    assert first.createdBy is second.createdBy
    one, two = snapshot.principals
    assert one.type is two.type and one.memberOf[0] is two.memberOf[0]
    d1, d2 = snapshot.denyAssignments
    assert d1.properties.scope is d2.properties.scope and d1.type is d2.type


@pytest.mark.parametrize(
    ("doc", "missing"),
    [
        ({"properties": {"scope": "/", "roleDefinitionId": "r", "principalId": "p"}}, "id"),
        ({"id": "x"}, "properties"),
        ({"id": "x", "properties": {"scope": "/", "principalId": "p"}}, "roleDefinitionId"),
        ({"id": "x", "properties": {"roleDefinitionId": "r", "principalId": "p"}}, "scope"),
    ],
)
def test_fields_the_engines_need_are_required(doc: dict[str, Any], missing: str) -> None:
    with pytest.raises(msgspec.ValidationError, match=f"missing required field `{missing}`"):
        msgspec.convert(doc, records.RoleAssignmentRecord)
