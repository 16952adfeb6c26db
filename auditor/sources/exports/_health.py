"""Health events as exports give them (contracts §8): the REST shape, the SDK's flattened shape
(no ``properties`` wrapper; ``as_dict()`` spells keys in snake_case, the CLI in camelCase),
tenant-relative ids, the ``0001-01-01T00:00:00`` sentinel, and one event listed once per impacted
service.

**Decisions**:

- The sentinel ``0001-01-01T00:00:00`` (the .NET ``DateTime.MinValue``, with or without ``Z`` or
  zero fractions) means "no value": the field is dropped, as if the API had left it out.
- A tenant-relative id (``Microsoft.ResourceHealth/events/X`` or ``/providers/...``) is made
  relative to what the event was listed for (contracts §2): the subscription or resource of the
  request URL in a HAR file or cassette; else, when every impact names one and the same
  subscription, that subscription; else it stays at the tenant (``/providers/Cloud.ResourceHealth/
  events/X``) and a note says so.
- Copies of one event (same id) that differ only in ``impact`` are one event whose impacts are the
  union of theirs (an impacted service listed twice is merged region by region, an identical
  region entry is kept once), never two events.
"""

from __future__ import annotations

import re
from typing import Any

from auditor.sources.names import to_seed

_SENTINEL = re.compile(r"^0001-01-01(?:[T ]00:00:00(?:\.0+)?)?(?:Z|[+-]00:?00)?$")
_SPECIAL_KEYS = {"is_hir": "isHIR"}
_ENVELOPE = frozenset({"id", "name", "type", "systemData"})


def camel(key: str) -> str:
    """``impact_start_time`` -> ``impactStartTime`` (``is_hir`` -> ``isHIR``); other keys kept."""
    if "_" not in key or key.startswith("_"):
        return key
    special = _SPECIAL_KEYS.get(key)
    if special is not None:
        return special
    head, *rest = key.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _camel_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {camel(k): _camel_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_camel_keys(v) for v in value]
    return value


def _drop_sentinels(value: Any) -> None:
    if isinstance(value, dict):
        for key in [k for k, v in value.items() if isinstance(v, str) and _SENTINEL.match(v)]:
            del value[key]
        for v in value.values():
            _drop_sentinels(v)
    elif isinstance(value, list):
        for v in value:
            _drop_sentinels(v)


def _single_subscription(props: dict[str, Any]) -> str | None:
    found: set[str] = set()
    impacts = props.get("impact")
    for impact in impacts if isinstance(impacts, list) else ():
        regions = impact.get("impactedRegions") if isinstance(impact, dict) else None
        for region in regions if isinstance(regions, list) else ():
            subs = region.get("impactedSubscriptions") if isinstance(region, dict) else None
            for sub in subs if isinstance(subs, list) else ():
                if isinstance(sub, str) and sub.strip():
                    found.add(sub.strip().rstrip("/").rsplit("/", 1)[-1].lower())
    if len(found) != 1:
        return None
    return f"/subscriptions/{found.pop()}"


def event_doc(obj: dict[str, Any], flat: bool, listed_in: str | None) -> tuple[dict[str, Any], str]:
    """The event in the REST shape and the seed's names for its id and type, sentinels dropped;
    and a note ("" when none) when its id had to stay at the tenant."""
    if flat:
        obj = _camel_keys(obj)
        doc: dict[str, Any] = {k: v for k, v in obj.items() if k in _ENVELOPE}
        doc["properties"] = {k: v for k, v in obj.items() if k not in _ENVELOPE}
    else:
        doc = dict(obj)
    props = doc.get("properties")
    if isinstance(props, dict):
        props = doc["properties"] = dict(props)
        _drop_sentinels(props)
    else:
        props = {}
    note = ""
    raw_id = doc.get("id")
    if not isinstance(raw_id, str) or not raw_id.strip():
        name = doc.get("name")
        raw_id = f"/providers/Cloud.ResourceHealth/events/{name}" if isinstance(name, str) else None
    if isinstance(raw_id, str):
        event_id = to_seed(raw_id.strip())
        if not event_id.lower().startswith("/subscriptions/"):
            tail = "/" + event_id.lstrip("/")
            if not tail.lower().startswith("/providers/"):
                tail = "/providers" + tail
            owner = (listed_in or "").rstrip("/") or _single_subscription(props)
            if owner:
                event_id = to_seed(owner) + tail
            else:
                event_id = tail
                note = (
                    "a tenant-relative health event id stays at the tenant (no request URL and "
                    "no single impacted subscription says what it was listed for)"
                )
        doc["id"] = event_id
    if isinstance(doc.get("type"), str):
        doc["type"] = to_seed(doc["type"])
    return doc, note


def _key(value: Any, field: str) -> str:
    text = value.get(field) if isinstance(value, dict) else None
    return "".join(str(text).split()).lower() if text is not None else ""


def _union(mine: list[Any], theirs: list[Any], field: str, inner: str | None) -> list[Any]:
    out = list(mine)
    for item in theirs:
        if item in out:
            continue
        key = _key(item, field)
        match = next(
            (i for i, x in enumerate(out) if key and _key(x, field) == key and isinstance(x, dict)),
            None,
        )
        if match is None or inner is None or not isinstance(item, dict):
            out.append(item)
            continue
        merged = dict(out[match])
        a, b = merged.get(inner), item.get(inner)
        if isinstance(a, list) and isinstance(b, list):
            merged[inner] = _union(a, b, "impactedRegion", None)
            out[match] = merged
        else:
            out.append(item)
    return out


def union_impacts(kept: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """``kept`` with the impacts of ``other`` added (by impacted service, then region)."""
    a = kept.get("properties")
    b = other.get("properties")
    if not isinstance(a, dict) or not isinstance(b, dict):
        return kept
    mine, theirs = a.get("impact"), b.get("impact")
    if not isinstance(theirs, list) or not theirs:
        return kept
    impacts = _union(
        mine if isinstance(mine, list) else [], theirs, "impactedService", "impactedRegions"
    )
    return {**kept, "properties": {**a, "impact": impacts}}


def without_impact(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` without its impacts (to compare two copies of one event)."""
    props = doc.get("properties")
    if not isinstance(props, dict):
        return doc
    return {**doc, "properties": {k: v for k, v in props.items() if k != "impact"}}
