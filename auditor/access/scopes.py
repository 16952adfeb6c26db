"""The scope tree (contracts §1): ``/`` at the top, management groups and subscriptions placed by the
snapshot's ``hierarchy``, and below a subscription the structure of the ids themselves (A is above B
when B starts with A + ``/``).

Scopes are handled as *keys*: lower case, trailing ``/`` removed (``/`` itself stays ``/``). The
casing first seen is kept for output (:meth:`ScopeTree.display`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from auditor.estate.records import HierarchyRecord

__all__ = ["MG_PREFIX", "ROOT", "SUB_PREFIX", "ScopeKind", "ScopeTree", "scope_key"]

ROOT = "/"
MG_PREFIX = "/providers/cloud.management/managementgroups/"
"""How a management group's key starts (it has four ``/``)."""
SUB_PREFIX = "/subscriptions/"
"""How a subscription's key starts (it has two ``/``), and every scope below it."""
_CACHE_LIMIT = 1 << 18

ScopeKind = Literal["root", "managementGroup", "subscription", "resourceGroup", "resource", "other"]


def scope_key(scope: str) -> str:
    """The comparison key of a scope: lower case, trailing ``/`` ignored, ``/`` at the top."""
    key = scope.rstrip("/").lower()
    return key or ROOT


def _hierarchy_form(key: str) -> bool:
    if key.startswith(SUB_PREFIX):
        return key.count("/") == 2
    return key.startswith(MG_PREFIX) and key.count("/") == 4


@dataclass(frozen=True, slots=True)
class _Resolved:
    key: str
    chain: tuple[str, ...]


class ScopeTree:
    """Scope keys, their display casing and their ancestry.

    ``chain(key)`` is the scope itself followed by every ancestor, nearest first, ending at ``/``.
    A cycle in ``hierarchy`` cannot hang anything: the walk stops where it would repeat and goes on
    at ``/``; :attr:`hierarchy_cycles` lists such cycles.
    """

    def __init__(self, hierarchy: Iterable[HierarchyRecord] = ()) -> None:
        self._display: dict[str, str] = {}
        self._parent_of: dict[str, str] = {}
        self._chains: dict[str, tuple[str, ...]] = {}
        self._resolved: dict[str, _Resolved] = {}
        for entry in hierarchy:
            if entry.id is None:
                continue
            key = self.add(entry.id)
            parent = self.add(entry.parent) if entry.parent else ROOT
            if key != ROOT and parent != key:
                self._parent_of[key] = parent
        self._cycles: list[list[str]] | None = None

    # -- keys and display

    def add(self, scope: str) -> str:
        """Register ``scope`` (keeping the first casing seen) and return its key."""
        key = scope.rstrip("/").lower() or ROOT
        if key not in self._display:
            shown = scope.rstrip("/") or ROOT
            self._display[sys.intern(key)] = key if shown == key else shown
        return key

    def display(self, key: str) -> str:
        """The casing first seen for ``key`` (the key itself if never seen)."""
        return self._display.get(key, key)

    @property
    def plain_hierarchy(self) -> bool:
        """True when the hierarchy places only management groups and subscriptions, each under
        ``/``, a management group or a subscription: then no id below a subscription is ever met
        again above itself, and a scope's chain is its id's prefixes followed by the chain of the
        nearest management group or subscription."""
        return all(
            _hierarchy_form(key) and (parent == ROOT or _hierarchy_form(parent))
            for key, parent in self._parent_of.items()
        )

    def hierarchy_keys(self) -> Iterable[str]:
        """The keys the snapshot's ``hierarchy`` places (their parents come from it)."""
        return self._parent_of.keys()

    def known(self) -> Iterable[str]:
        """Every scope key registered so far."""
        return self._display.keys()

    # -- ancestry

    def parent(self, key: str) -> str | None:
        """The parent scope key, None for ``/``."""
        if key == ROOT:
            return None
        parent = self._parent_of.get(key)
        if parent is not None:
            return parent
        if _hierarchy_form(key):
            return ROOT
        cut = key.rfind("/")
        return key[:cut] if cut > 0 else ROOT

    def chain(self, key: str) -> tuple[str, ...]:
        """``key`` and its ancestors, nearest first, ending with ``/``."""
        chains = self._chains
        found = chains.get(key)
        if found is not None:
            return found
        # below the hierarchy a scope's parent is its id minus the last segment: its chain is
        # itself followed by its parent's (built from the nearest known chain downwards)
        placed = self._parent_of
        pending: list[str] = []
        current = key
        while True:
            found = chains.get(current)
            if found is not None:
                break
            if current == ROOT or current in placed:
                found = self._walk(current)
                break
            pending.append(current)
            current = self.parent(current) or ROOT
        if len(chains) + len(pending) >= _CACHE_LIMIT:
            chains.clear()
        for below in reversed(pending):
            # a scope met again above itself (only odd hierarchies do that): the careful walk
            found = self._walk(below) if below in found else (below, *found)
            chains[below] = found
        return found

    def _walk(self, key: str) -> tuple[str, ...]:
        """The chain of ``key`` walked parent by parent, stopping where the walk would repeat."""
        found = self._chains.get(key)
        if found is not None:
            return found
        out: list[str] = []
        seen: set[str] = set()
        current: str | None = key
        while current is not None and current not in seen:
            cached = self._chains.get(current) if current != key else None
            if cached is not None:
                out.extend(c for c in cached if c not in seen)
                break
            seen.add(current)
            out.append(current)
            current = self.parent(current)
        if out[-1] != ROOT:
            if ROOT in out:
                out.remove(ROOT)
            out.append(ROOT)
        result = tuple(out)
        if len(self._chains) >= _CACHE_LIMIT:
            self._chains.clear()
        self._chains[key] = result
        return result

    def depth(self, key: str) -> int:
        """How many scopes the chain of ``key`` holds (1 for ``/``)."""
        return len(self.chain(key))

    def resolve(self, scope: str) -> tuple[str, tuple[str, ...]]:
        """The key of a scope as a request writes it, and its chain (cached by the raw text)."""
        hit = self._resolved.get(scope)
        if hit is None:
            key = scope_key(scope)
            hit = _Resolved(key, self.chain(key))
            if len(self._resolved) >= _CACHE_LIMIT:
                self._resolved.clear()
            self._resolved[scope] = hit
        return hit.key, hit.chain

    def is_at_or_above(self, upper: str, lower: str) -> bool:
        """True when scope key ``upper`` is ``lower`` or one of its ancestors."""
        return upper in self.chain(lower)

    @property
    def hierarchy_cycles(self) -> list[list[str]]:
        """Cycles in the snapshot's ``hierarchy`` (display casing), each listed once."""
        if self._cycles is None:
            import networkx as nx

            graph = nx.DiGraph(list(self._parent_of.items()))
            self._cycles = [[self.display(k) for k in cycle] for cycle in nx.simple_cycles(graph)]
        return self._cycles

    # -- kinds

    @staticmethod
    def kind(key: str) -> ScopeKind:
        """What kind of scope ``key`` is (by its form)."""
        if key == ROOT:
            return "root"
        if key.startswith(MG_PREFIX) and key.count("/") == 4:
            return "managementGroup"
        if key.startswith(SUB_PREFIX):
            parts = key.split("/")
            if len(parts) == 3:
                return "subscription"
            if len(parts) == 5 and parts[3] == "resourcegroups":
                return "resourceGroup"
            if "providers" in parts[3:]:
                return "resource"
        return "other"

    @staticmethod
    def is_hierarchy_level(key: str) -> bool:
        """True for ``/``, a management group or a subscription."""
        return key == ROOT or _hierarchy_form(key)

    @staticmethod
    def subscription_of(key: str) -> str | None:
        """The subscription key a scope key lies in (itself for a subscription), if any."""
        if not key.startswith(SUB_PREFIX):
            return None
        parts = key.split("/", 3)
        return "/".join(parts[:3]) if len(parts) >= 3 and parts[2] else None

    def resource_type(self, key: str) -> str | None:
        """The resource type of a scope (``Cloud.Compute/virtualMachines``, nested types joined),
        in display casing; the platform's types for subscriptions, resource groups and management
        groups; None for ``/`` and unrecognised forms."""
        kind = self.kind(key)
        if kind == "managementGroup":
            return "Cloud.Management/managementGroups"
        if kind == "subscription":
            return "Cloud.Resources/subscriptions"
        if kind == "resourceGroup":
            return "Cloud.Resources/subscriptions/resourceGroups"
        if kind != "resource":
            return None
        shown = self.display(key)
        parts = shown.split("/")
        lowered = [p.lower() for p in parts]
        last = len(lowered) - 1 - lowered[::-1].index("providers")
        tail = parts[last + 1 :]
        if not tail:
            return None
        types = [tail[0]] + [tail[i] for i in range(1, len(tail), 2)]
        return "/".join(types)
