"""Scopes as the sandbox's listings need them (contracts section 1): which items lie at, above or
below a scope. Ancestry comes from :class:`auditor.access.scopes.ScopeTree` (one scope tree for the
product); this module adds the "below" side (prefix ranges and management-group descendants) and the
forms of scope each endpoint accepts. Who may do what is decided by :mod:`auditor.access`, never here.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Iterator

from auditor.access.scopes import ROOT, ScopeTree, scope_key
from auditor.estate.records import HierarchyRecord

__all__ = [
    "ROOT",
    "ScopeIndex",
    "Scopes",
    "is_deny_scope",
    "is_resource_uri",
    "is_valid_scope",
    "scope_key",
]

# Scope forms a role-assignment list accepts (seed 4.2, contracts 1), on the lower-case key.
_SCOPE_FORMS = re.compile(
    r"^(?:/"
    r"|/providers/cloud\.management/managementgroups/[^/]+"
    r"|/subscriptions/[^/]+"
    r"|/subscriptions/[^/]+/resourcegroups/[^/]+"
    r"|/subscriptions/[^/]+/resourcegroups/[^/]+/providers/[^/]+(?:/[^/]+/[^/]+)+"
    r")$"
)

# Scope forms a deny-assignment list accepts (4.1 and the real API's list for a scope): a
# subscription, a resource group or a resource.
_DENY_FORMS = re.compile(
    r"^/subscriptions/[^/]+"
    r"(?:/resourcegroups/[^/]+(?:/providers/[^/]+(?:/[^/]+/[^/]+)+)?)?$"
)

# Seed 4.6: a non-nested resource, or one level of nesting.
_RESOURCE_URI = re.compile(
    r"^/subscriptions/[^/]+/resourcegroups/[^/]+/providers/[^/]+/[^/]+/[^/]+(?:/[^/]+/[^/]+)?$"
)


def is_valid_scope(key: str) -> bool:
    """True when ``key`` (a :func:`scope_key`) is a scope form of contracts section 1."""
    return bool(_SCOPE_FORMS.match(key))


def is_deny_scope(key: str) -> bool:
    """True when ``key`` is a subscription, a resource group or a resource (4.1's scopes)."""
    return bool(_DENY_FORMS.match(key))


def is_resource_uri(key: str) -> bool:
    """True when ``key`` is a resource URI that seed 4.6 supports."""
    return bool(_RESOURCE_URI.match(key))


class Scopes:
    """The scope tree of a snapshot plus the hierarchy's downward edges."""

    def __init__(self, hierarchy: Iterable[HierarchyRecord]) -> None:
        entries = list(hierarchy)
        self.tree = ScopeTree(entries)
        self._children: dict[str, set[str]] = {}
        for entry in entries:
            if entry.id is None:
                continue
            child = scope_key(entry.id)
            parent = scope_key(entry.parent) if entry.parent else ROOT
            if child != parent:
                self._children.setdefault(parent, set()).add(child)

    def ancestors(self, key: str) -> tuple[str, ...]:
        """``key`` and every scope above it, nearest first, ending with ``/``."""
        return self.tree.chain(key)

    def hierarchy_descendants(self, key: str) -> set[str]:
        """Management groups and subscriptions below ``key`` by the hierarchy (cycle-safe)."""
        out: set[str] = set()
        todo = [key]
        while todo:
            for child in self._children.get(todo.pop(), ()):
                if child not in out and child != key:
                    out.add(child)
                    todo.append(child)
        return out


class ScopeIndex:
    """Items (by position) grouped by the key of their scope, for "at", "above" and "below"."""

    def __init__(self, scopes: Iterable[str | None], tree: Scopes) -> None:
        self.scopes = tree
        self.by_scope: dict[str, list[int]] = {}
        size = 0
        for index, scope in enumerate(scopes):
            self.by_scope.setdefault(scope_key(scope or ROOT), []).append(index)
            size += 1
        self.size = size
        self.keys = sorted(self.by_scope)

    def at(self, key: str) -> list[int]:
        return self.by_scope.get(key, [])

    def at_or_above(self, key: str) -> set[int]:
        out: set[int] = set()
        for scope in self.scopes.ancestors(key):
            out.update(self.by_scope.get(scope, ()))
        return out

    def _prefix(self, key: str) -> Iterator[int]:
        yield from self.by_scope.get(key, ())
        prefix = key + "/"
        keys = self.keys
        i = bisect_left(keys, prefix)
        while i < len(keys) and keys[i].startswith(prefix):
            yield from self.by_scope[keys[i]]
            i += 1

    def at_or_below(self, key: str) -> set[int]:
        if key == ROOT:
            return set(range(self.size))
        out = set(self._prefix(key))
        if ScopeTree.kind(key) == "managementGroup":
            for below in self.scopes.hierarchy_descendants(key):
                out.update(self._prefix(below))
        return out

    def around(self, key: str) -> set[int]:
        """At, above and below ``key``."""
        if key == ROOT:
            return set(range(self.size))
        return self.at_or_above(key) | self.at_or_below(key)
