"""Parse ``$filter`` text into the typed AST, with errors that point at the offending token.

The grammar is ``grammar/filter.lark`` (found through :func:`auditor._resources.data_dir`). It is
built once per process into a LALR parser with the contextual lexer and the :class:`_Builder`
transformer, which makes the AST nodes during the parse (no parse tree is built). ``lark`` is
imported only when the first filter is parsed.

Only :class:`~auditor.expr.errors.FilterSyntaxError` leaves :func:`parse` for any input string:
lark's errors are translated into words, and the input's length and nesting depth are limited so the
printer and the compiler never recurse too deep.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast

from auditor._resources import data_dir
from auditor.expr.errors import FilterSyntaxError
from auditor.expr.filter.ast import (
    ARITY,
    FUNCTIONS,
    And,
    BoolLit,
    Call,
    Compare,
    CompareOp,
    DateTimeLit,
    DecimalLit,
    Expr,
    GuidLit,
    In,
    InParam,
    IntLit,
    Lambda,
    LambdaOp,
    LiteralNode,
    Member,
    Not,
    NullLit,
    Or,
    Param,
    StringLit,
    depth_exceeds,
    is_condition,
)

if TYPE_CHECKING:
    from lark import Lark

MAX_LENGTH = 16_384
"""Longest filter text accepted, in characters."""
MAX_DEPTH = 64
MAX_PATH_SEGMENTS = 32
"""Segments of a member path (``properties/a/b``): the deepest real record is a few levels deep;
a path of hundreds would make the compiled predicate's code (and Python's compiler) grow without
bound."""
"""Deepest nesting of the AST accepted (a plain ``a eq 1 and b eq 2`` is 3 levels deep)."""
MAX_NUMBER_LENGTH = 64
"""Longest number literal accepted, in characters."""

GRAMMAR_FILE = "filter.lark"

# ------------------------------------------------------------------------------------------------
# public entry points


def parse(text: str) -> Expr:
    """Parse ``text`` into an AST (no caching); raise :class:`FilterSyntaxError` on any problem."""
    return parse_with(_parser(), text)


def parse_with(built: tuple[Lark, tuple[type[BaseException], ...]], text: str) -> Expr:
    """:func:`parse` with a parser from :func:`build_parser` (the tests compare lexers with it)."""
    if not isinstance(text, str):
        raise TypeError(f"a filter is a str, not {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise _too_long(text)
    if not text.strip():
        raise FilterSyntaxError(
            "the filter is empty",
            text=text,
            line=1,
            column=1,
            expected=["a condition such as properties/status eq 'Active'"],
        )
    parser, errors = built
    try:
        node = cast(Expr, parser.parse(text))
    except _Semantic as exc:
        raise _error_at(text, exc.pos, exc.problem, exc.expected) from None
    except errors as exc:
        raise _translate(text, exc) from None
    except RecursionError:  # pragma: no cover - the parser and the builder do not recurse
        raise _error_at(text, 0, "the filter is nested too deeply", []) from None
    if not is_condition(node):
        raise _error_at(
            text, node.pos, f"{_describe(node)} is not a condition", [_CONDITION_EXAMPLE]
        )
    # Nesting comes from parentheses and `not` only; each parenthesis adds at most 6 levels.
    if 6 * (text.count("(") + 1) + text.lower().count("not") > MAX_DEPTH:
        deep = depth_exceeds(node, MAX_DEPTH)
        if deep is not None:
            raise _error_at(
                text,
                max(deep.pos, 0),
                f"the filter is nested too deeply (more than {MAX_DEPTH} levels)",
                [],
            )
    return node


@lru_cache(maxsize=2048)
def parse_cached(text: str) -> Expr:
    """:func:`parse` with a per-process cache of the last 2048 texts (ASTs are immutable)."""
    return parse(text)


def line_column(text: str, pos: int) -> tuple[int, int]:
    """1-based line and column of offset ``pos``, counting lines as :meth:`str.splitlines` does
    (which is what :class:`FilterSyntaxError` shows)."""
    start = 0
    lines = text.splitlines(keepends=True) or [""]
    for number, raw in enumerate(lines, 1):
        content = raw.splitlines()[0] if raw else ""
        if pos <= start + len(content):
            return number, max(pos - start, 0) + 1
        if pos < start + len(raw):
            return number, len(content) + 1
        start += len(raw)
    last = lines[-1].splitlines()[0] if lines[-1] else ""
    return len(lines), len(last) + 1


# ------------------------------------------------------------------------------------------------
# the parser, built once per process

_BUILD_LOCK = threading.Lock()
_BUILT: tuple[Lark, tuple[type[BaseException], ...]] | None = None


def _parser() -> tuple[Lark, tuple[type[BaseException], ...]]:
    global _BUILT
    built = _BUILT
    if built is None:
        with _BUILD_LOCK:
            built = _BUILT
            if built is None:
                built = _BUILT = build_parser()
    return built


def build_parser(
    *, fast_lexer: bool = True, cache: bool = True
) -> tuple[Lark, tuple[type[BaseException], ...]]:
    """A new LALR parser of ``grammar/filter.lark`` and the lark errors it may raise.

    ``fast_lexer`` swaps in :class:`_FastContextualLexer` (same terminals per parser state, leaner
    token loop); the tests compare it with lark's own contextual lexer.  ``cache`` lets lark keep the
    built tables in :func:`cache_path` (a few milliseconds to load instead of tens to build); lark
    checks the file against a hash of the grammar, its version and Python's, and rebuilds silently
    when the file is stale, unreadable or absent.
    """
    from lark import Lark
    from lark.exceptions import LarkError

    grammar = (data_dir("grammar") / GRAMMAR_FILE).read_text(encoding="utf-8")
    cache_file = cache_path() if cache else None
    parser = Lark(
        grammar,
        parser="lalr",
        lexer="contextual",
        transformer=_builder(),
        maybe_placeholders=False,
        propagate_positions=False,
        cache=cache_file or False,
    )
    if fast_lexer:
        _install_fast_lexer(parser)
    return parser, (LarkError,)


def cache_path() -> str | None:
    """Where the built parser is cached: the user's own cache folder
    (:func:`auditor._resources.user_cache_dir`; ``AUDITOR_CACHE_DIR`` set but empty: no cache).
    Lark's cache is a pickle, which must never come from a shared place such as the system's
    temporary folder."""
    from auditor._resources import user_cache_dir

    folder = user_cache_dir()
    return str(folder / "filter-grammar.lark-cache") if folder is not None else None


# ------------------------------------------------------------------------------------------------
# the transformer that builds AST nodes during the parse


class _Semantic(Exception):
    """A problem found by the builder (unknown function, chained comparison...), at ``pos``."""

    def __init__(self, problem: str, pos: int, expected: Sequence[str] = ()) -> None:
        super().__init__(problem)
        self.problem = problem
        self.pos = pos
        self.expected = list(expected)


_CONDITION_EXAMPLE = "a condition such as name eq 'value'"
_LAMBDA_OPS = ("any", "all")
_FUNCTION_LIST = ", ".join(f"{name}()" for name in FUNCTIONS.values())


def _keyword_pos(token: Any) -> int:
    """Offset of the keyword of an operator token, which carries the whitespace around it."""
    value = str(token)
    return int(token.start_pos) + len(value) - len(value.lstrip())


def _need_condition(node: Expr, where: str) -> None:
    if not is_condition(node):
        raise _Semantic(
            f"{_describe(node)} is not a condition ({where})", node.pos, [_CONDITION_EXAMPLE]
        )


def _describe(node: Expr) -> str:
    if isinstance(node, StringLit):
        return "a string"
    if isinstance(node, IntLit | DecimalLit):
        return "a number"
    if isinstance(node, NullLit):
        return "null"
    if isinstance(node, GuidLit):
        return "a GUID"
    if isinstance(node, DateTimeLit):
        return "a date-time"
    if isinstance(node, Call):
        return f"{node.name}()"
    return "this expression"


def _string(token: Any) -> StringLit:
    return StringLit(token[1:-1].replace("''", "'"), pos=token.start_pos)


def _number(token: Any) -> IntLit | DecimalLit:
    text = str(token)
    if len(text) > MAX_NUMBER_LENGTH:
        raise _Semantic(
            f"the number is too long (at most {MAX_NUMBER_LENGTH} characters)", token.start_pos
        )
    if "." in text or "e" in text or "E" in text:
        try:
            value = Decimal(text)
        except (InvalidOperation, ValueError):  # pragma: no cover - the terminal is a valid number
            raise _Semantic("this is not a valid number", token.start_pos) from None
        if not value.is_finite():  # pragma: no cover - Decimal of a literal is finite
            raise _Semantic("this is not a valid number", token.start_pos)
        return DecimalLit(value, pos=token.start_pos)
    return IntLit(int(text), pos=token.start_pos)


def _guid(token: Any) -> GuidLit:
    return GuidLit(str(token).lower(), pos=token.start_pos)


def _datetime(token: Any) -> DateTimeLit:
    try:
        value = datetime.fromisoformat(str(token).upper())
    except ValueError:
        raise _Semantic(f"{str(token)!r} is not a valid date-time", token.start_pos) from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return DateTimeLit(value, pos=token.start_pos)


def _true(token: Any) -> BoolLit:
    return BoolLit(True, pos=token.start_pos)


def _false(token: Any) -> BoolLit:
    return BoolLit(False, pos=token.start_pos)


def _null(token: Any) -> NullLit:
    return NullLit(pos=token.start_pos)


_LITERAL_TOKENS: dict[str, Any] = {
    "STRING": _string,
    "NUMBER": _number,
    "GUID": _guid,
    "DATETIME": _datetime,
    "TRUE": _true,
    "FALSE": _false,
    "NULL": _null,
}


def _join_and(items: list[Expr], pos: int) -> Expr:
    if len(items) == 1:
        return items[0]
    for item in items:
        _need_condition(item, "an operand of 'and'")
    return And(tuple(items), pos=pos)


def _builder() -> Any:
    """The transformer instance (its class is made here so lark is imported lazily)."""
    from lark import Transformer

    class _Builder(Transformer[Any, Any]):
        """One callback per grammar alternative; each gets the list of its children."""

        def chain_start(self, c: list[Any]) -> list[Any]:
            return c

        def chain_more(self, c: list[Any]) -> list[Any]:
            chain: list[Any] = c[0]
            chain.append(c[1])
            chain.append(c[2])
            return chain

        def values_start(self, c: list[Any]) -> list[LiteralNode]:
            return [_LITERAL_TOKENS[c[0].type](c[0])]

        def values_more(self, c: list[Any]) -> list[LiteralNode]:
            values: list[LiteralNode] = c[0]
            values.append(_LITERAL_TOKENS[c[1].type](c[1]))
            return values

        def arguments_start(self, c: list[Any]) -> list[Any]:
            return c

        def arguments_more(self, c: list[Any]) -> list[Any]:
            arguments: list[Any] = c[0]
            arguments.append(c[1])
            return arguments

        def expr(self, children: list[Any]) -> Expr:
            # the chain [operand, OP, operand, OP, operand, ...], grouped by precedence: comparisons
            # (not chainable) bind tighter than `and`, which binds tighter than `or`.
            c: list[Any] = children[0]
            ors: list[Expr] = []
            ands: list[Expr] = []
            or_pos = and_pos = -1
            current: Expr = c[0]
            compared = False
            for i in range(1, len(c), 2):
                op = c[i]
                kind = op.type
                if kind == "CMP":
                    if compared:
                        raise _Semantic(
                            "comparisons cannot be chained; add parentheses",
                            _keyword_pos(op),
                            ["'and'", "'or'"],
                        )
                    keyword: CompareOp = op.strip().lower()
                    current = Compare(keyword, current, c[i + 1], pos=_keyword_pos(op))
                    compared = True
                    continue
                ands.append(current)
                if kind == "AND":
                    if and_pos < 0:
                        and_pos = _keyword_pos(op)
                else:
                    ors.append(_join_and(ands, and_pos))
                    ands = []
                    and_pos = -1
                    if or_pos < 0:
                        or_pos = _keyword_pos(op)
                current = c[i + 1]
                compared = False
            ands.append(current)
            if not ors:
                return _join_and(ands, and_pos)
            ors.append(_join_and(ands, and_pos))
            for item in ors:
                _need_condition(item, "an operand of 'or'")
            return Or(tuple(ors), pos=or_pos)

        def not_(self, c: list[Any]) -> Not:
            _need_condition(c[1], "after 'not'")
            return Not(c[1], pos=c[0].start_pos)

        def in_(self, c: list[Any]) -> In:
            return In(c[0], tuple(c[2]), pos=_keyword_pos(c[1]))

        def in_param(self, c: list[Any]) -> InParam:
            return InParam(c[0], _param(c[2]), pos=_keyword_pos(c[1]))

        def param(self, c: list[Any]) -> Param:
            return _param(c[0])

        def string(self, c: list[Any]) -> StringLit:
            return _string(c[0])

        def number(self, c: list[Any]) -> IntLit | DecimalLit:
            return _number(c[0])

        def guid(self, c: list[Any]) -> GuidLit:
            return _guid(c[0])

        def datetime(self, c: list[Any]) -> DateTimeLit:
            return _datetime(c[0])

        def true(self, c: list[Any]) -> BoolLit:
            return _true(c[0])

        def false(self, c: list[Any]) -> BoolLit:
            return _false(c[0])

        def null(self, c: list[Any]) -> NullLit:
            return _null(c[0])

        def member(self, c: list[Any]) -> Member:
            token = c[0]
            segments = token.split("/")
            if len(segments) > MAX_PATH_SEGMENTS:
                raise _Semantic(
                    f"a member path of {len(segments)} segments (at most {MAX_PATH_SEGMENTS})",
                    token.start_pos,
                    ["a shorter path such as properties/name"],
                )
            return Member(tuple(segments), pos=token.start_pos)

        def call(self, c: list[Any]) -> Call | Lambda:
            token = c[0]
            args: tuple[Expr, ...] = tuple(c[1]) if len(c) > 1 else ()
            segments = token.split("/")
            last = segments[-1].lower()
            if last in _LAMBDA_OPS:
                if args or last == "all":
                    raise _Semantic(
                        f"{last}() takes a lambda: {last}(x: condition on x)",
                        token.start_pos + len(token) - len(last),
                        ["a lambda variable followed by ':'"],
                    )
                return Lambda(_collection(token, segments), "any", pos=token.start_pos)
            return _function(token, segments, args)

        def lambda_(self, c: list[Any]) -> Lambda:
            token, variable, predicate = c
            segments = token.split("/")
            last = segments[-1].lower()
            if last not in _LAMBDA_OPS:
                raise _Semantic(
                    f"only any() and all() take a lambda variable, not {token!s}()",
                    variable.start_pos,
                    ["a value"],
                )
            if "/" in variable:
                raise _Semantic(
                    "a lambda variable is a single name", variable.start_pos, ["a name such as x"]
                )
            _need_condition(predicate, f"the body of {last}()")
            op: LambdaOp = "any" if last == "any" else "all"
            return Lambda(
                _collection(token, segments), op, str(variable), predicate, pos=token.start_pos
            )

    return _Builder()


def _param(token: Any) -> Param:
    """``@asOf`` or ``@settings/NAME`` (rule packs' values, ast.PARAMETERS)."""
    name = str(token)[1:]
    head, _, rest = name.partition("/")
    if (head == "asOf" and not rest) or (head == "settings" and rest and "/" not in rest):
        return Param(name, pos=token.start_pos)
    raise _Semantic(
        f"unknown parameter @{name}", token.start_pos, ["@asOf", "@settings/NAME (rule packs only)"]
    )


def _collection(token: Any, segments: list[str]) -> Member:
    if len(segments) < 2:
        raise _Semantic(
            f"{segments[-1]}() needs a collection: name/{segments[-1]}(x: condition on x)",
            token.start_pos,
            ["a member path before it"],
        )
    if len(segments) - 1 > MAX_PATH_SEGMENTS:
        raise _Semantic(
            f"a member path of {len(segments) - 1} segments (at most {MAX_PATH_SEGMENTS})",
            token.start_pos,
            ["a shorter path such as properties/name"],
        )
    return Member(tuple(segments[:-1]), pos=token.start_pos)


def _function(token: Any, segments: list[str], args: tuple[Expr, ...]) -> Call:
    name = FUNCTIONS.get(segments[-1].lower()) if len(segments) == 1 else None
    if name is None:
        raise _Semantic(f"unknown function {token!s}()", token.start_pos, [_FUNCTION_LIST])
    arity = ARITY[name]
    if len(args) != arity:
        count = {0: "no arguments", 1: "one argument", 2: "two arguments"}[arity]
        raise _Semantic(f"{name}() takes {count}, not {len(args)}", token.start_pos)
    if name == "assignedTo" and not isinstance(args[0], StringLit | GuidLit):
        raise _Semantic(
            "assignedTo() takes a principal id in quotes",
            max(args[0].pos, token.start_pos),
            ["a string such as '00000000-0000-0000-0000-000000000000'"],
        )
    return Call(name, args, pos=token.start_pos)


# ------------------------------------------------------------------------------------------------
# errors in words

_OPERAND_TERMINALS = frozenset({"PATH", "STRING"})
_LITERAL_TERMINALS = frozenset({"STRING", "NUMBER", "GUID", "DATETIME", "TRUE", "FALSE", "NULL"})
_KEYWORDS = ("eq", "ne", "gt", "ge", "lt", "le", "and", "or", "in", "not")
_GLUED_KEYWORD = re.compile(r"(eq|ne|gt|ge|lt|le|and|or|in)(?![a-z_])", re.IGNORECASE)


def expected_words(names: set[str] | frozenset[str]) -> list[str]:
    """What lark's terminal names mean, in words, in a stable order; never a raw terminal name."""
    words: list[str] = []
    operand = names >= _OPERAND_TERMINALS
    if operand:
        words.append("a value")
    elif names & _LITERAL_TERMINALS:
        words.append("a literal value")
    elif "PATH" in names:
        words.append("a name")
    if "CMP" in names:
        words.append("a comparison operator such as eq")
    for terminal, word in (("AND", "'and'"), ("OR", "'or'"), ("IN", "'in'")):
        if terminal in names:
            words.append(word)
    if "_LPAR" in names and not operand and "CMP" not in names:
        words.append("an opening parenthesis")
    if "_COLON" in names and "CMP" not in names:
        words.append("a colon")
    if "_COMMA" in names:
        words.append("a comma")
    if "_RPAR" in names:
        words.append("a closing parenthesis")
    if "$END" in names:
        words.append("end of input")
    return words


def _show(value: str) -> str:
    value = value.strip()
    if len(value) > 40:
        value = value[:37] + "..."
    return repr(value)


def _translate(text: str, exc: BaseException) -> FilterSyntaxError:
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

    if isinstance(exc, UnexpectedToken):
        token = exc.token
        expected = expected_words(_accepted(exc, exc.expected))
        if token.type == "$END":
            return _error_at(text, len(text.rstrip()), "unexpected end of input", expected)
        stopped = _unfinished_token(text, token.start_pos or 0)  # '1e': the 'e' is glued on
        if stopped is not None:
            return stopped
        pos = _keyword_pos(token) if token.type in ("CMP", "AND", "OR", "IN") else token.start_pos
        problem = f"unexpected {_show(str(token))}"
        if token.type == "PATH" and ("CMP" in exc.expected or "AND" in exc.expected):
            glued = _GLUED_KEYWORD.match(str(token))
            if glued:
                problem += f" (whitespace is required around '{glued.group(1).lower()}')"
        return _error_at(text, pos, problem, expected)
    if isinstance(exc, UnexpectedCharacters):
        pos = exc.pos_in_stream or 0
        stopped = _unfinished_token(text, pos)
        if stopped is not None:
            return stopped
        char = text[pos] if 0 <= pos < len(text) else ""
        expected = expected_words(_accepted(exc, exc.allowed or ()))
        if char == "'":
            problem = "unterminated string (a quote inside a string is written '')"
        elif char == '"':
            problem = "strings are written in single quotes: 'text'"
        elif char and char in "=!<>&|":
            problem = (
                f"unexpected {_show(char)}: operators are words (eq ne gt ge lt le and or not)"
            )
        else:
            problem = f"unexpected character {_show(char)}"
        return _error_at(text, pos, problem, expected)
    if isinstance(exc, UnexpectedEOF):  # pragma: no cover - LALR reports the end as a $END token
        return _error_at(text, len(text.rstrip()), "unexpected end of input", [])
    return _error_at(text, 0, "this filter cannot be parsed", [])  # pragma: no cover


# What a member path or a number may be while it is being written: a path may end in the '/' that
# asks for the next member, a number in its '.', 'e' or exponent sign. The lexer's token stops
# before those characters, so its error would point at them rather than at what cannot follow.
_UNFINISHED = (
    (re.compile(r"(?!\d)\w+(?:/(?!\d)\w+)*/"), "a member name"),
    (re.compile(r"[+-]?\d+(?:\.(?:\d+(?:e[+-]?\d*)?)?|e[+-]?\d*)", re.IGNORECASE), "a digit"),
)
_TOKEN_CHARS = re.compile(r"[\w/.+-]*\Z")


def _unfinished_token(text: str, pos: int) -> FilterSyntaxError | None:
    """The error at the character that cannot continue a path or number the lexer stopped short
    of (``a//b``: the second '/'; ``1.x``: the 'x'), or None when the lexer's position is it."""
    run = _TOKEN_CHARS.search(text, max(0, pos - 200), pos)
    start = run.start() if run is not None else pos
    for pattern, wanted in _UNFINISHED:
        match = pattern.match(text, start)
        if match is None or match.end() <= pos:
            continue
        stop = match.end()
        written = _show(text[start:stop])
        if stop >= len(text.rstrip()) and not text[stop:].strip():
            return _error_at(text, stop, f"unexpected end of input after {written}", [wanted])
        char = text[stop]
        problem = f"unexpected {'whitespace' if char.isspace() else _show(char)} after {written}"
        if wanted == "a member name" and char == "/":
            problem += " (a path has no empty member)"
        elif wanted == "a member name" and char.isdigit():
            problem += " (a member name does not start with a digit)"
        return _error_at(text, stop, problem, [wanted])
    return None


def _accepted(exc: Any, fallback: Any) -> set[str]:
    """The terminals really acceptable where the parse stopped.

    LALR merges states that share their items, so the parser's own lookahead set can name tokens
    that are only valid elsewhere (a comma outside any function call); lark's interactive parser
    tries each candidate on a copy of the stack, without running the builder.
    """
    interactive = getattr(exc, "interactive_parser", None)
    if interactive is not None:
        try:
            return set(interactive.accepts())
        except Exception:  # pragma: no cover - fall back to the lookahead set
            pass
    return set(fallback)


def _error_at(text: str, pos: int, problem: str, expected: Sequence[str]) -> FilterSyntaxError:
    line, column = line_column(text, pos)
    return FilterSyntaxError(problem, text=text, line=line, column=column, expected=list(expected))


def _too_long(text: str) -> FilterSyntaxError:
    head = text[:40].replace("\n", " ").replace("\r", " ")
    return FilterSyntaxError(
        f"the filter is too long ({len(text)} characters; at most {MAX_LENGTH})",
        text=head + "...",
        line=1,
        column=len(head) + 1,
    )


# ------------------------------------------------------------------------------------------------
# a leaner token loop for lark's contextual lexer


def _install_fast_lexer(parser: Lark) -> bool:
    """Swap the contextual lexer's token loop for :class:`_FastContextualLexer`'s.

    It uses the very scanners lark built for each parser state (so the same terminals are accepted in
    the same places), but skips what this grammar does not need: line counting (errors compute line
    and column from the offset) and lexer callbacks (the grammar has none). Lark's own loop takes over
    at the first character no terminal matches, to raise its usual error. Returns whether the swap
    was made; on an unexpected lark the parser keeps its own lexer.
    """
    from lark.lexer import ContextualLexer, Token

    try:
        from lark.parsers.lalr_parser_state import ParserState
    except ImportError:  # pragma: no cover - depends on lark's internals
        return False
    frontend = getattr(parser, "parser", None)
    lexer = getattr(frontend, "lexer", None)
    if type(lexer) is not ContextualLexer or "state_stack" not in getattr(
        ParserState, "__slots__", ()
    ):  # pragma: no cover - depends on lark's internals
        return False
    try:
        states: dict[Any, tuple[Any, frozenset[str]]] = {}
        basic: Any
        for state, basic in lexer.lexers.items():
            scanner = basic.scanner
            if basic.callback or basic.user_callbacks:  # pragma: no cover
                return False
            states[state] = (tuple(scanner._mres), frozenset(basic.ignore_types))
    except AttributeError:  # pragma: no cover - depends on lark's internals
        return False
    make = getattr(Token, "_future_new", None) or Token

    class _FastContextualLexer(ContextualLexer):
        def lex(self, lexer_state: Any, parser_state: Any) -> Iterator[Any]:
            source = lexer_state.text
            if isinstance(source, str):
                text, end = source, len(source)
            else:
                text, end = source.text, source.end
            pos = lexer_state.line_ctr.char_pos
            stack = parser_state.state_stack  # changed in place by the parser
            while pos < end:
                scanners, ignore = states[stack[-1]]
                for scanner in scanners:
                    match = scanner.match(text, pos, end)
                    if match:
                        break
                else:
                    lexer_state.line_ctr.char_pos = pos
                    yield from ContextualLexer.lex(self, lexer_state, parser_state)
                    return
                kind = match.lastgroup
                stop = match.end()
                if kind not in ignore:
                    yield make(kind, match.group(0), pos, None, None, None, None, stop)
                pos = stop

    lexer.__class__ = _FastContextualLexer
    return True
