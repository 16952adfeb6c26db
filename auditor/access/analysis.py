"""Estate-wide access analyses, the building blocks of the access-control rules: escalation paths
(RBAC-010), bypassed conditions (RBAC-012), dead grants (RBAC-013), deny assignments that spare child
scopes (DENY-003), owners per subscription (RBAC-001/002), privileged guests (RBAC-003). Each returns
typed results; turning them into findings is the audit's job.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import compress
from operator import attrgetter
from typing import Any, Literal

from auditor.access.catalogue import CompiledPermission, RoleEntry
from auditor.access.conditions import Cond
from auditor.access.decision import AccessRequest, _decided
from auditor.access.globs import covers, intersects
from auditor.access.indexes import AssignmentEntry, DenyEntry, Indexes
from auditor.access.queries import _FULL, _deny_verdict
from auditor.access.scopes import ROOT, ScopeTree
from auditor.estate.roles import (
    CONTRIBUTOR,
    OWNER,
    RBAC_ADMINISTRATOR,
    USER_ACCESS_ADMINISTRATOR,
)

__all__ = [
    "ADMIN_ROLES",
    "ESCALATION_ACTIONS",
    "PRIVILEGED_ROLES",
    "BypassedCondition",
    "DeadGrant",
    "Escalation",
    "EscalationStep",
    "GuestPrivilege",
    "OwnerHolder",
    "SubscriptionOwners",
    "WeakChildDeny",
    "bypassed_conditions",
    "dead_grants",
    "escalations",
    "guest_privileges",
    "subscription_owners",
    "weak_child_denies",
]

ESCALATION_ACTIONS = (
    "Cloud.Authorization/roleAssignments/write",
    "Cloud.Authorization/roleDefinitions/write",
)
"""Operations that create role assignments or role definitions."""

ADMIN_ROLES = frozenset({OWNER, USER_ACCESS_ADMINISTRATOR, RBAC_ADMINISTRATOR})
"""Roles whose holders are expected to manage access (rules.md RBAC-010)."""

PRIVILEGED_ROLES = frozenset({OWNER, CONTRIBUTOR, USER_ACCESS_ADMINISTRATOR, RBAC_ADMINISTRATOR})
"""Roles a guest must not hold (rules.md RBAC-003)."""


def _is_group(ix: Indexes, key: str, hint: str | None) -> bool:
    if ix.directory.is_group(key):
        return True
    return hint is not None and hint.lower() == "group"


def _type_of(ix: Indexes, key: str, hint: str | None = None) -> str | None:
    entry = ix.directory.entry(key)
    if entry is not None and entry.type:
        return entry.type
    return hint


_NO_PRINCIPALS: dict[str, tuple[AssignmentEntry, ...]] = {}
_COND = attrgetter("cond")
_ROLE = attrgetter("role")
_PRINCIPAL = attrgetter("principal")


def _holds_role(
    ix: Indexes,
    key: str,
    chain: tuple[str, ...],
    roles: frozenset[str],
    holders: dict[str, frozenset[str]] | None = None,
) -> bool:
    """Whether one of ``key``'s identities holds one of ``roles`` at a scope of ``chain``. With
    ``holders`` (a memo for one ``roles``, filled here: each scope's holders, :func:`_holders`), a
    caller asking for many principals reads each scope's assignments once."""
    identities = ix.directory.identities(key)
    if holders is not None:
        for level in chain:
            found = holders.get(level)
            if found is None:
                found = holders[level] = _holders(ix, level, roles)
            if found and not found.isdisjoint(identities):
                return True
        return False
    # read by scope, then principal (the index by principal is built only when asked for: a
    # million assignments take a third of a second)
    at_scope = ix.at_scope
    for level in chain:
        principals = at_scope.get(level, _NO_PRINCIPALS)
        if not principals:
            continue
        for identity in identities:
            for entry in principals.get(identity, ()):
                if entry.role in roles:
                    return True
    return False


def _holders(ix: Indexes, scope: str, roles: frozenset[str]) -> frozenset[str]:
    """The principal keys holding one of ``roles`` at ``scope`` itself."""
    bucket = ix.by_scope.get(scope, ())  # in C: the assignments there whose role is one of them
    return frozenset(map(_PRINCIPAL, compress(bucket, map(roles.__contains__, map(_ROLE, bucket)))))


def _cond_text(entry: AssignmentEntry) -> str | None:
    return None if entry.cond is None else entry.cond.text


# ------------------------------------------------------------------------------------ escalation


@dataclass(frozen=True, slots=True)
class EscalationStep:
    """One step of an escalation path: ``kind`` is ``principal``, ``group``, ``roleAssignment``,
    ``roleDefinition``, ``permission`` or ``operation``."""

    kind: str
    id: str
    name: str

    def to_wire(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.id, "name": self.name}


@dataclass(frozen=True, slots=True)
class Escalation:
    """A principal that can effectively create role assignments or role definitions at a
    subscription, management group or ``/`` without holding Owner, User Access Administrator or
    Role Based Access Control Administrator there or above (RBAC-010)."""

    principalId: str
    principalType: str | None
    displayName: str | None
    scope: str
    operations: tuple[str, ...]
    decision: Literal["allowed", "conditional"]
    roleAssignmentIds: tuple[str, ...]
    path: tuple[EscalationStep, ...]

    @property
    def path_text(self) -> str:
        return " → ".join(f"{s.kind} {s.name}" for s in self.path)

    def to_wire(self) -> dict[str, Any]:
        return {
            "principalId": self.principalId,
            "principalType": self.principalType,
            "displayName": self.displayName,
            "scope": self.scope,
            "operations": list(self.operations),
            "decision": self.decision,
            "roleAssignmentIds": list(self.roleAssignmentIds),
            "path": [s.to_wire() for s in self.path],
            "pathText": self.path_text,
        }


def _escalating_roles(ix: Indexes) -> dict[str, list[tuple[str, CompiledPermission]]]:
    found: dict[str, list[tuple[str, CompiledPermission]]] = {}
    catalogue = ix.catalogue
    for guid in catalogue.roles:
        for action in ESCALATION_ACTIONS:
            for perm in catalogue.granting(guid, action.lower(), False):
                found.setdefault(guid, []).append((action, perm))
    return found


def escalations(ix: Indexes, *, include_conditional: bool = False) -> list[Escalation]:
    """RBAC-010 candidates: one result per principal and scope, with the path principal -> groups
    -> role assignment -> role -> permission -> operation. A group assignee stands for its members
    (each reported); a group with no known member is reported itself. ``include_conditional``
    also returns principals whose ability depends on a condition."""
    import networkx as nx

    roles = _escalating_roles(ix)
    if not roles:
        return []
    directory = ix.directory
    # the graph's edges, added at once when all are known (in this order: the graph, and so the
    # paths the search finds, is the one adding them one by one makes)
    edges: list[tuple[tuple[Any, ...], tuple[Any, ...]]] = []
    link = edges.append
    # (principal key, scope key) -> [(assignment entry, assignee)]
    candidates: dict[tuple[str, str], list[AssignmentEntry]] = {}
    linked_roles: set[str] = set()
    linked: dict[str, list[str]] = {}  # per assignee: its members that are not groups
    grouped: dict[str, bool] = {}  # per member of an assignee: whether it is a group

    def is_group(key: str) -> bool:  # _is_group(ix, key, None), once per key
        found = grouped.get(key)
        if found is None:
            found = grouped[key] = directory.is_group(key)
        return found

    # the roles that escalate, but for the administrator roles (their holders at a scope are not
    # shadow administrators); a hierarchy scope's assignments of them are picked in C
    escalating = frozenset(roles).difference(ADMIN_ROLES).__contains__
    for level, bucket in ix.by_scope.items():
        if not ScopeTree.is_hierarchy_level(level):
            continue
        for entry in compress(bucket, map(escalating, map(_ROLE, bucket))):
            assignee = entry.principal
            ra_node = ("ra", entry.id)
            link((("p", assignee), ra_node))
            role_node = ("role", entry.role)
            link((ra_node, role_node))
            # a role's and a group's edges are added once (adding an edge again changes nothing)
            if entry.role not in linked_roles:
                linked_roles.add(entry.role)
                for action, perm in roles[entry.role]:
                    perm_node = ("perm", entry.role, perm.index)
                    link((role_node, perm_node))
                    link((perm_node, ("op", action)))
            towards = directory.transitive_members(assignee)
            people = linked.get(assignee)
            if people is None:
                for member, nxt in towards.items():
                    link((("p", member), ("p", nxt)))
                people = linked[assignee] = [m for m in towards if not is_group(m)]
            hint = entry.record.properties.principalType
            members = list(people)
            if not _is_group(ix, assignee, hint) or not towards:
                members.append(assignee)
            for member in members:
                candidates.setdefault((member, level), []).append(entry)
    graph = nx.DiGraph()
    graph.add_edges_from(edges)
    results: list[Escalation] = []
    # per hierarchy scope: who holds an administrator role there or above (one set probed with
    # a candidate's identities, instead of each scope of the chain's holders in turn)
    admins: dict[str, frozenset[str]] = {}
    holders: dict[str, frozenset[str]] = {}  # per scope: who holds one there (:func:`_holders`)
    plans = [(action, ix.plan(action, False)) for action in ESCALATION_ACTIONS]
    # per (scope, action): whether a principal that no deny assignment names or excludes is
    # denied there. The denies that block such a principal do not depend on who it is (those
    # naming every principal, their conditions judged on the request: the decision's ``clean``
    # path), so one such principal's denial is every such principal's, and most candidates are
    # denied both operations
    denied_clean: dict[tuple[str, str], bool] = {}
    for member, level in sorted(candidates):
        who = directory.display(member)
        # the decision's look-up of the principal, whose identities (its key and every group it
        # belongs to, as :meth:`Directory.identities` gives them) also tell whether it holds an
        # administrator role at the scope or above
        seen = ix.principal(who)
        above = admins.get(level)
        if above is None:
            held = []
            for scope in ix.scopes.chain(level):
                found = holders.get(scope)
                if found is None:
                    found = holders[scope] = _holders(ix, scope, ADMIN_ROLES)
                held.append(found)
            above = admins[level] = frozenset().union(*held)
        if not above.isdisjoint(seen[1]):
            continue
        entries = candidates[(member, level)]
        shown_scope = ix.scopes.display(level)
        # decide(ix, AccessRequest(who, action, shown_scope), explain=False) for each action,
        # with decide's look-ups (the principal's, the scope's levels) made once for both
        levels = ix.levels(shown_scope)
        clean = seen[2]
        allowed: list[str] = []  # the actions allowed, and those allowed on a condition
        maybe: list[str] = []
        for action, plan in plans:
            if clean and denied_clean.get((level, action)):
                continue
            verdict = _decided(
                ix, AccessRequest(who, action, shown_scope), levels, False, seen, plan
            ).decision
            if clean:
                denied_clean[(level, action)] = verdict == "denied"
            if verdict == "allowed":
                allowed.append(action)
            elif verdict == "conditional":
                maybe.append(action)
        if allowed:
            decision: Literal["allowed", "conditional"] = "allowed"
            operations = tuple(allowed)
        elif maybe and include_conditional:
            decision = "conditional"
            operations = tuple(maybe)
        else:
            continue
        best: list[Any] | None = None
        for entry in sorted(entries, key=lambda e: e.id.lower()):
            try:
                route = nx.shortest_path(graph, ("p", member), ("ra", entry.id))
            except nx.NetworkXNoPath:  # pragma: no cover - every candidate was linked above
                continue
            if best is None or len(route) < len(best):
                best = route
        assert best is not None
        chosen = best[-1][1]
        entry = next(e for e in entries if e.id == chosen)
        grants = roles[entry.role]
        action, perm = next(((a, p) for a, p in grants if a in operations), grants[0])
        steps = [_step(ix, node, member) for node in best]
        role = ix.catalogue.role(entry.role)
        steps.append(
            EscalationStep(
                "roleDefinition",
                role.id if role else entry.role,
                f"'{ix.catalogue.name(entry.role)}'",
            )
        )
        steps.append(EscalationStep("permission", str(perm.index), _perm_text(perm)))
        steps.append(EscalationStep("operation", action, action))
        record = directory.entry(member)
        results.append(
            Escalation(
                principalId=directory.display(member),
                principalType=_type_of(
                    ix,
                    member,
                    entry.record.properties.principalType if entry.principal == member else None,
                ),
                displayName=record.displayName if record else None,
                scope=shown_scope,
                operations=operations,
                decision=decision,
                roleAssignmentIds=tuple(sorted({e.id for e in entries}, key=str.lower)),
                path=tuple(steps),
            )
        )
    return results


def _perm_text(perm: CompiledPermission) -> str:
    text = f"#{perm.index} actions {list(perm.actions)}"
    if perm.notActions:
        text += f" minus {list(perm.notActions)}"
    if perm.cond is not None:
        text += " (conditioned)"
    return text


def _step(ix: Indexes, node: tuple[Any, ...], principal: str) -> EscalationStep:
    directory = ix.directory
    if node[0] == "p":
        key = node[1]
        kind = "principal" if key == principal else "group"
        return EscalationStep(kind, directory.display(key), f"'{directory.name(key)}'")
    entry_id = node[1]
    return EscalationStep("roleAssignment", entry_id, entry_id)


# ------------------------------------------------------------------------- bypassed conditions


@dataclass(frozen=True, slots=True)
class BypassedCondition:
    """RBAC-012: operations a conditioned assignment targets that another assignment, without a
    condition, grants to the same principal (directly or through its groups) at the same scope or
    above. ``via`` is the membership path from the conditioned assignment's principal to the
    bypassing assignment's principal."""

    roleAssignmentId: str
    principalId: str
    scope: str
    condition: str
    targetedActions: tuple[str, ...]
    bypassingAssignmentId: str
    bypassingScope: str
    bypassingRoleName: str
    via: tuple[str, ...]
    operations: tuple[str, ...]

    def to_wire(self) -> dict[str, Any]:
        return {
            "roleAssignmentId": self.roleAssignmentId,
            "principalId": self.principalId,
            "scope": self.scope,
            "condition": self.condition,
            "targetedActions": list(self.targetedActions),
            "bypassingAssignmentId": self.bypassingAssignmentId,
            "bypassingScope": self.bypassingScope,
            "bypassingRoleName": self.bypassingRoleName,
            "via": list(self.via),
            "operations": list(self.operations),
        }


def _grants_pattern(perm: CompiledPermission, pattern: str, data: bool) -> bool:
    """Whether ``perm`` grants some operation of ``pattern`` (exact for a plain operation)."""
    if "*" not in pattern:
        return perm.matches(pattern.lower(), data)
    if not any(intersects(p, pattern) for p in perm.patterns(data)):
        return False
    return not any(covers(n, pattern) for n in perm.exclusions(data))


def _planes(role: RoleEntry | None, pattern: str) -> list[bool]:
    if role is None:
        return []
    return [
        data
        for data in (False, True)
        if any(_grants_pattern(p, pattern, data) for p in role.permissions)
    ]


def _bypass_plan(
    ix: Indexes, guid: str, cond: Cond
) -> tuple[list[str], list[tuple[str, list[bool]]]]:
    """The operations a condition on role ``guid`` targets (sorted), and those the role grants
    with the planes it grants them in."""
    role = ix.catalogue.role(guid)
    targets = sorted(cond.targeted_actions, key=str.lower)
    if not targets and role is not None:
        targets = sorted(
            {p for perm in role.permissions for d in (False, True) for p in perm.patterns(d)},
            key=str.lower,
        )
    planned = [(t, _planes(role, t)) for t in targets]
    return targets, [(t, planes) for t, planes in planned if planes]


def _grants_above(ix: Indexes, entry: AssignmentEntry) -> list[tuple[str, AssignmentEntry]]:
    """The assignments to one of the identities of ``entry``'s principal at its scope or above,
    each with that identity: identities in order, then the scope nearest first."""
    at_scope = ix.at_scope
    levels = [found for level in ix.scopes.chain(entry.scope) if (found := at_scope.get(level))]
    return [
        (identity, other)
        for identity in sorted(ix.directory.identities(entry.principal))
        for principals in levels
        for other in principals.get(identity, ())
    ]


def bypassed_conditions(
    ix: Indexes, entries: Iterable[AssignmentEntry] | None = None
) -> list[BypassedCondition]:
    """RBAC-012 candidates. A conditioned assignment targets the operations of its condition's
    ``ActionMatches``; a condition without one targets every operation of the role. Conditions that
    cannot be used (RBAC-011) are skipped. ``entries``: the assignments to judge, in the index's
    order, when the caller has them (those without a condition are passed over); every
    conditioned one when None."""
    directory = ix.directory
    results: list[BypassedCondition] = []
    # what depends only on the role and the condition is found once for each (a million
    # assignments hold a few thousand conditioned ones, most of them alike): the targeted
    # operations, what another role grants of them
    plans: dict[tuple[str, Cond], tuple[list[str], list[tuple[str, list[bool]]]]] = {}
    granted: dict[tuple[str, str, Cond], tuple[str, ...]] = {}
    if entries is None:
        # the conditioned assignments (a few of a million) found in C
        entries = compress(ix.assignments, map(_COND, ix.assignments))
    for entry in entries:
        cond = entry.cond
        if cond is None or cond.problem is not None:
            continue
        plan = plans.get((entry.role, cond))
        if plan is None:
            plan = plans[(entry.role, cond)] = _bypass_plan(ix, entry.role, cond)
        targets, planned = plan
        if not planned:
            continue
        for identity, other in _grants_above(ix, entry):
            if other is entry or other.cond is not None:
                continue
            other_role = ix.catalogue.role(other.role)
            if other_role is None:
                continue
            ops = granted.get((other.role, entry.role, cond))
            if ops is None:
                free = [p for p in other_role.permissions if p.cond is None]
                ops = granted[(other.role, entry.role, cond)] = tuple(
                    t
                    for t, planes in planned
                    if any(_grants_pattern(p, t, d) for p in free for d in planes)
                )
            if not ops:
                continue
            path = directory.group_path(entry.principal, identity)
            results.append(
                BypassedCondition(
                    roleAssignmentId=entry.id,
                    principalId=directory.display(entry.principal),
                    scope=entry.record.properties.scope or "/",
                    condition=cond.text,
                    targetedActions=tuple(targets),
                    bypassingAssignmentId=other.id,
                    bypassingScope=other.record.properties.scope or "/",
                    bypassingRoleName=other_role.name,
                    via=tuple(directory.display(k) for k in path),
                    operations=ops,
                )
            )
    return results


# ---------------------------------------------------------------------------------- dead grants


@dataclass(frozen=True, slots=True)
class DeadGrant:
    """RBAC-013: every operation the assignment's role grants is blocked for its principal by
    unconditioned deny assignments at its scope."""

    roleAssignmentId: str
    principalId: str
    scope: str
    roleName: str
    deniedBy: tuple[str, ...]

    def to_wire(self) -> dict[str, Any]:
        return {
            "roleAssignmentId": self.roleAssignmentId,
            "principalId": self.principalId,
            "scope": self.scope,
            "roleName": self.roleName,
            "deniedBy": list(self.deniedBy),
        }


def _spares_a_member(ix: Indexes, deny: DenyEntry, principal: str) -> bool:
    if not deny.excluded:
        return False
    members = ix.directory.transitive_members(principal)
    return any(m in deny.excluded for m in members)


_EAGER_ROLES = 64
"""Catalogues of at most this many roles have, in :func:`dead_grants`, the roles the denies reaching
a scope could block found once per set of deny shapes for every role of the catalogue (a scope
where none could be blocked is then passed over without reading its assignments); larger ones per
scope, for the roles its assignments hold."""


def _reaching(
    deny_by_scope: dict[str, list[DenyEntry]], chain: tuple[str, ...]
) -> tuple[DenyEntry, ...]:
    """The unconditioned deny assignments at the scopes of ``chain`` that reach below them (not
    ``doNotApplyToChildScopes``), nearest first: the part of the unconditioned denies reaching a
    scope that the scope's children share."""
    return tuple(
        deny
        for level in chain
        for deny in deny_by_scope.get(level, ())
        if deny.cond is None and not deny.at_scope_only
    )


def dead_grants(ix: Indexes) -> list[DeadGrant]:
    """RBAC-013 candidates. A grant to a group is dead only when no member of the group is excluded
    from the blocking denies. Roles that grant nothing are not reported.

    Near-linear: the unconditioned denies reaching a scope are the
    scope's own followed by those its ancestors pass down, gathered once per chain of ancestors
    (most scopes have none of their own, and share their siblings' tuple and its set of shapes);
    what a deny blocks of a role is computed once per (role, deny shape) as a bit mask of the
    role's globs; whether the denies reaching a scope could block every glob of a role, whoever
    they name, is answered once per (role, set of shapes), for every role of a small catalogue at
    once (:data:`_EAGER_ROLES`: a scope where no role could be blocked is passed over without
    reading its assignments); only the assignments of such roles are matched against the denies'
    principals."""
    if not ix.deny_by_scope:
        return []
    directory = ix.directory
    catalogue = ix.catalogue
    deny_by_scope = ix.deny_by_scope
    results: list[DeadGrant] = []
    shape_ids: dict[tuple[object, ...], int] = {}
    sid_of: dict[int, int] = {}  # id(deny) -> its shape's number
    for deny in ix.denies:
        sid_of[id(deny)] = shape_ids.setdefault(deny.shape, len(shape_ids))
    # per role GUID: its granted globs (empty when the role is unknown or grants nothing)
    role_patterns: dict[str, tuple[tuple[str, bool], ...]] = {}
    # per (role GUID, shape): the bit mask of the role's globs that a deny of that shape blocks
    masks: dict[tuple[str, int], int] = {}
    # per (role GUID, shapes of the denies reaching a scope): could they block every glob?
    possible: dict[tuple[str, frozenset[int]], bool] = {}
    # per (role GUID, applicable denies): the blocking deny ids, or None when some glob survives
    verdicts: dict[tuple[str, tuple[int, ...]], tuple[str, ...] | None] = {}
    # per chain of ancestors: the denies they pass down, and those denies' shapes
    passed: dict[tuple[str, ...], tuple[tuple[DenyEntry, ...], frozenset[int]]] = {}
    # per set of shapes (small catalogues): every role whose globs they could all block
    eager = len(catalogue.roles) <= _EAGER_ROLES
    blockable_of: dict[frozenset[int], frozenset[str]] = {}
    chain_of = ix.scopes.chain

    def patterns_of(guid: str) -> tuple[tuple[str, bool], ...]:
        patterns = role_patterns.get(guid)
        if patterns is None:
            role = catalogue.role(guid)
            patterns = role_patterns[guid] = (
                ()
                if role is None
                else tuple(
                    (pattern, data)
                    for perm in role.permissions
                    for data in (False, True)
                    for pattern in perm.patterns(data)
                )
            )
        return patterns

    def mask(guid: str, deny: DenyEntry) -> int:
        key = (guid, sid_of[id(deny)])
        hit = masks.get(key)
        if hit is None:
            hit = 0
            for i, (pattern, data) in enumerate(role_patterns[guid]):
                if _deny_verdict(deny, pattern, data) == _FULL:
                    hit |= 1 << i
            masks[key] = hit
        return hit

    def could_block(guid: str, shapes: frozenset[int], candidates: tuple[DenyEntry, ...]) -> bool:
        """Whether denies of ``shapes`` (those of ``candidates``) could block every glob of the
        role ``guid`` (False when it grants nothing)."""
        patterns = patterns_of(guid)
        if not patterns:
            return False
        pkey = (guid, shapes)
        ok = possible.get(pkey)
        if ok is None:
            covered = 0
            for deny in candidates:
                covered |= mask(guid, deny)
            ok = possible[pkey] = covered == (1 << len(patterns)) - 1
        return ok

    def passed_down(chain: tuple[str, ...]) -> tuple[tuple[DenyEntry, ...], frozenset[int]]:
        """The denies the scopes of ``chain`` pass down (:func:`_reaching`) and their shapes:
        the first scope's followed by those of the rest of the chain, remembered for each rest
        (most scopes pass none of their own down, and share the tuple and set of the rest)."""
        found = passed.get(chain)
        if found is None:
            if not chain:
                found = ((), frozenset())
            else:
                rest = passed_down(chain[1:])
                own = _reaching(deny_by_scope, chain[:1])
                found = (own + rest[0], rest[1].union(sid_of[id(d)] for d in own)) if own else rest
            passed[chain] = found
        return found

    for level, bucket in ix.by_scope.items():
        chain = chain_of(level)
        above = chain[1:]
        inherited = passed.get(above)
        if inherited is None:
            inherited = passed_down(above)
        candidates, shapes = inherited
        own = deny_by_scope.get(level)
        if own:
            here = tuple(deny for deny in own if deny.cond is None)
            if here:
                candidates = here + candidates
                shapes = shapes.union(sid_of[id(d)] for d in here)
        if not candidates:
            continue
        # the roles whose every glob the denies could block: for a small catalogue, every role's
        # answer once per set of shapes; otherwise the roles of the bucket (found in C), each
        # answered once per set of shapes; only those roles' assignments are read one by one
        if eager:
            blockable = blockable_of.get(shapes)
            if blockable is None:
                blockable = blockable_of[shapes] = frozenset(
                    guid for guid in catalogue.roles if could_block(guid, shapes, candidates)
                )
        else:
            blockable = frozenset(
                guid for guid in set(map(_ROLE, bucket)) if could_block(guid, shapes, candidates)
            )
        if not blockable:
            continue
        for entry in compress(bucket, map(blockable.__contains__, map(_ROLE, bucket))):
            guid = entry.role
            patterns = role_patterns[guid]
            identities = directory.identities(entry.principal)
            denies = tuple(
                d
                for d in candidates
                if d.applies_to(identities) and not _spares_a_member(ix, d, entry.principal)
            )
            if not denies:
                continue
            vkey = (guid, tuple(id(d) for d in denies))
            if vkey in verdicts:
                blockers = verdicts[vkey]
            else:
                found: list[str] | None = []
                deny_masks = [(d.id, mask(guid, d)) for d in denies]
                for i in range(len(patterns)):
                    bit = 1 << i
                    by = [deny_id for deny_id, m in deny_masks if m & bit]
                    if not by:
                        found = None
                        break
                    assert found is not None
                    found.extend(dict.fromkeys(by))
                blockers = verdicts[vkey] = None if found is None else tuple(dict.fromkeys(found))
            if blockers is None:
                continue
            role = catalogue.role(guid)
            assert role is not None
            results.append(
                DeadGrant(
                    roleAssignmentId=entry.id,
                    principalId=directory.display(entry.principal),
                    scope=entry.record.properties.scope or "/",
                    roleName=role.name,
                    deniedBy=blockers,
                )
            )
    return results


# -------------------------------------------------------------------------- weak child denies


@dataclass(frozen=True, slots=True)
class WeakChildDeny:
    """DENY-003: a deny assignment with ``doNotApplyToChildScopes`` at a scope with child scopes
    (resources, resource groups, subscriptions, management groups) whose type carries a denied
    operation. ``childScopes`` lists at most ``limit`` of them; ``childCount`` counts all."""

    denyAssignmentId: str
    name: str
    scope: str
    childScopes: tuple[str, ...]
    childCount: int
    operations: tuple[str, ...]

    def to_wire(self) -> dict[str, Any]:
        return {
            "denyAssignmentId": self.denyAssignmentId,
            "name": self.name,
            "scope": self.scope,
            "childScopes": list(self.childScopes),
            "childCount": self.childCount,
            "operations": list(self.operations),
        }


def _known_scopes(ix: Indexes) -> list[str]:
    snapshot = ix.snapshot
    ids = [c.id for c in snapshot.clusters] + [d.id for d in snapshot.domains]
    for resource_id in ids:
        if resource_id:
            ix.scopes.add(resource_id)
    return sorted(ix.scopes.known())


def _descendants(ix: Indexes, scope: str, ordered: list[str]) -> list[str]:
    tree = ix.scopes
    if scope == ROOT:
        return [k for k in ordered if k != ROOT]
    if ScopeTree.kind(scope) == "managementGroup":
        tops = [
            k
            for k in ordered
            if k != scope and ScopeTree.is_hierarchy_level(k) and scope in tree.chain(k)
        ]
        found = set(tops)
        for top in tops:
            if ScopeTree.kind(top) == "subscription":
                found.update(_below(top, ordered))
        return sorted(found)
    return _below(scope, ordered)


def _below(scope: str, ordered: list[str]) -> list[str]:
    prefix = scope + "/"
    start = bisect.bisect_left(ordered, prefix)
    end = bisect.bisect_left(ordered, scope + "0")  # '0' sorts right after '/'
    return ordered[start:end]


_UNSEEN = "\0unseen"
"""A value no resource type has: a scope not yet met in :func:`weak_child_denies`' memo."""


def weak_child_denies(ix: Indexes, *, limit: int = 50) -> list[WeakChildDeny]:
    """DENY-003 candidates (see :class:`WeakChildDeny`)."""
    weak = [d for d in ix.denies if d.at_scope_only]
    if not weak:
        return []
    ordered = _known_scopes(ix)
    results: list[WeakChildDeny] = []
    # per child scope: its resource type (the children of denies at one scope or above one
    # another are met again and again)
    types: dict[str, str | None] = {}
    resource_type = ix.scopes.resource_type
    for deny in weak:
        patterns = [
            p for perm in deny.permissions for data in (False, True) for p in perm.patterns(data)
        ]
        children: list[str] = []
        carried: dict[str, None] = {}
        hits_of: dict[str, list[str]] = {}  # per resource type: the patterns that reach it
        for child in _descendants(ix, deny.scope, ordered):
            kind_type = types.get(child, _UNSEEN)
            if kind_type is _UNSEEN:
                kind_type = types[child] = resource_type(child)
            if kind_type is None:
                continue
            hits = hits_of.get(kind_type)
            if hits is None:
                hits = hits_of[kind_type] = [p for p in patterns if intersects(p, kind_type + "/*")]
            if hits:
                children.append(ix.scopes.display(child))
                carried.update(dict.fromkeys(hits))
        if children:
            results.append(
                WeakChildDeny(
                    denyAssignmentId=deny.id,
                    name=deny.name,
                    scope=deny.record.properties.scope or "/",
                    childScopes=tuple(children[:limit]),
                    childCount=len(children),
                    operations=tuple(carried),
                )
            )
    return results


# ------------------------------------------------------------------------ owners and guests


@dataclass(frozen=True, slots=True)
class OwnerHolder:
    principalId: str
    principalType: str | None
    roleAssignmentId: str
    scope: str
    condition: str | None

    def to_wire(self) -> dict[str, Any]:
        return {
            "principalId": self.principalId,
            "principalType": self.principalType,
            "roleAssignmentId": self.roleAssignmentId,
            "scope": self.scope,
            "condition": self.condition,
        }


@dataclass(frozen=True, slots=True)
class SubscriptionOwners:
    """The distinct principals holding Owner by an assignment at the subscription or above (a group
    counts as one, RBAC-001/002)."""

    subscription: str
    owners: tuple[OwnerHolder, ...]

    @property
    def count(self) -> int:
        return len(self.owners)

    def to_wire(self) -> dict[str, Any]:
        return {
            "subscription": self.subscription,
            "count": self.count,
            "owners": [o.to_wire() for o in self.owners],
        }


def subscription_owners(ix: Indexes) -> list[SubscriptionOwners]:
    """Per known subscription (from the hierarchy and every scope seen), its distinct owners."""
    owner_at: dict[str, list[AssignmentEntry]] = {}
    subscriptions: set[str] = set()
    for entry in ix.assignments:
        if entry.role == OWNER:
            owner_at.setdefault(entry.scope, []).append(entry)
    for key in ix.scopes.known():
        sub = ScopeTree.subscription_of(key)
        if sub is not None:
            subscriptions.add(sub)
    results: list[SubscriptionOwners] = []
    for sub in sorted(subscriptions):
        seen: dict[str, OwnerHolder] = {}
        for level in ix.scopes.chain(sub):
            for entry in sorted(owner_at.get(level, ()), key=lambda e: e.id.lower()):
                if entry.principal in seen:
                    continue
                seen[entry.principal] = OwnerHolder(
                    principalId=ix.directory.display(entry.principal),
                    principalType=_type_of(
                        ix, entry.principal, entry.record.properties.principalType
                    ),
                    roleAssignmentId=entry.id,
                    scope=entry.record.properties.scope or "/",
                    condition=_cond_text(entry),
                )
        results.append(SubscriptionOwners(ix.scopes.display(sub), tuple(seen.values())))
    return results


@dataclass(frozen=True, slots=True)
class GuestPrivilege:
    """RBAC-003: a guest holding a privileged role, directly or through nested groups (``via`` is
    the membership path guest -> ... -> assignee)."""

    principalId: str
    displayName: str | None
    roleName: str
    roleAssignmentId: str
    scope: str
    via: tuple[str, ...]

    def to_wire(self) -> dict[str, Any]:
        return {
            "principalId": self.principalId,
            "displayName": self.displayName,
            "roleName": self.roleName,
            "roleAssignmentId": self.roleAssignmentId,
            "scope": self.scope,
            "via": list(self.via),
        }


def guest_privileges(ix: Indexes) -> list[GuestPrivilege]:
    """Every privileged role (Owner, Contributor, User Access Administrator, Role Based Access
    Control Administrator) a guest holds at any scope, directly or through nested groups."""
    directory = ix.directory
    results: list[GuestPrivilege] = []
    for key, record in sorted(directory.entries()):
        if (record.userType or "").lower() != "guest":
            continue
        for identity in sorted(directory.identities(key)):
            for entry in sorted(ix.assignments_of(identity), key=lambda e: e.id.lower()):
                if entry.role not in PRIVILEGED_ROLES:
                    continue
                results.append(
                    GuestPrivilege(
                        principalId=directory.display(key),
                        displayName=record.displayName,
                        roleName=ix.catalogue.name(entry.role),
                        roleAssignmentId=entry.id,
                        scope=entry.record.properties.scope or "/",
                        via=tuple(
                            directory.display(k) for k in directory.group_path(key, identity)
                        ),
                    )
                )
    return results
