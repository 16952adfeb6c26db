"""Input variable values, with Terraform's precedence (later wins): the declared ``default``,
``terraform.tfvars``, ``terraform.tfvars.json``, ``*.auto.tfvars`` and ``*.auto.tfvars.json`` (by file
name), the ``--var-file`` files in the order given, and ``-var NAME=VALUE``.

Environment variables (``TF_VAR_name``) are not read: a pipeline passes its secrets that way, and
the gate judges the configuration, not the machine it runs on. A variable left without a value is an
:class:`~auditor.expr.arm.values.Unknown`, of kind ``secretReference`` when it is ``sensitive``.
A ``-var`` value is text, as Terraform takes it, unless the variable's type is a collection or
structure, when it is read as an HCL expression. Error messages name the variable and where its
value came from, never the value.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from auditor.errors import InputError
from auditor.expr.arm.values import Unknown, UnknownKind
from auditor.sources.terraform._expr import Evaluator
from auditor.sources.terraform._hcl import (
    MAX_FILE_BYTES,
    Block,
    SourceFile,
    parse_source,
    parse_value,
)
from auditor.sources.terraform._values import to_bool, to_number, to_string

__all__ = ["auto_var_files", "resolve_variables"]

_PRIMITIVE = frozenset({"string", "number", "bool"})


def auto_var_files(folder: str) -> list[str]:
    """The variable files Terraform reads by itself from a module's folder, in its order."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    out: list[str] = [n for n in ("terraform.tfvars", "terraform.tfvars.json") if n in names]
    out += [n for n in names if n.endswith((".auto.tfvars", ".auto.tfvars.json"))]
    return [os.path.join(folder, n) for n in out if os.path.isfile(os.path.join(folder, n))]


def _type_kind(block: Block) -> str:
    attr = block.body.attributes.get("type")
    if attr is None:
        return "any"
    text = "".join(attr.source().split())
    if text in _PRIMITIVE or text == "any":
        return text
    return "complex"


def _convert(value: Any, kind: str, name: str, where: str) -> Any:
    if value is None or isinstance(value, Unknown) or kind in ("any", "complex"):
        return value
    converted: Any
    if kind == "string":
        converted = to_string(value)
    elif kind == "number":
        converted = to_number(value)
    else:
        converted = to_bool(value)
    if converted is None:
        raise InputError(f"the value of the variable {name!r} is not a {kind}", source=where)
    return converted


def _sensitive(block: Block, ev: Evaluator) -> bool:
    attr = block.body.attributes.get("sensitive")
    return attr is not None and ev.attribute(attr) is True


def _file_values(path: str, ev: Evaluator) -> dict[str, Any]:
    from auditor.estate import decode_json, read_input_text

    text = read_input_text(path, what="variables file", limit=MAX_FILE_BYTES)
    if path.endswith(".json"):
        data = decode_json(text.encode("utf-8"), source=path, what="variables file")
        if not isinstance(data, dict):
            raise InputError("expected a JSON object of variable values", source=path)
        return data
    src = SourceFile(path, text)
    body = parse_source(src)
    if body.blocks:
        raise InputError(
            "a variables file holds only NAME = value lines, not blocks",
            source=path,
            location=f"line {body.blocks[0].line}",
        )
    return {name: ev.attribute(attr) for name, attr in body.attributes.items()}


def _cli_value(name: str, raw: Any, kind: str, ev: Evaluator) -> Any:
    where = f"-var {name}"
    if not isinstance(raw, str) or kind != "complex":
        return raw
    text = f"v = {raw}\n"
    expr = parse_value(text, where)
    if expr is None:
        raise InputError("the value is not one HCL expression", source=where)
    return ev.value(expr, SourceFile(where, text), {})


def resolve_variables(
    variables: Mapping[str, Block],
    ev: Evaluator,
    *,
    folder: str,
    var_files: Sequence[str],
    given: Mapping[str, Any],
    inputs: list[str],
    warnings: list[str],
) -> dict[str, Any]:
    """Every declared variable's value (an Unknown when it has none)."""
    kinds = {name: _type_kind(block) for name, block in variables.items()}
    values: dict[str, Any] = {}
    origin: dict[str, str] = {}
    for name, block in variables.items():
        default = block.body.attributes.get("default")
        if default is not None:
            values[name] = ev.attribute(default)
            origin[name] = block.src.name
    for path in [*auto_var_files(folder), *var_files]:
        inputs.append(path)
        for name, value in _file_values(path, ev).items():
            if name not in variables:
                warnings.append(
                    f"{path}: a value for {name!r} is ignored: no such variable is declared"
                )
                continue
            values[name] = value
            origin[name] = path
    for name, raw in given.items():
        if name not in variables:
            warnings.append(f"-var {name}: ignored: no such variable is declared")
            continue
        values[name] = _cli_value(name, raw, kinds[name], ev)
        origin[name] = f"-var {name}"
    out: dict[str, Any] = {}
    for name, block in variables.items():
        if name in values:
            out[name] = _convert(values[name], kinds[name], name, origin[name])
            continue
        secret = _sensitive(block, ev)
        out[name] = Unknown(
            f"var.{name}",
            f"the variable {name!r} has no value (no default, not given)",
            UnknownKind.SECRET_REFERENCE if secret else UnknownKind.UNRESOLVED,
            f"var.{name}",
        )
    return out
