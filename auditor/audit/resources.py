"""The resources rules look at: domains, clusters, health events and API tokens of a snapshot, or the
request bodies of a plan, each as the JSON a predicate sees (seed defaults applied, secrets masked)
plus the wire model (whose :class:`~auditor.model.secrets.Secret` values the secret checks read).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from auditor.audit.findings import RunsOn
from auditor.estate.plan import Plan, PlanRequest
from auditor.estate.snapshot import Snapshot
from auditor.model.cluster import CLUSTER_RESOURCE_TYPE
from auditor.model.defaults import cluster_with_defaults, domain_with_defaults
from auditor.model.domain import DOMAIN_RESOURCE_TYPE
from auditor.model.health import HEALTH_EVENT_RESOURCE_TYPE

ResourceKind = Literal["domain", "cluster", "healthEvent", "token", "request"]

TOKEN_RESOURCE_TYPE = "DevTooling/apiTokens"
PLAN_REQUEST_RESOURCE_TYPE = "Plan/requests"

RESOURCE_KINDS: dict[str, ResourceKind] = {
    DOMAIN_RESOURCE_TYPE: "domain",
    CLUSTER_RESOURCE_TYPE: "cluster",
    HEALTH_EVENT_RESOURCE_TYPE: "healthEvent",
    TOKEN_RESOURCE_TYPE: "token",
    PLAN_REQUEST_RESOURCE_TYPE: "request",
}
"""Rule-pack resource types whose rules run once per resource of that kind."""


def token_resource_id(token_id: str | None, index: int) -> str:
    """The resource id of an API token in findings: its ``id`` (``devTooling.tokens[i]`` without)."""
    return token_id if token_id else f"devTooling.tokens[{index}]"


@dataclass
class Resource:
    """One resource a rule judges."""

    kind: ResourceKind
    resource_type: str
    id: str
    name: str
    source_kind: RunsOn
    source: str | None
    location: str
    doc: dict[str, Any]
    """Effective JSON (defaults applied, secrets masked): what predicates and templates read."""
    raw: dict[str, Any]
    """The JSON as given (secrets masked): tells a seed default from a given value."""
    model: Any = field(repr=False)
    request: PlanRequest | None = field(default=None, repr=False)


def _last_segment(resource_id: str) -> str:
    return resource_id.rstrip("/").rsplit("/", 1)[-1]


def _as_given(raw: dict[str, Any]) -> dict[str, Any]:
    return raw


_ESTATE_SECTIONS: tuple[
    tuple[str, ResourceKind, str, Callable[[dict[str, Any]], dict[str, Any]]], ...
] = (
    ("domains", "domain", DOMAIN_RESOURCE_TYPE, domain_with_defaults),
    ("clusters", "cluster", CLUSTER_RESOURCE_TYPE, cluster_with_defaults),
    ("healthEvents", "healthEvent", HEALTH_EVENT_RESOURCE_TYPE, _as_given),
)
"""Snapshot section, resource kind, resource type, and how the seed's defaults apply to it."""


def snapshot_resources(snapshot: Snapshot) -> dict[ResourceKind, list[Resource]]:
    """Domains, clusters, health events and tokens of a snapshot."""
    src = snapshot.source
    out: dict[ResourceKind, list[Resource]] = {
        "domain": [],
        "cluster": [],
        "healthEvent": [],
        "token": [],
        "request": [],
    }
    for section, kind, resource_type, with_defaults in _ESTATE_SECTIONS:
        for i, model in enumerate(getattr(snapshot, section)):
            raw = model.to_wire()
            rid = model.id or f"{section}[{i}]"
            out[kind].append(
                Resource(
                    kind,
                    resource_type,
                    rid,
                    model.name or _last_segment(rid),
                    "estate",
                    src,
                    f"{section}[{i}]",
                    with_defaults(raw),
                    raw,
                    model,
                )
            )
    if snapshot.devTooling is not None:
        for i, t in enumerate(snapshot.devTooling.tokens):
            raw = t.to_wire()
            rid = token_resource_id(t.id, i)
            out["token"].append(
                Resource(
                    "token",
                    TOKEN_RESOURCE_TYPE,
                    rid,
                    t.id or str(i),
                    "estate",
                    src,
                    f"devTooling.tokens[{i}]",
                    raw,
                    raw,
                    t,
                )
            )
    return out


def plan_resources(plan: Plan) -> dict[ResourceKind, list[Resource]]:
    """The domain and cluster bodies of a plan, and every request (for PLAN-001; role and deny
    assignments are requests only: no configuration rule reads them)."""
    src = plan.source
    out: dict[ResourceKind, list[Resource]] = {
        "domain": [],
        "cluster": [],
        "healthEvent": [],
        "token": [],
        "request": [],
    }
    for req in plan.requests:
        where = f"{req.json_path}.body"
        raw = req.body.to_wire() if req.kind in ("domain", "cluster") else {}
        if req.kind == "domain":
            out["domain"].append(
                Resource(
                    "domain",
                    DOMAIN_RESOURCE_TYPE,
                    req.resource_id,
                    req.name,
                    "plan",
                    src,
                    where,
                    domain_with_defaults(raw),
                    raw,
                    req.body,
                    req,
                )
            )
        elif req.kind == "cluster":
            out["cluster"].append(
                Resource(
                    "cluster",
                    CLUSTER_RESOURCE_TYPE,
                    req.resource_id,
                    req.name,
                    "plan",
                    src,
                    where,
                    cluster_with_defaults(raw),
                    raw,
                    req.body,
                    req,
                )
            )
        out["request"].append(
            Resource(
                "request",
                PLAN_REQUEST_RESOURCE_TYPE,
                req.resource_id,
                req.name,
                "plan",
                src,
                req.json_path,
                {"method": req.method, "apiVersion": req.api_version},
                {},
                req.body,
                req,
            )
        )
    return out


def get_path(doc: Any, path: str) -> Any:
    """The value at a ``/``-separated member path (names case-insensitive). A path crossing an
    array gives the list of the values found in its elements (None when nothing is found)."""
    parts = [p for p in path.split("/") if p]
    values = list(_walk(doc, parts))
    crosses = _crosses_array(doc, parts)
    if crosses:
        return [v for v in values if v is not None]
    return values[0] if values else None


def _lookup(node: Mapping[str, Any], name: str) -> tuple[bool, Any]:
    if name in node:
        return True, node[name]
    low = name.lower()
    for key, value in node.items():
        if key.lower() == low:
            return True, value
    return False, None


def _walk(node: Any, parts: list[str]) -> Iterator[Any]:
    if not parts:
        yield node
        return
    if isinstance(node, list):
        for item in node:
            yield from _walk(item, parts)
        return
    if isinstance(node, dict):
        found, value = _lookup(node, parts[0])
        if found:
            yield from _walk(value, parts[1:])
        else:
            yield None


def _crosses_array(node: Any, parts: list[str]) -> bool:
    for part in parts:
        if isinstance(node, list):
            return True
        if not isinstance(node, dict):
            return False
        node = _lookup(node, part)[1]
    return False


def has_path(doc: Any, path: str) -> bool:
    """True when every member of ``path`` is present (with a non-null value) in ``doc``."""
    node = doc
    for part in (p for p in path.split("/") if p):
        if not isinstance(node, dict):
            return False
        found, node = _lookup(node, part)
        if not found or node is None:
            return False
    return True
