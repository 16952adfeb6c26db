"""The access index's build resolves each scope and role as written once (issue 23, seventh session).

The build's loop keeps a small table per field (a scope as written -> its key, principal table and
list; a role id as written -> its GUID key), filled the first time a value is met: a million
assignments name a few thousand scopes and roles. These tests pin that each distinct value is
resolved once, in order of first appearance, with the same index as the build before
(``tests/test_index_paths.py``'s oracle), whatever the casing, a blank scope or the order in which
values come back.
"""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest

from auditor.access import indexes as indexes_module
from auditor.access.indexes import Indexes
from auditor.access.scopes import ScopeTree
from auditor.estate.roles import role_guid
from tests.test_index_paths import _same, _snapshot

_ROLE = "/providers/Cloud.Authorization/roleDefinitions/8e3af657-a8ff-443c-a75c-2fe8c4bcb635"
_SUB_ROLE = (
    "/subscriptions/s1/providers/Cloud.Authorization/roleDefinitions/"
    "B24988AC-6180-42A0-AB88-20F7382DD24C"
)
_SCOPES = ["/subscriptions/s1", "/subscriptions/S1/", "", "/subscriptions/s1/resourceGroups/RG"]


def _items(principal: str) -> list[dict[str, Any]]:
    # scopes and roles that come back after others, in two casings of one key, and blank
    return [
        {
            "id": f"/subscriptions/s1/ra/{n}",
            "properties": {
                "roleDefinitionId": (_ROLE, _SUB_ROLE, _ROLE.upper())[n % 3],
                "principalId": principal if n % 4 else principal.upper(),
                "scope": _SCOPES[n % len(_SCOPES)],
                **(
                    {"condition": "@Resource[x] == 'y'", "conditionVersion": "2.0"}
                    if n == 5
                    else {}
                ),
            },
        }
        for n in range(24)
    ]


@pytest.mark.parametrize("rotate", [0, 1, 7])
@pytest.mark.parametrize("principal", ["0c5e4ad3-9c33-4a5e-9d1e-9a6b3c1f0e42", "u-3"])
def test_each_scope_and_role_as_written_is_resolved_once(principal: str, rotate: int) -> None:
    items = _items(principal)
    items = items[rotate:] + items[:rotate]  # other values first
    snapshot = _snapshot({"snapshotVersion": 1, "roleAssignments": items})
    _same(snapshot)  # the same index as the build before
    added: list[str] = []
    guids: list[str] = []
    add = ScopeTree.add

    def spy_add(self: ScopeTree, scope: str) -> str:
        added.append(scope)
        return add(self, scope)

    def spy_guid(raw: str) -> str:
        guids.append(raw)
        return role_guid(raw)

    with (
        mock.patch.object(ScopeTree, "add", spy_add),
        mock.patch.object(indexes_module, "role_guid", spy_guid),
    ):
        ix = Indexes(snapshot)
    # once per distinct value as written, in order of first appearance (one build: the probe
    # meets an id in upper case)
    builds = 1
    scopes = [ra.properties.scope or "/" for ra in snapshot.roleAssignments]
    roles = [ra.properties.roleDefinitionId for ra in snapshot.roleAssignments]
    assert added == list(dict.fromkeys(scopes)) * builds
    assert guids == list(dict.fromkeys(roles)) * builds
    assert len(added) == 4 * builds and len(guids) == 3 * builds
    # two casings of one scope share one table, and the tree keeps the casing first seen
    first = next(scope for scope in scopes if scope.rstrip("/").lower() == "/subscriptions/s1")
    assert ix.scopes.display("/subscriptions/s1") == first.rstrip("/")
    assert set(ix.at_scope) == {"/subscriptions/s1", "/", "/subscriptions/s1/resourcegroups/rg"}
    assert [e.scope for e in ix.assignments] == [
        ScopeTree.add(ScopeTree(), scope) for scope in scopes
    ]
    # one interned key per role GUID, whatever its casing and prefix
    assert {e.role for e in ix.assignments} == {role_guid(_ROLE), role_guid(_SUB_ROLE)}
    assert all(e.role is indexes_module._intern(e.role) for e in ix.assignments)
    # the one condition is kept, the others are None
    conditioned = [e.record.properties.condition is not None for e in ix.assignments]
    assert [e.cond is not None for e in ix.assignments] == conditioned
    assert sum(conditioned) == 1
