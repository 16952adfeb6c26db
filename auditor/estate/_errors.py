"""Turning validation errors of msgspec and pydantic into one message shape:
``FILE: JSON.path: expected X, found Y``.

No value that may be a secret is ever quoted: a value at a secret path (a secret-looking key such as
``password``, ``key``, ``token``, ``certificateData`` anywhere on its path) is described by its type and
length only, whatever its type, and so is a string that looks like a secret wherever it sits
(:func:`auditor.errors.describe_value`); keys that look like secrets are not spelled out in paths."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import msgspec

from auditor.errors import InputError, clip, is_secret_name, shown_name
from auditor.errors import describe_value as _describe
from auditor.model.plain import is_secret_key

if TYPE_CHECKING:
    from pydantic import ValidationError

_MSGSPEC = re.compile(r"^(?P<msg>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.DOTALL)
_EXPECTED_GOT = re.compile(r"^Expected `(?P<exp>[^`]*)`, got `(?P<got>[^`]*)`")
_MISSING = re.compile(r"^Object missing required field `(?P<field>[^`]*)`")
_UNKNOWN_FIELD = re.compile(r"^Object contains unknown field `(?P<field>[^`]*)`")
_INVALID_ENUM = re.compile(r"^Invalid enum value ")

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
            name = shown_name(str(part))
            out += f".{name}" if out else name
    return out


def describe_value(value: Any, *, secret: bool = False, quote: bool = True) -> str:
    """A short description of a JSON value for an error message (never a secret: see
    :func:`auditor.errors.describe_value`)."""
    return _describe(value, secret=secret, quote=quote)


def _quotes(expected: str) -> bool:
    """Whether a string found where ``expected`` was may be quoted: not where an object or an
    array belongs (what sits there instead is as likely a secret moved out of place)."""
    return "an object" not in expected and "an array" not in expected


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
    return any(isinstance(p, str) and (is_secret_key(p) or is_secret_name(p)) for p in loc)


_QUOTED = re.compile(r"'([^']*)'|`([^`]*)`")


def _scrubbed(message: str, secret: bool) -> str:
    """A library's message with every quoted value that may be a secret replaced by its length."""

    def hide(m: re.Match[str]) -> str:
        text = m.group(1) if m.group(1) is not None else m.group(2)
        if secret or text != shown_name(text):
            return f"<{len(text):,} characters>"
        return m.group(0)

    return clip(_QUOTED.sub(hide, message), 300)


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
    secret = _is_secret_path(loc)
    unknown = _UNKNOWN_FIELD.match(msg)
    if unknown:
        return InputError(
            f"unknown field {shown_name(unknown.group('field'))!r}",
            source=source,
            location=join_path(prefix, loc),
        )
    eg = _EXPECTED_GOT.match(msg)
    if not eg:
        if _INVALID_ENUM.match(msg):
            msg = "expected one of the allowed values, found " + (
                _found_at(raw, loc, secret, True) or "another value"
            )
        else:
            msg = _scrubbed(msg, secret)
        return InputError(msg[:1].lower() + msg[1:], source=source, location=join_path(prefix, loc))
    expected = _or_words(
        [_TYPE_WORDS.get(t.strip(), t.strip()) for t in eg.group("exp").split("|")]
    )
    found = _TYPE_WORDS.get(eg.group("got"), eg.group("got"))
    found = _found_at(raw, loc, secret, _quotes(expected)) or found
    return InputError(
        f"expected {expected}, found {found}", source=source, location=join_path(prefix, loc)
    )


def _found_at(raw: bytes | None, loc: list[int | str], secret: bool, quote: bool) -> str | None:
    """The description of the value at ``loc`` of ``raw`` (decoded only on this error path)."""
    if raw is None:
        return None
    try:
        document = msgspec.json.decode(raw)
    except (msgspec.DecodeError, RecursionError, UnicodeDecodeError):
        return None
    ok, value = _value_at(document, loc)
    return describe_value(value, secret=secret, quote=quote) if ok else None


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
    secret = _is_secret_path(loc)
    if expected is None:
        text = _scrubbed(str(err.get("msg", "invalid value")), secret)
        value = err.get("input")
        if isinstance(value, str) and len(value) >= 4 and value in text:
            text = text.replace(value, f"<{len(value):,} characters>")  # a validator quoting it
        return InputError(text[:1].lower() + text[1:], source=source, location=location)
    found = describe_value(err.get("input"), secret=secret, quote=_quotes(expected))
    return InputError(f"expected {expected}, found {found}", source=source, location=location)


def _plain_key(part: str) -> bool:
    # pydantic adds schema names such as 'function-after[...]' or 'str' for unions to locations
    return not ("[" in part and "]" in part) and part not in {"str", "int", "bool", "float"}
