"""Warnings about a request the estate does not understand: the decision stays right for the request
as written, but the request may not say what its author meant (contracts §4, issue "no silent
answers").

- **Unknown principal**: the id is not in the snapshot's directory, and no role or deny assignment
  names or excludes it (so nothing about it is known: the answer is for a principal with no groups).
- **Scope outside the estate**: the scope is not ``/``; it lies under no subscription the snapshot
  knows (a subscription is known when a hierarchy entry, a role or deny assignment, or a resource of
  the snapshot is at or below it), or, above subscriptions, it is a management group or other scope
  that no hierarchy entry, assignment or resource names. Resource groups and resources under a known
  subscription are known: a snapshot does not list every resource, and a request about a resource
  about to be created is ordinary.
- **Unknown action**: the operation is named literally (ignoring case) by no ``actions``,
  ``notActions``, ``dataActions`` or ``notDataActions`` entry of the estate's role catalogue
  (built-in roles included) or deny assignments, it is not in the shipped operation list
  (:mod:`auditor.access.operations`), and it is not *plausible*: an operation is plausible when its
  provider namespace and resource type (its first two segments) appear literally at the start of
  some role or deny pattern or known operation (``Cloud.Compute/virtualMachines/*`` makes every
  ``Cloud.Compute/virtualMachines/...`` plausible; ``Cloud.Compute/*`` makes none) and its last
  segment is ``read``, ``write``, ``delete`` or ``action``, as every operation name of the platform
  ends. An operation named only in the other plane (a data action asked about as a control-plane
  action, or the reverse) gets its own warning.
- **Unused attribute**: an ``attributes`` key that is not an attribute reference, or that no
  condition on the request's path reads (the conditions of the role assignments at the scope or
  above made to the principal or its groups, of their roles' permissions, and of the deny
  assignments at the scope or above).

Computed apart from the decision function, which stays pure and fast: each distinct principal, scope
and action is judged once per engine and remembered, so a batch pays a few dictionary look-ups a
request (:func:`~auditor.access.decision.decide_batch` reads what the decision found in the engine's
caches instead: the principal's entry says whether it is known, the operation's plan carries a flag;
a scope is looked at once per run of requests at that scope).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, TypeVar

from auditor.access.operations import CONTROL_OPERATIONS, DATA_OPERATIONS, VERBS
from auditor.access.scopes import ROOT, ScopeTree, scope_key
from auditor.errors import clip
from auditor.estate.light import resource_ids

if TYPE_CHECKING:
    from auditor.access.catalogue import CompiledPermission
    from auditor.access.conditions import Cond
    from auditor.access.decision import AccessRequest
    from auditor.access.indexes import Indexes

__all__ = [
    "Advisor",
    "action_warnings",
    "advisor",
    "principal_warnings",
    "request_warnings",
    "scope_warnings",
]

_MEMO_LIMIT = 1 << 16
_SHOWN = 200
"""Characters of a requested value a warning quotes, at most."""
_REFERENCE = re.compile(r"@(request|resource|principal|environment)\[.+\]", re.I | re.S)
_NONE: tuple[str, ...] = ()
_K = TypeVar("_K")
_V = TypeVar("_V")


class _Vocabulary:
    """The operations the estate names literally, per plane, and the ``namespace/type`` pairs
    that make an operation plausible (all lower case)."""

    def __init__(self, permissions: Iterable[CompiledPermission]) -> None:
        control: set[str] = {op.lower() for op in CONTROL_OPERATIONS}
        data: set[str] = {op.lower() for op in DATA_OPERATIONS}
        types: set[str] = set()
        for op in (*control, *data):
            types.add(_type_of(op, literal=True) or "")
        for perm in permissions:
            for patterns, plane in (
                (perm.actions, control),
                (perm.notActions, control),
                (perm.dataActions, data),
                (perm.notDataActions, data),
            ):
                for pattern in patterns:
                    lowered = pattern.strip().lower()
                    literal = "*" not in lowered
                    if literal:
                        plane.add(lowered)
                    types.add(_type_of(lowered, literal=literal) or "")
        types.discard("")
        self.control = frozenset(control)
        self.data = frozenset(data)
        self.types = frozenset(types)

    def plausible(self, operation: str) -> bool:
        parts = operation.split("/")
        return (
            len(parts) >= 3
            and parts[-1] in VERBS
            and all(parts)
            and f"{parts[0]}/{parts[1]}" in self.types
        )


def _type_of(pattern: str, *, literal: bool) -> str | None:
    """``namespace/type`` when a pattern names both literally (before any ``*``)."""
    head = pattern if literal else pattern.split("*", 1)[0]
    parts = head.split("/")
    complete = parts if literal else parts[:-1]  # the text after the last "/" runs into a "*"
    if len(complete) < 2 or not complete[0] or not complete[1]:
        return None
    return f"{complete[0]}/{complete[1]}"


class Advisor:
    """The warnings of one engine's requests, each distinct principal, scope and action judged once
    (see the module's notes)."""

    def __init__(self, ix: Indexes) -> None:
        self._ix = ix
        self._principals: dict[str, tuple[str, ...]] = {}
        self._scopes: dict[str, tuple[str, ...]] = {}
        self._actions: tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]] = ({}, {})
        self._reads: dict[tuple[str, str], frozenset[str]] = {}
        self._vocabulary: _Vocabulary | None = None
        self._subscriptions: frozenset[str] | None = None

    # -- one request

    def request(self, request: AccessRequest) -> tuple[str, ...]:
        """Every warning of one request, in the order principal, scope, action, attributes."""
        found = self._principals.get(request.principalId)
        if found is None:
            found = self.principal(request.principalId)
        scope = self._scopes.get(request.scope)
        if scope is None:
            scope = self.scope(request.scope)
        action = self._actions[request.dataAction].get(request.action)
        if action is None:
            action = self.action(request.action, request.dataAction)
        attributes = self.attributes(request) if request.attributes else _NONE
        if found or scope or action or attributes:
            return found + scope + action + attributes
        return _NONE

    # -- principal

    def principal(self, principal_id: str) -> tuple[str, ...]:
        """The warning for a principal the snapshot does not know (none when it does)."""
        hit = self._principals.get(principal_id)
        if hit is None:
            hit = _NONE
            ix = self._ix
            if not ix.directory.knows(principal_id.lower()):
                empty = not ix.snapshot.principals
                note = " (the snapshot holds no directory)" if empty else ""
                hit = (
                    f"unknown principal '{clip(principal_id, _SHOWN)}': the snapshot's "
                    f"directory does not hold it{note} and no role or deny assignment names it, "
                    "so the answer is for a principal of no group holding nothing",
                )
            _remember(self._principals, principal_id, hit)
        return hit

    # -- scope

    def scope(self, scope: str) -> tuple[str, ...]:
        """The warning for a scope outside the estate (none when it is inside)."""
        hit = self._scopes.get(scope)
        if hit is None:
            hit = _NONE
            key = scope_key(scope)
            shown = clip(scope, _SHOWN)
            subscription = ScopeTree.subscription_of(key)
            if key == ROOT:
                pass
            elif subscription is not None:
                if subscription not in self._known_subscriptions():
                    shown_sub = "/".join(scope.strip().split("/")[:3])
                    hit = (
                        f"scope '{shown}' is outside the estate: no hierarchy entry, "
                        f"assignment or resource of the snapshot is in subscription "
                        f"'{clip(shown_sub, _SHOWN)}', so only grants at '/' can reach it",
                    )
            elif key not in self._ix.scopes.known():
                hit = (
                    f"scope '{shown}' is outside the estate: no hierarchy entry, assignment or "
                    "resource of the snapshot is at or below it",
                )
            _remember(self._scopes, scope, hit)
        return hit

    def _known_subscriptions(self) -> frozenset[str]:
        if self._subscriptions is None:
            ix = self._ix
            found: set[str] = set()
            of = ScopeTree.subscription_of
            for key in ix.scopes.known():
                if key.startswith("/subscriptions/"):
                    sub = of(key)
                    if sub is not None:
                        found.add(sub)
            for rid in resource_ids(ix.snapshot):  # no pydantic for a small snapshot
                if isinstance(rid, str):
                    sub = of(scope_key(rid))
                    if sub is not None:
                        found.add(sub)
            self._subscriptions = frozenset(found)
        return self._subscriptions

    # -- action

    def action(self, action: str, data: bool) -> tuple[str, ...]:
        """The warning for an operation no role names and none known (none when it is known or
        plausible; see the module's notes)."""
        memo = self._actions[data]
        hit = memo.get(action)
        if hit is None:
            hit = _NONE
            words = self._words()
            operation = action.lower()  # as the decision matches it
            mine, other = (words.data, words.control) if data else (words.control, words.data)
            shown = clip(action, _SHOWN)
            if operation in mine:
                pass
            elif operation in other:
                hit = (
                    (
                        f"action '{shown}' is a control-plane action in the estate's roles, but "
                        "the request asks about it as a data action (dataAction true): no role "
                        "grants a data action of that name"
                    )
                    if data
                    else (
                        f"action '{shown}' is a data action in the estate's roles, but the "
                        "request asks about it as a control-plane action: use --data-action "
                        '(or "dataAction": true in a request)'
                    ),
                )
            elif not words.plausible(operation):
                hit = (
                    f"action '{shown}' is named by no role or deny assignment of the estate "
                    "(built-in roles included) and is no known operation: is it misspelt? "
                    "(operations read Namespace/resourceType/.../read, write, delete or action)",
                )
            _remember(memo, action, hit)
        return hit

    def _words(self) -> _Vocabulary:
        if self._vocabulary is None:
            ix = self._ix
            perms: list[CompiledPermission] = [
                p for role in ix.catalogue.roles.values() for p in role.permissions
            ]
            perms += [p for deny in ix.denies for p in deny.permissions]
            self._vocabulary = _Vocabulary(perms)
        return self._vocabulary

    # -- attributes

    def attributes(self, request: AccessRequest) -> tuple[str, ...]:
        """Warnings for ``attributes`` keys that no condition on the request's path reads."""
        if not request.attributes:
            return _NONE
        from auditor.expr.condition import normalize_attribute_key

        reads = self._reads_on_path(request.principalId, request.scope)
        out: list[str] = []
        for key in request.attributes:
            text = str(key)
            shown = clip(text, _SHOWN)
            if not _REFERENCE.fullmatch(text.strip()):
                out.append(
                    f"attribute '{shown}' is not an attribute reference: keys are written as "
                    "conditions write them (@Request[...], @Resource[...], @Principal[...] or "
                    "@Environment[...])"
                )
            elif normalize_attribute_key(text.strip()) not in reads:
                out.append(
                    f"attribute '{shown}' is read by no condition on the request's path (the "
                    "role assignments of the principal and its groups and the deny assignments "
                    "at the scope or above), so it does not change the answer"
                )
        return tuple(out)

    def _reads_on_path(self, principal_id: str, scope: str) -> frozenset[str]:
        memo_key = (principal_id, scope)
        hit = self._reads.get(memo_key)
        if hit is not None:
            return hit
        from auditor.expr.condition import normalize_attribute_key

        ix = self._ix
        levels = ix.levels(scope)
        _key, identities, _clean, _known = ix.principal(principal_id)
        conds: list[Cond | None] = []
        roles = ix.catalogue.roles
        for table, _height in levels.grant_levels:
            for identity in identities:
                for entry in table.get(identity, ()):
                    conds.append(entry.cond)
                    role = roles.get(entry.role)
                    if role is not None:
                        conds += [p.cond for p in role.permissions]
        for level, _height in levels.deny_levels:
            for deny in ix.deny_by_scope.get(level, ()):
                conds.append(deny.cond)
                conds += [p.cond for p in deny.permissions]
        found: set[str] = set()
        for cond in conds:
            if cond is not None:
                found.update(normalize_attribute_key(k) for k in cond.attributes_read)
        hit = frozenset(found)
        _remember(self._reads, memo_key, hit)
        return hit


def _remember(memo: dict[_K, _V], key: _K, value: _V) -> None:
    if len(memo) >= _MEMO_LIMIT:
        memo.clear()
    memo[key] = value


def advisor(ix: Indexes) -> Advisor:
    """The :class:`Advisor` of one engine's indexes, made on first use and kept with them."""
    key = ("advisor",)
    hit: Advisor | None = ix.query_cache.get(key)
    if hit is None:
        hit = ix.query_cache[key] = Advisor(ix)
    return hit


def request_warnings(ix: Indexes, request: AccessRequest) -> tuple[str, ...]:
    """The warnings of one request (see the module's notes); empty when the estate knows the
    principal, the scope and the action and every attribute is read on the path."""
    return advisor(ix).request(request)


def principal_warnings(ix: Indexes, principal_id: str) -> tuple[str, ...]:
    """The warning for an unknown principal, if it is one."""
    return advisor(ix).principal(principal_id)


def scope_warnings(ix: Indexes, scope: str) -> tuple[str, ...]:
    """The warning for a scope outside the estate, if it is one."""
    return advisor(ix).scope(scope)


def action_warnings(ix: Indexes, action: str, data_action: bool = False) -> tuple[str, ...]:
    """The warning for an operation the estate does not know, if it is one."""
    return advisor(ix).action(action, data_action)
