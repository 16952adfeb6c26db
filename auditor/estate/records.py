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
from collections.abc import Callable
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


class DenyAssignmentPropertiesRecord(_Record, kw_only=True):
    denyAssignmentName: str | None = None
    description: str | None = None
    scope: str
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


class DenyAssignmentRecord(_Record, kw_only=True):
    id: str
    name: str | None = None
    type: str | None = None
    properties: DenyAssignmentPropertiesRecord


class RoleAssignmentPropertiesRecord(_Record, kw_only=True):
    roleDefinitionId: str
    principalId: str
    principalType: str | None = None
    scope: str
    description: str | None = None
    condition: str | None = None
    conditionVersion: str | None = None
    delegatedManagedIdentityResourceId: str | None = None
    createdBy: str | None = None
    createdOn: str | None = None
    updatedBy: str | None = None
    updatedOn: str | None = None


class RoleAssignmentRecord(_Record, kw_only=True):
    id: str
    name: str | None = None
    type: str | None = None
    properties: RoleAssignmentPropertiesRecord


class DirectoryPrincipalRecord(_Record):
    """A principal of the snapshot's directory (contracts section 2, ``principals``)."""

    id: str
    type: str | None = None
    displayName: str | None = None
    email: str | None = None
    userType: str | None = None
    accountEnabled: bool | None = None
    memberOf: list[str] = []


class HierarchyRecord(_Record):
    """A management group or subscription and its parent scope (contracts section 2)."""

    id: str
    parent: str | None = None
    displayName: str | None = None


BULK_SECTIONS: dict[str, type[_Record]] = {
    "hierarchy": HierarchyRecord,
    "principals": DirectoryPrincipalRecord,
    "roleAssignments": RoleAssignmentRecord,
    "denyAssignments": DenyAssignmentRecord,
}
"""The snapshot sections kept as records, by wire key."""


def _share_role_assignment(ra: Any) -> None:
    intern = _intern
    if ra.type is not None:
        ra.type = intern(ra.type)
    p = ra.properties
    p.roleDefinitionId = intern(p.roleDefinitionId)
    p.principalId = intern(p.principalId)
    p.scope = intern(p.scope)
    if p.principalType is not None:
        p.principalType = intern(p.principalType)
    if p.createdBy is not None:
        p.createdBy = intern(p.createdBy)
    if p.updatedBy is not None:
        p.updatedBy = intern(p.updatedBy)


def _share_deny_assignment(da: Any) -> None:
    if da.type is not None:
        da.type = _intern(da.type)
    da.properties.scope = _intern(da.properties.scope)


def _share_principal(pr: Any) -> None:
    intern = _intern
    if pr.type is not None:
        pr.type = intern(pr.type)
    if pr.userType is not None:
        pr.userType = intern(pr.userType)
    pr.memberOf = [intern(g) for g in pr.memberOf]


_SHARERS: dict[str, Callable[[Any], None]] = {
    "roleAssignments": _share_role_assignment,
    "denyAssignments": _share_deny_assignment,
    "principals": _share_principal,
}


def string_sharer(section: str) -> Callable[[Any], None] | None:
    """The function that shares the repeated strings of one freshly decoded record of
    ``section`` (in place), or None when the section has none worth sharing.

    Only the fields that repeat across many records are shared (types, scopes, role and principal
    ids, creators); timestamps and ids are mostly unique and left alone. Sharing each record as
    soon as it is decoded, while it is still in the processor's caches, costs about half as much
    as a second pass over a million records.
    """
    return _SHARERS.get(section)


def intern_strings(section: str, records: list[Any]) -> None:
    """Share the repeated strings of freshly decoded records (in place); see
    :func:`string_sharer`."""
    share = _SHARERS.get(section)
    if share is not None:
        for record in records:
            share(record)
