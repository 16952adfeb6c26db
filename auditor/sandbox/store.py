"""The sandbox's state: the snapshot it serves, indexes for the list endpoints, the changes made
through the API (clusters, domains, developer-tooling tokens and app users) and the asynchronous
operations in flight. Everything runs on the server's event loop, so a handler that does not await
sees and changes the state atomically.
"""

from __future__ import annotations

import asyncio
import secrets
import time
import uuid
from collections.abc import Iterable, Iterator
from datetime import UTC, date, datetime
from typing import Any

from auditor.access.directory import Directory
from auditor.errors import InputError
from auditor.estate import write_atomic
from auditor.estate.snapshot import Snapshot, dumps_snapshot
from auditor.model.access import ALL_PRINCIPALS_ID
from auditor.model.cluster import Cluster
from auditor.model.devtooling import ApiToken, DevTooling, DevToolingApp
from auditor.model.domain import Domain
from auditor.model.health import HealthEvent
from auditor.sandbox._scopes import ScopeIndex, Scopes, scope_key
from auditor.sandbox.auth import VALUE_HASH_FIELD, ApiTokenRegistry, stored_digest, token_digest
from auditor.sandbox.config import SandboxConfig
from auditor.sandbox.filters import DenyAssignmentQuery, EventPredicate, RoleAssignmentQuery
from auditor.sandbox.resources import Operation

_QUERY_CACHE_LIMIT = 512
_OPERATIONS_KEPT = 10_000


class PersistError(Exception):
    """The snapshot file could not be written (``--persist``)."""


def utc_now() -> str:
    """Now, as the service writes timestamps (ISO 8601, UTC, ``Z``)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _parse_time(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


class Store:
    def __init__(self, snapshot: Snapshot, config: SandboxConfig) -> None:
        self.snapshot = snapshot
        self.config = config
        self.scopes = Scopes(snapshot.hierarchy)
        self.directory = Directory(snapshot.principals)
        ras = snapshot.roleAssignments
        das = snapshot.denyAssignments
        self.ra_index = ScopeIndex((r.properties.scope for r in ras), self.scopes)
        self.da_index = ScopeIndex((d.properties.scope for d in das), self.scopes)
        self._ra_by_principal: dict[str, list[int]] | None = None
        self._ra_items = self._items("roleAssignments", ras)
        self._da_items = self._items("denyAssignments", das)
        self._query_cache: dict[tuple[Any, ...], list[int]] = {}
        self._wire_cache: dict[int, dict[str, Any]] = {}
        self.operations: dict[str, Operation] = {}
        self.api_tokens = ApiTokenRegistry()
        self._persist_lock = asyncio.Lock()
        self.generation = 0
        """Counts the changes made through the API."""
        self._persisted = 0
        """The generation the snapshot file holds (``--persist``)."""
        for token in self.dev.tokens:
            digest = stored_digest(token)
            if digest and token.id:
                self.api_tokens.add_digest(digest, token.id)
        for value, token_id in config.api_tokens.items():
            if self.token(token_id) is None:
                raise ValueError(
                    f"--api-token names token id {token_id!r}, which devTooling.tokens lacks"
                )
            self.api_tokens.add(value, token_id)

    def _items(self, section: str, records: list[Any]) -> list[Any]:
        """What a list serves for each record: the record, or its original JSON when the snapshot
        carried fields the records do not know (so nothing is lost on the way out)."""
        kept = self.snapshot.preserved.get(section)
        if not kept:
            return records
        return [kept.get(i, r) for i, r in enumerate(records)]

    # --- role assignments (seed 4.2) ------------------------------------------------------------

    def _by_principal(self) -> dict[str, list[int]]:
        if self._ra_by_principal is None:
            index: dict[str, list[int]] = {}
            for i, ra in enumerate(self.snapshot.roleAssignments):
                pid = ra.properties.principalId
                if pid is not None:
                    index.setdefault(pid.lower(), []).append(i)
            self._ra_by_principal = index
        return self._ra_by_principal

    def _cached(self, key: tuple[Any, ...], compute: Iterator[int] | set[int]) -> list[int]:
        hit = self._query_cache.get(key)
        if hit is None:
            hit = sorted(compute)
            if len(self._query_cache) >= _QUERY_CACHE_LIMIT:
                self._query_cache.clear()
            self._query_cache[key] = hit
        return hit

    def role_assignments(self, scope: str, query: RoleAssignmentQuery) -> list[int]:
        """Positions of the role assignments a 4.2 call returns, in snapshot order."""
        cache_key = ("ra", scope, query)
        hit = self._query_cache.get(cache_key)
        if hit is not None:
            return hit
        index = self.ra_index
        found = index.at_or_above(scope) if query.at_scope else index.around(scope)
        who: frozenset[str] | None = None
        if query.assigned_to is not None:
            who = self.directory.identities(query.assigned_to.lower())
        elif query.principal_id is not None:
            who = frozenset({query.principal_id.lower()})
        if who is not None:
            by_principal = self._by_principal()
            mine: set[int] = set()
            for pid in who:
                mine.update(by_principal.get(pid, ()))
            found = found & mine if len(mine) < len(found) else mine & found
        return self._cached(cache_key, found)

    def role_assignment_items(self, positions: Iterable[int]) -> list[Any]:
        items = self._ra_items
        return [items[i] for i in positions]

    # --- deny assignments (seed 4.1) ------------------------------------------------------------

    def deny_assignments(self, scope: str, query: DenyAssignmentQuery) -> list[int]:
        cache_key = ("da", scope, query)
        hit = self._query_cache.get(cache_key)
        if hit is not None:
            return hit
        index = self.da_index
        records = self.snapshot.denyAssignments
        if query.deny_assignment_name is not None:
            wanted = query.deny_assignment_name.lower()
            found: set[int] = {
                i
                for i in index.at(scope)
                if (records[i].properties.denyAssignmentName or "").lower() == wanted
            }
        elif query.at_scope:
            found = index.at_or_above(scope)
        else:
            found = index.around(scope)
        pid = query.principal
        if pid is not None:
            key = pid.lower()
            gdpr = query.include_excluded
            found = {i for i in found if _deny_concerns(records[i], key, gdpr)}
        return self._cached(cache_key, found)

    def deny_assignment_items(self, positions: Iterable[int], *, gdpr: bool) -> list[Any]:
        if not gdpr:
            items = self._da_items
            return [items[i] for i in positions]
        out: list[Any] = []
        for i in positions:
            record = self.snapshot.denyAssignments[i]
            props = {
                k: v
                for k, v in (
                    ("denyAssignmentName", record.properties.denyAssignmentName),
                    ("description", record.properties.description),
                )
                if v is not None
            }
            item = {k: getattr(record, k) for k in ("id", "name", "type") if getattr(record, k)}
            item["properties"] = props
            out.append(item)
        return out

    # --- health events (seed 4.5, 4.6) ----------------------------------------------------------

    def event_wire(self, event: HealthEvent) -> dict[str, Any]:
        key = id(event)
        wire = self._wire_cache.get(key)
        if wire is None:
            wire = self._wire_cache[key] = event.to_wire()
        return wire

    def health_events(
        self, prefix: str, predicate: EventPredicate | None, start: date | None
    ) -> list[dict[str, Any]]:
        """Events whose id starts with ``prefix`` (a lower-case key ending in ``/``), kept by the
        filter and by ``queryStartTime`` (lastUpdateTime on or after that day, UTC)."""
        since = datetime(start.year, start.month, start.day, tzinfo=UTC) if start else None
        out: list[dict[str, Any]] = []
        for event in self.snapshot.healthEvents:
            if not (event.id or "").lower().startswith(prefix):
                continue
            if since is not None:
                updated = _parse_time(event.properties.lastUpdateTime)
                if updated is None or updated < since:
                    continue
            wire = self.event_wire(event)
            if predicate is not None and not predicate(wire):
                continue
            out.append(wire)
        return out

    # --- clusters and domains (seed 4.3, 4.4) ---------------------------------------------------

    @staticmethod
    def _find(items: list[Any], resource_id: str) -> int | None:
        key = scope_key(resource_id)
        for i, item in enumerate(items):
            if item.id is not None and scope_key(item.id) == key:
                return i
        return None

    def cluster(self, resource_id: str) -> Cluster | None:
        found = self._find(self.snapshot.clusters, resource_id)
        return None if found is None else self.snapshot.clusters[found]

    def domain(self, resource_id: str) -> Domain | None:
        found = self._find(self.snapshot.domains, resource_id)
        return None if found is None else self.snapshot.domains[found]

    def put_cluster(self, cluster: Cluster) -> None:
        self._put(self.snapshot.clusters, cluster)

    def put_domain(self, domain: Domain) -> None:
        self._put(self.snapshot.domains, domain)

    def _put(self, items: list[Any], item: Any) -> None:
        found = self._find(items, item.id)
        if found is None:
            items.append(item)
        else:
            items[found] = item
        self.generation += 1

    @staticmethod
    def under(items: Iterable[Any], prefix: str, resource_type: str) -> list[Any]:
        """Items whose id starts with ``prefix`` (a lower-case key ending in ``/``) and whose type
        is ``resource_type``."""
        rtype = resource_type.lower()
        return [
            item
            for item in items
            if item.id is not None
            and item.id.lower().startswith(prefix)
            and (item.type or rtype).lower() == rtype
        ]

    def start_operation(self, resource_id: str) -> Operation:
        op = Operation(
            id=str(uuid.uuid4()),
            resource_id=resource_id,
            started_at=utc_now(),
            due=time.monotonic() + self.config.async_delay,
        )
        self.operations[op.id.lower()] = op
        if len(self.operations) > _OPERATIONS_KEPT:  # forget the oldest (dicts keep order)
            del self.operations[next(iter(self.operations))]
        return op

    # --- developer tooling (seed 4.7, 2.E, 5.2) -------------------------------------------------

    @property
    def dev(self) -> DevTooling:
        if self.snapshot.devTooling is None:
            self.snapshot.devTooling = DevTooling()
        return self.snapshot.devTooling

    def token(self, token_id: str) -> ApiToken | None:
        for token in self.dev.tokens:
            if token.id is not None and token.id == token_id:
                return token
        return None

    def token_for_value(self, value: str | None) -> ApiToken | None:
        token_id = self.api_tokens.lookup(value)
        return None if token_id is None else self.token(token_id)

    def app(self, owner: str, name: str) -> DevToolingApp | None:
        for app in self.dev.apps:
            if (app.owner or "").lower() == owner.lower() and (
                app.name or ""
            ).lower() == name.lower():
                return app
        return None

    def create_token(
        self, *, kind: str, app: str | None, access_type: str, description: str | None
    ) -> tuple[ApiToken, str]:
        """A new token and its value (shown once; only its digest is kept)."""
        value = secrets.token_hex(20)
        token = ApiToken.model_validate(
            {
                "id": str(uuid.uuid4()),
                "kind": kind,
                "app": app,
                "accessType": access_type,
                "description": description,
                "createdAt": utc_now(),
                VALUE_HASH_FIELD: token_digest(value),
            },
            strict=True,
        )
        assert token.id is not None
        self.dev.tokens.append(token)
        self.api_tokens.add(value, token.id)
        self.generation += 1
        return token, value

    def remove_app_user(self, app: DevToolingApp, email: str) -> bool:
        before = len(app.users)
        app.users = [u for u in app.users if (u.email or "").lower() != email.lower()]
        changed = len(app.users) != before
        if changed:
            self.generation += 1
        return changed

    # --- persistence ----------------------------------------------------------------------------

    async def persist(self) -> None:
        """Write the snapshot back atomically (``--persist``); a no-op otherwise.

        Writes are serialised and coalesced: a caller whose change a write already holds (one that
        started after the change) returns without writing again, so a burst of N changes costs a
        few writes, not N. A write that fails raises :class:`PersistError` (the change is kept in
        memory)."""
        path = self.config.persist_path
        if path is None:
            return
        wanted = self.generation
        async with self._persist_lock:
            if self._persisted >= wanted:
                return
            generation = self.generation
            data = dumps_snapshot(self.snapshot, indent=2)
            try:
                await asyncio.to_thread(
                    write_atomic,
                    path,
                    data,
                    overwrite=True,
                    what="snapshot file",
                    replace_input=True,
                )
            except (OSError, InputError) as exc:
                raise PersistError(str(exc)) from None
            self._persisted = generation


def _deny_concerns(record: Any, principal: str, gdpr: bool) -> bool:
    """Whether a deny assignment concerns ``principal`` for a principalId filter (named directly
    or as all-principals, and not excluded) or a gdprExportPrincipalId one (named or excluded)."""
    props = record.properties
    excluded = any((p.id or "").lower() == principal for p in props.excludePrincipals)
    if gdpr and excluded:
        return True
    named = any(
        (p.id or "").lower() == principal
        or (
            (p.id or "").lower() == ALL_PRINCIPALS_ID
            and (p.type is None or p.type.lower() == "systemdefined")
        )
        for p in props.principals
    )
    if gdpr:
        return named
    return named and not excluded
