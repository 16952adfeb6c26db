"""Finding where a list page nests too deeply, without recursing (the JSON decoder gives up on
such a page as a whole with a ``RecursionError``): the items of its top-level ``value`` array
that nest deeper than a limit, with their byte ranges and the JSON path where the limit was
passed, so that the page can be read without them."""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_DEPTH = 64
"""Nesting depth (objects and arrays) a page may reach; no resource of the seed nests past 10."""

_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{},:]', re.DOTALL)
_SHOWN_PARTS = 8


@dataclass(frozen=True)
class DeepItem:
    """An item of ``value`` nesting deeper than the limit: ``data[start:end]``."""

    index: int
    start: int
    end: int
    path: str


@dataclass(frozen=True)
class Nesting:
    items: list[DeepItem]
    """Items of ``value`` that nest too deeply, in order."""
    elsewhere: str | None
    """The path of a too-deep nesting outside ``value``'s items (the page cannot be read)."""


class _Frame:
    __slots__ = ("expects_key", "key", "kind", "start")

    def __init__(self, kind: bytes, start: int) -> None:
        self.kind = kind
        self.key: str | int | None = None if kind == b"{" else 0
        self.start = start
        self.expects_key = kind == b"{"


def find_deep(data: bytes, limit: int = MAX_DEPTH) -> Nesting:
    """The items of the top-level ``value`` array of ``data`` (a JSON object) that nest deeper
    than ``limit`` levels (the item itself counting as level 3)."""
    stack: list[_Frame] = []
    found: list[DeepItem] = []
    skipping: tuple[int, int, str] | None = None  # (index, start, path) of a too-deep item
    for m in _TOKENS.finditer(data):
        token = m.group()
        head = token[:1]
        if head == b'"':
            if stack and stack[-1].expects_key:
                stack[-1].key = token[1:-1].decode("utf-8", errors="replace")
        elif head in b"{[":
            stack.append(_Frame(head, m.start()))
            if len(stack) > limit and skipping is None:
                path = _path(stack)
                if not _in_value_item(stack):
                    return Nesting(found, path)
                index = stack[1].key
                assert isinstance(index, int)
                skipping = (index, stack[2].start, path)
        elif head in b"}]":
            if not stack:
                return Nesting(found, "$")
            stack.pop()
            if skipping is not None and len(stack) == 2:
                index, start, path = skipping
                found.append(DeepItem(index, start, m.end(), path))
                skipping = None
        elif not stack:
            continue
        elif head == b":":
            stack[-1].expects_key = False
        else:  # ","
            top = stack[-1]
            if top.kind == b"[":
                assert isinstance(top.key, int)
                top.key += 1
            else:
                top.expects_key = True
    return Nesting(found, None)


def without(data: bytes, items: list[DeepItem]) -> bytes:
    """``data`` with each of ``items`` replaced by ``null`` (indices stay the same)."""
    out = bytearray(data)
    for item in reversed(items):
        out[item.start : item.end] = b"null"
    return bytes(out)


def _in_value_item(stack: list[_Frame]) -> bool:
    return (
        len(stack) >= 3
        and stack[0].kind == b"{"
        and stack[0].key == "value"
        and stack[1].kind == b"["
    )


def _path(stack: list[_Frame]) -> str:
    parts: list[str] = []
    for frame in stack[:-1]:
        key = frame.key
        if isinstance(key, int):
            parts.append(f"[{key}]")
        elif key is not None:
            shown = key if len(key) <= 40 else key[:40] + "..."
            parts.append(("." if parts else "") + shown)
    if len(parts) > _SHOWN_PARTS:
        parts = [*parts[:_SHOWN_PARTS], f" ... ({len(parts) - _SHOWN_PARTS} more levels)"]
    return "".join(parts) or "$"
