"""What one exported record is, and the same record in the snapshot's shape (contracts §2, §8).

A record is recognised by its ``type`` (``Microsoft.Authorization/roleAssignments`` or the seed's
``Cloud.`` name; any casing), a Graph ``@odata.type``, or, when it has neither, by the fields it
carries (``principalId`` and ``roleDefinitionId``: a role assignment; ``roleName``: a role
definition; ``eventType``: a health event; ...), under ``properties`` (the REST shape) or at the top
level (the vendor CLI's and SDKs' flattened shape, whose properties are moved back under
``properties``). The CLI's display-only fields (``principalName``, ``roleDefinitionName``,
``resourceGroup``, ``canDelegate``) are not kept.

Directory objects (``az ad user list``, ``az ad group list``, ``az ad sp list``, ``az ad group member
list``, Graph ``/users``, ``/groups``, ``/servicePrincipals``, ``/groups/{id}/members``) become
``principals``: ``id``, ``type`` (User, Group, ServicePrincipal, Device), ``displayName``, ``email``
(``mail``, else a user's ``userPrincipalName``), ``userType``, ``accountEnabled``, and ``memberOf``
for the members of a group listing; other Graph fields are not kept.
"""

from __future__ import annotations

from typing import Any

import msgspec

from auditor.errors import describe_value
from auditor.estate.records import DirectoryPrincipalRecord
from auditor.sources.exports._health import event_doc
from auditor.sources.names import to_seed

SECTIONS_BY_TYPE: dict[str, str] = {
    "cloud.authorization/roleassignments": "roleAssignments",
    "cloud.authorization/roledefinitions": "roleDefinitions",
    "cloud.authorization/denyassignments": "denyAssignments",
    "cloud.analyticscluster/clusters": "clusters",
    "cloud.eventrouting/domains": "domains",
    "cloud.resourcehealth/events": "healthEvents",
}
"""Resource types (the seed's names, lower case) -> snapshot section."""

TYPE_OF_SECTION = {
    "roleAssignments": "Cloud.Authorization/roleAssignments",
    "roleDefinitions": "Cloud.Authorization/roleDefinitions",
    "denyAssignments": "Cloud.Authorization/denyAssignments",
    "clusters": "Cloud.AnalyticsCluster/clusters",
    "domains": "Cloud.EventRouting/domains",
    "healthEvents": "Cloud.ResourceHealth/events",
}

_GRAPH_TYPES = {
    "#microsoft.graph.user": "User",
    "#microsoft.graph.group": "Group",
    "#microsoft.graph.serviceprincipal": "ServicePrincipal",
    "#microsoft.graph.device": "Device",
}
_OBJECT_TYPES = {
    "user": "User",
    "group": "Group",
    "serviceprincipal": "ServicePrincipal",
    "device": "Device",
    "foreigngroup": "ForeignGroup",
}
"""``objectType`` of the older directory listings, and a snapshot principal's ``type``."""
_ENVELOPE = frozenset(
    {
        "id",
        "name",
        "type",
        "location",
        "tags",
        "identity",
        "sku",
        "kind",
        "etag",
        "systemData",
        "zones",
        "managedBy",
        "plan",
        "properties",
    }
)
DERIVED = frozenset({"principalName", "roleDefinitionName", "resourceGroup", "canDelegate"})
"""Fields the vendor CLI adds for display; not kept."""

_HINTS: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...] = (
    ("roleAssignments", (("principalId", "roleDefinitionId"),)),
    ("denyAssignments", (("denyAssignmentName",), ("excludePrincipals",), ("isSystemProtected",))),
    ("roleDefinitions", (("roleName",), ("assignableScopes",))),
    ("clusters", (("clusterDefinition",), ("computeProfile",), ("clusterVersion",))),
    ("domains", (("inputSchema",), ("inboundIpRules",), ("inputSchemaMapping",))),
    ("healthEvents", (("eventType",), ("event_type",))),
)
"""A record without a ``type``: the fields that tell its section (any one group, all its fields)."""


def _hinted(fields: dict[str, Any]) -> str | None:
    for section, groups in _HINTS:
        for group in groups:
            if all(name in fields for name in group):
                return section
    return None


class DirectoryObject(msgspec.Struct, gc=False):
    """A directory object as Graph and the vendor CLI list it (other fields ignored): decoded
    straight from JSON on the fast path of a directory listing. A field the object does not have
    is ``UNSET`` (its kind is told by which fields it has)."""

    id: Any = None
    odata_type: Any = msgspec.field(default=msgspec.UNSET, name="@odata.type")
    objectType: Any = msgspec.UNSET
    type: Any = msgspec.UNSET
    displayName: str | None = None
    mail: str | None = None
    email: str | None = None
    userPrincipalName: Any = msgspec.UNSET
    userType: str | None = None
    accountEnabled: bool | None = None
    securityEnabled: Any = msgspec.UNSET
    mailEnabled: Any = msgspec.UNSET
    groupTypes: Any = msgspec.UNSET
    appId: Any = msgspec.UNSET
    servicePrincipalType: Any = msgspec.UNSET
    memberOf: list[str] | None = None


_UNSET: Any = msgspec.UNSET
_KIND_FIELDS = (
    ("@odata.type", "odata_type"),
    ("objectType", "objectType"),
    ("type", "type"),
    ("userPrincipalName", "userPrincipalName"),
    ("securityEnabled", "securityEnabled"),
    ("mailEnabled", "mailEnabled"),
    ("groupTypes", "groupTypes"),
    ("appId", "appId"),
    ("servicePrincipalType", "servicePrincipalType"),
)


def directory_kind(obj: DirectoryObject) -> str | None:
    """User, Group, ServicePrincipal or Device: by ``@odata.type``, else ``objectType`` (the older
    listings) or a snapshot principal's ``type``, else by the fields a kind alone has
    (``userPrincipalName``; ``securityEnabled``, ``mailEnabled``, ``groupTypes``; ``appId``,
    ``servicePrincipalType``); None for anything else."""
    odata = obj.odata_type
    if odata is not _UNSET:
        return _GRAPH_TYPES.get(odata.lower()) if isinstance(odata, str) else None
    for value in (obj.objectType, obj.type):
        if isinstance(value, str):
            kind = _OBJECT_TYPES.get(value.lower())
            if kind is not None:
                return kind
    if obj.userPrincipalName is not _UNSET:
        return "User"
    if (
        obj.securityEnabled is not _UNSET
        or obj.mailEnabled is not _UNSET
        or obj.groupTypes is not _UNSET
    ):
        return "Group"
    if obj.appId is not _UNSET or obj.servicePrincipalType is not _UNSET:
        return "ServicePrincipal"
    return None


def principal_type(obj: dict[str, Any]) -> str | None:
    """:func:`directory_kind` of plain JSON."""
    found = {attr: obj[key] for key, attr in _KIND_FIELDS if key in obj}
    return directory_kind(DirectoryObject(**found))


def directory_record(obj: DirectoryObject, group: str | None) -> DirectoryPrincipalRecord | None:
    """The snapshot principal of a decoded directory object (None when it is no principal or
    has no id); the same rules as :func:`principal_doc`."""
    kind = directory_kind(obj)
    if kind is None or not isinstance(obj.id, str) or not obj.id:
        return None
    email = obj.mail or obj.email
    if email is None and kind == "User" and isinstance(obj.userPrincipalName, str):
        email = obj.userPrincipalName
    groups = list(obj.memberOf) if obj.memberOf else []
    if group is not None and group not in groups:
        groups.append(group)
    return DirectoryPrincipalRecord(
        id=obj.id,
        type=kind,
        displayName=obj.displayName,
        email=email,
        userType=obj.userType,
        accountEnabled=obj.accountEnabled,
        memberOf=groups,
    )


def classify(obj: Any) -> tuple[str, str] | str:
    """``(section, shape)`` of a record (shape ``rest``, ``flat`` or ``graph``), or why it is not
    one the audit reads."""
    if not isinstance(obj, dict):
        return f"not an object ({describe_value(obj, quote=False)})"
    if "@odata.type" in obj:
        if principal_type(obj) is None:
            return f"a directory object of type {_shown(obj['@odata.type'])} (not a principal)"
        return "principals", "graph"
    props = obj.get("properties")
    kind = obj.get("type")
    if isinstance(kind, str) and kind.strip():
        section = SECTIONS_BY_TYPE.get(to_seed(kind.strip()).lower())
        if section is not None:
            if isinstance(props, dict):
                return section, "rest"
            if props is None and "properties" in obj and _hinted(obj) != section:
                # `az resource list` leaves the properties out: judging the record would judge
                # the seed's defaults, not the resource
                return (
                    f"a {_shown(to_seed(kind))} listed without its properties (as "
                    "`az resource list` lists it): list it with its provider's command"
                )
            return section, "flat"
        if principal_type(obj) is None or "/" in kind:
            return f"not a kind the audit reads ({_shown(to_seed(kind))})"
    if principal_type(obj) is not None and "id" in obj:
        return "principals", "graph"
    if isinstance(props, dict):
        section = _hinted(props)
        if section is not None:
            return section, "rest"
    section = _hinted(obj)
    if section is not None:
        return section, "flat"
    return "not a record the audit reads (no type, and no fields that tell one)"


def _shown(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 80 else text[:79] + "…"


def to_doc(
    obj: dict[str, Any],
    section: str,
    shape: str,
    *,
    listed_in: str | None = None,
    group: str | None = None,
) -> tuple[dict[str, Any], str]:
    """The record in the snapshot's REST shape (names not yet rewritten, but for health event
    ids), and a note for the user ("" when none)."""
    if section == "principals":
        return principal_doc(obj, group), ""
    if section == "healthEvents":
        return event_doc(obj, shape == "flat", listed_in)
    if shape == "flat":
        doc: dict[str, Any] = {}
        props: dict[str, Any] = {}
        for key, value in obj.items():
            if key in DERIVED:
                continue
            if key in _ENVELOPE:
                doc[key] = value
            else:
                props[key] = value
        if section == "roleDefinitions" and "roleType" in props and "type" not in props:
            props["type"] = props.pop("roleType")
        doc["properties"] = props
        return doc, ""
    if any(key in DERIVED for key in obj):
        return {k: v for k, v in obj.items() if k not in DERIVED}, ""
    return obj, ""


def principal_doc(obj: dict[str, Any], group: str | None) -> dict[str, Any]:
    """A directory object as a snapshot principal (fields that are absent stay out)."""
    kind = principal_type(obj)
    doc: dict[str, Any] = {"id": obj.get("id")}
    if kind is not None:
        doc["type"] = kind
    for field in ("displayName", "userType", "accountEnabled"):
        if obj.get(field) is not None:
            doc[field] = obj[field]
    email = obj.get("mail") or obj.get("email")
    if email is None and kind == "User":
        email = obj.get("userPrincipalName")
    if email is not None:
        doc["email"] = email
    member_of = obj.get("memberOf")
    groups = list(member_of) if isinstance(member_of, list) else []
    if group is not None and group not in groups:
        groups.append(group)
    doc["memberOf"] = groups
    return doc
