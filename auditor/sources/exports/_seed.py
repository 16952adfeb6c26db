"""Vendor names to the seed's in what an export holds (contracts §8), fast enough for a million
role assignments.

:func:`~auditor.sources.names.to_seed` is a regular expression over the whole string (about 4 us on
an id); here the strings that repeat (scopes, role definition ids, types, the part of an id before
its last segment) go through a memo, so each distinct one is rewritten once and every record shares
the result. A run of items whose bytes hold no ``Microsoft.`` at all is not looked at.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from auditor.sources.names import to_seed, to_seed_value

_VENDOR_BYTES = re.compile(rb"(?i)microsoft\.")
_TYPE_LIKE = re.compile(r"(?i)^microsoft\.[a-z0-9]+(?:/|$)")
_VALUE_KEYS = frozenset({"inputSchema"})
"""Keys whose values are enumerations with a vendor spelling (``EventGridSchema``)."""
_TEXT_KEYS = frozenset({"condition"})
"""Keys whose values are texts that name resources inside (conditions: ``@Resource[Microsoft...]``)."""
_MEMO_LIMIT = 1 << 20
_RA_SEED = "/providers/Cloud.Authorization/roleAssignments/"
_RA_VENDOR = "/providers/Microsoft.Authorization/roleAssignments/"


def may_hold_vendor_names(data: bytes | memoryview, limit: int = 1 << 16) -> bool:
    """Whether the first ``limit`` bytes of ``data`` (raw JSON) name a vendor namespace (what the
    import's summary says of a file)."""
    return _VENDOR_BYTES.search(memoryview(data)[:limit]) is not None


class _Memo(dict[str, str]):
    """``memo[text]``: ``text`` in the seed's names, interned; computed on the first look-up (a
    dictionary look-up in C for every later one), kept while the memo has room."""

    def __missing__(self, text: str) -> str:
        found = sys.intern(to_seed(text))
        if len(self) < _MEMO_LIMIT:
            self[text] = found
        return found


class Namer:
    """Rewrites vendor names to the seed's, remembering the strings that repeat."""

    def __init__(self) -> None:
        self._memo = _Memo()
        self._scopes: dict[str, tuple[str, str, str, str]] = {}

    def _scope(self, scope: str) -> tuple[str, str, str, str]:
        """The scope in the seed's names, and the id prefixes of its role assignments: as the
        vendor writes them, as the seed writes them under the scope as given, and the seed's."""
        found = self._scopes.get(scope)
        if found is None:
            seed = self._memo[scope]
            found = (seed, scope + _RA_VENDOR, scope + _RA_SEED, sys.intern(seed + _RA_SEED))
            if len(self._scopes) < _MEMO_LIMIT:
                self._scopes[scope] = found
        return found

    def name(self, text: str) -> str:
        """A scope, type, action or role definition id in the seed's names (memoized; the
        result is interned, so every record holding it shares one string)."""
        return self._memo[text]

    def ident(self, text: str) -> str:
        """A resource id in the seed's names: the part before the last segment goes through the
        memo (it repeats: the scope and the provider path), the last segment is kept."""
        head, slash, tail = text.rpartition("/")
        if not slash or "." in tail:
            return self.name(text)
        return self.name(head) + "/" + tail

    def role_assignment(self, ra: Any) -> None:
        """A role assignment record, in place, its repeated strings shared as the snapshot
        loader shares them (one pass does both: it runs a million times).

        An id is its scope, the provider path and a name; when it has that form (nearly always),
        the renamed scope is reused and no long string is hashed again.
        """
        memo = self._memo
        intern = sys.intern
        kind = ra.type
        if kind is not None:
            ra.type = memo[kind]
        p = ra.properties
        seed_scope, vendor_prefix, given_prefix, seed_prefix = self._scopes.get(
            p.scope
        ) or self._scope(p.scope)
        p.scope = seed_scope
        rid = ra.id
        if rid.startswith(vendor_prefix):
            ra.id = seed_prefix + rid[len(vendor_prefix) :]
        elif rid.startswith(given_prefix):
            if given_prefix != seed_prefix:
                ra.id = seed_prefix + rid[len(given_prefix) :]
        else:
            ra.id = self.ident(rid)
        p.roleDefinitionId = memo[p.roleDefinitionId]
        p.principalId = intern(p.principalId)
        if p.principalType is not None:
            p.principalType = intern(p.principalType)
        if p.createdBy is not None:
            p.createdBy = intern(p.createdBy)
        if p.updatedBy is not None:
            p.updatedBy = intern(p.updatedBy)
        if p.condition is not None:
            p.condition = to_seed(p.condition)
        if p.delegatedManagedIdentityResourceId is not None:
            p.delegatedManagedIdentityResourceId = self.ident(p.delegatedManagedIdentityResourceId)

    def deny_assignment(self, da: Any) -> None:
        """A deny assignment record, in place."""
        name = self.name
        da.id = self.ident(da.id)
        if da.type is not None:
            da.type = name(da.type)
        p = da.properties
        p.scope = name(p.scope)
        if p.condition is not None:
            p.condition = to_seed(p.condition)
        for perm in p.permissions:
            perm.actions = [name(a) for a in perm.actions]
            perm.notActions = [name(a) for a in perm.notActions]
            perm.dataActions = [name(a) for a in perm.dataActions]
            perm.notDataActions = [name(a) for a in perm.notDataActions]
            if perm.condition is not None:
                perm.condition = to_seed(perm.condition)

    def record(self, section: str, record: Any) -> None:
        """Any bulk record, in place (principals carry no namespaces; a role assignment's
        strings are shared too, see :meth:`role_assignment`)."""
        if section == "roleAssignments":
            self.role_assignment(record)
        elif section == "denyAssignments":
            self.deny_assignment(record)
        elif section == "hierarchy":
            record.id = self.name(record.id)
            if record.parent is not None:
                record.parent = self.name(record.parent)

    def document(self, value: Any, key: str | None = None) -> Any:
        """Plain JSON in the seed's names: strings that are ids, scopes, types or actions (they
        start with ``/`` or ``Microsoft.X/``), object keys that are ids (user-assigned identities),
        conditions, and the enumeration values of :data:`_VALUE_KEYS`. Free text is kept."""
        if isinstance(value, str):
            if key in _VALUE_KEYS:
                return to_seed_value(value)
            if key in _TEXT_KEYS:
                return to_seed(value)
            if value.startswith("/") or _TYPE_LIKE.match(value):
                return self.name(value)
            return value
        if isinstance(value, dict):
            return {
                (self.name(k) if k.startswith("/") else k): self.document(v, k)
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [self.document(v, key) for v in value]
        return value
