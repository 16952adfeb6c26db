"""The indexes built once per snapshot: role assignments by principal (then scope) and by scope, deny
assignments by scope, plus the scope tree, the directory and the compiled role catalogue.

A decision looks up ``identities x chain`` keys in these dicts: it never scans the assignments.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from auditor.access.catalogue import Catalogue, CompiledPermission
from auditor.access.conditions import Cond, make_cond
from auditor.access.directory import Directory
from auditor.access.scopes import ROOT, ScopeTree, scope_key
from auditor.estate.records import DenyAssignmentRecord, PrincipalRecord, RoleAssignmentRecord
from auditor.estate.roles import role_guid
from auditor.estate.snapshot import Snapshot
from auditor.model.access import ALL_PRINCIPALS_ID

__all__ = ["AssignmentEntry", "DenyEntry", "Indexes", "Levels"]

_intern = sys.intern
_LEVELS_LIMIT = 1 << 17
_DENY_OPS_LIMIT = 1 << 17


@dataclass(slots=True, eq=False)
class Levels:
    """The ancestry of a requested scope as a decision uses it: the levels of its chain (the scope,
    then its ancestors up to ``/``) that hold role assignments or deny assignments, each with its
    *rank* (0 for the scope itself, growing upwards; ranks order the levels, and only rank 0 sees
    deny assignments with ``doNotApplyToChildScopes``)."""

    grant_levels: tuple[tuple[dict[str, tuple[AssignmentEntry, ...]], int], ...]
    """For each level holding role assignments: its principal -> assignments table, rank."""
    deny_levels: tuple[tuple[str, int], ...]
    """For each level holding deny assignments: the level's key, rank."""
    below: Levels | None = None
    """The same levels seen from a scope strictly below this one (every rank + 1)."""

    def seen_from_below(self) -> Levels:
        if self.below is None:
            self.below = Levels(
                tuple((table, rank + 1) for table, rank in self.grant_levels),
                tuple((level, rank + 1) for level, rank in self.deny_levels),
            )
        return self.below


class AssignmentEntry(msgspec.Struct, gc=False):
    """A role assignment as the engine uses it (keys are lower case). Not tracked by the garbage
    collector: a million of them would make every collection slow."""

    record: RoleAssignmentRecord
    principal: str
    scope: str
    role: str
    cond: Cond | None

    @property
    def id(self) -> str:
        return self.record.id or ""


@dataclass(slots=True, eq=False)
class DenyEntry:
    """A deny assignment as the engine uses it (keys are lower case)."""

    record: DenyAssignmentRecord
    id: str
    name: str
    scope: str
    at_scope_only: bool
    everyone: bool
    principals: frozenset[str]
    excluded: frozenset[str]
    excludes_everyone: bool
    permissions: tuple[CompiledPermission, ...]
    cond: Cond | None = field(default=None)
    sort_key: str = ""
    shape: tuple[object, ...] = ()
    """The deny's permissions and conditions as plain data: equal shapes deny the same."""

    def __post_init__(self) -> None:
        self.sort_key = self.id.lower()
        self.shape = (
            None if self.cond is None else self.cond.text,
            tuple(
                (
                    p.actions,
                    p.notActions,
                    p.dataActions,
                    p.notDataActions,
                    None if p.cond is None else p.cond.text,
                )
                for p in self.permissions
            ),
        )

    def names(self, identities: frozenset[str]) -> bool:
        """True when the deny names one of ``identities`` (or every principal)."""
        return self.everyone or not self.principals.isdisjoint(identities)

    def excludes(self, identities: frozenset[str]) -> bool:
        """True when one of ``identities`` is excluded (exclusion is transitive through groups)."""
        return self.excludes_everyone or not self.excluded.isdisjoint(identities)

    def applies_to(self, identities: frozenset[str]) -> bool:
        """Named and not excluded."""
        return self.names(identities) and not self.excludes(identities)

    def matching(self, operation: str, data: bool) -> tuple[CompiledPermission, ...]:
        """The deny's permissions that match the lower-cased operation."""
        return tuple(p for p in self.permissions if p.matches(operation, data))


def is_all_principals(principal: PrincipalRecord) -> bool:
    """The all-principals entry: id ``00000000-0000-0000-0000-000000000000`` of type
    ``SystemDefined`` (compared ignoring case)."""
    return (
        principal.id is not None
        and principal.id.strip().lower() == ALL_PRINCIPALS_ID
        and (principal.type or "").lower() == "systemdefined"
    )


class Indexes:
    """Everything a decision needs, built once from a snapshot."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self.scopes = ScopeTree(snapshot.hierarchy)
        self.directory = Directory(snapshot.principals)
        self.catalogue = Catalogue(snapshot.roleDefinitions)
        self.assignments: list[AssignmentEntry] = []
        self.at_scope: dict[str, dict[str, tuple[AssignmentEntry, ...]]] = {}
        """Role assignments by scope key, then principal key."""
        self._by_principal: dict[str, dict[str, tuple[AssignmentEntry, ...]]] | None = None
        self._by_scope: dict[str, list[AssignmentEntry]] | None = None
        self.denies: list[DenyEntry] = []
        self.deny_by_scope: dict[str, list[DenyEntry]] = {}
        self.deny_naming: dict[str, list[DenyEntry]] = {}
        """Deny assignments by the principal keys they name (the all-principals entry aside)."""
        self.deny_excluding: dict[str, list[DenyEntry]] = {}
        """Deny assignments by the principal keys they exclude."""
        enabled = gc.isenabled()
        gc.disable()  # the build allocates millions of containers and creates no cycles
        try:
            self._build_assignments(snapshot.roleAssignments)
            self._build_denies(snapshot.denyAssignments)
        finally:
            if enabled:
                gc.enable()
                # the buckets are tuples of untracked entries: one young collection stops the
                # collector from tracking them (and the tables holding only them) ever after
                gc.collect(0)
        self._levels: dict[str, Levels] = {}
        self._levels_by_key: dict[str, Levels] = {}
        self._interesting = (
            frozenset(self.at_scope)
            | frozenset(self.deny_by_scope)
            | frozenset(self.scopes.hierarchy_keys())
        )
        self.query_cache: dict[Any, Any] = {}
        """Memo of the queries (who/what), keyed by tuples starting with the query's name."""
        self._deny_ops: dict[
            tuple[str, str, bool], tuple[tuple[DenyEntry, tuple[CompiledPermission, ...]], ...]
        ] = {}
        self._deny_flat: dict[
            tuple[Levels, str, bool],
            tuple[tuple[DenyEntry, tuple[CompiledPermission, ...], int], ...],
        ] = {}

    def _build_assignments(self, records: Iterable[RoleAssignmentRecord]) -> None:
        add_scope = self.scopes.add
        add_principal = self.directory.add
        at_scope: dict[str, dict[str, list[AssignmentEntry]]] = {}
        append = self.assignments.append
        # the loader shares repeated strings, so most lookups below hit these small caches
        scope_keys: dict[str, str] = {}
        principal_keys: dict[str, str] = {}
        role_keys: dict[str, str] = {}
        for record in records:
            props = record.properties
            raw = props.scope or "/"
            scope = scope_keys.get(raw)
            if scope is None:
                scope = scope_keys[raw] = _intern(add_scope(raw))
            raw = props.principalId or ""
            principal = principal_keys.get(raw)
            if principal is None:
                principal = principal_keys[raw] = _intern(add_principal(raw))
            raw = props.roleDefinitionId or ""
            role = role_keys.get(raw)
            if role is None:
                role = role_keys[raw] = _intern(role_guid(raw))
            cond = make_cond(props.condition, props.conditionVersion) if props.condition else None
            entry = AssignmentEntry(record, principal, scope, role, cond)
            append(entry)
            principals = at_scope.get(scope)
            if principals is None:
                at_scope[scope] = {principal: [entry]}
            else:
                bucket = principals.get(principal)
                if bucket is None:
                    principals[principal] = [entry]
                else:
                    bucket.append(entry)
        self.at_scope = {
            scope: {principal: tuple(bucket) for principal, bucket in principals.items()}
            for scope, principals in at_scope.items()
        }

    def _build_denies(self, records: Iterable[DenyAssignmentRecord]) -> None:
        for record in records:
            props = record.properties
            scope = self.scopes.add(props.scope or "/")
            named = [p for p in props.principals if p.id]
            excluded = [p for p in props.excludePrincipals if p.id]
            entry = DenyEntry(
                record=record,
                id=record.id or "",
                name=props.denyAssignmentName or record.name or record.id or "",
                scope=scope,
                at_scope_only=bool(props.doNotApplyToChildScopes),
                everyone=any(is_all_principals(p) for p in named),
                principals=frozenset(
                    self.directory.add(p.id) for p in named if p.id and not is_all_principals(p)
                ),
                excluded=frozenset(
                    self.directory.add(p.id) for p in excluded if p.id and not is_all_principals(p)
                ),
                excludes_everyone=any(is_all_principals(p) for p in excluded),
                permissions=tuple(
                    CompiledPermission.build(
                        i,
                        p.actions,
                        p.notActions,
                        p.dataActions,
                        p.notDataActions,
                        p.condition,
                        p.conditionVersion,
                    )
                    for i, p in enumerate(props.permissions)
                ),
                cond=make_cond(props.condition, props.conditionVersion),
            )
            self.denies.append(entry)
            self.deny_by_scope.setdefault(scope, []).append(entry)
            for key in entry.principals:
                self.deny_naming.setdefault(key, []).append(entry)
            for key in entry.excluded:
                self.deny_excluding.setdefault(key, []).append(entry)

    def levels(self, scope: str) -> Levels:
        """The :class:`Levels` of a requested scope (cached by the raw text).

        A scope that holds no assignment itself shares the levels of its nearest ancestor that does
        (or of the nearest management group or subscription), seen from below: a request for a new
        resource costs a few string operations, not a walk of the whole chain.
        """
        hit = self._levels.get(scope)
        if hit is None:
            key = scope_key(scope)
            anchor = key
            interesting = self._interesting
            while anchor not in interesting and not ScopeTree.is_hierarchy_level(anchor):
                cut = anchor.rfind("/")
                anchor = anchor[:cut] if cut > 0 else ROOT
            hit = self._levels_at(anchor)
            if anchor != key:
                hit = hit.seen_from_below()
            if len(self._levels) >= _LEVELS_LIMIT:
                self._levels.clear()
            self._levels[scope] = hit
        return hit

    def _levels_at(self, key: str) -> Levels:
        hit = self._levels_by_key.get(key)
        if hit is None:
            chain = self.scopes.chain(key)
            at_scope = self.at_scope
            denied = self.deny_by_scope
            hit = Levels(
                tuple((at_scope[level], d) for d, level in enumerate(chain) if level in at_scope),
                tuple((level, d) for d, level in enumerate(chain) if level in denied),
            )
            self._levels_by_key[key] = hit
        return hit

    def denies_for(
        self, level: str, operation: str, data: bool
    ) -> tuple[tuple[DenyEntry, tuple[CompiledPermission, ...]], ...]:
        """The deny assignments at ``level`` with a permission matching the lower-cased operation,
        each with its matching permissions (cached)."""
        key = (level, operation, data)
        hit = self._deny_ops.get(key)
        if hit is None:
            found = []
            for deny in self.deny_by_scope.get(level, ()):
                perms = deny.matching(operation, data)
                if perms:
                    found.append((deny, perms))
            hit = tuple(found)
            if len(self._deny_ops) >= _DENY_OPS_LIMIT:
                self._deny_ops.clear()
            self._deny_ops[key] = hit
        return hit

    def denies_along(
        self, levels: Levels, operation: str, data: bool
    ) -> tuple[tuple[DenyEntry, tuple[CompiledPermission, ...], int], ...]:
        """The deny assignments of ``levels`` that reach the requested scope (those with
        ``doNotApplyToChildScopes`` only at rank 0) with a permission matching the lower-cased
        operation, nearest first, each with its matching permissions and rank (cached)."""
        key = (levels, operation, data)
        hit = self._deny_flat.get(key)
        if hit is None:
            found = []
            for level, distance in levels.deny_levels:
                for deny, perms in self.denies_for(level, operation, data):
                    if distance and deny.at_scope_only:
                        continue
                    found.append((deny, perms, distance))
            hit = tuple(found) if found else ()
            if len(self._deny_flat) >= _DENY_OPS_LIMIT:
                self._deny_flat.clear()
            self._deny_flat[key] = hit
        return hit

    @property
    def by_scope(self) -> dict[str, list[AssignmentEntry]]:
        """Role assignments by scope key, in snapshot order (built on first use)."""
        if self._by_scope is None:
            table: dict[str, list[AssignmentEntry]] = {}
            for entry in self.assignments:
                bucket = table.get(entry.scope)
                if bucket is None:
                    table[entry.scope] = [entry]
                else:
                    bucket.append(entry)
            self._by_scope = table
        return self._by_scope

    @property
    def by_principal(self) -> dict[str, dict[str, tuple[AssignmentEntry, ...]]]:
        """Role assignments by principal key, then scope key (built on first use)."""
        if self._by_principal is None:
            table: dict[str, dict[str, tuple[AssignmentEntry, ...]]] = {}
            enabled = gc.isenabled()
            gc.disable()
            try:
                for scope, principals in self.at_scope.items():
                    for principal, bucket in principals.items():
                        scopes = table.get(principal)
                        if scopes is None:
                            table[principal] = {scope: bucket}
                        else:
                            scopes[scope] = bucket
            finally:
                if enabled:
                    gc.enable()
            self._by_principal = table
        return self._by_principal

    def assignments_of(self, principal: str) -> Iterable[AssignmentEntry]:
        """The role assignments made to one principal key, at any scope."""
        for bucket in self.by_principal.get(principal, {}).values():
            yield from bucket
