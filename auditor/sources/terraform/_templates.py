"""HCL string templates: escapes, ``$${`` and ``%%{``, heredocs (``<<-`` trims the indentation), the
pieces of a heredoc's body (literal text, ``${...}`` interpolations, ``%{...}`` directives), and a
template's value."""

from __future__ import annotations

import re
from typing import Any

from lark import Token

from auditor.expr.arm.values import MAX_STRING, Unknown, UnknownKind
from auditor.sources.terraform._values import source_text, to_string, unknown

__all__ = ["heredoc_text", "join_template", "literal_text", "split_template", "unescape"]


_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}
_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))", re.DOTALL)


def unescape(text: str) -> str:
    if "\\" not in text:
        return text

    def one(m: re.Match[str]) -> str:
        code = m.group(1) or m.group(2)
        if code:
            point = int(code, 16)
            if point > 0x10FFFF or 0xD800 <= point < 0xE000:
                return m.group(0)
            return chr(point)
        return _ESCAPES.get(m.group(3), m.group(0))

    return _ESCAPE.sub(one, text)


def literal_text(token: Token) -> str:
    value = str(token)
    if token.type == "ESCAPED_INTERPOLATION":
        return value[1:]  # $${ -> ${
    if token.type == "ESCAPED_DIRECTIVE":
        return value[1:]  # %%{ -> %{
    return unescape(value)


def join_template(parts: list[Any], shown: str) -> Any:
    """A template's value: the only interpolation's value as it is, else the text joined."""
    if len(parts) == 1 and isinstance(parts[0], tuple):
        return parts[0][1]
    out: list[str] = []
    size = 0
    for part in parts:
        if isinstance(part, tuple):
            value = part[1]
            if isinstance(value, Unknown):
                return Unknown(
                    source_text(shown, value.origin or value.expression),
                    value.reason,
                    value.kind,
                    value.origin,
                )
            text = to_string(value)
            if text is None:
                return unknown(
                    shown,
                    "an interpolated value is not a string, number or boolean",
                    UnknownKind.ERROR,
                )
            part = text
        out.append(part)
        size += len(part)
        if size > MAX_STRING:
            return unknown(shown, "the string is too long", UnknownKind.ERROR)
    return "".join(out)


_HEREDOC_START = re.compile(r"<<-?([A-Za-z][A-Za-z0-9._-]*)\r?\n")


def heredoc_text(token: str, *, trim: bool) -> str:
    m = _HEREDOC_START.match(token)
    if m is None:
        return token
    marker = m.group(1)
    body = token[m.end() :].rstrip("\r\n")
    if body.endswith(marker):
        body = body[: -len(marker)]
    body = body.rstrip(" \t")
    lines = body.split("\n")
    if trim:
        widths = [len(line) - len(line.lstrip(" \t")) for line in lines if line.strip()]
        cut = min(widths, default=0)
        lines = [line[cut:] for line in lines]
    return "\n".join(lines)


def split_template(text: str) -> list[tuple[str, str]]:
    """Template text in pieces: ``("text", ...)``, ``("expr", ...)`` for ``${...}`` and
    ``("directive", ...)`` for ``%{...}``; ``$${`` and ``%%{`` are literal."""
    out: list[tuple[str, str]] = []
    literal: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("$${", i) or text.startswith("%%{", i):
            literal.append(text[i + 1 : i + 3])
            i += 3
            continue
        if text.startswith("${", i) or text.startswith("%{", i):
            end = _closing_brace(text, i + 2)
            if end < 0:
                literal.append(text[i:])
                break
            if literal:
                out.append(("text", "".join(literal)))
                literal = []
            kind = "expr" if text[i] == "$" else "directive"
            out.append((kind, text[i + 2 : end].strip("~ \t\r\n")))
            i = end + 1
            continue
        literal.append(text[i])
        i += 1
    if literal:
        out.append(("text", "".join(literal)))
    return out


def _closing_brace(text: str, start: int) -> int:
    depth, i, n = 0, start, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif ch == "{":
            depth += 1
        elif ch == "}":
            if depth == 0:
                return i
            depth -= 1
        i += 1
    return -1
