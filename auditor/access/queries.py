"""Who can do an operation at a scope, and what a principal can do: both built on the decision
function, so they never disagree with ``check``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

import msgspec

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


class WhoPath(msgspec.Struct, frozen=True, gc=False):
    """One way a principal reaches a grant: ``via`` is the membership path principal -> ... ->
    assignee (ids as first seen; just the principal for a direct assignment). Like
    :class:`WhoEntry`, a frozen ``msgspec`` Struct, cheap to build and not tracked by the garbage
    collector (an answer holds thousands)."""

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


class WhoEntry(msgspec.Struct, frozen=True, gc=False):
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
    warnings: tuple[str, ...] = ()
    """What the question named that the estate does not know (see :mod:`auditor.access.advice`;
    filled by :meth:`AccessEngine.who` when asked)."""

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
        } | ({"warnings": list(self.warnings)} if self.warnings else {})


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
        paths: list[WhoPath] = []
        for _d, entry, path in hits:
            if granted is not None and entry.id.lower() not in granted:
                continue
            via, via_names = show(path)
            paths.append(
                WhoPath(
                    roleAssignmentId=entry.id,
                    roleDefinitionId=entry.record.properties.roleDefinitionId or "",
                    roleName=catalogue.name(entry.role),
                    scope=entry.record.properties.scope or "/",
                    via=via,
                    viaNames=via_names,
                    condition=None if entry.cond is None else entry.cond.text,
                )
            )
        entry_record = directory.entry(key)
        entries.append(
            WhoEntry(
                principalId=shown,
                displayName=entry_record.displayName if entry_record else None,
                type=_principal_type(ix, key, type_hint.get(key)),
                decision=decision.decision,
                paths=tuple(paths),
                deniedBy=decision.deniedBy,
                conditions=decision.conditions,
            )
        )
    return WhoResult(action=action, scope=scope, dataAction=data_action, entries=tuple(entries))


# ----------------------------------------------------------------------------------------- what

PatternStatus = Literal["granted", "partlyBlocked", "blocked"]


@dataclass(slots=True, unsafe_hash=True)
class HeldPattern:
    """One operation glob a permission grants, and what deny assignments make of it:
    ``blocked`` (an unconditioned deny covers it), ``partlyBlocked`` (a deny covers part of it, or
    all of it only where a condition holds), ``granted``.

    Read-only by convention, like :class:`HeldPermission` and :class:`Holding` (not frozen: a
    what-can answer builds dozens, and a frozen dataclass costs several times more to build;
    answers share them, so changing one would change other answers)."""

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


@dataclass(slots=True, unsafe_hash=True)
class HeldPermission:
    """One permission entry of a held role, its globs judged (read-only by convention)."""

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


@dataclass(slots=True, unsafe_hash=True)
class Holding:
    """A role a principal holds through one assignment (read-only by convention)."""

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
    warnings: tuple[str, ...] = ()
    """What the question named that the estate does not know (see :mod:`auditor.access.advice`;
    filled by :meth:`AccessEngine.what` when asked)."""

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
        } | ({"warnings": list(self.warnings)} if self.warnings else {})


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


_Glob = tuple[str, bool]
"""A glob and its plane (True: data actions)."""
_MEMO_KEY = "what"
_LEVELS_LIMIT = 1 << 15
_JUDGES_LIMIT = 1 << 12
_JUDGED_LIMIT = 1 << 15
_UNKNOWN_ROLE: tuple[tuple[CompiledPermission, ...], tuple[_Glob, ...]] = ((), ())


class _Judge:
    """What one tuple of deny assignments makes of the globs roles grant: ``affected`` holds the
    :class:`HeldPattern` of each glob they touch (every other one is ``granted``, as
    :func:`pattern_status` has it), ``held`` the held permissions of each role under them (filled
    as roles are met)."""

    __slots__ = ("affected", "held")

    def __init__(self, affected: dict[_Glob, HeldPattern]) -> None:
        self.affected = affected
        self.held: dict[str, tuple[HeldPermission, ...]] = {}


class _Level:
    """A scope key as what-can uses it: its depth, the deny assignments that apply there by their
    scope alone (at it, or above it without ``doNotApplyToChildScopes``), and the judge of those
    that apply to a principal that no deny assignment names or excludes (the ones for everyone)."""

    __slots__ = ("depth", "judge", "near")

    def __init__(self, depth: int, near: tuple[DenyEntry, ...], judge: _Judge) -> None:
        self.depth = depth
        self.near = near
        self.judge = judge


class _WhatMemo:
    """The memo of the what-can queries of one :class:`Indexes` (in its ``query_cache``, made on
    the first query). Equal tuples of deny assignments share one judge, so a role is judged once
    per distinct tuple, and a role that no deny touches shares one answer everywhere. Levels and
    judges are dropped together when there are ``_LEVELS_LIMIT`` levels, ``_JUDGES_LIMIT`` judges
    or ``_JUDGED_LIMIT`` judged roles, so the memory stays bounded (some 15 MB after a thousand
    principals of the million-assignment estate, under 30 MB at most).

    Nothing is built up front: the first query costs a few milliseconds more."""

    def __init__(self, ix: Indexes) -> None:
        self.levels: dict[str, _Level] = {}
        self.judges: dict[tuple[DenyEntry, ...], _Judge] = {}
        self.judged = 0
        self.nears: dict[tuple[DenyEntry, ...], tuple[DenyEntry, ...]] = {}
        """Equal ``near`` tuples of levels, shared."""
        self.granted: dict[_Glob, HeldPattern] = {}
        """Per glob a role grants: its :class:`HeldPattern` where no deny touches it."""
        self.roles: dict[str, tuple[tuple[CompiledPermission, ...], tuple[_Glob, ...]]] = {}
        """Per role GUID of the catalogue: its permissions and its distinct globs."""
        self.base: dict[str, tuple[HeldPermission, ...]] = {}
        """Per role GUID: its held permissions where no deny touches any of its globs."""
        self.names: dict[str, str] = {}
        self.tables: dict[DenyEntry, tuple[tuple[_Glob, int], ...]] = {}
        """Per deny assignment: the globs of :attr:`granted` it touches, with the verdict."""
        self._shape_tables: dict[tuple[object, ...], tuple[tuple[_Glob, int], ...]] = {}
        for guid, role in ix.catalogue.roles.items():
            globs: dict[_Glob, None] = {}
            for perm in role.permissions:
                for data in (False, True):
                    for pattern in perm.patterns(data):
                        glob = (pattern, data)
                        globs[glob] = None
                        if glob not in self.granted:
                            self.granted[glob] = HeldPattern(pattern, data, "granted", ())
            self.roles[guid] = (role.permissions, tuple(globs))

    def level(self, ix: Indexes, key: str) -> _Level:
        hit = self.levels.get(key)
        if hit is None:
            chain = ix.scopes.chain(key)
            found: list[DenyEntry] = []
            by_scope = ix.deny_by_scope
            if by_scope:
                for distance, level in enumerate(chain):
                    for deny in by_scope.get(level, ()):
                        if not (distance and deny.at_scope_only):
                            found.append(deny)
            near = tuple(found)
            near = self.nears.setdefault(near, near)
            everyone = tuple(d for d in near if d.everyone and not d.excludes_everyone)
            hit = _Level(len(chain), near, self.judge(everyone))
            if len(self.levels) >= _LEVELS_LIMIT:
                self.trim()
            self.levels[key] = hit
        return hit

    def trim(self) -> None:
        """Drop the levels and judges (what a query holds stays valid)."""
        self.levels.clear()
        self.judges.clear()
        self.nears.clear()
        self.judged = 0

    def judge(self, denies: tuple[DenyEntry, ...]) -> _Judge:
        hit = self.judges.get(denies)
        if hit is None:
            full: dict[_Glob, list[str]] = {}
            partial: dict[_Glob, list[str]] = {}
            for deny in denies:
                table = self.tables.get(deny)
                if table is None:
                    table = self.table(deny)
                for glob, verdict in table:
                    (full if verdict == _FULL else partial).setdefault(glob, []).append(deny.id)
            affected: dict[_Glob, HeldPattern] = {}
            shared: dict[tuple[str, ...], tuple[str, ...]] = {}
            for (pattern, data), ids in partial.items():
                by = tuple(dict.fromkeys(ids))
                by = shared.setdefault(by, by)
                affected[(pattern, data)] = HeldPattern(pattern, data, "partlyBlocked", by)
            for (pattern, data), ids in full.items():
                by = tuple(dict.fromkeys(ids))
                by = shared.setdefault(by, by)
                affected[(pattern, data)] = HeldPattern(pattern, data, "blocked", by)
            if len(self.judges) >= _JUDGES_LIMIT:
                self.trim()
            hit = self.judges[denies] = _Judge(affected)
        return hit

    def table(self, deny: DenyEntry) -> tuple[tuple[_Glob, int], ...]:
        """The globs of :attr:`granted` that ``deny`` touches, each with its verdict
        (:func:`_deny_verdict`, so by the deny's shape)."""
        hit = self.tables.get(deny)
        if hit is None:
            hit = self._shape_tables.get(deny.shape)
            if hit is None:
                found = []
                for glob in self.granted:
                    verdict = _deny_verdict(deny, glob[0], glob[1])
                    if verdict != _NONE:
                        found.append((glob, verdict))
                hit = self._shape_tables[deny.shape] = tuple(found)
            self.tables[deny] = hit
        return hit

    def held(self, judge: _Judge, guid: str) -> tuple[HeldPermission, ...]:
        """The held permissions of role ``guid`` under ``judge`` (what :func:`held_permission`
        makes of each permission with the judge's deny assignments)."""
        hit = judge.held.get(guid)
        if hit is None:
            perms, globs = self.roles.get(guid, _UNKNOWN_ROLE)
            affected = judge.affected
            if affected and not affected.keys().isdisjoint(globs):
                hit = tuple(self._judged(perm, affected) for perm in perms)
            else:
                hit = self.base.get(guid)
                if hit is None:
                    hit = self.base[guid] = tuple(self._judged(p, affected) for p in perms)
            judge.held[guid] = hit
            self.judged += 1
            if self.judged >= _JUDGED_LIMIT:
                self.trim()
        return hit

    def _judged(
        self, perm: CompiledPermission, affected: dict[_Glob, HeldPattern]
    ) -> HeldPermission:
        granted = self.granted
        patterns = []
        for data in (False, True):
            for pattern in perm.patterns(data):
                glob = (pattern, data)
                held = affected.get(glob)
                patterns.append(granted[glob] if held is None else held)
        return HeldPermission(
            perm.index,
            perm.actions,
            perm.notActions,
            perm.dataActions,
            perm.notDataActions,
            perm.condition,
            tuple(patterns),
        )

    def name(self, ix: Indexes, guid: str) -> str:
        hit = self.names.get(guid)
        if hit is None:
            hit = self.names[guid] = ix.catalogue.name(guid)
        return hit


def _memo(ix: Indexes) -> _WhatMemo:
    memo: _WhatMemo | None = ix.query_cache.get(_MEMO_KEY)
    if memo is None:
        memo = ix.query_cache[_MEMO_KEY] = _WhatMemo(ix)
    return memo


def what(ix: Indexes, principal_id: str, scope: str | None = None) -> WhatResult:
    """Every role and operation pattern ``principal_id`` holds, directly or through groups.

    With ``scope``: the assignments that apply there (at the scope or above), with the deny
    assignments that apply at ``scope``. Without: every assignment, each judged against the deny
    assignments that apply at its own scope.

    Each glob is judged as :func:`held_permission` does; the judgements are memoised per tuple of
    deny assignments (see :class:`_WhatMemo`).
    """
    principal = principal_id.lower()
    directory = ix.directory
    memo = _memo(ix)
    identities = directory.identities(principal)
    named: set[DenyEntry] = set()
    excluded: set[DenyEntry] = set()
    for identity in identities:
        named.update(ix.deny_naming.get(identity, ()))
        excluded.update(ix.deny_excluding.get(identity, ()))
    special = named | excluded
    own: dict[str, _Judge] = {}

    def judge_at(key: str, at: _Level) -> _Judge:
        """The judge of the deny assignments that apply to this principal at ``key``."""
        if not special or special.isdisjoint(at.near):
            return at.judge
        hit = own.get(key)
        if hit is None:
            hit = own[key] = memo.judge(
                tuple(
                    d
                    for d in at.near
                    if (d.everyone or d in named) and not (d.excludes_everyone or d in excluded)
                )
            )
        return hit

    # (depth, scope key, assignment id, position, holding): sorted by the ids' case-folded order
    # within a scope, equal ids in the order met
    rows: list[tuple[int, str, str, int, Holding]] = []
    append = rows.append
    by_principal = ix.by_principal
    levels = memo.levels
    names = memo.names
    chain: tuple[str, ...] = ()
    scoped: _Judge | None = None  # with a scope: the judge at it, once an assignment applies
    if scope is not None:
        _key, chain = ix.scopes.resolve(scope)
    for identity in identities:
        scopes = by_principal.get(identity)
        if not scopes:
            continue
        via: tuple[tuple[str, ...], tuple[str, ...]] | None = None
        for level, bucket in scopes.items():
            if chain:
                if level not in chain:
                    continue
                order = len(chain) - chain.index(level)
                if scoped is None:
                    scoped = judge_at(chain[0], memo.level(ix, chain[0]))
                judge = scoped
            else:
                at = levels.get(level)
                if at is None:
                    at = memo.level(ix, level)
                order = at.depth
                judge = at.judge
                if special and not special.isdisjoint(at.near):
                    judge = judge_at(level, at)
            if via is None:
                path = directory.group_path(principal, identity)
                via = (
                    tuple(directory.display(k) for k in path),
                    tuple(directory.name(k) for k in path),
                )
            shown, shown_names = via
            judged = judge.held
            for entry in bucket:
                guid = entry.role
                held = judged.get(guid)
                if held is None:
                    held = memo.held(judge, guid)
                name = names.get(guid)
                if name is None:
                    name = memo.name(ix, guid)
                record = entry.record
                props = record.properties
                rid = record.id or ""
                holding = Holding(
                    rid,
                    props.scope or "/",
                    props.roleDefinitionId or "",
                    name,
                    shown,
                    shown_names,
                    None if entry.cond is None else entry.cond.text,
                    held,
                )
                append((order, level, rid.lower(), len(rows), holding))
    rows.sort()
    return WhatResult(principal_id, scope, tuple([row[4] for row in rows]))
