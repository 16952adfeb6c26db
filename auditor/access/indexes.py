"""The indexes built once per snapshot: role assignments by principal (then scope) and by scope, deny
assignments by scope, plus the scope tree, the directory and the compiled role catalogue.

A decision looks up ``identities x chain`` keys in these dicts: it never scans the assignments.
"""

from __future__ import annotations

import gc
import sys
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import count, islice
from typing import Any

import msgspec

from auditor._collector import paused
from auditor.access._memo import make_room
from auditor.access.catalogue import Catalogue, CompiledPermission
from auditor.access.conditions import Cond, make_cond
from auditor.access.directory import Directory
from auditor.access.scopes import MG_PREFIX, ROOT, SUB_PREFIX, ScopeTree, scope_key
from auditor.estate.light import role_definitions
from auditor.estate.records import DenyAssignmentRecord, PrincipalRecord, RoleAssignmentRecord
from auditor.estate.roles import role_guid
from auditor.estate.snapshot import Snapshot
from auditor.model.plain import ALL_PRINCIPALS_ID

__all__ = [
    "AssignmentEntry",
    "DenyEntry",
    "DenyLevel",
    "Indexes",
    "Levels",
    "OpPlan",
    "deny_order_key",
]

_intern = sys.intern
_LEVELS_LIMIT = 1 << 17
_PLANS_LIMIT = 4096
_PRINCIPALS_LIMIT = 1 << 18
_BUCKET_TUPLE_MAX = 16
"""A (scope, principal) bucket grows as a tuple up to this many assignments, then as a list."""


_FREEZE_AFTER = 200_000
"""Indexes of more role assignments than this are frozen out of the garbage collector's sight."""
_YOUNG_THRESHOLD = 50_000
"""The collector's first threshold once a large estate is indexed (Python's default is 700)."""
_frozen = False
_FIRST = object()
_PROBE = 256
"""How many role assignments :func:`_lower_ids` looks at."""


def _lower_ids(records: list[RoleAssignmentRecord]) -> bool:
    """Whether the first :data:`_PROBE` role assignments' principal ids are their own keys
    (strings in lower case): then the others probably are too."""
    for record in islice(records, _PROBE):
        raw = record.properties.principalId
        if type(raw) is not str or raw != raw.lower():
            return False
    return True


def _depth(key: str) -> int:
    return key.count("/")


def _settle(assignments: int) -> None:
    """After a build: a small estate's buckets (tuples of untracked entries) are untracked by one
    young collection. A large estate's snapshot and indexes, millions of objects that live as long
    as the engine, are frozen (:func:`gc.freeze`) so that the collections a batch of decisions
    triggers do not walk them again and again; a later large build first collects what the
    previous one left (so cyclic garbage is held back by one build at most).

    With a large estate the collector's first threshold is also raised to
    :data:`_YOUNG_THRESHOLD` (never lowered, never enabled if disabled): a batch of decisions or
    a who-can query allocates caches and answers at a rate that otherwise triggers a young
    collection every few hundred objects and promotes them into costly full collections (about
    a quarter of a cold batch's time at a million assignments)."""
    global _frozen
    if assignments < _FREEZE_AFTER:
        gc.collect(0)
        return
    if _frozen:
        gc.unfreeze()
        gc.collect()
    gc.freeze()
    _frozen = True
    young, middle, old = gc.get_threshold()
    if 0 < young < _YOUNG_THRESHOLD:
        gc.set_threshold(_YOUNG_THRESHOLD, middle, old)


class Levels(msgspec.Struct, gc=False):
    """The ancestry of a requested scope as a decision uses it: the levels of its chain (the scope,
    then its ancestors up to ``/``) that hold role assignments or deny assignments, nearest first,
    each with its *height* (its place in the chain counted from ``/``, which is 0). A level's
    distance from the requested scope is ``base - height``: 0 for the scope itself, growing
    upwards. Distances order the levels, and only distance 0 sees deny assignments with
    ``doNotApplyToChildScopes``.

    The (level, height) pairs are shared by every scope below a level, and the object is not
    tracked by the garbage collector (it refers to nothing that refers back to it): a batch meets
    tens of thousands of scopes."""

    grant_levels: tuple[tuple[dict[str, tuple[AssignmentEntry, ...]], int], ...]
    """For each level holding role assignments: its principal -> assignments table, height."""
    deny_levels: tuple[tuple[str, int], ...]
    """For each level holding deny assignments: the level's key, height."""
    base: int
    """The height of the requested scope (one more than the levels' own scope when seen from
    below it)."""
    below: Levels | None = None
    """The same levels seen from a scope strictly below (sharing the tuples, base + 1)."""

    def seen_from_below(self) -> Levels:
        if self.below is None:
            self.below = Levels(self.grant_levels, self.deny_levels, self.base + 1)
        return self.below


class AssignmentEntry(msgspec.Struct, gc=False):
    """A role assignment as the engine uses it (keys are lower case). Not tracked by the garbage
    collector: a million of them would make every collection slow."""

    record: RoleAssignmentRecord
    principal: str
    scope: str
    role: str
    cond: Cond | None

    @property
    def id(self) -> str:
        return self.record.id or ""


@dataclass(slots=True, eq=False)
class DenyEntry:
    """A deny assignment as the engine uses it (keys are lower case)."""

    record: DenyAssignmentRecord
    id: str
    name: str
    scope: str
    at_scope_only: bool
    everyone: bool
    principals: frozenset[str]
    excluded: frozenset[str]
    excludes_everyone: bool
    permissions: tuple[CompiledPermission, ...]
    cond: Cond | None = field(default=None)
    sort_key: str = ""
    shape: tuple[object, ...] = ()
    """The deny's permissions and conditions as plain data: equal shapes deny the same."""
    shape_id: int = -1
    """A small number per distinct :attr:`shape` of the snapshot (set by the indexes)."""
    position: int = -1
    """Its place in the snapshot's ``denyAssignments`` (set by the indexes)."""

    def __post_init__(self) -> None:
        self.sort_key = self.id.lower()
        self.shape = (
            None if self.cond is None else self.cond.text,
            tuple(
                (
                    p.actions,
                    p.notActions,
                    p.dataActions,
                    p.notDataActions,
                    None if p.cond is None else p.cond.text,
                )
                for p in self.permissions
            ),
        )

    def names(self, identities: frozenset[str]) -> bool:
        """True when the deny names one of ``identities`` (or every principal)."""
        return self.everyone or not self.principals.isdisjoint(identities)

    def excludes(self, identities: frozenset[str]) -> bool:
        """True when one of ``identities`` is excluded (exclusion is transitive through groups)."""
        return self.excludes_everyone or not self.excluded.isdisjoint(identities)

    def applies_to(self, identities: frozenset[str]) -> bool:
        """Named and not excluded."""
        return self.names(identities) and not self.excludes(identities)

    def matching(self, operation: str, data: bool) -> tuple[CompiledPermission, ...]:
        """The deny's permissions that match the lower-cased operation."""
        return tuple(p for p in self.permissions if p.matches(operation, data))


@dataclass(slots=True, eq=False)
class OpPlan:
    """What one operation (lower case, one plane) needs from the indexes, prepared on its first
    request: the catalogue's matching permissions by role GUID (filled as roles are met) and the
    deny assignments with a matching permission, by the scope key they sit at (snapshot order),
    each with its matching permissions."""

    operation: str
    data: bool
    roles: dict[str, tuple[CompiledPermission, ...]]
    denies: dict[str, DenyLevel]
    clean_skips: frozenset[str] = frozenset()
    """The levels of :attr:`denies` where a deny assignment naming every principal does not apply
    to a principal that no deny assignment names or excludes: one with
    ``doNotApplyToChildScopes`` (below its scope) or excluding every principal. A reason names
    such a deny (see the decision); elsewhere such a principal meets none."""
    known: bool | None = None
    """Whether the estate knows the operation (see :mod:`auditor.access.advice`); None until a
    batch that asks for warnings first meets it."""


class DenyLevel(msgspec.Struct, frozen=True, gc=False):
    """The deny assignments at one scope with a permission matching one operation, sorted by what
    a decision must still ask of them. Each group is in deny order (id ignoring case, then
    snapshot order), so a decision that meets one group per level needs no sort."""

    everyone: tuple[DenyEntry, ...]
    """Unconditioned, naming every principal, excluding none: they block whoever asks (at the
    scope and below)."""
    everyone_here: tuple[DenyEntry, ...]
    """The same with ``doNotApplyToChildScopes``: they block at the scope itself only."""
    unless: tuple[DenyEntry, ...]
    """Unconditioned, naming every principal, with exclusions (and without
    ``doNotApplyToChildScopes``): they block whoever is not excluded."""
    others: tuple[tuple[DenyEntry, tuple[CompiledPermission, ...]], ...]
    """The rest, with their matching permissions: naming, exclusions and conditions are judged
    per request."""
    plain: tuple[DenyEntry, ...]
    """:attr:`everyone` and :attr:`unless` merged in deny order: what blocks a principal that no
    deny assignment names or excludes (below the scope)."""
    plain_here: tuple[DenyEntry, ...]
    """:attr:`plain` and :attr:`everyone_here` merged in deny order (at the scope itself)."""
    others_everyone: tuple[tuple[DenyEntry, tuple[CompiledPermission, ...]], ...]
    """Those of :attr:`others` that name every principal: the only ones still to judge for a
    principal that no deny assignment names or excludes."""


def deny_order_key(deny: DenyEntry) -> tuple[str, int]:
    """Deny order within one scope: id ignoring case, then place in the snapshot."""
    return (deny.sort_key, deny.position)


def _deny_level(
    everyone: list[DenyEntry],
    here: list[DenyEntry],
    unless: list[DenyEntry],
    others: list[tuple[DenyEntry, tuple[CompiledPermission, ...]]],
) -> DenyLevel:
    others.sort(key=lambda pair: deny_order_key(pair[0]))
    return DenyLevel(
        tuple(sorted(everyone, key=deny_order_key)),
        tuple(sorted(here, key=deny_order_key)),
        tuple(sorted(unless, key=deny_order_key)),
        tuple(others),
        tuple(sorted(everyone + unless, key=deny_order_key)),
        tuple(sorted(everyone + unless + here, key=deny_order_key)),
        tuple(pair for pair in others if pair[0].everyone),
    )


def _principal_keys(
    principals: Iterable[PrincipalRecord], add: Callable[[str], str]
) -> tuple[list[str], bool]:
    """The keys of a deny assignment's named (or excluded) principals, each registered by
    ``add``, and whether the all-principals entry is among them (it has no key)."""
    keys: list[str] = []
    everyone = False
    for p in principals:
        if p.id:
            if is_all_principals(p):
                everyone = True
            else:
                keys.append(add(p.id))
    return keys, everyone


def is_all_principals(principal: PrincipalRecord) -> bool:
    """The all-principals entry: id ``00000000-0000-0000-0000-000000000000`` of type
    ``SystemDefined`` (compared ignoring case)."""
    return (
        principal.id is not None
        and principal.id.strip().lower() == ALL_PRINCIPALS_ID
        and (principal.type or "").lower() == "systemdefined"
    )


class Indexes:
    """Everything a decision needs, built once from a snapshot."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self.assignments: list[AssignmentEntry] = []
        self.principal_keys: list[str] = []
        """Every principal key some role assignment names, numbered in order of first
        appearance (see :attr:`principal_numbers`)."""
        self.principal_numbers: array[int] = array("i")
        """The number of each assignment's principal key (:attr:`principal_keys`), in assignment
        order: what the audit's rows read of a million assignments' principals without touching
        one of them (:meth:`auditor.access.AssignmentRows.facet_codes`)."""
        self.conditioned: list[int] = []
        """The places in :attr:`assignments` of those whose record has a condition (a blank one
        included): RBAC-012 judges these few of a million without a pass over the records."""
        self.at_scope: dict[str, dict[str, tuple[AssignmentEntry, ...]]] = {}
        """Role assignments by scope key, then principal key."""
        self._by_principal: dict[str, dict[str, tuple[AssignmentEntry, ...]]] | None = None
        self._by_scope: dict[str, list[AssignmentEntry]] | None = None
        self.denies: list[DenyEntry] = []
        self.deny_by_scope: dict[str, list[DenyEntry]] = {}
        self.deny_naming: dict[str, list[DenyEntry]] = {}
        """Deny assignments by the principal keys they name (the all-principals entry aside)."""
        self.deny_excluding: dict[str, list[DenyEntry]] = {}
        """Deny assignments by the principal keys they exclude."""
        self.deny_subjects: frozenset[str] = frozenset()
        """Every principal key some deny assignment names or excludes."""
        self._levels: dict[str, Levels] = {}
        self._levels_by_key: dict[str, Levels] = {}
        self._below: dict[str, Levels] = {}
        """The levels of scopes below a key that holds no assignment, by that key."""
        self._level_pairs: dict[
            tuple[str, int], tuple[dict[str, tuple[AssignmentEntry, ...]], int]
        ] = {}
        self._interesting: frozenset[str] = frozenset()
        enabled = gc.isenabled()
        with paused():  # the build allocates millions of containers and creates no cycles
            # the directory too: a large estate's hundred thousand principals (tuples, dicts)
            # would otherwise trigger a full collection of everything the loader made
            self.scopes = ScopeTree(snapshot.hierarchy)
            self.directory = Directory(snapshot.principals)
            self.catalogue = Catalogue(role_definitions(snapshot))  # no pydantic when it can
            self._build_assignments(snapshot.roleAssignments)
            self._build_denies(snapshot.denyAssignments)
            self.deny_subjects = frozenset(self.deny_naming) | frozenset(self.deny_excluding)
            self._interesting = (
                frozenset(self.at_scope)
                | frozenset(self.deny_by_scope)
                | frozenset(self.scopes.hierarchy_keys())
                | {ROOT}
            )
            # prepared here, so that a large estate's levels are frozen with the rest (a first
            # batch's young collections would otherwise walk their tens of thousands of tuples)
            self._prepare_levels()
        if enabled:
            _settle(len(self.assignments))
        self.query_cache: dict[Any, Any] = {}
        """Memo of the queries (who/what), keyed by tuples starting with the query's name."""
        self.reasons: dict[Any, str] = {}
        """Memo of reason texts that depend only on the deny or grant and the operation."""
        self.denied_ids: dict[tuple[DenyEntry, ...], tuple[str, ...]] = {}
        """Memo of ``deniedBy`` tuples by the blocking deny assignments (see the decision)."""
        self.plan_cache: tuple[dict[str, OpPlan], dict[str, OpPlan]] = ({}, {})
        """Operation plans by the action as requested, control plane then data plane (filled by
        :meth:`plan`; the decision reads it directly, a method call saved per request)."""
        self.principal_cache: dict[str, tuple[str, tuple[str, ...], bool, bool]] = {}
        """What :meth:`principal` found, by the principal id as requested (read directly by the
        decision likewise)."""
        self._plans_by_op: dict[tuple[str, bool], OpPlan] = {}

    def _build_assignments(self, records: Iterable[RoleAssignmentRecord]) -> None:
        """:attr:`assignments`, :attr:`at_scope`, :attr:`by_scope` and the principals' keys and
        numbers. When the first ids are in lower case (as ids usually are), the records' ids
        serve as keys (:meth:`_build_rows` without a key function, which gives up when an id
        turns out not to be); else each id as written is looked up once: the same indexes
        either way."""
        rows = records if isinstance(records, list) else list(records)
        if not (_lower_ids(rows) and self._build_rows(rows, None)):
            self._build_rows(rows, self._key_of())

    def _key_of(self) -> Callable[[str], str]:
        """A principal id's key, registered in the directory (keeping the first casing seen) and
        interned when first met; then found by one lookup of the id as written."""
        memo: dict[str, str] = {}
        get = memo.get
        add = self.directory.add

        def key_of(raw: str) -> str:
            key = get(raw)
            if key is None:
                key = memo[raw] = _intern(add(raw))
            return key

        return key_of

    def _build_rows(
        self, records: list[RoleAssignmentRecord], key_of: Callable[[str], str] | None
    ) -> bool:
        """:meth:`_build_assignments` with each principal id's key by ``key_of``, or, without it,
        the id itself (lower case, as ids usually are): the keys are then numbered afterwards by
        one pass in C (a lookup per assignment in a small, warm table, not in the loop below,
        where each would miss the processor's caches), and registered in the directory at once.
        False, with nothing changed but the scope tree's registrations (which a second build
        repeats alike), when without ``key_of`` an id is not lower case."""
        add_scope = self.scopes.add
        at_scope: dict[str, dict[str, tuple[AssignmentEntry, ...]]] = {}
        by_scope: dict[str, list[AssignmentEntry]] = {}
        overflow: dict[tuple[str, str], list[AssignmentEntry]] = {}
        entries: list[AssignmentEntry] = []
        conditioned: list[int] = []
        append = entries.append
        # a scope as written gives its key, its principal table and its list in one lookup (the
        # list in snapshot order: :attr:`by_scope`, made here while each record is fresh)
        scopes: dict[str, tuple[str, dict[str, tuple[AssignmentEntry, ...]], Any]] = {}
        role_keys: dict[str, str] = {}
        last_raw: Any = _FIRST  # no scope is this: the first record finds its slot
        scope = ""
        principals: dict[str, tuple[AssignmentEntry, ...]] = {}
        listed: Any = None
        for record in records:
            props = record.properties
            raw = props.scope
            if raw is not last_raw:
                last_raw = raw
                slot = scopes.get(raw)
                if slot is None:
                    key = _intern(add_scope(raw or "/"))
                    table = at_scope.get(key)
                    if table is None:
                        table = at_scope[key] = {}
                        by_scope[key] = []
                    slot = scopes[raw] = (key, table, by_scope[key].append)
                scope, principals, listed = slot
            principal = props.principalId if key_of is None else key_of(props.principalId)
            raw = props.roleDefinitionId
            role = role_keys.get(raw)
            if role is None:
                role = role_keys[raw] = _intern(role_guid(raw))
            if props.condition:
                conditioned.append(len(entries))
                entry = AssignmentEntry(
                    record,
                    principal,
                    scope,
                    role,
                    make_cond(props.condition, props.conditionVersion),
                )
            else:
                entry = AssignmentEntry(record, principal, scope, role, None)
            append(entry)
            listed(entry)
            single = (entry,)
            bucket = principals.setdefault(principal, single)
            if bucket is single:
                continue
            if len(bucket) < _BUCKET_TUPLE_MAX:
                principals[principal] = (*bucket, entry)
            else:
                overflow.setdefault((scope, principal), list(bucket)).append(entry)
        # each key numbered once, in order of first appearance (:attr:`principal_numbers`)
        numbered: defaultdict[str, int] = defaultdict(count().__next__)
        numbers = array("i", [numbered[entry.principal] for entry in entries])
        keys = list(numbered)
        if key_of is None:
            try:
                if any(map(str.__ne__, keys, map(str.lower, keys))):
                    return False
            except TypeError:  # an id that is no string: the build with keys reports it
                return False
        for (scope, principal), grown in overflow.items():
            at_scope[scope][principal] = tuple(grown)
        self.directory.add_keys(keys)
        self.assignments = entries
        self.principal_keys = keys
        self.principal_numbers = numbers
        self.conditioned = conditioned
        self.at_scope = at_scope
        self._by_scope = by_scope
        return True

    def _build_denies(self, records: Iterable[DenyAssignmentRecord]) -> None:
        shapes: dict[tuple[object, ...], int] = {}
        # deny assignments' permission lists repeat (a few shapes among thousands): each
        # distinct list is compiled once and its permissions shared (they are immutable)
        compiled: dict[tuple[object, ...], tuple[CompiledPermission, ...]] = {}
        add_scope = self.scopes.add
        add = self.directory.add
        for record in records:
            props = record.properties
            scope = add_scope(props.scope or "/")
            named, everyone = _principal_keys(props.principals, add)
            excluded, excludes_everyone = _principal_keys(props.excludePrincipals, add)
            content = tuple(
                (
                    tuple(p.actions),
                    tuple(p.notActions),
                    tuple(p.dataActions),
                    tuple(p.notDataActions),
                    p.condition,
                    p.conditionVersion,
                )
                for p in props.permissions
            )
            permissions = compiled.get(content)
            if permissions is None:
                permissions = compiled[content] = tuple(
                    CompiledPermission.build(i, *fields) for i, fields in enumerate(content)
                )
            entry = DenyEntry(
                record=record,
                id=record.id or "",
                name=props.denyAssignmentName or record.name or record.id or "",
                scope=scope,
                at_scope_only=bool(props.doNotApplyToChildScopes),
                everyone=everyone,
                principals=frozenset(named),
                excluded=frozenset(excluded),
                excludes_everyone=excludes_everyone,
                permissions=permissions,
                cond=make_cond(props.condition, props.conditionVersion),
            )
            entry.shape_id = shapes.setdefault(entry.shape, len(shapes))
            entry.position = len(self.denies)
            self.denies.append(entry)
            self.deny_by_scope.setdefault(scope, []).append(entry)
            for key in entry.principals:
                self.deny_naming.setdefault(key, []).append(entry)
            for key in entry.excluded:
                self.deny_excluding.setdefault(key, []).append(entry)

    def levels(self, scope: str) -> Levels:
        """The :class:`Levels` of a requested scope (cached by the raw text).

        A scope that holds no assignment itself shares the levels of its nearest ancestor that does
        (or of the nearest management group or subscription), seen from below: a request for a new
        resource costs a few string operations, not a walk of the whole chain.
        """
        hit = self._levels.get(scope)
        if hit is None:
            key = scope_key(scope)
            if key in self._interesting:
                hit = self._levels_at(key)
            else:
                # new resources come in siblings: their parent's answer is remembered
                cut = key.rfind("/")
                parent = key[:cut] if cut > 0 else ROOT
                hit = self._below.get(parent)
                if hit is None:
                    anchor, steps = self._anchor_of(key)
                    hit = self._levels_at(anchor)
                    if steps:
                        hit = hit.seen_from_below()
                    if anchor not in (parent, key):
                        if len(self._below) >= _LEVELS_LIMIT:
                            self._below.clear()
                        self._below[parent] = hit
            if len(self._levels) >= _LEVELS_LIMIT:
                self._levels.clear()
            self._levels[scope] = hit
        return hit

    def _anchor_of(self, key: str) -> tuple[str, int]:
        """The nearest scope at or above ``key`` that holds assignments or is ``/``, a management
        group or a subscription (whose parents come from the hierarchy), and how many ``/``
        segments lie between them, walking up the id."""
        anchor = key
        interesting = self._interesting
        slashes = -1
        steps = 0
        while anchor not in interesting:
            if slashes < 0:
                slashes = anchor.count("/")
            if (slashes == 2 and anchor.startswith(SUB_PREFIX)) or (
                slashes == 4 and anchor.startswith(MG_PREFIX)
            ):
                break
            cut = anchor.rfind("/")
            steps += 1
            if cut <= 0:
                return ROOT, steps
            anchor = anchor[:cut]
            slashes -= 1
        return anchor, steps

    def _prepare_levels(self) -> None:
        """The :class:`Levels` of every scope that holds assignments, built once at index time,
        parents first: below a subscription (or a management group) a scope's levels are its own
        (if any) followed by those of its nearest anchor above, a tuple or two each. Skipped when
        the hierarchy is not plain (see :attr:`ScopeTree.plain_hierarchy`): then each is walked
        on its first request."""
        if not self.scopes.plain_hierarchy:
            return
        known = self._levels_by_key
        at_scope = self.at_scope
        denied = self.deny_by_scope
        pairs = self._level_pairs
        for key in sorted(self._interesting, key=_depth):
            if key in known:
                continue
            if key == ROOT or ScopeTree.is_hierarchy_level(key):
                self._levels_at(key)
                continue
            cut = key.rfind("/")
            anchor, steps = self._anchor_of(key[:cut]) if cut > 0 else (ROOT, 0)
            above = known.get(anchor) or self._levels_at(anchor)
            base = above.base + steps + 1
            grants = above.grant_levels
            table = at_scope.get(key)
            if table is not None:
                pair = pairs.get((key, base))
                if pair is None:
                    pair = pairs[(key, base)] = (table, base)
                grants = (pair, *grants)
            denies = above.deny_levels
            if key in denied:
                denies = ((key, base), *denies)
            known[key] = Levels(grants, denies, base)

    def _levels_at(self, key: str) -> Levels:
        hit = self._levels_by_key.get(key)
        if hit is None:
            chain = self.scopes.chain(key)
            top = len(chain) - 1
            at_scope = self.at_scope
            denied = self.deny_by_scope
            pairs = self._level_pairs
            grants: list[tuple[dict[str, tuple[AssignmentEntry, ...]], int]] = []
            denies: list[tuple[str, int]] = []
            for d, level in enumerate(chain):
                table = at_scope.get(level)
                if table is not None:
                    pair = pairs.get((level, top - d))
                    if pair is None:
                        pair = pairs[(level, top - d)] = (table, top - d)
                    grants.append(pair)
                if level in denied:
                    denies.append((level, top - d))
            hit = Levels(tuple(grants), tuple(denies), top)
            self._levels_by_key[key] = hit
        return hit

    def principal(self, principal_id: str) -> tuple[str, tuple[str, ...], bool, bool]:
        """A requested principal id's key, its identities (the key and every group it belongs to,
        as a tuple: see :meth:`Directory.identity_tuple`), whether no deny assignment names
        or excludes any of them, and whether the snapshot knows it (:meth:`Directory.knows`;
        cached)."""
        hit = self.principal_cache.get(principal_id)
        if hit is None:
            key = principal_id.lower()
            identities = self.directory.identity_tuple(key)
            hit = (
                key,
                identities,
                self.deny_subjects.isdisjoint(identities),
                self.directory.knows(key),
            )
            if len(self.principal_cache) >= _PRINCIPALS_LIMIT:
                self.principal_cache.clear()
            self.principal_cache[principal_id] = hit
        return hit

    def plan(self, action: str, data: bool) -> OpPlan:
        """The :class:`OpPlan` of an operation as a request writes it (cached)."""
        plans = self.plan_cache[data]
        hit = plans.get(action)
        if hit is None:
            operation = action.lower()
            hit = self._plans_by_op.get((operation, data))
            if hit is None:
                hit = self._plan(operation, data)
                make_room(self._plans_by_op, _PLANS_LIMIT)
                self._plans_by_op[(operation, data)] = hit
            make_room(plans, _PLANS_LIMIT)
            plans[action] = hit
        return hit

    def _plan(self, operation: str, data: bool) -> OpPlan:
        # deny assignments of equal shape match alike: match each shape once
        # (matching permissions, whether one of them is unconditioned) by shape
        matching: dict[int, tuple[tuple[int, ...], bool]] = {}
        groups: dict[str, tuple[list[DenyEntry], list[DenyEntry], list[DenyEntry], list[Any]]] = {}
        for deny in self.denies:
            found = matching.get(deny.shape_id)
            if found is None:
                picked = tuple(
                    i for i, p in enumerate(deny.permissions) if p.matches(operation, data)
                )
                found = matching[deny.shape_id] = (
                    picked,
                    any(deny.permissions[i].cond is None for i in picked),
                )
            picked, unconditioned = found
            if not picked:
                continue
            group = groups.get(deny.scope)
            if group is None:
                group = groups[deny.scope] = ([], [], [], [])
            if unconditioned and deny.everyone and not deny.excludes_everyone and deny.cond is None:
                if not deny.excluded:
                    group[1 if deny.at_scope_only else 0].append(deny)
                    continue
                if not deny.at_scope_only:
                    group[2].append(deny)
                    continue
            group[3].append((deny, tuple(deny.permissions[i] for i in picked)))
        denies = {level: _deny_level(*group) for level, group in groups.items()}
        return OpPlan(
            operation,
            data,
            self.catalogue.per_operation(operation, data),
            denies,
            frozenset(
                level
                for level, at in denies.items()
                if at.everyone_here
                or any(d.at_scope_only or d.excludes_everyone for d, _p in at.others_everyone)
            ),
        )

    @property
    def by_scope(self) -> dict[str, list[AssignmentEntry]]:
        """Role assignments by scope key, in snapshot order (made with the index; rebuilt from
        :attr:`assignments` on first use after :attr:`_by_scope` was cleared)."""
        if self._by_scope is None:
            table: dict[str, list[AssignmentEntry]] = {}
            for entry in self.assignments:
                bucket = table.get(entry.scope)
                if bucket is None:
                    table[entry.scope] = [entry]
                else:
                    bucket.append(entry)
            self._by_scope = table
        return self._by_scope

    @property
    def by_principal(self) -> dict[str, dict[str, tuple[AssignmentEntry, ...]]]:
        """Role assignments by principal key, then scope key (built on first use)."""
        if self._by_principal is None:
            table: dict[str, dict[str, tuple[AssignmentEntry, ...]]] = {}
            with paused():
                for scope, principals in self.at_scope.items():
                    for principal, bucket in principals.items():
                        scopes = table.get(principal)
                        if scopes is None:
                            table[principal] = {scope: bucket}
                        else:
                            scopes[scope] = bucket
            self._by_principal = table
        return self._by_principal

    def assignments_of(self, principal: str) -> Iterable[AssignmentEntry]:
        """The role assignments made to one principal key, at any scope."""
        for bucket in self.by_principal.get(principal, {}).values():
            yield from bucket
