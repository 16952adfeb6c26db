"""The access-change rules of the gate (ACC-001, -002, -003; issue 19): what a plan's role and deny
assignment requests do to access, judged against the estate given with ``auditor gate --estate``.

The change is computed once per run by :func:`auditor.access.plan_access_change` (the runner puts
it in the run's cache under :data:`ACCESS_CHANGE`); these checks turn it into outcomes, one set per
role or deny assignment request of the plan, each finding pointing at that request (its template
file and line, and its resource id, so inline suppressions and waivers match it):

- a request the rule finds nothing against passes;
- a request whose effect is not known before deployment (an unresolved principal, role, scope or
  condition) is ``unknown``, with the reason;
- without an estate (``gate`` with no ``--estate``) every role and deny assignment request is
  ``unknown`` for every ACC rule: the access change was not computed, which is never a pass.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from auditor.audit.checks._registry import CheckContext, Outcome, run_check

if TYPE_CHECKING:
    from auditor.access.analysis import BypassedCondition
    from auditor.access.plan_change import PlanAccessChange
    from auditor.audit.resources import Resource
    from auditor.estate.plan import PlanRequest

ACCESS_CHANGE = "accessChange"
"""The run-cache key of the plan's :class:`~auditor.access.plan_change.PlanAccessChange`; absent
when no estate was given."""

NO_ESTATE = (
    "no estate was given, so the access change was not computed (gate with --estate SNAPSHOT)"
)

_TYPES = {
    "roleAssignment": "Cloud.Authorization/roleAssignments",
    "denyAssignment": "Cloud.Authorization/denyAssignments",
}


def _requests(ctx: CheckContext) -> Iterator[tuple[int, PlanRequest, Resource | None]]:
    """The plan's role and deny assignment requests with their positions in the plan (several
    plan files may repeat an index) and their resources."""
    if ctx.plan is None:
        return
    by_request = {id(r.request): r for r in ctx.resources.get("request", ()) if r.request}
    for position, request in enumerate(ctx.plan.requests):
        if request.kind in _TYPES:
            yield position, request, by_request.get(id(request))


def _outcome(
    request: PlanRequest,
    resource: Resource | None,
    passed: bool,
    evidence: dict[str, Any] | None = None,
    *,
    detail: str = "",
    fields: dict[str, Any] | None = None,
    unknown: str | None = None,
) -> Outcome:
    base = {"method": request.method.upper()}
    return Outcome(
        passed,
        evidence,
        detail,
        resource,
        request.resource_id,
        _TYPES[request.kind],
        request.name,
        request.json_path,
        None,
        {**base, **(fields or {})},
        unknown,
    )


def _judge(
    ctx: CheckContext,
) -> Iterator[tuple[int, PlanRequest, Resource | None, PlanAccessChange | None, str | None]]:
    """Each request with its position, the change (None without an estate) and why it cannot be
    judged."""
    change: PlanAccessChange | None = ctx.cache.get(ACCESS_CHANGE)
    for position, request, resource in _requests(ctx):
        if change is None:
            yield position, request, resource, None, NO_ESTATE
        else:
            yield position, request, resource, change, change.unknown.get(position)


def _unknown(request: PlanRequest, resource: Resource | None, why: str) -> Outcome:
    return _outcome(request, resource, False, {"reason": why}, detail="access-change", unknown=why)


def _via(names: tuple[str, ...]) -> str:
    return f" through {' → '.join(names)}" if names else ""


@run_check("access-change-privileged")
def new_privileged_access(ctx: CheckContext) -> Iterator[Outcome]:
    """ACC-001: a principal newly allowed (or newly conditional) for a privileged operation."""
    for position, request, resource, change, why in _judge(ctx):
        if why is not None or change is None:
            yield _unknown(request, resource, why or NO_ESTATE)
            continue
        grants = [g for g in change.grants if g.request == position]
        extra = _uncovered_evidence(change, position)
        for g in grants:
            notes: list[str] = []
            if g.newAdministrator:
                notes.append(f"newly an administrator ({g.roleName})")
            if g.guest:
                notes.append("a guest user")
            if g.accountDisabled:
                notes.append("a disabled account")
            if g.decision == "conditional":
                notes.append("conditional: it depends on a condition's attributes")
            below = f" and {g.scopesBelow} scope(s) below" if g.scopesBelow else ""
            if g.roleAssignmentId:
                holder = (
                    f"role assignment {g.roleAssignmentId.rstrip('/').rsplit('/', 1)[-1]} gives "
                    f"'{g.roleName}' at {g.assignmentScope}"
                )
            else:
                holder = "no single assignment"
            yield _outcome(
                request,
                resource,
                False,
                {
                    "principalId": g.principalId,
                    "principalName": g.displayName,
                    "principalType": g.principalType,
                    "operations": list(g.operations),
                    "before": g.before,
                    "after": g.decision,
                    "scope": g.scope,
                    "scopesBelow": g.scopesBelow,
                    "path": list(g.path),
                    "pathNames": list(g.pathNames),
                    "roleAssignmentId": g.roleAssignmentId,
                    "role": g.roleName,
                    "assignmentScope": g.assignmentScope,
                    "newAdministrator": g.newAdministrator,
                    "guest": g.guest,
                    "accountDisabled": g.accountDisabled,
                    "reason": g.reason,
                    **extra,
                },
                detail=f"principal={g.principalId.lower()}@{g.scope.lower()}",
                fields={
                    "principalName": g.displayName,
                    "principalType": g.principalType or "principal",
                    "operations": ", ".join(g.operations),
                    "scope": g.scope,
                    "below": below,
                    "via": _via(g.pathNames),
                    "holder": holder,
                    "notes": f" ({'; '.join(notes)})" if notes else "",
                },
            )
        bypasses = [n.bypass for n in change.bypassed if n.request == position]
        for b in bypasses:
            yield _bypass_outcome(request, resource, change, b, extra)
        if not grants and not bypasses:
            yield _outcome(request, resource, True, extra or None)


def _uncovered_evidence(change: PlanAccessChange, position: int) -> dict[str, Any]:
    """``uncovered``: the grants a deny assignment request fails to cover, for the evidence."""
    found = change.uncovered.get(position)
    return {"uncovered": [u.to_wire() for u in found]} if found else {}


def _short(assignment_id: str) -> str:
    return assignment_id.rstrip("/").rsplit("/", 1)[-1]


def _bypass_outcome(
    request: PlanRequest,
    resource: Resource | None,
    change: PlanAccessChange,
    b: BypassedCondition,
    extra: dict[str, Any],
) -> Outcome:
    """ACC-001 for a condition newly bypassed (an RBAC-012 delta)."""
    directory = change.after.directory
    key = b.principalId.lower()
    record = directory.entry(key)
    name = directory.name(key)
    kind = record.type if record is not None and record.type else None
    names = tuple(directory.name(k.lower()) for k in b.via[1:])
    return _outcome(
        request,
        resource,
        False,
        {
            "principalId": b.principalId,
            "principalName": name,
            "principalType": kind,
            "operations": list(b.operations),
            "scope": b.scope,
            "conditionNewlyBypassed": True,
            "conditionedAssignmentId": b.roleAssignmentId,
            "targetedActions": list(b.targetedActions),
            "roleAssignmentId": b.bypassingAssignmentId,
            "role": b.bypassingRoleName,
            "assignmentScope": b.bypassingScope,
            "path": list(b.via[1:]),
            **extra,
        },
        detail=f"bypass={b.roleAssignmentId.lower()}>{b.bypassingAssignmentId.lower()}",
        fields={
            "principalName": name,
            "principalType": kind or "principal",
            "operations": ", ".join(b.operations),
            "scope": b.scope,
            "below": "",
            "via": _via(names),
            "holder": (
                f"role assignment {_short(b.bypassingAssignmentId)} gives "
                f"'{b.bypassingRoleName}' at {b.bypassingScope} without a condition"
            ),
            "notes": (
                f" (newly bypasses the condition of role assignment "
                f"{_short(b.roleAssignmentId)}, RBAC-012)"
            ),
        },
    )


@run_check("access-change-escalation")
def new_escalation(ctx: CheckContext) -> Iterator[Outcome]:
    """ACC-002: a principal newly able to write role assignments or definitions at ``/``, a
    management group or a subscription without an administrator role there (a new RBAC-010)."""
    for position, request, resource, change, why in _judge(ctx):
        if why is not None or change is None:
            yield _unknown(request, resource, why or NO_ESTATE)
            continue
        found = [e for e in change.escalations if e.request == position]
        for e in found:
            yield _outcome(
                request,
                resource,
                False,
                {
                    "principalId": e.principalId,
                    "principalName": e.displayName,
                    "principalType": e.principalType,
                    "scope": e.scope,
                    "operations": list(e.operations),
                    "roleAssignmentIds": list(e.roleAssignmentIds),
                    "path": [s.to_wire() for s in e.path],
                },
                detail=f"principal={e.principalId.lower()}@{e.scope.lower()}",
                fields={
                    "principalName": e.displayName,
                    "principalType": e.principalType or "principal",
                    "operation": " and ".join(
                        f"write {o.rsplit('/', 2)[-2]}" for o in e.operations
                    ),
                    "scope": e.scope,
                    "path": e.path_text,
                },
            )
        if not found:
            yield _outcome(request, resource, True)


@run_check("access-change-last-administrator")
def last_administrator(ctx: CheckContext) -> Iterator[Outcome]:
    """ACC-003: a management group or subscription left without any principal holding Owner,
    User Access Administrator or Role Based Access Control Administrator at it or above."""
    for position, request, resource, change, why in _judge(ctx):
        if why is not None or change is None:
            yield _unknown(request, resource, why or NO_ESTATE)
            continue
        found = [lost for lost in change.lost if lost.request == position]
        for lost in found:
            yield _outcome(
                request,
                resource,
                False,
                {
                    "scope": lost.scope,
                    "administratorsBefore": list(lost.before),
                    "removedAssignments": list(lost.removedAssignments),
                },
                detail=f"scope={lost.scope.lower()}",
                fields={
                    "scope": lost.scope,
                    "count": len(lost.before),
                },
            )
        if not found:
            yield _outcome(request, resource, True)
