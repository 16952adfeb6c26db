"""Bodies of the two write endpoints: validation of the create requests (seed 2.B, 2.C) with the
JSON path of the first problem, and the responses a create returns (Cluster, Domain).

A cluster response never carries passwords, storage keys, SSH key material or configurations; a
domain response carries the seed's defaults filled in, as the real service reports them.
"""

from __future__ import annotations

import ipaddress
import json
import math
import re
import uuid
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec
from pydantic import BaseModel, ValidationError

from auditor.estate._errors import from_pydantic
from auditor.model.cluster import (
    CLUSTER_RESOURCE_TYPE,
    Cluster,
    ClusterCreateRequest,
    ClusterRole,
    ClusterTier,
    OsType,
)
from auditor.model.defaults import domain_with_defaults
from auditor.model.domain import (
    DOMAIN_RESOURCE_TYPE,
    DataResidencyBoundary,
    Domain,
    DomainCreateRequest,
    EventDefinitionKind,
    IdentityType,
    InputSchema,
    InputSchemaMappingType,
    IpActionType,
    PublicNetworkAccess,
    TlsVersion,
)


class BodyError(Exception):
    """A request body the endpoint refuses: ``path`` is its JSON path (``""`` for the whole body)."""

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.path = path

    def describe(self) -> str:
        where = self.path or "the request body"
        return f"The request content is invalid at {where}: {self.message}"


MAX_BODY_DEPTH = 64
"""Deepest nesting of objects and arrays a request body may have (the seed's bodies need 7)."""


def decode_object(raw: bytes) -> dict[str, Any]:
    """The JSON object of a request body, or a BodyError naming what is wrong (including nesting
    deeper than :data:`MAX_BODY_DEPTH`, refused before anything recurses over it)."""
    if not raw.strip():
        raise BodyError("the body is empty; expected a JSON object")
    try:
        value = msgspec.json.decode(raw)
    except msgspec.DecodeError as exc:
        raise BodyError(f"the body is not valid JSON ({exc})") from None
    except UnicodeDecodeError:  # (msgspec raises it for a string that is not UTF-8)
        raise BodyError("the body is not valid UTF-8 (a string holds bytes that are not)") from None
    except RecursionError:
        raise BodyError(f"the body is nested more than {MAX_BODY_DEPTH} levels deep") from None
    if not isinstance(value, dict):
        raise BodyError("expected a JSON object")
    too_deep = _too_deep(value, MAX_BODY_DEPTH)
    if too_deep is not None:
        shown = too_deep if len(too_deep) <= 160 else "..." + too_deep[-157:]
        raise BodyError(f"nested more than {MAX_BODY_DEPTH} levels deep", shown)
    return value


def _too_deep(value: Any, limit: int) -> str | None:
    """The JSON path of the first object or array nested deeper than ``limit`` (the body itself is
    level 1), or None; iterative, so any depth is safe."""
    stack: list[tuple[Any, int, str]] = [(value, 1, "")]
    while stack:
        item, depth, path = stack.pop()
        if depth > limit:
            return path
        children = item.items() if isinstance(item, dict) else enumerate(item)
        for key, child in children:
            if isinstance(child, (dict, list)):
                where = f"{path}[{key}]" if isinstance(key, int) else _member(path, key)
                stack.append((child, depth + 1, where))
    return None


def _member(path: str, key: str) -> str:
    shown = key if len(key) <= 40 else key[:37] + "..."
    if re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$-]*", shown):
        return f"{path}.{shown}" if path else shown
    return f"{path}[{json.dumps(shown)}]"  # ASCII only: control and bidi characters escaped


_M = TypeVar("_M", bound=BaseModel)


def _validate(model: type[_M], body: dict[str, Any]) -> _M:
    try:
        return model.model_validate(body, strict=True)
    except ValidationError as exc:
        err = from_pydantic(exc, source="body", prefix="")
        raise BodyError(err.detail, err.location or "") from None


def _one_of(value: str | None, allowed: type[Any], path: str, *, required: bool = False) -> None:
    if value is None:
        if required:
            raise BodyError("expected a value (the field is required), found nothing", path)
        return
    names = [str(v.value) for v in allowed]
    if value.lower() not in {n.lower() for n in names}:
        shown = value if len(value) <= 40 else value[:37] + "..."
        raise BodyError(f'expected one of {", ".join(names)}, found "{shown}"', path)


def _required_text(value: str | None, path: str) -> None:
    if value is None or not value.strip():
        raise BodyError("expected a non-empty string (the field is required)", path)


# --- clusters (seed 2.B, 4.3) -------------------------------------------------------------------

_FULL_VERSIONS = {
    "5.1": "5.1.3000.0.2308052231",
    "5.0": "5.0.3000.0.2307040712",
    "4.0": "4.0.3000.1.2308052231",
    "3.6": "3.6.1000.67.2105060315",
}

_COMPONENTS = {
    "5": {
        "hadoop": "3.3",
        "spark": "3.3",
        "kafka": "3.2",
        "hbase": "2.4",
        "interactivehive": "3.1",
    },
    "4": {
        "hadoop": "3.1",
        "spark": "3.1",
        "kafka": "2.4",
        "hbase": "2.1",
        "interactivehive": "3.1",
    },
    "3": {
        "hadoop": "2.7",
        "spark": "2.4",
        "kafka": "2.1",
        "hbase": "1.1",
        "interactivehive": "2.1",
    },
}

_COMPONENT_NAMES = {
    "hadoop": "Hadoop",
    "spark": "Spark",
    "kafka": "Kafka",
    "hbase": "HBase",
    "interactivehive": "InteractiveHive",
}

# Size aliases of the service, resolved to explicit sizes (returned lower case).
_SIZE_ALIASES = {
    "small": "standard_a1_v2",
    "medium": "standard_a2_v2",
    "large": "standard_a4_v2",
    "extralarge": "standard_a8_v2",
}

# Cores of the sizes whose name does not say it.
_CORES = {
    "standard_a1_v2": 1,
    "standard_a2_v2": 2,
    "standard_a4_v2": 4,
    "standard_a8_v2": 8,
    "standard_a2m_v2": 2,
    "standard_a4m_v2": 4,
    "standard_a8m_v2": 8,
    "standard_d1_v2": 1,
    "standard_d2_v2": 2,
    "standard_d3_v2": 4,
    "standard_d4_v2": 8,
    "standard_d5_v2": 16,
    "standard_d11_v2": 2,
    "standard_d12_v2": 4,
    "standard_d13_v2": 8,
    "standard_d14_v2": 16,
    "standard_ds1_v2": 1,
    "standard_ds2_v2": 2,
    "standard_ds3_v2": 4,
    "standard_ds4_v2": 8,
    "standard_ds5_v2": 16,
    "standard_ds11_v2": 2,
    "standard_ds12_v2": 4,
    "standard_ds13_v2": 8,
    "standard_ds14_v2": 16,
}
_CORES_IN_NAME = re.compile(r"^standard_[a-z]+?(\d+)[a-z]*_v[3-9]$")
DEFAULT_CORES = 4


def normalise_vm_size(size: str | None) -> str | None:
    """An explicit size name, lower case (aliases resolved)."""
    if size is None:
        return None
    lowered = size.strip().lower()
    return _SIZE_ALIASES.get(lowered, lowered)


def vm_cores(size: str | None) -> int:
    """Cores of a (normalised) size; sizes of newer series carry them in their name (``_d8s_v3``).
    Unknown sizes count :data:`DEFAULT_CORES`."""
    if size is None:
        return DEFAULT_CORES
    if size in _CORES:
        return _CORES[size]
    m = _CORES_IN_NAME.match(size)
    return int(m.group(1)) if m else DEFAULT_CORES


def full_cluster_version(requested: str | None) -> str:
    """The full version the service reports for a requested ``major.minor`` (seed 2.B)."""
    version = (requested or "5.1").strip()
    if version in _FULL_VERSIONS:
        return _FULL_VERSIONS[version]
    if re.fullmatch(r"\d+\.\d+", version):
        return f"{version}.3000.0.2308052231"
    return version


def validate_cluster_body(body: dict[str, Any]) -> ClusterCreateRequest:
    """The validated create request, or a BodyError with the JSON path of the first problem."""
    request = _validate(ClusterCreateRequest, body)
    _required_text(request.location, "location")
    props = request.properties
    _one_of(props.osType, OsType, "properties.osType")
    _one_of(props.tier, ClusterTier, "properties.tier")
    definition = props.clusterDefinition
    if definition is None:
        raise BodyError(
            "expected an object (the field is required), found nothing",
            "properties.clusterDefinition",
        )
    _required_text(definition.kind, "properties.clusterDefinition.kind")
    if props.clusterVersion is not None and not re.fullmatch(
        r"\d+\.\d+(\.\d+)*", props.clusterVersion.strip()
    ):
        raise BodyError('expected a version such as "5.1"', "properties.clusterVersion")
    roles = props.computeProfile.roles if props.computeProfile else []
    if not roles:
        raise BodyError("expected at least one role", "properties.computeProfile.roles")
    for i, role in enumerate(roles):
        where = f"properties.computeProfile.roles[{i}]"
        _required_text(role.name, f"{where}.name")
        if role.targetInstanceCount is None or role.targetInstanceCount < 1:
            raise BodyError("expected an integer of at least 1", f"{where}.targetInstanceCount")
    return request


def _role_response(role: ClusterRole) -> dict[str, Any]:
    out: dict[str, Any] = {"name": role.name, "targetInstanceCount": role.targetInstanceCount}
    if role.hardwareProfile is not None:
        out["hardwareProfile"] = {"vmSize": normalise_vm_size(role.hardwareProfile.vmSize)}
    linux = role.osProfile.linuxOperatingSystemProfile if role.osProfile else None
    if linux is not None:
        out["osProfile"] = {"linuxOperatingSystemProfile": {"username": linux.username}}
    if role.virtualNetworkProfile is not None:
        out["virtualNetworkProfile"] = role.virtualNetworkProfile.to_wire()
    return out


def cores_used(request: ClusterCreateRequest) -> int:
    roles = request.properties.computeProfile.roles if request.properties.computeProfile else []
    total = 0
    for role in roles:
        size = normalise_vm_size(role.hardwareProfile.vmSize if role.hardwareProfile else None)
        total += (role.targetInstanceCount or 0) * vm_cores(size)
    return total


def build_cluster(
    resource_id: str, name: str, request: ClusterCreateRequest, *, now: str
) -> Cluster:
    """The Cluster the create answers with (seed 2.B response table), in its final state."""
    props = request.properties
    definition = props.clusterDefinition
    kind = definition.kind if definition and definition.kind else "hadoop"
    version = full_cluster_version(props.clusterVersion)
    component = _COMPONENTS.get(version.split(".", 1)[0], _COMPONENTS["5"]).get(kind.lower(), "1.0")
    out_props: dict[str, Any] = {
        "clusterVersion": version,
        "osType": props.osType or "Linux",
        "clusterId": uuid.uuid4().hex,
        "clusterDefinition": {
            "blueprint": f"https://blueprints.analyticscluster.example.net/{kind.lower()}-{version}.json",
            "kind": kind,
            "componentVersion": {_COMPONENT_NAMES.get(kind.lower(), kind): component},
        },
        "computeProfile": {"roles": [_role_response(r) for r in props.computeProfile.roles]}
        if props.computeProfile
        else {"roles": []},
        "provisioningState": "Succeeded",
        "clusterState": "Running",
        "createdDate": now,
        "quotaInfo": {"coresUsed": cores_used(request)},
        "connectivityEndpoints": [
            {
                "name": "SSH",
                "protocol": "TCP",
                "location": f"{name}-ssh.analyticscluster.example.net",
                "port": 22,
            },
            {
                "name": "HTTPS",
                "protocol": "TCP",
                "location": f"{name}.analyticscluster.example.net",
                "port": 443,
            },
        ],
        "tier": props.tier or "Standard",
    }
    for key in ("networkProperties", "computeIsolationProperties", "encryptionInTransitProperties"):
        sub = getattr(props, key)
        if sub is not None:
            out_props[key] = sub.to_wire()
    if props.diskEncryptionProperties is not None:
        disk = {
            "encryptionAtHost": False,
            "vaultUri": None,
            "keyName": None,
            "keyVersion": None,
            "encryptionAlgorithm": None,
            "msiResourceId": None,
        }
        given = props.diskEncryptionProperties.to_wire()
        disk.update({k: v for k, v in given.items() if k in disk})
        out_props["diskEncryptionProperties"] = disk
    wire: dict[str, Any] = {
        "id": resource_id,
        "name": name,
        "type": CLUSTER_RESOURCE_TYPE,
        "location": request.location,
        "etag": str(uuid.uuid4()),
        "tags": request.tags,
    }
    if request.zones:
        wire["zones"] = list(request.zones)
    if request.identity is not None:
        wire["identity"] = request.identity.to_wire()
    wire["properties"] = out_props
    return Cluster.model_validate(wire, strict=True)


# --- domains (seed 2.C, 4.4) --------------------------------------------------------------------

_RESPONSE_ONLY = ("endpoint", "metricResourceId", "privateEndpointConnections", "provisioningState")


def validate_domain_body(body: dict[str, Any]) -> DomainCreateRequest:
    """The validated create-or-update request, or a BodyError with the JSON path of the problem."""
    request = _validate(DomainCreateRequest, body)
    _required_text(request.location, "location")
    p = request.properties
    _one_of(p.dataResidencyBoundary, DataResidencyBoundary, "properties.dataResidencyBoundary")
    _one_of(p.inputSchema, InputSchema, "properties.inputSchema")
    _one_of(p.minimumTlsVersionAllowed, TlsVersion, "properties.minimumTlsVersionAllowed")
    _one_of(p.publicNetworkAccess, PublicNetworkAccess, "properties.publicNetworkAccess")
    for i, rule in enumerate(p.inboundIpRules):
        where = f"properties.inboundIpRules[{i}]"
        if rule.ipMask is None:
            raise BodyError(
                "expected a value (the field is required), found nothing", f"{where}.ipMask"
            )
        try:
            ipaddress.ip_network(rule.ipMask.strip(), strict=False)
        except ValueError:
            raise BodyError(
                "expected an IP address range in CIDR notation", f"{where}.ipMask"
            ) from None
        _one_of(rule.action, IpActionType, f"{where}.action")
    if p.eventTypeInfo is not None:
        _one_of(p.eventTypeInfo.kind, EventDefinitionKind, "properties.eventTypeInfo.kind")
    if p.inputSchemaMapping is not None:
        _one_of(
            p.inputSchemaMapping.inputSchemaMappingType,
            InputSchemaMappingType,
            "properties.inputSchemaMapping.inputSchemaMappingType",
            required=True,
        )
    if request.identity is not None:
        _one_of(request.identity.type, IdentityType, "identity.type")
    return request


def domain_endpoint(name: str, location: str) -> str:
    region = re.sub(r"[^a-z0-9]", "", location.lower()) or "region"
    return f"https://{name.lower()}.{region}-1.eventrouting.example.net/api/events"


def build_domain(
    resource_id: str,
    name: str,
    request: DomainCreateRequest,
    *,
    previous: Domain | None,
    caller: str,
    tenant_id: str | None,
    now: str,
) -> Domain:
    """The Domain a create-or-update answers with: provisioningState Succeeded, defaults filled in,
    creation data kept from ``previous`` on update."""
    body = request.to_wire()
    props = domain_with_defaults(body)["properties"]
    for key in _RESPONSE_ONLY:
        props.pop(key, None)
    old = previous.properties if previous is not None else None
    props["endpoint"] = domain_endpoint(name, request.location)
    props["metricResourceId"] = (
        old.metricResourceId if old is not None and old.metricResourceId else str(uuid.uuid4())
    )
    props["privateEndpointConnections"] = (
        [c.to_wire() for c in old.privateEndpointConnections] if old is not None else []
    )
    props["provisioningState"] = "Succeeded"
    created = previous.systemData if previous is not None else None
    wire: dict[str, Any] = {
        "id": resource_id,
        "name": name,
        "type": DOMAIN_RESOURCE_TYPE,
        "location": request.location,
    }
    if request.tags is not None:
        wire["tags"] = request.tags
    identity = request.identity
    if identity is not None and (identity.type or "").lower() != "none":
        ident = identity.to_wire()
        if "systemassigned" in (identity.type or "").lower().replace(" ", ""):
            kept = previous.identity if previous is not None else None
            ident["principalId"] = (
                kept.principalId if kept is not None and kept.principalId else str(uuid.uuid4())
            )
            ident["tenantId"] = tenant_id or str(uuid.UUID(int=0))
        wire["identity"] = ident
    wire["systemData"] = {
        "createdAt": created.createdAt if created and created.createdAt else now,
        "createdBy": created.createdBy if created and created.createdBy else caller,
        "createdByType": created.createdByType if created and created.createdByType else "User",
        "lastModifiedAt": now,
        "lastModifiedBy": caller,
        "lastModifiedByType": "User",
    }
    wire["properties"] = props
    return Domain.model_validate(wire, strict=True)


@dataclass
class Operation:
    """An asynchronous operation of a cluster create (semantics 4)."""

    id: str
    resource_id: str
    started_at: str
    due: float
    """Monotonic time at which it is done."""

    def remaining(self, now: float) -> float:
        return max(0.0, self.due - now)

    def retry_after(self, now: float) -> int:
        return math.ceil(self.remaining(now))
