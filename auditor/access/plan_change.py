"""What a deployment plan does to access (issue 19, ``auditor gate PLAN --estate SNAPSHOT``): the
estate after the plan's role and deny assignment requests, the access delta between the two
(:func:`~auditor.access.delta.access_delta`, the one decision function on both sides), and what the
access-change rules judge in it:

- **new privileged access** (ACC-001): each principal newly allowed (or newly conditional) for a
  privileged operation, at the highest scopes it gains it, with the chain behind it (membership
  path, assignment, role, the scope the assignment is made at) and whether the principal newly holds
  an administrator role, is a guest or a disabled account;
- **new escalation paths** (ACC-002): a principal newly able to write role assignments or role
  definitions at ``/``, a management group or a subscription without holding Owner, User Access
  Administrator or Role Based Access Control Administrator there or above (a new RBAC-010 finding),
  decided before and after for the principals and scopes the change reaches;
- **lost administrators** (ACC-003): a management group or subscription where at least one
  principal held one of those administrator roles (at it or above) and none does after.

Every result names the plan request it comes from (its position in ``plan.requests``), so a finding points at the
template line that makes the change. A request whose effect is not known before deployment (its
principal, role, scope or condition is an unresolved template value) is not applied; it is listed
in :attr:`PlanAccessChange.unknown` with the reason, and its rules are ``unknown``, never a pass.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from auditor.access.analysis import (
    ADMIN_ROLES,
    ESCALATION_ACTIONS,
    BypassedCondition,
    EscalationStep,
    _holds_role,
    bypassed_conditions,
)
from auditor.access.decision import AccessRequest, Verdict, decide
from auditor.access.delta import PRIVILEGED_ACTIONS, AccessChange, AccessDelta, access_delta
from auditor.access.globs import intersects
from auditor.access.indexes import AssignmentEntry, DenyEntry, Indexes
from auditor.access.scopes import ScopeTree, scope_key
from auditor.errors import clip
from auditor.estate.plan import Plan, PlanRequest
from auditor.estate.records import (
    DenyAssignmentPropertiesRecord,
    DenyAssignmentRecord,
    DenyPermissionRecord,
    PrincipalRecord,
    RoleAssignmentPropertiesRecord,
    RoleAssignmentRecord,
)
from auditor.estate.snapshot import Snapshot

__all__ = [
    "ACCESS_KINDS",
    "LostAdministrators",
    "NewBypass",
    "NewEscalation",
    "NewGrant",
    "PlanAccessChange",
    "UncoveredGrant",
    "access_requests",
    "apply_plan_to_estate",
    "plan_access_change",
    "unresolved_request",
]

ACCESS_KINDS = frozenset({"roleAssignment", "denyAssignment"})
"""The plan request kinds that change access."""

ROLE_ASSIGNMENT_TYPE = "Cloud.Authorization/roleAssignments"
DENY_ASSIGNMENT_TYPE = "Cloud.Authorization/denyAssignments"
_ROLE_DEFINITION_WRITE = "Cloud.Authorization/roleDefinitions/write"
_DECIDING = frozenset(
    {
        "properties",
        "properties/principalid",
        "properties/roledefinitionid",
        "properties/condition",
        "properties/conditionversion",
    }
)
"""Body paths of a role assignment that decide access: unknown there, the request is unknown."""
_SHOWN = 200
_DECISIONS = 20_000
"""The decisions spent looking for the grants one new deny assignment fails to cover."""
_ORDER = {action: i for i, action in enumerate(PRIVILEGED_ACTIONS)}


# ------------------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class NewGrant:
    """ACC-001: ``principalId`` newly gets ``operations`` at ``scope`` (the highest scope of the
    change; ``scopesBelow`` more scopes under it change too) by the plan request ``request`` (its
    position in the plan's ``requests``, as in every result here)."""

    request: int
    principalId: str
    displayName: str
    principalType: str | None
    operations: tuple[str, ...]
    decision: Literal["allowed", "conditional"]
    before: Verdict
    scope: str
    scopesBelow: int
    path: tuple[str, ...]
    """Group ids from the principal (left out) to the group the assignment names."""
    pathNames: tuple[str, ...]
    roleAssignmentId: str | None
    roleName: str | None
    assignmentScope: str | None
    """The scope the granting assignment is made at (the grant is inherited from there)."""
    reason: str
    newAdministrator: bool
    """The grant is an administrator role (Owner, User Access Administrator, Role Based Access
    Control Administrator) the principal did not hold at the scope before."""
    guest: bool
    accountDisabled: bool


@dataclass(frozen=True, slots=True)
class NewEscalation:
    """ACC-002: a new shadow administrator (RBAC-010) at ``scope``, with the path behind it."""

    request: int
    principalId: str
    displayName: str
    principalType: str | None
    scope: str
    operations: tuple[str, ...]
    roleAssignmentIds: tuple[str, ...]
    path: tuple[EscalationStep, ...]

    @property
    def path_text(self) -> str:
        return " → ".join(f"{s.kind} {s.name}" for s in self.path)


@dataclass(frozen=True, slots=True)
class LostAdministrators:
    """ACC-003: ``scope`` had administrators (``before``: principal ids) and has none after; the
    plan request ``request`` removes (one of) the assignments that made them so."""

    request: int
    scope: str
    before: tuple[str, ...]
    removedAssignments: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NewBypass:
    """ACC-001, a condition newly bypassed (an RBAC-012 delta): after the change an assignment
    without a condition grants ``bypass.principalId`` operations a conditioned assignment targets,
    at its scope or above, and did not before. ``request`` adds the bypassing assignment (or the
    conditioned one)."""

    request: int
    bypass: BypassedCondition


@dataclass(frozen=True, slots=True)
class UncoveredGrant:
    """A grant a deny assignment the plan adds fails to cover: after the change ``principalId``
    is still ``decision`` for the deny's ``operation`` at ``scope`` (the deny's scope or below),
    because of ``why`` (``excluded``, ``doNotApplyToChildScopes``, ``condition`` or
    ``notNamed``)."""

    request: int
    principalId: str
    displayName: str
    operation: str
    dataAction: bool
    scope: str
    decision: Verdict
    why: str
    grantedBy: tuple[str, ...]

    def to_wire(self) -> dict[str, object]:
        return {
            "principalId": self.principalId,
            "principalName": self.displayName,
            "operation": self.operation,
            "dataAction": self.dataAction,
            "scope": self.scope,
            "decision": self.decision,
            "why": self.why,
            "grantedBy": list(self.grantedBy),
        }


@dataclass
class PlanAccessChange:
    """The access change of a plan against an estate (see the module's description)."""

    before: Indexes
    after: Indexes
    delta: AccessDelta
    """The access delta of contracts §9 (the privileged operations)."""
    requests: tuple[PlanRequest, ...]
    """The plan's role and deny assignment requests."""
    unknown: dict[int, str] = field(default_factory=dict)
    """Request position in the plan's ``requests`` -> why its effect on access is not known (the
    request was not applied)."""
    grants: list[NewGrant] = field(default_factory=list)
    escalations: list[NewEscalation] = field(default_factory=list)
    lost: list[LostAdministrators] = field(default_factory=list)
    bypassed: list[NewBypass] = field(default_factory=list)
    uncovered: dict[int, list[UncoveredGrant]] = field(default_factory=dict)
    """Deny assignment request position -> the grants it fails to cover (at most ``_SHOWN``)."""
    notes: list[str] = field(default_factory=list)
    """What the reader should know (a DELETE of an assignment the estate does not have, a
    directory missing from the estate)."""


# ----------------------------------------------------------------------------------- requests


def access_requests(plan: Plan) -> list[PlanRequest]:
    """The plan's role and deny assignment requests, in order."""
    return [r for r in plan.requests if r.kind in ACCESS_KINDS]


def unresolved_request(request: PlanRequest) -> str | None:
    """Why ``request``'s effect on access is not known before deployment, or None when it is: an
    unresolved scope or id, an unknown principal, role or condition (a template value without a
    value), or a role assignment body that names no principal or role."""
    scope = request.scope or "/"
    if "{" in scope:
        return (
            f"its scope {clip(scope, _SHOWN)} is not known before deployment (for a template, give "
            "--subscription and --resource-group)"
        )
    if request.method.upper() == "DELETE":
        if "{" in request.name:
            return "the assignment it deletes is not known before deployment"
        return None
    for path, info in request.unknowns.items():
        low = path.lower()
        if request.kind == "denyAssignment" or low in _DECIDING:
            return f"{path} is not known before deployment: {info.text}"
    if request.kind == "roleAssignment":
        props = request.body.properties
        missing = [n for n in ("principalId", "roleDefinitionId") if not getattr(props, n)]
        if missing:
            return f"the body names no {' and no '.join(missing)}"
    return None


def _role_record(request: PlanRequest) -> RoleAssignmentRecord:
    props = request.body.properties
    return RoleAssignmentRecord(
        id=request.resource_id,
        name=request.name,
        type=ROLE_ASSIGNMENT_TYPE,
        properties=RoleAssignmentPropertiesRecord(
            roleDefinitionId=props.roleDefinitionId,
            principalId=props.principalId,
            principalType=props.principalType,
            scope=request.scope or "/",
            description=props.description,
            condition=props.condition,
            conditionVersion=props.conditionVersion,
            delegatedManagedIdentityResourceId=props.delegatedManagedIdentityResourceId,
        ),
    )


def _principals(values: Iterable[object]) -> list[PrincipalRecord]:
    return [
        PrincipalRecord(
            id=getattr(p, "id", None),
            type=getattr(p, "type", None),
            displayName=getattr(p, "displayName", None),
            email=getattr(p, "email", None),
        )
        for p in values
    ]


def _deny_record(request: PlanRequest) -> DenyAssignmentRecord:
    props = request.body.properties
    return DenyAssignmentRecord(
        id=request.resource_id,
        name=request.name,
        type=DENY_ASSIGNMENT_TYPE,
        properties=DenyAssignmentPropertiesRecord(
            denyAssignmentName=props.denyAssignmentName or request.name,
            description=props.description,
            scope=request.scope or "/",
            doNotApplyToChildScopes=props.doNotApplyToChildScopes,
            permissions=[
                DenyPermissionRecord(
                    actions=list(p.actions),
                    notActions=list(p.notActions),
                    dataActions=list(p.dataActions),
                    notDataActions=list(p.notDataActions),
                    condition=p.condition,
                    conditionVersion=p.conditionVersion,
                )
                for p in props.permissions
            ],
            principals=_principals(props.principals),
            excludePrincipals=_principals(props.excludePrincipals),
            isSystemProtected=props.isSystemProtected,
            condition=props.condition,
            conditionVersion=props.conditionVersion,
        ),
    )


# ------------------------------------------------------------------------------ the after-estate


class _Section:
    """One bulk section being changed: entries by lower-cased id, removals, additions."""

    def __init__(self, records: Sequence[RoleAssignmentRecord | DenyAssignmentRecord]) -> None:
        self.records: list[RoleAssignmentRecord | DenyAssignmentRecord | None] = list(records)
        self.original = len(records)
        self._by_id: dict[str, list[int]] | None = None
        self.changed = False

    def positions(self, key: str) -> list[int]:
        if self._by_id is None:
            by_id: dict[str, list[int]] = {}
            for i, record in enumerate(self.records):
                if record is not None:
                    by_id.setdefault(record.id.lower(), []).append(i)
            self._by_id = by_id
        return self._by_id.get(key, [])

    def remove(self, key: str) -> bool:
        found = [i for i in self.positions(key) if self.records[i] is not None]
        for i in found:
            self.records[i] = None
        if found:
            self.changed = True
            assert self._by_id is not None
            del self._by_id[key]
        return bool(found)

    def put(self, key: str, record: RoleAssignmentRecord | DenyAssignmentRecord) -> None:
        self.remove(key)
        assert self._by_id is not None
        self._by_id[key] = [len(self.records)]
        self.records.append(record)
        self.changed = True

    def result(self) -> tuple[list[object], dict[int, int]]:
        """The records left, and old index -> new index of the original ones kept."""
        kept: list[object] = []
        moved: dict[int, int] = {}
        for i, record in enumerate(self.records):
            if record is None:
                continue
            if i < self.original:
                moved[i] = len(kept)
            kept.append(record)
        return kept, moved


def apply_plan_to_estate(snapshot: Snapshot, plan: Plan) -> Snapshot:
    """The estate after ``plan``: ``snapshot`` with the plan's role and deny assignment ``PUT``\\ s
    (added, or replacing the assignment of the same id, ignoring case) and ``DELETE``\\ s
    (removed), in the plan's order. Requests whose effect is not known before deployment
    (:func:`unresolved_request`) are left out. Pure: ``snapshot`` is not changed."""
    requests = [r for r in access_requests(plan) if unresolved_request(r) is None]
    return _apply(snapshot, requests, [])


def _apply(snapshot: Snapshot, requests: Sequence[PlanRequest], notes: list[str]) -> Snapshot:
    sections = {
        "roleAssignment": _Section(snapshot.roleAssignments),
        "denyAssignment": _Section(snapshot.denyAssignments),
    }
    for request in requests:
        section = sections[request.kind]
        key = request.resource_id.lower()
        if request.method.upper() == "DELETE":
            if not section.remove(key):
                what = "role" if request.kind == "roleAssignment" else "deny"
                notes.append(
                    f"{request.json_path}: DELETE {clip(request.resource_id, _SHOWN)}: the estate "
                    f"has no such {what} assignment (nothing removed)"
                )
        elif request.kind == "roleAssignment":
            section.put(key, _role_record(request))
        else:
            section.put(key, _deny_record(request))
    changes: dict[str, object] = {}
    preserved = dict(snapshot.preserved)
    positions = dict(snapshot.positions)
    for kind, name in (
        ("roleAssignment", "roleAssignments"),
        ("denyAssignment", "denyAssignments"),
    ):
        section = sections[kind]
        if not section.changed:
            continue
        records, moved = section.result()
        changes[name] = records
        old = snapshot.preserved.get(name)
        if old:
            preserved[name] = {moved[i]: v for i, v in old.items() if i in moved}
        positions.pop(name, None)  # the after-estate's entries were not all read from a file
    if not changes:
        return dataclasses.replace(snapshot, warnings=list(snapshot.warnings))
    present = snapshot.present
    if present is not None:
        present = present | frozenset(changes)
    return dataclasses.replace(
        snapshot,
        preserved=preserved,
        positions=positions,
        present=present,
        warnings=list(snapshot.warnings),
        **changes,  # type: ignore[arg-type]
    )


# ----------------------------------------------------------------------------------- the change


def plan_access_change(
    snapshot: Snapshot, plan: Plan, *, before: Indexes | None = None
) -> PlanAccessChange:
    """The access change ``plan`` makes to ``snapshot`` (see the module's description).
    ``before`` is the snapshot's indexes when already built."""
    requests = tuple(access_requests(plan))
    positions = {id(r): i for i, r in enumerate(plan.requests)}

    def at(request: PlanRequest) -> int:
        return positions[id(request)]

    unknown: dict[int, str] = {}
    applied: list[PlanRequest] = []
    for request in requests:
        why = unresolved_request(request)
        if why is None:
            applied.append(request)
        else:
            unknown[at(request)] = why
    notes: list[str] = []
    after_snapshot = _apply(snapshot, applied, notes)
    b = before if before is not None else Indexes(snapshot)
    a = Indexes(after_snapshot)
    for request in applied:
        if request.kind == "roleAssignment" and request.method.upper() != "DELETE":
            role_id = request.body.properties.roleDefinitionId
            if a.catalogue.role_of(role_id) is None:
                unknown[at(request)] = (
                    f"role definition {clip(role_id, _SHOWN)} is neither built in nor in the "
                    "estate's roleDefinitions: what it grants is not known"
                )
    if requests and not snapshot.has_section("principals"):
        notes.append(
            "the estate has no directory (principals): the members of groups are not known, so "
            "the access change names the groups only"
        )
    ops = tuple((action, False) for action in (*PRIVILEGED_ACTIONS, _ROLE_DEFINITION_WRITE))
    full = access_delta(b, a, operations=ops)
    published = AccessDelta(
        tuple(c for c in full.changes if c.action != _ROLE_DEFINITION_WRITE),
        tuple((action, False) for action in PRIVILEGED_ACTIONS),
        full.names,
        full.stats,
    )
    change = PlanAccessChange(b, a, published, requests, unknown, notes=notes)
    work = _Work(change, applied, full, at)
    change.grants = work.grants()
    change.escalations = work.escalations()
    change.lost = work.lost_administrators()
    change.bypassed = work.bypassed()
    change.uncovered = work.uncovered()
    return change


def _is_new(change: AccessChange) -> bool:
    if change.after == "allowed":
        return change.before != "allowed"
    return change.after == "conditional" and change.before in ("denied", "notGranted")


def _tops(keys: Iterable[str], tree: ScopeTree) -> list[str]:
    """The scope keys with no ancestor among ``keys``."""
    found = set(keys)
    return sorted(k for k in found if not any(up in found for up in tree.chain(k)[1:]))


class _Work:
    def __init__(
        self,
        change: PlanAccessChange,
        applied: list[PlanRequest],
        full: AccessDelta,
        at: Callable[[PlanRequest], int],
    ) -> None:
        self.change = change
        self.at = at
        self.b, self.a = change.before, change.after
        self.full = full
        self.applied = applied
        self.puts = {
            r.resource_id.lower(): at(r)
            for r in applied
            if r.kind == "roleAssignment" and r.method.upper() != "DELETE"
        }
        self.denies = [
            (scope_key(r.scope or "/"), at(r)) for r in applied if r.kind != "roleAssignment"
        ]
        self._after_entries: dict[str, AssignmentEntry] | None = None
        self._removed: list[tuple[int, AssignmentEntry]] | None = None

    # -- lookups

    def entry(self, assignment_id: str) -> AssignmentEntry | None:
        """The after-estate's role assignment of an id."""
        if self._after_entries is None:
            self._after_entries = {}
            for entry in self.a.assignments:
                self._after_entries.setdefault(entry.id.lower(), entry)
        return self._after_entries.get(assignment_id.lower())

    def cause(self, change: AccessChange) -> int:
        """The plan request behind a change: the assignment it adds or replaces that grants, else
        a deny assignment request on the scope's chain, else the first request applied."""
        for granted in change.grantedBy:
            hit = self.puts.get(granted.lower())
            if hit is not None:
                return hit
        chain = self.a.scopes.chain(scope_key(change.scope))
        for key, index in self.denies:
            if key in chain:
                return index
        for index, entry in self.removed():
            if entry.scope in chain:
                return index
        return self.at(self.applied[0])

    def chosen(self, change: AccessChange) -> str | None:
        """The granting assignment to name: one the plan makes, else the first."""
        for granted in change.grantedBy:
            if granted.lower() in self.puts:
                return granted
        return change.grantedBy[0] if change.grantedBy else None

    def principal_type(self, key: str, entry: AssignmentEntry | None) -> str | None:
        record = self.a.directory.entry(key)
        if record is not None and record.type:
            return record.type
        if entry is not None and entry.principal == key:
            return entry.record.properties.principalType
        return None

    def removed(self) -> list[tuple[int, AssignmentEntry]]:
        """Role assignments of the estate the plan deletes or replaces by another (request index,
        the estate's entry)."""
        if self._removed is None:
            wanted = {
                r.resource_id.lower(): self.at(r)
                for r in self.applied
                if r.kind == "roleAssignment"
            }
            self._removed = []
            if wanted:
                for entry in self.b.assignments:
                    index = wanted.get(entry.id.lower())
                    if index is None:
                        continue
                    now = self.entry(entry.id)
                    if now is None or (now.principal, now.scope, now.role) != (
                        entry.principal,
                        entry.scope,
                        entry.role,
                    ):
                        self._removed.append((index, entry))
        return self._removed

    # -- ACC-001

    def grants(self) -> list[NewGrant]:
        groups: dict[tuple[int, str], list[AccessChange]] = {}
        for c in self.change.delta.changes:
            if _is_new(c):
                groups.setdefault((self.cause(c), c.principalId.lower()), []).append(c)
        out: list[NewGrant] = []
        tree = self.a.scopes
        names = self.full.names
        for (index, key), changes in groups.items():
            keys = [scope_key(c.scope) for c in changes]
            for top in _tops(keys, tree):
                at_top = [c for c, k in zip(changes, keys, strict=True) if k == top]
                below = sum(1 for k in set(keys) if k != top and top in tree.chain(k))
                out.append(self._grant(index, key, top, at_top, below, names))
        out.sort(key=lambda g: (g.request, g.principalId.lower(), g.scope.lower()))
        return out

    def _grant(
        self,
        index: int,
        key: str,
        top: str,
        changes: list[AccessChange],
        below: int,
        names: dict[str, str],
    ) -> NewGrant:
        first = next(
            (c for c in changes if (self.chosen(c) or "").lower() in self.puts), changes[0]
        )
        assignment = self.chosen(first)
        entry = self.entry(assignment) if assignment else None
        role = self.a.catalogue.name(entry.role) if entry is not None else None
        admin = (
            entry is not None
            and entry.role in ADMIN_ROLES
            and not _holds_role(self.b, key, self.b.scopes.chain(top), ADMIN_ROLES)
        )
        record = self.a.directory.entry(key)
        decision: Literal["allowed", "conditional"] = (
            "allowed" if any(c.after == "allowed" for c in changes) else "conditional"
        )
        return NewGrant(
            request=index,
            principalId=first.principalId,
            displayName=names.get(first.principalId) or self.a.directory.name(key),
            principalType=self.principal_type(key, entry),
            operations=tuple(
                sorted({c.action for c in changes}, key=lambda a: _ORDER.get(a, len(_ORDER)))
            ),
            decision=decision,
            before=first.before,
            scope=first.scope,
            scopesBelow=below,
            path=first.path,
            pathNames=tuple(names.get(g, g) for g in first.path),
            roleAssignmentId=assignment,
            roleName=role,
            assignmentScope=(entry.record.properties.scope or "/") if entry is not None else None,
            reason=first.reason,
            newAdministrator=admin,
            guest=record is not None and (record.userType or "").lower() == "guest",
            accountDisabled=record is not None and record.accountEnabled is False,
        )

    # -- ACC-002

    def escalations(self) -> list[NewEscalation]:
        candidates: dict[tuple[str, str], int] = {}
        for c in self.full.changes:
            if c.action not in ESCALATION_ACTIONS or c.after != "allowed":
                continue
            key = scope_key(c.scope)
            if ScopeTree.is_hierarchy_level(key):
                candidates.setdefault((c.principalId.lower(), key), self.cause(c))
        removed_admins = [(i, e) for i, e in self.removed() if e.role in ADMIN_ROLES]
        if removed_admins:
            levels = [k for k in self.a.scopes.known() if ScopeTree.is_hierarchy_level(k)]
            for index, entry in removed_admins:
                members = (entry.principal, *self.b.directory.transitive_members(entry.principal))
                for level in levels:
                    if entry.scope in self.a.scopes.chain(level):
                        for member in members:
                            candidates.setdefault((member, level), index)
        found: dict[tuple[int, str], dict[str, tuple[str, ...]]] = {}
        for (key, level), index in candidates.items():
            ops = _escalating(self.a, key, level)
            if ops and not _escalating(self.b, key, level):
                found.setdefault((index, key), {})[level] = ops
        out: list[NewEscalation] = []
        tree = self.a.scopes
        for (index, key), by_scope in found.items():
            for top in _tops(by_scope, tree):
                out.append(self._escalation(index, key, top, by_scope[top]))
        out.sort(key=lambda e: (e.request, e.principalId.lower(), e.scope.lower()))
        return out

    def _escalation(self, index: int, key: str, level: str, ops: tuple[str, ...]) -> NewEscalation:
        a = self.a
        directory = a.directory
        shown = directory.display(key)
        scope = a.scopes.display(level)
        decision = decide(a, AccessRequest(shown, ops[0], scope))
        granted = [g for g in decision.grantedBy if g.lower() in self.puts] or list(
            decision.grantedBy
        )
        entry = self.entry(granted[0]) if granted else None
        steps = [EscalationStep("principal", shown, f"'{directory.name(key)}'")]
        if entry is not None:
            for group in directory.group_path(key, entry.principal)[1:]:
                steps.append(
                    EscalationStep("group", directory.display(group), f"'{directory.name(group)}'")
                )
            steps.append(EscalationStep("roleAssignment", entry.id, entry.id))
            steps.append(
                EscalationStep("roleDefinition", entry.role, f"'{a.catalogue.name(entry.role)}'")
            )
        steps.append(EscalationStep("operation", ops[0], ops[0]))
        return NewEscalation(
            request=index,
            principalId=shown,
            displayName=directory.name(key),
            principalType=self.principal_type(key, entry),
            scope=scope,
            operations=ops,
            roleAssignmentIds=tuple(granted),
            path=tuple(steps),
        )

    # -- ACC-003

    def lost_administrators(self) -> list[LostAdministrators]:
        removed = [(i, e) for i, e in self.removed() if e.role in ADMIN_ROLES]
        if not removed:
            return []
        out: list[LostAdministrators] = []
        levels = sorted(
            k
            for k in set(self.b.scopes.known()) | set(self.a.scopes.known())
            if ScopeTree.kind(k) in ("managementGroup", "subscription")
        )
        for level in levels:
            chain = self.b.scopes.chain(level)
            causes = [(i, e) for i, e in removed if e.scope in chain]
            if not causes:
                continue
            before = _administrators(self.b, level)
            if not before or _administrators(self.a, level):
                continue
            out.append(
                LostAdministrators(
                    request=causes[0][0],
                    scope=self.b.scopes.display(level),
                    before=tuple(self.b.directory.display(p) for p in sorted(before)),
                    removedAssignments=tuple(dict.fromkeys(e.id for _, e in causes)),
                )
            )
        return out

    # -- ACC-001: conditions newly bypassed (RBAC-012 deltas)

    def bypassed(self) -> list[NewBypass]:
        """RBAC-012 after the change less RBAC-012 before: the operations of a conditioned
        assignment that an unconditioned grant bypasses after and none did before (computed on the
        two estates only when the plan adds or replaces a role assignment)."""
        if not self.puts:
            return []

        before = {
            (b.roleAssignmentId.lower(), b.principalId.lower(), op)
            for b in bypassed_conditions(self.b)
            for op in b.operations
        }
        out: list[NewBypass] = []
        for b in bypassed_conditions(self.a):
            key = (b.roleAssignmentId.lower(), b.principalId.lower())
            ops = tuple(op for op in b.operations if (*key, op) not in before)
            if not ops:
                continue
            b = dataclasses.replace(b, operations=ops)
            index = self.puts.get(b.bypassingAssignmentId.lower())
            if index is None:
                index = self.puts.get(b.roleAssignmentId.lower())
            if index is not None:
                out.append(NewBypass(index, b))
        out.sort(key=lambda n: (n.request, n.bypass.principalId.lower(), n.bypass.scope.lower()))
        return out

    # -- grants a new deny assignment fails to cover

    def uncovered(self) -> dict[int, list[UncoveredGrant]]:
        out: dict[int, list[UncoveredGrant]] = {}
        denies = {d.id.lower(): d for d in self.a.denies}
        for r in self.applied:
            if r.kind != "denyAssignment" or r.method.upper() == "DELETE":
                continue
            d = denies.get(r.resource_id.lower())
            if d is not None:
                found = self._uncovered(self.at(r), d)
                if found:
                    out[self.at(r)] = found
                    who = ", ".join(dict.fromkeys(f"{u.displayName} ({u.why})" for u in found[:5]))
                    more = " and more" if len({u.principalId for u in found}) > 5 else ""
                    self.change.notes.append(
                        f"deny assignment {clip(d.id, _SHOWN)} does not cover {len(found)} "
                        f"grant(s) of its operations at its scope or below: {who}{more} (ACC-001 "
                        "evidence 'uncovered')"
                    )
        return out

    def _uncovered(self, index: int, d: DenyEntry) -> list[UncoveredGrant]:
        """The grants of the deny's operations still allowed (or conditional) after the change
        to a principal it names or excludes (or, for a deny naming everyone, that holds an
        assignment on its chain or below), and their members: asked at the deny's scope, at the
        scopes below it where the principal or one of its groups holds an assignment and, for
        ``doNotApplyToChildScopes``, at its children; the highest scope per principal and
        operation is listed. At most ``_DECISIONS`` decisions per deny (a note says when cut)."""
        a = self.a
        directory = a.directory
        tree = a.scopes
        by_principal = a.by_principal
        children = (
            [k for k in tree.known() if k != d.scope and tree.chain(k)[1:2] == (d.scope,)]
            if d.at_scope_only
            else []
        )
        named = set(d.principals) | set(d.excluded)
        if d.everyone:
            for k, holders in a.at_scope.items():
                if d.scope in tree.chain(k) or k in tree.chain(d.scope):
                    named.update(holders)
        candidates = set(named)
        for key in named:
            candidates.update(directory.transitive_members(key))
        ops: list[tuple[str, bool]] = []
        for perm in d.record.properties.permissions or ():
            for data, wanted, unwanted in (
                (False, perm.actions, perm.notActions),
                (True, perm.dataActions, perm.notDataActions),
            ):
                for op in wanted or ():
                    if not any(intersects(n, op) for n in unwanted or ()):
                        ops.append((op, data))
        found: list[UncoveredGrant] = []
        budget = _DECISIONS
        for key in sorted(candidates):
            shown = directory.display(key)
            identities = directory.identities(key)
            held = {
                k
                for identity in identities
                for k in by_principal.get(identity, {})
                if k != d.scope and d.scope in tree.chain(k)
            }
            scopes = sorted({d.scope, *children, *held}, key=lambda k: (len(tree.chain(k)), k))
            for op, data in dict.fromkeys(ops):
                budget -= len(scopes)
                if budget < 0:
                    self.change.notes.append(
                        f"deny assignment {clip(d.id, _SHOWN)}: the grants it fails to cover "
                        f"were looked for in {_DECISIONS:,} decisions only; the list is incomplete"
                    )
                    return found
                hit: set[str] = set()
                for scope in scopes:
                    if any(up in hit for up in tree.chain(scope)):
                        continue
                    shown_scope = tree.display(scope)
                    decision = decide(a, AccessRequest(shown, op, shown_scope, dataAction=data))
                    if decision.decision not in ("allowed", "conditional"):
                        continue
                    hit.add(scope)
                    if identities & d.excluded or d.excludes_everyone:
                        why = "excluded"
                    elif scope != d.scope and d.at_scope_only:
                        why = "doNotApplyToChildScopes"
                    elif d.cond is not None or any(p.cond is not None for p in d.permissions):
                        why = "condition"
                    else:
                        why = "notNamed"
                    found.append(
                        UncoveredGrant(
                            index,
                            shown,
                            directory.name(key),
                            op,
                            data,
                            shown_scope,
                            decision.decision,
                            why,
                            decision.grantedBy,
                        )
                    )
                    if len(found) >= _SHOWN:
                        return found
        return found


def _escalating(ix: Indexes, key: str, level: str) -> tuple[str, ...]:
    """The escalation operations ``key`` is allowed at ``level`` without holding an administrator
    role there or above (RBAC-010), or ``()``."""
    shown = ix.directory.display(key)
    scope = ix.scopes.display(level)
    ops = tuple(
        op
        for op in ESCALATION_ACTIONS
        if decide(ix, AccessRequest(shown, op, scope), explain=False).decision == "allowed"
    )
    if not ops or _holds_role(ix, key, ix.scopes.chain(level), ADMIN_ROLES):
        return ()
    return ops


def _administrators(ix: Indexes, level: str) -> set[str]:
    """The principal keys holding an administrator role at ``level`` or above."""
    found: set[str] = set()
    for scope in ix.scopes.chain(level):
        for principal, entries in ix.at_scope.get(scope, {}).items():
            if any(e.role in ADMIN_ROLES for e in entries):
                found.add(principal)
    return found
