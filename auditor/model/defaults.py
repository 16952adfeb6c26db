"""The seed's defaults in one place, and the *effective* configuration that rules run on.

Domain (seed 2.C): ``autoCreateTopicWithFirstSubscription`` and
``autoDeleteTopicWithLastSubscription`` true (null counts as true), ``disableLocalAuth`` false,
``inputSchema`` EventRoutingSchema, ``publicNetworkAccess`` Enabled. Role assignment (2.A):
``principalType`` User. Deny assignment (2.A): ``doNotApplyToChildScopes`` false. Cluster: the
seed documents none; the public API of the seed's api-version (2021-06-01) documents ``tier``
Standard and false for ``enableComputeIsolation``, ``encryptionAtHost`` and
``isEncryptionInTransitEnabled``.

**Decision**: a JSON null for a defaulted field counts as "not given" and takes the default (the
seed says so for the auto-create flag; the server treats every null property alike, and reading a
null ``publicNetworkAccess`` as Enabled is the safe side).

The functions work on wire JSON dicts (a create body or a response; ``properties.*``) and never
mutate their input.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

DOMAIN_PROPERTY_DEFAULTS: Final[Mapping[str, Any]] = MappingProxyType(
    {
        "autoCreateTopicWithFirstSubscription": True,
        "autoDeleteTopicWithLastSubscription": True,
        "disableLocalAuth": False,
        "inputSchema": "EventRoutingSchema",
        "publicNetworkAccess": "Enabled",
    }
)
"""Seed 2.C, ``properties.*`` of a domain."""

ROLE_ASSIGNMENT_PROPERTY_DEFAULTS: Final[Mapping[str, Any]] = MappingProxyType(
    {"principalType": "User"}
)
"""Seed 2.A, ``properties.*`` of a role assignment."""

DENY_ASSIGNMENT_PROPERTY_DEFAULTS: Final[Mapping[str, Any]] = MappingProxyType(
    {"doNotApplyToChildScopes": False}
)
"""Seed 2.A, ``properties.*`` of a deny assignment."""

CLUSTER_PROPERTY_DEFAULTS: Final[Mapping[str, Any]] = MappingProxyType({"tier": "Standard"})
"""``properties.*`` of a cluster: public API 2021-06-01 (not in the seed)."""

CLUSTER_SUBOBJECT_DEFAULTS: Final[Mapping[str, Mapping[str, Any]]] = MappingProxyType(
    {
        "computeIsolationProperties": MappingProxyType({"enableComputeIsolation": False}),
        "diskEncryptionProperties": MappingProxyType({"encryptionAtHost": False}),
        "encryptionInTransitProperties": MappingProxyType({"isEncryptionInTransitEnabled": False}),
    }
)
"""``properties.<object>.*`` of a cluster: public API 2021-06-01 (not in the seed)."""

SEED_API_VERSIONS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "denyAssignments.list": "2022-04-01",
        "roleAssignments.list": "2022-04-01",
        "clusters.create": "2021-06-01",
        "domains.createOrUpdate": "2025-02-15",
        "healthEvents.list": "2024-02-01",
    }
)
"""The api-version of each operation of areas A to D (seed 9); ``healthEvents.list`` covers 4.5 and
4.6."""


def _copy_json(value: Any) -> Any:
    """A copy of the dicts and lists of a JSON-like value (leaves are shared, being immutable)."""
    if isinstance(value, dict):
        return {k: _copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy_json(v) for v in value]
    return value


def _fill(target: dict[str, Any], defaults: Mapping[str, Any]) -> None:
    for key, default in defaults.items():
        if target.get(key) is None:
            target[key] = _copy_json(default)


def _with_property_defaults(body: Mapping[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = _copy_json(dict(body))
    props = out.get("properties")
    if props is None:
        props = out["properties"] = {}
    if isinstance(props, dict):
        _fill(props, defaults)
    return out


def domain_with_defaults(body: Mapping[str, Any]) -> dict[str, Any]:
    """The effective domain (create body or Domain response JSON): seed 2.C defaults filled in,
    null auto-* flags made true. A ``properties`` that is not an object is left for validation."""
    return _with_property_defaults(body, DOMAIN_PROPERTY_DEFAULTS)


def cluster_with_defaults(body: Mapping[str, Any]) -> dict[str, Any]:
    """The effective cluster (create body or Cluster response JSON): ``tier`` Standard and the three
    documented false flags (see the module docstring); a missing or null sub-object is created."""
    out = _with_property_defaults(body, CLUSTER_PROPERTY_DEFAULTS)
    props = out.get("properties")
    if isinstance(props, dict):
        for name, defaults in CLUSTER_SUBOBJECT_DEFAULTS.items():
            sub = props.get(name)
            if sub is None:
                sub = props[name] = {}
            if isinstance(sub, dict):
                _fill(sub, defaults)
    return out


def role_assignment_with_defaults(body: Mapping[str, Any]) -> dict[str, Any]:
    """The effective role assignment JSON: ``properties.principalType`` User if missing or null."""
    return _with_property_defaults(body, ROLE_ASSIGNMENT_PROPERTY_DEFAULTS)


def deny_assignment_with_defaults(body: Mapping[str, Any]) -> dict[str, Any]:
    """The effective deny assignment JSON: ``properties.doNotApplyToChildScopes`` false when
    missing or null."""
    return _with_property_defaults(body, DENY_ASSIGNMENT_PROPERTY_DEFAULTS)


def role_assignment_principal_type(value: str | None) -> str:
    """``principalType`` with its seed default: User when not given (seed 2.A)."""
    if value is None:
        return str(ROLE_ASSIGNMENT_PROPERTY_DEFAULTS["principalType"])
    return value


def deny_do_not_apply_to_child_scopes(value: bool | None) -> bool:
    """``doNotApplyToChildScopes`` with its seed default: false when not given (seed 2.A)."""
    if value is None:
        return bool(DENY_ASSIGNMENT_PROPERTY_DEFAULTS["doNotApplyToChildScopes"])
    return value
