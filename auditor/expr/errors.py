"""Syntax errors of the two expression languages, with a caret under the offending token."""

from __future__ import annotations

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
    ) -> None:
        self.problem = problem
        self.text = text
        self.line = line
        self.column = column
        self.expected = list(expected or [])
        super().__init__(self._render(), source=source)

    @property
    def source_line(self) -> str:
        lines = self.text.splitlines() or [""]
        return lines[self.line - 1] if 0 < self.line <= len(lines) else ""

    @property
    def caret(self) -> str:
        prefix = self.source_line[: max(self.column - 1, 0)]
        # keep tabs so the caret lines up under the same visual column
        return "".join("\t" if ch == "\t" else " " for ch in prefix) + "^"

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
