"""Resolving a principal as a person names it: an object id, an e-mail address or user principal
name, or a display name (each compared ignoring case), against the snapshot's directory
(``principals``) and the principals that deny assignments name or exclude (which carry a display
name and an e-mail address too).

- An id the snapshot knows (a directory entry, a group some entry belongs to, a principal of a role
  or deny assignment) is taken as given: ids compare ignoring case, and the casing typed is kept.
- Otherwise an e-mail address or user principal name, then a display name, that exactly one
  principal carries. Several: an input error listing the candidates (id, type, display name; the
  first :data:`MAX_CANDIDATES`, then how many more).
- Nothing: a GUID is used as given (an object id the snapshot does not hold; the decision warns
  that the principal is unknown); anything else is an input error naming what was searched.

Requests read from JSON Lines are never resolved: machines name principals by id.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from auditor.access.directory import Directory
from auditor.errors import InputError, clip
from auditor.estate.records import PrincipalRecord
from auditor.estate.snapshot import Snapshot

if TYPE_CHECKING:
    from auditor.access.indexes import Indexes

__all__ = [
    "MAX_CANDIDATES",
    "PrincipalCandidate",
    "PrincipalResolver",
    "ResolvedPrincipal",
    "looks_like_guid",
    "resolve_principal",
]

MAX_CANDIDATES = 10
"""Candidates an ambiguity error lists, at most."""

MatchedBy = Literal["id", "email", "userPrincipalName", "displayName", "unknownId"]

_GUID = re.compile(r"\{?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\}?", re.I)
_UPN_FIELDS = ("userPrincipalName", "mail", "upn")
"""Fields of a directory entry (kept from the file when the contracts do not name them) that hold a
user principal name or another address the person is known by."""
_NAME = 60
"""Characters of a display name an error message shows, at most."""


def _line(text: str) -> str:
    """``text`` on one line: a line break from the estate never starts a line of its own in a
    message (a display name cannot add a made-up candidate to the list)."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


def looks_like_guid(text: str) -> bool:
    """True for an object id in GUID form (braces allowed)."""
    return _GUID.fullmatch(text.strip()) is not None


class PrincipalCandidate(msgspec.Struct, frozen=True):
    """A principal the resolver found, as an error or a resolution shows it."""

    id: str
    type: str | None = None
    displayName: str | None = None
    email: str | None = None

    def describe(self) -> str:
        kind = _line(self.type or "unknown type")
        name = f", '{_line(clip(self.displayName, _NAME))}'" if self.displayName else ""
        return f"{_line(clip(self.id, 200))} ({kind}{name})"


class ResolvedPrincipal(msgspec.Struct, frozen=True):
    """The principal id a text names, and how it was found."""

    id: str
    """The id to ask about: the text itself when it is an id, else the id as the snapshot has it."""
    given: str
    matchedBy: MatchedBy
    known: bool
    """False for a GUID the snapshot does not hold (used as given)."""
    type: str | None = None
    displayName: str | None = None

    def to_wire(self) -> dict[str, Any]:
        return msgspec.to_builtins(self)  # type: ignore[no-any-return]

    def describe(self) -> str:
        """One line for people: what the text resolved to."""
        if self.matchedBy == "id":
            return f"principal {self.id}"
        if self.matchedBy == "unknownId":
            return f"principal {self.id} (not in the snapshot)"
        how = {
            "email": "e-mail address",
            "userPrincipalName": "user principal name",
            "displayName": "display name",
        }[self.matchedBy]
        kind = _line(self.type or "principal")
        name = f" '{_line(clip(self.displayName, _NAME))}'" if self.displayName else ""
        return f"{self.given!r} is {kind}{name}, id {_line(self.id)} (matched by {how})"


class PrincipalResolver:
    """The lookup tables of one snapshot, built once (see :func:`resolve_principal`).

    ``ids_complete`` says that ``directory`` registered every principal a role or deny assignment
    names (as the engine's does); otherwise the role assignments are scanned once, on the first
    text the directory does not know.
    """

    def __init__(self, snapshot: Snapshot, directory: Directory, *, ids_complete: bool) -> None:
        self._snapshot = snapshot
        self._directory = directory
        self._ids_complete = ids_complete
        self._assigned: dict[str, str | None] | None = None
        self._info: dict[str, PrincipalCandidate] = {}
        self._by_address: dict[str, list[tuple[str, MatchedBy]]] = {}
        self._by_name: dict[str, list[str]] = {}
        self._deny_principals = 0
        for key, entry in directory.entries():
            self._note(key, entry.type, entry.displayName, entry.email)
        for index, raw in snapshot.preserved.get("principals", {}).items():
            self._note_upn(index, raw)
        seen: set[str] = set()
        for record in snapshot.denyAssignments:
            props = record.properties
            for principal in (*props.principals, *props.excludePrincipals):
                self._note_deny_principal(principal, seen)
        self._deny_principals = len(seen)

    # -- building

    def _note(
        self, key: str, kind: str | None, name: str | None, email: str | None, *, keep: bool = True
    ) -> None:
        known = self._info.get(key)
        if known is None:
            self._info[key] = PrincipalCandidate(self._directory.display(key), kind, name, email)
        elif not keep:
            return
        if email and email.strip():
            self._add_address(email, key, "email")
        if name and name.strip():
            bucket = self._by_name.setdefault(name.strip().lower(), [])
            if key not in bucket:
                bucket.append(key)

    def _add_address(self, address: str, key: str, how: MatchedBy) -> None:
        bucket = self._by_address.setdefault(address.strip().lower(), [])
        if all(k != key for k, _how in bucket):
            bucket.append((key, how))

    def _note_upn(self, index: int, raw: Any) -> None:
        if not isinstance(raw, dict) or index >= len(self._snapshot.principals):
            return
        key = self._snapshot.principals[index].id.lower()
        for name in _UPN_FIELDS:
            value = raw.get(name)
            if isinstance(value, str) and value.strip():
                self._add_address(value, key, "userPrincipalName")

    def _note_deny_principal(self, principal: PrincipalRecord, seen: set[str]) -> None:
        if not principal.id or not principal.id.strip():
            return
        key = principal.id.strip().lower()
        if (principal.type or "").lower() == "systemdefined":
            return  # the all-principals entry names nobody in particular
        seen.add(key)
        in_directory = self._directory.entry(key) is not None
        self._note(
            key,
            principal.type,
            principal.displayName,
            principal.email,
            keep=not in_directory,
        )

    # -- lookups

    def _known_id(self, key: str) -> bool:
        if self._directory.knows(key) or key in self._info:
            return True
        if self._ids_complete:
            return False
        return key in self._assignment_principals()

    def _assignment_principals(self) -> dict[str, str | None]:
        if self._assigned is None:
            found: dict[str, str | None] = {}
            for record in self._snapshot.roleAssignments:
                props = record.properties
                if props.principalId:
                    found.setdefault(props.principalId.lower(), props.principalType)
            self._assigned = found
        return self._assigned

    def candidate(self, key: str) -> PrincipalCandidate:
        """What the snapshot says about a principal key."""
        hit = self._info.get(key)
        if hit is not None:
            return hit
        kind = self._assigned.get(key) if self._assigned is not None else None
        return PrincipalCandidate(self._directory.display(key), kind)

    def resolve(self, text: str, *, source: str = "--principal") -> ResolvedPrincipal:
        """The principal ``text`` names; :class:`~auditor.errors.InputError` when it names several
        or (not being a GUID) none."""
        given = text.strip()
        if not given:
            raise InputError("expected a principal id, e-mail address or name, found nothing",
                             source=source)  # fmt: skip
        key = given.lower()
        if self._known_id(key):
            found = self.candidate(key)
            return ResolvedPrincipal(given, given, "id", True, found.type, found.displayName)
        by_address = self._by_address.get(key)
        if by_address:
            keys = list(dict.fromkeys(k for k, _how in by_address))
            if len(keys) > 1:
                raise self._ambiguous(given, "e-mail address or user principal name", keys, source)
            how = by_address[0][1]
            return self._resolved(keys[0], given, how)
        by_name = self._by_name.get(key)
        if by_name:
            if len(by_name) > 1:
                raise self._ambiguous(given, "display name", by_name, source)
            return self._resolved(by_name[0], given, "displayName")
        if looks_like_guid(given):
            return ResolvedPrincipal(given, given, "unknownId", False)
        entries = sum(1 for _ in self._directory.entries())
        raise InputError(
            f"no principal of {self._where()} has the id, e-mail address, user principal name or "
            f"display name {clip(given, _NAME)!r} (searched {entries:,} directory "
            f"entr{'y' if entries == 1 else 'ies'}, {self._deny_principals:,} principal"
            f"{'' if self._deny_principals == 1 else 's'} named by deny assignments and the "
            "principals of the role assignments; names and addresses compare ignoring case); "
            "an object id the snapshot does not hold is used as given when it is a GUID",
            source=source,
        )

    def _where(self) -> str:
        source = self._snapshot.source
        return f"the snapshot {clip(source, 200)}" if source else "the snapshot"

    def _resolved(self, key: str, given: str, how: MatchedBy) -> ResolvedPrincipal:
        found = self.candidate(key)
        return ResolvedPrincipal(found.id, given, how, True, found.type, found.displayName)

    def _ambiguous(self, given: str, what: str, keys: Iterable[str], source: str) -> InputError:
        ordered = sorted(keys)
        shown = [self.candidate(k).describe() for k in ordered[:MAX_CANDIDATES]]
        more = len(ordered) - len(shown)
        lines = "\n".join(f"  {line}" for line in shown)
        tail = f"\n  and {more:,} more" if more > 0 else ""
        return InputError(
            f"the {what} {clip(given, _NAME)!r} belongs to {len(ordered):,} principals of "
            f"{self._where()}; name one by its id:\n{lines}{tail}",
            source=source,
        )


def resolve_principal(
    snapshot: Snapshot, text: str, *, directory: Directory | None = None
) -> ResolvedPrincipal:
    """The principal ``text`` names in ``snapshot``: an id, an e-mail address or user principal
    name, or a display name (see the module's notes). Raises
    :class:`~auditor.errors.InputError` for an ambiguous name (listing the candidates) and for a
    name that is no principal's (unless it is a GUID, used as given with ``known`` False)."""
    resolver = PrincipalResolver(
        snapshot, directory or Directory(snapshot.principals), ids_complete=False
    )
    return resolver.resolve(text)


def engine_resolver(ix: Indexes) -> PrincipalResolver:
    """The resolver of an engine's indexes, built on first use and kept with them."""
    key = ("principal-resolver",)
    hit: PrincipalResolver | None = ix.query_cache.get(key)
    if hit is None:
        hit = ix.query_cache[key] = PrincipalResolver(ix.snapshot, ix.directory, ids_complete=True)
    return hit
