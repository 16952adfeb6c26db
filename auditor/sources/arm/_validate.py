"""Syntax first: every template expression the vendor's engine would evaluate is parsed before
anything is evaluated, so a syntax error anywhere in a template is an input error naming the file,
the line, the JSON path and the column in the expression (its text hidden at a secret path).

Evaluated: parameters' defaults, variables, user-defined functions, resources (their members, keys
that are expressions, nested templates) and outputs. Not evaluated, so not parsed: ``metadata``
anywhere and type ``definitions``.
"""

from __future__ import annotations

from typing import Any

from auditor.expr.arm import (
    ArmSyntaxError,
    is_expression,
    parse_template_string,
    validate_expressions,
)
from auditor.sources.arm._jsonc import JsoncDocument, PathKey, format_path
from auditor.sources.arm._template import member_key

__all__ = ["validate_template"]

_NOT_EVALUATED = frozenset(
    {"metadata", "$schema", "contentversion", "languageversion", "apiprofile"}
)


def validate_template(document: JsoncDocument, template: Any, keys: PathKey = ()) -> None:
    """Parse every template expression the engine would evaluate (parameters' defaults,
    variables, functions, resources, outputs; not ``metadata`` nor type ``definitions``), raising
    the first syntax error with the file, its line and JSON path, and the column in the
    expression."""
    if not isinstance(template, dict):
        return
    for key, value in template.items():
        lowered = str(key).lower()
        here = (*keys, key)
        if lowered in _NOT_EVALUATED or lowered == "definitions":
            continue
        if lowered == "parameters" and isinstance(value, dict):
            for name, spec in value.items():
                default = member_key(spec, "defaultValue")
                if default is not None:
                    _validate_value(document, spec[default], (*here, name, default))
        elif lowered == "outputs" and isinstance(value, dict):
            for name, spec in value.items():
                _validate_object(document, spec, (*here, name))
        elif lowered == "resources":
            _validate_resources(document, value, here)
        else:
            _validate_value(document, value, here)


def _validate_resources(document: JsoncDocument, resources: Any, keys: PathKey) -> None:
    items = resources.items() if isinstance(resources, dict) else enumerate(resources or ())
    if not isinstance(resources, list | dict):
        return
    for position, resource in items:
        here = (*keys, position)
        if not isinstance(resource, dict):
            continue
        for key, value in resource.items():
            lowered = str(key).lower()
            if lowered == "metadata":
                continue
            if lowered == "resources":
                _validate_resources(document, value, (*here, key))
            elif lowered == "properties" and isinstance(value, dict):
                for inner, item in value.items():
                    where = (*here, key, inner)
                    if str(inner).lower() == "template" and isinstance(item, dict):
                        validate_template(document, item, where)
                    else:
                        _validate_value(document, item, where)
            else:
                _validate_value(document, value, (*here, key))


def _validate_object(document: JsoncDocument, spec: Any, keys: PathKey) -> None:
    if isinstance(spec, dict):
        for key, value in spec.items():
            if str(key).lower() not in ("metadata", "type"):
                _validate_value(document, value, (*keys, key))
    else:
        _validate_value(document, spec, keys)


def _validate_value(document: JsoncDocument, value: Any, keys: PathKey) -> None:
    stack: list[tuple[Any, PathKey]] = [(value, keys)]
    while stack:
        node, here = stack.pop()
        if isinstance(node, str):
            if is_expression(node):
                _validate_string(document, node, here)
        elif isinstance(node, dict):
            for key, item in node.items():
                if isinstance(key, str) and is_expression(key):  # a key may be an expression
                    _validate_string(document, key, here)
                stack.append((item, (*here, key)))
        elif isinstance(node, list):
            stack.extend(((item, (*here, position)) for position, item in enumerate(node)))


def _validate_string(document: JsoncDocument, text: str, keys: PathKey) -> None:
    try:
        parse_template_string(text)  # cached per text
        return
    except ArmSyntaxError:
        pass
    try:  # again, for the error naming the path (its text hidden at a secret path)
        validate_expressions(text, path=format_path(keys), source=document.source)
    except ArmSyntaxError as error:
        line = document.line(keys)
        where = f"line {line}, {error.location}" if line is not None else error.location
        raise error.at(location=where) from None
