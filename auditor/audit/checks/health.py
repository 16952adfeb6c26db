"""Health event checks: service issues in the region of an audited resource (HLT-002), events
affecting an audited subscription (HLT-003), and priority consistency (HLT-005).

**Decisions**: a region entry of an active event whose own ``status`` is ``Resolved`` no longer
counts as impacted. The audited subscriptions are those the snapshot knows: the ``hierarchy``'s
subscriptions and the subscriptions of clusters, domains, role assignments and health events (an
event is listed for the subscription its id starts with, contracts 2). An event affects the
subscription its id starts with and every subscription in its regions' ``impactedSubscriptions``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from auditor.audit.checks._registry import CheckContext, Outcome, resource_check, run_check
from auditor.audit.resources import Resource, ResourceKind

_SUBSCRIPTION = re.compile(r"^/subscriptions/([^/]+)", re.IGNORECASE)

TYPE_RANK = {"serviceissue": 0, "plannedmaintenance": 1, "healthadvisory": 2}
LEVEL_RANK = {"critical": 0, "error": 1, "warning": 2, "informational": 3}
STATUS_RANK = {"active": 0, "resolved": 1}


def region_key(region: Any) -> str:
    """``West Europe`` and ``westeurope`` compare equal: lower case, spaces removed."""
    return "".join(str(region).split()).lower() if region is not None else ""


def subscription_of(resource_id: str | None) -> str | None:
    m = _SUBSCRIPTION.match(resource_id or "")
    return m.group(1).lower() if m else None


def _is_active(event: Any) -> bool:
    return (event.properties.status or "").lower() == "active"


def _event_type(event: Any) -> str:
    return (event.properties.eventType or "").lower()


def impacted_regions(event: Any) -> list[str]:
    """Regions of an event that are still impacted (a region entry marked Resolved is not)."""
    out: list[str] = []
    for impact in event.properties.impact:
        for region in impact.impactedRegions:
            if (region.status or "").lower() == "resolved" or not region.impactedRegion:
                continue
            out.append(region.impactedRegion)
    return out


@run_check("service-issue-in-region")
def service_issue_in_region(ctx: CheckContext) -> Iterator[Outcome]:
    """HLT-002: an active ServiceIssue impacting the location of an audited cluster or domain."""
    issues = [
        r.model
        for r in ctx.resources.get("healthEvent", ())
        if _event_type(r.model) == "serviceissue" and _is_active(r.model)
    ]
    by_region: dict[str, list[tuple[Any, str]]] = {}
    for event in issues:
        for region in impacted_regions(event):
            by_region.setdefault(region_key(region), []).append((event, region))
    audited: Iterable[Resource] = [
        *ctx.resources.get("cluster", ()),
        *ctx.resources.get("domain", ()),
    ]
    for res in audited:
        location = res.doc.get("location")
        if not location:
            continue
        hits = by_region.get(region_key(location), [])
        seen: set[str] = set()
        for event, region in hits:
            if event.id in seen:
                continue
            seen.add(event.id or "")
            yield Outcome(
                False,
                {
                    "event": event.id,
                    "eventTitle": event.properties.title,
                    "impactedRegion": region,
                    "resourceLocation": location,
                },
                detail=f"event={event.id}",
                resource=res,
                fields={"title": event.properties.title or event.name, "region": region},
            )
        if not hits:
            yield Outcome(
                True, {"resourceLocation": location}, resource=res, fields={"region": location}
            )


def audited_subscriptions(ctx: CheckContext) -> set[str]:
    """Subscriptions the audited snapshot knows about (lower case ids)."""
    subs: set[str] = set()
    snap = ctx.snapshot
    if snap is None:
        return subs
    for entry in snap.hierarchy:
        sub = subscription_of(entry.id)
        if sub:
            subs.add(sub)
    kinds: tuple[ResourceKind, ...] = ("cluster", "domain", "healthEvent")
    for kind in kinds:
        for r in ctx.resources.get(kind, ()):
            sub = subscription_of(r.id)
            if sub:
                subs.add(sub)
    scopes = {a.properties.scope for a in snap.roleAssignments}
    for scope in scopes:
        sub = subscription_of(scope)
        if sub:
            subs.add(sub)
    return subs


def affected_subscriptions(event: Any) -> list[str]:
    out: list[str] = []
    own = subscription_of(event.id)
    if own:
        out.append(own)
    for impact in event.properties.impact:
        for region in impact.impactedRegions:
            for sub in region.impactedSubscriptions:
                key = sub.strip().lower()
                key = subscription_of(key) or key
                if key not in out:
                    out.append(key)
    return out


@run_check("event-affects-subscription")
def event_affects_subscription(ctx: CheckContext) -> Iterator[Outcome]:
    """HLT-003: an active ServiceIssue, PlannedMaintenance or HealthAdvisory affecting an audited
    subscription (one finding per event)."""
    audited = audited_subscriptions(ctx)
    for res in ctx.resources.get("healthEvent", ()):
        event = res.model
        if _event_type(event) not in TYPE_RANK:
            continue
        hit = [s for s in affected_subscriptions(event) if s in audited]
        fields = {
            "eventType": event.properties.eventType,
            "title": event.properties.title or event.name,
            "subscriptions": ", ".join(hit) if hit else "none",
        }
        evidence = {
            "eventType": event.properties.eventType,
            "status": event.properties.status,
            "affectedAuditedSubscriptions": hit,
        }
        yield Outcome(not (_is_active(event) and hit), evidence, resource=res, fields=fields)


def expected_priority(event_type: str | None, level: str | None, status: str | None) -> int | None:
    """``8*typeRank + 2*levelRank + statusRank`` (semantics 5), None when a part has no rank."""
    t = TYPE_RANK.get((event_type or "").lower())
    lv = LEVEL_RANK.get((level or "").lower())
    s = STATUS_RANK.get((status or "").lower())
    if t is None or lv is None or s is None:
        return None
    return 8 * t + 2 * lv + s


@resource_check("event-priority")
def event_priority(resource: Resource, ctx: CheckContext) -> Iterator[Outcome]:
    """HLT-005: ``priority`` within 0..23 and equal to the documented ordering where the event's
    type, level and status have ranks. Events without a priority are not judged."""
    p = resource.model.properties
    if p.priority is None:
        return
    expected = expected_priority(p.eventType, p.eventLevel, p.status)
    evidence = {
        "priority": p.priority,
        "expectedPriority": expected,
        "eventType": p.eventType,
        "eventLevel": p.eventLevel,
        "status": p.status,
    }
    fields = {"title": p.title or resource.name, "priority": p.priority}
    if not 0 <= p.priority <= 23:
        yield Outcome(False, evidence, fields={**fields, "problem": "lies outside 0..23"})
    elif expected is not None and expected != p.priority:
        yield Outcome(
            False,
            evidence,
            fields={
                **fields,
                "problem": f"disagrees with the documented ordering (expected {expected} for "
                f"{p.eventType}, {p.eventLevel}, {p.status})",
            },
        )
    else:
        yield Outcome(True, evidence, fields=fields)
