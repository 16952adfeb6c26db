"""The access delta (contracts §9) as text and JSON: ``auditor access diff`` writes these.

Text is a compact table grouped by principal (its display name when the directory knows it): for
each change the operation, the scope, ``before -> after`` and what it goes through (the membership
path and the assignment that grants or blocks). Every value from the estate is shown inert and
bounded (:mod:`auditor.inert`).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from auditor.inert import TERMINAL_LIMIT, inert, inert_json

if TYPE_CHECKING:
    from auditor.access import AccessChange, AccessDelta

__all__ = ["delta_json", "delta_text"]

_COLUMN_MAX = 72
"""The action and scope columns are padded to their widest value in a group, up to this."""


def delta_json(delta: AccessDelta) -> str:
    """The JSON document of contracts §9 (indented, text not escaped, nothing in it acts)."""
    return inert_json(json.dumps(delta.to_wire(), indent=2, ensure_ascii=False)) + "\n"


def _shown(value: object) -> str:
    return inert(value, limit=TERMINAL_LIMIT)


def _short(assignment_id: str) -> str:
    """``roleAssignments/{name}`` of an assignment id (the scope is the row's own or above it)."""
    parts = assignment_id.rstrip("/").rsplit("/", 2)
    return "/".join(parts[-2:]) if len(parts) >= 2 else assignment_id


def _via(change: AccessChange, names: dict[str, str]) -> str:
    parts: list[str] = []
    if change.path:
        parts.append("through " + " → ".join(_shown(names.get(g, g)) for g in change.path))
    ids, verb = (
        (change.grantedBy, "granted by") if change.grantedBy else (change.deniedBy, "blocked by")
    )
    if ids:
        more = f" (+{len(ids) - 1})" if len(ids) > 1 else ""
        parts.append(f"{verb} {_shown(_short(ids[0]))}{more}")
    return "; ".join(parts)


def delta_text(delta: AccessDelta) -> str:
    """The compact table."""
    summary = delta.summary
    if not delta.changes:
        return "No access changes.\n"
    lines = [
        f"Access changes: {len(delta.changes)} for {summary['principals']} principal"
        f"{'' if summary['principals'] == 1 else 's'} ({summary['newlyAllowed']} newly allowed, "
        f"{summary['newlyBlocked']} newly blocked, {summary['changedConditional']} now "
        "conditional)"
    ]
    names = delta.names
    for principal, changes in delta.by_principal().items():
        name = names.get(principal)
        title = (
            _shown(principal)
            if not name or name == principal
            else (f"{_shown(name)} ({_shown(principal)})")
        )
        lines.append("")
        lines.append(title)
        actions = [_shown(c.action) + (" (data)" if c.dataAction else "") for c in changes]
        scopes = [_shown(c.scope) for c in changes]
        width_a = min(_COLUMN_MAX, max(map(len, actions)))
        width_s = min(_COLUMN_MAX, max(map(len, scopes)))
        for change, action, scope in zip(changes, actions, scopes, strict=True):
            move = f"{change.before} -> {change.after}"
            via = _via(change, names)
            row = f"  {action:<{width_a}}  {scope:<{width_s}}  {move:<26}  {via}"
            lines.append(row.rstrip())
    return "\n".join(lines) + "\n"
