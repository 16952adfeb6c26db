"""The compact in-memory form of the snapshot's bulk sections.

A large estate holds about a million role assignments. Pydantic wire models cost ~25 us and ~4 KB each
to build; these ``msgspec`` Structs (slots, no GC tracking, decoded straight from JSON bytes) cost ~2 us
and a few hundred bytes, and after :func:`intern_strings` the repeated strings (scopes, role ids,
principal ids, types) are shared. Field names are the wire names, so the filter engine and the rules read
a record exactly like the wire JSON. The wire models in :mod:`auditor.model.access` stay the schema of
the wire; ``tests/test_estate_records.py`` pins that both carry the same fields.
"""

from __future__ import annotations

import sys
from typing import Any

import msgspec

_intern = sys.intern


class _Record(
    msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True, gc=False, kw_only=True
):
    """Base: unknown fields are refused by the fast decoder (the loader then takes the slow path
    that keeps them), defaults are omitted when dumping, instances are not GC-tracked."""


class PrincipalRecord(_Record):
    id: str | None = None
    type: str | None = None
    displayName: str | None = None
    email: str | None = None


class DenyPermissionRecord(_Record):
    actions: list[str] = []
    notActions: list[str] = []
    dataActions: list[str] = []
    notDataActions: list[str] = []
    condition: str | None = None
    conditionVersion: str | None = None


class DenyAssignmentPropertiesRecord(_Record):
    denyAssignmentName: str | None = None
    description: str | None = None
    scope: str | None = None
    doNotApplyToChildScopes: bool | None = None
    permissions: list[DenyPermissionRecord] = []
    principals: list[PrincipalRecord] = []
    excludePrincipals: list[PrincipalRecord] = []
    isSystemProtected: bool | None = None
    condition: str | None = None
    conditionVersion: str | None = None
    createdBy: str | None = None
    createdOn: str | None = None
    updatedBy: str | None = None
    updatedOn: str | None = None


class DenyAssignmentRecord(_Record):
    id: str | None = None
    name: str | None = None
    type: str | None = None
    properties: DenyAssignmentPropertiesRecord = msgspec.field(
        default_factory=DenyAssignmentPropertiesRecord
    )


class RoleAssignmentPropertiesRecord(_Record):
    roleDefinitionId: str | None = None
    principalId: str | None = None
    principalType: str | None = None
    scope: str | None = None
    description: str | None = None
    condition: str | None = None
    conditionVersion: str | None = None
    delegatedManagedIdentityResourceId: str | None = None
    createdBy: str | None = None
    createdOn: str | None = None
    updatedBy: str | None = None
    updatedOn: str | None = None


class RoleAssignmentRecord(_Record):
    id: str | None = None
    name: str | None = None
    type: str | None = None
    properties: RoleAssignmentPropertiesRecord = msgspec.field(
        default_factory=RoleAssignmentPropertiesRecord
    )


class DirectoryPrincipalRecord(_Record):
    """A principal of the snapshot's directory (contracts section 2, ``principals``)."""

    id: str | None = None
    type: str | None = None
    displayName: str | None = None
    email: str | None = None
    userType: str | None = None
    accountEnabled: bool | None = None
    memberOf: list[str] = []


class HierarchyRecord(_Record):
    """A management group or subscription and its parent scope (contracts section 2)."""

    id: str | None = None
    parent: str | None = None
    displayName: str | None = None


BULK_SECTIONS: dict[str, type[_Record]] = {
    "hierarchy": HierarchyRecord,
    "principals": DirectoryPrincipalRecord,
    "roleAssignments": RoleAssignmentRecord,
    "denyAssignments": DenyAssignmentRecord,
}
"""The snapshot sections kept as records, by wire key."""


def intern_strings(section: str, records: list[Any]) -> None:
    """Share the repeated strings of a freshly decoded section (in place)."""
    if section == "roleAssignments":
        for ra in records:
            ra.type = _intern_opt(ra.type)
            p = ra.properties
            p.roleDefinitionId = _intern_opt(p.roleDefinitionId)
            p.principalId = _intern_opt(p.principalId)
            p.principalType = _intern_opt(p.principalType)
            p.scope = _intern_opt(p.scope)
            p.createdBy = _intern_opt(p.createdBy)
            p.updatedBy = _intern_opt(p.updatedBy)
            p.createdOn = _intern_opt(p.createdOn)
            p.updatedOn = _intern_opt(p.updatedOn)
    elif section == "denyAssignments":
        for da in records:
            da.type = _intern_opt(da.type)
            da.properties.scope = _intern_opt(da.properties.scope)
    elif section == "principals":
        for pr in records:
            pr.type = _intern_opt(pr.type)
            pr.userType = _intern_opt(pr.userType)
            pr.memberOf = [_intern(g) for g in pr.memberOf]


def _intern_opt(value: str | None) -> str | None:
    return None if value is None else _intern(value)


_REQUIRED: dict[str, tuple[tuple[str, ...], ...]] = {
    "hierarchy": (("id",),),
    "principals": (("id",),),
    "roleAssignments": (
        ("id",),
        ("properties", "scope"),
        ("properties", "roleDefinitionId"),
        ("properties", "principalId"),
    ),
    "denyAssignments": (("id",), ("properties", "scope")),
}


def finish_section(section: str, records: list[Any]) -> tuple[int, str] | None:
    """Check the fields the engines cannot do without, then share repeated strings.

    Returns ``(index, path)`` of the first record missing a required field, or None when all is well.
    """
    required = _REQUIRED.get(section, ())
    for index, record in enumerate(records):
        for path in required:
            node: Any = record
            for part in path:
                node = getattr(node, part)
            if node is None:
                return index, ".".join(path)
    intern_strings(section, records)
    return None
