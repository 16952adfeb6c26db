"""Unknown fields of a bulk record (a msgspec record type of :mod:`auditor.estate.records`): the
item with only the fields its type knows, and the secret-looking unknown ones dropped in place.
Shared by the snapshot loader and the import of real exports (``auditor.sources.exports``)."""

from __future__ import annotations

from typing import Any

import msgspec

from auditor.model.unknown_fields import drop_from_unknown, is_secret_looking_name


def known_fields(value: Any, cls: type[Any]) -> tuple[Any, bool]:
    """``value`` with only the fields the record type ``cls`` knows (at any depth), and whether it
    had others."""
    if not isinstance(value, dict):
        return value, False
    fields = {f.encode_name: f for f in msgspec.structs.fields(cls)}
    out: dict[str, Any] = {}
    unknown = False
    for k, v in value.items():
        f = fields.get(k)
        if f is None:
            unknown = True
            continue
        inner = _struct_type(f.type)
        if inner is not None and isinstance(v, dict):
            v, u = known_fields(v, inner)
            unknown |= u
        elif inner is not None and isinstance(v, list):
            parts = [known_fields(x, inner) for x in v]
            v = [p[0] for p in parts]
            unknown |= any(p[1] for p in parts)
        out[k] = v
    return out, unknown


def drop_secret_looking(value: Any, cls: type[Any], path: str, dropped: list[str]) -> None:
    """Drop, in place, the unknown fields with secret-looking names of an item of the record type
    ``cls`` (at any depth, inside unknown fields too); their JSON paths (under ``path``, which may
    be empty) go to ``dropped``."""
    if not isinstance(value, dict):
        return
    fields = {f.encode_name: f for f in msgspec.structs.fields(cls)}
    for k in list(value):
        where = f"{path}.{k}" if path else k
        f = fields.get(k)
        if f is None:
            if is_secret_looking_name(k):
                del value[k]
                dropped.append(where)
            else:
                drop_from_unknown(value[k], where, dropped)
            continue
        inner = _struct_type(f.type)
        v = value[k]
        if inner is not None and isinstance(v, dict):
            drop_secret_looking(v, inner, where, dropped)
        elif inner is not None and isinstance(v, list):
            for i, x in enumerate(v):
                drop_secret_looking(x, inner, f"{where}[{i}]", dropped)


def _struct_type(annotation: Any) -> type[Any] | None:
    if isinstance(annotation, type) and issubclass(annotation, msgspec.Struct):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _struct_type(arg)
        if found is not None:
            return found
    return None
