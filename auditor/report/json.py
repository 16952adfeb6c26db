"""The findings document of contracts section 6 (``schemaVersion`` 1), as JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from auditor.audit.findings import AuditResult
    from auditor.report import RenderOptions


def _default(value: object) -> object:
    isoformat = getattr(value, "isoformat", None)
    if callable(isoformat):
        return isoformat()
    return str(value)


def render(result: AuditResult, options: RenderOptions) -> bytes:
    """``result.to_json()`` encoded as indented UTF-8 JSON with a final newline."""
    data = msgspec.json.encode(result.to_json(), enc_hook=_default)
    return msgspec.json.format(data, indent=2) + b"\n"
