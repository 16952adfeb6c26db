"""ARM templates (``.json``, ``.jsonc``; Bicep-compiled JSON in both layouts) read as the
deployment they describe (contracts §3, §8).

- :func:`read_arm_template` a template with its parameters (deploymentParameters files, later
  winning, then ``-p NAME=VALUE`` overrides; a parameter's ``defaultValue`` where nothing is
  given) -> a :class:`~auditor.sources.deployment.DeploymentSet` of the requests its event-routing
  domains, analytics clusters and role assignments would send, each with its source (file, line,
  address) and inline suppressions;
- :func:`is_arm_template`, :func:`is_parameters_file` tell the two kinds of document apart;
  :func:`find_parameters_file` finds a template's conventional parameters file
  (``azuredeploy.parameters.json`` beside ``azuredeploy.json``, ``main.parameters.json`` beside
  ``main.json``: ``NAME.parameters.json`` beside ``NAME.json``);
- :func:`read_parameters_file`, :func:`parse_parameter_override` the parameter inputs, and
  :func:`read_jsonc` the JSON-with-comments reader (positions of objects and arrays kept).

Expressions are evaluated by :mod:`auditor.expr.arm`; what cannot be resolved stays in the body as
an :class:`~auditor.expr.arm.values.Unknown`. Nothing here prints a value: warnings and errors
name files, JSON paths, lines, parameters and expressions, never what a parameter holds.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from auditor.errors import InputError, clip, shown_name
from auditor.expr.arm import ArmContext, Deployment
from auditor.sources.arm._jsonc import MAX_BYTES, JsoncDocument, read_jsonc
from auditor.sources.arm._parameters import (
    declared_types,
    is_parameters_file,
    merge_parameters,
    parse_parameter_override,
    read_parameters_file,
)
from auditor.sources.arm._placeholders import Textual
from auditor.sources.arm._requests import build_request
from auditor.sources.arm._template import (
    MAX_RESOURCES,
    MAX_VALUE_SIZE,
    TIME_LIMIT,
    Frame,
    Target,
    Walker,
    is_arm_template,
    template_level,
)
from auditor.sources.arm._validate import validate_template
from auditor.sources.deployment import DeploymentSet

__all__ = [
    "MAX_BYTES",
    "MAX_RESOURCES",
    "MAX_VALUE_SIZE",
    "TIME_LIMIT",
    "Deployment",
    "JsoncDocument",
    "find_parameters_file",
    "is_arm_template",
    "is_parameters_file",
    "parse_parameter_override",
    "read_arm_template",
    "read_jsonc",
    "read_parameters_file",
]

_TEMPLATE_SUFFIXES = (".json", ".jsonc")


def read_arm_template(
    path: str | os.PathLike[str] | JsoncDocument,
    *,
    parameter_files: Sequence[str | os.PathLike[str]] = (),
    parameters: Mapping[str, Any] | None = None,
    overrides: Sequence[str] = (),
    deployment: Deployment | None = None,
    time_limit: float | None = TIME_LIMIT,
) -> DeploymentSet:
    """The requests the template at ``path`` would send.

    ``parameter_files``: deploymentParameters files, later ones winning; ``parameters``: values
    (by name) that win over every file; ``overrides``: ``NAME=VALUE`` texts (``-p``) that win over
    both, typed by the parameter's declaration (see :func:`parse_parameter_override`);
    ``deployment``: the subscription, resource group and location deployed to, where known (by
    default none is: values built from them are unknown, and URLs show ``{subscriptionId}`` and
    ``{resourceGroupName}``); ``time_limit``: seconds the evaluation may take (``None``: no limit).

    Raises :class:`~auditor.errors.InputError` (exit code 2) for a file that is not a template
    (naming what was expected; a parameters file says so), JSON errors (line and column),
    expression syntax errors (file, line, JSON path and column in the expression), a suppression
    without a reason, and structures the vendor's engine refuses; and
    :class:`~auditor.errors.IncompleteError` (exit code 3) past ``time_limit``.
    """
    document = path if isinstance(path, JsoncDocument) else read_jsonc(path, what="ARM template")
    template = _check_template(document)
    validate_template(document, template)
    types = declared_types(template)
    typed = [
        parse_parameter_override(
            text, declared_type=types.get(text.partition("=")[0].strip().lower())
        )
        for text in overrides
    ]
    given = merge_parameters(
        [
            *(read_parameters_file(file) for file in parameter_files),
            dict(parameters or {}),
            dict(typed),
        ]
    )
    result = DeploymentSet(inputs=[document.source, *(os.fspath(f) for f in parameter_files)])
    result.warnings.extend(_parameter_warnings(document.source, template, given))
    scope = deployment or Deployment()
    context = ArmContext.from_template(template, given, deployment=scope, source=document.source)
    target = Target(
        scope.subscription_id or None, scope.resource_group or None, template_level(template)
    )
    walker = Walker(document, result.warnings, time_limit=time_limit)
    frame = Frame(template, (), context, target, textual=Textual(template, given), given=given)
    for resource in walker.resources(frame):
        result.requests.append(build_request(walker, resource))
    unchecked = walker.unchecked_warning()
    if unchecked is not None:
        result.warnings.append(unchecked)
    return result


def find_parameters_file(template_path: str | os.PathLike[str]) -> Path | None:
    """The parameters file conventionally beside a template: ``NAME.parameters.json`` (or
    ``.jsonc``) beside ``NAME.json`` (``azuredeploy.parameters.json``, ``main.parameters.json``),
    when it exists as a regular file; else ``None``."""
    template = Path(template_path)
    if template.suffix.lower() not in _TEMPLATE_SUFFIXES:
        return None
    if template.stem.lower().endswith(".parameters"):
        return None
    for suffix in _TEMPLATE_SUFFIXES:
        candidate = template.with_name(f"{template.stem}.parameters{suffix}")
        if candidate.is_file():
            return candidate
    return None


def _check_template(document: JsoncDocument) -> dict[str, Any]:
    value = document.value
    source = document.source
    if is_parameters_file(value):
        raise InputError(
            "this is a deploymentParameters file, not a template: give its template, with this "
            "file as --parameters",
            source=source,
        )
    if not isinstance(value, dict):
        raise InputError(
            'expected an ARM template (a JSON object with "$schema": '
            f'".../deploymentTemplate.json#" and "resources"), found {_kind_of(value)}',
            source=source,
        )
    if not is_arm_template(value) and "resources" not in value:
        keys = ", ".join(shown_name(str(key), 40) for key in list(value)[:6])
        found = f"an object with {keys}" if keys else "an empty object"
        raise InputError(
            'not an ARM template: expected "$schema": ".../deploymentTemplate.json#" and '
            f'"resources", found {clip(found, 300)}',
            source=source,
        )
    return value


def _kind_of(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    return "a JSON value that is not an object"


def _parameter_warnings(
    source: str, template: dict[str, Any], given: Mapping[str, Any]
) -> list[str]:
    declared = template.get("parameters")
    declared = declared if isinstance(declared, dict) else {}
    names = {str(name).lower() for name in declared}
    warnings: list[str] = []
    undeclared = [name for name in given if name.lower() not in names]
    if undeclared:
        shown = ", ".join(shown_name(name, 60) for name in undeclared[:20])
        warnings.append(
            f"{source}: parameters given that the template does not declare (ignored; the "
            f"vendor's engine refuses them): {shown}"
        )
    given_names = {name.lower() for name in given}
    missing = [
        str(name)
        for name, spec in declared.items()
        if str(name).lower() not in given_names
        and isinstance(spec, dict)
        and not any(str(key).lower() == "defaultvalue" for key in spec)
        and spec.get("nullable") is not True
        and str(spec.get("type", "")).lower() not in ("securestring", "secureobject")
    ]
    if missing:
        shown = ", ".join(shown_name(name, 60) for name in missing[:20])
        warnings.append(
            f"{source}: parameters without a value or default (values built from them are "
            f"unknown): {shown}"
        )
    return warnings
