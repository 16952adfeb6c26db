"""The deployment and its scope: ``parameters``, ``variables``, ``copyIndex``, ``resourceGroup``,
``subscription``, ``deployment``, ``tenant``, the ``resourceId`` family, and what is known only at
deployment (``reference``, ``list*``, ``utcNow``, ...)."""

from __future__ import annotations

from typing import Any

from auditor.expr.arm.ast import Call
from auditor.expr.arm.functions._args import (
    checked,
    int_arg,
    named,
    need,
    text_arg,
    text_args,
)
from auditor.expr.arm.functions._table import (
    FUNCTIONS,
    Builtin,
    Evaluation,
    Problem,
    builtin,
)
from auditor.expr.arm.values import (
    Unknown,
    UnknownKind,
)


@builtin("parameters", 1, 1)
def _parameters(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return ev.parameter(text_arg(args, 0, call), call)


@builtin("variables", 1, 1)
def _variables(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return ev.variable(text_arg(args, 0, call), call)


@builtin("copyIndex", 0, 2)
def _copy_index(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    name: str | None = None
    offset = 0
    if args and isinstance(args[0], str):
        name = args[0]
        if len(args) == 2:
            offset = int_arg(args, 1, call)
    elif args:
        if len(args) == 2:
            raise need(call, 0, "a loop name", args[0])
        offset = int_arg(args, 0, call)
    index = ev.context.copy_index(name)
    if index is None:
        if name is None:
            raise Problem("copyIndex() is used outside a copy loop")
        raise Problem(
            f"copyIndex() names the copy loop {named(call, 0, name)}, which is not in scope here"
        )
    return checked(index + offset, call)


def _scope_object(call: Call, known: dict[str, Any], unknown: dict[str, str]) -> dict[str, Any]:
    """An object such as ``resourceGroup()``'s: the known members, and for each member the
    deployment does not tell, an unknown saying so (``resourceGroup().location``)."""
    result = dict(known)
    for name, what in unknown.items():
        result[name] = Unknown(
            "",
            f"{what} is known only at deployment",
            UnknownKind.DEPLOYMENT,
            origin=f"{call.name}().{name}",
        )
    return result


def _given(**members: str | None) -> tuple[dict[str, Any], list[str]]:
    known = {name: value for name, value in members.items() if value is not None}
    return known, [name for name, value in members.items() if value is None]


@builtin("resourceGroup", 0, 0)
def _resource_group(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    deployment = ev.context.deployment
    sub, group = deployment.subscription_id, deployment.resource_group
    group_id = f"/subscriptions/{sub}/resourceGroups/{group}" if sub and group else None
    known, missing = _given(id=group_id, name=group, location=deployment.location)
    known["type"] = "Microsoft.Resources/resourceGroups"
    known["properties"] = {"provisioningState": "Succeeded"}
    words = {"id": "the resource group's id", "name": "the resource group's name"}
    words["location"] = "the resource group's location"
    unknown = {name: words[name] for name in missing}
    unknown["tags"] = "the resource group's tags"
    return _scope_object(call, known, unknown)


@builtin("subscription", 0, 0)
def _subscription(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    deployment = ev.context.deployment
    sub = deployment.subscription_id
    known, missing = _given(
        id=f"/subscriptions/{sub}" if sub else None,
        subscriptionId=sub,
        tenantId=deployment.tenant_id,
    )
    unknown = {name: "the subscription" for name in missing}
    unknown["displayName"] = "the subscription's display name"
    return _scope_object(call, known, unknown)


@builtin("deployment", 0, 0)
def _deployment(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    known, missing = _given(name=ev.context.deployment.name)
    unknown = {name: "the deployment's name" for name in missing}
    unknown["properties"] = "the deployment's properties"
    return _scope_object(call, known, unknown)


@builtin("tenant", 0, 0)
def _tenant(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    tenant = ev.context.deployment.tenant_id
    if tenant is None:
        raise Problem("tenant() is known only at deployment", UnknownKind.DEPLOYMENT)
    return _scope_object(
        call,
        {"id": f"/tenants/{tenant}", "tenantId": tenant},
        {"countryCode": "the tenant's country", "displayName": "the tenant's display name"},
    )


def _deployment_time(name: str) -> None:
    def impl(ev: Evaluation, call: Call, args: Any) -> Any:
        raise Problem(f"{call.name}() is known only at deployment", UnknownKind.DEPLOYMENT)

    FUNCTIONS[name.lower()] = Builtin(name, impl, 0, None, lazy=True)


for _name in (
    "reference",
    "environment",
    "managementGroup",
    "utcNow",
    "newGuid",
    "pickZones",
    "providers",
    "deployer",
):
    _deployment_time(_name)


def secret_reference(call: Call) -> Problem:
    """``listKeys(...)`` and the other ``list*`` functions: a reference to a secret, never a
    literal."""
    return Problem(
        f"{call.name}() is known only at deployment: a reference to a secret",
        UnknownKind.SECRET_REFERENCE,
    )


def _resource_type_segments(resource_type: str, call: Call) -> list[str]:
    parts = [part for part in resource_type.split("/") if part]
    if len(parts) < 2:
        raise Problem(f"{call.name}() expects a resource type such as 'Namespace/type'")
    return parts


def _type_and_names(args: list[str], call: Call) -> str:
    """``Namespace/typeA/typeB`` with names ``a``, ``b`` -> ``Namespace/typeA/a/typeB/b``."""
    type_parts = _resource_type_segments(args[0], call)
    names = [part for arg in args[1:] for part in arg.split("/")]
    if len(names) != len(type_parts) - 1:
        raise Problem(
            f"{call.name}() got {len(names)} resource name segment(s) for a type with "
            f"{len(type_parts) - 1}"
        )
    segments = [type_parts[0]]
    for type_part, name in zip(type_parts[1:], names, strict=True):
        segments.extend((type_part, name))
    return "/".join(segments)


@builtin("resourceId", 2)
def _resource_id(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    texts = text_args(args, call)
    # the resource type is the first argument with a '/'; before it: [subscriptionId, ][group]
    position = next((i for i, text in enumerate(texts) if "/" in text), None)
    if position is None or position > 2:
        raise Problem(f"{call.name}() expects a resource type such as 'Namespace/type'")
    deployment = ev.context.deployment
    sub = texts[0] if position == 2 else deployment.subscription_id
    group = texts[position - 1] if position >= 1 else deployment.resource_group
    tail = _type_and_names(texts[position:], call)
    if sub is None:
        raise Problem(
            "the deployment's subscription is known only at deployment", UnknownKind.DEPLOYMENT
        )
    if group is None:
        raise Problem(
            "the deployment's resource group is known only at deployment", UnknownKind.DEPLOYMENT
        )
    return f"/subscriptions/{sub}/resourceGroups/{group}/providers/{tail}"


@builtin("subscriptionResourceId", 2)
def _subscription_resource_id(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    texts = text_args(args, call)
    position = next((i for i, text in enumerate(texts) if "/" in text), None)
    if position is None or position > 1:
        raise Problem(f"{call.name}() expects a resource type such as 'Namespace/type'")
    sub = texts[0] if position == 1 else ev.context.deployment.subscription_id
    tail = _type_and_names(texts[position:], call)
    if sub is None:
        raise Problem(
            "the deployment's subscription is known only at deployment", UnknownKind.DEPLOYMENT
        )
    return f"/subscriptions/{sub}/providers/{tail}"


@builtin("tenantResourceId", 2)
def _tenant_resource_id(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    texts = text_args(args, call)
    return "/providers/" + _type_and_names(texts, call)


@builtin("extensionResourceId", 3)
def _extension_resource_id(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    texts = text_args(args, call)
    return texts[0].rstrip("/") + "/providers/" + _type_and_names(texts[1:], call)


@builtin("managementGroupResourceId", 2)
def _management_group_resource_id(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    texts = text_args(args, call)
    position = next((i for i, text in enumerate(texts) if "/" in text), None)
    if position != 1:
        raise Problem(
            "managementGroupResourceId() without a management group name is known only at "
            "deployment",
            UnknownKind.DEPLOYMENT,
        )
    tail = _type_and_names(texts[1:], call)
    return f"/providers/Microsoft.Management/managementGroups/{texts[0]}/providers/{tail}"
