"""A template's resource -> the request the deployment would send, in the seed's names.

- URL: ``/subscriptions/{sub}/resourceGroups/{rg}/providers/Cloud.EventRouting/domains/{name}
  ?api-version={the template's apiVersion}`` (clusters alike); a role assignment's is
  ``{scope}/providers/Cloud.Authorization/roleAssignments/{name}``, its scope the ``scope``
  member of an extension resource, the parent of the legacy form
  (``Microsoft.Storage/storageAccounts/providers/roleAssignments``), or the deployment's own scope.
  The deployment's subscription and resource group, when not given, are the placeholders
  ``{subscriptionId}`` and ``{resourceGroupName}``; a segment given by an unresolved expression is
  that expression in braces. ``unknown_url`` is set only when the resource's own name (or a role
  assignment's scope) is unknown.
- Body: ``location``, ``tags``, ``identity``, ``properties``, ``zones``, ``sku`` as the template
  gives them (a role assignment: ``properties``), evaluated; resource ids and types in values (and
  keys such as ``userAssignedIdentities``') in the seed's names, ``inputSchema`` in the seed's
  spelling, a role assignment's ``condition`` in the seed's names. Unknown values stay as
  :class:`Unknown` markers; under a secret key their texts are redacted (string literals shown as
  ``'***'``), since a template may spell part of a secret inline.
- Suppressions: ``"metadata": {"auditor": {"skip": {"DOM-001": "<reason>"}}}`` on the resource;
  a suppression without a reason is an input error.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from auditor.errors import InputError
from auditor.expr.arm import Unknown, is_expression, literal_value
from auditor.expr.arm.values import MAX_NESTING, describe_type
from auditor.model.secrets import is_secret_key
from auditor.sources.arm._template import MISSING, Resource, Target, Walker, member, member_key
from auditor.sources.deployment import DeploymentRequest, SourceRef
from auditor.sources.names import to_seed, to_seed_value

__all__ = ["build_request", "suppressions"]

_BODY_KEYS = ("location", "tags", "identity", "properties", "zones", "sku")
_SEED_TYPES = {
    "domain": "Cloud.EventRouting/domains",
    "cluster": "Cloud.AnalyticsCluster/clusters",
}
_ROLE_ASSIGNMENTS = "Cloud.Authorization/roleAssignments"
_SUBSCRIPTION = "{subscriptionId}"
_GROUP = "{resourceGroupName}"
_MANAGEMENT_GROUP = "{managementGroupId}"
_SEGMENT_SAFE = "-._~!$&'()*+,;=:@"
_SHOWN_SAFE = "-._~()[]\"',"
_ID_PREFIXES = ("/subscriptions/", "/providers/")
_KEY_MATERIAL = frozenset({"certificatedata"})


def build_request(walker: Walker, resource: Resource) -> DeploymentRequest:
    """The request ``resource`` (a domain, a cluster or a role assignment) makes."""
    url = _Url()
    query = _query(walker, resource)
    if resource.kind in _SEED_TYPES:
        name = url.segment(walker.name(resource), "name", own=True)
        prefix = _group_prefix(resource.frame.target, url)
        address = f"{prefix}/providers/{_SEED_TYPES[resource.kind or '']}/{name}"
        body = _body(walker, resource, _BODY_KEYS)
        if resource.kind == "domain":
            _domain_values(body)
    else:
        scope, name = _role_assignment_scope(walker, resource, url)
        address = f"{scope}/providers/{_ROLE_ASSIGNMENTS}/{name}"
        body = _body(walker, resource, ("properties",))
        _role_assignment_values(body)
    line = walker.document.line(resource.keys)
    return DeploymentRequest(
        method="PUT",
        url=address + query,
        body=body,
        source=SourceRef(walker.source, line, resource.address),
        suppressions=suppressions(walker, resource),
        unknown_url=url.unknown,
    )


# --- URL ---------------------------------------------------------------------------------------------


class _Url:
    def __init__(self) -> None:
        self.unknown: Unknown | None = None

    def segment(self, value: Any, what: str, *, own: bool = False, placeholder: str = "") -> str:
        """A path segment: the value quoted, an unknown's expression in braces (the resource's
        own name or scope: ``unknown_url`` set), or ``placeholder`` for a scope not given."""
        if isinstance(value, str) and value:
            return quote(value, safe=_SEGMENT_SAFE)
        if isinstance(value, Unknown):
            if own and self.unknown is None:
                self.unknown = value
            return "{" + _shown(value) + "}"
        if value is None and placeholder:
            return placeholder
        return "{" + what + "}"


def _shown(unknown: Unknown) -> str:
    text = unknown.origin or unknown.expression or "unknown"
    return quote(re.sub(r",\s+", ",", " ".join(text.split())), safe=_SHOWN_SAFE)


def _query(walker: Walker, resource: Resource) -> str:
    key = member_key(resource.raw, "apiVersion")
    if key is None:
        return ""
    version = walker.evaluate(resource.raw[key], resource.context, (*resource.keys, key))
    if isinstance(version, str) and version:
        return "?api-version=" + quote(version, safe="-._~")
    return ""


def _group_prefix(target: Target, url: _Url) -> str:
    subscription = url.segment(target.subscription, "subscription", placeholder=_SUBSCRIPTION)
    group = url.segment(target.resource_group, "resourceGroup", placeholder=_GROUP)
    return f"/subscriptions/{subscription}/resourceGroups/{group}"


def _level_scope(target: Target, url: _Url) -> str:
    """The scope a deployment at ``target`` creates role assignments at by default."""
    if target.level == "subscription" and target.resource_group is None:
        return "/subscriptions/" + url.segment(
            target.subscription, "subscription", placeholder=_SUBSCRIPTION
        )
    if target.level == "managementGroup":
        return f"/providers/Cloud.Management/managementGroups/{_MANAGEMENT_GROUP}"
    if target.level == "tenant":
        return ""
    return _group_prefix(target, url)


def _quote_id(resource_id: str) -> str:
    return quote(to_seed(resource_id.strip().rstrip("/")), safe="/{}" + _SEGMENT_SAFE)


def _role_assignment_scope(walker: Walker, resource: Resource, url: _Url) -> tuple[str, str]:
    """(scope, name segment) of a role assignment."""
    target = resource.frame.target
    name = walker.name(resource)
    if resource.kind == "legacyRoleAssignment":
        return _legacy_scope(walker, resource, name, url)
    key = member_key(resource.raw, "scope")
    if key is None:
        return _level_scope(target, url), url.segment(name, "name", own=True)
    scope = walker.resolved(resource.raw[key], resource, (*resource.keys, key))
    if isinstance(scope, Unknown):
        shown = url.segment(scope, "scope", own=True)
        return "/" + shown, url.segment(name, "name", own=True)
    if not isinstance(scope, str) or not scope.strip():
        raise InputError(
            f"expected the scope (a resource id), found {describe_type(scope)}",
            source=walker.source,
            location=walker.document.where((*resource.keys, key)),
        )
    if scope.startswith("/"):
        prefix = _quote_id(scope)
    else:  # relative to the deployment's resource group: Microsoft.EventGrid/domains/name
        prefix = _group_prefix(target, url) + "/providers/" + _quote_id(scope.strip("/"))
    return prefix, url.segment(name, "name", own=True)


def _legacy_scope(walker: Walker, resource: Resource, name: Any, url: _Url) -> tuple[str, str]:
    """``Microsoft.Storage/storageAccounts/providers/roleAssignments`` named
    ``account/Microsoft.Authorization/id``: the assignment ``id`` at the account."""
    types = resource.type.split("/")
    cut = [part.lower() for part in types].index("providers")
    namespace, parent_types = types[0], types[1:cut]
    if isinstance(name, Unknown):
        prefix = _group_prefix(resource.frame.target, url)
        return f"{prefix}/providers/{to_seed(namespace)}/" + "/".join(
            f"{kind}/{{name}}" for kind in parent_types
        ), url.segment(name, "name", own=True)
    parts = name.split("/")
    if len(parts) != len(parent_types) + 2 or parts[-2].lower() != "microsoft.authorization":
        raise InputError(
            f"expected the name {'/'.join('{' + t + '}' for t in parent_types)}"
            "/Microsoft.Authorization/{id} for a role assignment of this type",
            source=walker.source,
            location=walker.document.where((*resource.keys, "name")),
        )
    segments = [namespace]
    for kind, value in zip(parent_types, parts, strict=False):
        segments.extend((kind, value))
    parent = _quote_id("/".join(segments))
    prefix = _group_prefix(resource.frame.target, url)
    return f"{prefix}/providers/{parent}", url.segment(parts[-1], "name", own=True)


# --- body --------------------------------------------------------------------------------------------


def _body(walker: Walker, resource: Resource, keys: tuple[str, ...]) -> dict[str, Any]:
    body: dict[str, Any] = {}
    for name in keys:
        key = member_key(resource.raw, name)
        if key is None:
            continue
        where = (*resource.keys, key)
        value = _evaluate_keys(
            walker, resource, walker.resolved(resource.raw[key], resource, where)
        )
        size = [0]
        body[name] = _seed_values(value, is_secret_key(name), 0, size)
        walker.charge(size[0])
    return body


def _evaluate_keys(walker: Walker, resource: Resource, value: Any, depth: int = 0) -> Any:
    """``value`` with every object key that is an expression evaluated, as the vendor's engine
    does (``"userAssignedIdentities": {"[resourceId(...)]": {}}``); a key that cannot be resolved
    stays as written."""
    if depth > MAX_NESTING:
        return value
    if isinstance(value, list):
        return [_evaluate_keys(walker, resource, item, depth + 1) for item in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        name = key
        if is_expression(key):
            evaluated = walker.resolved(key, resource, resource.keys)
            name = evaluated if isinstance(evaluated, str) else key
        elif key.startswith("[["):
            name = literal_value(key)
        out[name] = _evaluate_keys(walker, resource, item, depth + 1)
    return out


def _is_id(text: str) -> bool:
    lowered = text[:16].lower()
    return lowered.startswith(_ID_PREFIXES)


def _seed_values(value: Any, secret: bool, depth: int, size: list[int]) -> Any:
    """``value`` with resource ids (in values and keys) in the seed's names, and unknowns under a
    secret key redacted; ``size`` counts its characters and elements."""
    size[0] += 1
    if isinstance(value, Unknown):
        return value.redacted() if secret else value
    if isinstance(value, str):
        size[0] += len(value)
        return to_seed(value) if _is_id(value) else value
    if depth > MAX_NESTING:
        return value
    if isinstance(value, list):
        return [_seed_values(item, secret, depth + 1, size) for item in value]
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            hidden = secret or is_secret_key(key) or key.lower() in _KEY_MATERIAL
            size[0] += len(key)
            out[to_seed(key) if _is_id(key) else key] = _seed_values(item, hidden, depth + 1, size)
        return out
    return value


def _domain_values(body: dict[str, Any]) -> None:
    properties = body.get("properties")
    if isinstance(properties, dict):
        schema = properties.get("inputSchema")
        if isinstance(schema, str):
            properties["inputSchema"] = to_seed_value(schema)


def _role_assignment_values(body: dict[str, Any]) -> None:
    properties = body.get("properties")
    if isinstance(properties, dict):
        condition = properties.get("condition")
        if isinstance(condition, str):
            properties["condition"] = to_seed(condition)


# --- suppressions ------------------------------------------------------------------------------------


def suppressions(walker: Walker, resource: Resource) -> dict[str, str]:
    """``metadata.auditor.skip`` of a resource: rule id (or glob) -> reason."""
    metadata_key = member_key(resource.raw, "metadata")
    if metadata_key is None:
        return {}
    metadata = resource.raw[metadata_key]
    auditor = member(metadata, "auditor") if isinstance(metadata, dict) else MISSING
    if auditor is MISSING:
        return {}
    keys = (*resource.keys, metadata_key, member_key(metadata, "auditor") or "auditor")
    if not isinstance(auditor, dict):
        raise _suppression_error(walker, keys, 'expected {"skip": {"RULE-ID": "reason"}}')
    skip_key = member_key(auditor, "skip")
    if skip_key is None:
        return {}
    skip = auditor[skip_key]
    keys = (*keys, skip_key)
    if not isinstance(skip, dict):
        raise _suppression_error(walker, keys, 'expected {"RULE-ID": "reason", ...}')
    found: dict[str, str] = {}
    for rule, reason in skip.items():
        if not rule.strip():
            raise _suppression_error(walker, keys, "a suppression needs a rule id (or glob)")
        if not isinstance(reason, str) or not reason.strip():
            raise _suppression_error(
                walker,
                (*keys, rule),
                f"a suppression needs a reason: expected a non-empty string, found "
                f"{'a blank string' if isinstance(reason, str) else describe_type(reason)}",
            )
        found[rule] = reason.strip()
    return found


def _suppression_error(walker: Walker, keys: tuple[str | int, ...], text: str) -> InputError:
    return InputError(text, source=walker.source, location=walker.document.where(keys))
