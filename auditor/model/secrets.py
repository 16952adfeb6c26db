"""Secret values: passwords, storage keys, certificate data, API tokens.

A :class:`Secret` never shows its value in ``repr``, ``str``, logs, error messages or dumps. Only
:meth:`Secret.reveal` (and a dump with ``context={"reveal_secrets": True}``) returns it, for a
client that is about to send it.
"""

from __future__ import annotations

import hashlib
import re
from typing import Annotated, Any

from pydantic import GetCoreSchemaHandler, PlainSerializer, SerializationInfo
from pydantic_core import core_schema

from auditor.model.plain import is_secret_key as is_secret_key

MASK = "**********"

# `<NAME>` as in the seed, or `${NAME}`: a reference to a secret held elsewhere, not a literal.
_REFERENCE = re.compile(r"^(?:<[A-Za-z_][A-Za-z0-9_.\-]*>|\$\{[A-Za-z_][A-Za-z0-9_.\-]*\})$")


class Secret:
    """A string that must not leak. Compare with ``==``; read with :meth:`reveal`."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError("a Secret holds a string")
        self._value = value

    def reveal(self) -> str:
        """The plain value, for sending it where it belongs. Never print or log it."""
        return self._value

    @property
    def is_reference(self) -> bool:
        """True for a placeholder such as ``<PASSWORD>`` or ``${GATEWAY_PASSWORD}``."""
        return bool(_REFERENCE.match(self._value))

    @property
    def is_empty(self) -> bool:
        return self._value == ""

    def fingerprint(self) -> str:
        """A short one-way digest, to tell two secrets apart in evidence without showing either."""
        return "sha256:" + hashlib.sha256(self._value.encode()).hexdigest()[:12]

    def __repr__(self) -> str:
        return f"Secret('{MASK}')"

    def __str__(self) -> str:
        return MASK

    def __format__(self, spec: str) -> str:
        return MASK

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Secret):
            return self._value == other._value
        return NotImplemented

    def __hash__(self) -> int:
        return hash(("Secret", self._value))

    def __reduce__(self) -> Any:
        raise TypeError("a Secret cannot be pickled")

    # Immutable, so a copy is itself; without these, deepcopy (and model_copy(deep=True)) would hit
    # __reduce__ and fail.
    def __copy__(self) -> Secret:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Secret:
        return self

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        from_str = core_schema.no_info_after_validator_function(cls, core_schema.str_schema())
        return core_schema.json_or_python_schema(
            json_schema=from_str,
            # One error, at the field's own path (a plain union would add its branch names to it).
            python_schema=core_schema.union_schema(
                [core_schema.is_instance_schema(cls), from_str], custom_error_type="string_type"
            ),
            serialization=core_schema.plain_serializer_function_ser_schema(
                _serialize_secret, info_arg=True
            ),
        )


def _serialize_secret(value: Secret, info: SerializationInfo) -> str:
    context = info.context
    if isinstance(context, dict) and context.get("reveal_secrets") is True:
        return value.reveal()
    return MASK


def reveal_value(value: Any) -> Any:
    """The plain value of a Secret (anything else is returned unchanged)."""
    return value.reveal() if isinstance(value, Secret) else value


# is_secret_key: keys inside configuration maps whose values are secrets (in auditor.model.plain,
# which needs no pydantic)


def _wrap_config_secrets(value: Any, secret: bool = False) -> Any:
    """Every string under a secret-looking key made a :class:`Secret`, however deep below it
    (``"password": ["..."]`` or ``{"password": {"value": "..."}}`` hide it as well)."""
    if isinstance(value, dict):
        return {k: _wrap_config_secrets(v, secret or is_secret_key(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_wrap_config_secrets(v, secret) for v in value]
    if secret and isinstance(value, str):
        return Secret(value)
    return value


def _dump_config(value: Any, info: SerializationInfo) -> Any:
    if isinstance(value, Secret):
        return _serialize_secret(value, info)
    if isinstance(value, dict):
        return {k: _dump_config(v, info) for k, v in value.items()}
    if isinstance(value, list):
        return [_dump_config(v, info) for v in value]
    return value


class _ConfigMapMarker:
    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        inner = core_schema.dict_schema(core_schema.str_schema(), core_schema.any_schema())
        return core_schema.no_info_after_validator_function(_wrap_config_secrets, inner)


# A map of configuration groups (group name -> settings) whose secret-looking keys hold Secrets.
ConfigMap = Annotated[
    dict[str, Any],
    _ConfigMapMarker,
    PlainSerializer(_dump_config, when_used="always"),
]
