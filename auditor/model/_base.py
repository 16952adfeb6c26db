"""The base of every wire model: exact wire names, strict types, unknown fields kept."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class WireModel(BaseModel):
    """A resource or sub-object exactly as it travels on the wire (seed section 2).

    - Field names are the wire names (camelCase, ``storageaccounts`` lower case), so no aliases.
    - ``strict``: a string where a boolean belongs is an error, not a coercion.
    - ``extra="allow"``: an unknown field is kept (and dumped back), never refused; an audit reports
      odd values instead of failing to read them. Enumerations are typed ``str`` for the same
      reason; the known values live in ``StrEnum`` classes beside the models.
    - ``hide_input_in_errors``: validation errors never echo a value (it might be a secret).
    """

    model_config = ConfigDict(
        extra="allow",
        strict=True,
        populate_by_name=True,
        hide_input_in_errors=True,
        cache_strings=True,
        validate_default=False,
    )

    def to_wire(self, *, reveal_secrets: bool = False) -> dict[str, Any]:
        """The JSON-ready dict of exactly the fields that were set (explicit nulls kept).

        Secrets stay masked unless ``reveal_secrets`` is true, which only a client about to send the
        request (or a plan file being written back) asks for.
        """
        return self.model_dump(
            mode="json",
            exclude_unset=True,
            context={"reveal_secrets": reveal_secrets},
        )
