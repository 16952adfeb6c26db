"""Terraform source files: parsed by tree-sitter's HCL grammar (native code; :mod:`._treesitter`)
or, where tree-sitter cannot be loaded, by python-hcl2's Lark grammar (both imported on first use,
so the command line starts fast), and gathered into a module (a folder's ``*.tf`` files).

Either parse gives the same bodies, blocks and attributes, and expressions as trees of
python-hcl2's shape that stay trees until :mod:`._expr` evaluates them (a differential test holds
the two parses equal). ``AUDITOR_HCL_PARSER=python-hcl2`` chooses the Lark parse (to compare
them). A syntax error is an :class:`~auditor.errors.InputError` naming the file, line and column
and what was expected (python-hcl2 describes a file tree-sitter rejects, when it rejects it too),
never the text found there (it might be a secret).
"""

from __future__ import annotations

import bisect
import functools
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from lark import Token, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput

from auditor._resources import user_cache_dir
from auditor.errors import InputError
from auditor.estate import read_input_text

__all__ = [
    "MAX_FILE_BYTES",
    "Attribute",
    "Block",
    "Body",
    "Module",
    "Node",
    "SourceFile",
    "block_comments",
    "comments",
    "edge_token",
    "label_text",
    "line_of",
    "parse_source",
    "parse_text",
    "parse_value",
    "parser_backend",
    "passed_over",
    "prepare_parser",
    "read_module",
    "subtrees",
]

Node = Tree[Token]
"""A node of python-hcl2's parse tree."""

MAX_FILE_BYTES = 8 << 20
"""The largest Terraform source or variables file read (bytes)."""

_NL = "new_line_or_comment"

# Terminal names in a syntax error, in words (never the text found: it might be a secret).
_TERMINALS = {
    "$END": "the end of the file",
    "NAME": "a name",
    "STRING_CHARS": "text",
    "INT_LITERAL": "a number",
    "FLOAT_LITERAL": "a number",
    "DBLQUOTE": '"',
    "NL_OR_COMMENT": "a new line",
    "EQ": "=",
    "COLON": ":",
    "LBRACE": "{",
    "RBRACE": "}",
    "LSQB": "[",
    "RSQB": "]",
    "LPAR": "(",
    "RPAR": ")",
    "COMMA": ",",
    "DOT": ".",
    "QMARK": "?",
    "INTERP_START": "${",
    "DIRECTIVE_START": "%{",
    "HEREDOC_TEMPLATE": "a heredoc",
    "HEREDOC_TEMPLATE_TRIM": "a heredoc",
    "TRUE": "true",
    "FALSE": "false",
    "NULL": "null",
}


_WORDS = frozenset(v for v in _TERMINALS.values() if " " in v or v == "text")


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A file read: its name as given and its text (the parse tree's offsets index into it)."""

    name: str
    text: str

    def source_of(self, node: Node | Token) -> str:
        """The source text of a parse-tree node (empty when it holds no token)."""
        if isinstance(node, Token):
            return str(node)
        first, last = edge_token(node), edge_token(node, last=True)
        if first is None or last is None:
            return ""
        return self.text[first.start_pos : last.end_pos]


def edge_token(node: Node, *, last: bool = False) -> Token | None:
    """The first (or last) token of a parse-tree node: where the node begins (or ends).

    The parser does not record positions on trees (that costs a third of the parse); a node's
    span is that of its first and last tokens, which is what Lark's ``propagate_positions`` gives
    (checked over every subtree of the benchmark's repository and of tests/data)."""
    item: Node | Token = node
    while isinstance(item, Tree) and item.children:  # (the usual case: no empty subtree)
        item = item.children[-1] if last else item.children[0]
    if isinstance(item, Token):
        return item
    stack: list[Node | Token] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Token):
            return item
        stack.extend(item.children if last else reversed(item.children))
    return None


def line_of(node: Node) -> int | None:
    """The 1-based line a parse-tree node begins on (None when it holds no token)."""
    token = edge_token(node)
    return token.line if token is not None else None


class Attribute:
    """``name = expression`` in a body. From tree-sitter's parse the expression is converted to
    python-hcl2's shape when first read (most of a configuration's expressions never are)."""

    __slots__ = ("_expr", "_pending", "line", "name", "src")

    def __init__(
        self, name: str, expr: Node | None, src: SourceFile, line: int, pending: Any = None
    ) -> None:
        self.name = name
        self._expr = expr
        self.src = src
        self.line = line
        self._pending = pending  # (tree-sitter node, converter) until converted

    @property
    def expr(self) -> Node:
        if self._expr is None:
            node, conv = self._pending
            try:
                self._expr = conv.expression(node)
            except RecursionError:
                raise InputError(
                    "the file nests too deeply to read",
                    source=self.src.name,
                    location=f"line {self.line}",
                ) from None
            self._pending = None
        return self._expr

    def source(self) -> str:
        """The expression's source text (without converting a tree-sitter node)."""
        if self._expr is None:
            node, conv = self._pending
            return str(conv.text_of(node))
        return self.src.source_of(self._expr)

    def __repr__(self) -> str:
        return f"Attribute({self.name!r}, line {self.line} of {self.src.name!r})"


@dataclass(slots=True)
class Body:
    """A block's body: its attributes by name and its nested blocks in order."""

    attributes: dict[str, Attribute] = field(default_factory=dict)
    blocks: list[Block] = field(default_factory=list)


@dataclass(slots=True)
class Block:
    """``type "label" ... { body }``, with where it is."""

    type: str
    labels: tuple[str, ...]
    body: Body
    src: SourceFile
    line: int
    end_line: int
    node: Node | None
    comment_index: Any = None
    """With tree-sitter's parse: the file's comments (:class:`_CommentIndex`) and the block's
    byte span in ``span``; otherwise :func:`block_comments` finds them in ``node``."""
    span: tuple[int, int] = (0, 0)


@dataclass(slots=True)
class Module:
    """A folder's ``*.tf`` files together: what a Terraform module declares."""

    files: list[SourceFile] = field(default_factory=list)
    variables: dict[str, Block] = field(default_factory=dict)
    locals: dict[str, Attribute] = field(default_factory=dict)
    resources: list[Block] = field(default_factory=list)
    data: list[Block] = field(default_factory=list)
    providers: dict[str, Block] = field(default_factory=dict)
    module_calls: list[Block] = field(default_factory=list)

    def resource(self, rtype: str, name: str) -> Block | None:
        for block in self.resources:
            if block.labels == (rtype, name):
                return block
        return None


TREE_SITTER = "tree-sitter"
PYTHON_HCL2 = "python-hcl2"
_BACKEND: str | None = None
"""The parser in use (:func:`parser_backend`); None until the first parse chooses it."""


def parser_backend() -> str:
    """``"tree-sitter"`` when tree-sitter and its HCL grammar load (and ``AUDITOR_HCL_PARSER`` does
    not ask for ``python-hcl2``), else ``"python-hcl2"``."""
    global _BACKEND
    if _BACKEND is None:
        if os.environ.get("AUDITOR_HCL_PARSER", "").strip().lower() == PYTHON_HCL2:
            _BACKEND = PYTHON_HCL2
        else:
            from auditor.sources.terraform._treesitter import available

            _BACKEND = TREE_SITTER if available() else PYTHON_HCL2
    return _BACKEND


def prepare_parser() -> None:
    """Load the parser in use now (before a worker process is forked: not once in each)."""
    if parser_backend() == TREE_SITTER:
        from auditor.sources.terraform._treesitter import file_comments_query

        file_comments_query()


@functools.cache
def _parser() -> Any:
    """python-hcl2's LALR parser for its grammar, built on first use (the command line starts
    fast), without positions on trees (:func:`edge_token` finds them), its tables cached by Lark
    in the user's own cache folder (never a shared temporary folder: the cache is a pickle)."""
    from hcl2 import parser as hcl2_parser
    from hcl2.postlexer import PostLexer
    from lark import Lark

    return Lark.open(
        "hcl2.lark",
        rel_to=hcl2_parser.__file__,
        parser="lalr",
        propagate_positions=False,
        postlex=PostLexer(),
        cache=_cache_file(),
    )


def _cache_file() -> str | bool:
    """Where Lark keeps the parser's tables (it checks them against the grammar's hash): a file
    in the user's own cache folder; False (no cache) when there is none."""
    folder = user_cache_dir()
    return str(folder / "hcl2-lark-tables.bin") if folder is not None else False


def subtrees(node: Node) -> list[Node]:
    """The child trees of ``node`` that carry meaning (no punctuation, new lines or comments)."""
    return [c for c in node.children if isinstance(c, Tree) and c.data != _NL]


def label_text(node: Node) -> str:
    """The text of a block label or attribute name (an identifier, keyword or quoted string)."""
    if node.data == "string":
        parts: list[str] = []
        for part in subtrees(node):
            for child in part.children:
                if isinstance(child, Token):
                    parts.append(str(child))
                else:
                    raise _NotLiteral
        return "".join(parts)
    tokens = list(node.scan_values(lambda v: isinstance(v, Token)))
    return str(tokens[0]) if tokens else ""


class _NotLiteral(Exception):
    """A label holds an interpolation."""


def _expected(exc: UnexpectedInput) -> str:
    wanted = sorted({_TERMINALS.get(t, "") for t in (getattr(exc, "expected", None) or ())} - {""})
    if not wanted:
        return ""
    shown = ", ".join(wanted[:8]) + (", ..." if len(wanted) > 8 else "")
    return f"; expected {shown}"


def _syntax_error(exc: LarkError, name: str) -> InputError:
    if isinstance(exc, UnexpectedInput):
        line = getattr(exc, "line", None)
        column = getattr(exc, "column", None)
        where = f"line {line}, column {column}" if isinstance(line, int) and line > 0 else None
        if isinstance(exc, UnexpectedCharacters):
            found = "an unexpected character"
        elif isinstance(exc, UnexpectedEOF):
            found = "the end of the file"
        else:
            kind = getattr(getattr(exc, "token", None), "type", "")
            word = _TERMINALS.get(kind)
            if word is None:
                found = "an unexpected token"
            elif word in _WORDS:
                found = word
            else:
                found = f"'{word}'"
        return InputError(
            f"not valid Terraform (HCL) syntax: found {found}{_expected(exc)}",
            source=name,
            location=where,
        )
    return InputError("not valid Terraform (HCL) syntax", source=name)


def parse_text(text: str, name: str) -> Node:
    """The parse tree of HCL ``text`` (the file ``name``, for errors)."""
    try:
        # (a new line at the end: python-hcl2's grammar cannot look for "new line or end of file")
        tree: Node = _parser().parse(text + "\n")
    except LarkError as exc:
        raise _syntax_error(exc, name) from None
    except RecursionError:
        raise InputError("the file nests too deeply to read", source=name) from None
    except Exception:  # the parser's own failure on odd input: still an input error, not a crash
        raise InputError("not valid Terraform (HCL) syntax", source=name) from None
    return tree


def read_source(path: str) -> SourceFile:
    """A Terraform file, read and checked (UTF-8, size)."""
    text = read_input_text(path, what="Terraform file", limit=MAX_FILE_BYTES)
    return SourceFile(path, text)


def parse_source(src: SourceFile) -> Body:
    """The body of a Terraform file read (by the parser of :func:`parser_backend`)."""
    if parser_backend() == TREE_SITTER:
        return _ts_source(src)
    return parse_body(parse_text(src.text, src.name), src)


def parse_value(text: str, name: str) -> Node | None:
    """The expression of ``text`` when it is exactly one attribute (``v = EXPRESSION``), else None;
    an input error when it does not parse."""
    body = parse_source(SourceFile(name, text))
    if body.blocks or len(body.attributes) != 1:
        return None
    return next(iter(body.attributes.values())).expr


_AMBIGUOUS_ESCAPES = ("$$${", "%%%{")
"""Text tree-sitter's grammar reads otherwise than HCL (``$$${x}`` is ``$`` and the escape
``$${``, a literal ``$${x}``; the grammar sees ``$$`` and an interpolation): such a file is read by
python-hcl2, when it is installed."""


def _ts_source(src: SourceFile) -> Body:
    from auditor.sources.terraform import _treesitter as ts

    if any(mark in src.text for mark in _AMBIGUOUS_ESCAPES) and _hcl2_available():
        return parse_body(parse_text(src.text, src.name), src)

    tree = ts.parse_tree(src.text.encode("utf-8", "surrogatepass"))
    root = tree.root_node
    conv = ts.Converter(src.text)
    parts = ts.parts(root)
    if root.has_error or (parts and parts[0].type != "body"):
        return _after_ts_error(root, conv, src)
    # (comments are read for suppressions only: a file without one has none to give)
    comments = _CommentIndex(root, conv) if "auditor:skip" in src.text else None
    try:
        return _ts_body(parts[0] if parts else None, root, src, conv, comments, 0)
    except RecursionError:
        raise InputError("the file nests too deeply to read", source=src.name) from None


def _after_ts_error(root: Any, conv: Any, src: SourceFile) -> Body:
    """A file tree-sitter rejects: python-hcl2's parse of it when that accepts it (tree-sitter's
    grammar misses a few forms, ``2e3`` for one), else python-hcl2's description of the error
    (what it expected); tree-sitter's first error when python-hcl2 is not installed."""
    from auditor.sources.terraform import _treesitter as ts

    if not _hcl2_available():  # tree-sitter's position
        raise ts.syntax_error(root, conv, src.name) or InputError(
            "not valid Terraform (HCL) syntax", source=src.name
        )
    return parse_body(parse_text(src.text, src.name), src)


def _hcl2_available() -> bool:
    try:
        _parser()
    except Exception:  # python-hcl2 not installed (or its grammar not loadable)
        return False
    return True


def _ts_body(node: Any, at: Any, src: SourceFile, conv: Any, comments: Any, depth: int) -> Body:
    from auditor.sources.terraform import _treesitter as ts

    if depth > 64:
        where = node if node is not None else at
        raise InputError(
            "blocks nest too deeply (more than 64 levels)",
            source=src.name,
            location=f"line {where.start_point.row + 1}",
        )
    body = Body()
    if node is None:
        return body
    for child in node.children:
        kind = child.type
        if kind == "attribute":
            parts = ts.parts(child)
            name = conv.text_of(parts[0])
            line = child.start_point.row + 1
            if name in body.attributes:
                raise InputError(
                    f"the argument {name!r} is set twice in one block",
                    source=src.name,
                    location=f"line {line}",
                )
            body.attributes[name] = Attribute(name, None, src, line, (parts[2], conv))
        elif kind == "block":
            body.blocks.append(_ts_block(child, src, conv, comments, depth))
    return body


def _ts_block(node: Any, src: SourceFile, conv: Any, comments: Any, depth: int) -> Block:
    from auditor.sources.terraform import _treesitter as ts

    parts = ts.parts(node)
    names = [conv.text_of(parts[0])]
    inner = None
    for part in parts[1:]:
        kind = part.type
        if kind == "identifier" or kind == "string_lit":
            names.append(ts.label(part, conv))
        elif kind == "body":
            inner = part
    return Block(
        type=names[0],
        labels=tuple(names[1:]),
        body=_ts_body(inner, node, src, conv, comments, depth + 1),
        src=src,
        line=node.start_point.row + 1,
        end_line=node.end_point.row + 1,
        node=None,
        comment_index=comments,
        span=(node.start_byte, node.end_byte),
    )


def parse_body(tree: Node, src: SourceFile) -> Body:
    """The body of a parsed file (``start`` tree) or of a ``body`` tree."""
    node = tree
    if node.data == "start":
        node = subtrees(node)[0]
    return _body(node, src, 0)


def _body(node: Node, src: SourceFile, depth: int) -> Body:
    if depth > 64:
        raise InputError(
            "blocks nest too deeply (more than 64 levels)",
            source=src.name,
            location=f"line {line_of(node)}" if line_of(node) else None,
        )
    body = Body()
    for child in subtrees(node):
        if child.data == "attribute":
            parts = subtrees(child)
            name = label_text(parts[0])
            line = line_of(child) or 0
            if name in body.attributes:
                raise InputError(
                    f"the argument {name!r} is set twice in one block",
                    source=src.name,
                    location=f"line {line}",
                )
            body.attributes[name] = Attribute(name, parts[-1], src, line)
        elif child.data == "block":
            body.blocks.append(_block(child, src, depth))
    return body


def _block(node: Node, src: SourceFile, depth: int) -> Block:
    parts = subtrees(node)
    try:
        names = tuple(label_text(p) for p in parts[:-1])
    except _NotLiteral:
        raise InputError(
            "a block label must be a literal string",
            source=src.name,
            location=f"line {line_of(node)}",
        ) from None
    last = edge_token(node, last=True)
    return Block(
        type=names[0],
        labels=names[1:],
        body=_body(parts[-1], src, depth + 1),
        src=src,
        line=line_of(node) or 0,
        end_line=(last.end_line or 0) if last is not None else 0,
        node=node,
    )


def _is_override(name: str) -> bool:
    return name in ("override.tf", "override.tf.json") or name.endswith(
        ("_override.tf", "_override.tf.json")
    )


def module_files(folder: str) -> list[str]:
    """The ``*.tf`` files of a folder (not its sub-folders), sorted by name as Terraform reads them;
    override files (``override.tf``, ``*_override.tf``) are not among them (see :func:`passed_over`)."""
    try:
        with os.scandir(folder) as entries:
            names = sorted(
                e.name
                for e in entries
                if e.name.endswith(".tf") and not _is_override(e.name) and _is_file(e)
            )
    except OSError as exc:
        raise InputError(f"cannot read the folder: {exc.strerror}", source=folder) from None
    return [os.path.join(folder, name) for name in names]


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


def passed_over(folder: str) -> list[tuple[str, str]]:
    """The Terraform files of a folder that are not read, with why."""
    try:
        with os.scandir(folder) as entries:
            names = sorted(
                e.name
                for e in entries
                if (_is_override(e.name) or e.name.endswith(".tf.json")) and _is_file(e)
            )
    except OSError:
        return []
    out = []
    for name in names:
        path = os.path.join(folder, name)
        if _is_override(name):
            out.append((path, "Terraform override files are not merged"))
        elif name.endswith(".tf.json"):
            out.append((path, "Terraform's JSON syntax (.tf.json) is not read"))
    return out


def read_module(paths: list[str]) -> Module:
    """The module the files ``paths`` make together."""
    module = Module()
    for path in paths:
        src = read_source(path)
        module.files.append(src)
        _gather(module, parse_source(src), src)
    return module


def _gather(module: Module, body: Body, src: SourceFile) -> None:
    for block in body.blocks:
        kind, labels = block.type, block.labels
        if kind == "variable" and len(labels) == 1:
            if labels[0] in module.variables:
                raise InputError(
                    f"the variable {labels[0]!r} is declared twice",
                    source=src.name,
                    location=f"line {block.line}",
                )
            module.variables[labels[0]] = block
        elif kind == "locals":
            for name, attr in block.body.attributes.items():
                if name in module.locals:
                    raise InputError(
                        f"the local value {name!r} is defined twice",
                        source=src.name,
                        location=f"line {attr.line}",
                    )
                module.locals[name] = attr
        elif kind == "resource" and len(labels) == 2:
            if module.resource(*labels) is not None:
                raise InputError(
                    f"the resource {labels[0]}.{labels[1]} is declared twice",
                    source=src.name,
                    location=f"line {block.line}",
                )
            module.resources.append(block)
        elif kind == "data" and len(labels) == 2:
            module.data.append(block)
        elif kind == "provider" and len(labels) == 1:
            alias = block.body.attributes.get("alias")
            key = labels[0]
            if alias is not None:
                try:
                    key = f"{labels[0]}.{label_text(subtrees(alias.expr)[0])}"
                except (IndexError, _NotLiteral):
                    key = f"{labels[0]}.?"
            module.providers.setdefault(key, block)
        elif kind == "module" and len(labels) == 1:
            module.module_calls.append(block)


# --- comments --------------------------------------------------------------------------------------


class _CommentIndex:
    """A file's comments from tree-sitter's tree, found when a block first asks (a query over the
    tree, in native code): (start byte, line, text with its marks), in order."""

    def __init__(self, root: Any, conv: Any) -> None:
        self._root: Any = root
        self._conv: Any = conv
        self._found: list[tuple[int, int, str]] | None = None

    def within(self, start: int, end: int) -> list[tuple[int, int, str]]:
        if self._found is None:
            from auditor.sources.terraform._treesitter import file_comments

            self._found = file_comments(self._root, self._conv)
            self._root = self._conv = None
        lo = bisect.bisect_left(self._found, (start,))
        return self._found[lo : bisect.bisect_left(self._found, (end,), lo)]


def block_comments(block: Block) -> Iterator[tuple[int, str]]:
    """Every comment inside a block: (1-based line, text without its ``#``, ``//`` or ``/* */``)."""
    if block.comment_index is not None:
        for _, line, text in block.comment_index.within(*block.span):
            yield from _split_comments(text, line)
    elif block.node is not None:
        yield from comments(block.node)


def comments(node: Node) -> Iterator[tuple[int, str]]:
    """Every comment inside ``node``: (1-based line, text without its ``#``, ``//`` or ``/* */``)."""
    stack: list[Node | Token] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Tree):
            stack.extend(reversed(item.children))
            continue
        value = str(item)
        if not any(mark in value for mark in ("#", "//", "/*")):
            continue
        line = item.line or 0
        if item.type != "NL_OR_COMMENT":
            if "\n" not in value:
                continue  # only new-line tokens (and operators carrying one) hold comments
            # An operator after a line break carries the comments before it (python-hcl2's
            # post-lexer), keeping the operator's position.
            line -= value.count("\n")
        yield from _split_comments(value, line)


def _split_comments(value: str, line: int) -> Iterator[tuple[int, str]]:
    i, n = 0, len(value)
    while i < n:
        ch = value[i]
        if ch == "\n":
            line += 1
            i += 1
        elif ch == "#" or value.startswith("//", i):
            start = i + (1 if ch == "#" else 2)
            end = value.find("\n", start)
            end = n if end < 0 else end
            yield line, value[start:end]
            i = end
        elif value.startswith("/*", i):
            end = value.find("*/", i + 2)
            end = n if end < 0 else end
            inner = value[i + 2 : end]
            for offset, text in enumerate(inner.split("\n")):
                yield line + offset, text
            line += inner.count("\n")
            i = end + 2
        else:
            i += 1
