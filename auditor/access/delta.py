"""The effective-access delta between two estates (contracts §9; issue 19): every (principal,
action, scope, dataAction) whose decision differs before and after a change, with the chain behind
the new state, computed by the one decision function (:func:`~auditor.access.decision.decide`).

Only what a change touches is decided again ("speed by construction"):

1. The changes: role and deny assignments added, removed or modified (by id, ignoring case; a
   modification that leaves the principal, scope, role and condition alone changes no decision),
   role definitions whose permissions changed, principals whose direct groups changed, and
   management groups or subscriptions placed under another parent.
2. Their reach: an assignment reaches its principal and, when that is a group, every transitive
   member (in either directory), at its scope and every known scope below it (in either tree), for
   the operations its role (or deny) matches. A deny assignment naming every principal reaches those
   that hold a matching grant at or above or below its scope (a deny only ever takes access away).
   A principal whose groups changed is reached where one of the groups it gained or lost holds an
   assignment or is named or excluded by a deny. A moved scope reaches everything below it, for
   everyone holding a grant on the way.
3. Each reached (principal, scope, operation) is decided before and after; members of a group that
   meet the same assignments and deny assignments (the same identities among those that hold
   something on the scope's chain) share their decisions (see :class:`_Signatures`).

The universe the delta speaks about (contracts §9): every principal of either directory and every
principal an assignment names; every scope of either hierarchy (with ``/``) and every scope that holds
an assignment; the privileged operations (:data:`PRIVILEGED_ACTIONS`), or with ``all_actions`` also
every action and data action a role of either estate names, each asked literally. A move between
``denied`` and ``notGranted`` is not a change.
"""

from __future__ import annotations

import itertools
import operator
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from auditor._collector import paused
from auditor.access.catalogue import Catalogue, RoleEntry
from auditor.access.decision import AccessRequest, Decision, Verdict, decide, decide_batch
from auditor.access.engine import AccessEngine
from auditor.access.indexes import AssignmentEntry, DenyEntry, Indexes
from auditor.access.scopes import ROOT

__all__ = [
    "PRIVILEGED_ACTIONS",
    "AccessChange",
    "AccessDelta",
    "ChangeKind",
    "DeltaStats",
    "Operation",
    "access_delta",
    "delta_universe",
]

PRIVILEGED_ACTIONS: tuple[str, ...] = (
    "Cloud.Authorization/roleAssignments/write",
    "Cloud.Authorization/roleAssignments/delete",
    "Cloud.Authorization/denyAssignments/write",
    "Cloud.Authorization/denyAssignments/delete",
    "*",
)
"""The operations an access delta compares by default (contracts §9): role and deny assignment
writes and deletes, and ``*`` asked literally (what a role granting every action grants)."""

Operation = tuple[str, bool]
"""An action and whether it is a data action."""

ChangeKind = Literal["newlyAllowed", "newlyBlocked", "changedConditional"]

SCHEMA_VERSION = 1

_E = TypeVar("_E")

_SHARE_FROM = 16
"""Principals reached at one scope from which their decisions there are shared by signature (see
:class:`_Signatures`); below it, signing costs more than it saves."""

_CLASS: dict[Verdict, int] = {"notGranted": 0, "denied": 0, "allowed": 1, "conditional": 2}
"""Verdicts that differ as changes: ``denied`` and ``notGranted`` are both "no access"."""


# --------------------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class AccessChange:
    """One (principal, action, scope, dataAction) whose decision differs (contracts §9).

    ``grantedBy``, ``deniedBy``, ``path`` and ``reason`` describe the after-state, or the
    before-state when access went away (``after`` is ``notGranted``). ``path`` is the membership
    path: the group ids from the principal (left out) to the group the granting assignment (or, for
    a denial, the blocking deny assignment) names; empty when it names the principal itself."""

    principalId: str
    action: str
    dataAction: bool
    scope: str
    before: Verdict
    after: Verdict
    grantedBy: tuple[str, ...] = ()
    deniedBy: tuple[str, ...] = ()
    path: tuple[str, ...] = ()
    reason: str = ""

    @property
    def kind(self) -> ChangeKind:
        """``newlyAllowed`` (now allowed), ``newlyBlocked`` (now denied or not granted) or
        ``changedConditional`` (now conditional): the changes partitioned by their after-state."""
        if self.after == "allowed":
            return "newlyAllowed"
        if self.after == "conditional":
            return "changedConditional"
        return "newlyBlocked"

    def to_wire(self) -> dict[str, Any]:
        return {
            "principalId": self.principalId,
            "action": self.action,
            "dataAction": self.dataAction,
            "scope": self.scope,
            "before": self.before,
            "after": self.after,
            "grantedBy": list(self.grantedBy),
            "deniedBy": list(self.deniedBy),
            "path": list(self.path),
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class DeltaStats:
    """What the delta found changed and how much it decided (for reviewers and benchmarks)."""

    roleAssignments: int = 0
    """Role assignments added, removed or modified (each version counted)."""
    denyAssignments: int = 0
    roleDefinitions: int = 0
    memberships: int = 0
    """Principals whose direct groups changed."""
    hierarchy: int = 0
    """Management groups and subscriptions placed under another parent."""
    pairs: int = 0
    """(principal, scope) pairs the changes reach."""
    decisions: int = 0
    """Decisions made (before and after, the explained ones of the changes included)."""


@dataclass(frozen=True, slots=True)
class AccessDelta:
    """The effective-access delta between two estates (contracts §9)."""

    changes: tuple[AccessChange, ...]
    """Sorted by principal, then scope, action and plane."""
    operations: tuple[Operation, ...]
    """The operations compared."""
    names: dict[str, str] = field(default_factory=dict)
    """Display names by id, for the principals of the changes and the groups of their paths."""
    stats: DeltaStats = field(default_factory=DeltaStats)

    @property
    def summary(self) -> dict[str, int]:
        counts = Counter(change.kind for change in self.changes)
        return {
            "newlyAllowed": counts["newlyAllowed"],
            "newlyBlocked": counts["newlyBlocked"],
            "changedConditional": counts["changedConditional"],
            "principals": len({change.principalId.lower() for change in self.changes}),
        }

    def by_principal(self) -> dict[str, list[AccessChange]]:
        """The changes grouped by principal id, in order."""
        out: dict[str, list[AccessChange]] = {}
        for change in self.changes:
            out.setdefault(change.principalId, []).append(change)
        return out

    def to_wire(self) -> dict[str, Any]:
        """The JSON object of contracts §9."""
        return {
            "schemaVersion": SCHEMA_VERSION,
            "changes": [change.to_wire() for change in self.changes],
            "summary": self.summary,
        }


# ------------------------------------------------------------------------------------ public API


def access_delta(
    before: Indexes | AccessEngine,
    after: Indexes | AccessEngine,
    *,
    all_actions: bool = False,
    operations: Iterable[Operation] | None = None,
) -> AccessDelta:
    """The effective-access delta from ``before`` to ``after`` (two indexed estates).

    ``operations`` replaces the operations compared (by default :data:`PRIVILEGED_ACTIONS`, and with
    ``all_actions`` every action and data action the roles of either estate name)."""
    b, a = _indexes(before), _indexes(after)
    ops = (
        tuple(dict.fromkeys(operations))
        if operations is not None
        else _operations(b, a, all_actions)
    )
    with paused():  # the work tables hold no cycles; a young collection per few hundred is waste
        return _Delta(b, a, ops).run()


def delta_universe(
    before: Indexes | AccessEngine, after: Indexes | AccessEngine, *, all_actions: bool = False
) -> tuple[list[str], list[Operation], list[str]]:
    """The principals, operations and scopes a delta speaks about (contracts §9), as ids and scopes
    first seen: what a brute-force comparison decides in full."""
    b, a = _indexes(before), _indexes(after)
    principals: dict[str, str] = {}
    for ix in (b, a):
        for key in _principal_keys(ix):
            principals.setdefault(key, _display_principal(b, a, key))
    scopes = _scope_keys(b) | _scope_keys(a)
    return (
        list(principals.values()),
        list(_operations(b, a, all_actions)),
        sorted(_display_scope(b, a, key) for key in scopes),
    )


# ----------------------------------------------------------------------------------------- helpers


def _indexes(source: Indexes | AccessEngine) -> Indexes:
    return source.indexes if isinstance(source, AccessEngine) else source


def _operations(b: Indexes, a: Indexes, all_actions: bool) -> tuple[Operation, ...]:
    found: dict[tuple[str, bool], Operation] = {}
    for action in PRIVILEGED_ACTIONS:
        found.setdefault((action.lower(), False), (action, False))
    if all_actions:
        for catalogue in (b.catalogue, a.catalogue):
            for role in catalogue.roles.values():
                for perm in role.permissions:
                    for action in perm.actions:
                        found.setdefault((action.lower(), False), (action, False))
                    for action in perm.dataActions:
                        found.setdefault((action.lower(), True), (action, True))
    return tuple(found.values())


def _principal_keys(ix: Indexes) -> Iterator[str]:
    for key, _entry in ix.directory.entries():
        yield key
    for table in ix.at_scope.values():
        yield from table
    for deny in ix.denies:
        yield from deny.principals
        yield from deny.excluded


def _scope_keys(ix: Indexes) -> set[str]:
    keys = set(ix.at_scope) | set(ix.deny_by_scope)
    keys.add(ROOT)
    tree = ix.scopes
    for key in tree.hierarchy_keys():
        keys.add(key)
        keys.add(tree.parent(key) or ROOT)
    return keys


def _display_principal(b: Indexes, a: Indexes, key: str) -> str:
    shown = b.directory.display(key)
    return a.directory.display(key) if shown == key else shown


def _display_scope(b: Indexes, a: Indexes, key: str) -> str:
    shown = b.scopes.display(key)
    return a.scopes.display(key) if shown == key else shown


def _assignment_sig(entry: AssignmentEntry) -> Hashable:
    cond = entry.cond
    return (
        entry.principal,
        entry.scope,
        entry.role,
        None if cond is None else (cond.text, cond.version),
    )


def _deny_sig(deny: DenyEntry) -> Hashable:
    return (
        deny.scope,
        deny.at_scope_only,
        deny.everyone,
        deny.principals,
        deny.excluded,
        deny.excludes_everyone,
        deny.shape,
    )


def _role_sig(role: RoleEntry | None) -> Hashable:
    if role is None:
        return None
    return tuple(
        (
            p.actions,
            p.notActions,
            p.dataActions,
            p.notDataActions,
            None if p.cond is None else (p.cond.text, p.cond.version),
        )
        for p in role.permissions
    )


class _Missing:
    """Stands for an entry with no counterpart: its record equals nothing."""

    record = object()


_MISSING: Any = _Missing()


def _changed_by_id(
    old: Sequence[_E],
    new: Sequence[_E],
    ident: Callable[[_E], str],
    record: Callable[[_E], object],
    sig: Callable[[_E], Hashable],
) -> tuple[list[_E], list[_E]]:
    """The entries of ``old`` and of ``new`` whose id (ignoring case) is not matched by an entry of
    the same decision-relevant content (``sig``) on the other side: removed, added, modified.

    Ids are first paired as written and the pairs' records compared in bulk (``map`` over C
    functions), in the order of ``new``: two files of one estate list their entries in the same
    order, so both sides are read through memory in order (a million pairs taken in hash order
    cost several times as much in cache misses). A pair whose records differ but whose content
    does not (new timestamps) is set aside too. Whatever is left (ids recased, duplicate ids, real
    changes) is compared as multisets of contents per lower-cased id."""
    old_by = dict(zip(map(ident, old), old, strict=True))
    rest_old: list[_E] = []
    rest_new: list[_E] = []
    if len(old_by) < len(old):
        rest_old, rest_new = list(old), list(new)  # ids written twice: the multisets decide
    else:
        # each entry of ``new`` with the entry of ``old`` of its id (popped: what is left over
        # was removed; an id written twice in ``new`` meets _MISSING the second time)
        paired = list(map(old_by.pop, map(ident, new), itertools.repeat(_MISSING)))
        differ = map(operator.ne, map(record, paired), map(record, new))
        for i in itertools.compress(range(len(paired)), differ):
            left, right = paired[i], new[i]
            if left is _MISSING:
                rest_new.append(right)
            elif sig(left) != sig(right):
                rest_old.append(left)
                rest_new.append(right)
        rest_old.extend(old_by.values())
    if not rest_old and not rest_new:
        return [], []
    groups: dict[str, tuple[list[_E], list[_E]]] = {}
    for side, entries in ((0, rest_old), (1, rest_new)):
        for entry in entries:
            groups.setdefault(ident(entry).lower(), ([], []))[side].append(entry)
    gone: list[_E] = []
    added: list[_E] = []
    for olds, news in groups.values():
        if Counter(map(sig, olds)) != Counter(map(sig, news)):
            gone.extend(olds)
            added.extend(news)
    return gone, added


def _bits(mask: int) -> Iterator[int]:
    index = 0
    while mask:
        if mask & 1:
            yield index
        mask >>= 1
        index += 1


# ------------------------------------------------------------------------------------- the work


class _Signatures:
    """Which identities of a principal can matter at a scope of one estate: those that hold a role
    assignment at a scope of its chain or that a deny assignment there names or excludes.

    The decision function reads a principal only through its identities, probing them against
    the assignments and deny assignments of the scope's chain; two principals whose identities
    agree there get the same verdict for every operation (the reasons, which name the principal's
    own membership path, are made for each principal)."""

    def __init__(self, ix: Indexes) -> None:
        self.ix = ix
        self._subjects: dict[str, frozenset[str]] = {}

    def of(self, identities: tuple[str, ...], scope: str) -> frozenset[str]:
        subjects = self._subjects.get(scope)
        if subjects is None:
            # built for the scopes many principals meet (see _SHARE_FROM): a few hundred keys each
            ix = self.ix
            found: set[str] = set()
            for level in ix.scopes.chain(scope):
                table = ix.at_scope.get(level)
                if table:
                    found.update(table)
                for deny in ix.deny_by_scope.get(level, ()):
                    found |= deny.principals
                    found |= deny.excluded
            subjects = self._subjects[scope] = frozenset(found)
        return subjects.intersection(identities)


class _Delta:
    """One computation: the changes, their reach, the decisions."""

    def __init__(self, b: Indexes, a: Indexes, ops: tuple[Operation, ...]) -> None:
        self.b = b
        self.a = a
        self.ops = ops
        self.lowered = [(action.lower(), data) for action, data in ops]
        self.all_mask = (1 << len(ops)) - 1
        self.work: dict[str, dict[str, int]] = {}
        """principal key -> scope key -> the operations (bits of ``ops``) to decide."""
        self._below: dict[str, list[str]] | None = None
        self._reach: dict[str, tuple[str, ...]] = {}
        self._role_masks: dict[str, int] = {}
        self._decisions = 0
        self._counts: dict[str, int] = {}

    # -- the universe of scopes, below each scope

    @property
    def below(self) -> dict[str, list[str]]:
        """Every scope of the universe by each scope at or above it (in either tree)."""
        if self._below is None:
            below: dict[str, list[str]] = {}
            b_chain, a_chain = self.b.scopes.chain, self.a.scopes.chain
            for key in _scope_keys(self.b) | _scope_keys(self.a):
                first = b_chain(key)
                second = a_chain(key)
                for level in first if first == second else {*first, *second}:
                    bucket = below.get(level)
                    if bucket is None:
                        below[level] = [key]
                    else:
                        bucket.append(key)
            self._below = below
        return self._below

    def _scopes_of(self, deny: DenyEntry) -> list[str]:
        return [deny.scope] if deny.at_scope_only else self.below.get(deny.scope, [])

    # -- reach

    def reach(self, key: str) -> tuple[str, ...]:
        """A principal and, when it is a group, its transitive members in either directory."""
        hit = self._reach.get(key)
        if hit is None:
            members = set(self.b.directory.transitive_members(key))
            members.update(self.a.directory.transitive_members(key))
            members.discard(key)
            hit = self._reach[key] = (key, *members)
        return hit

    def role_mask(self, guid: str) -> int:
        """The operations (bits) a role grants in either estate, conditions aside."""
        hit = self._role_masks.get(guid)
        if hit is None:
            hit = 0
            for catalogue in (self.b.catalogue, self.a.catalogue):
                hit |= self._mask(catalogue, guid)
            self._role_masks[guid] = hit
        return hit

    def _mask(self, catalogue: Catalogue, guid: str) -> int:
        mask = 0
        for i, (operation, data) in enumerate(self.lowered):
            if catalogue.granting(guid, operation, data):
                mask |= 1 << i
        return mask

    def deny_mask(self, deny: DenyEntry) -> int:
        mask = 0
        for i, (operation, data) in enumerate(self.lowered):
            if deny.matching(operation, data):
                mask |= 1 << i
        return mask

    def touch(self, principals: Iterable[str], scopes: list[str], mask: int) -> None:
        if not mask or not scopes:
            return
        work = self.work
        for principal in principals:
            row = work.get(principal)
            if row is None:
                row = work[principal] = {}
            for scope in scopes:
                row[scope] = row.get(scope, 0) | mask

    def holders(self, scopes: Iterable[str], mask: int) -> set[str]:
        """The principals (groups expanded to their members) holding, in either estate, a role
        assignment at one of ``scopes`` whose role grants one of the operations of ``mask``."""
        found: set[str] = set()
        for ix in (self.b, self.a):
            for scope in scopes:
                table = ix.at_scope.get(scope)
                if not table:
                    continue
                for principal, bucket in table.items():
                    if principal not in found and any(
                        self.role_mask(e.role) & mask for e in bucket
                    ):
                        found.add(principal)
        out: set[str] = set()
        for principal in found:
            out.update(self.reach(principal))
        return out

    # -- the changes

    def collect(self) -> None:
        b, a = self.b, self.a
        gone, added = _changed_by_id(
            b.assignments, a.assignments, _entry_id, _entry_record, _assignment_sig
        )
        self._counts["roleAssignments"] = len(gone) + len(added)
        for entry in (*gone, *added):
            self.touch(
                self.reach(entry.principal),
                self.below.get(entry.scope, []),
                self.role_mask(entry.role),
            )
        gone_denies, added_denies = _changed_by_id(
            b.denies, a.denies, _deny_id, _deny_record, _deny_sig
        )
        self._counts["denyAssignments"] = len(gone_denies) + len(added_denies)
        for deny in (*gone_denies, *added_denies):
            self.touch_deny(deny)
        self.collect_roles()
        self.collect_memberships()
        self.collect_hierarchy()

    def touch_deny(self, deny: DenyEntry) -> None:
        mask = self.deny_mask(deny)
        if not mask or deny.excludes_everyone:
            return
        scopes = self._scopes_of(deny)
        if deny.everyone:
            # a deny takes access away: only those holding a matching grant on the way can change
            region = {*self.b.scopes.chain(deny.scope), *self.a.scopes.chain(deny.scope), *scopes}
            self.touch(self.holders(region, mask), scopes, mask)
            return
        for principal in deny.principals:
            self.touch(self.reach(principal), scopes, mask)

    def collect_roles(self) -> None:
        b, a = self.b.catalogue, self.a.catalogue
        changed = {
            guid
            for guid in b.roles.keys() | a.roles.keys()
            if b.roles.get(guid) is not a.roles.get(guid)
            and _role_sig(b.roles.get(guid)) != _role_sig(a.roles.get(guid))
        }
        self._counts["roleDefinitions"] = len(changed)
        if not changed:
            return
        for ix in (self.b, self.a):
            for entry in ix.assignments:
                if entry.role in changed:
                    self.touch(
                        self.reach(entry.principal),
                        self.below.get(entry.scope, []),
                        self.role_mask(entry.role),
                    )

    def collect_memberships(self) -> None:
        b, a = self.b.directory, self.a.directory
        first = operator.itemgetter(0)
        keys = list(
            dict.fromkeys(itertools.chain(map(first, b.entries()), map(first, a.entries())))
        )
        differ = map(operator.ne, map(b.direct_groups, keys), map(a.direct_groups, keys))
        changed = [
            key
            for key in itertools.compress(keys, differ)
            if set(b.direct_groups(key)) != set(a.direct_groups(key))
        ]
        self._counts["memberships"] = len(changed)
        reached: set[str] = set()
        for key in changed:
            reached.update(self.reach(key))
        for principal in reached:
            moved = b.identities(principal) ^ a.identities(principal)
            for group in moved:
                self.touch_identity(principal, group)

    def touch_identity(self, principal: str, group: str) -> None:
        """``principal`` gained or lost ``group``: decide again wherever the group holds an
        assignment or a deny assignment names or excludes it."""
        for ix in (self.b, self.a):
            for entry in ix.assignments_of(group):
                self.touch(
                    (principal,), self.below.get(entry.scope, []), self.role_mask(entry.role)
                )
            for deny in (*ix.deny_naming.get(group, ()), *ix.deny_excluding.get(group, ())):
                self.touch((principal,), self._scopes_of(deny), self.deny_mask(deny))

    def collect_hierarchy(self) -> None:
        b, a = self.b.scopes, self.a.scopes
        keys = set(b.hierarchy_keys()) | set(a.hierarchy_keys())
        moved = [key for key in keys if b.parent(key) != a.parent(key)]
        self._counts["hierarchy"] = len(moved)
        for key in moved:
            scopes = self.below.get(key, [])
            region = {*b.chain(key), *a.chain(key), *scopes}
            self.touch(self.holders(region, self.all_mask), scopes, self.all_mask)

    # -- the decisions

    def run(self) -> AccessDelta:
        self.collect()
        b, a, ops = self.b, self.a, self.ops
        sigs_b, sigs_a = _Signatures(b), _Signatures(a)
        crowd = Counter(scope for row in self.work.values() for scope in row)
        shared: dict[
            tuple[str, frozenset[str], frozenset[str]], dict[int, tuple[Verdict, Verdict]]
        ] = {}
        shown_scopes: dict[str, str] = {}
        found: list[tuple[str, str, int, Verdict, Verdict]] = []
        pairs = 0
        decided = 0
        for principal, row in self.work.items():
            ids_b = b.directory.identity_tuple(principal)
            ids_a = a.directory.identity_tuple(principal)
            shown = _display_principal(b, a, principal)
            for scope, mask in row.items():
                pairs += 1
                known: dict[int, tuple[Verdict, Verdict]] | None = None
                if crowd[scope] >= _SHARE_FROM:
                    key = (scope, sigs_b.of(ids_b, scope), sigs_a.of(ids_a, scope))
                    known = shared.get(key)
                    if known is None:
                        known = shared[key] = {}
                where = shown_scopes.get(scope)
                if where is None:
                    where = shown_scopes[scope] = _display_scope(b, a, scope)
                for i in _bits(mask):
                    pair = None if known is None else known.get(i)
                    if pair is None:
                        action, data = ops[i]
                        request = AccessRequest(shown, action, where, data)
                        pair = (
                            decide(b, request, explain=False).decision,
                            decide(a, request, explain=False).decision,
                        )
                        decided += 2
                        if known is not None:
                            known[i] = pair
                    if _CLASS[pair[0]] != _CLASS[pair[1]]:
                        found.append((principal, scope, i, pair[0], pair[1]))
        changes, names = self.explain(found)
        stats = DeltaStats(**self._counts, pairs=pairs, decisions=decided + len(found))
        return AccessDelta(tuple(changes), ops, names, stats)

    def explain(
        self, found: list[tuple[str, str, int, Verdict, Verdict]]
    ) -> tuple[list[AccessChange], dict[str, str]]:
        """The changes with the decision of the state they describe (after, or before when access
        went away), made for each principal, with its membership path."""
        b, a, ops = self.b, self.a, self.ops
        requests: tuple[list[AccessRequest], list[AccessRequest]] = ([], [])
        places: tuple[list[int], list[int]] = ([], [])
        for n, (principal, scope, i, _before, after) in enumerate(found):
            action, data = ops[i]
            side = 0 if after == "notGranted" else 1
            requests[side].append(
                AccessRequest(
                    _display_principal(b, a, principal), action, _display_scope(b, a, scope), data
                )
            )
            places[side].append(n)
        described: list[Decision | None] = [None] * len(found)
        for side, ix in ((0, b), (1, a)):
            for n, made in zip(places[side], decide_batch(ix, requests[side]), strict=True):
                described[n] = made
        names: dict[str, str] = {}
        changes: list[AccessChange] = []
        paths = _Paths(b), _Paths(a)
        for (principal, scope, i, before, after), decision in zip(found, described, strict=True):
            assert decision is not None
            path = paths[0 if after == "notGranted" else 1].path(principal, scope, decision)
            action, data = ops[i]
            change = AccessChange(
                principalId=decision.principalId,
                action=action,
                dataAction=data,
                scope=decision.scope,
                before=before,
                after=after,
                grantedBy=decision.grantedBy,
                deniedBy=decision.deniedBy,
                path=path,
                reason=decision.reason,
            )
            changes.append(change)
            if change.principalId not in names:
                names[change.principalId] = _name(b, a, principal)
            for group in path:
                if group not in names:
                    names[group] = _name(b, a, group.lower())
        changes.sort(
            key=lambda c: (c.principalId.lower(), c.scope.lower(), c.action.lower(), c.dataAction)
        )
        return changes, names


def _name(b: Indexes, a: Indexes, key: str) -> str:
    shown = a.directory.name(key)
    if shown == a.directory.display(key):
        return b.directory.name(key)
    return shown


_entry_id: Callable[[AssignmentEntry], str] = operator.attrgetter("record.id")
_entry_record: Callable[[AssignmentEntry], object] = operator.attrgetter("record")
_deny_id: Callable[[DenyEntry], str] = operator.attrgetter("id")
_deny_record: Callable[[DenyEntry], object] = operator.attrgetter("record")


class _Paths:
    """Membership paths of one estate: from a principal to the group the first granting (or
    blocking) assignment of a decision names."""

    def __init__(self, ix: Indexes) -> None:
        self.ix = ix
        self._denies: dict[str, DenyEntry] | None = None
        self._known: dict[tuple[str, str, bool], tuple[str, ...]] = {}

    def path(self, principal: str, scope: str, decision: Decision) -> tuple[str, ...]:
        """The group ids (as first seen) from ``principal`` (left out) to the holder."""
        if decision.grantedBy:
            key = (principal, decision.grantedBy[0], True)
        elif decision.deniedBy:
            key = (principal, decision.deniedBy[0], False)
        else:
            return ()
        hit = self._known.get(key)
        if hit is None:
            # the holder of an assignment is the same at every scope below it
            hit = self._known[key] = self._path(principal, scope, key[1], key[2])
        return hit

    def _path(self, principal: str, scope: str, assignment: str, grant: bool) -> tuple[str, ...]:
        ix = self.ix
        identities = ix.directory.identities(principal)
        holder: str | None = None
        if grant:
            holder = self._grant_holder(identities, scope, assignment)
        else:
            deny = self._deny(assignment)
            if deny is not None and principal not in deny.principals:
                named = sorted(deny.principals & identities)
                holder = named[0] if named else None
        if holder is None or holder == principal:
            return ()
        display = ix.directory.display
        return tuple(display(group) for group in ix.directory.group_path(principal, holder)[1:])

    def _grant_holder(self, identities: frozenset[str], scope: str, assignment: str) -> str | None:
        ix = self.ix
        for level in ix.scopes.chain(scope):
            table = ix.at_scope.get(level)
            if not table:
                continue
            for identity in identities:
                for entry in table.get(identity, ()):
                    if entry.id == assignment:
                        return identity
        return None

    def _deny(self, deny_id: str) -> DenyEntry | None:
        if self._denies is None:
            self._denies = {}
            for deny in self.ix.denies:
                self._denies.setdefault(deny.id, deny)
        return self._denies.get(deny_id)
