"""The directory: principals, direct and transitive group membership, reverse membership.

Principal ids are handled as keys (lower case); the casing first seen is kept for output. Transitive
membership is computed lazily per principal and cached; a membership cycle never hangs anything (each
walk remembers what it visited) and is reported by :meth:`Directory.cycles`.
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Iterable, Iterator
from itertools import filterfalse

from auditor.estate.records import DirectoryPrincipalRecord

__all__ = ["Directory"]

_EMPTY: frozenset[str] = frozenset()
_MEMBER_CACHE_LIMIT = 4096


class _GroupKeys(dict[str, str]):
    """Group ids as written -> their keys, each registered in the directory's display casing
    when first met (see :meth:`Directory.add`)."""

    __slots__ = ("display",)

    def __init__(self, display: dict[str, str]) -> None:
        super().__init__()
        self.display = display

    def __missing__(self, raw: str) -> str:
        key = raw.lower()
        if key not in self.display:
            key = sys.intern(key)
            self.display[key] = raw
        self[raw] = key
        return key


class Directory:
    """Membership graph of the snapshot's ``principals`` (``memberOf`` edges, member -> group)."""

    def __init__(self, principals: Iterable[DirectoryPrincipalRecord] = ()) -> None:
        self._entries: dict[str, DirectoryPrincipalRecord] = {}
        self._display: dict[str, str] = {}
        self._member_of: dict[str, tuple[str, ...]] = {}
        self._closure: dict[str, frozenset[str]] = {}
        self._identities: dict[str, frozenset[str]] = {}
        self._members: dict[str, list[str]] | None = None
        self._transitive: dict[str, dict[str, str]] = {}
        self._paths: dict[tuple[str, str], tuple[str, ...]] = {}
        entries = self._entries
        member_of = self._member_of
        display = self._display
        intern = sys.intern
        group_key = _GroupKeys(display).__getitem__  # group ids as written -> keys (they repeat)
        for record in principals:
            raw = record.id
            if raw is None:
                continue
            key = raw.lower()
            if key not in display:  # :meth:`add`, inlined (a large directory's every entry)
                key = intern(key)  # the dicts below share the key (the index's, when it has it)
                display[key] = raw
            first = entries.setdefault(key, record) is record
            groups_raw = record.memberOf
            if groups_raw:
                groups = tuple(map(group_key, groups_raw))
                if not first:
                    previous = member_of.get(key)
                    if previous:
                        groups = previous + groups
                member_of[key] = tuple(dict.fromkeys(groups)) if len(groups) > 1 else groups

    # -- ids

    def add(self, principal_id: str) -> str:
        """Register an id (keeping the first casing seen) and return its key."""
        key = principal_id.lower()
        if key not in self._display:
            self._display[sys.intern(key)] = key if key == principal_id else principal_id
        return key

    def add_keys(self, keys: Iterable[str]) -> None:
        """:meth:`add` each of ``keys``, ids that are their own keys (lower case), in order."""
        display = self._display
        intern = sys.intern
        for key in filterfalse(display.__contains__, keys):
            display[intern(key)] = key

    def knows(self, key: str) -> bool:
        """True when the principal key was registered: a directory entry, a group some entry is a
        member of, or (in the engine's directory, see :class:`~auditor.access.indexes.Indexes`)
        a principal that a role or deny assignment names or excludes."""
        return key in self._display

    def display(self, key: str) -> str:
        """The id as first seen."""
        return self._display.get(key, key)

    def entry(self, key: str) -> DirectoryPrincipalRecord | None:
        """The directory entry of a principal key, if the directory has one."""
        return self._entries.get(key)

    def entries(self) -> Iterator[tuple[str, DirectoryPrincipalRecord]]:
        """Every directory entry with its key."""
        return iter(self._entries.items())

    def name(self, key: str) -> str:
        """A readable name: the display name when known, else the id."""
        entry = self._entries.get(key)
        if entry is not None and entry.displayName:
            return entry.displayName
        return self.display(key)

    def is_group(self, key: str) -> bool:
        """True for a directory entry of type ``Group`` or anything that has members."""
        entry = self._entries.get(key)
        if entry is not None and entry.type is not None and entry.type.lower() == "group":
            return True
        return bool(self._reverse().get(key))

    def direct_groups(self, key: str) -> tuple[str, ...]:
        """The groups ``key`` is a direct member of."""
        return self._member_of.get(key, ())

    # -- transitive membership

    def groups_of(self, key: str) -> frozenset[str]:
        """Every group ``key`` belongs to, through nested groups (never ``key`` itself)."""
        hit = self._closure.get(key)
        if hit is not None:
            return hit
        direct = self._member_of.get(key)
        if not direct:
            self._closure[key] = _EMPTY
            return _EMPTY
        out: set[str] = set()
        stack = list(direct)
        member_of = self._member_of
        closure = self._closure
        while stack:
            group = stack.pop()
            if group in out:
                continue
            out.add(group)
            known = closure.get(group)
            if known is not None:
                out |= known
                continue
            stack.extend(member_of.get(group, ()))
        out.discard(key)
        result = frozenset(out)
        closure[key] = result
        return result

    def identities(self, key: str) -> frozenset[str]:
        """The identity set of a principal: its own key plus every group it belongs to.

        The members of :meth:`identity_tuple`, as a set; cached for directory members (whose
        number is bounded), not for unknown ids.
        """
        hit = self._identities.get(key)
        if hit is None:
            if not self._member_of.get(key):
                return frozenset((key,))
            hit = self._identities[key] = frozenset(self.identity_tuple(key))
        return hit

    def identity_tuple(self, key: str) -> tuple[str, ...]:
        """A principal's identities (its key and every group it belongs to, each once) as a
        tuple, in no particular order, built afresh from the cached closures of its direct
        groups (the caller caches; :meth:`identities` gives them as a set). The decision only
        probes other sets with a principal's identities and iterates them, for which a tuple of
        a few keys serves as well as a set at a seventh of the memory: a batch that meets tens
        of thousands of principals fills fewer pages, and the tuples stay together in the
        processor's caches."""
        direct = self._member_of.get(key)
        if not direct:
            return (key,)
        hit = self._identities.get(key)
        if hit is not None:
            return tuple(hit)
        groups_of = self.groups_of
        if len(direct) == 1 and not groups_of(direct[0]):  # one group, itself in none: no set
            return (key, direct[0]) if direct[0] != key else (key,)
        found = {key, *direct}
        for group in direct:
            found |= groups_of(group)
        return tuple(found)

    def group_path(self, key: str, group: str) -> tuple[str, ...]:
        """The shortest membership path ``key -> ... -> group`` (keys), ``(key,)`` when equal and
        ``()`` when ``key`` is not a member of ``group``."""
        if key == group:
            return (key,)
        cached = self._paths.get((key, group))
        if cached is not None:
            return cached
        found = self._group_path(key, group)
        if len(self._paths) >= _MEMBER_CACHE_LIMIT * 16:
            self._paths.clear()
        self._paths[(key, group)] = found
        return found

    def _group_path(self, key: str, group: str) -> tuple[str, ...]:
        parent: dict[str, str] = {key: key}
        queue = deque([key])
        while queue:
            current = queue.popleft()
            for nxt in self._member_of.get(current, ()):
                if nxt in parent:
                    continue
                parent[nxt] = current
                if nxt == group:
                    path = [nxt]
                    while path[-1] != key:
                        path.append(parent[path[-1]])
                    return tuple(reversed(path))
                queue.append(nxt)
        return ()

    # -- reverse membership

    def _reverse(self) -> dict[str, list[str]]:
        if self._members is None:
            members: dict[str, list[str]] = {}
            for member, groups in self._member_of.items():
                for group in groups:
                    members.setdefault(group, []).append(member)
            self._members = members
        return self._members

    def members_of(self, group: str) -> list[str]:
        """The direct members of ``group``."""
        return self._reverse().get(group, [])

    def transitive_members(self, group: str) -> dict[str, str]:
        """Every transitive member of ``group``, mapped to the next hop towards ``group`` (so a
        member's path is ``member -> next -> ... -> group``). ``group`` itself is not included."""
        hit = self._transitive.get(group)
        if hit is not None:
            return hit
        reverse = self._reverse()
        towards: dict[str, str] = {}
        queue = deque([group])
        while queue:
            current = queue.popleft()
            for member in reverse.get(current, ()):
                if member in towards or member == group:
                    continue
                towards[member] = current
                queue.append(member)
        if len(self._transitive) >= _MEMBER_CACHE_LIMIT:
            self._transitive.clear()
        self._transitive[group] = towards
        return towards

    @staticmethod
    def path_to(member: str, group: str, towards: dict[str, str]) -> tuple[str, ...]:
        """The path ``member -> ... -> group`` from a :meth:`transitive_members` map."""
        path = [member]
        while path[-1] != group:
            path.append(towards[path[-1]])
        return tuple(path)

    # -- cycles and e-mail

    def cycles(self) -> list[list[str]]:
        """Membership cycles, one per strongly connected part of the group graph (ids as first
        seen, in membership order: each is a member of the next, the last of the first)."""
        import networkx as nx

        graph = nx.DiGraph()
        for member, groups in self._member_of.items():
            for group in groups:
                graph.add_edge(member, group)
        found: list[list[str]] = []
        for part in nx.strongly_connected_components(graph):
            if len(part) == 1:
                (only,) = part
                if graph.has_edge(only, only):
                    found.append([self.display(only)])
                continue
            edges = nx.find_cycle(graph.subgraph(part), source=min(part))
            found.append([self.display(u) for u, _v in edges])
        found.sort()
        return found

    def by_email(self, email: str) -> list[str]:
        """Keys of the directory entries whose ``email`` equals ``email`` (ignoring case)."""
        wanted = email.strip().lower()
        return [
            key
            for key, entry in self._entries.items()
            if entry.email is not None and entry.email.strip().lower() == wanted
        ]
