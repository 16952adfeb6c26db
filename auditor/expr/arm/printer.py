"""Tree to canonical text, on one line: ``parse_expression(print_expression(t)) == t``.

Canonical form: ``name(a, b)`` with one space after each comma, strings in single quotes with ``''``
for a quote, ``.name`` for a property whose name is an identifier and ``['name']`` for any other,
``true()``/``false()``/``null()`` for the bare words. :func:`print_template_string` adds the brackets
a JSON string value needs.

``redact_strings=True`` prints every string literal as ``'***'``, except the names in
``parameters('name')`` and ``variables('name')``: for showing the shape of an expression that sits at
a secret path without echoing what is inside it.
"""

from __future__ import annotations

from auditor.expr.arm.ast import Call, Expr, Index, IntLit, Property, StrLit, is_identifier

__all__ = ["print_expression", "print_template_string", "quote"]

_REDACTED = "'***'"
_NAMING = frozenset({"parameters", "variables"})  # their argument is a name, kept when redacting


def quote(value: str) -> str:
    """A single-quoted string literal."""
    return "'" + value.replace("'", "''") + "'"


def print_expression(node: Expr, *, redact_strings: bool = False) -> str:
    """Canonical text of an expression (without the surrounding brackets)."""
    parts: list[str] = []
    _emit(node, parts, redact_strings)
    return "".join(parts)


def print_template_string(node: Expr, *, redact_strings: bool = False) -> str:
    """The JSON string value that holds the expression: ``[...]``."""
    return "[" + print_expression(node, redact_strings=redact_strings) + "]"


def _emit(node: Expr, out: list[str], redact: bool) -> None:
    if isinstance(node, StrLit):
        out.append(_REDACTED if redact else quote(node.value))
    elif isinstance(node, IntLit):
        out.append(str(node.value))
    elif isinstance(node, Call):
        out.append(node.name)
        out.append("(")
        keep_name = redact and node.key in _NAMING
        for position, arg in enumerate(node.args):
            if position:
                out.append(", ")
            _emit(arg, out, redact and not (keep_name and position == 0))
        out.append(")")
    elif isinstance(node, Property):
        _emit(node.target, out, redact)
        if is_identifier(node.name):
            out.append("." + node.name)
        else:
            out.append("[" + (_REDACTED if redact else quote(node.name)) + "]")
    elif isinstance(node, Index):
        _emit(node.target, out, redact)
        out.append("[")
        _emit(node.index, out, redact)
        out.append("]")
    else:
        raise TypeError(f"not an ARM expression node: {type(node).__name__}")
