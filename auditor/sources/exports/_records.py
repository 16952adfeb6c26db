"""Records of the bulk sections from exported items: the vendor CLI's role assignment rows, the
decoders of the fast paths, unknown fields kept (those with secret-looking names dropped), and the
snapshot loader's message for a record it refuses, placed where the record came from."""

from __future__ import annotations

from typing import Any

import msgspec

from auditor.errors import InputError
from auditor.estate.records import (
    BULK_SECTIONS,
    RoleAssignmentPropertiesRecord,
    RoleAssignmentRecord,
)
from auditor.model.unknown_fields import drop_from_unknown, is_secret_looking_name
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


def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """The JSON path of the first place where ``a`` and ``b`` differ (only paths, never values)."""
    if type(a) is not type(b):
        return path or "the entry"
    if isinstance(a, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if not path and key == "id":
                continue
            where = f"{path}.{key}" if path else str(key)
            if key not in a or key not in b:
                return where
            found = first_difference(a[key], b[key], where)
            if found is not None:
                return found
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found is not None:
                return found
        return (path or "the entry") if len(a) != len(b) else None
    return (path or "the entry") if a != b else None


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


def _struct_type(annotation: Any) -> type[Any] | None:
    if isinstance(annotation, type) and issubclass(annotation, msgspec.Struct):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _struct_type(arg)
        if found is not None:
            return found
    return None


def known_fields(value: Any, cls: type[Any]) -> tuple[Any, bool]:
    """``value`` with only the fields the record type knows, and whether it had others."""
    if not isinstance(value, dict):
        return value, False
    fields = {f.encode_name: f for f in msgspec.structs.fields(cls)}
    out: dict[str, Any] = {}
    unknown = False
    for k, v in value.items():
        f = fields.get(k)
        if f is None:
            unknown = True
            continue
        inner = _struct_type(f.type)
        if inner is not None and isinstance(v, dict):
            v, u = known_fields(v, inner)
            unknown |= u
        elif inner is not None and isinstance(v, list):
            parts = [known_fields(x, inner) for x in v]
            v = [p[0] for p in parts]
            unknown |= any(p[1] for p in parts)
        out[k] = v
    return out, unknown


def drop_secret_looking(value: Any, cls: type[Any], path: str, dropped: list[str]) -> None:
    """Drop, in place, the unknown fields with secret-looking names (at any depth)."""
    if not isinstance(value, dict):
        return
    fields = {f.encode_name: f for f in msgspec.structs.fields(cls)}
    for k in list(value):
        where = f"{path}.{k}" if path else k
        f = fields.get(k)
        if f is None:
            if is_secret_looking_name(k):
                del value[k]
                dropped.append(where)
            else:
                drop_from_unknown(value[k], where, dropped)
            continue
        inner = _struct_type(f.type)
        v = value[k]
        if inner is not None and isinstance(v, dict):
            drop_secret_looking(v, inner, where, dropped)
        elif inner is not None and isinstance(v, list):
            for i, x in enumerate(v):
                drop_secret_looking(x, inner, f"{where}[{i}]", dropped)
