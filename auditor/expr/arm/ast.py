"""Typed syntax tree of ARM template expressions.

Every node is a frozen, hashable dataclass, so trees compare by value (``parse(print(t)) == t``) and
can key caches. A function name keeps the spelling it was written with (the printer writes it back);
:attr:`Call.key` is the case-insensitive form the evaluator looks it up by. The bare words ``true``,
``false`` and ``null`` are read as the calls ``true()``, ``false()`` and ``null()``, which is what
they mean.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypeAlias

__all__ = ["Call", "Expr", "Index", "IntLit", "Property", "StrLit", "is_identifier"]

_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")


def is_identifier(name: str) -> bool:
    """True when ``name`` can follow a ``.`` in a property access (otherwise it is indexed as
    ``['name']``)."""
    return bool(_IDENTIFIER.match(name))


@dataclass(frozen=True, slots=True)
class StrLit:
    """A single-quoted string (``''`` inside stands for one quote)."""

    value: str


@dataclass(frozen=True, slots=True)
class IntLit:
    """An integer literal (64-bit, as the vendor's engine)."""

    value: int


@dataclass(frozen=True, slots=True)
class Call:
    """``name(arg, ...)``; ``name`` may be ``namespace.member`` (a user-defined function)."""

    name: str
    args: tuple[Expr, ...] = ()

    @property
    def key(self) -> str:
        """The name as functions are looked up: lower case."""
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class Property:
    """``target.name``: a property of the object ``target`` evaluates to (case-insensitive)."""

    target: Expr
    name: str


@dataclass(frozen=True, slots=True)
class Index:
    """``target[index]``: an array element, or an object property named by a string."""

    target: Expr
    index: Expr


Expr: TypeAlias = StrLit | IntLit | Call | Property | Index
