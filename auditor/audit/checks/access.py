"""Access-control checks that data cannot say (RBAC-010, -012, -013, DENY-003): graph analyses of
the access engine (:mod:`auditor.access`), which owns every decision (groups, scopes, roles, denies,
conditions); these checks turn its analyses into outcomes. The other access rules are predicates
over the access rows of :mod:`auditor.access.views` (``rules/access.yaml``).

Which resources each rule judges (the passes it reports), and the decisions taken:

- RBAC-010: every scope of the hierarchy (``/``, management groups, subscriptions); one failure per
  principal and scope.
- RBAC-012: role assignments with a condition. RBAC-013: role assignments whose scope is at, above or
  below a deny assignment's scope (elsewhere no deny can block anything).
- DENY-003: every deny assignment.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from itertools import compress
from operator import attrgetter
from typing import Any

from auditor.audit.checks._registry import CheckContext, Outcome, PassMany, run_check
from auditor.audit.findings import Located
from auditor.audit.limits import MAX_ITEMS, TRUNCATED
from auditor.estate.roles import (
    RBAC_ADMINISTRATOR,
)

_ENTRY_ID = attrgetter("id")
_SCOPE = attrgetter("scope")

ROLE_ASSIGNMENT = "Cloud.Authorization/roleAssignments"
DENY_ASSIGNMENT = "Cloud.Authorization/denyAssignments"
SCOPE = "Cloud.Authorization/scopes"

ESCALATION_ACTIONS = (
    "Cloud.Authorization/roleAssignments/write",
    "Cloud.Authorization/roleDefinitions/write",
)
_EMPTY: dict[str, Any] = {}


def _ix(ctx: CheckContext) -> Any:
    return ctx.access().indexes


def _location(ix: Any, index: int) -> str:
    return f"roleAssignments[{index}]"


def _pass_items(ctx: CheckContext) -> Located:
    """The :class:`PassMany` item of every assignment, ``(id, location)``, made when read
    (:class:`~auditor.audit.findings.Located`: a million passes hold the list of ids only) and
    shared by every rule (RBAC-003, -004, -005, -009 and -013 each pass most of a million
    assignments); a transient cache entry, dropped when the run ends."""
    table: Located | None = ctx.cache.get("transient:passItems")
    if table is None:
        ix = _ix(ctx)
        # a comprehension: faster than map(attrgetter) over a million records in 3.11
        table = Located([entry.record.id for entry in ix.assignments], "roleAssignments")
        ctx.cache["transient:passItems"] = table
    return table


def _assignment_outcome(
    ix: Any, index: int, entry: Any, passed: bool, evidence: dict[str, Any], **fields: Any
) -> Outcome:
    record = entry.record
    return Outcome(
        passed,
        evidence,
        "",
        None,
        record.id or f"roleAssignments[{index}]",
        ROLE_ASSIGNMENT,
        record.name or record.id,
        _location(ix, index),
        None,
        fields or None,
    )


def _assignment_fields(
    ix: Any, entry: Any, names: dict[str, tuple[str, str]] | None = None
) -> dict[str, Any]:
    """The template fields of an assignment's outcome. ``names``: a memo of each principal key's
    id as shown and name, for a caller making many (their look-ups miss the processor's caches
    on a large estate)."""
    principal = entry.principal
    shown = None if names is None else names.get(principal)
    if shown is None:
        shown = (ix.directory.display(principal), ix.directory.name(principal))
        if names is not None:
            names[principal] = shown
    record = entry.record
    return {
        "assignmentName": record.name or record.id,
        "principalId": shown[0],
        "principalName": shown[1],
        "role": ix.catalogue.name(entry.role),
        "scope": record.properties.scope or "/",
    }


# ---------------------------------------------------------------------------- shadow admins (010)


@run_check("shadow-admins")
def shadow_admins(ctx: CheckContext) -> Iterator[Outcome]:
    """RBAC-010: principals that can write role assignments or definitions at a hierarchy scope
    without an administrator role there; one outcome per principal and scope."""
    from auditor.access.scopes import ROOT, ScopeTree

    engine = ctx.access()
    ix = engine.indexes
    failed_scopes: set[str] = set()
    found = engine.escalations()
    ctx.cache["escalations"] = found
    reported = {(e.principalId.lower(), e.scope.lower()) for e in found}
    groups: list[Any] = []
    for esc in found:
        for i, step in enumerate(esc.path):
            if step.kind != "group" or (step.id.lower(), esc.scope.lower()) in reported:
                continue
            reported.add((step.id.lower(), esc.scope.lower()))
            groups.append(_group_escalation(esc, i))
    for esc in [*found, *groups]:
        key = esc.scope.lower().rstrip("/") or ROOT
        failed_scopes.add(key)
        yield Outcome(
            False,
            {
                "principalId": esc.principalId,
                "principalType": esc.principalType,
                "operations": list(esc.operations),
                "decision": esc.decision,
                "roleAssignmentIds": list(esc.roleAssignmentIds),
                "path": [s.to_wire() for s in esc.path],
            },
            detail=f"principal={esc.principalId.lower()}",
            resource_id=esc.scope,
            resource_type=SCOPE,
            resource_name=esc.scope,
            fields={
                "principalName": esc.displayName or esc.principalId,
                "operation": " and ".join(f"write {o.rsplit('/', 2)[-2]}" for o in esc.operations),
                "scope": esc.scope,
                "path": esc.path_text,
            },
        )
    scopes = {ROOT, *(k for k in ix.scopes.known() if ScopeTree.is_hierarchy_level(k))}
    for key in sorted(scopes):
        if key in failed_scopes:
            continue
        shown = ix.scopes.display(key)
        yield Outcome(
            True,
            _EMPTY,
            resource_id=shown,
            resource_type=SCOPE,
            resource_name=shown,
            fields={"scope": shown},
        )


def _group_escalation(esc: Any, index: int) -> Any:
    """The escalation of a group on a member's path: the path from that group on."""
    from dataclasses import replace

    step = esc.path[index]
    return replace(
        esc,
        principalId=step.id,
        principalType="Group",
        displayName=step.name,
        path=esc.path[index:],
    )


# ----------------------------------------------------------------- bypassed, dead (012/013)


@run_check("bypassed-conditions")
def bypassed_conditions(ctx: CheckContext) -> Iterator[Outcome]:
    """RBAC-012: a conditioned assignment whose targeted operations an unconditioned grant gives the
    same principal at the same scope or above."""
    engine = ctx.access()
    ix = engine.indexes
    entries = ix.assignments
    # the assignments whose record has a condition (a few of a million), as the index found them:
    # the analysis judges those of them whose condition is not blank, without a pass of its own
    conditioned = ix.conditioned
    by_assignment: dict[str, list[Any]] = defaultdict(list)
    for b in engine.bypassed_conditions([entries[index] for index in conditioned]):
        by_assignment[b.roleAssignmentId.lower()].append(b)
    names: dict[str, tuple[str, str]] = {}
    for index in conditioned:
        entry = entries[index]
        hits = by_assignment.get(entry.id.lower())
        fields = _assignment_fields(ix, entry, names)
        if not hits:
            yield _assignment_outcome(ix, index, entry, True, _EMPTY, **fields)
            continue
        operations = sorted({op for b in hits for op in b.operations})
        bypassers = list(dict.fromkeys(b.bypassingAssignmentId for b in hits))
        # the first MAX_ITEMS grants only (a hostile estate can hold thousands per assignment)
        evidence: dict[str, Any] = {
            "targetedActions": sorted({a for b in hits for a in b.targetedActions}),
            "operations": operations,
            "bypassedBy": [
                {
                    "roleAssignmentId": b.bypassingAssignmentId,
                    "scope": b.bypassingScope,
                    "role": b.bypassingRoleName,
                    "via": list(b.via),
                }
                for b in hits[:MAX_ITEMS]
            ],
        }
        if len(hits) > MAX_ITEMS:
            evidence[TRUNCATED] = {"items": {"bypassedBy": len(hits) - MAX_ITEMS}}
        yield _assignment_outcome(
            ix,
            index,
            entry,
            False,
            evidence,
            **fields,
            operation=", ".join(operations),
            bypassedBy=", ".join(f"{b.bypassingRoleName} at {b.bypassingScope}" for b in hits[:3])
            + (f" and {len(bypassers) - 3} more" if len(bypassers) > 3 else ""),
        )


@run_check("dead-grants")
def dead_grants(ctx: CheckContext) -> Iterator[Outcome | PassMany]:
    """RBAC-013: every operation an assignment grants is blocked for its principal by denies."""
    engine = ctx.access()
    ix = engine.indexes
    dead = {d.roleAssignmentId.lower(): d for d in engine.dead_grants()}
    deny_scopes = set(ix.deny_by_scope)
    if not deny_scopes:
        return
    above_denies: set[str] = set()
    for scope in deny_scopes:
        above_denies.update(ix.scopes.chain(scope))
    items = _pass_items(ctx)
    entries = ix.assignments
    # every loop over the million assignments runs in C: whether each one's scope is at, above
    # or below a deny's (decided once per scope: the keys of the index by scope), which are dead
    # (their ids looked up)
    chain = ix.scopes.chain
    related = {
        scope: scope in above_denies or not deny_scopes.isdisjoint(chain(scope))
        for scope in ix.by_scope
    }
    if all(related.values()):  # a deny at the root, say: every assignment is related
        passing = bytearray(b"\x01") * len(entries)
    else:
        passing = bytearray(map(related.__getitem__, map(_SCOPE, entries)))
    failing: list[int] = []
    if dead:
        ids = map(str.lower, map(_ENTRY_ID, entries))
        failing = list(compress(range(len(entries)), map(dead.__contains__, ids)))
    for index in failing:
        entry = entries[index]
        d = dead[entry.id.lower()]
        passing[index] = 0
        fields = _assignment_fields(ix, entry)
        yield _assignment_outcome(
            ix,
            index,
            entry,
            False,
            {"role": d.roleName, "deniedBy": list(d.deniedBy)},
            **fields,
            deniedBy=", ".join(d.deniedBy),
        )
    # the passes picked by a byte each, listed only if read (most reports count them)
    yield PassMany(ROLE_ASSIGNMENT, items.picked(bytes(passing)))


# --------------------------------------------------------------------------------- denies


def _deny_outcome(
    index: int, da: Any, passed: bool, evidence: dict[str, Any], **fields: Any
) -> Outcome:
    p = da.properties
    fields.setdefault("denyName", p.denyAssignmentName or da.name or da.id)
    fields.setdefault("scope", p.scope)
    return Outcome(
        passed,
        evidence,
        resource_id=da.id or f"denyAssignments[{index}]",
        resource_type=DENY_ASSIGNMENT,
        resource_name=p.denyAssignmentName or da.name,
        location=f"denyAssignments[{index}]",
        fields=fields,
    )


@run_check("deny-not-applied-to-children")
def deny_not_applied_to_children(ctx: CheckContext) -> Iterator[Outcome]:
    """DENY-003: ``doNotApplyToChildScopes`` at a scope whose child scopes carry denied operations."""
    if ctx.snapshot is None:
        return
    weak = {w.denyAssignmentId.lower(): w for w in ctx.access().weak_child_denies()}
    for index, da in enumerate(ctx.snapshot.denyAssignments):
        w = weak.get((da.id or "").lower())
        if w is None:
            yield _deny_outcome(
                index,
                da,
                True,
                {"doNotApplyToChildScopes": bool(da.properties.doNotApplyToChildScopes)},
            )
            continue
        shown = ", ".join(w.childScopes[:3]) + (
            f" and {w.childCount - 3} more" if w.childCount > 3 else ""
        )
        yield _deny_outcome(
            index,
            da,
            False,
            {
                "doNotApplyToChildScopes": True,
                "childScopes": list(w.childScopes),
                "childCount": w.childCount,
                "operations": list(w.operations),
            },
            children=shown,
        )


__all__ = ["ESCALATION_ACTIONS", "RBAC_ADMINISTRATOR"]
