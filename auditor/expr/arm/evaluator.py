"""Evaluating template expressions, and whole template values, against an :class:`ArmContext`.

- :func:`evaluate` one expression (a parsed tree, or a JSON string value ``"[...]"``);
- :func:`evaluate_value` a JSON value: every string that is an expression is evaluated, every other
  string is a literal (``"[[x]"`` is ``"[x]"``), objects and arrays are walked, and a ``copy`` member
  that declares property loops (``"copy": [{"name", "count", "input"}]``) is expanded into the
  arrays it describes, as the vendor's engine does;
- :func:`validate_expressions` parses every expression of a JSON value, raising the first syntax
  error with its JSON path.

Evaluation never raises for an expression that parsed: a value that cannot be known is an
:class:`~auditor.expr.arm.values.Unknown` (with the reason and its kind), and so is a value the
expression cannot have (an index out of range, a property that does not exist: kind ``ERROR``), so a
caller turns each into a finding-level ``unknown`` with the reason. Unknowns propagate: a function
with an unknown argument has an unknown result, except where the result is decided anyway
(``if(true(), 'a', x)``, ``coalesce(null(), 'x', y)``, ``and(false(), x)``, ``or(true(), x)``).
Syntax errors (in the value being walked, or in a default or variable it reaches) raise
:class:`~auditor.expr.arm.parser.ArmSyntaxError` naming the JSON path; the text is hidden when the
path looks like a secret's.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from auditor.expr.arm.ast import Call, Expr, Index, IntLit, Property, StrLit
from auditor.expr.arm.context import ArmContext
from auditor.expr.arm.functions import (
    Lambda,
    Problem,
    PropagateUnknown,
    holds_lambda,
    lookup,
    member,
    named,
    secret_reference,
)
from auditor.expr.arm.parser import (
    ArmSyntaxError,
    is_expression,
    literal_value,
    parse_template_string,
)
from auditor.expr.arm.printer import print_expression, print_template_string
from auditor.expr.arm.values import MAX_ITEMS, MAX_NESTING, MAX_STRING, Unknown, UnknownKind

__all__ = [
    "MAX_CALLS",
    "MAX_COPY_COUNT",
    "MAX_EVALUATION_DEPTH",
    "MAX_PRODUCED",
    "evaluate",
    "evaluate_value",
    "validate_expressions",
]

#: Deepest nesting of evaluation (expressions within expressions, through variables, parameter
#: defaults, user-defined functions, lambdas and nested JSON) before the value is an unknown.
MAX_EVALUATION_DEPTH = 120
#: Most iterations of one copy loop (the vendor's limit).
MAX_COPY_COUNT = 800
#: Function calls one entry point may make (a few seconds at most); real templates make
#: thousands. Past this, calls evaluate to unknown.
MAX_CALLS = 250_000
#: Characters and elements the calls of one entry point may produce in all.
MAX_PRODUCED = 50_000_000

_ERROR = UnknownKind.ERROR
# Besides the project's secret keys: anything named like a key, credential, certificate or connection
# string (a syntax error under such a name does not show the text; hiding too much is harmless).
_SECRETISH = re.compile(
    r"key$|keys$|credential|certificate|connectionstring|pwd$|passphrase", re.IGNORECASE
)


def _looks_secret(key: str) -> bool:
    # imported here: the model package is heavy, and most keys are decided by the pattern above
    from auditor.model.secrets import is_secret_key

    return bool(_SECRETISH.search(key)) or is_secret_key(key)


def evaluate(expression: Expr | str, context: ArmContext | None = None) -> Any:
    """The value of one expression: a parsed tree, or a JSON string value (``"[...]"`` is parsed
    and evaluated, any other string is the literal it stands for).

    Raises :class:`ArmSyntaxError` for a string that does not parse; never raises otherwise.
    """
    context = context or ArmContext()
    if isinstance(expression, str):
        if not is_expression(expression):
            return literal_value(expression)
        text = expression
        tree = parse_template_string(expression)
    else:
        tree = expression
        text = print_template_string(expression)
    value = _Evaluation(context, 0, [MAX_CALLS, MAX_PRODUCED]).top(tree)
    return _stamp(value, text)


def evaluate_value(
    value: Any,
    context: ArmContext | None = None,
    *,
    path: str = "",
    source: str | None = None,
) -> Any:
    """``value`` (JSON) with every expression in it evaluated; see the module's description.

    ``path`` is the JSON path of ``value`` in its file and ``source`` the file's name: both are
    named by a syntax error. Raises :class:`ArmSyntaxError` only.
    """
    context = context or ArmContext()
    return _Evaluation(context, 0, [MAX_CALLS, MAX_PRODUCED]).walk(
        value, path, source, _secret_path(path)
    )


def validate_expressions(value: Any, *, path: str = "", source: str | None = None) -> int:
    """Parse every template expression in ``value``; raise the first :class:`ArmSyntaxError`
    (naming its JSON path). Returns how many expressions there are."""
    count = 0
    stack: list[tuple[Any, str, bool]] = [(value, path, _secret_path(path))]
    while stack:
        node, where, secret = stack.pop()
        if isinstance(node, str):
            if is_expression(node):
                _parse(node, where, source, secret)
                count += 1
        elif isinstance(node, dict):
            for key, item in reversed(node.items()):
                stack.append((item, _join(where, key), secret or _looks_secret(str(key))))
        elif isinstance(node, list):
            for position in range(len(node) - 1, -1, -1):
                stack.append((node[position], f"{where}[{position}]", secret))
    return count


# --------------------------------------------------------------------------------------- internals


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else str(key)


def _secret_path(path: str) -> bool:
    parts = path.replace("[", ".").split(".")
    return any(part and _looks_secret(part) for part in parts)


def _parse(text: str, path: str, source: str | None, secret: bool) -> Expr:
    try:
        return parse_template_string(text)
    except ArmSyntaxError as error:
        raise error.at(source=source, location=path or None, redacted=secret) from None


def _stamp(value: Any, text: str, depth: int = 0) -> Any:
    """``value`` with ``text`` as the expression of every unknown in it that has none yet (a new
    structure where something changes; shared values are never modified)."""
    if isinstance(value, Unknown):
        return replace(value, expression=text) if not value.expression else value
    if depth > MAX_NESTING:
        return value
    if isinstance(value, list):
        items = [_stamp(item, text, depth + 1) for item in value]
        return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
    if isinstance(value, dict):
        members = {key: _stamp(item, text, depth + 1) for key, item in value.items()}
        changed = any(members[key] is not item for key, item in value.items())
        return members if changed else value
    return value


class _Evaluation:
    """One evaluation: a context, the depth reached, and the lambda variables in scope."""

    __slots__ = ("_bindings", "_budget", "_context", "_depth")

    def __init__(
        self,
        context: ArmContext,
        depth: int,
        budget: list[int],
        bindings: tuple[tuple[str, Any], ...] = (),
    ) -> None:
        self._context = context
        self._depth = depth
        # calls and characters left, shared by every evaluation of one entry point
        self._budget = budget
        self._bindings = bindings

    @property
    def context(self) -> ArmContext:
        return self._context

    # -- entry points

    def top(self, tree: Expr) -> Any:
        try:
            value = self.evaluate(tree)
        except RecursionError:
            return _unknown(tree, "the expression is nested too deeply to evaluate", _ERROR)
        if holds_lambda(value):
            return _unknown(
                tree, "a lambda is not a value (only an argument of map() and the like)", _ERROR
            )
        return value

    def walk(self, value: Any, path: str, source: str | None, secret: bool) -> Any:
        """Evaluate every expression in a JSON value (see :func:`evaluate_value`)."""
        if isinstance(value, str):
            if not is_expression(value):
                return literal_value(value)
            tree = _parse(value, path, source, secret)
            return _stamp(self.top(tree), value)
        if not isinstance(value, list | dict):
            return value
        child = self.nested()
        if child is None:
            return _too_deep(path)
        if isinstance(value, list):
            return [
                child.walk(item, f"{path}[{position}]", source, secret)
                for position, item in enumerate(value)
            ]
        result: dict[str, Any] = {}
        for key, item in value.items():
            where = _join(path, key)
            hidden = secret or _looks_secret(str(key))
            if str(key).lower() == "copy" and _is_property_loops(item):
                result.update(child.property_loops(item, where, source, hidden))
            else:
                result[key] = child.walk(item, where, source, hidden)
        return result

    def nested(self) -> _Evaluation | None:
        """The evaluation one level of JSON deeper (``None`` past the depth limit)."""
        if self._depth + 1 >= MAX_EVALUATION_DEPTH:
            return None
        return _Evaluation(self._context, self._depth + 1, self._budget, self._bindings)

    # -- expressions

    def evaluate(self, node: Expr) -> Any:
        if self._depth >= MAX_EVALUATION_DEPTH:
            return _unknown(
                node,
                "the expression is nested too deeply (through variables, parameters, functions "
                "or lambdas) to evaluate",
                _ERROR,
            )
        self._depth += 1
        try:
            if isinstance(node, StrLit | IntLit):
                return node.value
            if isinstance(node, Call):
                return self._call(node)
            return self._access(node)
        finally:
            self._depth -= 1

    def _access(self, node: Property | Index) -> Any:
        target = self.evaluate(node.target)
        if isinstance(target, Unknown):
            return target
        key: Any
        if isinstance(node, Property):
            key, literal = node.name, True
        else:
            key, literal = self.evaluate(node.index), isinstance(node.index, StrLit)
            if isinstance(key, Unknown):
                return key
        try:
            value = member(target, key, quote=literal)
        except Problem as problem:
            return _unknown(node, problem.reason, problem.kind)
        if isinstance(value, Unknown) and not value.origin:
            return replace(value, origin=print_expression(node))
        return value

    def _call(self, call: Call) -> Any:
        if self._budget[0] <= 0:
            return _unknown(call, f"the evaluation makes more than {MAX_CALLS} calls", _ERROR)
        if self._budget[1] <= 0:
            return _unknown(
                call, f"the evaluation produces more than {MAX_PRODUCED} characters", _ERROR
            )
        self._budget[0] -= 1
        function = lookup(call.key)
        try:
            if function is None:
                return self._other_call(call)
            count = len(call.args)
            if count < function.min_args or (
                function.max_args is not None and count > function.max_args
            ):
                raise Problem(
                    f"{call.name}() {_arity(function.min_args, function.max_args)}, got {count}"
                )
            if function.lazy:
                result = function.impl(self, call, call.args)
            else:
                args = [self.evaluate(arg) for arg in call.args]
                if not function.takes_unknown:
                    for arg in args:
                        if isinstance(arg, Unknown):
                            return arg
                result = function.impl(self, call, args)
        except Problem as problem:
            return _unknown(call, problem.reason, problem.kind)
        except PropagateUnknown as signal:
            result = signal.unknown
        if isinstance(result, Unknown):
            return result if result.origin else replace(result, origin=print_expression(call))
        if isinstance(result, str | list | dict):
            size = len(result)
            self._budget[1] -= size
            if isinstance(result, str) and size > MAX_STRING:
                return _unknown(call, f"the result is over {MAX_STRING} characters", _ERROR)
            if not isinstance(result, str) and size > MAX_ITEMS:
                return _unknown(call, f"the result has over {MAX_ITEMS} elements", _ERROR)
        return result

    def _other_call(self, call: Call) -> Any:
        if "." in call.key:
            args = [self.evaluate(arg) for arg in call.args]
            for arg in args:
                if isinstance(arg, Unknown):
                    return arg
            return self.user_function(call, args)
        if call.key.startswith("list"):
            raise secret_reference(call)
        raise Problem(f"function '{call.name}' is not implemented", UnknownKind.NOT_IMPLEMENTED)

    # -- what functions ask for (see functions.Evaluation)

    def parameter(self, name: str, call: Call) -> Any:
        context = self._context
        given, value = context.given_parameter(name)
        if given:
            return value
        spec = context.declared_parameter(name)
        if spec is None and context.declares_parameters:
            raise Problem(f"parameter {named(call, 0, name)} is not declared in the template")
        if spec is not None and spec.has_default:
            path = _join(_join(context.path, "parameters"), spec.name) + ".defaultValue"
            secret = spec.secure or _looks_secret(spec.name)
            return self._resolve("parameter", spec.name, spec.default, path, secret=secret)
        if spec is not None and spec.nullable:
            return None
        if spec is not None and spec.secure:
            raise Problem(
                f"parameter '{spec.name}' has no value: a secure parameter, a reference to a secret "
                "given at deployment",
                UnknownKind.SECRET_REFERENCE,
            )
        raise Problem(f"parameter {named(call, 0, name)} has no value", UnknownKind.UNRESOLVED)

    def variable(self, name: str, call: Call) -> Any:
        context = self._context
        found = context.variable(name)
        if found is not None:
            declared, raw = found
            path = _join(_join(context.path, "variables"), declared)
            return self._resolve("variable", declared, raw, path, secret=_looks_secret(declared))
        loop = context.variable_loop(name)
        if loop is not None:
            declared, spec, path = loop
            return self._resolve(
                "variable", declared, spec, path, secret=_looks_secret(declared), loop=True
            )
        raise Problem(f"variable {named(call, 0, name)} is not declared in the template")

    def lambda_variable(self, name: str, call: Call) -> Any:
        folded = name.lower()
        for bound, value in reversed(self._bindings):
            if bound.lower() == folded:
                return value
        raise Problem(
            f"lambdaVariables() names {named(call, 0, name)}, which no enclosing lambda declares"
        )

    def bindings(self) -> tuple[tuple[str, Any], ...]:
        return self._bindings

    def apply(self, function: Lambda, args: list[Any]) -> Any:
        bindings = function.bindings + tuple(zip(function.names, args, strict=True))
        inner = _Evaluation(self._context, self._depth + 1, self._budget, bindings)
        return inner.evaluate(function.body)

    def user_function(self, call: Call, args: list[Any]) -> Any:
        found = self._context.user_function(call.key)
        if found is None:
            raise Problem(f"the user-defined function '{call.name}' is not defined in the template")
        declared, definition, path = found
        parameters = definition.get("parameters") if isinstance(definition, dict) else None
        output = definition.get("output") if isinstance(definition, dict) else None
        if not isinstance(output, dict) or "value" not in output:
            raise Problem(f"the user-defined function '{declared}' has no output value")
        names: list[str] = [
            p["name"]
            for p in parameters or []
            if isinstance(p, dict) and isinstance(p.get("name"), str)
        ]
        if len(names) != len(parameters or []):
            raise Problem(f"the user-defined function '{declared}' has malformed parameters")
        if len(names) != len(args):
            raise Problem(f"{declared}() expects {len(names)} argument(s), got {len(args)}")
        context = self._context.with_parameters(dict(zip(names, args, strict=True)))
        inner = _Evaluation(context, self._depth + 1, self._budget)
        return inner.walk(output["value"], f"{path}.output.value", context.source, False)

    # -- parameters' defaults and variables: evaluated once, in the template's own scope

    def _resolve(
        self, kind: str, name: str, raw: Any, path: str, *, secret: bool, loop: bool = False
    ) -> Any:
        root = self._context.root
        shared = root.shared
        cache = shared.parameters if kind == "parameter" else shared.variables
        key = name.lower()
        if key in cache:
            return cache[key]
        marker = f"{kind} '{name}'"
        if marker.lower() in (entry.lower() for entry in shared.resolving):
            start = [entry.lower() for entry in shared.resolving].index(marker.lower())
            cycle = " -> ".join([*shared.resolving[start:], marker])
            raise Problem(f"{marker} refers to itself ({cycle})")
        shared.resolving.append(marker)
        try:
            inner = _Evaluation(root, self._depth + 1, self._budget)
            if loop:
                value = inner.variable_loop(raw, path, root.source, secret)
            else:
                value = inner.walk(raw, path, root.source, secret)
        finally:
            shared.resolving.pop()
        cache[key] = value
        return value

    def variable_loop(
        self, spec: dict[str, Any], path: str, source: str | None, secret: bool
    ) -> Any:
        """The array a variable loop (``variables.copy[i]``) declares."""
        return self._loop_items(spec, path, source, secret)

    def property_loops(
        self, loops: list[dict[str, Any]], path: str, source: str | None, secret: bool
    ) -> dict[str, Any]:
        """The properties a ``copy`` member declares: one array per loop, named by the loop."""
        result: dict[str, Any] = {}
        for position, spec in enumerate(loops):
            result[spec["name"]] = self._loop_items(spec, f"{path}[{position}]", source, secret)
        return result

    def _loop_items(self, spec: dict[str, Any], path: str, source: str | None, secret: bool) -> Any:
        name = spec.get("name")
        count = self.walk(spec.get("count"), f"{path}.count", source, secret)
        if isinstance(count, Unknown):
            return count
        if (
            isinstance(count, bool)
            or not isinstance(count, int)
            or not 0 <= count <= MAX_COPY_COUNT
        ):
            return Unknown(
                "",
                f"the copy loop's count must be an integer from 0 to {MAX_COPY_COUNT}",
                _ERROR,
                origin=f"copy loop '{name}'",
            )
        items = []
        for index in range(count):
            context = self._context.with_copy(name if isinstance(name, str) else None, index)
            inner = _Evaluation(context, self._depth, self._budget, self._bindings)
            items.append(inner.walk(spec.get("input"), f"{path}.input", source, secret))
        return items


def _is_property_loops(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(
            isinstance(spec, dict) and isinstance(spec.get("name"), str) and "input" in spec
            for spec in value
        )
    )


def _arity(low: int, high: int | None) -> str:
    if high is None:
        return f"expects at least {low} argument(s)"
    if low == high:
        return f"expects {low} argument(s)"
    return f"expects {low} to {high} arguments"


def _unknown(node: Expr, reason: str, kind: UnknownKind) -> Unknown:
    return Unknown("", reason, kind, origin=print_expression(node))


def _too_deep(path: str) -> Unknown:
    return Unknown(
        "", "the value is nested too deeply to evaluate", _ERROR, origin=path or "the value"
    )
