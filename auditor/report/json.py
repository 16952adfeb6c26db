"""The findings document of contracts section 6 (``schemaVersion`` 1), as JSON.

Values are kept exactly (tools match ids and fingerprints), but DEL, C1 controls and invisible bidi
and format characters are written as ``\\u`` escapes, so the file shows nothing raw in a terminal or
an editor (:func:`auditor.inert.inert_json`); JSON already escapes the other controls."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from auditor.inert import inert_json, inert_json_bytes

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
    doc = result.to_json()
    try:
        data = msgspec.json.format(msgspec.json.encode(doc, enc_hook=_default), indent=2)
    except UnicodeEncodeError:  # a lone surrogate (a plan read by json.loads may hold one)
        import json

        text = json.dumps(doc, indent=2, ensure_ascii=False, default=_default)
        return inert_json(text).encode("utf-8") + b"\n"  # written as a \\u escape
    return inert_json_bytes(data) + b"\n"
