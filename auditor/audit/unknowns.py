"""Values a rule needs that are not known before deployment: how a rule says ``unknown``.

A plan request read from a template may hold values that cannot be resolved before deployment (a
parameter without a value, ``reference()``, a Terraform attribute known after apply). The reader names
them in :attr:`~auditor.estate.plan.PlanRequest.unknowns` by their member path in the body; at such a
path the body holds null. Rules never read that placeholder as a value:

- a **predicate rule** whose predicate or evidence reads an unknown path (or a path inside or above
  one) is not evaluated: its finding is ``unknown``, with evidence ``{"unresolved": {path: text}}``;
  when only its ``appliesTo`` reads one, whether it applies is unknown, and so is its finding;
- a **named check** either says which body paths it reads (:data:`CHECK_READS`, and is then treated
  like a predicate rule) or handles unknown values itself (:data:`UNKNOWN_AWARE`, asking
  :func:`unknown_at`; e.g. a secret field holding a secret reference is fine for CLU-008 but its
  strength cannot be judged for CLU-010) and yields :func:`unknown_outcome` (an
  :class:`~auditor.audit.checks.Outcome` whose ``unknown`` says what was missing).

Paths compare case-insensitively; array indexes in an unknown path are ignored when matched against
a rule's paths (which cross arrays without indexes) and kept by :func:`unknown_at`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from auditor.audit.checks._registry import Outcome
    from auditor.audit.resources import Resource
    from auditor.estate.plan import UnknownInfo

_CONFIGURATIONS = "properties/clusterDefinition/configurations"

CHECK_READS: dict[str, tuple[str, ...]] = {
    "domain-open-to-internet": ("properties/publicNetworkAccess", "properties/inboundIpRules"),
    "inbound-ip-rules": ("properties/inboundIpRules",),
    "input-schema-mapping": ("properties/inputSchema", "properties/inputSchemaMapping"),
    "roles-in-virtual-network": ("properties/computeProfile/roles/virtualNetworkProfile",),
    "gateway-auth": (f"{_CONFIGURATIONS}/gateway/restAuthCredential.isEnabled",),
    "cluster-version": ("properties/clusterVersion",),
    "default-storage-account": ("properties/storageProfile/storageaccounts/isDefault",),
}
"""Body paths each named plan check reads: an unknown value at (or above, or inside) one of them
makes the check's finding ``unknown`` without running it."""

UNKNOWN_AWARE: frozenset[str] = frozenset(
    {
        "jdbc-tls",
        "literal-secrets",
        "weak-passwords",
        "node-password-login",
        "plan-api-version",
        "token-values",
        "access-change-privileged",
        "access-change-escalation",
        "access-change-last-administrator",
    }
)
"""Named plan checks that handle unknown values themselves (or read nothing a template leaves
unknown: the request's api-version, literal token values)."""


def split_path(path: str, *, indexes: bool = False) -> tuple[str, ...]:
    """``properties/computeProfile/roles/0/password`` as lower-case segments, without the array
    indexes unless ``indexes``."""
    return tuple(p.lower() for p in path.split("/") if p and (indexes or not p.isdigit()))


def _related(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """One path is the other or lies inside it."""
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def unresolved(reads: Iterable[str], unknowns: Mapping[str, UnknownInfo]) -> dict[str, str]:
    """The unknown paths (with their texts) that ``reads`` touch: equal, inside or above."""
    if not unknowns:
        return {}
    wanted = [split_path(r) for r in reads]
    out: dict[str, str] = {}
    for path, info in unknowns.items():
        parts = split_path(path)
        if any(_related(parts, w) for w in wanted):
            out[path] = info.text
    return out


def request_unknowns(resource: Resource | None) -> Mapping[str, UnknownInfo]:
    """The unknown values of the plan request ``resource`` came from (empty for anything else)."""
    request = resource.request if resource is not None else None
    return request.unknowns if request is not None else {}


def unknown_at(resource: Resource, path: str) -> UnknownInfo | None:
    """The unknown value at ``path`` of the resource's body (array indexes count), or at a path
    above it (an unknown object makes its members unknown); None when the value is known."""
    unknowns = request_unknowns(resource)
    if not unknowns:
        return None
    want = split_path(path, indexes=True)
    best: tuple[int, UnknownInfo] | None = None
    for p, info in unknowns.items():
        parts = split_path(p, indexes=True)
        if want[: len(parts)] == parts and (best is None or len(parts) > best[0]):
            best = (len(parts), info)
    return best[1] if best is not None else None


def unknowns_below(resource: Resource, path: str) -> dict[str, UnknownInfo]:
    """The unknown values at, above or inside ``path`` (array indexes ignored)."""
    want = split_path(path)
    return {
        p: info for p, info in request_unknowns(resource).items() if _related(split_path(p), want)
    }


def describe(unresolved_paths: Mapping[str, str]) -> str:
    """``properties/x is not known before deployment (text)`` for a message; several joined."""
    parts = [
        f"{path} is not known before deployment ({text})" for path, text in unresolved_paths.items()
    ]
    if len(parts) > 3:
        parts = [*parts[:3], f"{len(parts) - 3} more value(s) are not known"]
    return "; ".join(parts)


def unknown_outcome(
    unresolved_paths: Mapping[str, str],
    *,
    detail: str = "",
    location: str | None = None,
    evidence: Mapping[str, Any] | None = None,
) -> Outcome:
    """The ``unknown`` verdict for values that are not known: evidence
    ``{"unresolved": {path: text}}`` (plus ``evidence``), the message saying what was missing."""
    from auditor.audit.checks._registry import Outcome  # here: the checks import this module

    ev: dict[str, Any] = dict(evidence or {})
    ev["unresolved"] = dict(unresolved_paths)
    return Outcome(False, ev, detail=detail, location=location, unknown=describe(unresolved_paths))
