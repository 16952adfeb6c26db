"""Role definitions compiled once: each permission's four globs lists as regexes, its condition, and a
per-operation cache of which permissions of which role match.

Semantics §1.4: a control-plane operation matches ``actions`` minus ``notActions`` of *one*
permission entry; a data operation matches ``dataActions`` minus ``notDataActions``. ``notActions``
subtract only inside their own entry (grants of other entries and other roles are untouched), and
``actions: ["*"]`` never grants a data operation (data operations are never matched against
``actions``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from auditor.access._memo import make_room
from auditor.access.conditions import Cond, make_cond
from auditor.access.globs import compile_globs
from auditor.estate.roles import engine_role_catalogue, role_guid

if TYPE_CHECKING:
    from auditor.estate.wire_records import RoleDefinitionRecord
    from auditor.model.access import RoleDefinition

__all__ = ["Catalogue", "CompiledPermission", "RoleEntry"]


@dataclass(frozen=True, slots=True, eq=False)
class CompiledPermission:
    """One permission entry of a role definition or deny assignment."""

    index: int
    actions: tuple[str, ...]
    notActions: tuple[str, ...]
    dataActions: tuple[str, ...]
    notDataActions: tuple[str, ...]
    cond: Cond | None
    _control: re.Pattern[str] | None = field(repr=False)
    _not_control: re.Pattern[str] | None = field(repr=False)
    _data: re.Pattern[str] | None = field(repr=False)
    _not_data: re.Pattern[str] | None = field(repr=False)

    @classmethod
    def build(
        cls,
        index: int,
        actions: Sequence[str],
        not_actions: Sequence[str],
        data_actions: Sequence[str],
        not_data_actions: Sequence[str],
        condition: str | None,
        condition_version: str | None,
    ) -> CompiledPermission:
        return cls(
            index,
            tuple(actions),
            tuple(not_actions),
            tuple(data_actions),
            tuple(not_data_actions),
            make_cond(condition, condition_version),
            compile_globs(actions),
            compile_globs(not_actions),
            compile_globs(data_actions),
            compile_globs(not_data_actions),
        )

    def matches(self, operation: str, data: bool) -> bool:
        """True when the lower-cased ``operation`` of the given plane is granted (or denied) by this
        entry, conditions aside."""
        if data:
            rx, not_rx = self._data, self._not_data
        else:
            rx, not_rx = self._control, self._not_control
        if rx is None or rx.fullmatch(operation) is None:
            return False
        return not_rx is None or not_rx.fullmatch(operation) is None

    def patterns(self, data: bool) -> tuple[str, ...]:
        """The including globs of one plane."""
        return self.dataActions if data else self.actions

    def exclusions(self, data: bool) -> tuple[str, ...]:
        """The excluding globs of one plane."""
        return self.notDataActions if data else self.notActions

    @property
    def condition(self) -> str | None:
        return None if self.cond is None else self.cond.text


@dataclass(frozen=True, slots=True, eq=False)
class RoleEntry:
    """A role definition as the engine uses it."""

    guid: str
    id: str
    name: str
    type: str | None
    permissions: tuple[CompiledPermission, ...]
    definition: RoleDefinition | RoleDefinitionRecord = field(repr=False)


_NO_PERMS: tuple[CompiledPermission, ...] = ()


class Catalogue:
    """Every role definition (built-ins replaced or extended by the snapshot's) by lower-case GUID."""

    def __init__(self, custom: Iterable[RoleDefinition | RoleDefinitionRecord] = ()) -> None:
        self.roles: dict[str, RoleEntry] = {}
        for guid, definition in engine_role_catalogue(custom).items():
            props = definition.properties
            perms = tuple(
                CompiledPermission.build(
                    i,
                    p.actions,
                    p.notActions,
                    p.dataActions,
                    p.notDataActions,
                    p.condition,
                    p.conditionVersion,
                )
                for i, p in enumerate(props.permissions)
            )
            self.roles[guid] = RoleEntry(
                guid=guid,
                id=definition.id or definition.name or guid,
                name=props.roleName or definition.name or guid,
                type=props.type,
                permissions=perms,
                definition=definition,
            )
        self._per_op: dict[tuple[str, bool], dict[str, tuple[CompiledPermission, ...]]] = {}

    def role(self, guid: str) -> RoleEntry | None:
        """The role of a lower-case GUID."""
        return self.roles.get(guid)

    def role_of(self, role_definition_id: str) -> RoleEntry | None:
        """The role a ``roleDefinitionId`` names (by its GUID, whatever the prefix)."""
        return self.roles.get(role_guid(role_definition_id))

    def name(self, guid: str) -> str:
        """The role's name, or its GUID when unknown."""
        role = self.roles.get(guid)
        return role.name if role is not None else guid

    def per_operation(
        self, operation: str, data: bool
    ) -> dict[str, tuple[CompiledPermission, ...]]:
        """The cache of matching permissions by role GUID for one lower-cased operation; fill it
        with :meth:`granting`."""
        key = (operation, data)
        table = self._per_op.get(key)
        if table is None:
            make_room(self._per_op, 16384)
            table = self._per_op[key] = {}
        return table

    def granting(
        self,
        guid: str,
        operation: str,
        data: bool,
        table: dict[str, tuple[CompiledPermission, ...]] | None = None,
    ) -> tuple[CompiledPermission, ...]:
        """The permissions of role ``guid`` that match the lower-cased ``operation`` (cached)."""
        if table is None:
            table = self.per_operation(operation, data)
        hit = table.get(guid)
        if hit is None:
            role = self.roles.get(guid)
            if role is None:
                hit = _NO_PERMS
            else:
                hit = tuple(p for p in role.permissions if p.matches(operation, data))
            table[guid] = hit
        return hit
