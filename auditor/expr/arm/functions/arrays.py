"""Array and object functions: ``first``, ``last``, ``take``, ``skip``, ``min``, ``max``,
``range``, ``flatten``, ``union``, ``intersection``, ``items``, ``objectKeys``, ``shallowMerge``,
``tryGet``."""

from __future__ import annotations

from typing import Any

from auditor.expr.arm.ast import Call
from auditor.expr.arm.functions._args import (
    NOT_IMPLEMENTED,
    bmp,
    find_key,
    int_arg,
    limit_items,
    member,
    need,
)
from auditor.expr.arm.functions._table import (
    Evaluation,
    Problem,
    PropagateUnknown,
    builtin,
)
from auditor.expr.arm.values import (
    MAX_NESTING,
    Unknown,
    canonical,
    describe_type,
    find_unknown,
    values_equal,
)


def _ends(call: Call, args: list[Any], last: bool) -> Any:
    value = args[0]
    if value is None:
        return None
    if isinstance(value, list):
        if not value:
            return None
        return value[-1] if last else value[0]
    if isinstance(value, str):
        if not value:
            return ""
        return bmp(value, call)[-1 if last else 0]
    raise need(call, 0, "a string or an array", value)


@builtin("first", 1, 1)
def _first(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return _ends(call, args, last=False)


@builtin("last", 1, 1)
def _last(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return _ends(call, args, last=True)


def _slice(call: Call, args: list[Any], take: bool) -> Any:
    value = args[0]
    count = max(int_arg(args, 1, call), 0)
    if value is None:
        return None
    if isinstance(value, str):
        value = bmp(value, call)
    elif not isinstance(value, list):
        raise need(call, 0, "a string or an array", value)
    return value[:count] if take else value[count:]


@builtin("take", 2, 2)
def _take(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return _slice(call, args, take=True)


@builtin("skip", 2, 2)
def _skip(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return _slice(call, args, take=False)


def _numbers(call: Call, args: list[Any]) -> list[int]:
    values = args[0] if len(args) == 1 and isinstance(args[0], list) else args
    if not values:
        raise Problem(f"{call.name}() of an empty array")
    for value in values:
        if isinstance(value, Unknown):
            raise PropagateUnknown(value)
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float):
                raise Problem(f"{call.name}() of non-integers is not implemented", NOT_IMPLEMENTED)
            raise Problem(f"{call.name}() expects integers, found {describe_type(value)}")
    return values


@builtin("min", 1)
def _min(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return min(_numbers(call, args))


@builtin("max", 1)
def _max(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    return max(_numbers(call, args))


@builtin("range", 2, 2)
def _range(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    start, count = int_arg(args, 0, call), int_arg(args, 1, call)
    if not 0 <= count <= 10_000:
        raise Problem("range() count must be between 0 and 10000")
    if start < -(2**31) or start + count - 1 > 2**31 - 1:
        raise Problem("range() goes beyond 32-bit integers")
    return list(range(start, start + count))


@builtin("flatten", 1, 1)
def _flatten(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    outer = args[0]
    if not isinstance(outer, list):
        raise need(call, 0, "an array of arrays", outer)
    result: list[Any] = []
    for item in outer:
        if isinstance(item, Unknown):
            raise PropagateUnknown(item)
        if not isinstance(item, list):
            raise Problem("flatten() expects an array of arrays")
        result.extend(item)
    return limit_items(result, call)


def _same_kind(call: Call, args: list[Any]) -> type:
    kinds = {type(value) for value in args}
    if kinds == {list}:
        return list
    if kinds == {dict}:
        return dict
    raise Problem(f"{call.name}() expects arguments that are all arrays or all objects")


def _keys(items: list[Any]) -> list[Any]:
    """Each item's :func:`canonical` key; an unknown item decides the caller's result."""
    keys = []
    for item in items:
        key = canonical(item)
        if key is None:
            raise PropagateUnknown(
                find_unknown(item) or Unknown("", "the values are too large to compare")
            )
        keys.append(key)
    return keys


def _distinct(items: list[Any]) -> list[Any]:
    seen: set[Any] = set()
    result: list[Any] = []
    for item, key in zip(items, _keys(items), strict=True):
        if key not in seen:
            seen.add(key)
            result.append(item)
    return result


def _merge(
    target: dict[str, Any], patch: dict[str, Any], call: Call, depth: int = 0
) -> dict[str, Any]:
    """Deep merge, names matched ignoring case; arrays and scalars are replaced."""
    if depth > MAX_NESTING:
        raise Problem(
            f"{call.name}() of objects nested this deeply is not implemented", NOT_IMPLEMENTED
        )
    merged = dict(target)
    for name, value in patch.items():
        key = find_key(merged, name)
        if key is None:
            merged[name] = value
            continue
        old = merged[key]
        if isinstance(old, Unknown) or isinstance(value, Unknown):
            # whether the two merge (objects) or the patch replaces depends on the unknown one
            merged[key] = value if isinstance(value, Unknown) else old
        elif isinstance(old, dict) and isinstance(value, dict):
            merged[key] = _merge(old, value, call, depth + 1)
        elif isinstance(old, dict) or isinstance(value, dict):
            raise Problem(
                f"{call.name}() of an object property with a non-object is not implemented",
                NOT_IMPLEMENTED,
            )
        else:
            merged[key] = value
    return merged


@builtin("union", 2)
def _union(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    if _same_kind(call, args) is list:
        return limit_items(_distinct([item for value in args for item in value]), call)
    result: dict[str, Any] = {}
    for value in args:
        result = _merge(result, value, call)
    return result


@builtin("intersection", 2)
def _intersection(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    if _same_kind(call, args) is list:
        others = [set(_keys(other)) for other in args[1:]]
        first = _distinct(args[0])
        return [
            item
            for item, key in zip(first, _keys(first), strict=True)
            if all(key in other for other in others)
        ]
    shared: dict[str, Any] = {}
    for name, value in args[0].items():
        everywhere = True
        for other in args[1:]:
            if name not in other:
                everywhere = False
                continue
            same = values_equal(value, other[name])
            if same is None:
                raise PropagateUnknown(
                    find_unknown([value, other[name]]) or Unknown("", "too large")
                )
            everywhere = everywhere and same
        if everywhere:
            shared[name] = value
    return shared


def _fold_key(name: str) -> str:
    return "".join(char.upper() if len(char.upper()) == 1 else char for char in name)


@builtin("items", 1, 1)
def _items(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    value = args[0]
    if not isinstance(value, dict):
        raise need(call, 0, "an object", value)
    ordered = sorted(value.items(), key=lambda pair: _fold_key(pair[0]))
    return [{"key": key, "value": item} for key, item in ordered]


@builtin("objectKeys", 1, 1)
def _object_keys(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    value = args[0]
    if not isinstance(value, dict):
        raise need(call, 0, "an object", value)
    return list(value)


@builtin("shallowMerge", 1, 1)
def _shallow_merge(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    objects = args[0]
    if not isinstance(objects, list):
        raise need(call, 0, "an array of objects", objects)
    result: dict[str, Any] = {}
    for item in objects:
        if isinstance(item, Unknown):
            raise PropagateUnknown(item)
        if not isinstance(item, dict):
            raise Problem("shallowMerge() expects an array of objects")
        for name, value in item.items():
            key = find_key(result, name)
            if key is not None and key != name:
                raise Problem(
                    "shallowMerge() of names that differ only in case is not implemented",
                    NOT_IMPLEMENTED,
                )
            result[name] = value
    return result


def _safe_member(value: Any, key: Any) -> Any:
    if isinstance(value, dict) and isinstance(key, str):
        found = find_key(value, key)
        return None if found is None else value[found]
    if isinstance(value, list) and isinstance(key, int) and not isinstance(key, bool):
        return value[key] if 0 <= key < len(value) else None
    return None


@builtin("tryGet", 2, takes_unknown=True)
def _try_get(ev: Evaluation, call: Call, args: list[Any]) -> Any:
    for position, key in enumerate(args[1:], start=1):
        if isinstance(key, Unknown):
            raise PropagateUnknown(key)
        if isinstance(key, bool) or not isinstance(key, str | int):
            raise need(call, position, "a property name or an index", key)
    value = args[0]
    if isinstance(value, Unknown):
        raise PropagateUnknown(value)
    value = _safe_member(value, args[1])
    for key in args[2:]:
        if isinstance(value, Unknown):
            raise PropagateUnknown(value)
        if value is None:
            return None
        value = member(value, key)
    return value
