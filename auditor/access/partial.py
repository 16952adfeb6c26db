"""One question about a large estate answered from its cache entry (:mod:`auditor.estate.cache`),
decoding only what the question needs, and deciding with the one decision function.

:func:`cache_tables` is the cache's indexer: it writes, beside the hierarchy (whole),

- ``dir``: every principal key the engine's directory knows (directory entries, the groups they are
  members of, the principals of role and deny assignments), with its id as the engine shows it, what
  the principal resolver knows of it (both left out when its first directory entry says the same),
  its directory entries (with their place in the snapshot), its direct members (left encoded when
  read: only who-can expands groups downwards). A key has a bucket of its own (about one key to a
  bucket), so that a question decodes the keys it reaches and no others, a level of the walk
  through groups at a time (:meth:`~auditor.estate.cache.CachedEstate.get_many`);
- ``ra``: the role assignments at each scope key (with their places in the snapshot): a question
  reads those at its scope's chain only;
- ``scope``: every scope key the engine's scope tree knows, with its display casing and the deny
  assignments there;
- ``name``: the resolver's e-mail / user principal name and display-name tables;
- ``index``: the subscriptions the estate knows (advice's "scope outside the estate"), the deny
  assignments' permission patterns (advice's "unknown action"), counts.

:class:`PartialEstate` then builds a :class:`~auditor.access.indexes.Indexes` over a *partial*
snapshot: for ``access check`` the principal's identities (itself and its groups, transitively),
the role assignments made to them at the scope's chain (the scope and its ancestors: a decision
looks nowhere else), the deny assignments there, every role definition (decoded from the snapshot
file itself) and the hierarchy; for ``access who`` every role assignment and deny assignment at the
scope's chain and the principals those are made to, name or exclude, with their transitive members
(the groups a member belongs to besides are compared with nothing). The
records keep their snapshot order, so the decision sees what it sees on the whole estate; what the
warnings need beyond that (which principals, scopes and subscriptions the whole estate knows, the
operations its deny assignments name, the ids and scopes as first written) is taken from the tables,
so that answers and warnings equal the whole estate's (``tests/test_cache_partial.py`` checks it
over generated estates).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from auditor.access.advice import _Vocabulary, advisor
from auditor.access.catalogue import CompiledPermission
from auditor.access.directory import Directory
from auditor.access.engine import AccessEngine
from auditor.access.indexes import Indexes, is_all_principals
from auditor.access.principals import (
    PrincipalCandidate,
    PrincipalResolver,
    ResolvedPrincipal,
    looks_like_guid,
)
from auditor.access.scopes import ROOT, ScopeTree, scope_key
from auditor.errors import InputError
from auditor.estate.cache import CachedEstate, Tables
from auditor.estate.light import lazy_role_definitions
from auditor.estate.records import (
    DenyAssignmentRecord,
    DirectoryPrincipalRecord,
    HierarchyRecord,
    RoleAssignmentPropertiesRecord,
    RoleAssignmentRecord,
)
from auditor.estate.snapshot import Snapshot

__all__ = ["LAYOUT", "PartialEstate", "cache_tables"]

LAYOUT = "access-2"
"""The layout of the tables :func:`cache_tables` writes."""

_BELOW_SUBJECTS = 1_000
"""How many principals a who-can reads below the principals its scope's deny assignments name or
exclude (beyond those below its role assignments' holders) before it reads the groups above its
members instead (see :meth:`PartialEstate._for_who`)."""

_Info = tuple[str, str | None, str | None, str | None]
"""What the resolver knows of a principal: id as shown, type, display name, e-mail."""


_NO_MEMBERS = msgspec.Raw(b"\x90")
"""An empty msgpack array."""


class _Dir(msgspec.Struct, array_like=True, omit_defaults=False):
    """A principal key's entry in the ``dir`` table. What its first directory entry already says
    is left out (a who-can reads thousands of these): read it through :func:`_shown` and
    :func:`_info`."""

    display: str
    """The id as the engine shows it; "" when it is the first directory entry's id."""
    known: bool
    """Registered in the engine's directory (else only the resolver knows it)."""
    info: _Info | None = None
    usual: bool = False
    """``info`` is left out: it is the shown id and the first entry's type, name and e-mail."""
    entries: list[tuple[int, DirectoryPrincipalRecord]] = []
    members: msgspec.Raw = _NO_MEMBERS
    """Its direct members' keys: a msgpack array of strings, decoded only by who-can's walk
    downwards (:meth:`PartialEstate._for_who`)."""


class _Scope(msgspec.Struct, array_like=True):
    display: str
    denies: list[tuple[int, DenyAssignmentRecord]] = []


class _AtScope(msgspec.Struct, array_like=True):
    """The role assignments at one scope key, their places in the snapshot, and the scope as the
    first of them writes it (left out of those that write it so: see :class:`_Shortened`)."""

    scope: str
    indexes: list[int]
    records: list[RoleAssignmentRecord]


class _Name(msgspec.Struct, array_like=True):
    address: list[tuple[str, str]] = []
    name: list[str] = []


_Patterns = tuple[list[str], list[str], list[str], list[str]]


class _Index(msgspec.Struct):
    subscriptions: list[str]
    vocabulary: list[_Patterns]
    odd_principals: dict[str, str]
    """The principal keys some record writes otherwise than the id first seen (which the engine
    shows), with that id."""
    odd_scopes: dict[str, str]
    """Likewise for scope keys."""
    first_principal: tuple[int, DirectoryPrincipalRecord] | None = None
    blank_ids: list[int] = []
    blank_types: list[int] = []
    blank_scopes: list[int] = []


# -- writing


def cache_tables(snapshot: Snapshot) -> Tables:
    """The cache's indexer: the tables of ``snapshot`` (see the module's notes)."""
    scopes = ScopeTree(snapshot.hierarchy)
    directory = Directory(snapshot.principals)
    at_scope: dict[str, list[int]] = {}
    first_raw: dict[str, str] = {}
    scope_keys: dict[str, str] = {}
    principal_keys: dict[str, str] = {}
    last: str | None = None
    here: list[int] = []
    records = snapshot.roleAssignments
    for index, record in enumerate(records):
        props = record.properties
        raw = props.scope
        if raw is not last:  # snapshots list a scope's assignments together
            last = raw
            scope = scope_keys.get(raw)
            if scope is None:
                scope = scope_keys[raw] = scopes.add(raw or "/")
            found = at_scope.get(scope)
            if found is None:
                found = at_scope[scope] = []
                first_raw[scope] = raw
            here = found
        here.append(index)
        raw = props.principalId
        if raw not in principal_keys:
            principal_keys[raw] = directory.add(raw)
    denies_at: dict[str, list[tuple[int, DenyAssignmentRecord]]] = {}
    deny_scopes: dict[str, str] = {}
    deny_ids: dict[str, str] = {}
    vocabulary: dict[tuple[tuple[str, ...], ...], None] = {}
    for index, deny in enumerate(snapshot.denyAssignments):
        dprops = deny.properties
        raw = dprops.scope or "/"
        scope = deny_scopes[raw] = scopes.add(raw)
        denies_at.setdefault(scope, []).append((index, deny))
        for p in (*dprops.principals, *dprops.excludePrincipals):
            if p.id and not is_all_principals(p):
                deny_ids[p.id] = directory.add(p.id)
        for perm in dprops.permissions:
            shape = (
                tuple(perm.actions),
                tuple(perm.notActions),
                tuple(perm.dataActions),
                tuple(perm.notDataActions),
            )
            vocabulary[shape] = None
    resolver = PrincipalResolver(snapshot, directory, ids_complete=True)
    dir_table = _dir_table(snapshot, directory, resolver)
    scope_table: dict[str, _Scope] = {}
    for key in scopes.known():
        scope_table[key] = _Scope(scopes.display(key), denies_at.get(key, []))
    names: dict[str, _Name] = {}
    for text, pairs in resolver._by_address.items():
        names[text] = _Name(address=[(k, how) for k, how in pairs])
    for text, keys in resolver._by_name.items():
        names.setdefault(text, _Name()).name = list(keys)
    index_block = _Index(
        subscriptions=sorted(_subscriptions(snapshot, scopes)),
        vocabulary=[(list(a), list(b), list(c), list(d)) for a, b, c, d in vocabulary],
        odd_principals=_odd_principals(snapshot, directory, principal_keys, deny_ids),
        odd_scopes={
            key: scopes.display(key)
            for raw, key in (*scope_keys.items(), *deny_scopes.items())
            if (raw.rstrip("/") or "/") != scopes.display(key)
        },
        first_principal=(0, snapshot.principals[0]) if snapshot.principals else None,
    )
    held = {
        key: _AtScope(first_raw[key], idx, [records[i] for i in idx])
        for key, idx in at_scope.items()
    }
    usual = {raw for raw, key in scope_keys.items() if first_raw[key] == raw}
    return Tables(
        layout=LAYOUT,
        blocks={"index": index_block, "hierarchy": snapshot.hierarchy},
        tables={
            "dir": dir_table,
            "ra": held,
            "scope": scope_table,
            "name": names,
        },
        per_bucket={"dir": 1, "ra": 4, "scope": 16, "name": 32},
        writing=_Shortened(records, usual, index_block).left_out,
    )


_RA_INFIX = "/providers/Cloud.Authorization/roleAssignments/"
_RA_TYPE = "Cloud.Authorization/roleAssignments"


class _Shortened:
    """What a role assignment's entry leaves out because :func:`_restore` makes it again (half of
    the bytes): its scope when it is written as the first assignment at that scope writes it; an
    id that is its scope, :data:`_RA_INFIX` and its name; the usual type. Fields that are really
    empty are listed in the index block, so that they stay empty."""

    def __init__(self, records: list[RoleAssignmentRecord], usual: set[str], index: _Index) -> None:
        self._records = records
        self._usual = usual
        self._index = index

    @contextlib.contextmanager
    def left_out(self) -> Iterator[None]:
        """While the entry is written: the fields left out are empty (then put back)."""
        ids: list[tuple[RoleAssignmentRecord, str]] = []
        scopes: list[tuple[RoleAssignmentPropertiesRecord, str]] = []
        kinds: list[RoleAssignmentRecord] = []
        blank_ids = self._index.blank_ids
        blank_types = self._index.blank_types
        blank_scopes = self._index.blank_scopes
        usual_scopes = self._usual
        infix = _RA_INFIX
        usual = _RA_TYPE
        try:
            for index, record in enumerate(self._records):
                props = record.properties
                rid = record.id
                scope = props.scope
                if not rid:
                    blank_ids.append(index)
                elif rid.endswith(record.name or "\0") and rid == f"{scope}{infix}{record.name}":
                    ids.append((record, rid))
                    record.id = ""
                if not scope:
                    blank_scopes.append(index)
                elif scope in usual_scopes:
                    scopes.append((props, scope))
                    props.scope = ""
                kind = record.type
                if kind == usual:
                    kinds.append(record)
                    record.type = ""
                elif kind == "":
                    blank_types.append(index)
            yield
        finally:
            for record, rid in ids:
                record.id = rid
            for props, scope in scopes:
                props.scope = scope
            for record in kinds:
                record.type = usual


def _restore(at: _AtScope, blank: tuple[frozenset[int], frozenset[int], frozenset[int]]) -> None:
    """Make again what :class:`_Shortened` left out of the role assignments at one scope."""
    blank_ids, blank_types, blank_scopes = blank
    for index, record in zip(at.indexes, at.records, strict=True):
        props = record.properties
        if not props.scope and index not in blank_scopes:
            props.scope = at.scope
        if not record.id and record.name is not None and index not in blank_ids:
            record.id = f"{props.scope}{_RA_INFIX}{record.name}"
        if record.type == "" and index not in blank_types:
            record.type = _RA_TYPE


def _dir_table(
    snapshot: Snapshot,
    directory: Directory,
    resolver: PrincipalResolver,
) -> dict[str, _Dir]:
    """The ``dir`` table."""
    table: dict[str, _Dir] = {}
    for key in directory._display:
        table[key] = _Dir(directory.display(key), True)
    for index, record in enumerate(snapshot.principals):
        table[record.id.lower()].entries.append((index, record))
    members: dict[str, list[str]] = {}
    for member, groups in directory._member_of.items():
        for group in groups:
            members.setdefault(group, []).append(member)
    encode = msgspec.msgpack.encode
    for group, listed in members.items():
        table[group].members = msgspec.Raw(encode(listed))
    for key, candidate in resolver._info.items():
        info = (candidate.id, candidate.type, candidate.displayName, candidate.email)
        found = table.get(key)
        if found is None:
            table[key] = _Dir(candidate.id, False, info)
        else:
            found.info = info
    for found in table.values():  # what the first entry says is left out
        if found.entries:
            first = found.entries[0][1]
            if found.info == (found.display, first.type, first.displayName, first.email):
                found.info, found.usual = None, True
            if found.display == first.id:
                found.display = ""
    return table


def _shown(found: _Dir) -> str:
    """The id of ``found`` as the engine shows it."""
    return found.display or (found.entries[0][1].id if found.entries else "")


def _info(found: _Dir) -> _Info | None:
    """What the principal resolver knows of ``found``."""
    if found.usual:
        first = found.entries[0][1]
        return (_shown(found), first.type, first.displayName, first.email)
    return found.info


def _odd_principals(
    snapshot: Snapshot,
    directory: Directory,
    assigned: dict[str, str],
    denied: dict[str, str],
) -> dict[str, str]:
    """The principal keys that some entry, membership or assignment writes otherwise than the id
    the engine shows (the first written), with that id."""
    odd: dict[str, str] = {}
    display = directory.display

    def note(raw: str) -> None:
        key = raw.lower()
        if raw != display(key):
            odd[key] = display(key)

    for record in snapshot.principals:
        note(record.id)
        for group in record.memberOf:
            note(group)
    for raw in (*assigned, *denied):
        note(raw)
    return odd


def _subscriptions(snapshot: Snapshot, scopes: ScopeTree) -> set[str]:
    """The subscriptions the whole estate knows, as advice counts them."""
    of = ScopeTree.subscription_of
    found: set[str] = set()
    for key in scopes.known():
        if key.startswith("/subscriptions/"):
            sub = of(key)
            if sub is not None:
                found.add(sub)
    for resource in (*snapshot.clusters, *snapshot.domains, *snapshot.healthEvents):
        rid = getattr(resource, "id", None)
        if isinstance(rid, str):
            sub = of(scope_key(rid))
            if sub is not None:
                found.add(sub)
    return found


# -- reading


class PartialEstate:
    """The questions one cache entry answers without loading the estate (see the module's notes).

    Methods raise :class:`InputError` when a block of the entry is damaged (the caller then
    removes the entry, :meth:`CachedEstate.discard`, and loads the snapshot, which writes it
    again). ``access what`` and batches need the whole estate: they load it."""

    def __init__(self, cached: CachedEstate) -> None:
        if cached.layout != LAYOUT:
            raise InputError("the cache entry has another layout", source=cached.path)
        self.cached = cached
        self._index: _Index = cached.block("index", _Index)
        self._hierarchy: list[HierarchyRecord] = cached.block("hierarchy", list[HierarchyRecord])
        self._dirs: dict[str, _Dir | None] = {}
        self._scopes: dict[str, _Scope | None] = {}
        self._tree = ScopeTree(self._hierarchy)
        self._held: dict[str, list[tuple[int, RoleAssignmentRecord]]] = {}
        index = self._index
        self._blank = (
            frozenset(index.blank_ids),
            frozenset(index.blank_types),
            frozenset(index.blank_scopes),
        )

    @property
    def warnings(self) -> list[str]:
        """What the loader told of the snapshot when it was cached."""
        return self.cached.warnings

    def _dir(self, key: str) -> _Dir | None:
        if key in self._dirs:
            return self._dirs[key]
        found: _Dir | None = self.cached.get("dir", key, _Dir)
        self._dirs[key] = found
        return found

    def _scope(self, key: str) -> _Scope | None:
        if key in self._scopes:
            return self._scopes[key]
        found: _Scope | None = self.cached.get("scope", key, _Scope)
        self._scopes[key] = found
        return found

    # -- principals

    def resolve(self, text: str) -> ResolvedPrincipal | None:
        """The principal ``text`` names, as :meth:`AccessEngine.resolve_principal` resolves it on
        the whole estate; None when it names several or nobody (the whole estate's resolver then
        words the error)."""
        given = text.strip()
        if not given:
            return None
        key = given.lower()
        found = self._dir(key)
        if found is not None:
            cand = self._candidate(key)
            return ResolvedPrincipal(given, given, "id", True, cand.type, cand.displayName)
        name: _Name | None = self.cached.get("name", key, _Name)
        if name is not None and name.address:
            keys = list(dict.fromkeys(k for k, _how in name.address))
            if len(keys) > 1:
                return None
            how: Any = name.address[0][1]
            return self._resolved(keys[0], given, how)
        if name is not None and name.name:
            if len(name.name) > 1:
                return None
            return self._resolved(name.name[0], given, "displayName")
        if looks_like_guid(given):
            return ResolvedPrincipal(given, given, "unknownId", False)
        return None

    def _candidate(self, key: str) -> PrincipalCandidate:
        found = self._dir(key)
        info = None if found is None else _info(found)
        if info is not None:
            return PrincipalCandidate(*info)
        return PrincipalCandidate(_shown(found) if found is not None else key)

    def _resolved(self, key: str, given: str, how: Any) -> ResolvedPrincipal:
        cand = self._candidate(key)
        return ResolvedPrincipal(cand.id, given, how, True, cand.type, cand.displayName)

    # -- engines

    def engine_for_check(self, principal_id: str, scope: str) -> AccessEngine:
        """An engine that decides ``principal_id`` at ``scope`` (any action) as the whole
        estate's does, with the same warnings."""
        key = principal_id.lower()
        entries, identities = self._upwards([key])
        chain = self._tree.chain(scope_key(scope))
        mine = frozenset(identities)
        ras = [
            pair
            for level in chain
            for pair in self._assignments(level)
            if pair[1].properties.principalId.lower() in mine
        ]
        return self._engine(entries, ras, self._denies(chain), [key], scope)

    def engine_for_who(self, scope: str) -> AccessEngine:
        """An engine whose who-can at ``scope`` equals the whole estate's."""
        chain = self._tree.chain(scope_key(scope))
        ras = [pair for level in chain for pair in self._assignments(level)]
        denies = self._denies(chain)
        holders = [r.properties.principalId.lower() for _i, r in ras]
        subjects = [
            p.id.lower()
            for _index, deny in denies
            for p in (*deny.properties.principals, *deny.properties.excludePrincipals)
            if p.id and not is_all_principals(p)
        ]
        return self._engine(self._for_who(holders, subjects), ras, denies, [], scope)

    def _assignments(self, level: str) -> list[tuple[int, RoleAssignmentRecord]]:
        """The role assignments at scope key ``level`` exactly, with their places."""
        found = self._held.get(level)
        if found is None:
            at: _AtScope | None = self.cached.get("ra", level, _AtScope)
            if at is not None:
                _restore(at, self._blank)
            found = self._held[level] = (
                [] if at is None else list(zip(at.indexes, at.records, strict=True))
            )
        return found

    def _denies(self, chain: Iterable[str]) -> list[tuple[int, DenyAssignmentRecord]]:
        out: list[tuple[int, DenyAssignmentRecord]] = []
        for level in chain:
            found = self._scope(level)
            if found is not None:
                out += found.denies
        return out

    def _upwards(
        self, start: list[str]
    ) -> tuple[list[tuple[int, DirectoryPrincipalRecord]], list[str]]:
        """The directory entries of ``start`` and of every group they belong to, transitively,
        and the keys reached (``start`` and those groups). Walked a level at a time, each level's
        keys read from the cache in one call."""
        dirs = self._dirs
        entries: list[tuple[int, DirectoryPrincipalRecord]] = []
        seen: dict[str, None] = dict.fromkeys(start)
        level = list(seen)
        while level:
            self._read_dirs(level)
            above: list[str] = []
            for key in level:
                found = dirs[key]
                if found is None:
                    continue
                entries += found.entries
                for _index, record in found.entries:
                    for group in record.memberOf:
                        gk = group.lower()
                        if gk not in seen:
                            seen[gk] = None
                            above.append(gk)
            level = above
        return entries, list(seen)

    def _for_who(
        self, holders: list[str], subjects: list[str]
    ) -> list[tuple[int, DirectoryPrincipalRecord]]:
        """The directory entries a who-can needs: those of ``holders`` (the principals the role
        assignments at the scope's chain are made to) and of their transitive members (who the
        answer is about), and what those members' decisions compare their identities with
        besides: ``subjects`` (the principals the deny assignments there name or exclude).

        A member reaches a subject only through groups that are themselves transitive members of
        the subject (below it): so the entries below the subjects serve, and the other groups a
        member belongs to are compared with nothing (the whole estate's who-can gives the same
        answer, paths and reasons; ``tests/test_cache_partial.py``). When more than
        :data:`_BELOW_SUBJECTS` principals lie below the subjects (a deny assignment naming a
        group of thousands), every group above the members is read instead, as few as they are."""
        down: dict[str, None] = dict.fromkeys(holders)
        self._down(list(down), down, None)
        reached = list(down)
        extra = [k for k in dict.fromkeys(subjects) if k not in down]
        if extra:
            down.update(dict.fromkeys(extra))
            if not self._down(extra, down, len(down) + _BELOW_SUBJECTS):
                return self._upwards(reached)[0]
        dirs = self._dirs
        entries: list[tuple[int, DirectoryPrincipalRecord]] = []
        for key in down:
            found = dirs[key]
            if found is not None:
                entries += found.entries
        return entries

    def _down(self, level: list[str], down: dict[str, None], most: int | None) -> bool:
        """Add to ``down`` the transitive members of ``level`` (its keys already in it), a level
        at a time, each level's keys read from the cache in one call; False when it would grow
        past ``most`` keys (then it stops)."""
        dirs = self._dirs
        while level:
            self._read_dirs(level)
            groups = [d.members for k in level if (d := dirs[k]) is not None and len(d.members) > 1]
            level = []
            for listed in self._members(groups):
                for member in listed:
                    if member not in down:
                        down[member] = None
                        level.append(member)
            if most is not None and len(down) > most:
                return False
        return True

    def _members(self, lists: list[msgspec.Raw]) -> list[list[str]]:
        """The member lists ``lists`` (:attr:`_Dir.members`), decoded in one call."""
        found: list[list[str]] = self.cached.decode_all(lists, list[str])
        return found

    def _read_dirs(self, keys: list[str]) -> None:
        """The ``dir`` entries of ``keys`` into the memo (None for keys the table lacks)."""
        dirs = self._dirs
        wanted = [k for k in keys if k not in dirs]
        if wanted:
            found = self.cached.get_many("dir", wanted, _Dir)
            for key in wanted:
                dirs[key] = found.get(key)

    def _engine(
        self,
        entries: list[tuple[int, DirectoryPrincipalRecord]],
        ras: list[tuple[int, RoleAssignmentRecord]],
        denies: list[tuple[int, DenyAssignmentRecord]],
        principals: list[str],
        scope: str,
    ) -> AccessEngine:
        cached = self.cached
        snap = cached.snapshot_shell()
        roles = cached.small_bytes("roleDefinitions")
        if roles is not None and not lazy_role_definitions(snap, roles):
            # (the mirrors refused it: decoded as the loader decodes it, with pydantic)
            snap.roleDefinitions = cached.small_sections(("roleDefinitions",)).roleDefinitions
        first = self._index.first_principal
        if first is not None and not entries:
            entries = [first]  # "the snapshot holds no directory" is said only when true
        snap.hierarchy = self._hierarchy
        snap.principals = [r for _i, r in _ordered(entries)]
        snap.roleAssignments = [r for _i, r in _ordered(ras)]
        snap.denyAssignments = [r for _i, r in _ordered(denies)]
        ix = Indexes(snap)
        self._as_whole(ix, principals, scope)
        return AccessEngine(ix)

    def _as_whole(self, ix: Indexes, principals: list[str], scope: str) -> None:
        """Make what the warnings and the output read of ``ix`` the whole estate's: ids and scopes
        as first written, the principals and scopes the whole estate knows, its subscriptions and
        the operations its deny assignments name."""
        shown = ix.directory._display
        odd = self._index.odd_principals
        for key in [k for k in shown if k in odd] if odd else ():
            shown[key] = odd[key]
        for key in principals:
            found = self._dir(key)
            if found is not None and found.known:
                shown[key] = _shown(found)
        tree = ix.scopes._display
        odd = self._index.odd_scopes
        for key in [k for k in tree if k in odd] if odd else ():
            tree[key] = odd[key]
        wanted = scope_key(scope)
        if wanted != ROOT and ScopeTree.subscription_of(wanted) is None and wanted not in tree:
            at = self._scope(wanted)
            if at is not None:
                tree[wanted] = at.display
        notes = advisor(ix)
        notes._subscriptions = frozenset(self._index.subscriptions)
        perms: list[CompiledPermission] = [
            p for role in ix.catalogue.roles.values() for p in role.permissions
        ]
        perms += [
            CompiledPermission.build(i, a, na, d, nd, None, None)
            for i, (a, na, d, nd) in enumerate(self._index.vocabulary)
        ]
        notes._vocabulary = _Vocabulary(perms)


def _ordered(pairs: list[tuple[int, Any]]) -> list[tuple[int, Any]]:
    """Pairs in snapshot order, each place once."""
    return sorted(dict(pairs).items())
