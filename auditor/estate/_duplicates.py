"""Entries of one snapshot section that share an id are merged when the snapshot is read.

Ids compare case-insensitively and a trailing ``/`` is ignored (contracts 1). Copies that are
identical (or identical but for the casing of their id) are merged into the first one and counted in
a warning; copies with the same id but different content are an input error naming both JSON paths.

The check is built for a million role assignments: one pass hashes every lower-cased id (in C, no
Python-level loop) and, when no two hashes are equal, nothing more is done. Only a section with a
repeated hash takes the second pass that keys every entry by its id and compares content, and only
the colliding entries are compared.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import attrgetter
from typing import Any

import msgspec

from auditor.errors import InputError


@dataclass
class Merged:
    """A section after merging: its entries, where each came from in the file, how many went."""

    items: list[Any]
    positions: list[int] | None
    """The file index of each kept entry; None when nothing was merged (indexes are the file's)."""
    dropped: int = 0


def id_key(value: str) -> str:
    """The comparison key of an id or scope (contracts 1)."""
    return value.rstrip("/").lower()


def _all_distinct(keys: Iterable[str], count: int) -> bool:
    """True when no two of the ``count`` ``keys`` are equal, decided from their hashes (a repeated
    hash, even a chance collision, answers False and sends the caller down the exact path). The
    keys are not kept: only their hashes live until the answer is known."""
    return len(set(map(hash, keys))) == count


def merge_records(
    section: str, records: list[Any], preserved: dict[int, Any], source: str
) -> tuple[Merged, dict[int, Any]]:
    """Merge the records of a bulk section (every record has an ``id``); ``preserved`` (the original
    JSON of records with unknown fields, by index) is compared too and re-indexed."""
    ids = map(attrgetter("id"), records)
    # str.rstrip called through map, not methodcaller: no method lookup per id
    if _all_distinct(map(str.lower, map(str.rstrip, ids, repeat("/"))), len(records)):
        return Merged(records, None), preserved

    def same(i: int, j: int) -> bool:
        a, b = records[i], records[j]
        if a != b and (a.id == b.id or msgspec.structs.replace(b, id=a.id) != a):
            return False
        pa, pb = preserved.get(i), preserved.get(j)
        if pa is None or pb is None:
            return pa is None and pb is None
        return bool({**pb, "id": pa.get("id")} == pa)

    def difference(i: int, j: int) -> str | None:
        a = preserved.get(i) or msgspec.to_builtins(records[i])
        b = preserved.get(j) or msgspec.to_builtins(records[j])
        return first_difference(a, b)

    merged = _merge(section, records, [id_key(r.id) for r in records], same, difference, source)
    if merged.positions is not None and preserved:
        preserved = {
            new: preserved[old] for new, old in enumerate(merged.positions) if old in preserved
        }
    return merged, preserved


def merge_models(section: str, models: list[Any], key_fields: Sequence[str], source: str) -> Merged:
    """Merge the wire models of a small section, keyed by ``key_fields`` (``("id",)``, or
    ``("owner", "name")`` for apps); an entry without a key is always kept."""

    def key(model: Any) -> str | None:
        parts = [getattr(model, f, None) for f in key_fields]
        if not any(isinstance(p, str) and p for p in parts):
            return None
        return "/".join(id_key(p) if isinstance(p, str) else "" for p in parts)

    keys = [key(m) for m in models]
    present = [k for k in keys if k is not None]
    if _all_distinct(present, len(present)):
        return Merged(models, None)

    def same(i: int, j: int) -> bool:
        a, b = models[i], models[j]
        if a == b:
            return True
        update = {f: getattr(a, f, None) for f in key_fields}
        return bool(b.model_copy(update=update) == a)

    def difference(i: int, j: int) -> str | None:
        a = models[i].to_wire(reveal_secrets=True)
        b = models[j].to_wire(reveal_secrets=True)
        for f in key_fields:
            a.pop(f, None)
            b.pop(f, None)
        return first_difference(a, b)

    return _merge(section, models, keys, same, difference, source)


def _merge(
    section: str,
    items: list[Any],
    keys: Sequence[str | None],
    same: Callable[[int, int], bool],
    difference: Callable[[int, int], str | None],
    source: str,
) -> Merged:
    first: dict[str, int] = {}
    keep: list[int] = []
    for index, key in enumerate(keys):
        if key is None:
            keep.append(index)
            continue
        earlier = first.setdefault(key, index)
        if earlier == index:
            keep.append(index)
        elif not same(earlier, index):
            where = difference(earlier, index)
            what = f"{where} differs" if where else "the content differs"
            raise InputError(
                f"the same id as {section}[{earlier}] (ids compare case-insensitively) but "
                f"different content ({what}); expected each id once, or identical copies",
                source=source,
                location=f"{section}[{index}]",
            )
    dropped = len(items) - len(keep)
    if not dropped:
        return Merged(items, None)
    return Merged([items[i] for i in keep], keep, dropped)


def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """The JSON path of the first place where ``a`` and ``b`` differ (``id`` excepted at the top),
    or None; only paths, never values, so it can go into an error message."""
    if type(a) is not type(b):
        return path or "the entry"
    if isinstance(a, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if not path and key == "id":
                continue
            where = f"{path}.{key}" if path else str(key)
            if key not in a or key not in b:
                return where
            found = first_difference(a[key], b[key], where)
            if found is not None:
                return found
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found is not None:
                return found
        return (path or "the entry") if len(a) != len(b) else None
    return (path or "the entry") if a != b else None


def merged_warning(section: str, merged: Merged) -> str:
    """The warning of a section whose duplicates were merged."""
    n = merged.dropped
    return (
        f"{section}: merged {n:,} duplicate entr{'y' if n == 1 else 'ies'} (same id, compared "
        f"case-insensitively, identical content) into {len(merged.items):,}; JSON paths in the "
        "findings are those of the file"
    )
