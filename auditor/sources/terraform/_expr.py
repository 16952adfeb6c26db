"""Terraform expressions, evaluated from a parse tree of python-hcl2's shape (:mod:`._hcl`) as far as they can be without
running Terraform: literals, templates and heredocs, ``var.``/``local.`` references, ``count.index``
and ``each.key``/``each.value``, arithmetic, comparisons and logic, conditionals, ``for``
expressions, splats over lists, the simple functions of :mod:`._functions`, and references to an
argument another resource of the configuration sets to a value known before apply (a resource
group's ``name`` or ``location``, say).

Anything else is an :class:`~auditor.expr.arm.values.Unknown` that says why (an attribute known only
after apply, a data source, a variable without a value, a function not implemented), never a guess.
An Unknown's texts are source text (references and function names), clipped; they never hold a
value the configuration gave.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lark import Token

from auditor.errors import InputError
from auditor.expr.arm.values import MAX_ITEMS, Unknown, UnknownKind, find_unknown
from auditor.sources.terraform._hcl import (
    Attribute,
    Block,
    Module,
    Node,
    SourceFile,
    line_of,
    subtrees,
)
from auditor.sources.terraform._templates import (
    heredoc_text,
    join_template,
    literal_text,
    split_template,
)
from auditor.sources.terraform._values import (
    arithmetic,
    first_unknown,
    for_each_items,
    iterate,
    logic,
    same,
    source_text,
    to_bool,
    to_number,
    to_string,
    unknown,
)

__all__ = ["MAX_STEPS", "Env", "EvalContext", "Evaluator", "ResourceInstance"]

MAX_STEPS = 2_000_000
"""Expression nodes evaluated for one configuration, at most (a hostile configuration cannot stall
the gate: beyond this, reading stops with an input error)."""
MAX_DEPTH = 150
"""Nesting of expressions evaluated, at most."""
MAX_INSTANCES = 1_000
"""Instances ``count``/``for_each`` may make of one resource, at most (more: read as one)."""

_META_ARGUMENTS = frozenset({"count", "for_each", "provider", "depends_on"})
_META_BLOCKS = frozenset({"lifecycle", "provisioner", "connection", "timeouts"})

Env = dict[str, Any]
"""Names bound while evaluating: ``count``, ``each``, ``for`` and ``dynamic`` iterators."""


class _TooComplex(Exception):
    pass


@dataclass(frozen=True, slots=True)
class ResourceInstance:
    """One instance of a resource block: its key (``None``, a ``count`` index or a ``for_each``
    key), the names bound for it, and whether the key is known."""

    block: Block
    key: int | str | None
    env: Env
    address: str


@dataclass(slots=True)
class EvalContext:
    """What a module's expressions can refer to."""

    module: Module
    variables: dict[str, Any] = field(default_factory=dict)
    steps: int = 0
    locals: dict[str, Any] = field(default_factory=dict)
    resolving: list[Any] = field(default_factory=list)


_BINARY: dict[str, str] = {
    "DOUBLE_EQ": "==",
    "NEQ": "!=",
    "LT": "<",
    "GT": ">",
    "LEQ": "<=",
    "GEQ": ">=",
    "PLUS": "+",
    "MINUS": "-",
    "ASTERISK": "*",
    "SLASH": "/",
    "PERCENT": "%",
    "DOUBLE_AMP": "&&",
    "DOUBLE_PIPE": "||",
}


class Evaluator:
    """Evaluates the expressions of one module (see the module docstring)."""

    def __init__(self, ctx: EvalContext) -> None:
        self.ctx = ctx
        self._depth = 0

    # --- entry points ---------------------------------------------------------------------------

    def attribute(self, attr: Attribute, env: Env | None = None) -> Any:
        """The value of an attribute; a top-level Unknown carries the attribute's source text."""
        value = self.value(attr.expr, attr.src, env or {})
        if isinstance(value, Unknown):
            text = source_text(attr.src.source_of(attr.expr), value.origin or value.expression)
            return Unknown(text or value.expression, value.reason, value.kind, value.origin)
        return value

    def value(self, node: Node, src: SourceFile, env: Env) -> Any:
        """The value of the expression ``node`` of ``src``, names in ``env`` bound."""
        try:
            return self._value(node, src, env)
        except RecursionError:
            raise self._error(node, src, "the expression nests too deeply to evaluate") from None
        except _TooComplex:
            raise self._error(
                node, src, f"evaluating the configuration takes more than {MAX_STEPS:,} steps"
            ) from None

    def body(self, block: Block, env: Env, *, top: bool = True) -> dict[str, Any]:
        """A block's arguments and nested blocks as a value: arguments by name, nested blocks as
        lists of objects (``dynamic`` blocks expanded where their ``for_each`` resolves)."""
        out: dict[str, Any] = {}
        for name, attr in block.body.attributes.items():
            if top and name in _META_ARGUMENTS:
                continue
            out[name] = self.attribute(attr, env)
        for nested in block.body.blocks:
            if top and nested.type in _META_BLOCKS:
                continue
            if nested.type == "dynamic" and len(nested.labels) == 1:
                name = nested.labels[0]
                produced = self._dynamic(nested, env)
                current = out.get(name)
                if isinstance(produced, Unknown) or isinstance(current, Unknown):
                    out[name] = first_unknown(current, produced)
                else:
                    out.setdefault(name, []).extend(produced)
                continue
            current = out.get(nested.type)
            if isinstance(current, Unknown):
                continue
            if not isinstance(current, list):
                current = out[nested.type] = []
            current.append(self.body(nested, env, top=False))
        return out

    def _dynamic(self, block: Block, env: Env) -> list[dict[str, Any]] | Unknown:
        name = block.labels[0]
        for_each = block.body.attributes.get("for_each")
        content = next((b for b in block.body.blocks if b.type == "content"), None)
        where = f"dynamic {name!r} block"
        if for_each is None or content is None:
            return unknown(where, "a dynamic block without for_each or content", UnknownKind.ERROR)
        collection = self.attribute(for_each, env)
        iterator = name
        if "iterator" in block.body.attributes:
            node = block.body.attributes["iterator"].expr
            iterator = " ".join(block.src.source_of(node).split())
        items = iterate(collection)
        if isinstance(items, Unknown):
            return Unknown(
                items.expression,
                f"the {where} repeats over a value not known",
                items.kind,
                items.origin,
            )
        out = []
        for key, item in items:
            inner = dict(env)
            inner[iterator] = {"key": key, "value": item}
            out.append(self.body(content, inner, top=False))
        return out

    # --- instances ------------------------------------------------------------------------------

    def instances(self, block: Block, warnings: list[str]) -> list[ResourceInstance]:
        """The instances ``count``/``for_each`` make of a resource block (one without them)."""
        base = f"{block.labels[0]}.{block.labels[1]}"
        attrs = block.body.attributes
        if "count" in attrs:
            count = self.attribute(attrs["count"])
            if isinstance(count, str):
                count = to_number(count) if to_number(count) is not None else count
            if isinstance(count, bool) or not isinstance(count, int | float):
                return self._unresolved_instances(block, base, "count", count, warnings)
            if isinstance(count, float):
                if not count.is_integer():
                    return self._unresolved_instances(block, base, "count", count, warnings)
                count = int(count)
            if count < 0 or count > MAX_INSTANCES:
                return self._unresolved_instances(block, base, "count", count, warnings)
            return [
                ResourceInstance(block, i, {"count": {"index": i}}, f"{base}[{i}]")
                for i in range(count)
            ]
        if "for_each" in attrs:
            collection = self.attribute(attrs["for_each"])
            items = for_each_items(collection)
            if isinstance(items, Unknown) or len(items) > MAX_INSTANCES:
                return self._unresolved_instances(block, base, "for_each", collection, warnings)
            return [
                ResourceInstance(block, k, {"each": {"key": k, "value": v}}, f"{base}[{_quote(k)}]")
                for k, v in items
            ]
        return [ResourceInstance(block, None, {}, base)]

    def _unresolved_instances(
        self, block: Block, base: str, meta: str, value: Any, warnings: list[str]
    ) -> list[ResourceInstance]:
        known = isinstance(value, Unknown) and value.kind is not UnknownKind.ERROR
        why = "is not known" if known else "is not a usable number or collection"
        warnings.append(
            f"{block.src.name}:{block.line}: the {meta} of {base} {why}; read as one resource whose "
            "values are as written"
        )
        reason = f"the {meta} of {base} {why}"
        env: Env = (
            {"count": {"index": unknown("count.index", reason)}}
            if meta == "count"
            else {
                "each": {"key": unknown("each.key", reason), "value": unknown("each.value", reason)}
            }
        )
        return [ResourceInstance(block, None, env, base)]

    # --- the evaluator --------------------------------------------------------------------------

    def _error(self, node: Node, src: SourceFile, message: str) -> InputError:
        line = line_of(node)
        return InputError(message, source=src.name, location=f"line {line}" if line else None)

    def _tick(self) -> None:
        self.ctx.steps += 1
        if self.ctx.steps > MAX_STEPS:
            raise _TooComplex

    def _value(self, node: Node, src: SourceFile, env: Env) -> Any:
        self._tick()
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise RecursionError
            handler = _HANDLERS.get(node.data)
            if handler is None:
                return unknown(
                    src.source_of(node),
                    "this expression is not evaluated",
                    UnknownKind.NOT_IMPLEMENTED,
                )
            return handler(self, node, src, env)
        finally:
            self._depth -= 1

    def _expr_term(self, node: Node, src: SourceFile, env: Env) -> Any:
        parts = subtrees(node)
        if len(parts) == 1:
            return self._value(parts[0], src, env)
        return unknown(
            src.source_of(node), "this expression is not evaluated", UnknownKind.NOT_IMPLEMENTED
        )

    def _literal(self, node: Node, src: SourceFile, env: Env) -> Any:
        token = str(node.children[0])
        return {"true": True, "false": False, "null": None}.get(token)

    def _int(self, node: Node, src: SourceFile, env: Env) -> Any:
        try:
            return int(str(node.children[0]))
        except ValueError:
            return unknown(src.source_of(node), "the number is too large", UnknownKind.ERROR)

    def _float(self, node: Node, src: SourceFile, env: Env) -> Any:
        number = float(str(node.children[0]))
        if not math.isfinite(number):
            return unknown(src.source_of(node), "the number is too large", UnknownKind.ERROR)
        return int(number) if number.is_integer() and abs(number) < 2**53 else number

    def _tuple(self, node: Node, src: SourceFile, env: Env) -> Any:
        return [self._value(item, src, env) for item in subtrees(node)]

    def _object(self, node: Node, src: SourceFile, env: Env) -> Any:
        out: dict[str, Any] = {}
        for elem in subtrees(node):
            key_node, value_node = subtrees(elem)
            key = self._object_key(key_node, src, env)
            if isinstance(key, Unknown):
                return Unknown(key.expression, "an object key is not known", key.kind, key.origin)
            out[key] = self._value(value_node, src, env)
        return out

    def _object_key(self, node: Node, src: SourceFile, env: Env) -> str | Unknown:
        inner = subtrees(node)
        if not inner:  # a keyword used as a key
            return str(node.children[0])
        expr = inner[0]
        if expr.data == "expr_term":
            parts = subtrees(expr)
            if len(parts) == 1 and parts[0].data == "identifier" and len(expr.children) == 1:
                return str(parts[0].children[0])  # a bare name is the key itself
        key = self._value(expr, src, env)
        if isinstance(key, Unknown):
            return key
        converted = to_string(key)
        if converted is None:
            return unknown(src.source_of(node), "an object key must be a string", UnknownKind.ERROR)
        return converted

    # strings and templates

    def _string(self, node: Node, src: SourceFile, env: Env) -> Any:
        parts: list[Any] = []
        for part in subtrees(node):
            child = part.children[0]
            if isinstance(child, Token):
                parts.append(literal_text(child))
            elif child.data == "interpolation":
                parts.append(("value", self._value(subtrees(child)[0], src, env)))
            else:
                return unknown(
                    src.source_of(node),
                    "template directives (%{ ... }) are not evaluated",
                    UnknownKind.NOT_IMPLEMENTED,
                )
        return join_template(parts, src.source_of(node))

    def _heredoc(self, node: Node, src: SourceFile, env: Env) -> Any:
        token = str(node.children[0])
        text = heredoc_text(token, trim=node.data == "heredoc_template_trim")
        if "${" not in text and "%{" not in text:
            return text
        return self.template(text, src, env, src.source_of(node))

    def template(self, text: str, src: SourceFile, env: Env, shown: str) -> Any:
        """The value of template text (a heredoc's body): literal text and ``${...}``."""
        parts: list[Any] = []
        for kind, piece in split_template(text):
            if kind == "text":
                parts.append(piece)
            elif kind == "directive":
                return unknown(
                    shown,
                    "template directives (%{ ... }) are not evaluated",
                    UnknownKind.NOT_IMPLEMENTED,
                )
            else:
                from auditor.sources.terraform._hcl import parse_value

                try:
                    expr = parse_value(f"v = {piece}\n", src.name)
                except InputError:
                    expr = None
                if expr is None:
                    return unknown(
                        shown, "an interpolation in a heredoc does not parse", UnknownKind.ERROR
                    )
                inner_src = SourceFile(src.name, f"v = {piece}\n")
                parts.append(("value", self._value(expr, inner_src, env)))
        return join_template(parts, shown)

    # operators

    def _conditional(self, node: Node, src: SourceFile, env: Env) -> Any:
        cond_node, a_node, b_node = subtrees(node)
        cond = self._value(cond_node, src, env)
        if isinstance(cond, Unknown):
            a = self._value(a_node, src, env)
            b = self._value(b_node, src, env)
            if not isinstance(a, Unknown) and find_unknown(a) is None and same(a, b):
                return a
            return Unknown(
                cond.expression,
                f"the condition is not known ({cond.reason})",
                cond.kind,
                cond.origin,
            )
        flag = to_bool(cond)
        if flag is None:
            return unknown(
                src.source_of(cond_node), "the condition is not a boolean", UnknownKind.ERROR
            )
        return self._value(a_node if flag else b_node, src, env)

    def _unary(self, node: Node, src: SourceFile, env: Env) -> Any:
        op = str(node.children[0]).strip()
        value = self._value(subtrees(node)[0], src, env)
        if isinstance(value, Unknown):
            return value
        if op == "!":
            flag = to_bool(value)
            if flag is None:
                return unknown(src.source_of(node), "'!' needs a boolean", UnknownKind.ERROR)
            return not flag
        number = to_number(value)
        if number is None:
            return unknown(src.source_of(node), "'-' needs a number", UnknownKind.ERROR)
        return -number

    def _binary(self, node: Node, src: SourceFile, env: Env) -> Any:
        left_node, term = subtrees(node)
        operator, right_node = subtrees(term)
        token = operator.children[0]
        op = _BINARY.get(token.type, "") if isinstance(token, Token) else ""
        left = self._value(left_node, src, env)
        right = self._value(right_node, src, env)
        if op in ("&&", "||"):
            return logic(op, left, right, src.source_of(node))
        missing = first_unknown(left, right)
        if missing is not None:
            return missing
        if op in ("==", "!="):
            equal = same(left, right)
            if equal is None:
                return unknown(
                    src.source_of(node), "the values compared are not known", UnknownKind.UNRESOLVED
                )
            return equal if op == "==" else not equal
        a, b = to_number(left), to_number(right)
        if a is None or b is None:
            return unknown(src.source_of(node), f"'{op}' needs numbers", UnknownKind.ERROR)
        return arithmetic(op, a, b, src.source_of(node))

    # references

    def _traversal(self, node: Node, src: SourceFile, env: Env) -> Any:
        root, steps = _flatten(node)
        text = src.source_of(node)
        if root.data == "identifier":
            name = str(root.children[0])
            return self._named(name, steps, src, env, text)
        value = self._value(root, src, env)
        return self._apply(value, steps, src, env, text)

    def _identifier(self, node: Node, src: SourceFile, env: Env) -> Any:
        return self._named(str(node.children[0]), [], src, env, src.source_of(node))

    def _named(self, name: str, steps: list[Node], src: SourceFile, env: Env, text: str) -> Any:
        if name in env:
            return self._apply(env[name], steps, src, env, text)
        attr = _step_name(steps[0]) if steps else None
        if name == "var":
            if attr is None:
                return unknown(text, "'var' needs a variable name", UnknownKind.ERROR)
            if attr not in self.ctx.variables:
                return unknown(text, f"no variable {attr!r} is declared", UnknownKind.ERROR)
            return self._apply(self.ctx.variables[attr], steps[1:], src, env, text)
        if name == "local":
            if attr is None:
                return unknown(text, "'local' needs a name", UnknownKind.ERROR)
            return self._apply(self._local(attr, text), steps[1:], src, env, text)
        if name == "data":
            return unknown(
                text, "a data source is read when Terraform plans", UnknownKind.DEPLOYMENT
            )
        if name == "module":
            return unknown(text, "module outputs are not evaluated", UnknownKind.NOT_IMPLEMENTED)
        if name in ("path", "terraform", "self"):
            return unknown(
                text, f"'{name}.' values are known only to Terraform", UnknownKind.DEPLOYMENT
            )
        if name in ("count", "each"):
            return unknown(
                text, f"'{name}' is used outside a resource that sets it", UnknownKind.ERROR
            )
        if attr is not None and any(b.labels[0] == name for b in self.ctx.module.resources):
            return self._resource_ref(name, attr, steps[1:], src, env, text)
        return unknown(
            text, f"{name!r} is not a name this configuration defines", UnknownKind.ERROR
        )

    def _local(self, name: str, text: str) -> Any:
        if name in self.ctx.locals:
            return self.ctx.locals[name]
        attr = self.ctx.module.locals.get(name)
        if attr is None:
            return unknown(text, f"no local value {name!r} is defined", UnknownKind.ERROR)
        key = ("local", name)
        if key in self.ctx.resolving:
            return unknown(text, f"the local value {name!r} refers to itself", UnknownKind.ERROR)
        self.ctx.resolving.append(key)
        try:
            value = self.attribute(attr)
        finally:
            self.ctx.resolving.pop()
        self.ctx.locals[name] = value
        return value

    def _resource_ref(
        self, rtype: str, rname: str, steps: list[Node], src: SourceFile, env: Env, text: str
    ) -> Any:
        block = self.ctx.module.resource(rtype, rname)
        if block is None:
            return unknown(
                text, f"no resource {rtype}.{rname} in this configuration", UnknownKind.ERROR
            )
        instance_env: Env = {}
        attrs = block.body.attributes
        if "count" in attrs or "for_each" in attrs:
            if not steps or steps[0].data not in ("braces_index", "short_index"):
                return unknown(text, "known only after apply", UnknownKind.DEPLOYMENT)
            key = self._index_key(steps[0], src, env)
            if isinstance(key, Unknown):
                return unknown(text, "the instance referred to is not known", key.kind)
            steps = steps[1:]
            if "count" in attrs:
                instance_env = {"count": {"index": key}}
            else:
                items = for_each_items(self.attribute(attrs["for_each"]))
                if isinstance(items, Unknown):
                    return unknown(text, "the instance referred to is not known", items.kind)
                match = [v for k, v in items if k == key]
                if not match:
                    return unknown(text, "no such instance", UnknownKind.ERROR)
                instance_env = {"each": {"key": key, "value": match[0]}}
        attr_name = _step_name(steps[0]) if steps else None
        if attr_name is None or attr_name not in attrs or attr_name in _META_ARGUMENTS:
            return unknown(text, "known only after apply", UnknownKind.DEPLOYMENT)
        key = ("resource", rtype, rname, attr_name, repr(instance_env))
        if key in self.ctx.resolving:
            return unknown(text, "the reference refers to itself", UnknownKind.ERROR)
        self.ctx.resolving.append(key)
        try:
            value = self.value(attrs[attr_name].expr, attrs[attr_name].src, instance_env)
        finally:
            self.ctx.resolving.pop()
        return self._apply(value, steps[1:], src, env, text)

    def _index_key(self, step: Node, src: SourceFile, env: Env) -> Any:
        if step.data == "short_index":
            return int(str(step.children[-1]))
        key = self._value(subtrees(step)[0], src, env)
        if isinstance(key, float) and key.is_integer():
            return int(key)
        return key

    def _apply(self, value: Any, steps: list[Node], src: SourceFile, env: Env, text: str) -> Any:
        for step in steps:
            self._tick()
            if isinstance(value, Unknown):
                return value
            if step.data == "get_attr":
                name = _step_name(step)
                if isinstance(value, dict) and name in value:
                    value = value[name]
                else:
                    return unknown(text, f"no attribute {name!r} here", UnknownKind.ERROR)
            elif step.data in ("braces_index", "short_index"):
                key = self._index_key(step, src, env)
                if isinstance(key, Unknown):
                    return Unknown(key.expression, "the index is not known", key.kind, key.origin)
                if isinstance(value, list) and isinstance(key, int) and not isinstance(key, bool):
                    if not 0 <= key < len(value):
                        return unknown(text, "the index is out of range", UnknownKind.ERROR)
                    value = value[key]
                elif isinstance(value, dict) and isinstance(key, str) and key in value:
                    value = value[key]
                else:
                    return unknown(text, "no element at this index", UnknownKind.ERROR)
            else:
                return unknown(
                    text, "this expression is not evaluated", UnknownKind.NOT_IMPLEMENTED
                )
        return value

    def _splat(self, node: Node, src: SourceFile, env: Env) -> Any:
        base_node, splat = subtrees(node)
        base = self._value(base_node, src, env)
        text = src.source_of(node)
        if isinstance(base, Unknown):
            return base
        if base is None:
            return []
        items = base if isinstance(base, list) else [base]
        steps = subtrees(splat)
        return [self._apply(item, steps, src, env, text) for item in items]

    # functions and for expressions

    def _call(self, node: Node, src: SourceFile, env: Env) -> Any:
        from auditor.sources.terraform._functions import call

        names = [p for p in subtrees(node) if p.data == "identifier"]
        name = "::".join(str(n.children[0]) for n in names)
        arguments = next((p for p in subtrees(node) if p.data == "arguments"), None)
        arg_nodes = subtrees(arguments) if arguments is not None else []
        spread = arguments is not None and any(
            isinstance(t, Token) and t.type == "ELLIPSIS" for t in arguments.children
        )
        shown = f"{name}(...)"
        if len(names) != 1:
            return unknown(
                shown, "provider-defined functions are not evaluated", UnknownKind.NOT_IMPLEMENTED
            )
        args = [self._value(a, src, env) for a in arg_nodes]
        if spread and args:
            last = args.pop()
            if isinstance(last, Unknown):
                return last
            if not isinstance(last, list):
                return unknown(shown, "'...' needs a list", UnknownKind.ERROR)
            args.extend(last)
        return call(name, args, shown)

    def _for_tuple(self, node: Node, src: SourceFile, env: Env) -> Any:
        intro, *rest = subtrees(node)
        return self._for(intro, rest, src, env, node, as_object=False)

    def _for_object(self, node: Node, src: SourceFile, env: Env) -> Any:
        intro, *rest = subtrees(node)
        group = any(isinstance(t, Token) and t.type == "ELLIPSIS" for t in node.children)
        return self._for(intro, rest, src, env, node, as_object=True, group=group)

    def _for(
        self,
        intro: Node,
        rest: list[Node],
        src: SourceFile,
        env: Env,
        node: Node,
        *,
        as_object: bool,
        group: bool = False,
    ) -> Any:
        names = [str(p.children[0]) for p in subtrees(intro) if p.data == "identifier"]
        collection_node = next(p for p in subtrees(intro) if p.data != "identifier")
        cond = rest[-1] if rest and rest[-1].data == "for_cond" else None
        exprs = rest[:-1] if cond is not None else rest
        text = src.source_of(node)
        items = iterate(self._value(collection_node, src, env))
        if isinstance(items, Unknown):
            return Unknown(
                items.expression,
                f"the collection is not known ({items.reason})",
                items.kind,
                items.origin,
            )
        out_list: list[Any] = []
        out_map: dict[str, Any] = {}
        for key, item in items:
            inner = dict(env)
            if len(names) == 2:
                inner[names[0]], inner[names[1]] = key, item
            else:
                inner[names[0]] = item
            if cond is not None:
                keep = self._value(subtrees(cond)[0], src, inner)
                if isinstance(keep, Unknown):
                    return keep
                if not to_bool(keep):
                    continue
            if not as_object:
                out_list.append(self._value(exprs[0], src, inner))
                continue
            k = self._value(exprs[0], src, inner)
            if isinstance(k, Unknown):
                return Unknown(k.expression, "a key is not known", k.kind, k.origin)
            k_text = to_string(k)
            if k_text is None:
                return unknown(text, "an object key must be a string", UnknownKind.ERROR)
            v = self._value(exprs[1], src, inner)
            if group:
                out_map.setdefault(k_text, []).append(v)
            elif k_text in out_map:
                return unknown(text, "two elements have the same key", UnknownKind.ERROR)
            else:
                out_map[k_text] = v
            if len(out_map) > MAX_ITEMS:
                return unknown(text, "the result is too large", UnknownKind.ERROR)
        return out_map if as_object else out_list


_HANDLERS: dict[str, Callable[[Evaluator, Node, SourceFile, Env], Any]] = {
    "expr_term": Evaluator._expr_term,
    "literal_value": Evaluator._literal,
    "int_lit": Evaluator._int,
    "float_lit": Evaluator._float,
    "tuple": Evaluator._tuple,
    "object": Evaluator._object,
    "string": Evaluator._string,
    "heredoc_template": Evaluator._heredoc,
    "heredoc_template_trim": Evaluator._heredoc,
    "conditional": Evaluator._conditional,
    "unary_op": Evaluator._unary,
    "binary_op": Evaluator._binary,
    "get_attr_expr_term": Evaluator._traversal,
    "index_expr_term": Evaluator._traversal,
    "identifier": Evaluator._identifier,
    "attr_splat_expr_term": Evaluator._splat,
    "full_splat_expr_term": Evaluator._splat,
    "function_call": Evaluator._call,
    "for_tuple_expr": Evaluator._for_tuple,
    "for_object_expr": Evaluator._for_object,
}


# --- helpers -----------------------------------------------------------------------------------------


def _flatten(node: Node) -> tuple[Node, list[Node]]:
    """A traversal's root and its steps (``get_attr``, ``braces_index``, ``short_index``)."""
    steps: list[Node] = []
    current = node
    while True:
        if current.data == "expr_term":
            parts = subtrees(current)
            if len(parts) == 1 and len(current.children) == 1:
                current = parts[0]
                continue
            break
        if current.data in ("get_attr_expr_term", "index_expr_term"):
            inner, step = subtrees(current)
            steps.append(step)
            current = inner
            continue
        break
    steps.reverse()
    return current, steps


def _step_name(step: Node) -> str | None:
    if step.data != "get_attr":
        return None
    parts = subtrees(step)
    return str(parts[0].children[0]) if parts else None


def _quote(key: Any) -> str:
    if isinstance(key, str):
        return '"' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(key)
