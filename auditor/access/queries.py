"""Who can do an operation at a scope, and what a principal can do: both built on the decision
function, so they never disagree with ``check``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from auditor.access.catalogue import CompiledPermission
from auditor.access.decision import AccessRequest, Verdict, decide
from auditor.access.directory import Directory
from auditor.access.globs import covers, intersects
from auditor.access.indexes import AssignmentEntry, DenyEntry, Indexes

__all__ = [
    "HeldPattern",
    "HeldPermission",
    "Holding",
    "WhatResult",
    "WhoEntry",
    "WhoPath",
    "WhoResult",
    "applicable_denies",
    "what",
    "who",
]


# ------------------------------------------------------------------------------------------ who


@dataclass(frozen=True, slots=True)
class WhoPath:
    """One way a principal reaches a grant: ``via`` is the membership path principal -> ... ->
    assignee (ids as first seen; just the principal for a direct assignment)."""

    roleAssignmentId: str
    roleDefinitionId: str
    roleName: str
    scope: str
    via: tuple[str, ...]
    viaNames: tuple[str, ...]
    condition: str | None

    def to_wire(self) -> dict[str, Any]:
        return {
            "roleAssignmentId": self.roleAssignmentId,
            "roleDefinitionId": self.roleDefinitionId,
            "roleName": self.roleName,
            "scope": self.scope,
            "via": list(self.via),
            "viaNames": list(self.viaNames),
            "condition": self.condition,
        }


@dataclass(frozen=True, slots=True)
class WhoEntry:
    """A principal that may (``allowed``), might (``conditional``) or would but for a deny
    (``denied``) perform the operation."""

    principalId: str
    displayName: str | None
    type: str | None
    decision: Verdict
    paths: tuple[WhoPath, ...]
    deniedBy: tuple[str, ...]
    conditions: tuple[str, ...]

    def to_wire(self) -> dict[str, Any]:
        return {
            "principalId": self.principalId,
            "displayName": self.displayName,
            "type": self.type,
            "decision": self.decision,
            "paths": [p.to_wire() for p in self.paths],
            "deniedBy": list(self.deniedBy),
            "conditions": list(self.conditions),
        }


@dataclass(frozen=True, slots=True)
class WhoResult:
    """Everyone a grant at the scope or above reaches, with the decision for each."""

    action: str
    scope: str
    dataAction: bool
    entries: tuple[WhoEntry, ...]

    def by_decision(self, decision: Verdict) -> tuple[WhoEntry, ...]:
        return tuple(e for e in self.entries if e.decision == decision)

    @property
    def allowed(self) -> tuple[WhoEntry, ...]:
        return self.by_decision("allowed")

    @property
    def conditional(self) -> tuple[WhoEntry, ...]:
        return self.by_decision("conditional")

    @property
    def denied(self) -> tuple[WhoEntry, ...]:
        return self.by_decision("denied")

    def to_wire(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "dataAction": self.dataAction,
            "scope": self.scope,
            "allowed": [e.to_wire() for e in self.allowed],
            "conditional": [e.to_wire() for e in self.conditional],
            "denied": [e.to_wire() for e in self.denied],
        }


def _principal_type(ix: Indexes, key: str, hint: str | None) -> str | None:
    entry = ix.directory.entry(key)
    if entry is not None and entry.type:
        return entry.type
    return hint


def who(ix: Indexes, action: str, scope: str, data_action: bool = False) -> WhoResult:
    """Every principal (expanded through groups) that a grant at ``scope`` or above reaches, with
    its decision: allowed, conditional, or denied (and by which deny assignments). Principals whose
    grants all carry false conditions are left out."""
    operation = action.lower()
    _key, chain = ix.scopes.resolve(scope)
    catalogue = ix.catalogue
    table = catalogue.per_operation(operation, data_action)
    directory = ix.directory
    reached: dict[str, list[tuple[int, AssignmentEntry, tuple[str, ...]]]] = {}
    paths_seen: dict[tuple[str, str], tuple[str, ...]] = {}
    type_hint: dict[str, str | None] = {}
    by_scope = ix.by_scope
    for distance, level in enumerate(chain):
        for entry in by_scope.get(level, ()):
            if not catalogue.granting(entry.role, operation, data_action, table):
                continue
            assignee = entry.principal
            reached.setdefault(assignee, []).append((distance, entry, (assignee,)))
            type_hint.setdefault(assignee, entry.record.properties.principalType)
            towards = directory.transitive_members(assignee)
            for member in towards:
                memo = (member, assignee)
                path = paths_seen.get(memo)
                if path is None:
                    path = paths_seen[memo] = Directory.path_to(member, assignee, towards)
                reached.setdefault(member, []).append((distance, entry, path))
    shown_paths: dict[tuple[str, ...], tuple[tuple[str, ...], tuple[str, ...]]] = {}

    def show(path: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        hit = shown_paths.get(path)
        if hit is None:
            hit = shown_paths[path] = (
                tuple(directory.display(k) for k in path),
                tuple(directory.name(k) for k in path),
            )
        return hit

    entries: list[WhoEntry] = []
    for key in sorted(reached):
        shown = directory.display(key)
        decision = decide(ix, AccessRequest(shown, action, scope, data_action), explain=False)
        if decision.decision == "notGranted":
            continue
        # a blocked principal shows every grant the deny overrides; otherwise the grants that count
        granted = None if decision.decision == "denied" else {i.lower() for i in decision.grantedBy}
        hits = sorted(reached[key], key=lambda h: (h[0], len(h[2]), h[1].id.lower()))
        paths = tuple(
            WhoPath(
                roleAssignmentId=entry.id,
                roleDefinitionId=entry.record.properties.roleDefinitionId or "",
                roleName=catalogue.name(entry.role),
                scope=entry.record.properties.scope or "/",
                via=show(path)[0],
                viaNames=show(path)[1],
                condition=None if entry.cond is None else entry.cond.text,
            )
            for _d, entry, path in hits
            if granted is None or entry.id.lower() in granted
        )
        entry_record = directory.entry(key)
        entries.append(
            WhoEntry(
                principalId=shown,
                displayName=entry_record.displayName if entry_record else None,
                type=_principal_type(ix, key, type_hint.get(key)),
                decision=decision.decision,
                paths=paths,
                deniedBy=decision.deniedBy,
                conditions=decision.conditions,
            )
        )
    return WhoResult(action=action, scope=scope, dataAction=data_action, entries=tuple(entries))


# ----------------------------------------------------------------------------------------- what

PatternStatus = Literal["granted", "partlyBlocked", "blocked"]


@dataclass(frozen=True, slots=True)
class HeldPattern:
    """One operation glob a permission grants, and what deny assignments make of it:
    ``blocked`` (an unconditioned deny covers it), ``partlyBlocked`` (a deny covers part of it, or
    all of it only where a condition holds), ``granted``."""

    pattern: str
    dataAction: bool
    status: PatternStatus
    deniedBy: tuple[str, ...]

    def to_wire(self) -> dict[str, Any]:
        return {
            "pattern": self.pattern,
            "dataAction": self.dataAction,
            "status": self.status,
            "deniedBy": list(self.deniedBy),
        }


@dataclass(frozen=True, slots=True)
class HeldPermission:
    index: int
    actions: tuple[str, ...]
    notActions: tuple[str, ...]
    dataActions: tuple[str, ...]
    notDataActions: tuple[str, ...]
    condition: str | None
    patterns: tuple[HeldPattern, ...]

    def to_wire(self) -> dict[str, Any]:
        return {
            "actions": list(self.actions),
            "notActions": list(self.notActions),
            "dataActions": list(self.dataActions),
            "notDataActions": list(self.notDataActions),
            "condition": self.condition,
            "patterns": [p.to_wire() for p in self.patterns],
        }


@dataclass(frozen=True, slots=True)
class Holding:
    """A role a principal holds through one assignment."""

    roleAssignmentId: str
    scope: str
    roleDefinitionId: str
    roleName: str
    via: tuple[str, ...]
    viaNames: tuple[str, ...]
    condition: str | None
    permissions: tuple[HeldPermission, ...]

    def to_wire(self) -> dict[str, Any]:
        return {
            "roleAssignmentId": self.roleAssignmentId,
            "roleDefinitionId": self.roleDefinitionId,
            "roleName": self.roleName,
            "via": list(self.via),
            "viaNames": list(self.viaNames),
            "condition": self.condition,
            "permissions": [p.to_wire() for p in self.permissions],
        }


@dataclass(frozen=True, slots=True)
class WhatResult:
    """Every role and operation pattern a principal holds, grouped by scope, after denies."""

    principalId: str
    scope: str | None
    holdings: tuple[Holding, ...]

    def by_scope(self) -> dict[str, list[Holding]]:
        out: dict[str, list[Holding]] = {}
        for holding in self.holdings:
            out.setdefault(holding.scope, []).append(holding)
        return out

    def to_wire(self) -> dict[str, Any]:
        return {
            "principalId": self.principalId,
            "scope": self.scope,
            "scopes": [
                {"scope": scope, "holdings": [h.to_wire() for h in holdings]}
                for scope, holdings in self.by_scope().items()
            ],
        }


def applicable_denies(
    ix: Indexes, identities: frozenset[str], chain: tuple[str, ...]
) -> list[DenyEntry]:
    """Deny assignments that apply at ``chain[0]`` to a principal with these identities, whatever
    the operation (scope, naming, exclusion)."""
    found: list[DenyEntry] = []
    for distance, level in enumerate(chain):
        for deny in ix.deny_by_scope.get(level, ()):
            if distance and deny.at_scope_only:
                continue
            if deny.applies_to(identities):
                found.append(deny)
    return found


_VERDICTS: dict[tuple[object, str, bool], int] = {}
_NONE, _PART, _FULL = 0, 1, 2


def _deny_verdict(deny: DenyEntry, pattern: str, data: bool) -> int:
    """What one deny assignment makes of one granted glob: nothing, part of it, all of it.
    Cached by the deny's permissions (many deny assignments share the same shape)."""
    key = (deny.shape, pattern, data)
    hit = _VERDICTS.get(key)
    if hit is None:
        hit = _NONE
        for perm in deny.permissions:
            if not any(intersects(p, pattern) for p in perm.patterns(data)):
                continue
            if any(covers(n, pattern) for n in perm.exclusions(data)):
                continue
            hit = _PART
            whole = any(covers(p, pattern) for p in perm.patterns(data)) and not any(
                intersects(n, pattern) for n in perm.exclusions(data)
            )
            if whole and deny.cond is None and perm.cond is None:
                hit = _FULL
                break
        if len(_VERDICTS) > 65536:
            _VERDICTS.clear()
        _VERDICTS[key] = hit
    return hit


def pattern_status(
    pattern: str, data: bool, denies: Iterable[DenyEntry]
) -> tuple[PatternStatus, tuple[str, ...]]:
    """What ``denies`` make of one granted glob (see :class:`HeldPattern`)."""
    full: list[str] = []
    partial: list[str] = []
    for deny in denies:
        verdict = _deny_verdict(deny, pattern, data)
        if verdict == _FULL:
            full.append(deny.id)
        elif verdict == _PART:
            partial.append(deny.id)
    if full:
        return "blocked", tuple(dict.fromkeys(full))
    if partial:
        return "partlyBlocked", tuple(dict.fromkeys(partial))
    return "granted", ()


def held_permission(perm: CompiledPermission, denies: tuple[DenyEntry, ...]) -> HeldPermission:
    """One permission of a held role, each of its globs judged against ``denies``."""
    patterns = []
    for data in (False, True):
        for pattern in perm.patterns(data):
            status, by = pattern_status(pattern, data, denies)
            patterns.append(HeldPattern(pattern, data, status, by))
    return HeldPermission(
        index=perm.index,
        actions=perm.actions,
        notActions=perm.notActions,
        dataActions=perm.dataActions,
        notDataActions=perm.notDataActions,
        condition=perm.condition,
        patterns=tuple(patterns),
    )


def _held(ix: Indexes, guid: str, denies: tuple[DenyEntry, ...]) -> tuple[HeldPermission, ...]:
    cache = ix.query_cache
    key = ("held", guid, denies)
    hit: tuple[HeldPermission, ...] | None = cache.get(key)
    if hit is None:
        role = ix.catalogue.role(guid)
        perms = role.permissions if role is not None else ()
        hit = tuple(held_permission(p, denies) for p in perms)
        if len(cache) > 65536:
            cache.clear()
        cache[key] = hit
    return hit


def denies_near(ix: Indexes, key: str) -> tuple[DenyEntry, ...]:
    """Deny assignments that apply at scope key ``key`` by their scope alone (at it, or above it
    without ``doNotApplyToChildScopes``), whoever they name (cached)."""
    cache = ix.query_cache
    memo = ("near", key)
    hit: tuple[DenyEntry, ...] | None = cache.get(memo)
    if hit is None:
        found: list[DenyEntry] = []
        by_scope = ix.deny_by_scope
        if by_scope:
            for distance, level in enumerate(ix.scopes.chain(key)):
                for deny in by_scope.get(level, ()):
                    if not (distance and deny.at_scope_only):
                        found.append(deny)
        hit = tuple(found)
        if len(cache) > 65536:
            cache.clear()
        cache[memo] = hit
    return hit


def what(ix: Indexes, principal_id: str, scope: str | None = None) -> WhatResult:
    """Every role and operation pattern ``principal_id`` holds, directly or through groups.

    With ``scope``: the assignments that apply there (at the scope or above), with the deny
    assignments that apply at ``scope``. Without: every assignment, each judged against the deny
    assignments that apply at its own scope.
    """
    principal = principal_id.lower()
    directory = ix.directory
    catalogue = ix.catalogue
    tree = ix.scopes
    identities = directory.identities(principal)
    chain: tuple[str, ...] | None = None
    if scope is not None:
        _key, chain = tree.resolve(scope)
    named: set[DenyEntry] = set()
    excluded: set[DenyEntry] = set()
    for identity in identities:
        named.update(ix.deny_naming.get(identity, ()))
        excluded.update(ix.deny_excluding.get(identity, ()))
    deny_cache: dict[tuple[DenyEntry, ...], tuple[DenyEntry, ...]] = {(): ()}
    cache = ix.query_cache

    def denies_at(key: str) -> tuple[DenyEntry, ...]:
        near = cache.get(("near", key))
        if near is None:
            near = denies_near(ix, key)
        hit = deny_cache.get(near)
        if hit is None:
            if named or excluded:
                hit = tuple(
                    d
                    for d in near
                    if (d.everyone or d in named) and not (d.excludes_everyone or d in excluded)
                )
            else:
                hit = tuple(d for d in near if d.everyone and not d.excludes_everyone)
            deny_cache[near] = hit
        return hit

    rows: list[tuple[int, str, str, AssignmentEntry, str]] = []
    by_principal = ix.by_principal
    for identity in identities:
        scopes = by_principal.get(identity)
        if not scopes:
            continue
        for level, bucket in scopes.items():
            if chain is not None:
                if level not in chain:
                    continue
                order = len(chain) - chain.index(level)
            else:
                order = tree.depth(level)
            for entry in bucket:
                rows.append((order, level, (entry.record.id or "").lower(), entry, identity))
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    vias: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
    holdings: list[Holding] = []
    for _order, level, _id, entry, identity in rows:
        denies = denies_at(chain[0] if chain is not None else level)
        via = vias.get(identity)
        if via is None:
            path = directory.group_path(principal, identity)
            via = vias[identity] = (
                tuple(directory.display(k) for k in path),
                tuple(directory.name(k) for k in path),
            )
        held = cache.get(("held", entry.role, denies))
        if held is None:
            held = _held(ix, entry.role, denies)
        props = entry.record.properties
        holdings.append(
            Holding(
                entry.record.id or "",
                props.scope or "/",
                props.roleDefinitionId or "",
                catalogue.name(entry.role),
                via[0],
                via[1],
                None if entry.cond is None else entry.cond.text,
                held,
            )
        )
    return WhatResult(principalId=principal_id, scope=scope, holdings=tuple(holdings))
