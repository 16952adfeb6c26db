"""Turning validation errors of msgspec and pydantic into one message shape:
``FILE: JSON.path: expected X, found Y`` (values of secret-looking fields never shown)."""

from __future__ import annotations

import re
from typing import Any

import msgspec
from pydantic import ValidationError

from auditor.errors import InputError
from auditor.model.secrets import is_secret_key

_MSGSPEC = re.compile(r"^(?P<msg>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.DOTALL)
_EXPECTED_GOT = re.compile(r"^Expected `(?P<exp>[^`]*)`, got `(?P<got>[^`]*)`")
_MISSING = re.compile(r"^Object missing required field `(?P<field>[^`]*)`")

_TYPE_WORDS = {
    "bool": "true or false",
    "str": "a string",
    "int": "an integer",
    "float": "a number",
    "array": "an array",
    "object": "an object",
    "null": "null",
}

_PYDANTIC_EXPECTED = {
    "bool_type": "true or false",
    "string_type": "a string",
    "int_type": "an integer",
    "float_type": "a number",
    "list_type": "an array",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "dataclass_type": "an object",
    "missing": "a value (the field is required)",
    "int_from_float": "an integer",
    "literal_error": "one of the allowed values",
}


def join_path(prefix: str, loc: tuple[int | str, ...] | list[int | str]) -> str:
    """``prefix`` followed by ``[i]`` for indices and ``.name`` for keys."""
    out = prefix
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def describe_value(value: Any, *, secret: bool = False) -> str:
    """A short description of a JSON value for an error message."""
    if value is None:
        return "null"
    if secret and not isinstance(value, list | dict):
        kind = "a string" if isinstance(value, str) else "a scalar"
        return f"{kind} (value hidden: the field holds a secret)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"a number ({value})"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f'a string ("{shown}")'
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _value_at(document: Any, loc: list[int | str]) -> tuple[bool, Any]:
    node = document
    for part in loc:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return False, None
    return True, node


def _split_msgspec_path(path: str) -> list[int | str]:
    parts: list[int | str] = []
    for m in re.finditer(r"\[(\d+)\]|\.([^.\[]+)|\[\"((?:[^\"\\]|\\.)*)\"\]", path):
        if m.group(1) is not None:
            parts.append(int(m.group(1)))
        elif m.group(2) is not None:
            parts.append(m.group(2))
        else:
            parts.append(m.group(3))
    return parts


def _is_secret_path(loc: list[int | str] | tuple[int | str, ...]) -> bool:
    return any(isinstance(p, str) and is_secret_key(p) for p in loc)


def from_msgspec(
    exc: msgspec.ValidationError, *, source: str, prefix: str, raw: bytes | None = None
) -> InputError:
    """An InputError for a msgspec validation error of the section at ``prefix``.

    ``raw`` (the section's JSON) lets the message show the value found; it is decoded only here, on the
    error path.
    """
    m = _MSGSPEC.match(str(exc))
    msg = m.group("msg") if m else str(exc)
    loc = _split_msgspec_path(m.group("path") or "") if m else []
    missing = _MISSING.match(msg)
    if missing:
        loc = [*loc, missing.group("field")]
        return InputError(
            "expected a value (the field is required), found nothing",
            source=source,
            location=join_path(prefix, loc),
        )
    eg = _EXPECTED_GOT.match(msg)
    if not eg:
        return InputError(msg[:1].lower() + msg[1:], source=source, location=join_path(prefix, loc))
    expected = _or_words(
        [_TYPE_WORDS.get(t.strip(), t.strip()) for t in eg.group("exp").split("|")]
    )
    found = _TYPE_WORDS.get(eg.group("got"), eg.group("got"))
    if raw is not None:
        try:
            document = msgspec.json.decode(raw)
        except msgspec.DecodeError:
            document = None
        ok, value = _value_at(document, loc)
        if ok:
            found = describe_value(value, secret=_is_secret_path(loc))
    return InputError(
        f"expected {expected}, found {found}", source=source, location=join_path(prefix, loc)
    )


def _or_words(words: list[str]) -> str:
    parts = [p for w in words for p in (["true", "false"] if w == "true or false" else [w])]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]


def from_pydantic(exc: ValidationError, *, source: str, prefix: str) -> InputError:
    """An InputError for the first error of a pydantic validation of the section at ``prefix``."""
    errors = exc.errors(include_url=False, include_context=False)
    if not errors:
        return InputError("invalid value", source=source, location=prefix)
    err = errors[0]
    loc = [p for p in err["loc"] if isinstance(p, int) or _plain_key(p)]
    expected = _PYDANTIC_EXPECTED.get(err["type"])
    location = join_path(prefix, loc)
    if err["type"] == "missing":
        return InputError(
            "expected a value (the field is required), found nothing",
            source=source,
            location=location,
        )
    if expected is None:
        text = str(err.get("msg", "invalid value"))
        return InputError(text[:1].lower() + text[1:], source=source, location=location)
    found = describe_value(err.get("input"), secret=_is_secret_path(loc))
    return InputError(f"expected {expected}, found {found}", source=source, location=location)


def _plain_key(part: str) -> bool:
    # pydantic adds schema names such as 'function-after[...]' or 'str' for unions to locations
    return not ("[" in part and "]" in part) and part not in {"str", "int", "bool", "float"}
