"""Area C of the seed: the event-routing domain create request and the Domain response (section
2.C).

Defaults (``publicNetworkAccess`` Enabled, the auto-* flags true, ...) are not applied here: the
models hold what was on the wire; :func:`auditor.model.defaults.domain_with_defaults` gives the
effective form.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from auditor.model._base import WireModel
from auditor.model.common import SystemData

DOMAIN_RESOURCE_TYPE = "Cloud.EventRouting/domains"


class DataResidencyBoundary(StrEnum):
    WITHIN_GEOPAIR = "WithinGeopair"
    WITHIN_REGION = "WithinRegion"


class InputSchema(StrEnum):
    CLOUD_EVENT_SCHEMA_V1_0 = "CloudEventSchemaV1_0"
    CUSTOM_EVENT_SCHEMA = "CustomEventSchema"
    EVENT_ROUTING_SCHEMA = "EventRoutingSchema"


class TlsVersion(StrEnum):
    TLS_1_0 = "1.0"
    TLS_1_1 = "1.1"
    TLS_1_2 = "1.2"


class PublicNetworkAccess(StrEnum):
    ENABLED = "Enabled"
    DISABLED = "Disabled"


class IpActionType(StrEnum):
    ALLOW = "Allow"


class IdentityType(StrEnum):
    """``identity.type``; ``None`` removes any identity."""

    NONE = "None"
    SYSTEM_ASSIGNED = "SystemAssigned"
    SYSTEM_ASSIGNED_USER_ASSIGNED = "SystemAssigned, UserAssigned"
    USER_ASSIGNED = "UserAssigned"


class DomainProvisioningState(StrEnum):
    CANCELED = "Canceled"
    CREATING = "Creating"
    DELETING = "Deleting"
    FAILED = "Failed"
    SUCCEEDED = "Succeeded"
    UPDATING = "Updating"


class ResourceProvisioningState(StrEnum):
    """Provisioning state of a private endpoint connection (seed 2.C, 3)."""

    CANCELED = "Canceled"
    CREATING = "Creating"
    DELETING = "Deleting"
    FAILED = "Failed"
    SUCCEEDED = "Succeeded"
    UPDATING = "Updating"


class PersistedConnectionStatus(StrEnum):
    APPROVED = "Approved"
    DISCONNECTED = "Disconnected"
    PENDING = "Pending"
    REJECTED = "Rejected"


class EventDefinitionKind(StrEnum):
    INLINE = "Inline"


class InputSchemaMappingType(StrEnum):
    JSON = "Json"


class UserIdentityProperties(WireModel):
    clientId: str | None = None
    principalId: str | None = None


class IdentityInfo(WireModel):
    """``identity``; ``userAssignedIdentities`` is reserved and currently unused (seed 2.C)."""

    type: str | None = None
    principalId: str | None = None
    tenantId: str | None = None
    userAssignedIdentities: dict[str, UserIdentityProperties] | None = None


class InboundIpRule(WireModel):
    """``ipMask`` in CIDR notation; ``action`` Allow (seed 2.C)."""

    ipMask: str | None = None
    action: str | None = None


class InlineEventProperties(WireModel):
    dataSchemaUrl: str | None = None
    description: str | None = None
    displayName: str | None = None
    documentationUrl: str | None = None


class EventTypeInfo(WireModel):
    kind: str | None = None
    inlineEventTypes: dict[str, InlineEventProperties] | None = None


class JsonField(WireModel):
    sourceField: str | None = None


class JsonFieldWithDefault(WireModel):
    """At least one field should be given; "neither" is an audit finding (DOM-009), not an input
    error, so both are optional here."""

    sourceField: str | None = None
    defaultValue: str | None = None


class JsonInputSchemaMappingProperties(WireModel):
    id: JsonField | None = None
    eventTime: JsonField | None = None
    topic: JsonField | None = None
    subject: JsonFieldWithDefault | None = None
    eventType: JsonFieldWithDefault | None = None
    dataVersion: JsonFieldWithDefault | None = None


class JsonInputSchemaMapping(WireModel):
    """``inputSchemaMapping`` (``inputSchemaMappingType`` is the constant ``Json``)."""

    inputSchemaMappingType: str | None = None
    properties: JsonInputSchemaMappingProperties = Field(
        default_factory=JsonInputSchemaMappingProperties
    )


class PrivateEndpoint(WireModel):
    id: str | None = None


class PrivateLinkServiceConnectionState(WireModel):
    actionsRequired: str | None = None
    description: str | None = None
    status: str | None = None


class PrivateEndpointConnectionProperties(WireModel):
    groupIds: list[str] = Field(default_factory=list)
    privateEndpoint: PrivateEndpoint | None = None
    privateLinkServiceConnectionState: PrivateLinkServiceConnectionState | None = None
    provisioningState: str | None = None


class PrivateEndpointConnection(WireModel):
    id: str | None = None
    name: str | None = None
    type: str | None = None
    properties: PrivateEndpointConnectionProperties = Field(
        default_factory=PrivateEndpointConnectionProperties
    )


class DomainProperties(WireModel):
    """Domain ``properties``: every create property (seed 2.C table, defaults not applied) and the
    response-only ``endpoint``, ``metricResourceId``, ``privateEndpointConnections`` and
    ``provisioningState``. The auto-* flags may be JSON null (treated as true)."""

    autoCreateTopicWithFirstSubscription: bool | None = None
    autoDeleteTopicWithLastSubscription: bool | None = None
    dataResidencyBoundary: str | None = None
    disableLocalAuth: bool | None = None
    eventTypeInfo: EventTypeInfo | None = None
    inboundIpRules: list[InboundIpRule] = Field(default_factory=list)
    inputSchema: str | None = None
    inputSchemaMapping: JsonInputSchemaMapping | None = None
    minimumTlsVersionAllowed: str | None = None
    publicNetworkAccess: str | None = None
    endpoint: str | None = None
    metricResourceId: str | None = None
    privateEndpointConnections: list[PrivateEndpointConnection] = Field(default_factory=list)
    provisioningState: str | None = None


class DomainCreateRequest(WireModel):
    """The body of the domain create-or-update PUT (seed 2.C, 4.4); ``location`` is required."""

    location: str
    tags: dict[str, str] | None = None
    identity: IdentityInfo | None = None
    properties: DomainProperties = Field(default_factory=DomainProperties)


class Domain(WireModel):
    """The Domain response (seed 2.C) as kept in a snapshot (contracts 2)."""

    id: str | None = None
    name: str | None = None
    type: str | None = None
    location: str | None = None
    tags: dict[str, str] | None = None
    identity: IdentityInfo | None = None
    systemData: SystemData | None = None
    properties: DomainProperties = Field(default_factory=DomainProperties)
