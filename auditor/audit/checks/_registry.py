"""The registry of named checks and what a check sees and returns.

A check is registered by name, either per resource (``per="resource"``: called once for each resource
of its rule's resource type, e.g. each domain) or per run (``per="run"``: called once, it reads the
whole snapshot or plan and names the resources itself). It yields :class:`Outcome` values: passes and
failures, with the evidence that decided. Evidence never holds a secret: describe it
(:func:`describe_secret`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from auditor.audit.findings import RunsOn, Severity
from auditor.audit.resources import Resource, ResourceKind
from auditor.model.secrets import Secret

if TYPE_CHECKING:
    from auditor.estate.plan import Plan
    from auditor.estate.snapshot import Snapshot


@dataclass(slots=True)
class Outcome:
    """One verdict of a check. ``resource`` (or ``resource_id`` with ``resource_type``) says what it
    is about; ``detail`` tells apart several findings of one rule on one resource (it enters the
    fingerprint, so it must be stable: a field name or a value, never a list index that may shift).
    ``fields`` are extra template values that are not evidence. Outcomes are made by the million on
    a large estate: slots, and no per-instance dicts unless given."""

    passed: bool
    evidence: dict[str, Any] | None = None
    detail: str = ""
    resource: Resource | None = None
    resource_id: str | None = None
    resource_type: str | None = None
    resource_name: str | None = None
    location: str | None = None
    severity: Severity | None = None
    fields: dict[str, Any] | None = None
    unknown: str | None = None
    """Set when the check could not judge (what was missing, in words): the finding's status is
    ``unknown`` (see :mod:`auditor.audit.unknowns`)."""


@dataclass(slots=True)
class PassMany:
    """Many passes of one rule at once, for rules judging a million role assignments: the engine
    turns them into findings in a tight loop. ``items`` are ``(resource id, location)`` pairs; the
    rule's pass message should read only settings (it is rendered once)."""

    resource_type: str
    items: Sequence[tuple[str, str | None]]


@dataclass
class CheckContext:
    """What a check may read."""

    source_kind: RunsOn
    source: str | None
    settings: Mapping[str, Any]
    as_of: dt.date
    resources: Mapping[ResourceKind, Sequence[Resource]]
    snapshot: Snapshot | None = None
    plan: Plan | None = None
    files: Sequence[str] = ()
    """Extra files to scan (TOK-006)."""
    secrets: set[str] = field(default_factory=set)
    """Secret values met while checking: scrubbed from every output as a last line of defence."""
    cache: dict[str, Any] = field(default_factory=dict)
    """Results shared between checks of one run (e.g. the access engine's escalations). Keys that
    begin with ``transient:`` are dropped when the run ends."""
    _access: Any = None

    def access(self) -> Any:
        """The access engine of the snapshot (built once, on first use)."""
        if self._access is None:
            from auditor.access import AccessEngine

            assert self.snapshot is not None
            self._access = AccessEngine.from_snapshot(self.snapshot)
        return self._access

    def remember_secret(self, value: str | Secret | None) -> None:
        if isinstance(value, Secret):
            value = value.reveal()
        if isinstance(value, str) and len(value) >= 4:
            self.secrets.add(value)


ResourceCheck = Callable[[Resource, CheckContext], Iterable[Outcome]]
RunCheck = Callable[[CheckContext], Iterable[Outcome | PassMany]]


@dataclass(frozen=True)
class CheckSpec:
    name: str
    per: Literal["resource", "run"]
    fn: Callable[..., Iterable[Outcome | PassMany]]
    doc: str


CHECKS: dict[str, CheckSpec] = {}


def resource_check(name: str) -> Callable[[ResourceCheck], ResourceCheck]:
    """Register a check called once per resource of its rule's resource type."""

    def deco(fn: ResourceCheck) -> ResourceCheck:
        _add(CheckSpec(name, "resource", fn, (fn.__doc__ or "").strip()))
        return fn

    return deco


def run_check(name: str) -> Callable[[RunCheck], RunCheck]:
    """Register a check called once per run."""

    def deco(fn: RunCheck) -> RunCheck:
        _add(CheckSpec(name, "run", fn, (fn.__doc__ or "").strip()))
        return fn

    return deco


def _add(spec: CheckSpec) -> None:
    if spec.name in CHECKS:
        raise RuntimeError(f"check {spec.name!r} registered twice")
    CHECKS[spec.name] = spec


def describe_secret(value: str | Secret | None) -> str:
    """Words for a secret value that never show it: ``a literal value of 9 characters``,
    ``a reference (<PASSWORD>)``, ``an empty value``, ``nothing``."""
    if value is None:
        return "nothing"
    secret = value if isinstance(value, Secret) else Secret(value)
    if secret.is_empty:
        return "an empty value"
    if secret.is_reference:
        return f"a reference ({secret.reveal()})"
    n = len(secret.reveal())
    return f"a literal value of {n} character{'s' if n != 1 else ''}"


def config_get(group: Mapping[str, Any] | None, key: str) -> tuple[str | None, Any]:
    """``(actual key, value)`` of ``key`` in a configuration group, compared case-insensitively."""
    if not group:
        return None, None
    if key in group:
        return key, group[key]
    low = key.lower()
    for k, v in group.items():
        if k.lower() == low:
            return k, v
    return None, None


def config_group(configurations: Mapping[str, Any] | None, name: str) -> Mapping[str, Any] | None:
    _, group = config_get(configurations, name)
    return group if isinstance(group, Mapping) else None
