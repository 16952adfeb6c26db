"""The compact records carry exactly the fields of the wire models they stand for."""

from __future__ import annotations

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


def test_finish_section_interns_and_checks_required_fields() -> None:
    recs = [msgspec.convert(_ra(), records.RoleAssignmentRecord) for _ in range(2)]
    assert records.finish_section("roleAssignments", recs) is None
    assert recs[0].properties.scope is recs[1].properties.scope
    missing = [
        msgspec.convert({"id": "x", "properties": {"scope": "/"}}, records.RoleAssignmentRecord)
    ]
    assert records.finish_section("roleAssignments", missing) == (0, "properties.roleDefinitionId")
