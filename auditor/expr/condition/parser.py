"""Text to tree: the Lark grammar ``grammar/condition.lark`` (LALR, contextual lexer), then the
checks a grammar cannot state well, each reported as a :class:`ConditionSyntaxError` with a caret.

No other exception leaves :func:`parse_condition` for any string.
"""

from __future__ import annotations

import difflib
from functools import cache
from typing import NoReturn

from lark import Lark, Token, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from auditor._resources import data_dir
from auditor.expr.condition._literals import INT64_MAX, INT64_MIN, parse_guid, parse_instant
from auditor.expr.condition.ast import (
    SOURCES,
    ActionMatches,
    And,
    Attribute,
    BoolValue,
    Comparison,
    Condition,
    CrossProduct,
    Exists,
    Family,
    GuidValue,
    IntValue,
    ListValue,
    Not,
    Op,
    Operand,
    Or,
    Scalar,
    StrValue,
    SubOperationMatches,
)
from auditor.expr.errors import ConditionSyntaxError, accepted_terminals, locate

__all__ = ["MAX_BYTES", "MAX_DEPTH", "parse_condition", "utf8_size"]

#: A condition longer than this many bytes of UTF-8 is invalid (semantics §2: 8 KB).
MAX_BYTES = 8192
#: Deepest nesting of parentheses and NOTs accepted (real conditions use a handful).
MAX_DEPTH = 64

_OPERATORS: dict[str, Op] = {op.value.lower(): op for op in Op}
_PREFIXES: dict[str, CrossProduct] = {cp.value.lower(): cp for cp in CrossProduct}
_SOURCES: dict[str, str] = {source.lower(): source for source in SOURCES}

_FAMILY_WANTS: dict[Family, str] = {
    Family.STRING: "single-quoted strings",
    Family.NUMERIC: "integers",
    Family.DATETIME: "quoted ISO 8601 date-times such as '2023-04-01T13:00:00.000Z'",
    Family.GUID: "GUIDs such as 4633458b-17de-408a-b874-0445c86b69e6 (bare or quoted)",
    Family.BOOL: "true or false",
}

_WORDS: dict[str, str] = {
    "ATTRIBUTE": "an attribute such as @Resource[namespace/type:name]",
    "OPERATOR": "a comparison operator such as StringEquals",
    "STRING": "a quoted string",
    "INT": "an integer",
    "GUID": "a GUID",
    "TRUE": "true",
    "FALSE": "false",
    "LPAR": "'('",
    "RPAR": "')'",
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "COMMA": "','",
    "AND": "AND",
    "OR": "OR",
    "NOT": "NOT",
    "EXISTS": "Exists",
    "ACTION_MATCHES": "ActionMatches{'...'}",
    "SUB_OPERATION_MATCHES": "SubOperationMatches{'...'}",
    "$END": "the end of the condition",
}
_ORDER = list(_WORDS)
_EXPRESSION_START = frozenset(
    {"NOT", "LPAR", "EXISTS", "ACTION_MATCHES", "SUB_OPERATION_MATCHES", "ATTRIBUTE"}
    | {"STRING", "INT", "GUID", "TRUE", "FALSE", "LBRACE"}
)
_OPERAND_START = frozenset({"ATTRIBUTE", "STRING", "INT", "GUID", "TRUE", "FALSE", "LBRACE"})
_SCALAR_START = frozenset({"STRING", "INT", "GUID", "TRUE", "FALSE"})


@cache
def _parser() -> Lark:
    grammar = (data_dir("grammar") / "condition.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", lexer="contextual", maybe_placeholders=False)


def utf8_size(text: str) -> int:
    """Bytes of UTF-8 ``text`` takes (lone surrogates counted as three, never an error)."""
    return len(text.encode("utf-8", "surrogatepass"))


def parse_condition(text: str) -> Condition:
    """Parse a version-2.0 condition; raise :class:`ConditionSyntaxError` if it is not one."""
    if not isinstance(text, str):
        raise TypeError(f"a condition is a str, not {type(text).__name__}")
    _check_size(text)
    try:
        tree = _parser().parse(text)
        return _Builder(text).build(tree, 0)
    except ConditionSyntaxError:
        raise
    except UnexpectedInput as error:
        raise _from_lark(error, text) from None
    except (LarkError, RecursionError) as error:  # pragma: no cover - defensive
        raise _error(text, 0, f"cannot parse the condition ({type(error).__name__})") from None


# ------------------------------------------------------------------------------------- errors


def _error(
    text: str, pos: int, problem: str, expected: list[str] | None = None
) -> ConditionSyntaxError:
    line, column = locate(text, pos)
    return ConditionSyntaxError(problem, text=text, line=line, column=column, expected=expected)


def _check_size(text: str) -> None:
    size = utf8_size(text)
    if size <= MAX_BYTES:
        return
    used = 0
    pos = 0
    for pos, char in enumerate(text):  # noqa: B007 - pos is used after the loop
        used += utf8_size(char)
        if used > MAX_BYTES:
            break
    raise _error(
        text,
        pos,
        f"the condition is {size} bytes long, over the 8 KB limit ({MAX_BYTES} bytes of UTF-8)",
    )


def _expected_words(names: set[str] | frozenset[str]) -> list[str]:
    names = set(names)
    words: list[str] = []
    if {"NOT", "LPAR"} <= names:
        names -= _EXPRESSION_START
        words.append(
            "an expression (a comparison, ActionMatches{'...'}, SubOperationMatches{'...'}, "
            "Exists @..., NOT or a parenthesis)"
        )
    elif {"ATTRIBUTE", "LBRACE"} <= names:
        names -= _OPERAND_START
        words.append("an attribute or a value ('string', integer, GUID, true, false or {list})")
    elif names >= _SCALAR_START:
        names -= _SCALAR_START
        words.append("a value ('string', integer, GUID, true or false)")
    words.extend(_WORDS[name] for name in _ORDER if name in names)
    return words


def _describe(token: Token) -> str:
    if token.type == "$END":
        return "end of the condition"
    value = str(token)
    if len(value) > 40:
        value = value[:37] + "..."
    return f"'{value}'"


def _from_lark(error: UnexpectedInput, text: str) -> ConditionSyntaxError:
    if isinstance(error, UnexpectedCharacters):
        pos = error.pos_in_stream or 0
        char = text[pos] if 0 <= pos < len(text) else ""
        if char == "'":
            return _error(text, pos, "unterminated string: a closing ' is missing")
        if char == "@":
            return _attribute_error(text, pos)
        expected = accepted_terminals(error, set(error.allowed or ()))
        stop = pos + _operator_prefix(text[pos : pos + 64]) if "OPERATOR" in expected else pos
        if stop > pos:  # 'ForAnyOfAnyValues::StringEquals': the caret goes under the second ':'
            written = text[pos:stop]
            if not text[stop:].strip():
                return _error(
                    text, stop, f"unexpected end of the condition after '{written}'",
                    _expected_words({"OPERATOR"}),
                )  # fmt: skip
            return _error(
                text, stop, f"unexpected character {text[stop]!r} after '{written}'",
                _expected_words({"OPERATOR"}),
            )  # fmt: skip
        return _error(text, pos, f"unexpected character {char!r}", _expected_words(expected))
    if isinstance(error, UnexpectedToken):
        token = error.token
        if token.type == "$END":
            pos = len(text.rstrip())
        else:
            pos = token.start_pos if token.start_pos is not None else 0
        expected = accepted_terminals(error, set(error.expected))
        return _error(text, pos, f"unexpected {_describe(token)}", _expected_words(expected))
    return _error(text, len(text.rstrip()), "unexpected end of the condition")


_CROSS_WORDS = ("", *(f"{cp.value.lower()}:" for cp in CrossProduct))
_FAMILY_WORDS = tuple(family.value.lower() for family in Family)


def _common(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _operator_prefix(text: str) -> int:
    """How many characters of ``text`` could begin an operator (the lexer's OPERATOR matched none
    of it): the caret goes under the first one that cannot."""
    low, best = text.lower(), 0
    for prefix in _CROSS_WORDS:
        n = _common(low, prefix)
        if n < len(prefix):
            best = max(best, n)
            continue
        for family in _FAMILY_WORDS:
            k = _common(low[n:], family)
            if k == len(family):  # then any letters (the operator's name is checked later)
                while n + k < len(low) and "a" <= low[n + k] <= "z":
                    k += 1
            best = max(best, n + k)
    return best


def _attribute_error(text: str, pos: int) -> ConditionSyntaxError:
    """An '@' the lexer could not read as ``@Source[name]``, the caret under what cannot follow."""
    end = pos + 1
    while end < len(text) and text[end].isascii() and text[end].isalpha():
        end += 1
    if end == pos + 1:
        return _error(
            text, end, "malformed attribute: expected a source such as @Resource[...] after '@'"
        )
    if end < len(text) and text[end] == "[":
        line_end = len(text)
        for stop in ("\r", "\n"):
            found = text.find(stop, end)
            if found >= 0:
                line_end = min(line_end, found)
        return _error(
            text,
            line_end,
            "malformed attribute: the closing ']' is missing (write @Source[...] on one line)",
        )
    return _error(text, end, f"malformed attribute: expected '[' after '{text[pos:end]}'")


# ------------------------------------------------------------------------------------ builder


def _first_token(node: Tree[Token] | Token) -> Token:
    while isinstance(node, Tree):
        node = node.children[0]
    return node


def _pos(node: Tree[Token] | Token) -> int:
    token = _first_token(node)
    return token.start_pos if token.start_pos is not None else 0


class _Builder:
    """Turns the Lark tree into the typed tree, checking what the grammar leaves open."""

    def __init__(self, text: str) -> None:
        self.text = text

    def fail(
        self, node: Tree[Token] | Token, problem: str, expected: list[str] | None = None
    ) -> NoReturn:
        raise _error(self.text, _pos(node), problem, expected)

    def token(self, node: Tree[Token] | Token) -> Token:
        if not isinstance(node, Token):  # pragma: no cover - the grammar puts a token here
            self.fail(node, "unexpected expression")
        return node

    def tree(self, node: Tree[Token] | Token) -> Tree[Token]:
        if not isinstance(node, Tree):  # pragma: no cover - the grammar puts a tree here
            self.fail(node, f"unexpected {_describe(node)}")
        return node

    def build(self, node: Tree[Token] | Token, depth: int) -> Condition:
        if depth > MAX_DEPTH:
            self.fail(node, f"nested more than {MAX_DEPTH} levels deep")
        node = self.tree(node)
        kind = node.data
        if kind == "expr":
            return self._chain(node, depth)
        if kind == "not_":
            return Not(self.build(node.children[1], depth + 1))
        if kind == "comparison":
            return self._comparison(node)
        if kind == "exists":
            return Exists(self._attribute(self.token(node.children[1])))
        if kind == "action_matches":
            return ActionMatches(self._string(self.token(node.children[1])))
        if kind == "sub_operation_matches":
            return SubOperationMatches(self._string(self.token(node.children[1])))
        # an operand standing alone, e.g. "@Resource[x]" or "'a'" without an operator
        self.fail(
            node,
            "a value or attribute must be compared",
            ["a comparison operator such as StringEquals"],
        )

    def _chain(self, node: Tree[Token], depth: int) -> Condition:
        operands = node.children[0::2]
        joiners = [self.token(joiner) for joiner in node.children[1::2]]
        first = joiners[0]
        for joiner in joiners[1:]:
            if joiner.type != first.type:
                self.fail(
                    joiner,
                    "ambiguous: add parentheses where AND and OR are mixed at one level, "
                    "as in (a AND b) OR c",
                )
        built = tuple(self.build(child, depth + 1) for child in operands)
        return And(built) if first.type == "AND" else Or(built)

    # -- leaves

    def _string(self, token: Token) -> str:
        return str(token)[1:-1].replace("''", "'")

    def _attribute(self, token: Token) -> Attribute:
        raw = str(token)
        bracket = raw.index("[")
        source = _SOURCES.get(raw[1:bracket].lower(), "")
        if not source:
            self.fail(
                token,
                f"unknown attribute source '{raw[:bracket]}'",
                [f"@{name}[...]" for name in SOURCES],
            )
        name = raw[bracket + 1 : -1]
        if not name.strip():
            self.fail(token, "empty attribute name inside the brackets")
        return Attribute(source, name)

    def _scalar(self, node: Tree[Token]) -> Scalar:
        token = node.children[0]
        assert isinstance(token, Token)
        kind = node.data
        if kind == "string":
            return StrValue(self._string(token))
        if kind == "int":
            value = int(str(token)) if len(token) <= 25 else INT64_MAX + 1
            if not INT64_MIN <= value <= INT64_MAX:
                self.fail(token, "integer out of range (conditions use 64-bit integers)")
            return IntValue(value)
        if kind == "guid":
            return GuidValue(str(token))
        return BoolValue(kind == "true")

    def _operand(self, node: Tree[Token]) -> tuple[Operand, list[tuple[Scalar, Tree[Token]]]]:
        if node.data == "attribute":
            token = node.children[0]
            assert isinstance(token, Token)
            return self._attribute(token), []
        if node.data == "list":
            items: list[tuple[Scalar, Tree[Token]]] = []
            for child in node.children:
                assert isinstance(child, Tree)
                items.append((self._scalar(child), child))
            return ListValue(tuple(item for item, _ in items)), items
        scalar = self._scalar(node)
        return scalar, [(scalar, node)]

    # -- comparisons

    def _operator(self, token: Token) -> tuple[Op, CrossProduct | None]:
        raw = str(token)
        prefix, colon, base = raw.rpartition(":")
        cross = None
        if colon:
            cross = _PREFIXES.get(prefix.lower())
            if cross is None:  # pragma: no cover - the lexer only lets the four prefixes through
                self.fail(token, f"unknown cross-product prefix '{prefix}:'")
        op = _OPERATORS.get(base.lower())
        if op is None:
            names = [op.value for op in Op]
            close = difflib.get_close_matches(base, names, n=3, cutoff=0.6)
            if not close:
                close = difflib.get_close_matches(base.lower(), [n.lower() for n in names], n=3)
                close = [_OPERATORS[name].value for name in close]
            hint = f"; did you mean {' or '.join(close)}?" if close else ""
            self.fail(token, f"unknown operator '{base}'{hint}", [_WORDS["OPERATOR"]])
        assert op is not None
        if cross is not None and not op.accepts_cross_product:
            self.fail(
                token,
                f"{cross.value}: applies to the string, numeric and GUID operators, not {op.value}",
            )
        return op, cross

    def _comparison(self, node: Tree[Token]) -> Comparison:
        left_node, op_token, right_node = node.children
        assert isinstance(left_node, Tree) and isinstance(right_node, Tree)
        assert isinstance(op_token, Token)
        left, left_items = self._operand(left_node)
        op, cross = self._operator(op_token)
        right, right_items = self._operand(right_node)
        for operand, items, operand_node in (
            (left, left_items, left_node),
            (right, right_items, right_node),
        ):
            if isinstance(operand, ListValue) and len(operand.items) > 1 and cross is None:
                self.fail(
                    operand_node,
                    f"a list of several values needs a cross-product operator such as "
                    f"ForAnyOfAnyValues:{op.value}",
                )
            for scalar, scalar_node in items:
                problem = _type_problem(op, scalar)
                if problem:
                    self.fail(scalar_node, problem)
        return Comparison(left, op, right, cross)


_KIND: dict[type, str] = {
    StrValue: "a string",
    IntValue: "an integer",
    GuidValue: "a bare GUID",
    BoolValue: "a boolean",
}


def _type_problem(op: Op, scalar: Scalar) -> str | None:
    """Why ``scalar`` cannot be an operand of ``op`` (None when it can)."""
    family = op.family
    wants = f"{op.value} compares {_FAMILY_WANTS[family]}, not {_KIND[type(scalar)]}"
    if family is Family.STRING:
        return None if isinstance(scalar, StrValue) else wants
    if family is Family.NUMERIC:
        return None if isinstance(scalar, IntValue) else wants
    if family is Family.BOOL:
        return None if isinstance(scalar, BoolValue) else wants
    if family is Family.GUID:
        if isinstance(scalar, GuidValue):
            return None
        if isinstance(scalar, StrValue):
            return None if parse_guid(scalar.value) else f"'{scalar.value}' is not a GUID"
        return wants
    if isinstance(scalar, StrValue):
        if parse_instant(scalar.value) is not None:
            return None
        return f"'{scalar.value}' is not an ISO 8601 date-time such as '2023-04-01T13:00:00.000Z'"
    return wants
