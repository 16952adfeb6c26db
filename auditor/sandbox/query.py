"""Querying a snapshot the way the API lists it (``auditor query``).

Without a scope, the filter is a predicate over each record's JSON (semantics section 3: member paths,
arrays matching when any element does, null rules). With a scope, the endpoint's semantics apply
exactly as the sandbox serves them — the filter must be one of the forms the endpoint accepts, and the
records at, above or below the scope are chosen by the same :class:`~auditor.sandbox.store.Store`.
One filter engine and one listing implementation for the product.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import msgspec

from auditor.access.scopes import ROOT, scope_key
from auditor.errors import InputError
from auditor.estate.snapshot import Snapshot


class QueryKind(StrEnum):
    ROLE_ASSIGNMENTS = "role-assignments"
    DENY_ASSIGNMENTS = "deny-assignments"
    HEALTH_EVENTS = "health-events"
    CLUSTERS = "clusters"
    DOMAINS = "domains"


_SECTIONS = {
    QueryKind.ROLE_ASSIGNMENTS: "roleAssignments",
    QueryKind.DENY_ASSIGNMENTS: "denyAssignments",
    QueryKind.HEALTH_EVENTS: "healthEvents",
    QueryKind.CLUSTERS: "clusters",
    QueryKind.DOMAINS: "domains",
}


def wire(item: Any) -> dict[str, Any]:
    """The JSON of a record or wire model."""
    if isinstance(item, dict):
        return item
    if isinstance(item, msgspec.Struct):
        out: dict[str, Any] = msgspec.to_builtins(item)
        return out
    dumped: dict[str, Any] = item.to_wire()
    return dumped


def query_snapshot(
    snapshot: Snapshot,
    kind: QueryKind,
    filter_text: str | None = None,
    scope: str | None = None,
) -> list[dict[str, Any]]:
    """The records of ``kind`` that match, as wire JSON, in snapshot order."""
    section = _SECTIONS[kind]
    if scope is None:
        items: list[Any] = list(getattr(snapshot, section))
        kept = snapshot.preserved.get(section)
        if kept:
            items = [kept.get(i, r) for i, r in enumerate(items)]
        if not filter_text:
            return [wire(i) for i in items]
        from auditor.expr.filter import compile_filter

        predicate = compile_filter(filter_text)
        return [wire(i) for i in items if predicate(i)]
    return _scoped(snapshot, kind, filter_text, scope)


def _scoped(
    snapshot: Snapshot, kind: QueryKind, filter_text: str | None, scope: str
) -> list[dict[str, Any]]:
    from auditor.expr.filter import Endpoint, parse_endpoint_filter
    from auditor.sandbox.config import SandboxConfig
    from auditor.sandbox.store import Store

    key = scope_key(scope)
    store = Store(snapshot, SandboxConfig())
    if kind is QueryKind.ROLE_ASSIGNMENTS:
        ra_query = parse_endpoint_filter(Endpoint.ROLE_ASSIGNMENTS, filter_text)
        return [wire(i) for i in store.role_assignment_items(store.role_assignments(key, ra_query))]
    if kind is QueryKind.DENY_ASSIGNMENTS:
        da_query = parse_endpoint_filter(Endpoint.DENY_ASSIGNMENTS, filter_text)
        positions = store.deny_assignments(key, da_query)
        return [
            wire(i) for i in store.deny_assignment_items(positions, gdpr=da_query.include_excluded)
        ]
    if kind is QueryKind.HEALTH_EVENTS:
        event_query = parse_endpoint_filter(Endpoint.HEALTH_EVENTS, filter_text)
        return store.health_events(_prefix(key), event_query.predicate, None)
    items = snapshot.clusters if kind is QueryKind.CLUSTERS else snapshot.domains
    from auditor.expr.filter import compile_filter

    match = compile_filter(filter_text) if filter_text else None
    prefix = _prefix(key)
    return [
        wire(i)
        for i in items
        if (i.id or "").lower().startswith(prefix) and (match is None or match(i))
    ]


def _prefix(key: str) -> str:
    if key == ROOT:
        return "/"
    if not key.startswith("/subscriptions/"):
        raise InputError(
            "expected a subscription, resource group or resource scope for this kind, "
            f"found {key!r}",
            location="--scope",
        )
    return key + "/"
