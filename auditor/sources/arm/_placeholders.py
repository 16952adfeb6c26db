"""Resource ids and scopes built from the deployment's subscription and resource group, when those
are not given: ``/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/...``.

A template rarely knows where it is deployed, yet names virtual networks, role definitions and
scopes with ``resourceId(...)``, ``subscriptionResourceId(...)`` or ``resourceGroup().id``. Without
the deployment's scope those are unknown. Where a value is built from the scope *as text only*, it
is the same text for any subscription and resource group, so auditor shows it with the same
placeholders the request URL uses: a virtual network's id is then known to be set, and a role
definition's GUID and an assignment's scope level can be judged.

"As text only" is decided from the expression, never guessed from a value: every function on the
way (through variables and parameters' defaults) must be one that passes text through
(:data:`TEXTUAL`: ``concat``, ``format``, ``coalesce``, the ``resourceId`` family, ``subscription()``,
``resourceGroup()``, ``parameters``, ``variables``, ``copyIndex``, ``createObject``,
``createArray``) with property access and indexing. A value that compares, hashes or cuts the
scope (``equals(subscription().subscriptionId, 'x')``, ``uniqueString(resourceGroup().id)``,
``guid(...)``, ``substring``) stays unknown. The value is evaluated again against a deployment
whose subscription and resource group are the placeholders, with every expression that is not
textual replaced by an unknown, and an unknown of kind ``deploymentTime`` in the first evaluation
is replaced only by a value of the second that holds no unknown.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from auditor.expr.arm import (
    ArmContext,
    ArmSyntaxError,
    Call,
    Deployment,
    Expr,
    Index,
    Property,
    StrLit,
    Unknown,
    UnknownKind,
    is_expression,
    parse_template_string,
)
from auditor.expr.arm.values import MAX_NESTING

__all__ = [
    "GROUP",
    "SUBSCRIPTION",
    "TEXTUAL",
    "Textual",
    "holds_deployment_unknown",
    "merge",
    "placeholder_deployment",
    "variant",
]

SUBSCRIPTION = "{subscriptionId}"
GROUP = "{resourceGroupName}"
#: Functions that pass the deployment's scope through as text.
TEXTUAL = frozenset(
    {
        "coalesce",
        "concat",
        "format",
        "resourceid",
        "subscriptionresourceid",
        "extensionresourceid",
        "tenantresourceid",
        "subscription",
        "resourcegroup",
        "parameters",
        "variables",
        "copyindex",
        "createobject",
        "createarray",
    }
)
_OPAQUE = "[utcNow()]"  # stands for an expression that is not textual: always unknown here
_MAX_VISITS = 20_000
_MAX_DEPTH = 32  # expressions reached through variables and defaults, one inside another


def placeholder_deployment(deployment: Deployment) -> Deployment | None:
    """``deployment`` with the placeholders where its subscription or resource group is not
    given, or ``None`` when both are (nothing to stand in for)."""
    if deployment.subscription_id and deployment.resource_group:
        return None
    return replace(
        deployment,
        subscription_id=deployment.subscription_id or SUBSCRIPTION,
        resource_group=deployment.resource_group or GROUP,
    )


class Textual:
    """Decides, for the expressions of one template (its variables and parameters' defaults
    reached through them), which are textual in the deployment's scope."""

    def __init__(self, template: Mapping[str, Any], given: Mapping[str, Any]) -> None:
        self._given = {str(name).lower() for name in given}
        self._defaults: dict[str, Any] = {}
        parameters = template.get("parameters")
        for name, spec in (parameters if isinstance(parameters, dict) else {}).items():
            if isinstance(spec, dict):
                for key, value in spec.items():
                    if str(key).lower() == "defaultvalue":
                        self._defaults[str(name).lower()] = value
        variables = template.get("variables")
        self._variables = {
            str(name).lower(): value
            for name, value in (variables if isinstance(variables, dict) else {}).items()
            if str(name).lower() != "copy"
        }
        self._memo: dict[str, bool] = {}
        self._visits = 0
        self._depth = 0

    def rewrite(self, value: Any, depth: int = 0) -> Any:
        """``value`` (template JSON) with every expression that is not textual replaced by one
        that is always unknown."""
        if isinstance(value, str):
            return value if not is_expression(value) or self.string(value) else _OPAQUE
        if depth > MAX_NESTING:
            return _OPAQUE
        if isinstance(value, list):
            return [self.rewrite(item, depth + 1) for item in value]
        if isinstance(value, dict):
            return {key: self.rewrite(item, depth + 1) for key, item in value.items()}
        return value

    def string(self, text: str) -> bool:
        found = self._memo.get(text)
        if found is not None:
            return found
        self._memo[text] = False  # a cycle through variables is not textual
        if self._depth >= _MAX_DEPTH:
            return False
        try:
            tree = parse_template_string(text)
        except ArmSyntaxError:
            return False
        self._depth += 1
        try:
            result = self._node(tree)
        finally:
            self._depth -= 1
        self._memo[text] = result
        return result

    def _value(self, value: Any, depth: int = 0) -> bool:
        self._visits += 1
        if self._visits > _MAX_VISITS or depth > MAX_NESTING:
            return False
        if isinstance(value, str):
            return not is_expression(value) or self.string(value)
        if isinstance(value, list):
            return all(self._value(item, depth + 1) for item in value)
        if isinstance(value, dict):
            return all(self._value(item, depth + 1) for item in value.values())
        return True

    def _node(self, node: Expr) -> bool:
        self._visits += 1
        if self._visits > _MAX_VISITS:
            return False
        if isinstance(node, Property):
            return self._node(node.target)
        if isinstance(node, Index):
            return self._node(node.target) and self._node(node.index)
        if not isinstance(node, Call):
            return True  # a string or integer literal
        key = node.key
        if key not in TEXTUAL or not all(self._node(arg) for arg in node.args):
            return False
        if key in ("parameters", "variables"):
            argument = node.args[0] if len(node.args) == 1 else None
            if not isinstance(argument, StrLit):
                return False  # a computed name: not followed
            folded = argument.value.lower()
            if key == "parameters":
                return folded in self._given or self._value(self._defaults.get(folded))
            if folded not in self._variables:
                return False
            return self._value(self._variables[folded])
        return True


def merge(real: Any, resolved: Any, depth: int = 0) -> Any:
    """``real`` with each unknown of kind ``deploymentTime`` replaced by the value at the same
    place in ``resolved`` when that holds no unknown."""
    if isinstance(real, Unknown):
        if real.kind is UnknownKind.DEPLOYMENT and not _holds_unknown(resolved, 0):
            return resolved
        return real
    if depth > MAX_NESTING:
        return real
    if isinstance(real, dict) and isinstance(resolved, dict) and real.keys() == resolved.keys():
        return {key: merge(item, resolved[key], depth + 1) for key, item in real.items()}
    if isinstance(real, list) and isinstance(resolved, list) and len(real) == len(resolved):
        return [merge(item, other, depth + 1) for item, other in zip(real, resolved, strict=True)]
    return real


def holds_deployment_unknown(value: Any, depth: int = 0) -> bool:
    """True when ``value`` holds an unknown of kind ``deploymentTime`` somewhere."""
    if isinstance(value, Unknown):
        return value.kind is UnknownKind.DEPLOYMENT
    if depth > MAX_NESTING:
        return False
    if isinstance(value, list):
        return any(holds_deployment_unknown(item, depth + 1) for item in value)
    if isinstance(value, dict):
        return any(holds_deployment_unknown(item, depth + 1) for item in value.values())
    return False


def _holds_unknown(value: Any, depth: int) -> bool:
    if isinstance(value, Unknown):
        return True
    if depth > MAX_NESTING:
        return True
    if isinstance(value, list):
        return any(_holds_unknown(item, depth + 1) for item in value)
    if isinstance(value, dict):
        return any(_holds_unknown(item, depth + 1) for item in value.values())
    return False


def variant(
    context: ArmContext, template: Mapping[str, Any], given: Mapping[str, Any]
) -> ArmContext | None:
    """The context of ``template`` deployed at the placeholders (``None`` when the deployment's
    scope is given in full)."""
    deployment = placeholder_deployment(context.deployment)
    if deployment is None:
        return None
    return ArmContext.from_template(
        template, given, deployment=deployment, path=context.path, source=context.source
    )
