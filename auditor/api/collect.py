"""Building a snapshot (contracts 2) from the API.

What is read, per subscription and concurrently (bounded by the client's ``concurrency``):

- role assignments: per subscription (4.2 at the subscription: at, above and below it) or once at
  provider level (4.2 at ``/``, paged: the whole tenant); duplicates (assignments above several
  subscriptions) are kept once;
- deny assignments (4.1), health events (4.5), clusters and domains (their list calls);
- the developer-tooling service, when a client for it is given: user, apps and their users, user
  and app tokens (metadata only: token values are never readable).

``hierarchy``, ``principals`` and ``roleDefinitions`` are not served by the seed's API; they stay
empty unless a directory snapshot supplies them.

With a client of the vendor's namespace (``ResourceManagerClient(..., namespace="vendor")``: the
``Microsoft.*`` paths), each page's items are mapped to the seed's names on the way in, exactly as
``auditor estate import`` maps the same items (:mod:`auditor.sources.exports.collected`), so the
snapshot is the one an import of the same answers gives.

Items travel as raw JSON from the answer to the snapshot loader, which validates them exactly as it
validates a snapshot file. A part that cannot be read in full is recorded under a top-level
``"incomplete": [{"what", "error"}]`` key instead of failing the whole collection, and what was read
of it is kept:

- a listing stopped early (an error answer after the retries, the client's ``deadline`` passed,
  ``max_pages`` pages read, a repeated ``nextLink``, a page that is not a list page) keeps the items
  of the pages before;
- an item the snapshot cannot hold (not an object, an ``id`` that is not a string, nesting too
  deep, a field of the wrong type) is left out, named by its page and JSON path; the rest of its
  page and the listing's later pages are read.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from auditor.api._paging import Page
from auditor.api._paths import subscription_path
from auditor.api._transport import ApiError, bounded
from auditor.api.client import ResourceManagerClient
from auditor.api.devtooling import DevToolingClient
from auditor.errors import IncompleteError, InputError
from auditor.estate import write_atomic
from auditor.estate.snapshot import Snapshot, dumps_snapshot, loads_snapshot

if TYPE_CHECKING:
    from auditor.sources.exports.collected import SeedNames

RoleAssignmentMode = Literal["subscription", "provider"]

ProgressCallback = Callable[[str, int, int], None]
"""Called with (what just finished, units done, units in all)."""

INCOMPLETE_KEY = "incomplete"
DIRECTORY_SECTIONS = ("hierarchy", "principals", "roleDefinitions")

Pages = AsyncIterator[Page]

_PROBLEMS_KEPT = 5
"""Problems of one listing quoted in its ``incomplete`` entry (the rest are counted)."""


@dataclass(frozen=True)
class Failure:
    what: str
    error: str

    def to_wire(self) -> dict[str, str]:
        return {"what": self.what, "error": self.error}


@dataclass
class CollectResult:
    snapshot: Snapshot
    incomplete: list[Failure] = field(default_factory=list)
    requests: int = 0
    retries: int = 0
    seconds: float = 0.0

    @property
    def complete(self) -> bool:
        return not self.incomplete

    def counts(self) -> dict[str, int]:
        return self.snapshot.counts()


@dataclass
class _Read:
    """The items kept of one page (with their ids), and their places in it when some were left
    out (None: the k-th item kept is the page's k-th item)."""

    number: int
    items: list[tuple[msgspec.Raw, str | None]]
    positions: list[int] | None = None

    def position(self, k: int) -> int:
        return k if self.positions is None else self.positions[k]


@dataclass
class _Unit:
    section: str
    what: str
    pages: Callable[[], Pages]
    listed_in: str | None = None
    """The scope the listing is asked for."""
    read: list[_Read] = field(default_factory=list)
    stopped: str | None = None
    """Why the listing ended early."""
    problems: list[str] = field(default_factory=list)
    """Items left out (the first few, with page and JSON path)."""
    left_out: int = 0

    def leave_out(self, page: int, problem: str) -> None:
        self.left_out += 1
        if len(self.problems) < _PROBLEMS_KEPT:
            self.problems.append(f"page {page}, {problem}")

    def failure(self) -> Failure | None:
        parts = [self.stopped] if self.stopped else []
        if self.left_out:
            more = self.left_out - len(self.problems)
            tail = f"; and {more:,} more" if more > 0 else ""
            parts.append(f"{self.left_out:,} item(s) left out: " + "; ".join(self.problems) + tail)
        return Failure(self.what, "; ".join(parts)) if parts else None


def _utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _units(
    api: ResourceManagerClient, subscriptions: Sequence[str], mode: RoleAssignmentMode
) -> list[_Unit]:
    units: list[_Unit] = []
    if mode == "provider":
        units.append(
            _Unit(
                "roleAssignments",
                "roleAssignments at provider level (/)",
                partial(api.access.role_assignment_pages, "/"),
            )
        )
    for sub in subscriptions:
        scope = subscription_path(sub)
        per_subscription: list[tuple[str, Callable[[], Pages]]] = [
            ("denyAssignments", partial(api.access.deny_assignment_pages, scope)),
            ("healthEvents", partial(api.health.subscription_event_pages, scope)),
            ("clusters", partial(api.clusters.pages, scope)),
            ("domains", partial(api.domains.pages, scope)),
        ]
        if mode == "subscription":
            ras = partial(api.access.role_assignment_pages, scope)
            per_subscription.insert(0, ("roleAssignments", ras))
        for section, pages in per_subscription:
            units.append(_Unit(section, f"{section} of {scope}", pages, scope))
    return units


def _in_seed_names(unit: _Unit, page: Page, names: SeedNames) -> Page:
    """The page with its items in the seed's names (the vendor's namespace)."""
    items = names.items(unit.section, page.items, skip=page.unreadable, listed_in=unit.listed_in)
    body = b'{"value":[' + b",".join(bytes(item) for item in items) + b"]}"
    return Page(page.number, items, body, page.unreadable)


async def _run_unit(unit: _Unit, names: SeedNames | None = None) -> None:
    async for page in unit.pages():
        if names is not None:
            page = _in_seed_names(unit, page, names)
        ids, bad = page.ids()
        problems = {**page.unreadable, **bad}
        if not problems:
            unit.read.append(_Read(page.number, list(zip(page.items, ids, strict=True))))
            continue
        kept: list[tuple[msgspec.Raw, str | None]] = []
        positions: list[int] = []
        for index, (item, item_id) in enumerate(zip(page.items, ids, strict=True)):
            if index not in problems:
                kept.append((item, item_id))
                positions.append(index)
        unit.read.append(_Read(page.number, kept, positions))
        for index in sorted(problems):
            unit.leave_out(page.number, problems[index])


def _merge(units: list[_Unit], section: str) -> list[msgspec.Raw]:
    seen: set[str] = set()
    out: list[msgspec.Raw] = []
    for unit in units:
        if unit.section != section:
            continue
        for read in unit.read:
            for raw, item_id in read.items:
                if item_id is not None:
                    key = item_id.lower().rstrip("/")
                    if key in seen:
                        continue
                    seen.add(key)
                out.append(raw)
    return out


def _problem(section: str, value: Any) -> str | None:
    """Why the snapshot cannot hold ``value`` as its ``section`` (None: it can); the JSON path
    counts from the section."""
    data = msgspec.json.encode({"snapshotVersion": 1, section: value})
    try:
        loads_snapshot(data, source="the answer")
    except InputError as exc:
        return f"{exc.location}: {bounded(exc.detail)}" if exc.location else bounded(exc.detail)
    except RecursionError:
        return "nested too deeply"
    return None


def _leave_out_invalid(unit: _Unit) -> None:
    """Leave out the items of ``unit`` the snapshot cannot hold (a page at a time, then, in a
    page that has some, an item at a time)."""
    prefix = f"{unit.section}[0]"
    for read in unit.read:
        if not read.items or _problem(unit.section, [raw for raw, _ in read.items]) is None:
            continue
        kept: list[tuple[msgspec.Raw, str | None]] = []
        positions: list[int] = []
        for k, entry in enumerate(read.items):
            position = read.position(k)
            problem = _problem(unit.section, [entry[0]])
            if problem is None:
                kept.append(entry)
                positions.append(position)
            else:
                where = f"value[{position}]"
                if problem.startswith(prefix):
                    problem = where + problem[len(prefix) :]
                else:
                    problem = f"{where}: {problem}"
                unit.leave_out(read.number, problem)
        read.items, read.positions = kept, positions


_TOKEN_FIELDS = ("id", "kind", "app", "accessType", "description", "createdAt")


async def _devtooling(dev: DevToolingClient, failures: list[Failure]) -> dict[str, Any]:
    user = await dev.get_user()
    apps_out: list[dict[str, Any]] = []
    tokens: list[dict[str, Any]] = []
    try:
        tokens.extend(await dev.list_user_tokens())
    except ApiError as exc:
        failures.append(Failure("devTooling user API tokens", str(exc)))
    try:
        apps = await dev.list_apps()
    except ApiError as exc:
        failures.append(Failure("devTooling apps", str(exc)))
        apps = []
    for app in apps:
        owner, name = str(app.get("owner") or ""), str(app.get("name") or "")
        entry = {k: app.get(k) for k in ("owner", "ownerType", "name")}
        try:
            entry["users"] = await dev.list_app_users(owner, name)
        except ApiError as exc:
            failures.append(Failure(f"devTooling users of app {owner}/{name}", str(exc)))
        try:
            tokens.extend(await dev.list_app_tokens(owner, name))
        except ApiError as exc:
            failures.append(Failure(f"devTooling API tokens of app {owner}/{name}", str(exc)))
        apps_out.append(entry)
    kept = [{k: t.get(k) for k in _TOKEN_FIELDS if k in t} for t in tokens]
    return {"user": user, "apps": apps_out, "tokens": kept}


async def collect(
    api: ResourceManagerClient,
    subscriptions: Sequence[str],
    *,
    devtooling: DevToolingClient | None = None,
    directory: Snapshot | None = None,
    role_assignments: RoleAssignmentMode = "subscription",
    progress: ProgressCallback | None = None,
    collected_at: str | None = None,
) -> CollectResult:
    """Read the estate of ``subscriptions`` through ``api`` (opened with ``async with``)."""
    started = time.perf_counter()
    collected_at = collected_at or _utc_now()
    units = _units(api, subscriptions, role_assignments)
    names: SeedNames | None = None
    if getattr(api, "namespace", "seed") == "vendor":
        from auditor.sources.exports.collected import SeedNames

        names = SeedNames()
    total = len(units) + (1 if devtooling is not None else 0)
    failures: list[Failure] = []
    done = 0

    def finished(what: str) -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(what, done, total)

    async def run(unit: _Unit) -> None:
        try:
            await _run_unit(unit, names)
        except ApiError as exc:
            unit.stopped = str(exc)
        finished(unit.what)

    dev_section: dict[str, Any] | None = None

    async def run_dev() -> None:
        nonlocal dev_section
        assert devtooling is not None
        try:
            dev_section = await _devtooling(devtooling, failures)
        except ApiError as exc:
            failures.append(Failure("devTooling", str(exc)))
        finished("devTooling")

    jobs = [run(unit) for unit in units]
    if devtooling is not None:
        jobs.append(run_dev())
    await asyncio.gather(*jobs)

    source = f"the answers of {api.base_url}"
    try:
        snapshot = loads_snapshot(
            _document(units, dev_section, directory, collected_at), source=source
        )
    except (InputError, RecursionError):
        # an item the snapshot cannot hold: find it, leave it out, and say so
        for unit in units:
            _leave_out_invalid(unit)
        if dev_section is not None:
            problem = _problem("devTooling", dev_section)
            if problem is not None:
                failures.append(Failure("devTooling", f"left out: {problem}"))
                dev_section = None
        try:
            snapshot = loads_snapshot(
                _document(units, dev_section, directory, collected_at), source=source
            )
        except InputError as exc:
            raise IncompleteError(
                f"the service returned data that is not a valid estate: {exc}"
            ) from None
    order = {unit.what: i for i, unit in enumerate(units)}
    for unit in units:
        failure = unit.failure()
        if failure is not None:
            failures.append(failure)
    failures.sort(key=lambda f: (order.get(f.what, len(order)), f.what))
    if failures:
        snapshot.extra[INCOMPLETE_KEY] = msgspec.json.encode([f.to_wire() for f in failures])
    return CollectResult(
        snapshot=snapshot,
        incomplete=failures,
        requests=api.transport.requests + (devtooling.transport.requests if devtooling else 0),
        retries=api.transport.retries + (devtooling.transport.retries if devtooling else 0),
        seconds=time.perf_counter() - started,
    )


def _document(
    units: list[_Unit],
    dev_section: dict[str, Any] | None,
    directory: Snapshot | None,
    collected_at: str,
) -> bytes:
    doc: dict[str, Any] = {"snapshotVersion": 1, "collectedAt": collected_at}
    if directory is not None:
        top = msgspec.json.decode(dumps_snapshot(directory), type=dict[str, msgspec.Raw])
        if directory.tenantId is not None:
            doc["tenantId"] = directory.tenantId
        for key in DIRECTORY_SECTIONS:
            if key in top:
                doc[key] = top[key]
    for section in ("roleAssignments", "denyAssignments", "clusters", "domains", "healthEvents"):
        doc[section] = _merge(units, section)
    if dev_section is not None:
        doc["devTooling"] = dev_section
    return msgspec.json.encode(doc)


def write_snapshot(result: CollectResult, out: str | os.PathLike[str], *, force: bool) -> None:
    """Write the collected snapshot atomically (an existing file only with ``force``); then, if
    the collection is incomplete, raise :class:`IncompleteError` (exit code 3) naming what failed."""
    write_atomic(
        out, dumps_snapshot(result.snapshot, indent=2), overwrite=force, what="snapshot file"
    )
    if result.incomplete:
        parts = "; ".join(f"{f.what}: {f.error}" for f in result.incomplete[:5])
        more = len(result.incomplete) - 5
        tail = f" (and {more} more)" if more > 0 else ""
        raise IncompleteError(
            f"the snapshot written to {os.fspath(out)} is incomplete "
            f"({len(result.incomplete)} part(s) could not be read): {parts}{tail}"
        )
