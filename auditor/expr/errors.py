"""Syntax errors of the two expression languages, with a caret under the offending token."""

from __future__ import annotations

from collections.abc import Container

from auditor.errors import InputError


class ExpressionSyntaxError(InputError):
    """An expression that does not parse.

    ``line`` and ``column`` are 1-based; ``expected`` lists what would have been accepted, in words
    (``"a comparison operator such as eq"``), never raw grammar token names.
    """

    language = "expression"

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
    ) -> None:
        self.problem = problem
        self.text = text
        self.line = line
        self.column = column
        self.expected = list(expected or [])
        super().__init__(self._render(), source=source, location=location)

    @property
    def source_line(self) -> str:
        lines = self.text.splitlines() or [""]
        return lines[self.line - 1] if 0 < self.line <= len(lines) else ""

    @property
    def caret(self) -> str:
        return caret_under(self.source_line[: max(self.column - 1, 0)])

    def _render(self) -> str:
        head = f"{self.language} syntax error at line {self.line}, column {self.column}: {self.problem}"
        if self.expected:
            head += "; expected " + _words(self.expected)
        return f"{head}\n  {self.source_line}\n  {self.caret}"


class FilterSyntaxError(ExpressionSyntaxError):
    language = "filter"


class ConditionSyntaxError(ExpressionSyntaxError):
    language = "condition"


def _words(items: list[str]) -> str:
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " or " + items[-1]


def caret_under(shown: str) -> str:
    """The caret line under the character that follows ``shown`` (the text before it as printed on
    the line above); tabs are kept so the caret lines up under the same visual column."""
    return "".join("\t" if ch == "\t" else " " for ch in shown) + "^"


def locate(text: str, pos: int) -> tuple[int, int]:
    """1-based line and column of offset ``pos``, counting lines as ``str.splitlines`` does."""
    lines = text.splitlines(keepends=True)
    offset = 0
    for number, line in enumerate(lines, start=1):
        content = len(line.rstrip("\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"))
        if pos < offset + len(line) or number == len(lines):
            return number, min(max(pos - offset, 0), content) + 1
        offset += len(line)
    return 1, 1


def accepted_terminals(
    error: object, fallback: set[str], among: Container[str] | None = None
) -> set[str]:
    """The terminals a Lark LALR parser would really accept where ``error`` (its
    ``UnexpectedInput``) stopped it, only those ``among`` the given names if any; ``fallback``
    when it cannot say. LALR merges states, so the error's own ``expected`` set can list tokens
    that are wrong at this point, like ')' outside parentheses."""
    parser = getattr(error, "interactive_parser", None)
    if parser is None:
        return fallback
    try:
        accepted = {name for name in parser.accepts() if among is None or name in among}
    except Exception:  # pragma: no cover - defensive: fall back to what the error says
        return fallback
    return accepted or fallback
