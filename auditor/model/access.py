"""Area A of the seed: deny assignments, role assignments (section 2.A) and role definitions
(contracts section 2)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from auditor.model._base import WireModel
from auditor.model.plain import ALL_PRINCIPALS_ID as ALL_PRINCIPALS_ID


class PrincipalType(StrEnum):
    """Known principal kinds (seed 2.A plus ``SystemDefined`` of contracts 2). Others are kept."""

    DEVICE = "Device"
    FOREIGN_GROUP = "ForeignGroup"
    GROUP = "Group"
    SERVICE_PRINCIPAL = "ServicePrincipal"
    USER = "User"
    SYSTEM_DEFINED = "SystemDefined"


class Principal(WireModel):
    id: str | None = None
    type: str | None = None
    displayName: str | None = None
    email: str | None = None


class DenyAssignmentPermission(WireModel):
    actions: list[str] = Field(default_factory=list)
    notActions: list[str] = Field(default_factory=list)
    dataActions: list[str] = Field(default_factory=list)
    notDataActions: list[str] = Field(default_factory=list)
    condition: str | None = None
    conditionVersion: str | None = None


class DenyAssignmentProperties(WireModel):
    denyAssignmentName: str | None = None
    description: str | None = None
    scope: str | None = None
    doNotApplyToChildScopes: bool | None = None
    permissions: list[DenyAssignmentPermission] = Field(default_factory=list)
    principals: list[Principal] = Field(default_factory=list)
    excludePrincipals: list[Principal] = Field(default_factory=list)
    isSystemProtected: bool | None = None
    condition: str | None = None
    conditionVersion: str | None = None
    createdBy: str | None = None
    createdOn: str | None = None
    updatedBy: str | None = None
    updatedOn: str | None = None


class DenyAssignment(WireModel):
    id: str | None = None
    name: str | None = None
    type: str | None = None
    properties: DenyAssignmentProperties = Field(default_factory=DenyAssignmentProperties)


class DenyAssignmentListResult(WireModel):
    value: list[DenyAssignment] = Field(default_factory=list)
    nextLink: str | None = None


class RoleAssignmentProperties(WireModel):
    roleDefinitionId: str | None = None
    principalId: str | None = None
    principalType: str | None = None
    scope: str | None = None
    description: str | None = None
    condition: str | None = None
    conditionVersion: str | None = None
    delegatedManagedIdentityResourceId: str | None = None
    createdBy: str | None = None
    createdOn: str | None = None
    updatedBy: str | None = None
    updatedOn: str | None = None


class RoleAssignment(WireModel):
    id: str | None = None
    name: str | None = None
    type: str | None = None
    properties: RoleAssignmentProperties = Field(default_factory=RoleAssignmentProperties)


class RoleAssignmentListResult(WireModel):
    value: list[RoleAssignment] = Field(default_factory=list)
    nextLink: str | None = None


class RoleType(StrEnum):
    BUILT_IN = "BuiltInRole"
    CUSTOM = "CustomRole"


class RolePermission(WireModel):
    actions: list[str] = Field(default_factory=list)
    notActions: list[str] = Field(default_factory=list)
    dataActions: list[str] = Field(default_factory=list)
    notDataActions: list[str] = Field(default_factory=list)
    condition: str | None = None
    conditionVersion: str | None = None


class RoleDefinitionProperties(WireModel):
    roleName: str | None = None
    type: str | None = None
    description: str | None = None
    assignableScopes: list[str] = Field(default_factory=list)
    permissions: list[RolePermission] = Field(default_factory=list)


class RoleDefinition(WireModel):
    id: str | None = None
    name: str | None = None
    type: str | None = None
    properties: RoleDefinitionProperties = Field(default_factory=RoleDefinitionProperties)
