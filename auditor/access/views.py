"""The access engine's records as plain rows, for rules stated as data (rule packs' predicates).

One row per role assignment, role definition, deny assignment and subscription, each a JSON-like
``dict`` a filter reads (its ``type`` names the kind: ``Cloud.Authorization/roleAssignments``...).
The access engine decides what the rows say (groups, the role catalogue, scopes, owners); the rows
only publish it. An input the snapshot does not hold gives ``null`` (``principal/inDirectory`` when
the directory lists nobody), never a value that reads as compliant.

A million role assignments make a million rows, so role assignment rows are published in
**facets**: each field belongs to one facet (the principal, the role, the scope's level, the
condition, or the assignment itself), and :meth:`AssignmentRows.column` gives every assignment's key
for a facet and :meth:`AssignmentRows.key_column` every assignment's key for one member path (a
number per distinct value, lists and objects included, in an array of 1 or 2 bytes each when they
are few). A predicate is then evaluated once per distinct key of what it reads (the
principal's type, the role, the scope's level: a handful of combinations), not once per assignment
(:meth:`AssignmentRows.fields_row`); :meth:`AssignmentRows.row` is the whole row of one assignment
(for a failing finding's message and evidence). The rule engine reads the values of a path once
per distinct key of its facet, listed in the order of the facet's keys
(:meth:`AssignmentRows.key_value_list`), and each assignment's key as a number
(:meth:`AssignmentRows.facet_codes`; the rows shown read their keys through these numbers too), so
that its loops over a million assignments run in C (``auditor.audit.resources._verdicts``).

Fields of a role assignment row, by facet:

- ``assignment``: ``id``, ``name``, ``scope``, ``roleDefinitionId``, ``condition``;
- ``principal``: ``principalId``, ``principalType`` (the directory's type, else the assignment's,
  else ``User``), ``principalName`` (its display name, else its id), ``principal`` {``inDirectory`` (null when the directory lists nobody),
  ``enabled`` (``accountEnabled``), ``guest`` (``userType`` is ``Guest``), ``userType``,
  ``displayName``}, ``guests`` (the guests who hold the assignment through this principal: itself,
  or a member of its groups, transitively; each ``{id, displayName, via}``), ``guestNames`` and
  ``membershipDepth`` (groups between the farthest such guest and the principal);
- ``role``: ``roleGuid``, ``roleName``, ``privilegedRole`` (Owner, Contributor, User Access
  Administrator, Role Based Access Control Administrator), ``builtInRole``;
- ``scopeLevel``: ``scopeLevel`` (``root``, ``managementGroup``, ``subscription``,
  ``resourceGroup``, ``resource``);
- ``condition``: ``conditionPresent``, ``conditionVersion``, ``conditionValid``,
  ``conditionProblems``.
"""

from __future__ import annotations

import functools
import operator
from array import array
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import compress, count
from typing import TYPE_CHECKING, Any

from auditor.access.analysis import PRIVILEGED_ROLES
from auditor.access.globs import matches
from auditor.access.scopes import ScopeTree, scope_key
from auditor.estate.roles import role_guid

if TYPE_CHECKING:
    from auditor.access.engine import AccessEngine
    from auditor.estate.snapshot import Snapshot

ROLE_ASSIGNMENTS = "Cloud.Authorization/roleAssignments"
ROLE_DEFINITIONS = "Cloud.Authorization/roleDefinitions"
DENY_ASSIGNMENTS = "Cloud.Authorization/denyAssignments"
SUBSCRIPTIONS = "Cloud.Resources/subscriptions"

AUTHORIZATION_WRITES = (
    "Cloud.Authorization/roleAssignments/write",
    "Cloud.Authorization/roleDefinitions/write",
)
MAX_LISTED = 20
"""Ids a subscription row lists (owners, direct user assignments); the counts are exact."""

ASSIGNMENT_FACETS: dict[str, str] = {
    "type": "type",
    "id": "assignment",
    "name": "assignment",
    "scope": "assignment",
    "roledefinitionid": "assignment",
    "condition": "assignment",
    "principalid": "principal",
    "principaltype": "principal",
    "principalname": "principal",
    "principal": "principal",
    "guests": "principal",
    "guestnames": "principal",
    "membershipdepth": "principal",
    "roleguid": "role",
    "rolename": "role",
    "privilegedrole": "role",
    "builtinrole": "role",
    "scopelevel": "scopeLevel",
    "conditionpresent": "condition",
    "conditionversion": "condition",
    "conditionvalid": "condition",
    "conditionproblems": "condition",
}
"""The facet of each role assignment field (case-folded name)."""
FACETS = ("type", "assignment", "principal", "role", "scopeLevel", "condition")
_PRINCIPAL_FIELDS = {
    name.casefold(): name
    for name in (
        "principalId",
        "principalType",
        "principalName",
        "principal",
        "guests",
        "guestNames",
        "membershipDepth",
    )
}
"""The top-level principal fields, by case-folded name."""


@functools.lru_cache(maxsize=8192)
def condition_problems(condition: str | None, version: str | None) -> tuple[str, ...]:
    """What is wrong with a condition and its version (seed 8), cached: an estate repeats the same
    few condition texts."""
    from auditor.expr.condition import validate_condition

    return tuple(validate_condition(condition, version))


def _condition_fields(pairs: Iterable[tuple[str | None, str | None]]) -> dict[str, Any]:
    """The condition fields of a record holding these (condition, version) pairs."""
    present = False
    versions: list[str] = []
    problems: list[str] = []
    for condition, version in pairs:
        if condition is None and version is None:
            continue
        present = present or condition is not None
        if version is not None and version not in versions:
            versions.append(version)
        problems.extend(p for p in condition_problems(condition, version) if p not in problems)
    judged = present or bool(versions)
    return {
        "conditionPresent": present,
        "conditionVersion": ", ".join(versions) if versions else None,
        "conditionValid": (not problems) if judged else None,
        "conditionProblems": problems,
    }


_NO_CONDITION_KEY = (None, None)
_SCALARS = (str, int, float, type(None))
_SCALAR_TYPES = {str, int, float, bool, type(None)}
"""The exact types of :data:`_SCALARS` (``bool`` is an ``int``)."""


def _value_at(doc: Any, parts: Sequence[str]) -> Any:
    """The value at case-folded ``parts`` in ``doc`` (names matched case-insensitively)."""
    for part in parts:
        if not isinstance(doc, dict):
            return doc if isinstance(doc, list) else None
        found = doc.get(part)
        if found is None:
            found = next((v for k, v in doc.items() if k.casefold() == part), None)
        doc = found
    return doc


@dataclass
class AssignmentRows:
    """The role assignment rows of one access engine, by facet (see the module docstring)."""

    engine: AccessEngine
    directory_listed: bool
    """Whether the snapshot's directory lists anyone (else ``principal/inDirectory`` is null)."""
    _columns: dict[str, list[Any]] = field(default_factory=dict)
    _facets: dict[str, dict[Any, dict[str, Any]]] = field(default_factory=dict)
    _guests: dict[str, list[tuple[str, tuple[str, ...]]]] | None = None
    _guest_objects: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    _paths: dict[str, Any] = field(default_factory=dict)
    _keysets: dict[str, list[Any]] = field(default_factory=dict)
    _values: dict[str, dict[Any, Any]] = field(default_factory=dict)
    _value_lists: dict[str, tuple[list[Any], list[Any]]] = field(default_factory=dict)
    _codes: dict[str, tuple[Sequence[int], list[Any]]] = field(default_factory=dict)
    _principal_args: tuple[list[Any], tuple[list[str], list[Any], list[Any]]] | None = None
    _shown: dict[frozenset[str], tuple[Any, ...]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.engine.indexes.assignments)

    @property
    def _ix(self) -> Any:
        return self.engine.indexes

    # -- keys

    def column(self, facet: str) -> Sequence[Any]:
        """Every assignment's key for ``facet``, in assignment order (made once)."""
        found = self._columns.get(facet)
        if found is None:
            found = self._columns[facet] = self._make_column(facet)
        return found

    def _make_column(self, facet: str) -> list[Any]:
        # the fields read by comprehensions (in 3.11 faster than map(attrgetter) over a
        # million records)
        entries = self._ix.assignments
        if facet in ("role", "scopeLevel"):  # from the numbers (see facet_codes)
            numbers, names = self.facet_codes(facet)
            return list(map(names.__getitem__, numbers))
        # a key that is a pair is made once per distinct pair and shared by every assignment
        # that has it (a million assignments to a few thousand principals: no million tuples)
        shared: dict[tuple[Any, Any], tuple[Any, Any]] = {}
        share = shared.setdefault
        if facet == "principal":
            numbered = self._codes.get(facet) or self._principal_codes()
            if numbered is not None:  # from the index's numbers (see facet_codes)
                self._codes[facet] = numbered
                codes, distinct_keys = numbered
                return list(map(distinct_keys.__getitem__, codes))
        if facet == "principal":
            # a Python step beyond reading the keys only for those the directory gives no type
            typed = {k for k, r in self._ix.directory.entries() if r.type}
            keys: list[Any] = [entry.principal for entry in entries]
            distinct = set(keys)
            untyped = distinct.difference(typed)
            for index in compress(range(len(keys)), map(untyped.__contains__, keys)):
                pair = (keys[index], entries[index].record.properties.principalType)
                keys[index] = share(pair, pair)
            distinct.difference_update(untyped)  # each such principal's keys are its pairs
            self._keysets[facet] = [*distinct, *shared.values()]
            return keys
        if facet == "condition":  # from the numbers (see facet_codes): pairs shared
            pairs, conditions = self.facet_codes(facet)
            return list(map(conditions.__getitem__, pairs))
        raise KeyError(facet)

    # -- rows

    def facet_of(self, path: str) -> str | None:
        """The facet member ``path`` reads; None when every assignment has the same value there
        (``type``, or a field role assignments do not have)."""
        parts = [p for p in path.casefold().split("/") if p]
        facet = ASSIGNMENT_FACETS.get(parts[0]) if parts else None
        return None if facet == "type" else facet

    def key_column(self, path: str) -> Sequence[Any] | None:
        """Every assignment's key for the value at member ``path`` (``principal/enabled``): the
        facet's key when it gives the value itself, else a number per distinct value (a scalar, or
        a list or object frozen: equal only when the values are equal), so assignments agreeing
        on it share a key; ``()`` when every assignment has the same (``type``, or a field role
        assignments do not have); None for the assignment's own fields (every row differs). Made
        once per path."""
        folded = path.casefold()
        found: Sequence[Any] | None = self._paths.get(folded)
        if found is not None:
            return found
        facet = self.facet_of(folded)
        if facet is None:
            return ()  # the same for every assignment
        if facet == "assignment":
            return None
        keys = self.column(facet)
        values = self.key_values(folded)
        if all(k is v or k == v for k, v in values.items()):
            found = keys
        else:  # a number per distinct value, in 1 or 2 bytes when they are few (not 8)
            numbers: dict[Any, int] = {}
            code = {key: numbers.setdefault(value, len(numbers)) for key, value in values.items()}
            size = len(numbers)
            typecode = "B" if size <= 1 << 8 else "H" if size <= 1 << 16 else "i"
            found = array(typecode, map(code.__getitem__, keys))
        self._paths[folded] = found
        return found

    def key_values(self, path: str) -> dict[Any, Any]:
        """The value at member ``path`` for each distinct key of its facet (a list or object
        frozen: equal only when the values are equal; see :meth:`key_column`). Made once per
        path; the path must read a facet (:meth:`facet_of`) other than the assignment's."""
        folded = path.casefold()
        found = self._values.get(folded)
        if found is None:
            keys, values = self.key_value_list(folded)
            found = self._values[folded] = dict(zip(keys, values, strict=True))
        return found

    def key_value_list(self, path: str) -> tuple[list[Any], list[Any]]:
        """The distinct keys of the facet member ``path`` reads (:meth:`_distinct`, the keys of
        :meth:`facet_codes`) and the value at ``path`` of each, in that order: :meth:`key_values`
        without a dictionary (the rule engine reads the values of a hundred thousand principals
        by their numbers). Made once per path."""
        folded = path.casefold()
        found = self._value_lists.get(folded)
        if found is not None:
            return found
        parts = [p for p in folded.split("/") if p]
        facet = self.facet_of(folded)
        if facet is None or facet == "assignment":
            raise ValueError(f"{path!r} reads no facet of distinct keys")
        keys = self._distinct(facet)
        values: list[Any]
        read = self._principal_reader(tuple(parts)) if facet == "principal" else None
        if read is not None and parts == ["guests"]:
            # the (guest, membership path) pairs behind the guest objects: equal exactly when
            # the objects are (a guest's id is its key as first seen), and made without them
            empty = _frozen([])
            held_by = map(self._guests_of().get, self._principal_arguments(keys)[0])
            values = [empty if held is None else ("guests", tuple(held)) for held in held_by]
        elif read is not None:  # a field read straight from each principal's directory entry
            values = read(*self._principal_arguments(keys))
            if not set(map(type, values)) <= _SCALAR_TYPES:  # else the common case: as read
                last: Any = values  # a list the reader gives again (no guests) is frozen once
                frozen: Any = None
                for index, value in enumerate(values):
                    if isinstance(value, _SCALARS):
                        continue
                    if value is not last:
                        last, frozen = value, _frozen(value)
                    values[index] = frozen
        else:
            values = []
            for key in keys:
                value = self._facet_field(facet, key, parts)
                values.append(value if isinstance(value, _SCALARS) else _frozen(value))
        found = self._value_lists[folded] = (keys, values)
        return found

    def facet_codes(self, facet: str) -> tuple[Sequence[int], list[Any]]:
        """Every assignment's key of ``facet`` as a number (in 1, 2 or 4 bytes), and the keys by
        number (:meth:`_distinct`). Made once per facet."""
        found = self._codes.get(facet)
        if found is None and facet == "principal":
            found = self._principal_codes()
            if found is not None:
                self._codes[facet] = found
        if found is None and facet == "condition":
            found = self._codes[facet] = self._condition_codes()
        if found is None and facet == "scopeLevel":
            found = self._codes[facet] = self._scope_level_codes()
        if found is None and facet == "role":
            found = self._codes[facet] = self._role_codes()
        if found is None:
            keys = self._distinct(facet)
            number = {key: n for n, key in enumerate(keys)}
            size = len(keys)
            typecode = "B" if size <= 1 << 8 else "H" if size <= 1 << 16 else "i"
            codes = array(typecode, map(number.__getitem__, self.column(facet)))
            found = self._codes[facet] = (codes, keys)
        return found

    def _role_codes(self) -> tuple[Sequence[int], list[Any]]:
        """:meth:`facet_codes` of the role facet: each assignment's role key numbered in order of
        first appearance by one comprehension (a look-up each in a table of a few dozen roles),
        with no column of a million keys made and hashed again to find the distinct ones. Sets
        the facet's keys (:meth:`_distinct`)."""
        numbered: defaultdict[str, int] = defaultdict(count().__next__)
        numbers = [numbered[entry.role] for entry in self._ix.assignments]
        keys = list(numbered)
        self._keysets["role"] = keys
        return array(_typecode(len(keys)), numbers), keys

    def _scope_level_codes(self) -> tuple[Sequence[int], list[Any]]:
        """:meth:`facet_codes` of the scope level facet: the level of each scope of the index
        (:attr:`~auditor.access.Indexes.at_scope`, the distinct scope keys the assignments hold)
        found once, each assignment's number read through its scope (no column of a million
        levels made first, no million scopes hashed to find the distinct ones), and the keys
        only the levels some assignment has. Sets the facet's keys (:meth:`_distinct`)."""
        entries = self._ix.assignments
        numbers: dict[str, int] = {}  # level -> its number
        number_of: dict[str, int] = {}  # scope -> its level's number
        # the distinct scopes are the index's (a scope key for each, as the assignments hold)
        listed = getattr(self._ix, "at_scope", None)
        for scope in listed or dict.fromkeys(entry.scope for entry in entries):
            number_of[scope] = numbers.setdefault(ScopeTree.kind(scope), len(numbers))
        try:  # one comprehension: no list of a million scopes made and read again
            codes = array("B", [number_of[entry.scope] for entry in entries])  # five at most
        except KeyError:  # a scope the index does not list: never so, but sound
            scopes = [entry.scope for entry in entries]
            distinct = dict.fromkeys(scopes)
            number_of = {s: numbers.setdefault(ScopeTree.kind(s), len(numbers)) for s in distinct}
            codes = array("B", map(number_of.__getitem__, scopes))
        keys = list(numbers)
        present = codes.tobytes()
        if any(number not in present for number in range(len(keys))):  # a level no one has
            kept = [number for number in range(len(keys)) if number in present]
            renumber = bytearray(256)
            for new, number in enumerate(kept):
                renumber[number] = new
            codes = array("B", present.translate(renumber))
            keys = [keys[number] for number in kept]
        self._keysets["scopeLevel"] = keys
        return codes, keys

    def _condition_codes(self) -> tuple[Sequence[int], list[Any]]:
        """:meth:`facet_codes` of the condition facet, keyed by ``(condition, version)`` pairs:
        most assignments have neither a condition nor a version (a version alone counts too), so
        one pass over the records finds the few that have one of them and only those are read
        again; the others share one key (a million assignments: no million pairs made or
        hashed), and equal pairs are one object. Sets the facet's keys (:meth:`_distinct`)."""
        entries = self._ix.assignments
        others = [
            index
            for index, entry in enumerate(entries)
            if (p := entry.record.properties).condition is not None
            or p.conditionVersion is not None
        ]
        shared: dict[tuple[Any, Any], tuple[Any, Any]] = {}
        pairs = []
        for index in others:
            p = entries[index].record.properties
            pair = (p.condition, p.conditionVersion)
            pairs.append(shared.setdefault(pair, pair))
        keys = list(shared)
        if len(others) < len(entries):
            keys.insert(0, _NO_CONDITION_KEY)
        self._keysets["condition"] = keys
        number = {key: n for n, key in enumerate(keys)}
        codes = array(_typecode(len(keys)), [0]) * len(entries)
        for index, pair in zip(others, pairs, strict=True):
            codes[index] = number[pair]
        return codes, keys

    def _principal_codes(self) -> tuple[Sequence[int], list[Any]] | None:
        """:meth:`facet_codes` of the principal facet from the numbers the index gave each
        assignment's principal key (:attr:`~auditor.access.Indexes.principal_numbers`), so that
        no assignment is touched but those to a principal the directory gives no type (whose
        keys are ``(key, principalType)`` pairs: see :meth:`_make_column`); None when the index
        has no such numbers. Sets the facet's keys (:meth:`_distinct`)."""
        ix = self._ix
        numbers: Any = getattr(ix, "principal_numbers", None)
        principals: list[str] = getattr(ix, "principal_keys", [])
        entries = ix.assignments
        if numbers is None or len(numbers) != len(entries):
            return None
        typed = {k for k, r in ix.directory.entries() if r.type}
        untyped = bytes(map(operator.not_, map(typed.__contains__, principals)))  # by number
        keys: list[Any] = list(principals)
        fixes: list[tuple[int, int]] = []
        if any(untyped):
            # an untyped key's number goes to its first (key, principalType) pair (no assignment
            # has the bare key); each other pair of that key gets a number after the rest
            pairs: dict[tuple[str, Any], int] = {}
            for index in compress(range(len(entries)), map(untyped.__getitem__, numbers)):
                number = numbers[index]
                pair = (principals[number], entries[index].record.properties.principalType)
                code = pairs.get(pair)
                if code is None:
                    code = number if type(keys[number]) is not tuple else len(keys)
                    if code == len(keys):
                        keys.append(pair)
                    else:
                        keys[number] = pair
                    pairs[pair] = code
                if code != number:
                    fixes.append((index, code))
        codes = array(_typecode(len(keys)), numbers)
        for index, code in fixes:
            codes[index] = code
        self._keysets["principal"] = keys
        return codes, keys

    def fields_of(self, names: Iterable[str], keys: dict[str, Any]) -> dict[str, Any]:
        """The fields ``names`` (top-level, any case) of an assignment whose facets have ``keys``
        (every facet the names read, but the assignment's own): the whole fields of those facets,
        but of a principal whose whole fields are not made yet, the fields ``names`` alone."""
        row: dict[str, Any] = {"type": ROLE_ASSIGNMENTS}
        folded = [n.casefold() for n in names]
        facets = dict.fromkeys(ASSIGNMENT_FACETS.get(n, "type") for n in folded)
        for facet in facets:
            if facet == "type":
                continue
            key = keys[facet]
            if facet == "principal" and key not in self._facets.get(facet, {}):
                # only the fields read: a principal's others (its guests as objects, their
                # names...) are made for the rows shown, not for each of 10,000 combinations
                principal, given = key if isinstance(key, tuple) else (key, None)
                for name in folded:
                    if name in _PRINCIPAL_FIELDS:
                        row.update(self._principal(principal, given, name))
            else:
                row.update(self._facet(facet, key, -1))
        return row

    def _distinct(self, facet: str) -> list[Any]:
        """The distinct keys of ``facet`` (made once per facet: each key column of its member
        paths reads them)."""
        found = self._keysets.get(facet)
        if found is None:
            column = self.column(facet)  # the keys of a facet numbered first are set with it
            found = self._keysets.get(facet)
            if found is None:
                found = self._keysets[facet] = list(set(column))
        return found

    def _principal_arguments(self, keys: list[Any]) -> tuple[list[str], list[Any], list[Any]]:
        """The arguments of a :meth:`_principal_reader` function for the principal keys
        ``keys`` (the principal facet's distinct keys): principal keys, the assignments' given
        types, directory entries. Made once while ``keys`` is the facet's list."""
        found = self._principal_args
        if found is None or found[0] is not keys:
            principals = [k[0] if type(k) is tuple else k for k in keys]
            given = [k[1] if type(k) is tuple else None for k in keys]
            # the entries by key in one dict: a lookup each in C, not a call of
            # Directory.entry for each of a hundred thousand principals
            records = list(map(dict(self._ix.directory.entries()).get, principals))
            found = self._principal_args = (keys, (principals, given, records))
        return found[1]

    def _principal_reader(
        self, parts: tuple[str, ...]
    ) -> Callable[[list[str], list[Any], list[Any]], list[Any]] | None:
        """For the member paths RBAC rules read of a principal, the function giving the value at
        ``parts`` of each principal from the lists ``(principal keys, the assignments' given
        principalType, directory entries or None)`` (:meth:`_principal_arguments`): the values
        :meth:`_principal` gives at that path, without making the principals' other fields (a
        million assignments have a hundred thousand principals). None for any other path."""
        if parts == ("principal", "indirectory"):
            if not self.directory_listed:
                return lambda keys, _given, _records: [None] * len(keys)
            return lambda _keys, _given, records: [r is not None for r in records]
        if parts == ("principal", "enabled"):
            return lambda _keys, _given, records: [
                None if r is None else r.accountEnabled for r in records
            ]
        if parts == ("principal", "usertype"):
            return lambda _keys, _given, records: [
                None if r is None else r.userType for r in records
            ]
        if parts == ("principal", "guest"):
            return lambda _keys, _given, records: [
                None if r is None else (r.userType or "").lower() == "guest" for r in records
            ]
        if parts == ("principaltype",):
            return lambda _keys, given, records: [
                str(r.type) if r is not None and r.type else g or "User"
                for r, g in zip(records, given, strict=True)
            ]
        name = _PRINCIPAL_FIELDS.get(parts[0], "") if len(parts) == 1 else ""
        if name in ("guests", "guestNames", "membershipDepth"):
            guests = self._guests_of()
            none: Any = None if name == "membershipDepth" else []  # held by no guest
            field = self._field
            return lambda keys, given, records: [
                field(k, g, r, name) if k in guests else none
                for k, g, r in zip(keys, given, records, strict=True)
            ]
        return None

    def fields_row(self, names: Iterable[str], index: int) -> dict[str, Any]:
        """The fields ``names`` (top-level, any case) of assignment ``index``."""
        row: dict[str, Any] = {"type": ROLE_ASSIGNMENTS}
        facets = dict.fromkeys(ASSIGNMENT_FACETS.get(n.casefold(), "type") for n in names)
        for facet in facets:
            if facet == "assignment":
                row.update(self._assignment(index))
            elif facet != "type":
                row.update(self._facet(facet, self.column(facet)[index], index))
        return row

    def row(self, index: int) -> dict[str, Any]:
        """The whole row of assignment ``index``: its own fields (:meth:`_assignment`), then
        those of its facets (:data:`FACETS`, each made once per key), in one dict."""
        key = self._key
        facet = self._facet
        return {
            **_own_fields(self._ix.assignments[index].record, index),
            **facet("principal", key("principal", index), index),
            **facet("role", key("role", index), index),
            **facet("scopeLevel", key("scopeLevel", index), index),
            **facet("condition", key("condition", index), index),
        }

    def _key(self, facet: str, index: int) -> Any:
        """Assignment ``index``'s key of ``facet``, read through its number
        (:meth:`facet_codes`: no column of a million keys made for it)."""
        codes, keys = self._codes.get(facet) or self.facet_codes(facet)
        return keys[codes[index]]

    def shown_row(self, index: int, names: frozenset[str]) -> dict[str, Any]:
        """The fields of :meth:`row` whose case-folded name is in ``names``, with the assignment's
        own fields (its ``id``, ``name``...) and ``type``, the values :meth:`row` has there (and
        perhaps more of its fields): what a failing finding's message and evidence read of a row,
        without making the principal's other fields (its guests as objects...) for each of the
        tens of thousands of principals that fail a rule. Made once per principal for ``names``."""
        return self.shown_rows(names)(index)

    def shown_rows(self, names: frozenset[str]) -> Callable[[int], dict[str, Any]]:
        """:meth:`shown_row` for ``names`` as a function of the assignment's index: what it reads
        found once, not for each of the tens of thousands of rows a rule fails."""
        plan = self._shown.get(names)
        if plan is None:
            plan = self._shown[names] = self._shown_plan(names)
        entries, codes, principals, principal_fields, made, facets = plan
        made_get = made.get
        facet_of = self._facet

        def shown(index: int) -> dict[str, Any]:
            row = _own_fields(entries[index].record, index)
            if principal_fields:
                key = principals[codes[index]]
                fields = made_get(key)
                if fields is None:
                    fields = made[key] = self._shown_principal(key, principal_fields)
                row.update(fields)
            for facet, numbers, keys, cache in facets:
                key = keys[numbers[index]]
                found = cache.get(key)
                row.update(found if found is not None else facet_of(facet, key, index))
            return row

        return shown

    def _shown_principal(self, key: Any, names: tuple[str, ...]) -> dict[str, Any]:
        """The principal fields ``names`` (case-folded) of principal facet key ``key``: its whole
        fields when made already."""
        whole = self._facets.get("principal", {}).get(key)
        if whole is not None:
            return whole
        principal, given = key if isinstance(key, tuple) else (key, None)
        record = self._ix.directory.entry(principal)
        return {
            _PRINCIPAL_FIELDS[n]: self._field(principal, given, record, _PRINCIPAL_FIELDS[n])
            for n in names
        }

    def _shown_plan(self, names: frozenset[str]) -> tuple[Any, ...]:
        """What :meth:`shown_row` reads for ``names``: the assignments, the principals' numbers
        and keys (:meth:`facet_codes`) and fields read, the principals' fields made so far, and
        each other facet read with its numbers, keys and fields made so far (dropped with them
        by :meth:`keep`)."""
        principal_fields = tuple(n for n in _PRINCIPAL_FIELDS if n in names)
        facets = [
            (f, *self.facet_codes(f), self._facets.setdefault(f, {}))
            for f in ("role", "scopeLevel", "condition")
            if any(ASSIGNMENT_FACETS.get(n) == f for n in names)
        ]
        codes, principals = self.facet_codes("principal") if principal_fields else ((), [])
        return self._ix.assignments, codes, principals, principal_fields, {}, facets

    def keep(self, paths: Iterable[str]) -> None:
        """Drop the keys and facets made so far that no member path of ``paths`` reads (they are
        made again if read later: nothing changes but the memory held)."""
        folded = {p.casefold() for p in paths}
        facets = {ASSIGNMENT_FACETS.get(next(iter(p.lstrip("/").split("/")))) for p in folded}
        for path in [p for p in self._paths if p not in folded]:
            del self._paths[path]
        for path in [p for p in self._values if p not in folded]:
            del self._values[path]
        for path in [p for p in self._value_lists if p not in folded]:
            del self._value_lists[path]
        made = {*self._columns, *self._keysets, *self._codes}  # numbers are made without columns
        for facet in [f for f in made if f not in facets]:
            self._columns.pop(facet, None)
            self._keysets.pop(facet, None)
            self._codes.pop(facet, None)
        for facet in [f for f in self._facets if f not in facets]:
            del self._facets[facet]
        self._shown.clear()
        if "principal" not in facets:
            self._guests = None
            self._guest_objects.clear()
            self._principal_args = None

    def _facet(self, facet: str, key: Any, index: int) -> dict[str, Any]:
        if facet == "assignment":
            return self._assignment(index)
        if facet == "type":
            return {}
        cache = self._facets.setdefault(facet, {})
        found = cache.get(key)
        if found is None:
            found = cache[key] = self._make_facet(facet, key)
        return found

    def _assignment(self, index: int) -> dict[str, Any]:
        record = self._ix.assignments[index].record
        p = record.properties
        return {
            "id": record.id or f"roleAssignments[{index}]",
            "name": record.name or record.id,
            "scope": p.scope or "/",
            "roleDefinitionId": p.roleDefinitionId,
            "condition": p.condition,
        }

    def _make_facet(self, facet: str, key: Any) -> dict[str, Any]:
        """The fields of ``facet`` for its key (see :meth:`_make_column`)."""
        if facet == "role":
            return {
                "roleGuid": key,
                "roleName": self._ix.catalogue.name(key),
                "privilegedRole": key in PRIVILEGED_ROLES,
                "builtInRole": self._built_in(key),
            }
        if facet == "scopeLevel":
            return {"scopeLevel": key}
        if facet == "condition":
            return _condition_fields([key])
        if isinstance(key, tuple):  # a principal the directory gives no type: the assignment's
            return self._principal(key[0], key[1])
        return self._principal(key, None)

    def _built_in(self, role: str) -> bool | None:
        found = self._ix.catalogue.role(role)
        return None if found is None else (found.type or "").lower() == "builtinrole"

    def _principal(
        self, key: str, given_type: str | None, only: str | None = None
    ) -> dict[str, Any]:
        """The principal fields of ``key``; with ``only`` (a case-folded name), that field alone
        (what :meth:`key_column` reads of each of a million assignments' principals)."""
        record = self._ix.directory.entry(key)
        if only is not None:
            name = _PRINCIPAL_FIELDS.get(only)
            return {} if name is None else {name: self._field(key, given_type, record, name)}
        return {n: self._field(key, given_type, record, n) for n in _PRINCIPAL_FIELDS.values()}

    def _field(self, key: str, given_type: str | None, record: Any, name: str) -> Any:
        """Principal field ``name`` of ``key`` (its directory ``record``, or None)."""
        directory = self._ix.directory
        if name == "principalId":
            return directory.display(key)
        if name == "principalType":
            typed = record is not None and record.type
            return str(record.type) if typed and record is not None else given_type or "User"
        if name == "principalName":
            return directory.name(key)
        if name == "principal":
            user_type = record.userType if record is not None else None
            return {
                "inDirectory": (record is not None) if self.directory_listed else None,
                "enabled": record.accountEnabled if record is not None else None,
                "guest": (user_type or "").lower() == "guest" if record is not None else None,
                "userType": user_type,
                "displayName": directory.name(key),
            }
        guests = self._guests_of().get(key, [])
        if name == "guests":
            if not guests:
                return []
            # made once per principal: judged (a row per distinct value, RBAC-003) and shown
            # (each failing row of the principal) alike
            made = self._guest_objects.get(key)
            if made is None:
                made = self._guest_objects[key] = [
                    {"id": directory.display(g), "displayName": directory.name(g), "via": list(via)}
                    for g, via in guests
                ]
            return made
        if name == "guestNames":
            return [_guest_name(directory, g, via) for g, via in guests]
        return max((len(via) - 1 for _, via in guests), default=None)  # membershipDepth

    def _facet_field(self, facet: str, key: Any, parts: Sequence[str]) -> Any:
        """The value at case-folded ``parts`` of the facet ``facet`` of ``key``; of a principal
        whose facet is not made yet, made from that one field."""
        if facet == "principal" and key not in self._facets.get(facet, {}):
            principal, given = key if isinstance(key, tuple) else (key, None)
            return _value_at(self._principal(principal, given, parts[0]), parts)
        return _value_at(self._facet(facet, key, -1), parts)

    def _guests_of(self) -> dict[str, list[tuple[str, tuple[str, ...]]]]:
        """Principal key -> the guests holding its assignments: ``(guest key, membership path of
        display ids guest -> ... -> principal)`` (RBAC-003's nested groups)."""
        if self._guests is None:
            directory = self._ix.directory
            found: dict[str, list[tuple[str, tuple[str, ...]]]] = defaultdict(list)
            display = directory.display
            groups_of = directory.direct_groups
            guests = [k for k, r in directory.entries() if (r.userType or "").lower() == "guest"]
            for key in sorted(guests):  # the guests alone sorted (keys are distinct)
                if not groups_of(key):  # in no group: it holds its own assignments alone
                    found[key].append((key, (display(key),)))
                    continue
                # one search from the guest gives its path to each of its groups: the path
                # Directory.group_path finds (the same breadth-first order), not a search each
                parents = _membership_parents(groups_of, key)
                for identity in sorted(directory.identities(key)):
                    if identity in parents:
                        steps = [identity]
                        while steps[-1] != key:
                            steps.append(parents[steps[-1]])
                        path = tuple(map(display, reversed(steps)))
                    else:  # a group the search did not reach: never so, but sound
                        path = tuple(map(display, directory.group_path(key, identity)))
                    found[identity].append((key, path))
            self._guests = dict(found)
        return self._guests


def _membership_parents(groups_of: Callable[[str], tuple[str, ...]], key: str) -> dict[str, str]:
    """Each group ``key`` belongs to (directly or through others), and ``key`` itself, mapped to
    the member it was reached from by a breadth-first search over ``groups_of`` (direct groups,
    in order): the steps of :meth:`~auditor.access.directory.Directory.group_path` to every group
    at once, as its search meets them in the same order."""
    parents = {key: key}
    order = [key]
    for current in order:  # the list grows as the search goes: a queue
        for group in groups_of(current):
            if group not in parents:
                parents[group] = current
                order.append(group)
    return parents


def _typecode(size: int) -> str:
    """The array type code of numbers below ``size``: 1, 2 or 4 bytes each."""
    return "B" if size <= 1 << 8 else "H" if size <= 1 << 16 else "i"


def _frozen(value: Any) -> Any:
    """A list or object as a key equal only for equal values (of the same types): assignments
    whose principals give the same (say, no guests) then share a verdict."""
    if isinstance(value, dict):
        return ("object", tuple((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return ("array", tuple(_frozen(v) for v in value))
    return (value.__class__.__name__, value)


def _guest_name(directory: Any, guest: str, via: tuple[str, ...]) -> str:
    name = directory.name(guest)
    groups = [directory.name(v.lower()) for v in via[1:]]
    return f"{name} (through {' → '.join(groups)})" if groups else name


# ---------------------------------------------------------------------------- the small kinds


def role_definition_rows(engine: AccessEngine, snapshot: Snapshot) -> list[dict[str, Any]]:
    """One row per role definition of the snapshot: ``id``, ``name``, ``roleName``, ``roleType``,
    ``custom``, ``actionsWildcard`` (``*`` in ``actions``), ``canWriteAuthorization`` with
    ``authorizationWrites`` and ``authorizationWritePatterns`` (what its actions minus notActions
    grant of role assignment and role definition writes), ``dataActions``, ``hasDataActions``,
    ``assignableScopes``, ``managementGroupScopes`` and ``assignableAtManagementGroup`` (``/``
    counts: it is above every management group), and the condition fields of its permissions."""
    catalogue = engine.indexes.catalogue
    rows: list[dict[str, Any]] = []
    for index, definition in enumerate(snapshot.roleDefinitions):
        p = definition.properties
        entry = catalogue.role(role_guid(definition.id or definition.name or ""))
        writes: list[str] = []
        patterns: list[str] = []
        for perm in entry.permissions if entry is not None else ():
            for op in AUTHORIZATION_WRITES:
                if perm.matches(op.lower(), False):
                    if op not in writes:
                        writes.append(op)
                    patterns.extend(a for a in perm.actions if matches(a, op) and a not in patterns)
        mg_scopes = [
            s
            for s in p.assignableScopes
            if ScopeTree.kind(scope_key(s)) in ("managementGroup", "root")
        ]
        data_actions = [a for perm in p.permissions for a in perm.dataActions]
        rid = definition.id or definition.name or f"roleDefinitions[{index}]"
        rows.append(
            {
                "type": ROLE_DEFINITIONS,
                "id": rid,
                "name": p.roleName or definition.name or rid,
                "roleName": p.roleName or definition.name or rid,
                "roleType": p.type,
                "custom": (p.type or "").lower() == "customrole",
                "actionsWildcard": any(
                    "*" in [a.strip() for a in perm.actions] for perm in p.permissions
                ),
                "canWriteAuthorization": bool(writes),
                "authorizationWrites": writes,
                "authorizationWritePatterns": patterns,
                "dataActions": data_actions,
                "hasDataActions": bool(data_actions),
                "assignableScopes": list(p.assignableScopes),
                "managementGroupScopes": mg_scopes,
                "assignableAtManagementGroup": bool(mg_scopes),
                **_condition_fields(
                    (perm.condition, perm.conditionVersion) for perm in p.permissions
                ),
            }
        )
    return rows


def deny_assignment_rows(snapshot: Snapshot) -> list[dict[str, Any]]:
    """One row per deny assignment: ``id``, ``name``, ``denyName``, ``scope``,
    ``isSystemProtected``, ``doNotApplyToChildScopes``, ``principals`` and ``excludePrincipals``
    (ids), ``namedAndExcluded`` (ids both name: the exclusion wins), and the condition fields of the
    deny and its permissions."""
    rows: list[dict[str, Any]] = []
    for index, da in enumerate(snapshot.denyAssignments):
        p = da.properties
        named = {(x.id or "").lower() for x in p.principals if x.id}
        rid = da.id or f"denyAssignments[{index}]"
        pairs = [(p.condition, p.conditionVersion)]
        pairs += [(perm.condition, perm.conditionVersion) for perm in p.permissions]
        rows.append(
            {
                "type": DENY_ASSIGNMENTS,
                "id": rid,
                "name": p.denyAssignmentName or da.name or da.id,
                "denyName": p.denyAssignmentName or da.name or da.id,
                "scope": p.scope,
                "isSystemProtected": p.isSystemProtected,
                "doNotApplyToChildScopes": bool(p.doNotApplyToChildScopes),
                "principals": [x.id for x in p.principals if x.id],
                "excludePrincipals": [x.id for x in p.excludePrincipals if x.id],
                "namedAndExcluded": [
                    x.id for x in p.excludePrincipals if x.id and x.id.lower() in named
                ],
                **_condition_fields(pairs),
            }
        )
    return rows


def subscription_rows(
    engine: AccessEngine, assignment_rows: AssignmentRows | None = None
) -> list[dict[str, Any]]:
    """One row per subscription the estate knows (its hierarchy and every scope seen):
    ``id``, ``name``, ``ownerCount`` (distinct principals holding Owner at the subscription or
    above, a group counting as one), ``owners`` (the first ids), ``directUserAssignments``
    (role assignments to users at the subscription or below) and ``directUserAssignmentIds``.

    ``assignment_rows``: the engine's assignment rows, whose principal column (made once, and
    read by the rules on principals too) tells the assignments to users apart."""
    ix = engine.indexes
    entries = ix.assignments
    by_principal = AssignmentRows(engine, True) if assignment_rows is None else assignment_rows
    # the loops over a million assignments run in C: which are to users (decided once per
    # principal key by its principalType: the directory's type, else the pair's; the values
    # RBAC-009 reads later, made once), each one's subscription (found once per scope), the
    # counts per subscription; only the ids listed are gathered in Python, in assignment order
    codes, keys = by_principal.facet_codes("principal")
    listed_keys, types = by_principal.key_value_list("principalType")
    if listed_keys is not keys:  # the facet's keys in another order: never so, but sound
        types = list(map(by_principal.key_values("principalType").__getitem__, keys))
    user_key = list(map("user".__eq__, map(str.lower, types)))
    to_user = list(map(user_key.__getitem__, codes))
    user_entries = list(compress(entries, to_user))
    subscription_of: Callable[[str], str | None] = ScopeTree.subscription_of
    sub_of: dict[str, str | None] = {}  # scope -> its subscription as shown
    # the distinct scopes are the index's (as in _scope_level_codes): no million scopes hashed
    for scope in getattr(ix, "at_scope", None) or {entry.scope for entry in user_entries}:
        found = subscription_of(scope)
        sub_of[scope] = None if found is None else ix.scopes.display(found)
    try:  # one comprehension: no list of the scopes made and read again
        subs = [sub_of[entry.scope] for entry in user_entries]
    except KeyError:  # a scope the index does not list: never so, but sound
        for scope in {entry.scope for entry in user_entries}.difference(sub_of):
            found = subscription_of(scope)
            sub_of[scope] = None if found is None else ix.scopes.display(found)
        subs = [sub_of[entry.scope] for entry in user_entries]
    counts = Counter(subs)
    counts.pop(None, None)
    listed = _first_listed(subs, user_entries, counts)
    rows: list[dict[str, Any]] = []
    for owners in engine.subscription_owners():
        rows.append(
            {
                "type": SUBSCRIPTIONS,
                "id": owners.subscription,
                "name": owners.subscription,
                "ownerCount": owners.count,
                "owners": [o.principalId for o in owners.owners][:MAX_LISTED],
                "directUserAssignments": counts.get(owners.subscription, 0),
                "directUserAssignmentIds": listed.get(owners.subscription, []),
            }
        )
    return rows


def _first_listed(
    subs: list[str | None], entries: list[Any], counts: Counter[str | None]
) -> dict[str | None, list[str]]:
    """The ids of the first :data:`MAX_LISTED` of ``entries`` (user assignments, in order) of
    each subscription of ``counts`` (how many each has), ``subs`` being each entry's subscription
    (None for none). A subscription with fewer than that many lists all of its own, found by one
    pass in C; the others are filled by a walk that stops once they are (one of a million
    assignments' subscription with a few would otherwise keep it going to the end)."""
    listed: dict[str | None, list[str]] = {}
    wanted = {sub: listed.setdefault(sub, []) for sub, n in counts.items() if n >= MAX_LISTED}
    wanted_get = wanted.get
    if wanted:
        for index, sub in enumerate(subs):
            ids = wanted_get(sub)
            if ids is None:
                continue
            ids.append(entries[index].record.id or "")
            if len(ids) == MAX_LISTED:
                del wanted[sub]
                if not wanted:
                    break
    few = {sub for sub, n in counts.items() if n < MAX_LISTED}
    if few:
        for index in compress(range(len(subs)), map(few.__contains__, subs)):
            listed.setdefault(subs[index], []).append(entries[index].record.id or "")
    return listed


__all__ = [
    "ASSIGNMENT_FACETS",
    "AUTHORIZATION_WRITES",
    "DENY_ASSIGNMENTS",
    "ROLE_ASSIGNMENTS",
    "ROLE_DEFINITIONS",
    "SUBSCRIPTIONS",
    "AssignmentRows",
    "condition_problems",
    "deny_assignment_rows",
    "role_definition_rows",
    "subscription_rows",
]


def _own_fields(record: Any, index: int) -> dict[str, Any]:
    """The fields of the role assignment row ``index`` that its record holds itself (the row's
    facets follow them: :meth:`AssignmentRows.row`, :meth:`AssignmentRows.shown_rows`)."""
    p = record.properties
    return {
        "type": ROLE_ASSIGNMENTS,
        "id": record.id or f"roleAssignments[{index}]",
        "name": record.name or record.id,
        "scope": p.scope or "/",
        "roleDefinitionId": p.roleDefinitionId,
        "condition": p.condition,
    }
