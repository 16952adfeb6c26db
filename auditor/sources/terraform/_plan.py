"""The JSON of ``terraform show -json PLANFILE``: each managed resource the plan creates or updates
is the ``PUT`` its provider would send (``change.after``, with ``change.after_unknown`` marking what
is known only after apply), each it destroys a ``DELETE`` (from ``change.before``); no-op and read
changes are passed over.

A secret argument whose configuration is a reference (``configuration`` ... ``expressions`` with
``references``, such as ``var.admin_password``) is a reference, not a literal, whatever value the
plan holds for it; one written as a constant is a literal secret.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from auditor.errors import InputError
from auditor.expr.arm.values import Unknown, UnknownKind
from auditor.sources.deployment import DeploymentRequest, DeploymentSet, SourceRef
from auditor.sources.terraform._resources import (
    AZAPI,
    SUPPORTED_TYPES,
    azapi_type,
    delete_url,
    map_resource,
)

__all__ = ["is_terraform_plan", "plan_requests", "unchecked_warning"]

_SECRET_ARGUMENTS = frozenset({"password", "storage_account_key"})
# Arguments the provider computes when the configuration does not set them: a plan marks them
# known only after apply, but the request does not carry them.
_COMPUTED_UNLESS_SET: dict[str, frozenset[str]] = {
    "azurerm_role_assignment": frozenset(
        {
            "principal_type",
            "role_definition_id",
            "role_definition_name",
            "condition_version",
            "skip_service_principal_aad_check",
        }
    ),
}
_INSTANCE_KEY = re.compile(r'\[(?:\d+|"(?:[^"\\]|\\.)*")\]')
_SUBSCRIPTION = re.compile(r"^/subscriptions/([^/]+)", re.IGNORECASE)


def is_terraform_plan(data: Any) -> bool:
    """True for the JSON of ``terraform show -json`` of a plan."""
    return (
        isinstance(data, dict)
        and "format_version" in data
        and ("resource_changes" in data or "planned_values" in data)
    )


def unchecked_warning(counts: Counter[str]) -> str | None:
    """``"3 resources of types auditor does not check: azurerm_storage_account ×2, ..."``."""
    total = sum(counts.values())
    if not total:
        return None
    shown = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    listed = ", ".join(f"{name} ×{n}" for name, n in shown[:20])
    more = f", and {len(shown) - 20} more types" if len(shown) > 20 else ""
    noun = "resource" if total == 1 else "resources"
    return f"{total:,} {noun} of types auditor does not check: {listed}{more}"


def _with_unknowns(value: Any, unknown: Any, path: str, depth: int = 0) -> Any:
    """``value`` with every place ``after_unknown`` marks replaced by an Unknown."""
    if unknown is True:
        return Unknown(path, "known only after apply", UnknownKind.DEPLOYMENT, path)
    if depth > 100:
        return value
    if isinstance(unknown, dict):
        out = dict(value) if isinstance(value, dict) else {}
        for key, mark in unknown.items():
            if mark is False or mark == {} or mark == []:
                continue
            out[key] = _with_unknowns(out.get(key), mark, f"{path}.{key}", depth + 1)
        return out if isinstance(value, dict) or out else value
    if isinstance(unknown, list) and unknown:
        items = list(value) if isinstance(value, list) else []
        for index, mark in enumerate(unknown):
            if mark is False or mark == {} or mark == []:
                continue
            if index < len(items):
                items[index] = _with_unknowns(items[index], mark, f"{path}[{index}]", depth + 1)
            else:
                items.append(_with_unknowns(None, mark, f"{path}[{index}]", depth + 1))
        return items
    return value


def _configuration(data: dict[str, Any], address: str) -> dict[str, Any] | None:
    """The configuration of the resource at ``address`` (instance keys dropped)."""
    bare = _INSTANCE_KEY.sub("", address)
    parts = bare.split(".")
    config = data.get("configuration")
    module = config.get("root_module") if isinstance(config, dict) else None
    while len(parts) > 2 and parts[0] == "module" and isinstance(module, dict):
        calls = module.get("module_calls")
        call = calls.get(parts[1]) if isinstance(calls, dict) else None
        module = call.get("module") if isinstance(call, dict) else None
        parts = parts[2:]
    if not isinstance(module, dict):
        return None
    wanted = ".".join(parts)
    resources = module.get("resources")
    for resource in resources if isinstance(resources, list) else ():
        if isinstance(resource, dict) and resource.get("address") == wanted:
            return resource
    return None


def _mark_references(value: Any, expressions: Any, depth: int = 0) -> Any:
    """``value`` with every secret argument the configuration sets by reference made a reference."""
    if depth > 100:
        return value
    if isinstance(value, dict) and isinstance(expressions, dict):
        out = dict(value)
        for key, expr in expressions.items():
            if key not in out:
                continue
            if key in _SECRET_ARGUMENTS and isinstance(expr, dict):
                refs = expr.get("references")
                if isinstance(refs, list) and refs and "constant_value" not in expr:
                    ref = str(refs[0])
                    out[key] = Unknown(
                        ref,
                        "set from a reference in the configuration",
                        UnknownKind.SECRET_REFERENCE,
                        ref,
                    )
                    continue
            out[key] = _mark_references(out[key], expr, depth + 1)
        return out
    if isinstance(value, list) and isinstance(expressions, list):
        return [
            _mark_references(v, expressions[i], depth + 1) if i < len(expressions) else v
            for i, v in enumerate(value)
        ]
    return value


def _subscription(data: dict[str, Any], change: dict[str, Any], given: str | None) -> Any:
    if given:
        return given
    for side in ("before", "after"):
        values = change.get(side)
        rid = values.get("id") if isinstance(values, dict) else None
        if isinstance(rid, str):
            m = _SUBSCRIPTION.match(rid)
            if m:
                return m.group(1)
    config = data.get("configuration")
    providers = config.get("provider_config") if isinstance(config, dict) else None
    azurerm = providers.get("azurerm") if isinstance(providers, dict) else None
    expressions = azurerm.get("expressions") if isinstance(azurerm, dict) else None
    sub = expressions.get("subscription_id") if isinstance(expressions, dict) else None
    if isinstance(sub, dict) and isinstance(sub.get("constant_value"), str):
        return sub["constant_value"]
    return Unknown(
        "subscription",
        "the subscription is the provider's; the plan does not name it",
        UnknownKind.DEPLOYMENT,
        "subscription",
    )


def plan_requests(data: Any, source: str, *, subscription_id: str | None = None) -> DeploymentSet:
    """The requests of a plan's JSON ``data`` (read from the file ``source``)."""
    if not is_terraform_plan(data):
        raise InputError(
            "not the JSON of a Terraform plan (terraform show -json): expected an object with "
            "format_version and resource_changes",
            source=source,
        )
    out = DeploymentSet(inputs=[source])
    changes = data.get("resource_changes") or []
    if not isinstance(changes, list):
        raise InputError("expected a list", source=source, location="resource_changes")
    unchecked: Counter[str] = Counter()
    for index, entry in enumerate(changes):
        where = f"resource_changes[{index}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("change"), dict):
            raise InputError("expected an object with a change", source=source, location=where)
        if entry.get("mode", "managed") != "managed":
            continue
        rtype, address = entry.get("type"), entry.get("address")
        if not isinstance(rtype, str) or not isinstance(address, str):
            raise InputError(
                "expected the type and address of a resource", source=source, location=where
            )
        change = entry["change"]
        actions = change.get("actions")
        if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
            raise InputError(
                "expected a list of actions", source=source, location=f"{where}.change.actions"
            )
        if "create" in actions or "update" in actions:
            method, values = "PUT", change.get("after")
            values = _with_unknowns(values, change.get("after_unknown"), address)
            config = _configuration(data, address)
            if isinstance(config, dict) and isinstance(values, dict):
                expressions = config.get("expressions")
                expressions = expressions if isinstance(expressions, dict) else {}
                values = _mark_references(values, expressions)
                for key in _COMPUTED_UNLESS_SET.get(rtype, ()):
                    if isinstance(values.get(key), Unknown) and key not in expressions:
                        values[key] = None
        elif "delete" in actions:
            method, values = "DELETE", change.get("before")
        else:
            continue
        if not isinstance(values, dict | Unknown):
            raise InputError(
                "expected an object of the resource's values",
                source=source,
                location=f"{where}.change",
            )
        if rtype not in SUPPORTED_TYPES:
            unchecked[rtype] += 1
            continue
        sub = _subscription(data, change, subscription_id)
        build = map_resource if method == "PUT" else delete_url
        mapped = build(rtype, values, address=address, subscription=sub)
        if mapped is None:
            typed = azapi_type(values) if rtype == AZAPI else None
            unchecked[f"{rtype} ({typed[0]})" if typed else rtype] += 1
            continue
        out.requests.append(
            DeploymentRequest(
                method=method,
                url=mapped.url,
                body=mapped.body,
                source=SourceRef(source, None, address),
                unknown_url=mapped.unknown_url,
            )
        )
    warning = unchecked_warning(unchecked)
    if warning:
        out.warnings.append(warning)
    return out
