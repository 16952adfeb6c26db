"""The vendor's real names and the seed's (contracts §8), in both directions, case-insensitively.

Provider namespaces: ``Microsoft.HDInsight`` is ``Cloud.AnalyticsCluster``, ``Microsoft.EventGrid`` is
``Cloud.EventRouting``, and any other ``Microsoft.X`` is ``Cloud.X``; the value ``EventGridSchema`` is
``EventRoutingSchema``. Ids, types, scopes and action strings are rewritten segment by segment, so a
namespace inside a longer path (``/subscriptions/s/providers/Microsoft.EventGrid/domains/d``) maps too.

:data:`VENDOR_API_VERSIONS` is the vendor's api-version of each operation of areas A to D, keyed as
the seed's (``auditor.model.defaults.SEED_API_VERSIONS``): what ``collect --namespace vendor`` sends
and ``sandbox serve --namespace vendor`` accepts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

__all__ = [
    "VENDOR_API_VERSIONS",
    "operation_of",
    "seed_api_version",
    "to_seed",
    "to_seed_value",
    "to_vendor",
    "to_vendor_value",
    "vendor_api_version",
]

VENDOR_API_VERSIONS: Final[Mapping[str, str]] = MappingProxyType(
    {
        # Microsoft.Authorization: GA 2022-04-01 (role and deny assignments)
        "denyAssignments.list": "2022-04-01",
        "roleAssignments.list": "2022-04-01",
        # Microsoft.HDInsight clusters: GA 2021-06-01 (the latest stable; later ones are previews)
        "clusters.create": "2021-06-01",
        # Microsoft.EventGrid domains: GA 2025-02-15 (2022-06-15 before it)
        "domains.createOrUpdate": "2025-02-15",
        # Microsoft.ResourceHealth events: GA 2024-02-01 (listBySubscriptionId, listBySingleResource)
        "healthEvents.list": "2024-02-01",
    }
)
"""The vendor's api-version of each operation (the vendor's REST reference, checked 2026-11). They
equal the seed's today (seed 9 took the vendor's); a vendor version that moves on is changed here
only, and :func:`seed_api_version` / :func:`vendor_api_version` translate between the two."""

_VENDOR_TO_SEED: dict[str, str] = {
    "microsoft.hdinsight": "Cloud.AnalyticsCluster",
    "microsoft.eventgrid": "Cloud.EventRouting",
}
_SEED_TO_VENDOR: dict[str, str] = {
    "cloud.analyticscluster": "Microsoft.HDInsight",
    "cloud.eventrouting": "Microsoft.EventGrid",
}
_VALUES_TO_SEED: dict[str, str] = {"eventgridschema": "EventRoutingSchema"}
_VALUES_TO_VENDOR: dict[str, str] = {"eventroutingschema": "EventGridSchema"}

_VENDOR_NS = re.compile(r"(?<![A-Za-z0-9_])Microsoft\.([A-Za-z][A-Za-z0-9]*)", re.IGNORECASE)
_SEED_NS = re.compile(r"(?<![A-Za-z0-9_])Cloud\.([A-Za-z][A-Za-z0-9]*)", re.IGNORECASE)


def _seed_namespace(match: re.Match[str]) -> str:
    whole = match.group(0)
    return _VENDOR_TO_SEED.get(whole.lower(), f"Cloud.{match.group(1)}")


def _vendor_namespace(match: re.Match[str]) -> str:
    whole = match.group(0)
    return _SEED_TO_VENDOR.get(whole.lower(), f"Microsoft.{match.group(1)}")


def to_seed(text: str) -> str:
    """``text`` (an id, type, scope or action) with every vendor namespace in the seed's name."""
    if "icrosoft." not in text and "ICROSOFT." not in text.upper():
        return text
    return _VENDOR_NS.sub(_seed_namespace, text)


def to_vendor(text: str) -> str:
    """``text`` with every seed namespace in the vendor's name (the inverse of :func:`to_seed`)."""
    if "loud." not in text.lower():
        return text
    return _SEED_NS.sub(_vendor_namespace, text)


def to_seed_value(value: str) -> str:
    """An enumeration value in the seed's spelling (``EventGridSchema`` -> ``EventRoutingSchema``)."""
    return _VALUES_TO_SEED.get(value.lower(), value)


def to_vendor_value(value: str) -> str:
    """An enumeration value in the vendor's spelling (``EventRoutingSchema`` -> ``EventGridSchema``)."""
    return _VALUES_TO_VENDOR.get(value.lower(), value)


def vendor_api_version(operation: str, seed_version: str) -> str:
    """The vendor's api-version of ``operation`` (a key of :data:`VENDOR_API_VERSIONS`), else
    ``seed_version``."""
    return VENDOR_API_VERSIONS.get(operation, seed_version)


_OPERATIONS_BY_COLLECTION: dict[str, str] = {
    "cloud.authorization/denyassignments": "denyAssignments.list",
    "cloud.authorization/roleassignments": "roleAssignments.list",
    "cloud.analyticscluster/clusters": "clusters.create",
    "cloud.eventrouting/domains": "domains.createOrUpdate",
    "cloud.resourcehealth/events": "healthEvents.list",
}
_PROVIDER_COLLECTION = re.compile(r"/providers/(Cloud\.[A-Za-z0-9]+/[A-Za-z]+)", re.IGNORECASE)


def operation_of(path: str) -> str | None:
    """The key of :data:`VENDOR_API_VERSIONS` for a request path in the seed's names (its last
    ``/providers/Cloud.X/collection``), None for a path of no such operation."""
    found = _PROVIDER_COLLECTION.findall(path)
    return _OPERATIONS_BY_COLLECTION.get(found[-1].lower()) if found else None


def seed_api_version(operation: str, vendor_version: str, seed_version: str) -> str:
    """The seed's api-version (``seed_version``) when ``vendor_version`` is the vendor's version of
    ``operation``; else ``vendor_version`` as given (the API then refuses it)."""
    if VENDOR_API_VERSIONS.get(operation) == vendor_version:
        return seed_version
    return vendor_version
