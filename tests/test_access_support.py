"""Builders of small estates for the access tests (no tests here)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from auditor.access import AccessEngine, AccessRequest, Decision
from auditor.estate.records import (
    DenyAssignmentPropertiesRecord,
    DenyAssignmentRecord,
    DenyPermissionRecord,
    DirectoryPrincipalRecord,
    HierarchyRecord,
    PrincipalRecord,
    RoleAssignmentPropertiesRecord,
    RoleAssignmentRecord,
)
from auditor.estate.roles import (
    CONTRIBUTOR,
    OWNER,
    RBAC_ADMINISTRATOR,
    READER,
    USER_ACCESS_ADMINISTRATOR,
)
from auditor.estate.snapshot import Snapshot
from auditor.model.access import ALL_PRINCIPALS_ID, RoleDefinition

__all__ = [
    "ALL",
    "BLOB_READ",
    "BLOB_READER",
    "CONTRIBUTOR",
    "MG",
    "MG2",
    "OWNER",
    "RBAC_ADMINISTRATOR",
    "READER",
    "RG",
    "SUB",
    "SUB2",
    "USER_ACCESS_ADMINISTRATOR",
    "VM",
    "VM_WRITE",
    "build",
    "check",
    "deny",
    "engine",
    "group",
    "ra",
    "role",
    "user",
]

ALL = "*all*"
MG = "/providers/Cloud.Management/managementGroups/mg-top"
MG2 = "/providers/Cloud.Management/managementGroups/mg-child"
SUB = "/subscriptions/sub-1"
SUB2 = "/subscriptions/sub-2"
RG = SUB + "/resourceGroups/rg-1"
VM = RG + "/providers/Cloud.Compute/virtualMachines/vm-1"
VM_WRITE = "Cloud.Compute/virtualMachines/write"
BLOB_READ = "Cloud.Storage/storageAccounts/blobServices/containers/blobs/read"
BLOB_READER = "2a2b9908-6ea1-4ae2-8e65-a410df84e7d1"


def user(
    pid: str,
    *groups: str,
    name: str | None = None,
    email: str | None = None,
    guest: bool = False,
    enabled: bool = True,
) -> DirectoryPrincipalRecord:
    return DirectoryPrincipalRecord(
        id=pid,
        type="User",
        displayName=name or pid,
        email=email,
        userType="Guest" if guest else "Member",
        accountEnabled=enabled,
        memberOf=list(groups),
    )


def group(gid: str, *groups: str, name: str | None = None) -> DirectoryPrincipalRecord:
    return DirectoryPrincipalRecord(
        id=gid, type="Group", displayName=name or gid, memberOf=list(groups)
    )


def role_id(guid: str, prefix: str = "") -> str:
    return f"{prefix}/providers/Cloud.Authorization/roleDefinitions/{guid}"


def role(
    guid: str,
    name: str,
    actions: Sequence[str] = (),
    not_actions: Sequence[str] = (),
    data_actions: Sequence[str] = (),
    not_data_actions: Sequence[str] = (),
    *,
    condition: str | None = None,
    permissions: Sequence[Mapping[str, Any]] | None = None,
    scopes: Sequence[str] = ("/",),
) -> RoleDefinition:
    perms = (
        list(permissions)
        if permissions is not None
        else [
            {
                "actions": list(actions),
                "notActions": list(not_actions),
                "dataActions": list(data_actions),
                "notDataActions": list(not_data_actions),
                **({"condition": condition, "conditionVersion": "2.0"} if condition else {}),
            }
        ]
    )
    return RoleDefinition.model_validate(
        {
            "id": role_id(guid),
            "name": guid,
            "type": "Cloud.Authorization/roleDefinitions",
            "properties": {
                "roleName": name,
                "type": "CustomRole",
                "assignableScopes": list(scopes),
                "permissions": perms,
            },
        }
    )


def ra(
    rid: str,
    principal: str,
    guid: str,
    scope: str,
    *,
    condition: str | None = None,
    version: str | None = "2.0",
    principal_type: str = "User",
    created_by: str | None = None,
    updated_by: str | None = None,
) -> RoleAssignmentRecord:
    return RoleAssignmentRecord(
        id=f"{scope.rstrip('/')}/providers/Cloud.Authorization/roleAssignments/{rid}",
        name=rid,
        type="Cloud.Authorization/roleAssignments",
        properties=RoleAssignmentPropertiesRecord(
            roleDefinitionId=role_id(guid, SUB),
            principalId=principal,
            principalType=principal_type,
            scope=scope,
            condition=condition,
            conditionVersion=version if condition else None,
            createdBy=created_by,
            updatedBy=updated_by,
        ),
    )


def _principal(pid: str) -> PrincipalRecord:
    if pid == ALL:
        return PrincipalRecord(id=ALL_PRINCIPALS_ID, type="SystemDefined")
    return PrincipalRecord(id=pid, type="User")


def deny(
    did: str,
    scope: str,
    *,
    actions: Sequence[str] = (),
    not_actions: Sequence[str] = (),
    data_actions: Sequence[str] = (),
    not_data_actions: Sequence[str] = (),
    principals: Iterable[str] = (ALL,),
    excluded: Iterable[str] = (),
    at_scope_only: bool = False,
    condition: str | None = None,
    permission_condition: str | None = None,
    name: str | None = None,
) -> DenyAssignmentRecord:
    return DenyAssignmentRecord(
        id=f"{scope.rstrip('/')}/providers/Cloud.Authorization/denyAssignments/{did}",
        name=did,
        type="Cloud.Authorization/denyAssignments",
        properties=DenyAssignmentPropertiesRecord(
            denyAssignmentName=name or did,
            description=f"deny {did}",
            scope=scope,
            doNotApplyToChildScopes=at_scope_only,
            permissions=[
                DenyPermissionRecord(
                    actions=list(actions),
                    notActions=list(not_actions),
                    dataActions=list(data_actions),
                    notDataActions=list(not_data_actions),
                    condition=permission_condition,
                    conditionVersion="2.0" if permission_condition else None,
                )
            ],
            principals=[_principal(p) for p in principals],
            excludePrincipals=[_principal(p) for p in excluded],
            isSystemProtected=False,
            condition=condition,
            conditionVersion="2.0" if condition else None,
        ),
    )


def build(
    *,
    principals: Iterable[DirectoryPrincipalRecord] = (),
    roles: Iterable[RoleDefinition] = (),
    assignments: Iterable[RoleAssignmentRecord] = (),
    denies: Iterable[DenyAssignmentRecord] = (),
    hierarchy: Iterable[tuple[str, str | None]] = ((MG, "/"), (MG2, MG), (SUB, MG2)),
) -> Snapshot:
    return Snapshot(
        collectedAt="2026-11-21T10:00:00Z",
        tenantId="tenant-1",
        hierarchy=[HierarchyRecord(id=i, parent=p) for i, p in hierarchy],
        principals=list(principals),
        roleDefinitions=list(roles),
        roleAssignments=list(assignments),
        denyAssignments=list(denies),
        source="<test>",
    )


def engine(**kwargs: Any) -> AccessEngine:
    return AccessEngine.from_snapshot(build(**kwargs))


def check(
    eng: AccessEngine,
    principal: str,
    action: str,
    scope: str,
    *,
    data: bool = False,
    attributes: Mapping[str, Any] | None = None,
    sub_operation: str | None = None,
) -> Decision:
    return eng.check(
        AccessRequest(
            principalId=principal,
            action=action,
            scope=scope,
            dataAction=data,
            subOperation=sub_operation,
            attributes=attributes,
        )
    )
