"""The error bodies of seed section 7: ``ErrorResponse`` (areas A to C) and area D's default one."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from auditor.model._base import WireModel


class ErrorAdditionalInfo(WireModel):
    type: str | None = None
    info: dict[str, Any] | None = None


class ErrorDetail(WireModel):
    """``error`` of an ErrorResponse; ``details`` nests recursively."""

    code: str | None = None
    message: str | None = None
    target: str | None = None
    details: list[ErrorDetail] = Field(default_factory=list)
    additionalInfo: list[ErrorAdditionalInfo] = Field(default_factory=list)


class ErrorResponse(WireModel):
    """The error body of areas A to C (seed 7)."""

    error: ErrorDetail | None = None


class HealthErrorResponse(WireModel):
    """The default error response of area D (seed 7): flat, ``details`` is a string."""

    code: str | None = None
    message: str | None = None
    details: str | None = None
