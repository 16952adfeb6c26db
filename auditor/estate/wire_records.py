"""msgspec mirrors of the pydantic wire models of a snapshot's small sections (role definitions,
clusters, domains, health events, developer tooling): generated from :mod:`auditor.model` by
``tests/startup_mirrors.py --write`` (a test checks they are up to date). Never edit by hand.

They validate a small snapshot without pydantic (:mod:`auditor.estate.light`) and are narrower than
the models: an unknown field, a number out of 64 bits or an open map nested deeper than two levels
is refused (the full loader then reads the snapshot), so what they accept the models accept. The
access engine reads role definitions from them; every other consumer gets the wire models.
"""

import msgspec

# No ``from __future__ import annotations``: msgspec reads real annotations without evaluating a
# string per field (about 5 ms of a question's start-up); each class comes after those it names.

_Scalar = str | int | bool | None
_Json = str | int | bool | None | list[_Scalar] | dict[str, _Scalar]
"""A value of an open map (``dict[str, Any]`` in a model): two levels at most."""


class _Mirror(msgspec.Struct, forbid_unknown_fields=True):
    """A wire model's fields, with its types and defaults; no unknown field."""


class RolePermissionRecord(_Mirror):
    """Mirror of :class:`auditor.model.access.RolePermission`."""

    actions: list[str] = msgspec.field(default_factory=list)
    notActions: list[str] = msgspec.field(default_factory=list)
    dataActions: list[str] = msgspec.field(default_factory=list)
    notDataActions: list[str] = msgspec.field(default_factory=list)
    condition: str | None = None
    conditionVersion: str | None = None


class RoleDefinitionPropertiesRecord(_Mirror):
    """Mirror of :class:`auditor.model.access.RoleDefinitionProperties`."""

    roleName: str | None = None
    type: str | None = None
    description: str | None = None
    assignableScopes: list[str] = msgspec.field(default_factory=list)
    permissions: list[RolePermissionRecord] = msgspec.field(default_factory=list)


class RoleDefinitionRecord(_Mirror):
    """Mirror of :class:`auditor.model.access.RoleDefinition`."""

    id: str | None = None
    name: str | None = None
    type: str | None = None
    properties: RoleDefinitionPropertiesRecord = msgspec.field(
        default_factory=RoleDefinitionPropertiesRecord
    )


class ClusterIdentityRecord(_Mirror):
    """Mirror of :class:`auditor.model.cluster.ClusterIdentity`."""


class ClusterDefinitionRecord(_Mirror):
    """Mirror of :class:`auditor.model.cluster.ClusterDefinition`."""

    kind: str | None = None
    configurations: dict[str, _Json] | None = None
    blueprint: str | None = None
    componentVersion: dict[str, str] | None = None


class HardwareProfileRecord(_Mirror):
    """Mirror of :class:`auditor.model.cluster.HardwareProfile`."""

    vmSize: str | None = None


class SshPublicKeyRecord(_Mirror):
    """Mirror of :class:`auditor.model.cluster.SshPublicKey`."""

    certificateData: str | None = None


class SshProfileRecord(_Mirror):
    """Mirror of :class:`auditor.model.cluster.SshProfile`."""

    publicKeys: list[SshPublicKeyRecord] = msgspec.field(default_factory=list)


class LinuxOperatingSystemProfileRecord(_Mirror):
    """Mirror of :class:`auditor.model.cluster.LinuxOperatingSystemProfile`."""

    username: str | None = None
    password: str | None = None
    sshProfile: SshProfileRecord | None = None


class OsProfileRecord(_Mirror):
    """Mirror of :class:`auditor.model.cluster.OsProfile`."""

    linuxOperatingSystemProfile: LinuxOperatingSystemProfileRecord | None = None


class VirtualNetworkProfileRecord(_Mirror):
    """Mirror of :class:`auditor.model.cluster.VirtualNetworkProfile`."""

    id: str | None = None
    subnet: str | None = None


class ClusterRoleRecord(_Mirror):
    """Mirror of :class:`auditor.model.cluster.ClusterRole`."""

    name: str | None = None
    targetInstanceCount: int | None = None
    hardwareProfile: HardwareProfileRecord | None = None
    osProfile: OsProfileRecord | None = None
    virtualNetworkProfile: VirtualNetworkProfileRecord | None = None


class ComputeProfileRecord(_Mirror):
    """Mirror of :class:`auditor.model.cluster.ComputeProfile`."""

    roles: list[ClusterRoleRecord] = msgspec.field(default_factory=list)


class StorageAccountRecord(_Mirror):
    """Mirror of :class:`auditor.model.cluster.StorageAccount`."""

    name: str | None = None
    isDefault: bool | None = None
    container: str | None = None
    key: str | None = None


class StorageProfileRecord(_Mirror):
    """Mirror of :class:`auditor.model.cluster.StorageProfile`."""

    storageaccounts: list[StorageAccountRecord] = msgspec.field(default_factory=list)


class QuotaInfoRecord(_Mirror):
    """Mirror of :class:`auditor.model.cluster.QuotaInfo`."""

    coresUsed: int | None = None


class ConnectivityEndpointRecord(_Mirror):
    """Mirror of :class:`auditor.model.cluster.ConnectivityEndpoint`."""

    name: str | None = None
    protocol: str | None = None
    location: str | None = None
    port: int | None = None


class NetworkPropertiesRecord(_Mirror):
    """Mirror of :class:`auditor.model.cluster.NetworkProperties`."""

    resourceProviderConnection: str | None = None
    privateLink: str | None = None


class ComputeIsolationPropertiesRecord(_Mirror):
    """Mirror of :class:`auditor.model.cluster.ComputeIsolationProperties`."""

    enableComputeIsolation: bool | None = None
    hostSku: str | None = None


class EncryptionInTransitPropertiesRecord(_Mirror):
    """Mirror of :class:`auditor.model.cluster.EncryptionInTransitProperties`."""

    isEncryptionInTransitEnabled: bool | None = None


class DiskEncryptionPropertiesRecord(_Mirror):
    """Mirror of :class:`auditor.model.cluster.DiskEncryptionProperties`."""

    encryptionAtHost: bool | None = None
    vaultUri: str | None = None
    keyName: str | None = None
    keyVersion: str | None = None
    encryptionAlgorithm: str | None = None
    msiResourceId: str | None = None


class ClusterPropertiesRecord(_Mirror):
    """Mirror of :class:`auditor.model.cluster.ClusterProperties`."""

    clusterVersion: str | None = None
    osType: str | None = None
    clusterId: str | None = None
    clusterDefinition: ClusterDefinitionRecord | None = None
    computeProfile: ComputeProfileRecord | None = None
    storageProfile: StorageProfileRecord | None = None
    provisioningState: str | None = None
    clusterState: str | None = None
    createdDate: str | None = None
    quotaInfo: QuotaInfoRecord | None = None
    connectivityEndpoints: list[ConnectivityEndpointRecord] = msgspec.field(default_factory=list)
    tier: str | None = None
    networkProperties: NetworkPropertiesRecord | None = None
    computeIsolationProperties: ComputeIsolationPropertiesRecord | None = None
    encryptionInTransitProperties: EncryptionInTransitPropertiesRecord | None = None
    diskEncryptionProperties: DiskEncryptionPropertiesRecord | None = None


class ClusterRecord(_Mirror):
    """Mirror of :class:`auditor.model.cluster.Cluster`."""

    id: str | None = None
    name: str | None = None
    type: str | None = None
    location: str | None = None
    etag: str | None = None
    tags: dict[str, str] | None = None
    zones: list[str] = msgspec.field(default_factory=list)
    identity: ClusterIdentityRecord | None = None
    properties: ClusterPropertiesRecord = msgspec.field(default_factory=ClusterPropertiesRecord)


class UserIdentityPropertiesRecord(_Mirror):
    """Mirror of :class:`auditor.model.domain.UserIdentityProperties`."""

    clientId: str | None = None
    principalId: str | None = None


class IdentityInfoRecord(_Mirror):
    """Mirror of :class:`auditor.model.domain.IdentityInfo`."""

    type: str | None = None
    principalId: str | None = None
    tenantId: str | None = None
    userAssignedIdentities: dict[str, UserIdentityPropertiesRecord] | None = None


class SystemDataRecord(_Mirror):
    """Mirror of :class:`auditor.model.common.SystemData`."""

    createdAt: str | None = None
    createdBy: str | None = None
    createdByType: str | None = None
    lastModifiedAt: str | None = None
    lastModifiedBy: str | None = None
    lastModifiedByType: str | None = None


class InlineEventPropertiesRecord(_Mirror):
    """Mirror of :class:`auditor.model.domain.InlineEventProperties`."""

    dataSchemaUrl: str | None = None
    description: str | None = None
    displayName: str | None = None
    documentationUrl: str | None = None


class EventTypeInfoRecord(_Mirror):
    """Mirror of :class:`auditor.model.domain.EventTypeInfo`."""

    kind: str | None = None
    inlineEventTypes: dict[str, InlineEventPropertiesRecord] | None = None


class InboundIpRuleRecord(_Mirror):
    """Mirror of :class:`auditor.model.domain.InboundIpRule`."""

    ipMask: str | None = None
    action: str | None = None


class JsonFieldRecord(_Mirror):
    """Mirror of :class:`auditor.model.domain.JsonField`."""

    sourceField: str | None = None


class JsonFieldWithDefaultRecord(_Mirror):
    """Mirror of :class:`auditor.model.domain.JsonFieldWithDefault`."""

    sourceField: str | None = None
    defaultValue: str | None = None


class JsonInputSchemaMappingPropertiesRecord(_Mirror):
    """Mirror of :class:`auditor.model.domain.JsonInputSchemaMappingProperties`."""

    id: JsonFieldRecord | None = None
    eventTime: JsonFieldRecord | None = None
    topic: JsonFieldRecord | None = None
    subject: JsonFieldWithDefaultRecord | None = None
    eventType: JsonFieldWithDefaultRecord | None = None
    dataVersion: JsonFieldWithDefaultRecord | None = None


class JsonInputSchemaMappingRecord(_Mirror):
    """Mirror of :class:`auditor.model.domain.JsonInputSchemaMapping`."""

    inputSchemaMappingType: str | None = None
    properties: JsonInputSchemaMappingPropertiesRecord = msgspec.field(
        default_factory=JsonInputSchemaMappingPropertiesRecord
    )


class PrivateEndpointRecord(_Mirror):
    """Mirror of :class:`auditor.model.domain.PrivateEndpoint`."""

    id: str | None = None


class PrivateLinkServiceConnectionStateRecord(_Mirror):
    """Mirror of :class:`auditor.model.domain.PrivateLinkServiceConnectionState`."""

    actionsRequired: str | None = None
    description: str | None = None
    status: str | None = None


class PrivateEndpointConnectionPropertiesRecord(_Mirror):
    """Mirror of :class:`auditor.model.domain.PrivateEndpointConnectionProperties`."""

    groupIds: list[str] = msgspec.field(default_factory=list)
    privateEndpoint: PrivateEndpointRecord | None = None
    privateLinkServiceConnectionState: PrivateLinkServiceConnectionStateRecord | None = None
    provisioningState: str | None = None


class PrivateEndpointConnectionRecord(_Mirror):
    """Mirror of :class:`auditor.model.domain.PrivateEndpointConnection`."""

    id: str | None = None
    name: str | None = None
    type: str | None = None
    properties: PrivateEndpointConnectionPropertiesRecord = msgspec.field(
        default_factory=PrivateEndpointConnectionPropertiesRecord
    )


class DomainPropertiesRecord(_Mirror):
    """Mirror of :class:`auditor.model.domain.DomainProperties`."""

    autoCreateTopicWithFirstSubscription: bool | None = None
    autoDeleteTopicWithLastSubscription: bool | None = None
    dataResidencyBoundary: str | None = None
    disableLocalAuth: bool | None = None
    eventTypeInfo: EventTypeInfoRecord | None = None
    inboundIpRules: list[InboundIpRuleRecord] = msgspec.field(default_factory=list)
    inputSchema: str | None = None
    inputSchemaMapping: JsonInputSchemaMappingRecord | None = None
    minimumTlsVersionAllowed: str | None = None
    publicNetworkAccess: str | None = None
    endpoint: str | None = None
    metricResourceId: str | None = None
    privateEndpointConnections: list[PrivateEndpointConnectionRecord] = msgspec.field(
        default_factory=list
    )
    provisioningState: str | None = None


class DomainRecord(_Mirror):
    """Mirror of :class:`auditor.model.domain.Domain`."""

    id: str | None = None
    name: str | None = None
    type: str | None = None
    location: str | None = None
    tags: dict[str, str] | None = None
    identity: IdentityInfoRecord | None = None
    systemData: SystemDataRecord | None = None
    properties: DomainPropertiesRecord = msgspec.field(default_factory=DomainPropertiesRecord)


class EventArticleRecord(_Mirror):
    """Mirror of :class:`auditor.model.health.EventArticle`."""

    articleContent: str | None = None
    articleId: str | None = None
    parameters: dict[str, _Json] | None = None


class EventAdditionalInformationRecord(_Mirror):
    """Mirror of :class:`auditor.model.health.EventAdditionalInformation`."""

    message: str | None = None


class EventLinkDisplayTextRecord(_Mirror):
    """Mirror of :class:`auditor.model.health.EventLinkDisplayText`."""

    value: str | None = None
    localizedValue: str | None = None


class EventLinkRecord(_Mirror):
    """Mirror of :class:`auditor.model.health.EventLink`."""

    type: str | None = None
    displayText: EventLinkDisplayTextRecord | None = None
    extensionName: str | None = None
    bladeName: str | None = None
    parameters: dict[str, _Json] | None = None


class EventUpdateRecord(_Mirror):
    """Mirror of :class:`auditor.model.health.EventUpdate`."""

    summary: str | None = None
    updateDateTime: str | None = None


class ImpactedServiceRegionRecord(_Mirror):
    """Mirror of :class:`auditor.model.health.ImpactedServiceRegion`."""

    impactedRegion: str | None = None
    status: str | None = None
    impactedSubscriptions: list[str] = msgspec.field(default_factory=list)
    impactedTenants: list[str] = msgspec.field(default_factory=list)
    lastUpdateTime: str | None = None
    updates: list[EventUpdateRecord] = msgspec.field(default_factory=list)


class EventImpactRecord(_Mirror):
    """Mirror of :class:`auditor.model.health.EventImpact`."""

    impactedService: str | None = None
    impactedServiceGuid: str | None = None
    impactedRegions: list[ImpactedServiceRegionRecord] = msgspec.field(default_factory=list)


class RecommendedActionRecord(_Mirror):
    """Mirror of :class:`auditor.model.health.RecommendedAction`."""

    groupId: int | None = None
    actionText: str | None = None


class RecommendedActionsRecord(_Mirror):
    """Mirror of :class:`auditor.model.health.RecommendedActions`."""

    message: str | None = None
    localeCode: str | None = None
    actions: list[RecommendedActionRecord] = msgspec.field(default_factory=list)


class EventFaqRecord(_Mirror):
    """Mirror of :class:`auditor.model.health.EventFaq`."""

    question: str | None = None
    answer: str | None = None
    localeCode: str | None = None


class HealthEventPropertiesRecord(_Mirror):
    """Mirror of :class:`auditor.model.health.HealthEventProperties`."""

    eventType: str | None = None
    eventSource: str | None = None
    status: str | None = None
    eventLevel: str | None = None
    level: str | None = None
    title: str | None = None
    summary: str | None = None
    header: str | None = None
    description: str | None = None
    article: EventArticleRecord | None = None
    additionalInformation: EventAdditionalInformationRecord | None = None
    links: list[EventLinkRecord] = msgspec.field(default_factory=list)
    impactStartTime: str | None = None
    impactMitigationTime: str | None = None
    lastUpdateTime: str | None = None
    duration: int | None = None
    impact: list[EventImpactRecord] = msgspec.field(default_factory=list)
    recommendedActions: RecommendedActionsRecord | None = None
    faqs: list[EventFaqRecord] = msgspec.field(default_factory=list)
    isHIR: bool | None = None
    hirStage: str | None = None
    enableMicrosoftSupport: bool | None = None
    enableChatWithUs: bool | None = None
    platformInitiated: bool | None = None
    priority: int | None = None
    externalIncidentId: str | None = None
    reason: str | None = None
    impactType: str | None = None


class HealthEventRecord(_Mirror):
    """Mirror of :class:`auditor.model.health.HealthEvent`."""

    id: str | None = None
    name: str | None = None
    type: str | None = None
    systemData: SystemDataRecord | None = None
    properties: HealthEventPropertiesRecord = msgspec.field(
        default_factory=HealthEventPropertiesRecord
    )


class DevToolingUserRecord(_Mirror):
    """Mirror of :class:`auditor.model.devtooling.DevToolingUser`."""

    id: str | None = None
    email: str | None = None
    displayName: str | None = None
    name: str | None = None


class DevToolingAppUserRecord(_Mirror):
    """Mirror of :class:`auditor.model.devtooling.DevToolingAppUser`."""

    email: str | None = None
    role: str | None = None


class DevToolingAppRecord(_Mirror):
    """Mirror of :class:`auditor.model.devtooling.DevToolingApp`."""

    owner: str | None = None
    ownerType: str | None = None
    name: str | None = None
    users: list[DevToolingAppUserRecord] = msgspec.field(default_factory=list)


class ApiTokenRecord(_Mirror):
    """Mirror of :class:`auditor.model.devtooling.ApiToken`."""

    id: str | None = None
    kind: str | None = None
    app: str | None = None
    accessType: str | None = None
    description: str | None = None
    createdAt: str | None = None
    value: str | None = None


class DevToolingRecord(_Mirror):
    """Mirror of :class:`auditor.model.devtooling.DevTooling`."""

    user: DevToolingUserRecord | None = None
    apps: list[DevToolingAppRecord] = msgspec.field(default_factory=list)
    tokens: list[ApiTokenRecord] = msgspec.field(default_factory=list)


SECTION_TYPES: dict[str, object] = {
    "roleDefinitions": list[RoleDefinitionRecord],
    "clusters": list[ClusterRecord],
    "domains": list[DomainRecord],
    "healthEvents": list[HealthEventRecord],
    "devTooling": DevToolingRecord | None,
}
"""The type each small section of a snapshot decodes into."""
