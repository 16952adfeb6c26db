"""The decision function (semantics §1-2, contracts §4): a pure function of a request and the indexes.

1. The identity set is the principal plus every group it belongs to, transitively.
2. Deny assignments first: at the requested scope, or at an ancestor unless
   ``doNotApplyToChildScopes``; naming one of the identities (or every principal); excluding none of
   them (exclusion wins over naming); with a permission matching the operation. Its condition (the
   deny's and the permission's) must hold: true blocks, undecidable makes the answer conditional
   unless it is settled anyway (nothing grants the operation).
3. Otherwise role assignments at the scope or above, to one of the identities, whose role has a
   matching permission: additive. The assignment's condition and the permission's condition must
   hold; an unconditioned grant allows outright.

This is the only place that decides access: the queries, the audit's rules and the sandbox call it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

import msgspec

from auditor._collector import paused
from auditor.access.catalogue import Catalogue, CompiledPermission
from auditor.access.conditions import Cond, condition_request, reads_phrase
from auditor.access.indexes import (
    AssignmentEntry,
    DenyEntry,
    Indexes,
    Levels,
    OpPlan,
    deny_order_key,
)

if TYPE_CHECKING:
    from auditor.expr.condition import ConditionRequest

__all__ = [
    "AccessRequest",
    "Decision",
    "DenyHit",
    "GrantHit",
    "Verdict",
    "decide",
    "decide_batch",
    "decisions_to_json_lines",
    "deny_hits",
    "grant_hits",
]

Verdict = Literal["allowed", "denied", "notGranted", "conditional"]

_MEMO_LIMIT = 65536
"""How many entries the decision's memos (``deniedBy`` tuples, reason texts) keep before they
start afresh."""

_QUIET_BATCH = 1024
"""A batch of at least this many requests is decided with the garbage collector paused: decisions
create no reference cycles, and the caches a first batch fills (identities, levels) would
otherwise be walked by every young collection, a fifth of the time of those first requests."""


class AccessRequest(msgspec.Struct, frozen=True, gc=False, forbid_unknown_fields=True):
    """One access request (contracts §4). ``attributes`` None means unknown (three-valued
    evaluation); a mapping, even empty, means concrete attributes. A frozen ``msgspec`` Struct
    that the garbage collector does not track (a batch holds hundreds of thousands); JSON Lines
    are decoded straight into it (see :mod:`auditor.access.requests`), unknown fields refused."""

    principalId: str
    action: str
    scope: str
    dataAction: bool = False
    subOperation: str | None = None
    attributes: Mapping[str, Any] | None = None

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "principalId": self.principalId,
            "action": self.action,
            "dataAction": self.dataAction,
            "scope": self.scope,
            "subOperation": self.subOperation,
        }
        if self.attributes is not None:
            out["attributes"] = dict(self.attributes)
        return out


_ENCODE = msgspec.json.Encoder().encode


def _none() -> tuple[str, ...]:
    return ()


class Decision(msgspec.Struct, frozen=True, gc=False, omit_defaults=True):
    """The answer to one request (contracts §4). A frozen ``msgspec`` Struct: a batch builds tens
    of thousands a second, and these cost a fraction of a dataclass to build; they hold only
    strings and tuples of strings, so the garbage collector need not track them (a large batch
    kept in memory then triggers no collections that walk it).

    Encoded by ``msgspec`` as the JSON of contracts §4: ``omit_defaults`` leaves out exactly an
    empty ``warnings`` (its default, the empty tuple); the other fields' defaults come from
    factories that ``msgspec`` never takes for "empty", so they are always written."""

    decision: Verdict
    principalId: str
    action: str
    scope: str
    grantedBy: tuple[str, ...] = msgspec.field(default_factory=_none)
    deniedBy: tuple[str, ...] = msgspec.field(default_factory=_none)
    conditions: tuple[str, ...] = msgspec.field(default_factory=_none)
    reason: str = msgspec.field(default_factory=str)
    warnings: tuple[str, ...] = ()
    """What the request named that the estate does not know (an unknown principal, a scope outside
    the estate, an action no role or known operation names, an attribute no condition reads):
    the answer is right for the request as written, but the request may not say what was meant.
    The decision function never sets it; :meth:`AccessEngine.check` does when asked
    (:mod:`auditor.access.advice`)."""

    def to_wire(self) -> dict[str, Any]:
        """The JSON object of contracts §4 (``warnings`` only when there are some)."""
        out: dict[str, Any] = {
            "decision": self.decision,
            "principalId": self.principalId,
            "action": self.action,
            "scope": self.scope,
            "grantedBy": list(self.grantedBy),
            "deniedBy": list(self.deniedBy),
            "conditions": list(self.conditions),
            "reason": self.reason,
        }
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out

    def to_json(self) -> bytes:
        """The same object as :meth:`to_wire`, as compact UTF-8 JSON (the fields in the same
        order, text not escaped). Written by ``msgspec`` straight from the fields: a fifth of the
        time of ``json.dumps`` of the wire form, which otherwise costs a JSON Lines batch as much
        as the decisions themselves. An empty ``warnings`` is left out (``omit_defaults``)."""
        return _ENCODE(self)


_ENCODE_LINES = msgspec.json.Encoder().encode_lines


def decisions_to_json_lines(decisions: Sequence[Decision]) -> bytes:
    """:meth:`Decision.to_json` of each decision, a line each (every line ends with a line break),
    written in one call."""
    return _ENCODE_LINES(decisions)


class GrantHit(msgspec.Struct, frozen=True, gc=False):
    """A role assignment that grants (``value`` True), might grant (None) or would grant but for a
    false condition (False) the operation. ``identity`` is the principal or group key it is made to;
    ``distance`` how many levels above the requested scope it sits."""

    assignment: AssignmentEntry
    identity: str
    distance: int
    value: bool | None
    conditions: tuple[str, ...]
    permissions: tuple[CompiledPermission, ...]


class DenyHit(msgspec.Struct, frozen=True, gc=False):
    """A deny assignment that might block the operation (``value`` None: its condition cannot be
    decided); those that block outright need no hit object (see :func:`deny_hits`)."""

    deny: DenyEntry
    distance: int
    value: bool | None
    conditions: tuple[str, ...]


class _Ctx(msgspec.Struct, gc=False):
    """The condition module's request, built on first need."""

    request: AccessRequest
    _built: ConditionRequest | None = None

    def get(self) -> ConditionRequest:
        if self._built is None:
            request = self.request
            self._built = condition_request(
                request.action, request.subOperation, request.attributes
            )
        return self._built


def _conjunct(
    outer: Cond | None, perms: tuple[CompiledPermission, ...], ctx: _Ctx
) -> tuple[bool | None, tuple[str, ...]]:
    """``outer AND (OR of the permissions' conditions)`` three-valued, with the texts of the
    undecided conditions that the value depends on."""
    part: bool | None = False
    undecided: list[str] = []
    for perm in perms:
        cond = perm.cond
        if cond is None:
            part = True
            break
        value = cond.evaluate(ctx.get())
        if value is True:
            part = True
            break
        if value is None:
            part = None
            undecided.append(cond.text)
    if part is False:
        return False, ()
    if outer is None:
        return part, (() if part else tuple(undecided))
    value = outer.evaluate(ctx.get())
    if value is False:
        return False, ()
    if value is True:
        return part, (() if part else tuple(undecided))
    if part is True:
        return None, (outer.text,)
    return None, (outer.text, *undecided)


def deny_hits(
    identities: tuple[str, ...], levels: Levels, plan: OpPlan, ctx: _Ctx, clean: bool = False
) -> tuple[list[DenyEntry], list[DenyHit]]:
    """The deny assignments that apply: those that block, in deny order (nearest first, then id
    ignoring case, then snapshot order), and those that might block (their condition is
    undecidable), nearest first. ``clean`` says that no deny assignment names or excludes any of
    the identities (see :attr:`Indexes.deny_subjects`): then only those that name every principal
    need a look."""
    blocking: list[DenyEntry] = []
    doubtful: list[DenyHit] = []
    by_level = plan.denies
    base = levels.base
    for level, height in levels.deny_levels:
        found = by_level.get(level)
        if found is None:
            continue
        distance = base - height
        start = len(blocking)
        groups = 0  # each group is in deny order; a level that mixes two is sorted below
        if clean:
            block = found.plain_here if not distance else found.plain
            if block:
                blocking += block
                groups = 1
            others = found.others_everyone
        else:
            if found.everyone:
                blocking += found.everyone
                groups = 1
            if not distance and found.everyone_here:
                blocking += found.everyone_here
                groups += 1
            if found.unless:
                before = len(blocking)
                for deny in found.unless:
                    if deny.excluded.isdisjoint(identities):
                        blocking.append(deny)
                if len(blocking) > before:
                    groups += 1
            others = found.others
        if others:
            before = len(blocking)
            for deny, perms in others:
                if distance and deny.at_scope_only:
                    continue
                if not (deny.everyone or not deny.principals.isdisjoint(identities)):
                    continue
                if deny.excludes_everyone or (
                    deny.excluded and not deny.excluded.isdisjoint(identities)
                ):
                    continue
                if deny.cond is None and perms[0].cond is None:
                    blocking.append(deny)
                    continue
                value, conds = _conjunct(deny.cond, perms, ctx)
                if value is True:
                    blocking.append(deny)
                elif value is None:
                    doubtful.append(DenyHit(deny, distance, None, conds))
            if len(blocking) > before:
                groups += 1
        if groups > 1:
            blocking[start:] = sorted(blocking[start:], key=deny_order_key)
    return blocking, doubtful


def grant_hits(
    catalogue: Catalogue,
    identities: tuple[str, ...],
    levels: Levels,
    plan: OpPlan,
    ctx: _Ctx,
) -> list[GrantHit]:
    """Role assignments at the scope or above, to one of the identities, whose role matches the
    operation, with the value of their conditions (False ones included, for the reason)."""
    table = plan.roles
    operation = plan.operation
    data = plan.data
    hits: list[GrantHit] = []
    base = levels.base
    if len(identities) == 1:
        (only,) = identities
        for principals, height in levels.grant_levels:
            mine = principals.get(only)
            if mine is not None:
                _collect(catalogue, table, mine, only, base - height, operation, data, ctx, hits)
        return hits
    for principals, height in levels.grant_levels:
        if principals.keys().isdisjoint(identities):
            continue
        for identity in principals.keys() & identities:
            _collect(
                catalogue,
                table,
                principals[identity],
                identity,
                base - height,
                operation,
                data,
                ctx,
                hits,
            )
    return hits


def _collect(
    catalogue: Catalogue,
    table: dict[str, tuple[CompiledPermission, ...]],
    bucket: tuple[AssignmentEntry, ...],
    identity: str,
    distance: int,
    operation: str,
    data: bool,
    ctx: _Ctx,
    hits: list[GrantHit],
) -> None:
    for entry in bucket:
        perms = table.get(entry.role)
        if perms is None:
            perms = catalogue.granting(entry.role, operation, data, table)
        if not perms:
            continue
        if entry.cond is None and perms[0].cond is None:
            hits.append(GrantHit(entry, identity, distance, True, (), perms))
            continue
        value, conds = _conjunct(entry.cond, perms, ctx)
        hits.append(GrantHit(entry, identity, distance, value, conds, perms))


def _grant_order(hit: GrantHit, principal: str) -> tuple[int, int, str]:
    return (hit.distance, hit.identity != principal, hit.assignment.id.lower())


def _deny_order(hit: DenyHit) -> tuple[int, str, int]:
    return (hit.distance, hit.deny.sort_key, hit.deny.position)


def _denied_by(ix: Indexes, blocking: list[DenyEntry]) -> tuple[str, ...]:
    """The ``deniedBy`` of blocking deny assignments (in deny order, each id once), one tuple
    shared by every decision blocked by the same ones (remembered in :attr:`Indexes.denied_ids`):
    a large batch keeps hundreds of thousands of decisions, and nearly half are denials by a few
    combinations of deny assignments."""
    ids = ix.denied_ids
    key = tuple(blocking)
    hit = ids.get(key)
    if hit is None:
        hit = _unique([deny.id for deny in blocking])
        if len(ids) >= _MEMO_LIMIT:
            ids.clear()
        ids[key] = hit
    return hit


def _unique(items: list[str]) -> tuple[str, ...]:
    if len(items) == 1:
        return (items[0],)
    return tuple(dict.fromkeys(items))


def decide(ix: Indexes, request: AccessRequest, *, explain: bool = True) -> Decision:
    """The decision for one request. ``explain=False`` leaves ``reason`` empty (for queries that
    explain in their own terms)."""
    return _decide(ix, request, ix.levels(request.scope), explain)


def decide_batch(
    ix: Indexes,
    requests: Sequence[AccessRequest],
    *,
    notes: Notes | None = None,
) -> list[Decision]:
    """The decisions for many requests, in their order, each exactly as :func:`decide` gives it;
    with ``notes`` (an :class:`~auditor.access.advice.Advisor`), each carrying the warnings
    ``notes`` gives for its request: the scope's once per run of requests at one scope, the rest
    right after the decision, while the request's strings are still in the processor's caches
    (see :meth:`AccessEngine.check_many`).

    The requests are taken sorted by scope: requests at one scope or in one subscription then
    meet the same levels, tables and entries while these are still in the processor's caches,
    which on a large estate makes a batch a quarter faster or more than taking the requests as
    they come. Decisions are pure functions of the request and the indexes, so the order in
    which they are made changes nothing else. A batch of :data:`_QUIET_BATCH` requests or more
    is decided with the garbage collector paused (and left as it was found)."""
    count = len(requests)
    if count < 2:
        decisions = [decide(ix, request) for request in requests]
        if notes is not None and decisions:
            found = notes.request(requests[0])
            if found:
                decisions[0] = _with_warnings(decisions[0], found)
        return decisions
    with paused(when=count >= _QUIET_BATCH):  # see _QUIET_BATCH
        scopes = [request.scope for request in requests]
        order = sorted(range(count), key=scopes.__getitem__)
        out: list[Decision | None] = [None] * count
        last = scopes[order[0]]
        levels = ix.levels(last)
        principals = ix.principal_cache.get
        plans = ix.plan_cache
        if notes is None:
            for i in order:
                request = requests[i]
                if request.scope != last:
                    last = request.scope
                    levels = ix.levels(last)
                seen = principals(request.principalId) or ix.principal(request.principalId)
                plan = plans[request.dataAction].get(request.action) or ix.plan(
                    request.action, request.dataAction
                )
                out[i] = _decided(ix, request, levels, True, seen, plan)
            return out  # type: ignore[return-value]  # every place is filled
        here = notes.scope(last)
        for i in order:
            request = requests[i]
            if request.scope != last:
                last = request.scope
                levels = ix.levels(last)
                here = notes.scope(last)
            seen = principals(request.principalId) or ix.principal(request.principalId)
            plan = plans[request.dataAction].get(request.action) or ix.plan(
                request.action, request.dataAction
            )
            decision = _decided(ix, request, levels, True, seen, plan)
            # what the decision's look-ups found: whether the snapshot knows the principal, and
            # the operation (its plan's flag, set on first meeting it)
            p = _NONE if seen[3] else notes.principal(request.principalId)
            known = plan.known
            if known:
                a = _NONE
            else:
                a = notes.action(request.action, request.dataAction)
                if known is None:
                    plan.known = not a
            if p or here or a or request.attributes:
                found = p + here + a + notes.attributes(request)
                if found:
                    decision = _with_warnings(decision, found)
            out[i] = decision
    return out  # type: ignore[return-value]  # every place is filled


_NONE: tuple[str, ...] = ()


class Notes(Protocol):
    """What :func:`decide_batch` asks for warnings (see :class:`~auditor.access.advice.Advisor`)."""

    def request(self, request: AccessRequest) -> tuple[str, ...]: ...
    def principal(self, principal_id: str) -> tuple[str, ...]: ...
    def scope(self, scope: str) -> tuple[str, ...]: ...
    def action(self, action: str, data: bool) -> tuple[str, ...]: ...
    def attributes(self, request: AccessRequest) -> tuple[str, ...]: ...


def _with_warnings(decision: Decision, warnings: tuple[str, ...]) -> Decision:
    return msgspec.structs.replace(decision, warnings=warnings)


def _decide(ix: Indexes, request: AccessRequest, levels: Levels, explain: bool) -> Decision:
    # the caches read inline: a method call saved per request on a path taken 50k times a second
    seen = ix.principal_cache.get(request.principalId) or ix.principal(request.principalId)
    plan = ix.plan_cache[request.dataAction].get(request.action) or ix.plan(
        request.action, request.dataAction
    )
    return _decided(ix, request, levels, explain, seen, plan)


def _decided(
    ix: Indexes,
    request: AccessRequest,
    levels: Levels,
    explain: bool,
    seen: tuple[str, tuple[str, ...], bool, bool],
    plan: OpPlan,
) -> Decision:
    """The decision, the principal's cache entry and the operation's plan looked up (by
    :func:`_decide`, or inline by :func:`decide_batch`, which reads them again for warnings)."""
    principal, identities, clean, _known = seen
    ctx = _Ctx(request)
    # no deny assignment that would reach this principal can have been skipped (the usual case)
    quiet = clean and not plan.clean_skips

    if levels.deny_levels:
        blocking, denies = deny_hits(identities, levels, plan, ctx, clean)
        if blocking:
            denied_by = _denied_by(ix, blocking)
            return Decision(
                "denied",
                request.principalId,
                request.action,
                request.scope,
                (),
                denied_by,
                (),
                _reason_denied(ix, request, principal, identities, blocking) if explain else "",
            )
    else:
        denies = []

    grants = grant_hits(ix.catalogue, identities, levels, plan, ctx)
    if not grants:
        return Decision(
            "notGranted",
            request.principalId,
            request.action,
            request.scope,
            (),  # given, not defaulted: a factory call a decision saved
            (),
            (),
            reason=_reason_not_granted(ix, request, principal, grants)
            + ("" if quiet else _skipped_denies(ix, principal, identities, levels, plan, clean))
            if explain
            else "",
        )
    definite = [g for g in grants if g.value is True]
    maybe = [g for g in grants if g.value is None] if len(definite) < len(grants) else []
    if not definite and not maybe:
        return Decision(
            "notGranted",
            request.principalId,
            request.action,
            request.scope,
            (),  # given, not defaulted: a factory call a decision saved
            (),
            (),
            reason=_reason_not_granted(ix, request, principal, grants)
            + ("" if quiet else _skipped_denies(ix, principal, identities, levels, plan, clean))
            if explain
            else "",
        )
    if len(denies) > 1:
        denies.sort(key=_deny_order)
    if definite:
        if len(definite) > 1:
            definite.sort(key=lambda g: _grant_order(g, principal))
        granted_by = _unique([g.assignment.id for g in definite])
        if not denies:
            return Decision(
                "allowed",
                request.principalId,
                request.action,
                request.scope,
                granted_by,
                (),
                (),
                reason=_reason_allowed(ix, request, principal, definite)
                + ("" if quiet else _skipped_denies(ix, principal, identities, levels, plan, clean))
                if explain
                else "",
            )
        return Decision(
            "conditional",
            request.principalId,
            request.action,
            request.scope,
            granted_by,
            _unique([d.deny.id for d in denies]),
            _unique([c for d in denies for c in d.conditions]),
            _reason_conditional(ix, request, principal, identities, definite, denies)
            + ("" if quiet else _skipped_denies(ix, principal, identities, levels, plan, clean))
            if explain
            else "",
        )
    maybe.sort(key=lambda g: _grant_order(g, principal))
    return Decision(
        "conditional",
        request.principalId,
        request.action,
        request.scope,
        _unique([g.assignment.id for g in maybe]),
        _unique([d.deny.id for d in denies]),
        _unique(
            [c for d in denies for c in d.conditions] + [c for g in maybe for c in g.conditions]
        ),
        _reason_conditional(ix, request, principal, identities, maybe, denies)
        + ("" if quiet else _skipped_denies(ix, principal, identities, levels, plan, clean))
        if explain
        else "",
    )


# --------------------------------------------------------------------------------------- reasons


def _operation(request: AccessRequest) -> str:
    kind = "data action" if request.dataAction else "action"
    return f"{kind} {request.action}"


def describe_holder(ix: Indexes, principal: str, identity: str) -> str:
    """How an assignment made to ``identity`` reaches ``principal``: directly, to one of its groups,
    or to a group it belongs to through nested groups (the path is named)."""
    directory = ix.directory
    if identity == principal:
        return "to the principal directly"
    path = directory.group_path(principal, identity)
    name = directory.name(identity)
    if len(path) <= 2:
        return f"to its group '{name}'"
    hops = " → ".join(f"'{directory.name(k)}'" for k in path[1:])
    return f"to group '{name}' (membership path {hops})"


def _grant_phrase(ix: Indexes, principal: str, hit: GrantHit) -> str:
    entry = hit.assignment
    role = ix.catalogue.name(entry.role)
    where = entry.record.properties.scope or "/"
    return f"role '{role}' assigned at {where} {describe_holder(ix, principal, hit.identity)}"


def _deny_phrase(ix: Indexes, principal: str, identities: tuple[str, ...], deny: DenyEntry) -> str:
    where = deny.record.properties.scope or "/"
    if principal in deny.principals:
        whom = "the principal"
    else:
        groups = sorted(deny.principals.intersection(identities))
        whom = f"its group '{ix.directory.name(groups[0])}'" if groups else "all principals"
    return f"deny assignment '{deny.name}' at {where} (naming {whom})"


def _more(count: int, what: str) -> str:
    if count <= 1:
        return ""
    other = count - 1
    return f" ({other} more {what}{'s' if other > 1 else ''} also {'apply' if other > 1 else 'applies'})"


def _reason_allowed(
    ix: Indexes, request: AccessRequest, principal: str, definite: list[GrantHit]
) -> str:
    first = _grant_phrase(ix, principal, definite[0])
    more = _more(len(dict.fromkeys(g.assignment.id for g in definite)), "role assignment")
    return f"Allowed: {first} grants {_operation(request)}{more}, and no deny assignment blocks it."


def _reason_denied(
    ix: Indexes,
    request: AccessRequest,
    principal: str,
    identities: tuple[str, ...],
    blocking: list[DenyEntry],
) -> str:
    deny = blocking[0]
    if deny.principals and not deny.principals.isdisjoint(identities):
        return _denied_text(ix, request, principal, identities, deny, len(blocking))
    # naming every principal (the common case): the text depends on the deny and the operation
    key = (deny, len(blocking), request.action, request.dataAction)
    reasons = ix.reasons
    hit = reasons.get(key)
    if hit is None:
        hit = _denied_text(ix, request, principal, identities, deny, len(blocking))
        if len(reasons) >= _MEMO_LIMIT:
            reasons.clear()
        reasons[key] = hit
    return hit


def _denied_text(
    ix: Indexes,
    request: AccessRequest,
    principal: str,
    identities: tuple[str, ...],
    deny: DenyEntry,
    count: int,
) -> str:
    first = _deny_phrase(ix, principal, identities, deny)
    more = _more(count, "deny assignment")
    return (
        f"Denied: {first} blocks {_operation(request)}{more}; "
        "deny assignments take precedence over every role assignment."
    )


def _reason_not_granted(
    ix: Indexes, request: AccessRequest, principal: str, grants: list[GrantHit]
) -> str:
    if grants:
        hit = min(grants, key=lambda g: _grant_order(g, principal))
        role = ix.catalogue.name(hit.assignment.role)
        where = hit.assignment.record.properties.scope or "/"
        reads = reads_phrase(_grant_conds(hit), request.attributes)
        needs = f", which reads {reads}," if reads else ""
        return (
            f"Not granted: role '{role}' at {where} would grant {_operation(request)}, but its "
            f"condition{needs} is false for this request, and no other role assignment grants it."
        )
    return (
        f"Not granted: no role assignment at {request.scope} or above, to the principal or any "
        f"of its groups, grants {_operation(request)}."
    )


def _reason_conditional(
    ix: Indexes,
    request: AccessRequest,
    principal: str,
    identities: tuple[str, ...],
    grants: list[GrantHit],
    denies: list[DenyHit],
) -> str:
    unknown = "the request's attributes" if request.attributes is None else "this request"
    grant = _grant_phrase(ix, principal, grants[0])
    undecided: list[Cond | None] = [c for g in grants if g.value is None for c in _grant_conds(g)]
    for hit in denies:
        undecided += _deny_conds(hit.deny)
    unusable = [c for c in undecided if c is not None and c.problem is not None]
    reads = reads_phrase([c for c in undecided if c not in unusable], request.attributes)
    needs = f" The answer depends on {reads}." if reads else ""
    if unusable:
        needs += f" A condition cannot be used, so no attribute settles it: {unusable[0].problem}."
    if grants[0].value is True:
        deny = _deny_phrase(ix, principal, identities, denies[0].deny)
        return (
            f"Conditional: {grant} grants {_operation(request)}, but {deny} blocks it where its "
            f"condition holds, which cannot be decided from {unknown}.{needs}"
        )
    if denies:
        deny = _deny_phrase(ix, principal, identities, denies[0].deny)
        return (
            f"Conditional: {grant} grants {_operation(request)} only where its condition holds, "
            f"and {deny} blocks it where its condition holds; neither can be decided from "
            f"{unknown}.{needs}"
        )
    return (
        f"Conditional: {grant} grants {_operation(request)} only where its condition holds, "
        f"which cannot be decided from {unknown}.{needs}"
    )


def _grant_conds(hit: GrantHit) -> list[Cond | None]:
    """The conditions a grant's value comes from: the assignment's and its matching permissions'."""
    return [hit.assignment.cond, *(p.cond for p in hit.permissions)]


def _deny_conds(deny: DenyEntry) -> list[Cond | None]:
    return [deny.cond, *(p.cond for p in deny.permissions)]


# ------------------------------------------------------------------------- denies that do not apply

_AT_SCOPE_ONLY = "it applies only at its own scope (doNotApplyToChildScopes)"


def _skipped_denies(
    ix: Indexes,
    principal: str,
    identities: tuple[str, ...],
    levels: Levels,
    plan: OpPlan,
    clean: bool,
) -> str:
    """A sentence naming the nearest deny assignment that blocks the operation at the scope or
    above and would reach the principal, but does not apply: it sits above the requested scope
    with ``doNotApplyToChildScopes``, or its ``excludePrincipals`` hold the principal or one of its
    groups ("" when there is none). Only for the reasons of answers that are not denials."""
    if not levels.deny_levels or not plan.denies:
        return ""
    found: list[tuple[DenyEntry, str]] = []
    by_level = plan.denies
    base = levels.base
    for level, height in levels.deny_levels:
        at = by_level.get(level)
        if at is None:
            continue
        above = base != height
        if above:
            found += [(deny, _AT_SCOPE_ONLY) for deny in at.everyone_here]
        if not clean:
            for deny in at.unless:
                if not deny.excluded.isdisjoint(identities):
                    found.append((deny, _excludes(ix, principal, identities, deny)))
        for deny, _perms in at.others_everyone if clean else at.others:
            if not (deny.everyone or not deny.principals.isdisjoint(identities)):
                continue
            if above and deny.at_scope_only:
                found.append((deny, _AT_SCOPE_ONLY))
            elif deny.excludes_everyone or not deny.excluded.isdisjoint(identities):
                found.append((deny, _excludes(ix, principal, identities, deny)))
    if not found:
        return ""
    deny, why = found[0]
    where = deny.record.properties.scope or "/"
    count = len({id(d) for d, _ in found})
    more = ""
    if count > 1:
        other = count - 1
        many = other > 1
        more = (
            f" ({other} more deny assignment{'s' if many else ''} "
            f"do{'' if many else 'es'} not apply either)"
        )
    return f" Deny assignment '{deny.name}' at {where} does not apply: {why}{more}."


def _excludes(ix: Indexes, principal: str, identities: tuple[str, ...], deny: DenyEntry) -> str:
    if principal in deny.excluded:
        return "it excludes the principal (excludePrincipals)"
    groups = sorted(deny.excluded.intersection(identities))
    if groups:
        name = ix.directory.name(groups[0])
        return f"it excludes group '{name}' that the principal belongs to (excludePrincipals)"
    return "it excludes every principal (excludePrincipals)"
