"""Terraform HCL source -> the requests its resources would send (see the package docstring)."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from lark import Tree

from auditor.errors import InputError, shown_name
from auditor.expr.arm.values import Unknown, UnknownKind
from auditor.sources.deployment import DeploymentRequest, DeploymentSet, SourceRef
from auditor.sources.terraform._expr import Env, EvalContext, Evaluator
from auditor.sources.terraform._hcl import (
    Block,
    Module,
    Node,
    label_text,
    module_files,
    passed_over,
    read_module,
    subtrees,
)
from auditor.sources.terraform._plan import unchecked_warning
from auditor.sources.terraform._resources import AZAPI, SUPPORTED_TYPES, azapi_type, map_resource
from auditor.sources.terraform._suppress import suppressions
from auditor.sources.terraform._vars import resolve_variables

__all__ = ["read_hcl"]


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.normpath(a) == os.path.normpath(b)


def _subscription(ev: Evaluator, module: Module, block: Block, given: str | None) -> Any:
    if given:
        return given
    key = "azurerm"
    chosen = block.body.attributes.get("provider")
    if chosen is not None:
        key = "".join(chosen.source().split())
    provider = module.providers.get(key)
    attr = provider.body.attributes.get("subscription_id") if provider is not None else None
    if attr is not None:
        value = ev.attribute(attr)
        if (isinstance(value, str) and value) or isinstance(value, Unknown):
            return value
    return Unknown(
        "subscription",
        "the subscription is the provider's (ARM_SUBSCRIPTION_ID, or the signed-in account's); "
        "the configuration does not name it",
        UnknownKind.DEPLOYMENT,
        "subscription",
    )


def _jsonencode_argument(node: Node) -> Node | None:
    """The argument of ``jsonencode(x)`` when ``node`` is exactly that call."""
    while (
        node.data == "expr_term" and len(node.children) == 1 and isinstance(node.children[0], Tree)
    ):
        node = node.children[0]
    if node.data != "function_call":
        return None
    names = [p for p in subtrees(node) if p.data == "identifier"]
    arguments = [p for p in subtrees(node) if p.data == "arguments"]
    if len(names) != 1 or str(names[0].children[0]) != "jsonencode" or len(arguments) != 1:
        return None
    args = subtrees(arguments[0])
    return args[0] if len(args) == 1 else None


def _azapi_values(ev: Evaluator, block: Block, env: Env, values: dict[str, Any]) -> dict[str, Any]:
    """An ``azapi_resource``'s body written as ``jsonencode({...})`` kept as the object it encodes
    (so an unknown part of it stays an unknown part, not an unknown body)."""
    attr = block.body.attributes.get("body")
    if attr is None:
        return values
    argument = _jsonencode_argument(attr.expr)
    if argument is not None:
        values["body"] = ev.value(argument, attr.src, env)
    return values


def _module_calls_warning(module: Module, targets: set[str]) -> str | None:
    calls = [b for b in module.module_calls if b.src.name in targets]
    if not calls:
        return None
    shown = []
    for block in calls[:10]:
        source = block.body.attributes.get("source")
        where = ""
        if source is not None:
            try:
                where = f" ({shown_name(label_text(subtrees(source.expr)[0]))})"
            except Exception:
                where = ""
        shown.append(f"module.{shown_name(block.labels[0])}{where}")
    more = f", and {len(calls) - 10} more" if len(calls) > 10 else ""
    noun = "call is" if len(calls) == 1 else "calls are"
    return (
        f"{len(calls)} module {noun} not followed (read the module's folder on its own to check "
        f"its resources): {', '.join(shown)}{more}"
    )


def read_hcl(
    path: str | os.PathLike[str],
    *,
    var_files: Sequence[str | os.PathLike[str]] = (),
    variables: Mapping[str, Any] | None = None,
    subscription_id: str | None = None,
) -> DeploymentSet:
    """The requests of the Terraform file or folder ``path`` (see :func:`read_terraform`)."""
    name = os.fspath(path)
    if os.path.isdir(name):
        folder = name
        files = module_files(folder)
        if not files:
            raise InputError("no Terraform files (*.tf) in the folder", source=name)
        targets = set(files)
    else:
        folder = os.path.dirname(name) or "."
        siblings = (
            [f for f in module_files(folder) if not _same_file(f, name)]
            if os.path.isdir(folder)
            else []
        )
        files = sorted([name, *siblings], key=os.path.basename)
        targets = {name}
    module = read_module(files)
    ev = Evaluator(EvalContext(module))
    out = DeploymentSet(inputs=[src.name for src in module.files])
    if os.path.isdir(name):
        out.skipped.extend(passed_over(folder))
    ev.ctx.variables = resolve_variables(
        module.variables,
        ev,
        folder=folder,
        var_files=[os.fspath(p) for p in var_files],
        given=dict(variables or {}),
        inputs=out.inputs,
        warnings=out.warnings,
    )
    ev.ctx.locals.clear()
    unchecked: Counter[str] = Counter()
    for block in module.resources:
        if block.src.name not in targets:
            continue
        rtype = block.labels[0]
        suppressed = suppressions(block)
        if rtype not in SUPPORTED_TYPES:
            unchecked[rtype] += 1
            continue
        subscription = _subscription(ev, module, block, subscription_id)
        for instance in ev.instances(block, out.warnings):
            values = ev.body(block, instance.env)
            if rtype == AZAPI:
                values = _azapi_values(ev, block, instance.env, values)
            mapped = map_resource(
                rtype, values, address=instance.address, subscription=subscription
            )
            if mapped is None:
                typed = azapi_type(values)
                unchecked[f"{rtype} ({typed[0]})" if typed else f"{rtype} (type not known)"] += 1
                break
            out.requests.append(
                DeploymentRequest(
                    method="PUT",
                    url=mapped.url,
                    body=mapped.body,
                    source=SourceRef(block.src.name, block.line, instance.address),
                    suppressions=dict(suppressed),
                    unknown_url=mapped.unknown_url,
                )
            )
    for warning in (unchecked_warning(unchecked), _module_calls_warning(module, targets)):
        if warning:
            out.warnings.append(warning)
    return out
