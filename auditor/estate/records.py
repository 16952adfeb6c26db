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
from collections.abc import Callable, Iterable
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


def _role_assignment_sharer() -> Callable[[Iterable[Any]], None]:
    """The sharer of role assignments, a batch at a time (see :func:`batch_sharer`).

    A snapshot lists a scope's assignments together and names few types and roles, so a value
    equal to the previous record's is taken from it (a comparison, where a lookup hashes the
    string first); other values are shared through small tables of their own, one per field,
    that stay in the processor's caches (:func:`sys.intern`'s table holds every interned string
    of the process). Principal ids, as many as the estate's principals, are interned: the index's
    key of an id written in lower case is then the very string the records hold."""
    types: dict[str, str] = {}
    scopes: dict[str, str] = {}
    roles: dict[str, str] = {}
    kinds: dict[str, str] = {}
    people: dict[str, str] = {}
    last = ["", "", "", ""]  # the previous record's type, scope, role and principal type

    def share(records: Iterable[Any]) -> None:
        type_, scope, role, kind = last
        one_type, one_scope, one_role = types.setdefault, scopes.setdefault, roles.setdefault
        one_kind, one_person, intern = kinds.setdefault, people.setdefault, _intern
        for ra in records:
            value = ra.type
            if value is not None:
                ra.type = type_ if value == type_ else (type_ := one_type(value, value))
            p = ra.properties
            value = p.scope
            p.scope = scope if value == scope else (scope := one_scope(value, value))
            value = p.roleDefinitionId
            p.roleDefinitionId = role if value == role else (role := one_role(value, value))
            p.principalId = intern(p.principalId)
            value = p.principalType
            if value is not None:
                p.principalType = kind if value == kind else (kind := one_kind(value, value))
            created = p.createdBy
            if created is not None:
                p.createdBy = created = one_person(created, created)
            value = p.updatedBy
            if value is not None:
                p.updatedBy = created if value == created else one_person(value, value)
            value = p.updatedOn
            if value is not None:
                created = p.createdOn
                if value == created:
                    p.updatedOn = created  # never updated: one string for both (70 MB a million)
        last[:] = type_, scope, role, kind

    return share


def _share_deny_assignment(da: Any) -> None:
    if da.type is not None:
        da.type = _intern(da.type)
    da.properties.scope = _intern(da.properties.scope)


def _principal_sharer() -> Callable[[Iterable[Any]], None]:
    """The sharer of the directory's principals, a batch at a time: types and user types (a few
    values, often the previous record's) and group ids are interned."""
    last = ["", ""]  # the previous record's type and user type

    def share(records: Iterable[Any]) -> None:
        kind, user = last
        intern = _intern
        for pr in records:
            value = pr.type
            if value is not None:
                pr.type = kind if value == kind else (kind := intern(value))
            value = pr.userType
            if value is not None:
                pr.userType = user if value == user else (user := intern(value))
            groups = pr.memberOf
            if groups:
                pr.memberOf = list(map(intern, groups))
        last[:] = kind, user

    return share


def _each(share: Callable[[Any], None]) -> Callable[[Iterable[Any]], None]:
    def share_all(records: Iterable[Any]) -> None:
        for record in records:
            share(record)

    return share_all


_SHARERS: dict[str, Callable[[], Callable[[Iterable[Any]], None]]] = {
    "roleAssignments": _role_assignment_sharer,
    "denyAssignments": lambda: _each(_share_deny_assignment),
    "principals": _principal_sharer,
}


def batch_sharer(section: str) -> Callable[[Iterable[Any]], None] | None:
    """A function that shares the repeated strings of freshly decoded records of ``section``, a
    batch at a time (in place; one function per load: it may remember the records before), or
    None when the section has none worth sharing.

    Only the fields that repeat across many records are shared (types, scopes, role and principal
    ids, the directory's group ids, creators, and an update time equal to the creation time);
    timestamps and ids are mostly unique and left alone. Sharing each batch of a few hundred
    records as soon as it is decoded, while it is still in the processor's caches, costs about half
    as much as a second pass over a million records.
    """
    make = _SHARERS.get(section)
    return None if make is None else make()


def string_sharer(section: str) -> Callable[[Any], None] | None:
    """The same as :func:`batch_sharer`, one record at a time."""
    share = batch_sharer(section)
    if share is None:
        return None
    return lambda record: share((record,))


def intern_strings(section: str, records: list[Any]) -> None:
    """Share the repeated strings of freshly decoded records (in place); see
    :func:`batch_sharer`."""
    share = batch_sharer(section)
    if share is not None:
        share(records)
