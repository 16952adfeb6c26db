"""Shapes shared by several areas: ``systemData`` (seed 2.C, reused by 2.D)."""

from __future__ import annotations

from enum import StrEnum

from auditor.model._base import WireModel


class CreatedByType(StrEnum):
    """Who created or last modified a resource (seed 2.C ``systemData``)."""

    APPLICATION = "Application"
    KEY = "Key"
    MANAGED_IDENTITY = "ManagedIdentity"
    USER = "User"


class SystemData(WireModel):
    """Creation and last-modification metadata; timestamps are UTC strings (seed 2.C)."""

    createdAt: str | None = None
    createdBy: str | None = None
    createdByType: str | None = None
    lastModifiedAt: str | None = None
    lastModifiedBy: str | None = None
    lastModifiedByType: str | None = None
