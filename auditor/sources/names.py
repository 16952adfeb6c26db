"""The vendor's real names and the seed's (contracts §8), in both directions, case-insensitively.

Provider namespaces: ``Microsoft.HDInsight`` is ``Cloud.AnalyticsCluster``, ``Microsoft.EventGrid`` is
``Cloud.EventRouting``, and any other ``Microsoft.X`` is ``Cloud.X``; the value ``EventGridSchema`` is
``EventRoutingSchema``. Ids, types, scopes and action strings are rewritten segment by segment, so a
namespace inside a longer path (``/subscriptions/s/providers/Microsoft.EventGrid/domains/d``) maps too.
"""

from __future__ import annotations

import re

__all__ = ["to_seed", "to_seed_value", "to_vendor"]

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
