"""Records of the bulk sections from exported items: the vendor CLI's role assignment rows, the
decoders of the fast paths, and the snapshot loader's message for a record it refuses, placed where
the record came from (unknown fields are kept and secret-looking ones dropped by the snapshot
loader's own :func:`~auditor.estate.known_fields` and :func:`~auditor.estate.drop_secret_looking`)."""

from __future__ import annotations

from typing import Any

import msgspec

from auditor.errors import InputError
from auditor.estate.records import (
    BULK_SECTIONS,
    RoleAssignmentPropertiesRecord,
    RoleAssignmentRecord,
)
from auditor.sources.exports._provenance import Origin
from auditor.sources.exports._shapes import DirectoryObject


class CliRoleAssignment(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A row of ``az role assignment list`` (its properties at the top level)."""

    id: str
    roleDefinitionId: str
    principalId: str
    scope: str
    name: str | None = None
    type: str | None = None
    principalType: str | None = None
    description: str | None = None
    condition: str | None = None
    conditionVersion: str | None = None
    delegatedManagedIdentityResourceId: str | None = None
    createdBy: str | None = None
    createdOn: str | None = None
    updatedBy: str | None = None
    updatedOn: str | None = None
    principalName: str | None = None
    roleDefinitionName: str | None = None
    resourceGroup: str | None = None
    canDelegate: bool | None = None


FAST_TYPES: dict[str, Any] = {
    "roleAssignments": BULK_SECTIONS["roleAssignments"],
    "denyAssignments": BULK_SECTIONS["denyAssignments"],
    "cli-roleAssignments": CliRoleAssignment,
    "principals": DirectoryObject,
}
"""The record type each fast run decodes into (``Run.fast``)."""
DECODERS = {fast: msgspec.json.Decoder(t) for fast, t in FAST_TYPES.items()}


def from_cli(row: CliRoleAssignment) -> RoleAssignmentRecord:
    return RoleAssignmentRecord(
        id=row.id,
        name=row.name,
        type=row.type,
        properties=RoleAssignmentPropertiesRecord(
            roleDefinitionId=row.roleDefinitionId,
            principalId=row.principalId,
            principalType=row.principalType,
            scope=row.scope,
            description=row.description,
            condition=row.condition,
            conditionVersion=row.conditionVersion,
            delegatedManagedIdentityResourceId=row.delegatedManagedIdentityResourceId,
            createdBy=row.createdBy,
            createdOn=row.createdOn,
            updatedBy=row.updatedBy,
            updatedOn=row.updatedOn,
        ),
    )


def same_record(a: Any, b: Any, pa: Any, pb: Any) -> bool:
    if a != b and (a.id == b.id or msgspec.structs.replace(b, id=a.id) != a):
        return False
    if pa is None or pb is None:
        return pa is None and pb is None
    return bool({**pb, "id": pa.get("id")} == pa)


def record_error(section: str, doc: dict[str, Any], origin: Origin) -> InputError:
    """The snapshot loader's message for a record it refuses, at the record's origin."""
    from auditor.estate.snapshot import loads_snapshot

    prefix = f"{section}[0]"
    try:
        loads_snapshot(msgspec.json.encode({section: [doc]}), source=origin.file)
    except InputError as exc:
        location = exc.location or ""
        if location.startswith(prefix):
            location = origin.path + location[len(prefix) :]
        return InputError(exc.detail, source=origin.file, location=location or origin.path)
    return InputError(
        f"cannot read this {section} record", source=origin.file, location=origin.path
    )
