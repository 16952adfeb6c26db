"""The built-in role catalogue shipped with the tool (semantics section 7), merged with a snapshot's
role definitions: a snapshot entry with the same GUID replaces the shipped one (contracts section 2)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from auditor.estate.wire_records import RoleDefinitionRecord
    from auditor.model.access import RoleDefinition

OWNER = "8e3af657-a8ff-443c-a75c-2fe8c4bcb635"
CONTRIBUTOR = "b24988ac-6180-42a0-ab88-20f7382dd24c"
READER = "acdd72a7-3385-48ef-bd42-f606fba81ae7"
USER_ACCESS_ADMINISTRATOR = "18d7d88d-d35e-4fb5-a5c3-7773c20a72d9"
RBAC_ADMINISTRATOR = "f58310d9-a9f6-439a-9e8d-f62e7b41a168"


def role_guid(role_definition_id: str) -> str:
    """The GUID of a role definition id (its last segment), lower case: roles match by GUID whatever
    scope prefix the id carries (contracts section 1)."""
    return role_definition_id.rstrip("/").rsplit("/", 1)[-1].lower()


@cache
def builtin_roles() -> tuple[RoleDefinition, ...]:
    """The shipped built-in role definitions."""
    # beside this module in the checkout and in the wheel; importlib.resources would cost the
    # command line's start-up several milliseconds for the same bytes
    from auditor.model.access import RoleDefinition

    text = Path(__file__).with_name("builtin_roles.json").read_text("utf-8")
    return tuple(RoleDefinition.model_validate(item, strict=True) for item in json.loads(text))


@cache
def builtin_role_records() -> tuple[RoleDefinitionRecord, ...]:
    """The shipped built-in role definitions as ``msgspec`` mirrors of the wire models (the same
    values as :func:`builtin_roles`, read without pydantic: the access engine's catalogue)."""
    import msgspec

    from auditor.estate.wire_records import RoleDefinitionRecord

    data = Path(__file__).with_name("builtin_roles.json").read_bytes()
    return tuple(msgspec.json.decode(data, type=list[RoleDefinitionRecord]))


def engine_role_catalogue(
    custom: Iterable[RoleDefinition | RoleDefinitionRecord] = (),
) -> dict[str, Any]:
    """:func:`role_catalogue` with the built-ins as :func:`builtin_role_records` (no pydantic):
    each value a wire model or its mirror, read the same way."""
    return _catalogue(builtin_role_records(), custom)


def role_catalogue(custom: Iterable[RoleDefinition] = ()) -> dict[str, RoleDefinition]:
    """Every role definition by lower-case GUID: the built-ins, replaced or extended by ``custom``."""
    return _catalogue(builtin_roles(), custom)


def _catalogue(builtins: Iterable[Any], custom: Iterable[Any]) -> dict[str, Any]:
    out = {role_guid(r.id or r.name or ""): r for r in builtins}
    for role in custom:
        key = role_guid(role.id or role.name or "")
        if key:
            out[key] = role
    return out
