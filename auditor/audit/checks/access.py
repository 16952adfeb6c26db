"""Access-control checks (RBAC-*, DENY-*) over the access engine (:mod:`auditor.access`): the
engine owns every decision (groups, scopes, roles, denies, conditions); these checks turn its
analyses into outcomes.

Which resources each rule judges (the passes it reports), and the decisions taken:

- RBAC-001, -002, -014: every subscription the snapshot knows (hierarchy and every scope seen).
- RBAC-003: role assignments of a privileged role, and role assignments held by a guest (directly or
  through a group with a guest member, transitively).
- RBAC-004: role assignments whose principal is in the directory (a disabled account fails).
- RBAC-005: every role assignment; **decision**: a snapshot without any directory entry is not
  judged (the directory was not collected, so every assignment would look orphaned).
- RBAC-006, -007, -015: custom roles (``type: CustomRole``). RBAC-015 counts ``/`` as above every
  management group (so a role assignable at ``/`` is assignable at management groups).
- RBAC-008: User Access Administrator assignments. RBAC-009: service principal assignments.
- RBAC-010: every scope of the hierarchy (``/``, management groups, subscriptions); one failure per
  principal and scope.
- RBAC-011: role assignments and deny assignments with a condition or a ``conditionVersion``, and
  conditions in the permissions of the snapshot's role definitions.
- RBAC-012: role assignments with a condition. RBAC-013: role assignments whose scope is at, above or
  below a deny assignment's scope (elsewhere no deny can block anything).
- DENY-001, -002, -003: every deny assignment.
"""

from __future__ import annotations

import functools
import weakref
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from auditor.audit.checks._registry import CheckContext, Outcome, PassMany, run_check
from auditor.audit.limits import MAX_ITEMS, TRUNCATED
from auditor.estate.roles import (
    OWNER,
    RBAC_ADMINISTRATOR,
    USER_ACCESS_ADMINISTRATOR,
    role_guid,
)

ROLE_ASSIGNMENT = "Cloud.Authorization/roleAssignments"
ROLE_DEFINITION = "Cloud.Authorization/roleDefinitions"
DENY_ASSIGNMENT = "Cloud.Authorization/denyAssignments"
SUBSCRIPTION = "Cloud.Resources/subscriptions"
SCOPE = "Cloud.Authorization/scopes"

ESCALATION_ACTIONS = (
    "Cloud.Authorization/roleAssignments/write",
    "Cloud.Authorization/roleDefinitions/write",
)
SP_PRIVILEGED = frozenset(
    {OWNER, "b24988ac-6180-42a0-ab88-20f7382dd24c", USER_ACCESS_ADMINISTRATOR}
)
MAX_LISTED = 20


def _ix(ctx: CheckContext) -> Any:
    return ctx.access().indexes


def _principal_type(ix: Any, entry: Any) -> str:
    record = ix.directory.entry(entry.principal)
    if record is not None and record.type:
        return str(record.type)
    return entry.record.properties.principalType or "User"


_LOCATIONS: weakref.WeakKeyDictionary[Any, list[str]] = weakref.WeakKeyDictionary()


def _locations(ix: Any) -> list[str]:
    """``roleAssignments[i]`` for every assignment: one string each, shared by every rule's
    findings (a large estate has millions of findings on a million assignments)."""
    table = _LOCATIONS.get(ix)
    if table is None:
        table = _LOCATIONS[ix] = [f"roleAssignments[{i}]" for i in range(len(ix.assignments))]
    return table


def _location(ix: Any, index: int) -> str:
    return _locations(ix)[index]


def _pass_items(ctx: CheckContext) -> list[tuple[str, str | None]]:
    """The :class:`PassMany` item of every assignment, ``(id, location)``: made once per run and
    shared by every rule (RBAC-003, -004, -005, -009 and -013 each pass most of a million
    assignments); a transient cache entry, dropped when the run ends."""
    table: list[tuple[str, str | None]] | None = ctx.cache.get("transient:passItems")
    if table is None:
        ix = _ix(ctx)
        locations = _locations(ix)
        table = [
            (entry.record.id or locations[i], locations[i])
            for i, entry in enumerate(ix.assignments)
        ]
        ctx.cache["transient:passItems"] = table
    return table


def _principal_types(ctx: CheckContext) -> dict[str, str]:
    """Directory key -> lower-cased ``type`` of every directory entry that has one, shared by the
    rules of one run (see :func:`_lower_principal_type`)."""
    types: dict[str, str] | None = ctx.cache.get("principalTypes")
    if types is None:
        types = {
            key: str(record.type).lower()
            for key, record in _ix(ctx).directory.entries()
            if record.type
        }
        ctx.cache["principalTypes"] = types
    return types


def _directory_keys(ctx: CheckContext) -> frozenset[str]:
    """The keys of every directory entry (``directory.entry(key) is not None``), once per run."""
    keys: frozenset[str] | None = ctx.cache.get("directoryKeys")
    if keys is None:
        keys = ctx.cache["directoryKeys"] = frozenset(
            k for k, r in _ix(ctx).directory.entries() if r is not None
        )
    return keys


def _lower_principal_type(types: dict[str, str], entry: Any) -> str:
    """``_principal_type(ix, entry).lower()`` with ``types`` of :func:`_principal_types`."""
    found = types.get(entry.principal)
    if found is not None:
        return found
    return (entry.record.properties.principalType or "User").lower()


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


def _assignment_fields(ix: Any, entry: Any) -> dict[str, Any]:
    return {
        "assignmentName": entry.record.name or entry.record.id,
        "principalId": ix.directory.display(entry.principal),
        "principalName": ix.directory.name(entry.principal),
        "role": ix.catalogue.name(entry.role),
        "scope": entry.record.properties.scope or "/",
    }


def _subscriptions(ix: Any) -> list[str]:
    from auditor.access.scopes import ScopeTree

    subs = {ScopeTree.subscription_of(k) for k in ix.scopes.known()}
    return sorted(s for s in subs if s is not None)


# ---------------------------------------------------------------------------- owners (001/002)


def _owners(ctx: CheckContext, too_many: bool) -> Iterator[Outcome]:
    ix = _ix(ctx)
    limit = int(ctx.settings["maxSubscriptionOwners" if too_many else "minSubscriptionOwners"])
    for subs in ctx.access().subscription_owners():
        count = subs.count
        owners = [o.principalId for o in subs.owners]
        passed = count <= limit if too_many else count >= limit
        yield Outcome(
            passed,
            {"owners": owners[:MAX_LISTED], "ownerCount": count, "limit": limit},
            resource_id=subs.subscription,
            resource_type=SUBSCRIPTION,
            resource_name=ix.scopes.display(subs.subscription.lower()),
            fields={"subscription": subs.subscription, "count": count, "limit": limit},
        )


@run_check("too-many-owners")
def too_many_owners(ctx: CheckContext) -> Iterator[Outcome]:
    """RBAC-001: more than ``maxSubscriptionOwners`` distinct owners at the subscription or above."""
    return _owners(ctx, True)


@run_check("too-few-owners")
def too_few_owners(ctx: CheckContext) -> Iterator[Outcome]:
    """RBAC-002: fewer than ``minSubscriptionOwners`` distinct owners (counted as RBAC-001)."""
    return _owners(ctx, False)


# --------------------------------------------------------------------------------- guests (003)


@run_check("privileged-guests")
def privileged_guests(ctx: CheckContext) -> Iterator[Outcome | PassMany]:
    """RBAC-003: a guest holds a privileged role, directly or through nested groups."""
    from auditor.access import PRIVILEGED_ROLES

    engine = ctx.access()
    ix = engine.indexes
    by_assignment: dict[str, list[Any]] = defaultdict(list)
    for gp in engine.guest_privileges():
        by_assignment[gp.roleAssignmentId.lower()].append(gp)
    guest_identities: set[str] = set()
    for key, record in ix.directory.entries():
        if (record.userType or "").lower() == "guest":
            guest_identities |= ix.directory.identities(key)
    passes: list[tuple[str, str | None]] = []
    items = _pass_items(ctx)
    for index, entry in enumerate(ix.assignments):
        hits = by_assignment.get(entry.id.lower())
        if hits:
            for gp in hits:
                names = [ix.directory.name(v.lower()) for v in gp.via[1:]]
                via = f" through {' → '.join(names)}" if names else ""
                yield Outcome(
                    False,
                    {
                        "guest": gp.principalId,
                        "role": gp.roleName,
                        "scope": gp.scope,
                        "via": list(gp.via),
                    },
                    detail=f"guest={gp.principalId.lower()}",
                    resource_id=entry.record.id,
                    resource_type=ROLE_ASSIGNMENT,
                    resource_name=entry.record.name or entry.record.id,
                    location=f"roleAssignments[{index}]",
                    fields={
                        "principalName": gp.displayName or gp.principalId,
                        "role": gp.roleName,
                        "scope": gp.scope,
                        "via": via,
                    },
                )
        elif entry.role in PRIVILEGED_ROLES or entry.principal in guest_identities:
            passes.append(items[index])
    yield PassMany(ROLE_ASSIGNMENT, passes)


_EMPTY: dict[str, Any] = {}


# ------------------------------------------------------------------- disabled, orphaned (004/005)


@run_check("disabled-account-assignments")
def disabled_account_assignments(ctx: CheckContext) -> Iterator[Outcome | PassMany]:
    """RBAC-004: a role assignment to a disabled account (``accountEnabled: false``)."""
    ix = _ix(ctx)
    directory = ix.directory
    disabled = {k for k, r in directory.entries() if r.accountEnabled is False}
    known = _directory_keys(ctx)
    passes: list[tuple[str, str | None]] = []
    items = _pass_items(ctx)
    for index, entry in enumerate(ix.assignments):
        if entry.principal not in known:
            continue
        if entry.principal in disabled:
            fields = _assignment_fields(ix, entry)
            yield _assignment_outcome(
                ix,
                index,
                entry,
                False,
                {"principalId": fields["principalId"], "accountEnabled": False},
                **fields,
            )
        else:
            passes.append(items[index])
    yield PassMany(ROLE_ASSIGNMENT, passes)


@run_check("orphaned-assignments")
def orphaned_assignments(ctx: CheckContext) -> Iterator[Outcome | PassMany]:
    """RBAC-005: the assignment's principal is not in the directory."""
    ix = _ix(ctx)
    if ctx.snapshot is None or not ctx.snapshot.principals:
        return
    known = _directory_keys(ctx)
    passes: list[tuple[str, str | None]] = []
    items = _pass_items(ctx)
    for index, entry in enumerate(ix.assignments):
        if entry.principal not in known:
            fields = _assignment_fields(ix, entry)
            yield _assignment_outcome(
                ix,
                index,
                entry,
                False,
                {"principalId": fields["principalId"], "inDirectory": False},
                **fields,
            )
        else:
            passes.append(items[index])
    yield PassMany(ROLE_ASSIGNMENT, passes)


# ------------------------------------------------------------------------- custom roles (006/007/015)


def _custom_roles(ctx: CheckContext) -> Iterator[tuple[int, Any, Any]]:
    """``(index in roleDefinitions, definition, RoleEntry)`` of every custom role of the snapshot."""
    if ctx.snapshot is None:
        return
    catalogue = _ix(ctx).catalogue
    for index, definition in enumerate(ctx.snapshot.roleDefinitions):
        if (definition.properties.type or "").lower() != "customrole":
            continue
        entry = catalogue.role(role_guid(definition.id or definition.name or ""))
        yield index, definition, entry


def _role_outcome(
    index: int, definition: Any, passed: bool, evidence: dict[str, Any], **fields: Any
) -> Outcome:
    rid = definition.id or definition.name or f"roleDefinitions[{index}]"
    fields.setdefault("roleName", definition.properties.roleName or definition.name or rid)
    return Outcome(
        passed,
        evidence,
        resource_id=rid,
        resource_type=ROLE_DEFINITION,
        resource_name=definition.properties.roleName or definition.name,
        location=f"roleDefinitions[{index}]",
        fields=fields,
    )


@run_check("custom-role-wildcard")
def custom_role_wildcard(ctx: CheckContext) -> Iterator[Outcome]:
    """RBAC-006: a custom role grants ``*`` in ``actions``."""
    for index, definition, _entry in _custom_roles(ctx):
        wild = [
            i
            for i, p in enumerate(definition.properties.permissions)
            if "*" in [a.strip() for a in p.actions]
        ]
        yield _role_outcome(index, definition, not wild, {"permissionsWithStar": wild})


@run_check("custom-role-writes-access")
def custom_role_writes_access(ctx: CheckContext) -> Iterator[Outcome]:
    """RBAC-007: a custom role's actions (minus its notActions) match a role assignment or role
    definition write."""
    for index, definition, entry in _custom_roles(ctx):
        operations: list[str] = []
        patterns: list[str] = []
        for perm in entry.permissions if entry is not None else ():
            for op in ESCALATION_ACTIONS:
                if perm.matches(op.lower(), False):
                    if op not in operations:
                        operations.append(op)
                    for pattern in perm.actions:
                        from auditor.access.globs import matches

                        if matches(pattern, op) and pattern not in patterns:
                            patterns.append(pattern)
        yield _role_outcome(
            index,
            definition,
            not operations,
            {"operations": operations, "grantedBy": patterns},
            operations=" and ".join(operations),
            patterns=", ".join(patterns),
        )


@run_check("data-actions-at-management-group")
def data_actions_at_management_group(ctx: CheckContext) -> Iterator[Outcome]:
    """RBAC-015: a custom role lists ``dataActions`` and is assignable at a management group (or at
    ``/``, which is above every management group)."""
    from auditor.access.scopes import ScopeTree, scope_key

    for index, definition, _entry in _custom_roles(ctx):
        has_data = any(p.dataActions for p in definition.properties.permissions)
        mg_scopes = [
            s
            for s in definition.properties.assignableScopes
            if ScopeTree.kind(scope_key(s)) in ("managementGroup", "root")
        ]
        yield _role_outcome(
            index,
            definition,
            not (has_data and mg_scopes),
            {"dataActions": has_data, "managementGroupScopes": mg_scopes},
            scopes=", ".join(mg_scopes),
        )


# ------------------------------------------------------------------------ UAA, SPs (008/009)


@run_check("uaa-at-high-scope")
def uaa_at_high_scope(ctx: CheckContext) -> Iterator[Outcome]:
    """RBAC-008: User Access Administrator assigned at ``/`` or at a management group."""
    from auditor.access.scopes import ScopeTree

    ix = _ix(ctx)
    for index, entry in enumerate(ix.assignments):
        if entry.role != USER_ACCESS_ADMINISTRATOR:
            continue
        kind = ScopeTree.kind(entry.scope)
        fields = _assignment_fields(ix, entry)
        yield _assignment_outcome(
            ix,
            index,
            entry,
            kind not in ("root", "managementGroup"),
            {"scope": fields["scope"], "scopeKind": kind},
            **fields,
        )


@run_check("privileged-service-principals")
def privileged_service_principals(ctx: CheckContext) -> Iterator[Outcome | PassMany]:
    """RBAC-009: a service principal holds Owner, Contributor or User Access Administrator at a
    subscription, a management group or ``/``."""
    from auditor.access.scopes import ScopeTree

    ix = _ix(ctx)
    types = _principal_types(ctx)
    passes: list[tuple[str, str | None]] = []
    items = _pass_items(ctx)
    for index, entry in enumerate(ix.assignments):
        if _lower_principal_type(types, entry) != "serviceprincipal":
            continue
        kind = ScopeTree.kind(entry.scope)
        failed = entry.role in SP_PRIVILEGED and kind in ("root", "managementGroup", "subscription")
        if not failed:
            passes.append(items[index])
            continue
        fields = _assignment_fields(ix, entry)
        yield _assignment_outcome(
            ix,
            index,
            entry,
            not failed,
            {"role": fields["role"], "scope": fields["scope"], "scopeKind": kind},
            **fields,
        )
    yield PassMany(ROLE_ASSIGNMENT, passes)


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


# ----------------------------------------------------------------------------- conditions (011)


@functools.lru_cache(maxsize=8192)
def _condition_problems(condition: str | None, version: str | None) -> tuple[str, ...]:
    """Problems of a condition (cached: an estate repeats the same few condition texts)."""
    from auditor.expr.condition import validate_condition

    return tuple(validate_condition(condition, version))


def validate_condition(condition: str | None, version: str | None) -> list[str]:
    return list(_condition_problems(condition, version))


@run_check("invalid-conditions")
def invalid_conditions(ctx: CheckContext) -> Iterator[Outcome]:
    """RBAC-011: conditions that do not parse, exceed 8 KB, or have a conditionVersion other than
    2.0 (role assignments, deny assignments, and role definition permissions of the snapshot)."""
    snap = ctx.snapshot
    if snap is None:
        return
    for index, ra in enumerate(snap.roleAssignments):
        p = ra.properties
        if p.condition is None and p.conditionVersion is None:
            continue
        problems = validate_condition(p.condition, p.conditionVersion)
        yield Outcome(
            not problems,
            {"conditionVersion": p.conditionVersion, "problems": problems} if problems else _EMPTY,
            resource_id=ra.id or f"roleAssignments[{index}]",
            resource_type=ROLE_ASSIGNMENT,
            resource_name=ra.name or ra.id,
            location=f"roleAssignments[{index}].properties.condition",
            fields={
                "kind": "Role assignment",
                "name": ra.name or ra.id,
                "problem": "; ".join(problems),
                "scope": p.scope,
            },
        )
    for index, da in enumerate(snap.denyAssignments):
        dp = da.properties
        entries = [("", dp.condition, dp.conditionVersion, f"denyAssignments[{index}].properties")]
        entries += [
            (
                f"permissions[{i}]",
                perm.condition,
                perm.conditionVersion,
                f"denyAssignments[{index}].properties.permissions[{i}]",
            )
            for i, perm in enumerate(dp.permissions)
        ]
        for detail, cond, version, where in entries:
            if cond is None and version is None:
                continue
            problems = validate_condition(cond, version)
            yield Outcome(
                not problems,
                {"conditionVersion": version, "problems": problems} if problems else _EMPTY,
                detail=detail,
                resource_id=da.id or f"denyAssignments[{index}]",
                resource_type=DENY_ASSIGNMENT,
                resource_name=dp.denyAssignmentName or da.name,
                location=where,
                fields={
                    "kind": "Deny assignment",
                    "name": dp.denyAssignmentName or da.name or da.id,
                    "problem": "; ".join(problems),
                    "scope": dp.scope,
                },
            )
    for index, rd in enumerate(snap.roleDefinitions):
        for i, perm in enumerate(rd.properties.permissions):
            if perm.condition is None and perm.conditionVersion is None:
                continue
            problems = validate_condition(perm.condition, perm.conditionVersion)
            yield Outcome(
                not problems,
                {"conditionVersion": perm.conditionVersion, "problems": problems}
                if problems
                else _EMPTY,
                detail=f"permissions[{i}]",
                resource_id=rd.id or rd.name or f"roleDefinitions[{index}]",
                resource_type=ROLE_DEFINITION,
                resource_name=rd.properties.roleName or rd.name,
                location=f"roleDefinitions[{index}].properties.permissions[{i}]",
                fields={
                    "kind": "Role definition",
                    "name": rd.properties.roleName or rd.name,
                    "problem": "; ".join(problems),
                    "scope": ", ".join(rd.properties.assignableScopes),
                },
            )


# ----------------------------------------------------------------- bypassed, dead (012/013)


@run_check("bypassed-conditions")
def bypassed_conditions(ctx: CheckContext) -> Iterator[Outcome]:
    """RBAC-012: a conditioned assignment whose targeted operations an unconditioned grant gives the
    same principal at the same scope or above."""
    engine = ctx.access()
    ix = engine.indexes
    by_assignment: dict[str, list[Any]] = defaultdict(list)
    for b in engine.bypassed_conditions():
        by_assignment[b.roleAssignmentId.lower()].append(b)
    for index, entry in enumerate(ix.assignments):
        if not entry.record.properties.condition:
            continue
        hits = by_assignment.get(entry.id.lower())
        fields = _assignment_fields(ix, entry)
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
    chain_hit: dict[str, bool] = {}
    passes: list[tuple[str, str | None]] = []
    items = _pass_items(ctx)
    for index, entry in enumerate(ix.assignments):
        d = dead.get(entry.id.lower())
        if d is not None:
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
            continue
        related = chain_hit.get(entry.scope)
        if related is None:
            related = entry.scope in above_denies or not deny_scopes.isdisjoint(
                ix.scopes.chain(entry.scope)
            )
            chain_hit[entry.scope] = related
        if related:
            passes.append(items[index])
    yield PassMany(ROLE_ASSIGNMENT, passes)


# ----------------------------------------------------------------------- direct users (014)


@run_check("direct-user-assignments")
def direct_user_assignments(ctx: CheckContext) -> Iterator[Outcome]:
    """RBAC-014: more than ``maxDirectUserAssignments`` direct user assignments in a subscription
    (at the subscription or below)."""
    from auditor.access.scopes import ScopeTree

    ix = _ix(ctx)
    types = _principal_types(ctx)
    limit = int(ctx.settings["maxDirectUserAssignments"])
    counts: dict[str, list[str]] = defaultdict(list)
    sub_of: dict[str, str | None] = {}
    for entry in ix.assignments:
        sub = sub_of.get(entry.scope, "")
        if sub == "":
            sub = sub_of[entry.scope] = ScopeTree.subscription_of(entry.scope)
        if sub is None:
            continue
        if _lower_principal_type(types, entry) == "user":
            counts[sub].append(entry.id)
    for sub in _subscriptions(ix):
        ids = counts.get(sub, [])
        shown = ix.scopes.display(sub)
        yield Outcome(
            len(ids) <= limit,
            {"directUserAssignments": len(ids), "limit": limit, "examples": ids[:MAX_LISTED]},
            resource_id=shown,
            resource_type=SUBSCRIPTION,
            resource_name=shown,
            fields={"subscription": shown, "count": len(ids), "limit": limit},
        )


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


@run_check("user-deny-assignments")
def user_deny_assignments(ctx: CheckContext) -> Iterator[Outcome]:
    """DENY-001: a deny assignment that is not system protected."""
    if ctx.snapshot is None:
        return
    for index, da in enumerate(ctx.snapshot.denyAssignments):
        protected = da.properties.isSystemProtected is True
        yield _deny_outcome(
            index, da, protected, {"isSystemProtected": da.properties.isSystemProtected}
        )


@run_check("deny-excludes-named")
def deny_excludes_named(ctx: CheckContext) -> Iterator[Outcome]:
    """DENY-002: a deny assignment excludes a principal its own ``principals`` names directly."""
    if ctx.snapshot is None:
        return
    for index, da in enumerate(ctx.snapshot.denyAssignments):
        named = {(p.id or "").lower(): p for p in da.properties.principals if p.id}
        both = [p.id for p in da.properties.excludePrincipals if p.id and p.id.lower() in named]
        yield _deny_outcome(
            index,
            da,
            not both,
            {"namedAndExcluded": both},
            principals=", ".join(str(b) for b in both),
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
