"""Hypothesis strategies: valid wire JSON dicts for every table of seed section 2 (areas A to E),
the error shapes of section 7 and the small snapshot/plan shapes of contracts 2-3.

Every object may carry unknown fields (keys ``x<Upper>...``, never a declared name) and every
enumeration may take an unknown value: the models keep both. ``MODEL_STRATEGIES`` maps each wire
model to the strategy of its JSON.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from hypothesis import strategies as st

import auditor.model.access as a
import auditor.model.cluster as c
import auditor.model.common as cm
import auditor.model.devtooling as dt
import auditor.model.domain as d
import auditor.model.errors as er
import auditor.model.health as h
import auditor.model.snapshot as sn
from auditor.model import (
    AppUserRole,
    ClusterProvisioningState,
    ClusterRoleName,
    ClusterState,
    ClusterTier,
    ConfigurationGroup,
    CreatedByType,
    DataResidencyBoundary,
    DomainProvisioningState,
    EncryptionAlgorithm,
    EventDefinitionKind,
    EventLevelValues,
    EventSourceValues,
    EventStatusValues,
    EventTypeValues,
    IdentityType,
    InputSchema,
    InputSchemaMappingType,
    IpActionType,
    LevelValues,
    LinkTypeValues,
    OsType,
    OwnerType,
    PersistedConnectionStatus,
    PrincipalType,
    PrivateLink,
    PublicNetworkAccess,
    ResourceProviderConnection,
    ResourceProvisioningState,
    RoleType,
    TlsVersion,
    TokenAccessType,
    TokenKind,
    WireModel,
)

Strategy = st.SearchStrategy[dict[str, Any]]

# --- building blocks -----------------------------------------------------------------------------

TEXT = st.text(max_size=12)
INTS = st.integers(min_value=-(2**31), max_value=2**31 - 1)
FLOATS = st.floats(allow_nan=False, allow_infinity=False)
JSON_LEAF = st.none() | st.booleans() | INTS | FLOATS | TEXT
JSON = st.recursive(
    JSON_LEAF,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6,
)
JSON_OBJECT = st.dictionaries(TEXT, JSON, max_size=3)
EXTRA_KEY = st.from_regex(r"\Ax[A-Z][A-Za-z0-9]{0,6}\Z")
EXTRAS = st.one_of(st.just({}), st.dictionaries(EXTRA_KEY, JSON, min_size=1, max_size=2))
SECRET_TEXT = st.sampled_from(["<PASSWORD>", "<STORAGE_KEY>", "${GATEWAY_PASSWORD}"]) | TEXT


def nullable(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.none() | strategy


def ostr() -> st.SearchStrategy[Any]:
    """An optional string field: a string or JSON null."""
    return nullable(TEXT)


def obool() -> st.SearchStrategy[Any]:
    return nullable(st.booleans())


def oint() -> st.SearchStrategy[Any]:
    return nullable(INTS)


def enum_str(enum: type[StrEnum]) -> st.SearchStrategy[Any]:
    """A known value (as a plain str), an unknown one, or null."""
    return nullable(st.sampled_from([member.value for member in enum]) | TEXT)


def lists(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[list[Any]]:
    return st.lists(strategy, max_size=3)


def str_map(values: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return nullable(st.dictionaries(TEXT, values, max_size=3))


TAGS = str_map(TEXT)


def obj(
    optional: dict[str, st.SearchStrategy[Any]] | None = None,
    required: dict[str, st.SearchStrategy[Any]] | None = None,
    *,
    extra: bool = True,
) -> Strategy:
    """A JSON object: the required keys, any subset of the optional ones, maybe unknown keys."""
    base = st.fixed_dictionaries(required or {}, optional=optional or {})
    if not extra:
        return base
    return st.builds(lambda known, unknown: {**unknown, **known}, base, EXTRAS)


def simple(model: type[WireModel], *, required: tuple[str, ...] = ()) -> Strategy:
    """An object of a model whose declared fields are all optional strings (unless listed)."""
    fields = {name: (TEXT if name in required else ostr()) for name in model.model_fields}
    return obj(
        {k: v for k, v in fields.items() if k not in required},
        {k: v for k, v in fields.items() if k in required},
    )


# --- area A (seed 2.A, contracts 2) --------------------------------------------------------------

principal = obj(
    {"id": ostr(), "type": enum_str(PrincipalType), "displayName": ostr(), "email": ostr()}
)
_permission_fields = {
    "actions": lists(TEXT),
    "notActions": lists(TEXT),
    "dataActions": lists(TEXT),
    "notDataActions": lists(TEXT),
    "condition": ostr(),
    "conditionVersion": ostr(),
}
deny_assignment_permission = obj(_permission_fields)
deny_assignment_properties = obj(
    {
        "denyAssignmentName": ostr(),
        "description": ostr(),
        "scope": ostr(),
        "doNotApplyToChildScopes": obool(),
        "permissions": lists(deny_assignment_permission),
        "principals": lists(principal),
        "excludePrincipals": lists(principal),
        "isSystemProtected": obool(),
        "condition": ostr(),
        "conditionVersion": ostr(),
        "createdBy": ostr(),
        "createdOn": ostr(),
        "updatedBy": ostr(),
        "updatedOn": ostr(),
    }
)
deny_assignment = obj(
    {"id": ostr(), "name": ostr(), "type": ostr(), "properties": deny_assignment_properties}
)
deny_assignment_list = obj({"value": lists(deny_assignment), "nextLink": ostr()})
role_assignment_properties = obj(
    {
        "roleDefinitionId": ostr(),
        "principalId": ostr(),
        "principalType": enum_str(PrincipalType),
        "scope": ostr(),
        "description": ostr(),
        "condition": ostr(),
        "conditionVersion": ostr(),
        "delegatedManagedIdentityResourceId": ostr(),
        "createdBy": ostr(),
        "createdOn": ostr(),
        "updatedBy": ostr(),
        "updatedOn": ostr(),
    }
)
role_assignment = obj(
    {"id": ostr(), "name": ostr(), "type": ostr(), "properties": role_assignment_properties}
)
role_assignment_list = obj({"value": lists(role_assignment), "nextLink": ostr()})
role_permission = obj(_permission_fields)
role_definition_properties = obj(
    {
        "roleName": ostr(),
        "type": enum_str(RoleType),
        "description": ostr(),
        "assignableScopes": lists(TEXT),
        "permissions": lists(role_permission),
    }
)
role_definition = obj(
    {"id": ostr(), "name": ostr(), "type": ostr(), "properties": role_definition_properties}
)

# --- area B (seed 2.B) ---------------------------------------------------------------------------

_CONFIG_KEYS = st.sampled_from(
    [
        "restAuthCredential.isEnabled",
        "restAuthCredential.username",
        "restAuthCredential.password",
        "database-server",
        "database-user-name",
        "database-user-password",
        "javax.jdo.option.ConnectionURL",
        "javax.jdo.option.ConnectionPassword",
        "oozie.service.JPAService.jdbc.password",
        "hive_database_type",
    ]
)
_config_settings = st.dictionaries(_CONFIG_KEYS | TEXT, JSON, max_size=4)
configurations = nullable(
    st.dictionaries(
        st.sampled_from([g.value for g in ConfigurationGroup]) | TEXT,
        _config_settings | JSON,
        max_size=3,
    )
)
cluster_identity = obj()
cluster_definition = obj(
    {
        "kind": ostr(),
        "configurations": configurations,
        "blueprint": ostr(),
        "componentVersion": str_map(TEXT),
    }
)
storage_account = obj(
    {"name": ostr(), "isDefault": obool(), "container": ostr(), "key": nullable(SECRET_TEXT)}
)
storage_profile = obj({"storageaccounts": lists(storage_account)})
hardware_profile = obj({"vmSize": ostr()})
ssh_public_key = obj({"certificateData": nullable(SECRET_TEXT)})
ssh_profile = obj({"publicKeys": lists(ssh_public_key)})
linux_os_profile = obj(
    {"username": ostr(), "password": nullable(SECRET_TEXT), "sshProfile": nullable(ssh_profile)}
)
os_profile = obj({"linuxOperatingSystemProfile": nullable(linux_os_profile)})
virtual_network_profile = obj({"id": ostr(), "subnet": ostr()})
cluster_role = obj(
    {
        "name": enum_str(ClusterRoleName),
        "targetInstanceCount": oint(),
        "hardwareProfile": nullable(hardware_profile),
        "osProfile": nullable(os_profile),
        "virtualNetworkProfile": nullable(virtual_network_profile),
    }
)
compute_profile = obj({"roles": lists(cluster_role)})
network_properties = obj(
    {
        "resourceProviderConnection": enum_str(ResourceProviderConnection),
        "privateLink": enum_str(PrivateLink),
    }
)
compute_isolation_properties = obj({"enableComputeIsolation": obool(), "hostSku": ostr()})
disk_encryption_properties = obj(
    {
        "encryptionAtHost": obool(),
        "vaultUri": ostr(),
        "keyName": ostr(),
        "keyVersion": ostr(),
        "encryptionAlgorithm": enum_str(EncryptionAlgorithm),
        "msiResourceId": ostr(),
    }
)
encryption_in_transit_properties = obj({"isEncryptionInTransitEnabled": obool()})
_cluster_common = {
    "clusterVersion": ostr(),
    "osType": enum_str(OsType),
    "tier": enum_str(ClusterTier),
    "clusterDefinition": nullable(cluster_definition),
    "computeProfile": nullable(compute_profile),
    "storageProfile": nullable(storage_profile),
    "networkProperties": nullable(network_properties),
    "computeIsolationProperties": nullable(compute_isolation_properties),
    "diskEncryptionProperties": nullable(disk_encryption_properties),
    "encryptionInTransitProperties": nullable(encryption_in_transit_properties),
}
cluster_create_properties = obj(_cluster_common)
cluster_create_request = obj(
    {
        "identity": nullable(cluster_identity),
        "location": ostr(),
        "properties": cluster_create_properties,
        "tags": TAGS,
        "zones": lists(TEXT),
    }
)
quota_info = obj({"coresUsed": oint()})
connectivity_endpoint = obj(
    {"name": ostr(), "protocol": ostr(), "location": ostr(), "port": oint()}
)
cluster_properties = obj(
    {
        **_cluster_common,
        "clusterId": ostr(),
        "provisioningState": enum_str(ClusterProvisioningState),
        "clusterState": enum_str(ClusterState),
        "createdDate": ostr(),
        "quotaInfo": nullable(quota_info),
        "connectivityEndpoints": lists(connectivity_endpoint),
    }
)
cluster = obj(
    {
        "id": ostr(),
        "name": ostr(),
        "type": ostr(),
        "location": ostr(),
        "etag": ostr(),
        "tags": TAGS,
        "zones": lists(TEXT),
        "identity": nullable(cluster_identity),
        "properties": cluster_properties,
    }
)

# --- area C (seed 2.C) ---------------------------------------------------------------------------

system_data = obj(
    {
        "createdAt": ostr(),
        "createdBy": ostr(),
        "createdByType": enum_str(CreatedByType),
        "lastModifiedAt": ostr(),
        "lastModifiedBy": ostr(),
        "lastModifiedByType": enum_str(CreatedByType),
    }
)
user_identity_properties = obj({"clientId": ostr(), "principalId": ostr()})
identity_info = obj(
    {
        "type": enum_str(IdentityType),
        "principalId": ostr(),
        "tenantId": ostr(),
        "userAssignedIdentities": str_map(user_identity_properties),
    }
)
inbound_ip_rule = obj({"ipMask": ostr(), "action": enum_str(IpActionType)})
inline_event_properties = simple(d.InlineEventProperties)
event_type_info = obj(
    {"kind": enum_str(EventDefinitionKind), "inlineEventTypes": str_map(inline_event_properties)}
)
json_field = obj({"sourceField": ostr()})
json_field_with_default = obj({"sourceField": ostr(), "defaultValue": ostr()})
json_input_schema_mapping_properties = obj(
    {
        "id": nullable(json_field),
        "eventTime": nullable(json_field),
        "topic": nullable(json_field),
        "subject": nullable(json_field_with_default),
        "eventType": nullable(json_field_with_default),
        "dataVersion": nullable(json_field_with_default),
    }
)
json_input_schema_mapping = obj(
    {
        "inputSchemaMappingType": enum_str(InputSchemaMappingType),
        "properties": json_input_schema_mapping_properties,
    }
)
private_endpoint = obj({"id": ostr()})
private_link_service_connection_state = obj(
    {
        "actionsRequired": ostr(),
        "description": ostr(),
        "status": enum_str(PersistedConnectionStatus),
    }
)
private_endpoint_connection_properties = obj(
    {
        "groupIds": lists(TEXT),
        "privateEndpoint": nullable(private_endpoint),
        "privateLinkServiceConnectionState": nullable(private_link_service_connection_state),
        "provisioningState": enum_str(ResourceProvisioningState),
    }
)
private_endpoint_connection = obj(
    {
        "id": ostr(),
        "name": ostr(),
        "type": ostr(),
        "properties": private_endpoint_connection_properties,
    }
)
_domain_create_properties = {
    "autoCreateTopicWithFirstSubscription": obool(),
    "autoDeleteTopicWithLastSubscription": obool(),
    "dataResidencyBoundary": enum_str(DataResidencyBoundary),
    "disableLocalAuth": obool(),
    "eventTypeInfo": nullable(event_type_info),
    "inboundIpRules": lists(inbound_ip_rule),
    "inputSchema": enum_str(InputSchema),
    "inputSchemaMapping": nullable(json_input_schema_mapping),
    "minimumTlsVersionAllowed": enum_str(TlsVersion),
    "publicNetworkAccess": enum_str(PublicNetworkAccess),
}
domain_create_properties = obj(_domain_create_properties)
domain_properties = obj(
    {
        **_domain_create_properties,
        "endpoint": ostr(),
        "metricResourceId": ostr(),
        "privateEndpointConnections": lists(private_endpoint_connection),
        "provisioningState": enum_str(DomainProvisioningState),
    }
)
domain_create_request = obj(
    {"tags": TAGS, "identity": nullable(identity_info), "properties": domain_create_properties},
    {"location": TEXT},
)
domain = obj(
    {
        "id": ostr(),
        "name": ostr(),
        "type": ostr(),
        "location": ostr(),
        "tags": TAGS,
        "identity": nullable(identity_info),
        "systemData": nullable(system_data),
        "properties": domain_properties,
    }
)

# --- area D (seed 2.D) ---------------------------------------------------------------------------

event_article = obj(
    {"articleContent": ostr(), "articleId": ostr(), "parameters": nullable(JSON_OBJECT)}
)
event_additional_information = obj({"message": ostr()})
event_link_display_text = obj({"value": ostr(), "localizedValue": ostr()})
event_link = obj(
    {
        "type": enum_str(LinkTypeValues),
        "displayText": nullable(event_link_display_text),
        "extensionName": ostr(),
        "bladeName": ostr(),
        "parameters": nullable(JSON_OBJECT),
    }
)
event_update = obj({"summary": ostr(), "updateDateTime": ostr()})
impacted_service_region = obj(
    {
        "impactedRegion": ostr(),
        "status": enum_str(EventStatusValues),
        "impactedSubscriptions": lists(TEXT),
        "impactedTenants": lists(TEXT),
        "lastUpdateTime": ostr(),
        "updates": lists(event_update),
    }
)
event_impact = obj(
    {
        "impactedService": ostr(),
        "impactedServiceGuid": ostr(),
        "impactedRegions": lists(impacted_service_region),
    }
)
recommended_action = obj({"groupId": oint(), "actionText": ostr()})
recommended_actions = obj(
    {"message": ostr(), "localeCode": ostr(), "actions": lists(recommended_action)}
)
event_faq = obj({"question": ostr(), "answer": ostr(), "localeCode": ostr()})
health_event_properties = obj(
    {
        "eventType": enum_str(EventTypeValues),
        "eventSource": enum_str(EventSourceValues),
        "status": enum_str(EventStatusValues),
        "eventLevel": enum_str(EventLevelValues),
        "level": enum_str(LevelValues),
        "title": ostr(),
        "summary": ostr(),
        "header": ostr(),
        "description": ostr(),
        "article": nullable(event_article),
        "additionalInformation": nullable(event_additional_information),
        "links": lists(event_link),
        "impactStartTime": ostr(),
        "impactMitigationTime": ostr(),
        "lastUpdateTime": ostr(),
        "duration": oint(),
        "impact": lists(event_impact),
        "recommendedActions": nullable(recommended_actions),
        "faqs": lists(event_faq),
        "isHIR": obool(),
        "hirStage": ostr(),
        "enableMicrosoftSupport": obool(),
        "enableChatWithUs": obool(),
        "platformInitiated": obool(),
        "priority": oint(),
        "externalIncidentId": ostr(),
        "reason": ostr(),
        "impactType": ostr(),
    }
)
health_event = obj(
    {
        "id": ostr(),
        "name": ostr(),
        "type": ostr(),
        "systemData": nullable(system_data),
        "properties": health_event_properties,
    }
)
health_event_list = obj({"value": lists(health_event), "nextLink": ostr()})

# --- area E (seed 2.E, contracts 2) --------------------------------------------------------------

dev_tooling_user = simple(dt.DevToolingUser)
dev_tooling_app_user = obj({"email": ostr(), "role": enum_str(AppUserRole)})
dev_tooling_app = obj(
    {
        "owner": ostr(),
        "ownerType": enum_str(OwnerType),
        "name": ostr(),
        "users": lists(dev_tooling_app_user),
    }
)
api_token = obj(
    {
        "id": ostr(),
        "kind": enum_str(TokenKind),
        "app": ostr(),
        "accessType": enum_str(TokenAccessType),
        "description": ostr(),
        "createdAt": ostr(),
        "value": nullable(SECRET_TEXT),
    }
)
dev_tooling = obj(
    {
        "user": nullable(dev_tooling_user),
        "apps": lists(dev_tooling_app),
        "tokens": lists(api_token),
    }
)

# --- errors (seed 7) -----------------------------------------------------------------------------

error_additional_info = obj({"type": ostr(), "info": nullable(JSON_OBJECT)})
error_detail: Strategy = st.deferred(
    lambda: obj(
        {
            "code": ostr(),
            "message": ostr(),
            "target": ostr(),
            "details": st.lists(error_detail, max_size=2),
            "additionalInfo": lists(error_additional_info),
        }
    )
)
error_response = obj({"error": nullable(error_detail)})
health_error_response = obj({"code": ostr(), "message": ostr(), "details": ostr()})

# --- snapshot and plan (contracts 2, 3) ----------------------------------------------------------

hierarchy_entry = obj({"parent": ostr(), "displayName": ostr()}, {"id": TEXT})
directory_principal = obj(
    {
        "type": enum_str(PrincipalType),
        "displayName": ostr(),
        "email": ostr(),
        "userType": nullable(st.sampled_from(["Member", "Guest"]) | TEXT),
        "accountEnabled": obool(),
        "memberOf": lists(TEXT),
    },
    {"id": TEXT},
)
plan_request = obj(
    {"body": cluster_create_request | domain_create_request | JSON_OBJECT},
    {"method": st.sampled_from(["PUT", "POST", "GET"]) | TEXT, "url": TEXT},
)
plan_file = obj({"requests": lists(plan_request)}, {"planVersion": INTS})


MODEL_STRATEGIES: dict[type[WireModel], Strategy] = {
    a.Principal: principal,
    a.DenyAssignmentPermission: deny_assignment_permission,
    a.DenyAssignmentProperties: deny_assignment_properties,
    a.DenyAssignment: deny_assignment,
    a.DenyAssignmentListResult: deny_assignment_list,
    a.RoleAssignmentProperties: role_assignment_properties,
    a.RoleAssignment: role_assignment,
    a.RoleAssignmentListResult: role_assignment_list,
    a.RolePermission: role_permission,
    a.RoleDefinitionProperties: role_definition_properties,
    a.RoleDefinition: role_definition,
    c.ClusterIdentity: cluster_identity,
    c.ClusterDefinition: cluster_definition,
    c.StorageAccount: storage_account,
    c.StorageProfile: storage_profile,
    c.HardwareProfile: hardware_profile,
    c.SshPublicKey: ssh_public_key,
    c.SshProfile: ssh_profile,
    c.LinuxOperatingSystemProfile: linux_os_profile,
    c.OsProfile: os_profile,
    c.VirtualNetworkProfile: virtual_network_profile,
    c.ClusterRole: cluster_role,
    c.ComputeProfile: compute_profile,
    c.NetworkProperties: network_properties,
    c.ComputeIsolationProperties: compute_isolation_properties,
    c.DiskEncryptionProperties: disk_encryption_properties,
    c.EncryptionInTransitProperties: encryption_in_transit_properties,
    c.ClusterCreateProperties: cluster_create_properties,
    c.ClusterCreateRequest: cluster_create_request,
    c.QuotaInfo: quota_info,
    c.ConnectivityEndpoint: connectivity_endpoint,
    c.ClusterProperties: cluster_properties,
    c.Cluster: cluster,
    cm.SystemData: system_data,
    d.UserIdentityProperties: user_identity_properties,
    d.IdentityInfo: identity_info,
    d.InboundIpRule: inbound_ip_rule,
    d.InlineEventProperties: inline_event_properties,
    d.EventTypeInfo: event_type_info,
    d.JsonField: json_field,
    d.JsonFieldWithDefault: json_field_with_default,
    d.JsonInputSchemaMappingProperties: json_input_schema_mapping_properties,
    d.JsonInputSchemaMapping: json_input_schema_mapping,
    d.PrivateEndpoint: private_endpoint,
    d.PrivateLinkServiceConnectionState: private_link_service_connection_state,
    d.PrivateEndpointConnectionProperties: private_endpoint_connection_properties,
    d.PrivateEndpointConnection: private_endpoint_connection,
    d.DomainProperties: domain_properties,
    d.DomainCreateRequest: domain_create_request,
    d.Domain: domain,
    h.EventArticle: event_article,
    h.EventAdditionalInformation: event_additional_information,
    h.EventLinkDisplayText: event_link_display_text,
    h.EventLink: event_link,
    h.EventUpdate: event_update,
    h.ImpactedServiceRegion: impacted_service_region,
    h.EventImpact: event_impact,
    h.RecommendedAction: recommended_action,
    h.RecommendedActions: recommended_actions,
    h.EventFaq: event_faq,
    h.HealthEventProperties: health_event_properties,
    h.HealthEvent: health_event,
    h.HealthEventListResult: health_event_list,
    dt.DevToolingUser: dev_tooling_user,
    dt.DevToolingAppUser: dev_tooling_app_user,
    dt.DevToolingApp: dev_tooling_app,
    dt.ApiToken: api_token,
    dt.DevTooling: dev_tooling,
    er.ErrorAdditionalInfo: error_additional_info,
    er.ErrorDetail: error_detail,
    er.ErrorResponse: error_response,
    er.HealthErrorResponse: health_error_response,
    sn.HierarchyEntry: hierarchy_entry,
    sn.DirectoryPrincipal: directory_principal,
    sn.PlanRequest: plan_request,
    sn.PlanFile: plan_file,
}
