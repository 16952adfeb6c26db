"""Text to tree: the Lark grammar ``grammar/arm.lark`` (LALR, contextual lexer, the AST built while
parsing), with errors that put a caret under the first character that cannot continue.

- :func:`is_expression` tells a template expression (``"[...]"``) from a literal string;
- :func:`literal_value` is the value of a string that is not an expression (``"[[x]"`` is ``"[x]"``);
- :func:`parse_template_string` parses ``"[...]"`` (columns count from the opening bracket, as the
  JSON string is written); :func:`parse_expression` parses the text inside the brackets.

Only :class:`ArmSyntaxError` leaves the parsers for any string. ``lark`` is imported when the first
expression is parsed. The input's length and nesting are limited so the printer and the evaluator
never recurse too deep.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from auditor.expr.arm.ast import Call, Expr, Index, IntLit, Property, StrLit
from auditor.expr.errors import ExpressionSyntaxError, accepted_terminals, caret_under, locate

if TYPE_CHECKING:
    from lark import Lark, Token
    from lark.exceptions import UnexpectedInput

__all__ = [
    "MAX_DEPTH",
    "MAX_LENGTH",
    "ArmSyntaxError",
    "is_expression",
    "literal_value",
    "parse_expression",
    "parse_template_string",
]

#: Longest expression accepted, in characters.
MAX_LENGTH = 131_072
#: Deepest nesting of parentheses and brackets accepted (real templates use a dozen at most).
MAX_DEPTH = 64

_WINDOW = 60  # characters of the expression shown on each side of the caret
_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1


class ArmSyntaxError(ExpressionSyntaxError):
    """A template expression that does not parse.

    Besides what every :class:`~auditor.expr.errors.ExpressionSyntaxError` has, it can name the JSON
    path of the string (``location``), and hide the text when the string sits at a secret path
    (``redacted``): then neither the expression nor any part of it appears in the message.
    """

    language = "template expression"

    def __init__(
        self,
        problem: str,
        *,
        text: str,
        line: int,
        column: int,
        expected: list[str] | None = None,
        source: str | None = None,
        location: str | None = None,
        redacted: bool = False,
        plain_problem: str | None = None,
    ) -> None:
        self.plain_problem = plain_problem or problem
        self.redacted = redacted  # both read by _render, which the base's __init__ calls
        super().__init__(
            problem,
            text=text,
            line=line,
            column=column,
            expected=expected,
            source=source,
            location=location,
        )

    @property
    def source_line(self) -> str:
        """The line of the error, cut to a window around the column (messages stay short)."""
        line = super().source_line
        start, end = self._window(line)
        return ("..." if start else "") + line[start:end] + ("..." if end < len(line) else "")

    @property
    def caret(self) -> str:
        line = super().source_line
        start, _ = self._window(line)
        return caret_under(("..." if start else "") + line[start : max(self.column - 1, 0)])

    def _window(self, line: str) -> tuple[int, int]:
        start = max(0, self.column - 1 - _WINDOW)
        return start, max(self.column - 1, 0) + _WINDOW

    def _render(self) -> str:
        if not self.redacted:
            return super()._render()
        problem, self.problem = self.problem, self.plain_problem
        try:
            head = super()._render().split("\n", 1)[0]
        finally:
            self.problem = problem
        return head + " (the text is not shown: the value sits at a secret path)"

    def at(
        self,
        *,
        source: str | None = None,
        location: str | None = None,
        redacted: bool | None = None,
    ) -> ArmSyntaxError:
        """The same error naming the file and the JSON path (and hiding the text if ``redacted``)."""
        return ArmSyntaxError(
            self.problem,
            text=self.text,
            line=self.line,
            column=self.column,
            expected=self.expected,
            source=source if source is not None else self.source,
            location=location if location is not None else self.location,
            redacted=self.redacted if redacted is None else redacted,
            plain_problem=self.plain_problem,
        )


# ------------------------------------------------------------------------------------ entry points


def is_expression(text: str) -> bool:
    """True when the JSON string ``text`` is a template expression: it starts with ``[`` and ends
    with ``]``, and does not start with ``[[`` (the escape for a literal ``[``)."""
    return len(text) >= 2 and text[0] == "[" and text[-1] == "]" and text[1] != "["


def literal_value(text: str) -> str:
    """The value of a string that is not an expression: ``[[x]`` stands for ``[x]``; any other string
    stands for itself (a string that starts with ``[`` but does not end with ``]`` is a literal)."""
    if len(text) >= 3 and text.startswith("[[") and text[-1] == "]":
        return text[1:]
    return text


@lru_cache(maxsize=8192)
def parse_template_string(text: str) -> Expr:
    """Parse a JSON string value ``[...]`` (see :func:`is_expression`); cached per text."""
    if not isinstance(text, str):
        raise TypeError(f"a template expression is a str, not {type(text).__name__}")
    if not is_expression(text):
        raise _error(
            text,
            0,
            "not a template expression: it must start with '[' and end with ']'",
        )
    return _parse(text, "template")


@lru_cache(maxsize=8192)
def parse_expression(text: str) -> Expr:
    """Parse the text of an expression without the surrounding brackets; cached per text."""
    if not isinstance(text, str):
        raise TypeError(f"a template expression is a str, not {type(text).__name__}")
    return _parse(text, "expression")


# -------------------------------------------------------------------------------------- parsing


@cache
def _parser() -> Lark:
    from lark import Lark

    from auditor._resources import data_dir, user_cache_dir

    grammar = (data_dir("grammar") / "arm.lark").read_text(encoding="utf-8")
    folder = user_cache_dir()  # (Lark keeps the tables there, checked against the grammar's hash)
    return Lark(
        grammar,
        parser="lalr",
        lexer="contextual",
        start=["template", "expression"],
        transformer=_Builder(),
        maybe_placeholders=False,
        cache=str(folder / "arm-lark-tables.bin") if folder is not None else False,
    )


def _parse(text: str, start: str) -> Expr:
    from lark.exceptions import LarkError, UnexpectedInput

    if len(text) > MAX_LENGTH:
        raise _error(
            text,
            MAX_LENGTH,
            f"the expression is {len(text)} characters long, over the limit of {MAX_LENGTH}",
        )
    if not text.strip() or (start == "template" and not text[1:-1].strip()):
        raise _error(
            text,
            len(text) - 1 if start == "template" else 0,
            "empty expression",
            [_WORDS["NAME"]],
        )
    _check_depth(text)
    try:
        result: Expr = _parser().parse(text, start=start)  # type: ignore[assignment]
    except ArmSyntaxError:
        raise
    except _TokenProblem as problem:
        raise _wrap_token_problem(text, problem) from None
    except UnexpectedInput as error:
        raise _from_lark(error, text) from None
    except (LarkError, RecursionError) as error:  # pragma: no cover - defensive
        raise _error(text, 0, f"cannot parse the expression ({type(error).__name__})") from None
    return result


def _check_depth(text: str) -> None:
    depth = 0
    quoted = False
    for pos, char in enumerate(text):
        if char == "'":
            quoted = not quoted
        elif quoted:
            continue
        elif char in "([":
            depth += 1
            if depth > MAX_DEPTH:
                raise _error(text, pos, f"nested more than {MAX_DEPTH} levels deep")
        elif char in ")]":
            depth -= 1


class _Builder:
    """Lark callbacks (one per rule alias) that build the AST during the LALR parse."""

    def template(self, children: list[Any]) -> Expr:
        return children[0]  # type: ignore[no-any-return]

    def expression(self, children: list[Any]) -> Expr:
        return children[0]  # type: ignore[no-any-return]

    def call(self, children: list[Any]) -> Call:
        name = "".join(str(children[0]).split())  # `ns . fn` is `ns.fn`
        args: tuple[Expr, ...] = tuple(children[1]) if len(children) > 1 else ()
        return Call(name, args)

    def arguments_start(self, children: list[Any]) -> list[Expr]:
        return [children[0]]

    def arguments_more(self, children: list[Any]) -> list[Expr]:
        items: list[Expr] = children[0]
        items.append(children[1])
        return items

    def property(self, children: list[Any]) -> Property:
        _check_chain(children[0], children[1])
        return Property(children[0], str(children[2]))

    def index(self, children: list[Any]) -> Index:
        _check_chain(children[0], children[1])
        return Index(children[0], children[2])

    def string(self, children: list[Any]) -> StrLit:
        return StrLit(str(children[0])[1:-1].replace("''", "'"))

    def int(self, children: list[Any]) -> IntLit:
        token: Token = children[0]
        raw = str(token)
        value = int(raw) if len(raw) <= 21 else _INT64_MAX + 1
        if not _INT64_MIN <= value <= _INT64_MAX:
            raise _TokenProblem(token, "integer out of range (template integers are 64-bit)")
        return IntLit(value)

    def word(self, children: list[Any]) -> Call:
        return Call(str(children[0]), ())


def _check_chain(target: Expr, token: Token) -> None:
    """At most MAX_DEPTH accessors in a row (``a().b[0].c...``): trees stay shallow."""
    length = 0
    while isinstance(target, Property | Index):
        length += 1
        if length >= MAX_DEPTH:
            raise _TokenProblem(
                token, f"more than {MAX_DEPTH} property accesses and indexes in a row"
            )
        target = target.target


class _TokenProblem(Exception):
    """Raised from a callback; turned into an ArmSyntaxError with the token's position."""

    def __init__(self, token: Token, problem: str) -> None:
        super().__init__(problem)
        self.token = token
        self.problem = problem


# ------------------------------------------------------------------------------------- errors

_WORDS: dict[str, str] = {
    "NAME": "a function call such as parameters('name')",
    "STRING": "a quoted string",
    "INT": "an integer",
    "WORD": "true, false or null",
    "PROPERTY": "a property name",
    "LPAR": "'('",
    "RPAR": "')'",
    "LSQB": "'['",
    "RSQB": "']'",
    "COMMA": "','",
    "DOT": "'.'",
    "$END": "the end of the expression",
}
_ORDER = list(_WORDS)
_ARGUMENT = frozenset({"NAME", "STRING", "INT", "WORD"})


def _error(
    text: str,
    pos: int,
    problem: str,
    expected: list[str] | None = None,
    plain_problem: str | None = None,
) -> ArmSyntaxError:
    line, column = locate(text, pos)
    return ArmSyntaxError(
        problem,
        text=text,
        line=line,
        column=column,
        expected=expected,
        plain_problem=plain_problem,
    )


def _expected_words(names: set[str]) -> list[str]:
    words: list[str] = []
    if names >= _ARGUMENT:
        names = names - _ARGUMENT
        words.append("an argument (a function call, a 'string', an integer, true, false or null)")
    words.extend(_WORDS[name] for name in _ORDER if name in names)
    return words


def _describe(token: Token) -> tuple[str, str]:
    """The unexpected token in words, as shown and as shown when the text must stay hidden."""
    kind = token.type
    if kind == "$END":
        return "end of the expression", "end of the expression"
    if kind == "STRING":
        return "string literal", "string literal"
    value = str(token)
    if len(value) > 40:
        value = value[:37] + "..."
    plain = {
        "NAME": "name",
        "PROPERTY": "name",
        "INT": "integer",
        "WORD": "word",
    }.get(kind, "character")
    return f"'{value}'", plain


def _from_lark(error: UnexpectedInput, text: str) -> ArmSyntaxError:
    from lark.exceptions import UnexpectedCharacters, UnexpectedToken

    if isinstance(error, UnexpectedCharacters):
        pos = error.pos_in_stream or 0
        char = text[pos] if 0 <= pos < len(text) else ""
        if char == "'":
            return _error(text, pos, "unterminated string: a closing ' is missing")
        expected = accepted_terminals(error, set(error.allowed or ()) & set(_WORDS), _WORDS)
        return _error(
            text,
            pos,
            f"unexpected character {char!r}",
            _expected_words(expected),
            plain_problem="unexpected character",
        )
    if isinstance(error, UnexpectedToken):
        token = error.token
        if token.type == "$END":
            pos = len(text.rstrip())
        else:
            pos = token.start_pos if token.start_pos is not None else 0
        expected = accepted_terminals(error, set(error.expected) & set(_WORDS), _WORDS)
        shown, plain = _describe(token)
        return _error(
            text,
            pos,
            f"unexpected {shown}",
            _expected_words(expected),
            plain_problem=f"unexpected {plain}",
        )
    return _error(text, len(text.rstrip()), "unexpected end of the expression")


def _wrap_token_problem(text: str, problem: _TokenProblem) -> ArmSyntaxError:
    pos = problem.token.start_pos if problem.token.start_pos is not None else 0
    return _error(text, pos, problem.problem)
