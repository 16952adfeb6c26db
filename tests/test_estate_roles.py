"""The shipped built-in role catalogue (semantics section 7) and how a snapshot's roles merge in."""

from __future__ import annotations

from auditor.estate.roles import (
    CONTRIBUTOR,
    OWNER,
    builtin_roles,
    role_catalogue,
    role_guid,
)
from auditor.model.access import RoleDefinition

EXPECTED = {
    "Owner": "8e3af657-a8ff-443c-a75c-2fe8c4bcb635",
    "Contributor": "b24988ac-6180-42a0-ab88-20f7382dd24c",
    "Reader": "acdd72a7-3385-48ef-bd42-f606fba81ae7",
    "User Access Administrator": "18d7d88d-d35e-4fb5-a5c3-7773c20a72d9",
    "Role Based Access Control Administrator": "f58310d9-a9f6-439a-9e8d-f62e7b41a168",
    "Storage Blob Data Reader": "2a2b9908-6ea1-4ae2-8e65-a410df84e7d1",
    "Storage Blob Data Contributor": "ba92f5b4-2d11-453d-a403-e96b0029c9fe",
    "Storage Blob Data Owner": "b7e6dc6d-f1e8-4753-8033-0f276bb0955b",
    "Key Vault Administrator": "00482a5a-887f-4fb3-b363-3b7fe8e74483",
    "Key Vault Secrets User": "4633458b-17de-408a-b874-0445c86b69e6",
    "Key Vault Data Access Administrator": "8b54135c-b56d-4d72-a534-26097cfdc8d8",
    "EventGrid Data Sender": "d5a91429-5739-47e2-a06b-3470a27159e7",
    "EventGrid Contributor": "1e241071-0855-49ea-94dc-649edcd759de",
    "HDInsight Cluster Operator": "61ed4efc-fab3-44fd-b111-e24485cc132a",
}


def test_every_builtin_role_of_the_table_ships_with_its_real_guid() -> None:
    roles = {r.properties.roleName: r for r in builtin_roles()}
    assert set(roles) == set(EXPECTED)
    for name, guid in EXPECTED.items():
        role = roles[name]
        assert role.id == f"/providers/Cloud.Authorization/roleDefinitions/{guid}"
        assert role.properties.type == "BuiltInRole"
        assert role.properties.assignableScopes == ["/"]
        for perm in role.properties.permissions:
            for action in perm.actions + perm.notActions + perm.dataActions:
                assert not action.startswith("Microsoft."), action


def test_contributor_subtracts_authorization_writes_and_kv_admin_is_conditioned() -> None:
    catalogue = role_catalogue()
    contributor = catalogue[CONTRIBUTOR].properties.permissions[0]
    assert contributor.actions == ["*"]
    assert "Cloud.Authorization/*/Write" in contributor.notActions
    assert len(contributor.notActions) == 11
    kvdaa = catalogue["8b54135c-b56d-4d72-a534-26097cfdc8d8"].properties.permissions[0]
    assert kvdaa.conditionVersion == "2.0"
    assert kvdaa.condition is not None
    assert "ActionMatches{'Cloud.Authorization/roleAssignments/write'}" in kvdaa.condition


def test_snapshot_role_with_same_guid_replaces_the_shipped_one() -> None:
    custom = RoleDefinition.model_validate(
        {
            "id": f"/subscriptions/s1/providers/Cloud.Authorization/roleDefinitions/{OWNER.upper()}",
            "properties": {"roleName": "Owner (tenant copy)", "type": "BuiltInRole"},
        }
    )
    catalogue = role_catalogue([custom])
    assert catalogue[OWNER].properties.roleName == "Owner (tenant copy)"
    assert len(catalogue) == len(EXPECTED)


def test_role_guid_ignores_prefix_case_and_trailing_slash() -> None:
    assert (
        role_guid(f"/subscriptions/x/providers/Cloud.Authorization/roleDefinitions/{OWNER}/")
        == OWNER
    )
    assert role_guid(OWNER.upper()) == OWNER
