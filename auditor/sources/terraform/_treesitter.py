"""Terraform source parsed by tree-sitter's HCL grammar (``tree-sitter-hcl``, native code: the
benchmark's 800 files parse in about a tenth of a second, against a second for python-hcl2's Lark
grammar), turned into what :mod:`._hcl` builds from python-hcl2's parse: bodies, blocks and
attributes with their lines, each attribute's expression a tree of python-hcl2's shape (the same
node names, token types and positions), so that one evaluator reads either, and a block's comments.

A file tree-sitter marks as broken (an ``ERROR`` or ``MISSING`` node) is a syntax error:
:func:`first_error` gives where. Constructs tree-sitter accepts that have no python-hcl2 shape
(hexadecimal numbers, strip markers in interpolations) become nodes the evaluator does not know,
hence unknown values, never a guess.
"""

from __future__ import annotations

import bisect
import functools
import re
from typing import Any

from lark import Token, Tree

from auditor.errors import InputError

__all__ = [
    "Converter",
    "available",
    "file_comments",
    "file_comments_query",
    "first_error",
    "label",
    "parse_tree",
    "parts",
    "syntax_error",
]

Node = Tree[Token]

_BINARY_TYPES = {
    "==": "DOUBLE_EQ",
    "!=": "NEQ",
    "<": "LT",
    ">": "GT",
    "<=": "LEQ",
    ">=": "GEQ",
    "+": "PLUS",
    "-": "MINUS",
    "*": "ASTERISK",
    "/": "SLASH",
    "%": "PERCENT",
    "&&": "DOUBLE_AMP",
    "||": "DOUBLE_PIPE",
}
_LITERALS = {"true": "TRUE", "false": "FALSE", "null": "NULL"}
_ESCAPED = re.compile(r"\$\$\{[^}]*\}|%%\{[^}]*\}")
_INT = re.compile(r"[0-9]+")
_FLOAT = re.compile(r"[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_new_str = str.__new__  # (a Token is a str: made as Lark makes its own, without its checks)


@functools.cache
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_hcl

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_hcl.language()))


def available() -> bool:
    """True when tree-sitter and its HCL grammar load on this machine."""
    try:
        _parser()
    except Exception:  # an import error, a missing shared library, a grammar of another ABI
        return False
    return True


def parse_tree(data: bytes) -> Any:
    """tree-sitter's tree of the UTF-8 ``data``."""
    return _parser().parse(data)


def first_error(root: Any) -> Any | None:
    """The first ``ERROR`` or ``MISSING`` node of a tree (in the order of the text), if any."""
    node = root
    while True:
        if node.is_error or node.is_missing:
            return node
        for child in node.children:
            if child.has_error or child.is_missing or child.is_error:
                node = child
                break
        else:
            return node if node is not root else None


class _Offsets:
    """Byte offsets of UTF-8 text -> character offsets (the parse tree's positions count bytes,
    python-hcl2's and ``SourceFile.text``'s count characters)."""

    def __init__(self, text: str) -> None:
        self.ends: list[int] = []  # byte offset just past each non-ASCII character
        self.extra: list[int] = []  # bytes beyond one per character, up to and including it
        extra = 0
        for m in _NON_ASCII.finditer(text):
            width = len(m.group().encode("utf-8", "surrogatepass"))
            self.ends.append(m.start() + extra + width)
            extra += width - 1
            self.extra.append(extra)

    def char(self, byte: int) -> int:
        i = bisect.bisect_right(self.ends, byte)
        return byte - (self.extra[i - 1] if i else 0)


class Converter:
    """Builds python-hcl2-shaped trees from the tree-sitter nodes of one file."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.offsets = None if text.isascii() else _Offsets(text)

    # --- positions and tokens --------------------------------------------------------------------

    def pos(self, byte: int) -> int:
        return byte if self.offsets is None else self.offsets.char(byte)

    def column(self, point: Any, byte: int) -> int:
        """The 1-based character column of a position."""
        if self.offsets is None:
            return int(point.column) + 1
        start = byte - int(point.column)
        return self.pos(byte) - self.pos(start) + 1

    def token(self, kind: str, node: Any) -> Token:
        """A token of python-hcl2's kind ``kind`` for ``node``: its text, character offsets and
        line (what the evaluator reads; columns only syntax errors need, and those come from
        python-hcl2)."""
        start, end = node.start_byte, node.end_byte
        if self.offsets is not None:
            start, end = self.offsets.char(start), self.offsets.char(end)
        value = self.text[start:end]
        token = _new_str(Token, value)
        token.type = kind
        token.value = value
        token.start_pos = start
        token.end_pos = end
        token.line = node.start_point.row + 1
        token.column = token.end_line = token.end_column = None
        return token

    def span_token(self, kind: str, start: int, end: int, line: int, column: int) -> Token:
        """A token at character offsets ``start``..``end`` of one line."""
        return Token(
            kind, self.text[start:end], start, line, column, line, column + end - start, end
        )

    def text_of(self, node: Any) -> str:
        return self.text[self.pos(node.start_byte) : self.pos(node.end_byte)]

    # --- expressions ------------------------------------------------------------------------------

    def expression(self, node: Any) -> Node:
        """An ``expression`` node: a conditional, an operation or a term."""
        kids = parts(node)
        if len(kids) == 1 and kids[0].type == "conditional":
            return self.conditional(kids[0])
        return self.term(kids)

    def conditional(self, node: Any) -> Node:
        """``c ? a : b``, right-associative as HCL reads a chain (``a ? b : c ? d : e`` is
        ``a ? b : (c ? d : e)``; the grammar nests it the other way)."""
        chain: list[tuple[Any, Any, Any, Any]] = []  # (?, yes, :, no), outermost first
        while True:
            cond, qmark, yes, colon, no = parts(node)
            chain.append((qmark, yes, colon, no))
            inner = parts(cond)
            if len(inner) != 1 or inner[0].type != "conditional":
                break
            node = inner[0]
        chain.reverse()  # innermost first: cond ? yes1 : no1, ? yes2 : no2, ...
        conditions = [cond, *(link[3] for link in chain[:-1])]
        result = self.expression(chain[-1][3])
        for i in range(len(chain) - 1, -1, -1):
            qmark, yes, colon, _ = chain[i]
            result = Tree(
                "conditional",
                [
                    self.expression(conditions[i]),
                    self.token("QMARK", qmark),
                    self.expression(yes),
                    self.token("COLON", colon),
                    result,
                ],
            )
        return result

    def term(self, pieces: list[Any]) -> Node:
        """A primary and its postfix steps (attributes, indexes, splats)."""
        first = pieces[0]
        kind = first.type
        rest: list[Any]
        current: Node
        if kind == "(":
            current = Tree(
                "expr_term",
                [
                    self.token("LPAR", first),
                    self.expression(pieces[1]),
                    self.token("RPAR", pieces[2]),
                ],
            )
            rest = pieces[3:]
        elif kind == "operation":
            current = self.operation(first)
            rest = pieces[1:]
            if rest:
                current = Tree("expr_term", [current])
        else:
            current = Tree("expr_term", [self.primary(first)])
            rest = pieces[1:]
        for step in rest:
            kind = step.type
            if kind == "get_attr":
                current = Tree(
                    "expr_term", [Tree("get_attr_expr_term", [current, self.get_attr(step)])]
                )
            elif kind == "index":
                current = Tree("expr_term", [Tree("index_expr_term", [current, self.index(step)])])
            elif kind == "splat":
                inner = parts(step)[0]
                current = Tree(
                    "expr_term", [Tree(f"{inner.type}_expr_term", [current, self.splat(inner)])]
                )
            else:
                current = Tree("expr_term", [self.opaque(step)])
        return current

    def operation(self, node: Any) -> Node:
        inner = parts(node)[0]
        pieces = parts(inner)
        if inner.type == "unary_operation":
            op = pieces[0]
            kind = "MINUS" if op.type == "-" else "NOT"
            return Tree("unary_op", [self.token(kind, op), self.term(pieces[1:])])
        at = next(
            i for i, p in enumerate(pieces) if i and not p.is_named and p.type in _BINARY_TYPES
        )
        op = pieces[at]
        return Tree(
            "binary_op",
            [
                self.term(pieces[:at]),
                Tree(
                    "binary_term",
                    [
                        Tree("binary_operator", [self.token(_BINARY_TYPES[op.type], op)]),
                        self.term(pieces[at + 1 :]),
                    ],
                ),
            ],
        )

    def primary(self, node: Any) -> Node:
        kind = node.type
        if kind == "variable_expr":
            return self.identifier(parts(node)[0])
        if kind in ("literal_value", "template_expr", "collection_value", "for_expr"):
            return self.primary(parts(node)[0])
        if kind == "string_lit" or kind == "quoted_template":
            return self.string(node)
        if kind == "numeric_lit":
            text = self.text_of(node)
            if _INT.fullmatch(text):
                return Tree("int_lit", [self.token("INT_LITERAL", node)])
            if _FLOAT.fullmatch(text):
                return Tree("float_lit", [self.token("FLOAT_LITERAL", node)])
            return self.opaque(node)
        if kind in ("bool_lit", "null_lit"):
            text = self.text_of(node)
            return Tree("literal_value", [self.token(_LITERALS[text], node)])
        if kind == "tuple":
            return self.collection("tuple", node, "LSQB", "RSQB")
        if kind == "object":
            return self.collection("object", node, "LBRACE", "RBRACE")
        if kind == "function_call":
            return self.function_call(node)
        if kind == "heredoc_template":
            return self.heredoc(node)
        if kind == "for_tuple_expr":
            return self.for_expr("for_tuple_expr", node, "LSQB", "RSQB")
        if kind == "for_object_expr":
            return self.for_expr("for_object_expr", node, "LBRACE", "RBRACE")
        if kind == "operation":
            return self.operation(node)
        return self.opaque(node)

    def opaque(self, node: Any) -> Node:
        """A construct with no python-hcl2 shape: a node the evaluator does not know (its value is
        an unknown quoting the source text)."""
        return Tree("unsupported", [self.token("UNSUPPORTED", node)])

    def identifier(self, node: Any) -> Node:
        return Tree("identifier", [self.token("NAME", node)])

    def collection(self, data: str, node: Any, open_kind: str, close_kind: str) -> Node:
        kids = parts(node)
        children: list[Any] = [self.token(open_kind, kids[0])]
        for kid in kids[1:-1]:
            kind = kid.type
            if kind == "expression":
                children.append(self.expression(kid))
            elif kind == "object_elem":
                children.append(self.object_elem(kid))
            elif kind == ",":
                children.append(self.token("COMMA", kid))
        children.append(self.token(close_kind, kids[-1]))
        return Tree(data, children)

    def object_elem(self, node: Any) -> Node:
        key, sep, value = parts(node)
        return Tree(
            "object_elem",
            [
                Tree("object_elem_key", [self.expression(key)]),
                self.token("EQ" if sep.type == "=" else "COLON", sep),
                self.expression(value),
            ],
        )

    def get_attr(self, node: Any) -> Node:
        dot, name = parts(node)
        return Tree("get_attr", [self.token("DOT", dot), self.identifier(name)])

    def index(self, node: Any) -> Node:
        inner = parts(node)[0]
        kids = parts(inner)
        if inner.type == "new_index":
            return Tree(
                "braces_index",
                [
                    self.token("LSQB", kids[0]),
                    self.expression(kids[1]),
                    self.token("RSQB", kids[-1]),
                ],
            )
        if inner.type == "legacy_index":
            token = self.token("INT_LITERAL", inner)
            digits = str(token).lstrip(". \t")
            number = Token(
                "INT_LITERAL",
                digits,
                token.end_pos - len(digits) if token.end_pos is not None else None,
                token.end_line,
                (token.end_column or 0) - len(digits),
                token.end_line,
                token.end_column,
                token.end_pos,
            )
            return Tree("short_index", [self.token("DOT", kids[0]), number])
        return self.opaque(inner)

    def splat(self, node: Any) -> Node:
        kids = parts(node)
        kind = "ATTR_SPLAT" if node.type == "attr_splat" else "FULL_SPLAT_START"
        children: list[Any] = [self.token(kind, kids[0])]
        for step in kids[1:]:
            if step.type == "get_attr":
                children.append(self.get_attr(step))
            elif step.type == "index":
                children.append(self.index(step))
            else:
                children.append(self.opaque(step))
        return Tree(node.type, children)

    def function_call(self, node: Any) -> Node:
        kids = parts(node)
        name = kids[0]
        children: list[Any] = []
        text = self.text_of(name)
        if "::" in text:
            start = self.pos(name.start_byte)
            line = name.start_point.row + 1
            column = self.column(name.start_point, name.start_byte)
            for i, part in enumerate(text.split("::")):
                if i:
                    children.append(self.span_token("COLONS", start, start + 2, line, column))
                    start, column = start + 2, column + 2
                end = start + len(part)
                children.append(
                    Tree("identifier", [self.span_token("NAME", start, end, line, column)])
                )
                column += end - start
                start = end
        else:
            children.append(self.identifier(name))
        children.append(self.token("LPAR", kids[1]))
        if len(kids) > 3:
            arguments: list[Any] = []
            for arg in parts(kids[2]):
                if arg.type == "expression":
                    arguments.append(self.expression(arg))
                elif arg.type == "ellipsis":
                    arguments.append(self.token("ELLIPSIS", arg))
                elif arg.type == ",":
                    arguments.append(self.token("COMMA", arg))
            children.append(Tree("arguments", arguments))
        children.append(self.token("RPAR", kids[-1]))
        return Tree("function_call", children)

    def for_expr(self, data: str, node: Any, open_kind: str, close_kind: str) -> Node:
        kids = parts(node)
        children: list[Any] = [self.token(open_kind, kids[0])]
        for kid in kids[1:-1]:
            kind = kid.type
            if kind == "for_intro":
                children.append(self.for_intro(kid))
            elif kind == "expression":
                children.append(self.expression(kid))
            elif kind == "for_cond":
                cond = parts(kid)
                children.append(
                    Tree("for_cond", [self.token("IF", cond[0]), self.expression(cond[1])])
                )
            elif kind == "=>":
                children.append(self.token("FOR_OBJECT_ARROW", kid))
            elif kind == "ellipsis":
                children.append(self.token("ELLIPSIS", kid))
        children.append(self.token(close_kind, kids[-1]))
        return Tree(data, children)

    def for_intro(self, node: Any) -> Node:
        children: list[Any] = []
        for kid in parts(node):
            kind = kid.type
            if kind == "identifier":
                children.append(self.identifier(kid))
            elif kind == "expression":
                children.append(self.expression(kid))
            else:
                children.append(self.token(_PUNCTUATION.get(kind, kind.upper()), kid))
        return Tree("for_intro", children)

    # --- strings ----------------------------------------------------------------------------------

    def string(self, node: Any) -> Node:
        kids = node.children  # (not parts(): the text between the pieces is the literal text)
        children: list[Any] = [self.token("DBLQUOTE", kids[0])]
        cursor = kids[0].end_byte
        for part in kids[1:-1]:
            kind = part.type
            if kind == "template_literal" or kind == "comment":
                continue  # (whitespace-only text has no node: the gaps are the literal text)
            children.extend(self.literal_parts(cursor, part.start_byte, part.start_point))
            cursor = part.end_byte
            inner = parts(part)
            if (
                kind == "template_interpolation"
                and len(inner) == 3
                and inner[1].type == "expression"
            ):
                interpolation = Tree(
                    "interpolation",
                    [
                        self.token("INTERP_START", inner[0]),
                        self.expression(inner[1]),
                        self.token("RBRACE", inner[2]),
                    ],
                )
                children.append(Tree("string_part", [interpolation]))
            else:  # a template directive (%{ if }, %{ for }), strip markers: not evaluated
                children.append(Tree("string_part", [self.opaque(part)]))
        close = kids[-1]
        children.extend(self.literal_parts(cursor, close.start_byte, close.start_point))
        children.append(self.token("DBLQUOTE", close))
        return Tree("string", children)

    def literal_parts(self, start_byte: int, end_byte: int, end_point: Any) -> list[Node]:
        """Literal text between two pieces of a template as python-hcl2's tokens: text,
        ``$${...}`` and ``%%{...}``."""
        if end_byte <= start_byte:
            return []
        start, end = self.pos(start_byte), self.pos(end_byte)
        value = self.text[start:end]
        line = int(end_point.row) + 1 - value.count("\n")
        token = Token("STRING_CHARS", value, start, line, None, line, None, end)
        if "$${" not in value and "%%{" not in value:
            return [Tree("string_part", [token])]
        out: list[Node] = []
        at = 0
        for m in _ESCAPED.finditer(value):
            if m.start() > at:
                out.append(Tree("string_part", [self._sub(token, "STRING_CHARS", at, m.start())]))
            kind = "ESCAPED_INTERPOLATION" if m.group().startswith("$") else "ESCAPED_DIRECTIVE"
            out.append(Tree("string_part", [self._sub(token, kind, m.start(), m.end())]))
            at = m.end()
        if at < len(value):
            out.append(Tree("string_part", [self._sub(token, "STRING_CHARS", at, len(value))]))
        return out

    def _sub(self, token: Token, kind: str, start: int, end: int) -> Token:
        base = token.start_pos or 0
        value = str(token)
        line = (token.line or 0) + value.count("\n", 0, start)
        return Token(kind, value[start:end], base + start, line, None, line, None, base + end)

    def heredoc(self, node: Any) -> Node:
        kids = parts(node)
        trim = self.text_of(kids[0]) == "<<-"
        start, end = self.pos(node.start_byte), self.pos(node.end_byte)
        # (python-hcl2's heredoc token ends with the new line after the closing marker)
        if self.text.startswith("\r\n", end):
            end += 2
        elif self.text.startswith("\n", end):
            end += 1
        sp = node.start_point
        end_line = node.end_point.row + 1 + (1 if end > self.pos(node.end_byte) else 0)
        token = Token(
            "HEREDOC_TEMPLATE_TRIM" if trim else "HEREDOC_TEMPLATE",
            self.text[start:end],
            start,
            sp.row + 1,
            self.column(sp, node.start_byte),
            end_line,
            1,
            end,
        )
        return Tree("heredoc_template_trim" if trim else "heredoc_template", [token])


_PUNCTUATION = {
    "for": "FOR",
    "in": "IN",
    "if": "IF",
    ",": "COMMA",
    ":": "COLON",
}


def parts(node: Any) -> list[Any]:
    """A node's children without comments."""
    return [c for c in node.children if c.type != "comment"]


def label(node: Any, conv: Converter) -> str:
    """A block label's text: an identifier, or a quoted string's raw text (as python-hcl2's
    ``label_text`` gives it: escapes not interpreted)."""
    text = conv.text_of(node)
    return text if node.type == "identifier" else text[1:-1]


def syntax_error(root: Any, conv: Converter, name: str) -> InputError | None:
    """The input error for a tree with an ``ERROR`` or ``MISSING`` node (None when it has none),
    naming the line and column, never the text found there."""
    node = first_error(root)
    if node is None:
        return None
    point = node.start_point
    where = f"line {point.row + 1}, column {conv.column(point, node.start_byte)}"
    if node.is_missing:
        wanted = node.type
        shown = f"'{wanted}'" if not wanted.replace("_", "").isalpha() else wanted.replace("_", " ")
        message = f"not valid Terraform (HCL) syntax: expected {shown}"
    elif node.start_byte >= len(conv.text.encode("utf-8")):
        message = "not valid Terraform (HCL) syntax: found the end of the file"
    else:
        message = "not valid Terraform (HCL) syntax: found an unexpected token"
    return InputError(message, source=name, location=where)


@functools.cache
def file_comments_query() -> Any:
    import tree_sitter
    import tree_sitter_hcl

    return tree_sitter.Query(tree_sitter.Language(tree_sitter_hcl.language()), "(comment) @c")


def file_comments(root: Any, conv: Converter) -> list[tuple[int, int, str]]:
    """Every comment of a file: (start byte, 1-based line, text with its marks), in order."""
    import tree_sitter

    found = tree_sitter.QueryCursor(file_comments_query()).captures(root).get("c", [])
    out = [(n.start_byte, n.start_point.row + 1, conv.text_of(n)) for n in found]
    out.sort()
    return out
