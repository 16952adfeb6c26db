"""The public face of the access engine: indexes built once, then decisions and queries."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import islice
from typing import TYPE_CHECKING, Any

import msgspec

from auditor.access.advice import advisor
from auditor.access.decision import AccessRequest, Decision, decide, decide_batch
from auditor.access.indexes import AssignmentEntry, Indexes
from auditor.access.principals import ResolvedPrincipal, engine_resolver
from auditor.access.requests import parse_request
from auditor.estate.snapshot import Snapshot, load_snapshot

if TYPE_CHECKING:  # the queries and analyses are imported when asked for: a decision needs neither
    from auditor.access import analysis, queries

__all__ = ["BATCH_WINDOW", "AccessEngine"]

BATCH_WINDOW = 1 << 18
"""How many requests :meth:`AccessEngine.check_many` decides at once by default."""


class AccessEngine:
    """Effective access over one snapshot.

    >>> engine = AccessEngine.from_snapshot(snapshot)          # doctest: +SKIP
    >>> engine.check(AccessRequest(user, "Cloud.Compute/virtualMachines/write", scope))
    """

    def __init__(self, indexes: Indexes) -> None:
        self.indexes = indexes

    @classmethod
    def from_snapshot(cls, snapshot: Snapshot) -> AccessEngine:
        """Build the indexes of ``snapshot``."""
        return cls(Indexes(snapshot))

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> AccessEngine:
        """Load a snapshot file (InputError when unusable) and index it."""
        return cls.from_snapshot(load_snapshot(path))

    @property
    def snapshot(self) -> Snapshot:
        return self.indexes.snapshot

    # -- principals and warnings

    def resolve_principal(self, text: str) -> ResolvedPrincipal:
        """The principal a person names by id, e-mail address, user principal name or display
        name (see :mod:`auditor.access.principals`); InputError when the name is ambiguous (the
        candidates are listed) or names nobody and is no GUID."""
        return engine_resolver(self.indexes).resolve(text)

    def warnings(self, request: AccessRequest) -> tuple[str, ...]:
        """What the request names that the estate does not know: an unknown principal, a scope
        outside the estate, an unknown action, an attribute no condition on the path reads (see
        :mod:`auditor.access.advice`). Remembered per distinct principal, scope and action."""
        return advisor(self.indexes).request(request)

    # -- decisions

    def check(self, request: AccessRequest | Mapping[str, Any], *, warn: bool = False) -> Decision:
        """The decision for one request (an :class:`AccessRequest` or its JSON object); with
        ``warn``, carrying the request's :meth:`warnings` (the command line always asks)."""
        if not isinstance(request, AccessRequest):
            request = parse_request(request)
        decision = decide(self.indexes, request)
        return self._warned(request, decision) if warn else decision

    def _warned(self, request: AccessRequest, decision: Decision) -> Decision:
        found = advisor(self.indexes).request(request)
        return msgspec.structs.replace(decision, warnings=found) if found else decision

    def check_many(
        self,
        requests: Iterable[AccessRequest],
        *,
        window: int | None = None,
        warn: bool = False,
    ) -> Iterator[Decision]:
        """Decisions for many requests, lazily, in order.

        Requests are read and decided ``window`` at a time (see :func:`decide_batch`, which is
        faster the more requests it sees at once), and each window's decisions are given before
        the next window is read. ``window`` defaults to :data:`BATCH_WINDOW` for a sequence and
        to 1 for any other iterable, so that a stream (say a pipe someone types into) is
        answered request by request; a caller that reads a file can pass a larger window. When
        reading a request fails, the decisions of the requests read before it are given first.
        With ``warn``, each decision carries its request's :meth:`warnings`.
        """
        for decisions in self.check_windows(requests, window=window, warn=warn):
            yield from decisions

    def check_windows(
        self,
        requests: Iterable[AccessRequest],
        *,
        window: int | None = None,
        warn: bool = False,
    ) -> Iterator[list[Decision]]:
        """:meth:`check_many`'s decisions, a list for each window of requests (one request's
        when ``window`` is 1): for a caller that handles decisions in blocks (the command line
        encodes and writes them so) rather than one by one. The last list is shorter than
        ``window`` unless the requests fill every window; when reading a request fails, the
        list of those read before it comes first, then the error."""
        ix = self.indexes
        if window is None:
            window = BATCH_WINDOW if isinstance(requests, Sequence) else 1
        if window <= 1:
            for request in requests:
                decision = decide(ix, request)
                yield [self._warned(request, decision) if warn else decision]
            return
        answer = self._answers_warned if warn else decide_batch
        iterator = iter(requests)
        while True:
            chunk: list[AccessRequest] = []
            try:  # extend keeps the requests read before an error
                chunk.extend(islice(iterator, window))
            except Exception:  # a bad request: first answer those read before it
                if chunk:
                    yield answer(ix, chunk)
                raise
            if not chunk:
                return
            yield answer(ix, chunk)
            if len(chunk) < window:
                return

    @staticmethod
    def _answers_warned(ix: Indexes, chunk: list[AccessRequest]) -> list[Decision]:
        """:func:`decide_batch`, each decision carrying its request's warnings (remembered per
        principal, scope and action: a batch pays a few look-ups a request)."""
        return decide_batch(ix, chunk, notes=advisor(ix))

    # -- queries

    def who(
        self, action: str, scope: str, data_action: bool = False, *, warn: bool = False
    ) -> queries.WhoResult:
        """Every principal a grant at ``scope`` or above reaches, with its decision; with
        ``warn``, warnings for an unknown action or a scope outside the estate."""
        from auditor.access import queries

        result = queries.who(self.indexes, action, scope, data_action)
        if not warn:
            return result
        notes = advisor(self.indexes)
        found = notes.scope(scope) + notes.action(action, data_action)
        return dataclasses.replace(result, warnings=found) if found else result

    def what(
        self, principal_id: str, scope: str | None = None, *, warn: bool = False
    ) -> queries.WhatResult:
        """Every role and operation pattern the principal holds, per scope, after denies; with
        ``warn``, warnings for an unknown principal or a scope outside the estate."""
        from auditor.access import queries

        result = queries.what(self.indexes, principal_id, scope)
        if not warn:
            return result
        notes = advisor(self.indexes)
        found = notes.principal(principal_id) + (notes.scope(scope) if scope else ())
        return dataclasses.replace(result, warnings=found) if found else result

    def escalations(self, *, include_conditional: bool = False) -> list[analysis.Escalation]:
        """RBAC-010: shadow administrators, one per principal and scope, with the path."""
        from auditor.access import analysis

        return analysis.escalations(self.indexes, include_conditional=include_conditional)

    def bypassed_conditions(
        self, entries: Iterable[AssignmentEntry] | None = None
    ) -> list[analysis.BypassedCondition]:
        """RBAC-012: conditioned grants also given without a condition (of ``entries``, in the
        index's order, when given: a caller that has found the conditioned ones)."""
        from auditor.access import analysis

        return analysis.bypassed_conditions(self.indexes, entries)

    def dead_grants(self) -> list[analysis.DeadGrant]:
        """RBAC-013: role assignments whose every operation is denied to their principal."""
        from auditor.access import analysis

        return analysis.dead_grants(self.indexes)

    def weak_child_denies(self, *, limit: int = 50) -> list[analysis.WeakChildDeny]:
        """DENY-003: at-scope-only deny assignments above child scopes carrying denied
        operations."""
        from auditor.access import analysis

        return analysis.weak_child_denies(self.indexes, limit=limit)

    def subscription_owners(self) -> list[analysis.SubscriptionOwners]:
        """RBAC-001/002: distinct Owner holders per subscription (a group counts as one)."""
        from auditor.access import analysis

        return analysis.subscription_owners(self.indexes)

    def guest_privileges(self) -> list[analysis.GuestPrivilege]:
        """RBAC-003: privileged roles held by guests, directly or through nested groups."""
        from auditor.access import analysis

        return analysis.guest_privileges(self.indexes)

    def membership_cycles(self) -> list[list[str]]:
        """Group membership cycles in the directory."""
        return self.indexes.directory.cycles()

    def hierarchy_cycles(self) -> list[list[str]]:
        """Cycles in the snapshot's management-group hierarchy."""
        return self.indexes.scopes.hierarchy_cycles

    def gdpr_export(
        self, principal_id: str | None = None, email: str | None = None
    ) -> dict[str, Any]:
        """The GDPR export of one subject (see :func:`auditor.access.gdpr.gdpr_export`)."""
        from auditor.access.gdpr import gdpr_export

        return gdpr_export(self.snapshot, principal_id, email, directory=self.indexes.directory)
