"""Parameter values for a template: deploymentParameters files (repeatable, later wins) and
``-p NAME=VALUE`` overrides (which win over every file).

A parameters file is ``{"$schema": ".../deploymentParameters.json#", "contentVersion",
"parameters": {"name": {"value": ...} | {"reference": {"keyVault": {...}, "secretName": ...}}}}``;
the same ``parameters`` object alone (without the wrapper, as the vendor's CLI accepts) is read too.
A Key Vault reference is an :class:`~auditor.expr.arm.values.Unknown` of kind
``SECRET_REFERENCE``: a reference to a secret, never a literal. Values are used as given (the
vendor's engine does not evaluate expressions in a parameters file). Parameter names ignore case.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from auditor.errors import InputError
from auditor.expr.arm.values import Unknown, UnknownKind
from auditor.sources.arm._jsonc import JsoncDocument, read_jsonc

__all__ = [
    "declared_types",
    "is_parameters_file",
    "merge_parameters",
    "parse_parameter_override",
    "read_parameters_file",
]

_PARAMETERS_SCHEMA = re.compile(r"deploymentParameters\.json", re.IGNORECASE)
_ENVELOPE = frozenset({"$schema", "contentversion", "parameters"})
_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$.\-]*\Z")


def is_parameters_file(document: Any) -> bool:
    """True for a deploymentParameters document: its ``$schema`` names
    ``deploymentParameters.json``, or (without a ``$schema``) it holds a ``parameters`` object of
    ``{"value"}``/``{"reference"}`` entries and no ``resources``."""
    if not isinstance(document, dict):
        return False
    schema = document.get("$schema")
    if isinstance(schema, str):
        return _PARAMETERS_SCHEMA.search(schema) is not None
    parameters = document.get("parameters")
    return (
        "resources" not in document
        and isinstance(parameters, dict)
        and bool(parameters)
        and all(_is_entry(entry) for entry in parameters.values())
    )


def _is_entry(entry: Any) -> bool:
    return isinstance(entry, dict) and ("value" in entry or "reference" in entry)


def read_parameters_file(
    path: str | os.PathLike[str] | JsoncDocument,
) -> dict[str, Any]:
    """The values a parameters file gives, by parameter name (a Key Vault reference is an
    unknown secret reference). Errors name the file, the JSON path and the line (exit code 2)."""
    from auditor.sources.arm._template import is_arm_template

    document = path if isinstance(path, JsoncDocument) else read_jsonc(path, what="parameters file")
    value = document.value
    source = document.source
    if isinstance(value, dict) and is_arm_template(value):
        raise InputError(
            "this is an ARM template, not a parameters file: give it as the template, and its "
            "parameters file (deploymentParameters.json) with --parameters",
            source=source,
        )
    if not isinstance(value, dict):
        raise InputError(
            'expected a deploymentParameters file (a JSON object with "parameters"), found an '
            + ("array" if isinstance(value, list) else "other JSON value"),
            source=source,
        )
    if "parameters" in value or isinstance(value.get("$schema"), str):
        entries = value.get("parameters", {})
        prefix: tuple[str, ...] = ("parameters",)
        if not isinstance(entries, dict):
            raise InputError(
                'expected an object of parameters ({"name": {"value": ...}})',
                source=source,
                location=document.where(prefix),
            )
    elif value and all(_is_entry(entry) for entry in value.values()):
        entries, prefix = value, ()  # the vendor's CLI accepts the parameters object alone
    else:
        raise InputError(
            'not a deploymentParameters file: expected {"$schema": '
            '".../deploymentParameters.json#", "parameters": {"name": {"value": ...}}}',
            source=source,
        )
    given: dict[str, Any] = {}
    for name, entry in entries.items():
        keys = (*prefix, name)
        if not isinstance(entry, dict) or not _is_entry(entry):
            raise InputError(
                'expected {"value": ...} or {"reference": {"keyVault": ..., "secretName": ...}}',
                source=source,
                location=document.where(keys),
            )
        if "value" in entry and "reference" in entry:
            raise InputError(
                'expected either "value" or "reference", not both',
                source=source,
                location=document.where(keys),
            )
        if "reference" in entry:
            given[name] = key_vault_reference(name, entry["reference"])
        else:
            given[name] = entry["value"]
    return given


def key_vault_reference(name: str, reference: Any) -> Unknown:
    """The value of a parameter given as a Key Vault reference: a reference to a secret."""
    secret = reference.get("secretName") if isinstance(reference, dict) else None
    what = (
        f"secret '{secret}' of a Key Vault" if isinstance(secret, str) and secret else "Key Vault"
    )
    return Unknown(
        "",
        f"parameter '{name}' is a reference to a {what}, read at deployment",
        UnknownKind.SECRET_REFERENCE,
    )


def parse_parameter_override(text: str, *, declared_type: str | None = None) -> tuple[str, Any]:
    """``NAME=VALUE`` (``-p``) -> (name, value).

    For a parameter declared ``string`` or ``securestring`` the value is the text as given
    (``-p version=1.10`` stays ``"1.10"``), as the vendor's CLI does; otherwise it is JSON when it
    is JSON (``3``, ``true``, ``["a"]``, ``{"k": 1}``, ``"x"``), else the text itself.
    """
    import msgspec

    from auditor.estate import check_value

    name, sep, raw = text.partition("=")
    name = name.strip()
    if not sep or not _NAME.match(name):
        raise InputError(
            "expected NAME=VALUE, with NAME a template parameter's name", source="-p/--parameter"
        )
    if declared_type is not None and declared_type.lower() in ("string", "securestring"):
        return name, raw
    try:
        value: Any = msgspec.json.decode(raw.encode("utf-8"))
    except (msgspec.DecodeError, RecursionError, UnicodeError, ValueError):
        return name, raw
    check_value(value, source=f"-p {name}")
    return name, value


def declared_types(template: Mapping[str, Any]) -> dict[str, str]:
    """Parameter name (lower case) -> declared type (lower case), from a template's
    ``parameters`` section (a ``$ref`` to a type definition followed one step)."""
    declared = template.get("parameters")
    definitions = template.get("definitions")
    types: dict[str, str] = {}
    for name, spec in (declared if isinstance(declared, dict) else {}).items():
        if not isinstance(spec, dict):
            continue
        kind = spec.get("type")
        reference = spec.get("$ref")
        if (
            not isinstance(kind, str)
            and isinstance(reference, str)
            and isinstance(definitions, dict)
        ):
            target = definitions.get(reference.rsplit("/", 1)[-1])
            kind = target.get("type") if isinstance(target, dict) else None
        if isinstance(kind, str):
            types[str(name).lower()] = kind.lower()
    return types


def merge_parameters(sources: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """One set of values from several, later ones winning; names ignore case (the spelling kept
    is the last one given)."""
    merged: dict[str, tuple[str, Any]] = {}
    for values in sources:
        for name, value in values.items():
            merged[name.lower()] = (name, value)
    return {name: value for name, value in merged.values()}
