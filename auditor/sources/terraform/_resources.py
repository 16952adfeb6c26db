"""A Terraform resource's values -> the request the provider would send, in the seed's names.

The values are a resource's arguments, as the HCL reader evaluates them or as a plan's
``change.after`` holds them: arguments by name, nested blocks as lists of objects, anything not known
an :class:`~auditor.expr.arm.values.Unknown`. The mapping follows what the azurerm provider sends
(its ``expand`` functions, with the defaults of its schema), and for ``azapi_resource`` the body as
written with ``location``, ``tags`` and ``identity`` merged in.

Secret fields (gateway, node and metastore passwords, storage keys) keep a literal as it is (the
rules judge it, it is never printed); anything not known there is a reference
(:attr:`UnknownKind.SECRET_REFERENCE`) whose texts name only the reference (``var.admin_password``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

from auditor.expr.arm.values import Unknown, UnknownKind
from auditor.sources.names import to_seed, to_seed_value

__all__ = [
    "AZAPI",
    "CLUSTER_TYPES",
    "DOMAIN",
    "ROLE_ASSIGNMENT",
    "SUPPORTED_TYPES",
    "Mapped",
    "azapi_type",
    "map_resource",
]

DOMAIN = "azurerm_eventgrid_domain"
ROLE_ASSIGNMENT = "azurerm_role_assignment"
AZAPI = "azapi_resource"
CLUSTER_TYPES: dict[str, tuple[str, str, str]] = {
    # resource type: (clusterDefinition.kind as the provider sends it, component_version argument,
    # componentVersion key)
    "azurerm_hdinsight_hadoop_cluster": ("HADOOP", "hadoop", "Hadoop"),
    "azurerm_hdinsight_spark_cluster": ("SPARK", "spark", "Spark"),
    "azurerm_hdinsight_hbase_cluster": ("HBASE", "hbase", "HBase"),
    "azurerm_hdinsight_kafka_cluster": ("KAFKA", "kafka", "Kafka"),
    "azurerm_hdinsight_interactive_query_cluster": (
        "INTERACTIVEHIVE",
        "interactive_hive",
        "InteractiveHive",
    ),
}
SUPPORTED_TYPES = frozenset({DOMAIN, ROLE_ASSIGNMENT, AZAPI, *CLUSTER_TYPES})

_DOMAIN_VERSION = "2025-02-15"
_CLUSTER_VERSION = "2021-06-01"
_ROLE_ASSIGNMENT_VERSION = "2022-04-01"
_AZAPI_TYPES = {
    "cloud.eventrouting/domains": "domain",
    "cloud.analyticscluster/clusters": "cluster",
    "cloud.authorization/roleassignments": "roleAssignment",
}
_JDBC_DRIVER = "com.microsoft.sqlserver.jdbc.SQLServerDriver"
_MSSQL_EXISTING = "Existing MSSQL Server database with SQL authentication"
_KEY_ID = re.compile(r"^(https://[^/]+/)keys/([^/]+)(?:/([^/]*))?/?$", re.IGNORECASE)
_SEGMENT_SAFE = "-._~!$&'()*+,;=:@"


@dataclass(slots=True)
class Mapped:
    """The request a resource makes: its URL (an unknown segment in braces), its body."""

    url: str
    body: dict[str, Any] | None
    unknown_url: Unknown | None


# --- values ------------------------------------------------------------------------------------------


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, Unknown):
        return obj
    if not isinstance(obj, dict):
        return default
    value = obj.get(key)
    return default if value is None else value


def _blocks(obj: Any, key: str) -> list[Any] | Unknown:
    value = _get(obj, key)
    if isinstance(value, Unknown):
        return value
    if isinstance(value, dict):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, dict | Unknown)]
    return []


def _block(obj: Any, key: str) -> dict[str, Any] | Unknown | None:
    blocks = _blocks(obj, key)
    if isinstance(blocks, Unknown):
        return blocks
    return blocks[0] if blocks else None


def _bool(value: Any, default: bool | None) -> Any:
    if value is None:
        return default
    if isinstance(value, bool | Unknown):
        return value
    if value in ("true", "false"):
        return value == "true"
    return value  # kept as written: the rule reports what it is


def _enabled(flag: Any) -> Any:
    if isinstance(flag, bool):
        return "Enabled" if flag else "Disabled"
    return flag


def _negate(flag: Any) -> Any:
    return (not flag) if isinstance(flag, bool) else flag


def _id(value: Any) -> Any:
    return to_seed(value) if isinstance(value, str) else value


def _secret(value: Any) -> Any:
    """A secret field's value: a literal as it is; anything unknown a reference naming only the
    reference it came from."""
    if not isinstance(value, Unknown) or value.kind in (
        UnknownKind.ERROR,
        UnknownKind.NOT_IMPLEMENTED,
    ):
        if isinstance(value, Unknown):
            return Unknown(value.origin or "", value.reason, value.kind, value.origin)
        return value
    origin = value.origin or value.expression
    return Unknown(
        origin, f"a reference, not a literal: {value.reason}", UnknownKind.SECRET_REFERENCE, origin
    )


def _put(out: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        out[key] = value


# --- URLs --------------------------------------------------------------------------------------------


class _Url:
    def __init__(self, address: str) -> None:
        self.address = address
        self.unknown: Unknown | None = None

    def segment(self, value: Any, what: str) -> str:
        if isinstance(value, str) and value:
            return quote(value, safe=_SEGMENT_SAFE)
        if not isinstance(value, Unknown):
            value = Unknown(
                f"{self.address}.{what}",
                f"the {what} is not set",
                UnknownKind.ERROR,
                f"{self.address}.{what}",
            )
        self.unknown = self.unknown or value
        shown = value.origin or value.expression or what
        return "{" + quote(" ".join(shown.split()), safe="-._~()[]\"'") + "}"

    def scope(self, value: Any, what: str) -> str:
        if isinstance(value, str) and value.startswith("/"):
            return quote(to_seed(value.rstrip("/")), safe="/" + _SEGMENT_SAFE)
        return "/" + self.segment(value, what)


def _rg_url(
    sub: Any, v: Any, address: str, provider: str, version: str
) -> tuple[str, Unknown | None]:
    url = _Url(address)
    name = url.segment(_get(v, "name"), "name")
    group = url.segment(_get(v, "resource_group_name"), "resource_group_name")
    subscription = url.segment(sub, "subscription")
    return (
        f"/subscriptions/{subscription}/resourceGroups/{group}/providers/{provider}/{name}"
        f"?api-version={version}",
        url.unknown,
    )


# --- shared pieces -----------------------------------------------------------------------------------


def _identity(block: Any) -> Any:
    if block is None or isinstance(block, Unknown):
        return block
    out: dict[str, Any] = {"type": _get(block, "type")}
    ids = _get(block, "identity_ids")
    if isinstance(ids, Unknown):
        out["userAssignedIdentities"] = ids
    elif isinstance(ids, list) and ids:
        missing = next((i for i in ids if isinstance(i, Unknown)), None)
        out["userAssignedIdentities"] = missing or {_id(i): {} for i in ids if isinstance(i, str)}
    return out


def _common(v: Any, out: dict[str, Any]) -> None:
    location = _get(v, "location")
    if isinstance(location, str):  # the provider sends it normalised ("West Europe": "westeurope")
        location = location.replace(" ", "").lower()
    _put(out, "location", location)
    _put(out, "tags", _get(v, "tags"))


# --- event-routing domain ----------------------------------------------------------------------------


def _domain_body(v: Any) -> dict[str, Any]:
    body: dict[str, Any] = {}
    _common(v, body)
    _put(body, "identity", _identity(_block(v, "identity")))
    props: dict[str, Any] = {
        "autoCreateTopicWithFirstSubscription": _bool(
            _get(v, "auto_create_topic_with_first_subscription"), True
        ),
        "autoDeleteTopicWithLastSubscription": _bool(
            _get(v, "auto_delete_topic_with_last_subscription"), True
        ),
        "disableLocalAuth": _negate(_bool(_get(v, "local_auth_enabled"), True)),
    }
    rules = _blocks(v, "inbound_ip_rule")
    if isinstance(rules, Unknown):
        props["inboundIpRules"] = rules
    elif rules:
        props["inboundIpRules"] = [
            {"ipMask": _get(rule, "ip_mask"), "action": _get(rule, "action", "Allow")}
            for rule in rules
        ]
    schema = _get(v, "input_schema", "EventGridSchema")
    props["inputSchema"] = to_seed_value(schema) if isinstance(schema, str) else schema
    _put(props, "inputSchemaMapping", _input_mapping(v))
    props["publicNetworkAccess"] = _enabled(_bool(_get(v, "public_network_access_enabled"), True))
    _put(props, "minimumTlsVersionAllowed", _get(v, "minimum_tls_version"))
    body["properties"] = props
    return body


def _input_mapping(v: Any) -> Any:
    fields = _block(v, "input_mapping_fields")
    defaults = _block(v, "input_mapping_default_values")
    if fields is None and defaults is None:
        return None
    if isinstance(fields, Unknown) or isinstance(defaults, Unknown):
        return fields if isinstance(fields, Unknown) else defaults
    props: dict[str, Any] = {}
    for arg, key in (("id", "id"), ("topic", "topic"), ("event_time", "eventTime")):
        value = _get(fields, arg)
        if value not in (None, ""):
            props[key] = {"sourceField": value}
    for arg, key in (
        ("subject", "subject"),
        ("event_type", "eventType"),
        ("data_version", "dataVersion"),
    ):
        entry: dict[str, Any] = {}
        source, default = _get(fields, arg), _get(defaults, arg)
        if source not in (None, ""):
            entry["sourceField"] = source
        if default not in (None, ""):
            entry["defaultValue"] = default
        if entry:
            props[key] = entry
    return {"inputSchemaMappingType": "Json", "properties": props}


# --- analytics clusters ------------------------------------------------------------------------------


def _cluster_body(rtype: str, v: Any) -> dict[str, Any]:
    kind, component_arg, component_key = CLUSTER_TYPES[rtype]
    body: dict[str, Any] = {}
    _common(v, body)
    _put(body, "zones", _get(v, "zones"))
    props: dict[str, Any] = {"clusterVersion": _get(v, "cluster_version"), "osType": "Linux"}
    _put(props, "tier", _get(v, "tier"))
    _put(props, "minSupportedTlsVersion", _get(v, "tls_min_version", _get(v, "min_tls_version")))
    definition: dict[str, Any] = {"kind": kind}
    component = _block(v, "component_version")
    if component is not None:
        definition["componentVersion"] = {component_key: _get(component, component_arg)}
    definition["configurations"] = _configurations(v)
    props["clusterDefinition"] = definition
    accounts, identity = _storage(v)
    props["storageProfile"] = {"storageaccounts": accounts}
    if identity is not None:
        body["identity"] = identity
    props["computeProfile"] = {"roles": _roles(rtype, v)}
    network = _block(v, "network")
    if network is not None:
        direction = _get(network, "connection_direction", "Inbound")
        if isinstance(direction, str):
            direction = "Outbound" if direction == "Outbound" else "Inbound"
        props["networkProperties"] = {
            "resourceProviderConnection": direction,
            "privateLink": _enabled(_bool(_get(network, "private_link_enabled"), False)),
        }
    isolation = _block(v, "compute_isolation")
    if isolation is not None:
        props["computeIsolationProperties"] = {
            "enableComputeIsolation": _bool(_get(isolation, "compute_isolation_enabled"), False),
            "hostSku": _get(isolation, "host_sku"),
        }
    encryption = _block(v, "disk_encryption")
    if encryption is not None:
        props["diskEncryptionProperties"] = _disk_encryption(encryption)
    props["encryptionInTransitProperties"] = {
        "isEncryptionInTransitEnabled": _bool(_get(v, "encryption_in_transit_enabled"), False)
    }
    body["properties"] = props
    return body


def _configurations(v: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    gateway = _block(v, "gateway")
    if gateway is not None:
        out["gateway"] = {
            "restAuthCredential.isEnabled": True,
            "restAuthCredential.username": _get(gateway, "username"),
            "restAuthCredential.password": _secret(_get(gateway, "password")),
        }
    metastores = _block(v, "metastores")
    if not isinstance(metastores, dict):
        return out
    hive = _block(metastores, "hive")
    if hive is not None:
        server, database = _get(hive, "server"), _get(hive, "database_name")
        out["hive-site"] = {
            "javax.jdo.option.ConnectionDriverName": _JDBC_DRIVER,
            "javax.jdo.option.ConnectionURL": _jdbc_url(server, database),
            "javax.jdo.option.ConnectionUserName": _get(hive, "username"),
            "javax.jdo.option.ConnectionPassword": _secret(_get(hive, "password")),
        }
        out["hive-env"] = {
            "hive_database": _MSSQL_EXISTING,
            "hive_database_name": database,
            "hive_database_type": "mssql",
            "hive_existing_mssql_server_database": database,
            "hive_existing_mssql_server_host": server,
            "hive_hostname": server,
        }
    oozie = _block(metastores, "oozie")
    if oozie is not None:
        server, database = _get(oozie, "server"), _get(oozie, "database_name")
        out["oozie-site"] = {
            "oozie.service.JPAService.jdbc.driver": _JDBC_DRIVER,
            "oozie.service.JPAService.jdbc.url": _jdbc_url(server, database),
            "oozie.service.JPAService.jdbc.username": _get(oozie, "username"),
            "oozie.service.JPAService.jdbc.password": _secret(_get(oozie, "password")),
            "oozie.db.schema.name": "oozie",
        }
        out["oozie-env"] = {
            "oozie_database": _MSSQL_EXISTING,
            "oozie_database_name": database,
            "oozie_database_type": "mssql",
            "oozie_existing_mssql_server_database": database,
            "oozie_existing_mssql_server_host": server,
            "oozie_hostname": server,
        }
    ambari = _block(metastores, "ambari")
    if ambari is not None:
        out["ambari-conf"] = {
            "database-server": _get(ambari, "server"),
            "database-name": _get(ambari, "database_name"),
            "database-user-name": _get(ambari, "username"),
            "database-user-password": _secret(_get(ambari, "password")),
        }
    return out


def _jdbc_url(server: Any, database: Any) -> str:
    """The metastore URL the provider builds (``ExpandHDInsightsHiveMetastore``): its TLS settings
    are the provider's constants, so a server or database not known is shown as the reference in
    braces and the URL stays judgeable."""

    def part(value: Any) -> str:
        if isinstance(value, Unknown):
            return "{" + (value.origin or value.expression) + "}"
        return str(value) if value is not None else ""

    return (
        f"jdbc:sqlserver://{part(server)};database={part(database)};encrypt=true;"
        "trustServerCertificate=true;create=false;loginTimeout=300"
    )


def _split_url(value: Any) -> tuple[Any, Any]:
    if isinstance(value, Unknown) or not isinstance(value, str):
        return value, value
    parts = urlsplit(value)
    return parts.hostname or parts.netloc, parts.path.removeprefix("/")


def _storage(v: Any) -> tuple[list[Any], Any]:
    accounts: list[Any] = []
    blob = _blocks(v, "storage_account")
    if isinstance(blob, Unknown):
        accounts.append(blob)
        blob = []
    for sa in blob:
        name, container = _split_url(_get(sa, "storage_container_id"))
        entry: dict[str, Any] = {"name": name, "container": container}
        _put(entry, "isDefault", _bool(_get(sa, "is_default"), None))
        entry["key"] = _secret(_get(sa, "storage_account_key"))
        _put(
            entry,
            "resourceId",
            _id(_get(sa, "storage_account_id", _get(sa, "storage_resource_id"))),
        )
        accounts.append(entry)
    identities: dict[str, Any] = {}
    gen2 = _blocks(v, "storage_account_gen2")
    if isinstance(gen2, Unknown):
        accounts.append(gen2)
        gen2 = []
    for sa in gen2:
        name, filesystem = _split_url(_get(sa, "filesystem_id"))
        msi = _get(sa, "user_assigned_identity_id", _get(sa, "managed_identity_resource_id"))
        entry = {"name": name, "fileSystem": filesystem}
        _put(entry, "isDefault", _bool(_get(sa, "is_default"), None))
        _put(
            entry,
            "resourceId",
            _id(_get(sa, "storage_account_id", _get(sa, "storage_resource_id"))),
        )
        _put(entry, "msiResourceId", _id(msi))
        if isinstance(msi, str):
            identities[to_seed(msi)] = {}
        accounts.append(entry)
    identity = (
        {"type": "UserAssigned", "userAssignedIdentities": identities} if identities else None
    )
    return accounts, identity


_ROLES = (
    ("head_node", "headnode", 2),
    ("worker_node", "workernode", None),
    ("zookeeper_node", "zookeepernode", 3),
    ("kafka_management_node", "kafkamanagementnode", 2),
)


def _roles(rtype: str, v: Any) -> list[Any] | Unknown:
    roles = _block(v, "roles")
    if roles is None:
        return []
    if isinstance(roles, Unknown):
        return roles
    out: list[Any] = []
    for arg, name, fixed in _ROLES:
        node = _block(roles, arg)
        if node is None:
            continue
        if isinstance(node, Unknown):
            out.append(node)
            continue
        role: dict[str, Any] = {
            "name": name,
            "targetInstanceCount": fixed
            if fixed is not None
            else _get(node, "target_instance_count"),
            "hardwareProfile": {"vmSize": _get(node, "vm_size")},
        }
        linux: dict[str, Any] = {
            "username": "sshadmin" if name == "kafkamanagementnode" else _get(node, "username")
        }
        password = _get(node, "password")
        if password not in (None, ""):
            linux["password"] = _secret(password)
        else:
            keys = _get(node, "ssh_keys")
            if isinstance(keys, Unknown):
                linux["sshProfile"] = {"publicKeys": keys}
            elif isinstance(keys, list) and keys:
                linux["sshProfile"] = {"publicKeys": [{"certificateData": k} for k in keys]}
        role["osProfile"] = {"linuxOperatingSystemProfile": linux}
        network, subnet = _get(node, "virtual_network_id"), _get(node, "subnet_id")
        if network is not None or subnet is not None:
            profile: dict[str, Any] = {}
            _put(profile, "id", _id(network))
            _put(profile, "subnet", _id(subnet))
            role["virtualNetworkProfile"] = profile
        disks = _get(node, "number_of_disks_per_node")
        if disks is not None and rtype == "azurerm_hdinsight_kafka_cluster":
            role["dataDisksGroups"] = [{"disksPerNode": disks}]
        out.append(role)
    return out


def _disk_encryption(block: Any) -> Any:
    if isinstance(block, Unknown):
        return block
    out: dict[str, Any] = {
        "encryptionAtHost": _bool(_get(block, "encryption_at_host_enabled"), False)
    }
    _put(out, "encryptionAlgorithm", _get(block, "encryption_algorithm"))
    _put(out, "msiResourceId", _id(_get(block, "key_vault_managed_identity_id")))
    key_id = _get(block, "key_vault_key_id")
    if isinstance(key_id, Unknown):
        out["vaultUri"] = out["keyName"] = out["keyVersion"] = key_id
    elif isinstance(key_id, str) and key_id:
        m = _KEY_ID.match(key_id)
        if m is not None:
            out["vaultUri"], out["keyName"], out["keyVersion"] = (
                m.group(1),
                m.group(2),
                m.group(3) or "",
            )
    return out


# --- role assignments --------------------------------------------------------------------------------


def _builtin_role_id(name: Any, scope: Any, address: str) -> Any:
    if isinstance(name, Unknown):
        return name
    if not isinstance(name, str):
        return Unknown(f"{address}.role_definition_name", "no role is named", UnknownKind.ERROR)
    from auditor.estate.roles import builtin_roles

    guid = next(
        (
            r.name
            for r in builtin_roles()
            if r.name and (r.properties.roleName or "").lower() == name.lower()
        ),
        None,
    )
    if guid is None:
        text = f"{address}.role_definition_name"
        return Unknown(
            text,
            "the role is not a built-in role auditor knows; the provider looks it up when it applies",
            UnknownKind.DEPLOYMENT,
            text,
        )
    prefix = ""
    if isinstance(scope, str):
        m = re.match(r"^(/subscriptions/[^/]+)", scope, re.IGNORECASE)
        prefix = m.group(1) if m else ""
    return f"{prefix}/providers/Cloud.Authorization/roleDefinitions/{guid}"


def _role_assignment(v: Any, address: str) -> Mapped:
    scope = _get(v, "scope")
    name = _get(v, "name")
    if name in (None, ""):
        text = f"{address}.name"
        name = Unknown(
            text,
            "the name is a GUID the provider chooses when it applies",
            UnknownKind.DEPLOYMENT,
            text,
        )
    url = _Url(address)
    name_part = url.segment(name, "name")
    scope_part = url.scope(scope, "scope")
    role = _get(v, "role_definition_id")
    role_name = _get(v, "role_definition_name")
    if role is None or (isinstance(role, Unknown) and isinstance(role_name, str)):
        role = _builtin_role_id(role_name, scope, address)
    props: dict[str, Any] = {"roleDefinitionId": _id(role), "principalId": _get(v, "principal_id")}
    principal_type = _get(v, "principal_type")
    if principal_type in (None, "") and _get(v, "skip_service_principal_aad_check") is True:
        principal_type = "ServicePrincipal"
    if principal_type not in (None, ""):
        props["principalType"] = principal_type
    condition = _get(v, "condition")
    if condition not in (None, ""):
        props["condition"] = condition
        props["conditionVersion"] = _get(v, "condition_version") or "2.0"
    description = _get(v, "description")
    if description not in (None, ""):
        props["description"] = description
    delegated = _get(v, "delegated_managed_identity_resource_id")
    if delegated not in (None, ""):
        props["delegatedManagedIdentityResourceId"] = _id(delegated)
    return Mapped(
        f"{scope_part}/providers/Cloud.Authorization/roleAssignments/{name_part}"
        f"?api-version={_ROLE_ASSIGNMENT_VERSION}",
        {"properties": props},
        url.unknown,
    )


# --- azapi_resource ----------------------------------------------------------------------------------


def azapi_type(v: Any) -> tuple[str, str] | None:
    """An ``azapi_resource``'s type in the seed's names and its api-version, when known."""
    rtype = _get(v, "type")
    if not isinstance(rtype, str) or "@" not in rtype:
        return None
    name, _, version = rtype.partition("@")
    return to_seed(name.strip()), version.strip()


def _azapi(v: Any, address: str, kind: str, seed_type: str, version: str) -> Mapped:
    url = _Url(address)
    name_part = url.segment(_get(v, "name"), "name")
    parent_part = url.scope(_get(v, "parent_id"), "parent_id")
    raw = _get(v, "body")
    body: Any
    if isinstance(raw, str):
        try:
            body = json.loads(raw)
        except (ValueError, RecursionError):
            body = Unknown(
                f"{address}.body",
                "the body is not valid JSON",
                UnknownKind.ERROR,
                f"{address}.body",
            )
    elif raw is None:
        body = {}
    else:
        body = raw
    if isinstance(body, dict):
        body = dict(body)
        for key in ("location", "tags"):
            value = _get(v, key)
            if value is not None and key not in body:
                body[key] = value
        identity = _identity(_block(v, "identity"))
        if identity is not None and "identity" not in body:
            body["identity"] = identity
        _to_seed_names(body, kind)
    elif not isinstance(body, Unknown):
        body = Unknown(
            f"{address}.body", "the body is not an object", UnknownKind.ERROR, f"{address}.body"
        )
    out_body: dict[str, Any] | None = body if isinstance(body, dict) else {"properties": body}
    return Mapped(
        f"{parent_part}/providers/{seed_type}/{name_part}?api-version={quote(version, safe='-.')}",
        out_body,
        url.unknown,
    )


def _to_seed_names(body: dict[str, Any], kind: str) -> None:
    props = body.get("properties")
    if not isinstance(props, dict):
        return
    props = body["properties"] = dict(props)
    if kind == "domain" and isinstance(props.get("inputSchema"), str):
        props["inputSchema"] = to_seed_value(props["inputSchema"])
    if kind == "roleAssignment":
        for key in ("roleDefinitionId", "scope", "delegatedManagedIdentityResourceId"):
            if isinstance(props.get(key), str):
                props[key] = to_seed(props[key])


# --- entry point -------------------------------------------------------------------------------------


def map_resource(rtype: str, values: Any, *, address: str, subscription: Any) -> Mapped | None:
    """The request a supported resource makes (``None`` for an ``azapi_resource`` of a type the
    rules do not cover)."""
    if rtype == DOMAIN:
        url, missing = _rg_url(
            subscription, values, address, "Cloud.EventRouting/domains", _DOMAIN_VERSION
        )
        return Mapped(url, _domain_body(values), missing)
    if rtype in CLUSTER_TYPES:
        url, missing = _rg_url(
            subscription, values, address, "Cloud.AnalyticsCluster/clusters", _CLUSTER_VERSION
        )
        return Mapped(url, _cluster_body(rtype, values), missing)
    if rtype == ROLE_ASSIGNMENT:
        return _role_assignment(values, address)
    if rtype == AZAPI:
        typed = azapi_type(values)
        if typed is None or typed[0].lower() not in _AZAPI_TYPES:
            return None
        return _azapi(values, address, _AZAPI_TYPES[typed[0].lower()], typed[0], typed[1])
    return None


def delete_url(rtype: str, values: Any, *, address: str, subscription: Any) -> Mapped | None:
    """The ``DELETE`` request for a resource a plan destroys (from its values before)."""
    mapped = map_resource(rtype, values, address=address, subscription=subscription)
    if mapped is None:
        return None
    return Mapped(mapped.url, None, mapped.unknown_url)
