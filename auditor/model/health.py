"""Area D of the seed: service health events and their list result (section 2.D)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import Field

from auditor.model._base import WireModel
from auditor.model.common import SystemData

HEALTH_EVENT_RESOURCE_TYPE = "Cloud.ResourceHealth/events"


class EventTypeValues(StrEnum):
    EMERGING_ISSUES = "EmergingIssues"
    HEALTH_ADVISORY = "HealthAdvisory"
    PLANNED_MAINTENANCE = "PlannedMaintenance"
    RCA = "RCA"
    SECURITY_ADVISORY = "SecurityAdvisory"
    SERVICE_ISSUE = "ServiceIssue"


class EventSourceValues(StrEnum):
    RESOURCE_HEALTH = "ResourceHealth"
    SERVICE_HEALTH = "ServiceHealth"


class EventStatusValues(StrEnum):
    ACTIVE = "Active"
    RESOLVED = "Resolved"


class EventLevelValues(StrEnum):
    CRITICAL = "Critical"
    ERROR = "Error"
    INFORMATIONAL = "Informational"
    WARNING = "Warning"


class LevelValues(StrEnum):
    CRITICAL = "Critical"
    WARNING = "Warning"


class LinkTypeValues(StrEnum):
    BUTTON = "Button"
    HYPERLINK = "Hyperlink"


class EventArticle(WireModel):
    articleContent: str | None = None
    articleId: str | None = None
    parameters: dict[str, Any] | None = None


class EventAdditionalInformation(WireModel):
    message: str | None = None


class EventLinkDisplayText(WireModel):
    value: str | None = None
    localizedValue: str | None = None


class EventLink(WireModel):
    type: str | None = None
    displayText: EventLinkDisplayText | None = None
    extensionName: str | None = None
    bladeName: str | None = None
    parameters: dict[str, Any] | None = None


class EventUpdate(WireModel):
    summary: str | None = None
    updateDateTime: str | None = None


class ImpactedServiceRegion(WireModel):
    """An element of ``impact[].impactedRegions``; ``status`` is an EventStatusValues."""

    impactedRegion: str | None = None
    status: str | None = None
    impactedSubscriptions: list[str] = Field(default_factory=list)
    impactedTenants: list[str] = Field(default_factory=list)
    lastUpdateTime: str | None = None
    updates: list[EventUpdate] = Field(default_factory=list)


class EventImpact(WireModel):
    impactedService: str | None = None
    impactedServiceGuid: str | None = None
    impactedRegions: list[ImpactedServiceRegion] = Field(default_factory=list)


class RecommendedAction(WireModel):
    groupId: int | None = None
    actionText: str | None = None


class RecommendedActions(WireModel):
    message: str | None = None
    localeCode: str | None = None
    actions: list[RecommendedAction] = Field(default_factory=list)


class EventFaq(WireModel):
    question: str | None = None
    answer: str | None = None
    localeCode: str | None = None


class HealthEventProperties(WireModel):
    """``properties`` of a health event (seed 2.D table). ``priority`` is kept as given, even
    outside 0..23 (HLT-005 reports it)."""

    eventType: str | None = None
    eventSource: str | None = None
    status: str | None = None
    eventLevel: str | None = None
    level: str | None = None
    title: str | None = None
    summary: str | None = None
    header: str | None = None
    description: str | None = None
    article: EventArticle | None = None
    additionalInformation: EventAdditionalInformation | None = None
    links: list[EventLink] = Field(default_factory=list)
    impactStartTime: str | None = None
    impactMitigationTime: str | None = None
    lastUpdateTime: str | None = None
    duration: int | None = None
    impact: list[EventImpact] = Field(default_factory=list)
    recommendedActions: RecommendedActions | None = None
    faqs: list[EventFaq] = Field(default_factory=list)
    isHIR: bool | None = None
    hirStage: str | None = None
    enableMicrosoftSupport: bool | None = None
    enableChatWithUs: bool | None = None
    platformInitiated: bool | None = None
    priority: int | None = None
    externalIncidentId: str | None = None
    reason: str | None = None
    impactType: str | None = None


class HealthEvent(WireModel):
    """A service health event (seed 2.D); in a snapshot its id starts with the subscription or
    resource it was listed for (contracts 2)."""

    id: str | None = None
    name: str | None = None
    type: str | None = None
    systemData: SystemData | None = None
    properties: HealthEventProperties = Field(default_factory=HealthEventProperties)


class HealthEventListResult(WireModel):
    """The events list result of endpoints 4.5 and 4.6."""

    value: list[HealthEvent] = Field(default_factory=list)
    nextLink: str | None = None
