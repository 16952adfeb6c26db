"""Conditions of role assignments, role permissions and deny assignments, as the decision function
uses them: compiled once (lazily, so a check that meets no condition never loads the parser),
evaluated three-valued.

A condition that cannot be used — it does not parse, is longer than 8 KB, or carries a
``conditionVersion`` other than ``2.0`` — is *undecidable* everywhere: it makes an answer
``conditional`` and is named in it, rather than silently granting or refusing (RBAC-011 reports it).
A ``conditionVersion`` left out next to a condition means ``2.0``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from auditor.expr.condition import ConditionRequest

__all__ = ["Cond", "and3", "make_cond", "or3", "reads_phrase"]

_SUPPORTED_VERSION = "2.0"


class Cond:
    """One condition text (with its version), compiled on first use."""

    __slots__ = ("_fn", "_problem", "_reads", "_targets", "text", "version")

    def __init__(self, text: str, version: str | None) -> None:
        self.text = text
        self.version = version
        self._fn: Callable[[ConditionRequest], bool | None] | None = None
        self._problem: str | None = None
        self._targets: frozenset[str] | None = None
        self._reads: frozenset[str] | None = None

    def __repr__(self) -> str:
        return f"Cond({self.text!r})"

    def _compile(self) -> Callable[[ConditionRequest], bool | None]:
        if self._fn is not None:
            return self._fn
        from auditor.expr.condition import compile_condition, validate_condition

        problems = validate_condition(self.text, self.version)
        if problems:
            self._problem = problems[0]
            self._targets = frozenset()
            self._reads = _reads_of_unusable(self.text)
            self._fn = _undecidable
            return self._fn
        compiled = compile_condition(self.text)
        self._targets = compiled.targeted_actions
        self._reads = compiled.attributes_read
        self._fn = compiled
        return compiled

    @property
    def problem(self) -> str | None:
        """Why the condition cannot be used (None when it is valid)."""
        self._compile()
        return self._problem

    @property
    def targeted_actions(self) -> frozenset[str]:
        """The ``ActionMatches`` patterns of the condition (empty when it has none or is invalid)."""
        self._compile()
        assert self._targets is not None
        return self._targets

    @property
    def attributes_read(self) -> frozenset[str]:
        """The attribute references (``@Resource[...]`` and the like) the condition reads; for
        a condition that cannot be used, those of its text when it parses (else none)."""
        self._compile()
        assert self._reads is not None
        return self._reads

    def evaluate(self, request: ConditionRequest) -> bool | None:
        """True, False, or None when undecidable (unknown attributes, or an unusable condition)."""
        return self._compile()(request)


def _undecidable(_request: ConditionRequest) -> bool | None:
    return None


def _reads_of_unusable(text: str) -> frozenset[str]:
    """The attributes an unusable condition's text reads, when it parses at all (a condition of
    another version, or longer than 8 KB, still names what it would read)."""
    from auditor.expr.condition import attributes_read, parse_condition

    try:
        return attributes_read(parse_condition(text))
    except Exception:  # any text: one that does not parse is searched for references instead
        return frozenset(m.group(0) for m in _REFERENCE.finditer(text))


_REFERENCE = re.compile(r"@(?:Request|Resource|Principal|Environment)\[[^\]]*\]", re.IGNORECASE)


_SHOWN_KEYS = 6
"""Attribute keys a reason names, at most (then "and N more")."""


def reads_phrase(conds: Iterable[Cond | None], attributes: Mapping[str, Any] | None) -> str:
    """``"@A and @B (not supplied)"``: the attribute keys the conditions read, sorted, each
    marked "(not supplied)" when ``attributes`` are concrete and do not hold it; "" when they
    read none. For the reasons of answers a condition decided or left open."""
    keys: set[str] = set()
    for cond in conds:
        if cond is not None:
            keys |= cond.attributes_read
    if not keys:
        return ""
    from auditor.expr.condition import normalize_attribute_key

    given = (
        None
        if attributes is None
        else {normalize_attribute_key(str(k)) for k, v in attributes.items() if v is not None}
    )
    ordered = sorted(keys, key=str.lower)
    parts = []
    for key in ordered[:_SHOWN_KEYS]:
        missing = given is not None and normalize_attribute_key(key) not in given
        parts.append(f"{key} (not supplied)" if missing else key)
    more = len(ordered) - _SHOWN_KEYS
    if more > 0:
        parts.append(f"{more} more")
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


_CACHE: dict[tuple[str, str | None], Cond] = {}


def make_cond(text: str | None, version: str | None) -> Cond | None:
    """The shared :class:`Cond` of a condition text, or None when there is no condition (None or
    blank text). A version other than 2.0 without a condition text is not a condition."""
    if text is None or not text.strip():
        return None
    key = (text, version)
    hit = _CACHE.get(key)
    if hit is None:
        if len(_CACHE) > 65536:
            _CACHE.clear()
        hit = _CACHE[key] = Cond(text, version)
    return hit


def condition_request(
    action: str, sub_operation: str | None, attributes: Mapping[str, Any] | None
) -> ConditionRequest:
    """The condition module's request object (imported lazily)."""
    from auditor.expr.condition import ConditionRequest

    return ConditionRequest(action=action, sub_operation=sub_operation, attributes=attributes)


def and3(left: bool | None, right: bool | None) -> bool | None:
    """Kleene conjunction."""
    if left is False or right is False:
        return False
    if left is None or right is None:
        return None
    return True


def or3(left: bool | None, right: bool | None) -> bool | None:
    """Kleene disjunction."""
    if left is True or right is True:
        return True
    if left is None or right is None:
        return None
    return False
