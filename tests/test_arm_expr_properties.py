"""Properties of the ARM template expression language (issue 17, item 1): printing round-trips over
generated trees, no exception but ArmSyntaxError leaves the parser for any text, evaluation is total
and deterministic over generated expressions, and a value decided in spite of an unknown argument
is the value for every value that argument could take (unknown never hides a guess)."""

from __future__ import annotations

import string
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.expr.arm import (
    FUNCTIONS,
    ArmContext,
    ArmSyntaxError,
    Call,
    Deployment,
    Expr,
    Index,
    IntLit,
    Property,
    StrLit,
    Unknown,
    UnknownKind,
    evaluate,
    evaluate_value,
    find_unknown,
    is_expression,
    literal_value,
    parse_expression,
    parse_template_string,
    print_expression,
    print_template_string,
)

# ----------------------------------------------------------------------------------- strategies

IDENT = st.from_regex(r"\A[A-Za-z_$][A-Za-z0-9_$]{0,7}\Z")
NAMES = IDENT | st.builds(lambda a, b: f"{a}.{b}", IDENT, IDENT)
INT64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)
LITERALS: st.SearchStrategy[Expr] = st.builds(StrLit, st.text(max_size=10)) | st.builds(
    IntLit, INT64
)


def chains(arguments: st.SearchStrategy[Expr], names: st.SearchStrategy[str] = NAMES) -> Any:
    """A call, followed by up to three property accesses and indexes."""

    @st.composite
    def build(draw: st.DrawFn) -> Expr:
        node: Expr = Call(draw(names), tuple(draw(st.lists(arguments, max_size=3))))
        for _ in range(draw(st.integers(min_value=0, max_value=3))):
            if draw(st.booleans()):
                node = Property(node, draw(IDENT))
            else:
                node = Index(node, draw(arguments))
        return node

    return build()


EXPRESSIONS: st.SearchStrategy[Expr] = st.recursive(LITERALS, chains, max_leaves=12)
CHAINS = chains(EXPRESSIONS)


def redacted(node: Expr) -> Expr:
    if isinstance(node, StrLit):
        return StrLit("***")
    if isinstance(node, Call):
        args = tuple(redacted(arg) for arg in node.args)
        if (
            node.key in ("parameters", "variables")
            and node.args
            and isinstance(node.args[0], StrLit)
        ):
            args = (node.args[0], *args[1:])  # a name, kept
        return Call(node.name, args)
    if isinstance(node, Property):
        return Property(redacted(node.target), node.name)
    if isinstance(node, Index):
        return Index(redacted(node.target), redacted(node.index))
    return node


# ------------------------------------------------------------------------- printing and parsing


@given(CHAINS)
def test_print_then_parse_is_the_identity(tree: Expr) -> None:
    text = print_expression(tree)
    assert parse_expression(text) == tree
    assert parse_template_string(print_template_string(tree)) == tree
    assert print_expression(parse_expression(text)) == text


@given(CHAINS)
def test_redacted_printing_keeps_the_shape_and_hides_every_literal(tree: Expr) -> None:
    assert parse_expression(print_expression(tree, redact_strings=True)) == redacted(tree)


# The characters the language is made of, so that generated text reaches deep parser states.
LANGUAGE = st.text(alphabet="()[].,' \n-0123456789aAtrue$_xnull", max_size=40)


@given(st.one_of(st.text(max_size=40), LANGUAGE))
def test_the_parser_raises_only_syntax_errors(text: str) -> None:
    for candidate in (text, f"[{text}]"):
        try:
            tree = (
                parse_template_string(candidate)
                if is_expression(candidate)
                else parse_expression(candidate)
            )
        except ArmSyntaxError as error:
            lines = candidate.splitlines() or [""]
            assert 1 <= error.line <= len(lines)
            assert 1 <= error.column <= len(lines[error.line - 1]) + 1
            assert error.problem
        else:
            assert parse_expression(print_expression(tree)) == tree


@given(CHAINS, st.data())
def test_a_damaged_expression_fails_cleanly_or_parses(tree: Expr, data: st.DataObject) -> None:
    text = print_expression(tree)
    position = data.draw(st.integers(min_value=0, max_value=len(text)))
    damage = data.draw(st.sampled_from(["", "(", ")", "'", ",", ".", "[", "]", " ", "1"]))
    damaged = text[:position] + damage + text[position + 1 :]
    try:
        parse_expression(damaged)
    except ArmSyntaxError as error:
        assert error.line >= 1 and error.column >= 1


# -------------------------------------------------------------------------------- evaluation

# Functions whose value is neither known only at deployment nor a parameter or variable.
VOCABULARY = sorted(
    name
    for name, function in FUNCTIONS.items()
    if name not in {"parameters", "variables", "lambda", "lambdavariables"}
)
SMALL_INTS = st.integers(min_value=-3, max_value=12)
SMALL_LITERALS: st.SearchStrategy[Expr] = (
    st.builds(StrLit, st.sampled_from(["", "a", "A", "ab,c", "{0}-{1}", "x/y", "[]", "1", "true"]))
    | st.builds(IntLit, SMALL_INTS)
    | st.sampled_from([Call("true"), Call("false"), Call("null"), Call("createArray")])
)
HOLE = Call("parameters", (StrLit("h"),))


def small_calls(arguments: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
    """Calls of real functions (plus lambdas and the unknown hole) on smaller expressions."""
    real = st.builds(
        Call,
        st.sampled_from(VOCABULARY),
        st.lists(arguments, max_size=3).map(tuple),
    )
    lambdas = st.builds(
        lambda body: Call("lambda", (StrLit("v"), body)),
        arguments | st.just(Call("lambdaVariables", (StrLit("v"),))),
    )
    pairs = st.builds(
        lambda key, value: Call("createObject", (StrLit(key), value)),
        st.sampled_from(["a", "b", "A"]),
        arguments,
    )
    accessed = st.builds(Property, real | pairs, st.sampled_from(["a", "b", "length"])) | st.builds(
        Index, real, st.builds(IntLit, SMALL_INTS)
    )
    return real | lambdas | pairs | accessed


NO_HOLE = st.recursive(SMALL_LITERALS, small_calls, max_leaves=8)

# Shapes in which an argument may be decided without the unknown (or look as if it were).
DECIDERS = [
    "and({x}, {h})",
    "and({h}, {x})",
    "or({x}, {h})",
    "or({h}, {x}, {y})",
    "if({x}, {h}, {y})",
    "if({h}, {x}, {y})",
    "coalesce({x}, {h}, {y})",
    "equals({h}, {x})",
    "equals(createArray({h}), {x})",
    "equals(createObject('a', {h}), {x})",
    "length(createArray({h}, {x}))",
    "length(createObject('a', {h}, 'b', {x}))",
    "empty(createArray({h}))",
    "contains(createArray({x}, {h}), {y})",
    "contains({x}, {h})",
    "contains(createObject('a', {h}), {y})",
    "indexOf(createArray({x}, {h}), {y})",
    "lastIndexOf(createArray({h}, {x}), {y})",
    "first(createArray({x}, {h}))",
    "last(createArray({h}, {x}))",
    "take(createArray({x}, {h}), {n})",
    "skip(createArray({h}, {x}), {n})",
    "tryGet(createObject('a', {h}), {y})",
    "tryGet(createObject('a', {h}), 'a', {y})",
    "union(createObject('a', {h}), {x})",
    "union({x}, createObject('a', {h}))",
    "union(createArray({h}), {x})",
    "intersection(createArray({h}), {x})",
    "intersection({x}, createObject('a', {h}))",
    "shallowMerge(createArray(createObject('a', {h}), {x}))",
    "map(createArray({h}), lambda('v', {x}))",
    "filter(createArray({h}, {x}), lambda('v', {y}))",
    "reduce(createArray({h}), {x}, lambda('a', 'b', {y}))",
    "sort(createArray({h}, {x}), lambda('a', 'b', {y}))",
    "toObject(createArray({h}), lambda('v', 'k'), lambda('v', {x}))",
    "mapValues(createObject('a', {h}), lambda('v', {x}))",
    "objectKeys(createObject('a', {h}))",
    "items(createObject('a', {h}))",
    "string(createArray({h}))",
    "concat(createArray({h}), {x})",
    "createObject('a', {h}).{k}",
    "createArray({x}, {h})[{n}]",
    "flatten(createArray(createArray({h}), {x}))",
    "join(createArray({h}, {x}), ',')",
    "min(createArray({x}, {h}))",
    "format('{{0}}', {h})",
]
IDENTS = st.sampled_from(["a", "b", "A", "length"])


@st.composite
def deciders(draw: st.DrawFn) -> Expr:
    shape = draw(st.sampled_from(DECIDERS))
    text = shape.format(
        h=print_expression(HOLE),
        x=print_expression(draw(NO_HOLE)),
        y=print_expression(draw(NO_HOLE)),
        n=draw(SMALL_INTS),
        k=draw(IDENTS),
    )
    return parse_expression(text)


WITH_HOLE = st.recursive(SMALL_LITERALS | st.just(HOLE) | deciders(), small_calls, max_leaves=8)
SMALL_JSON = st.recursive(
    st.none() | st.booleans() | SMALL_INTS | st.sampled_from(["", "a", "A", "1", "x,y"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "A"]), inner, max_size=2)
    ),
    max_leaves=5,
)
SCOPE = Deployment(subscription_id="s", resource_group="g", location="l", name="d")


def top_level(tree: Expr) -> Expr:
    # an expression must be a call at the top; wrap literals so any tree can be evaluated
    return tree if isinstance(tree, Call | Property | Index) else Call("string", (tree,))


@settings(max_examples=300)
@given(NO_HOLE)
def test_evaluation_is_total_and_deterministic(tree: Expr) -> None:
    tree = top_level(tree)
    context = ArmContext(deployment=SCOPE)
    first = evaluate(tree, context)
    second = evaluate(tree, context)
    assert first == second
    if isinstance(first, Unknown):
        assert first.reason and first.origin
        assert first.expression == print_template_string(tree)
    assert _is_value(first)


def _is_value(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            assert all(isinstance(key, str) for key in item)
            stack.extend(item.values())
        elif not (item is None or isinstance(item, bool | int | float | str | Unknown)):
            return False
    return True


@settings(max_examples=400)
@given(deciders() | WITH_HOLE, st.lists(SMALL_JSON, min_size=1, max_size=4))
def test_a_value_decided_despite_an_unknown_is_never_a_guess(
    tree: Expr, substitutes: list[Any]
) -> None:
    tree = top_level(tree)
    unknown_hole = evaluate(tree, ArmContext(deployment=SCOPE))
    if find_unknown(unknown_hole) is not None:
        return  # not decided: nothing to check
    for substitute in substitutes:
        value = evaluate(tree, ArmContext(parameters={"h": substitute}, deployment=SCOPE))
        if isinstance(value, Unknown) and value.kind is UnknownKind.ERROR:
            continue  # that value would make the deployment fail: no other answer to give
        assert value == unknown_hole, (print_expression(tree), substitute)


@given(WITH_HOLE)
def test_an_unresolved_value_names_the_parameter_it_comes_from(tree: Expr) -> None:
    value = evaluate(top_level(tree), ArmContext(deployment=SCOPE))
    found = find_unknown(value)
    if found is not None and found.kind is UnknownKind.UNRESOLVED:
        # the hole is the only value not given here
        assert found.reason == "parameter 'h' has no value"
        assert found.origin == "parameters('h')"


# ----------------------------------------------------------------------------- whole JSON values

PLAIN_TEXT = st.text(max_size=8)
PLAIN_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | PLAIN_TEXT,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(alphabet=string.ascii_letters, max_size=5), inner, max_size=3)
    ),
    max_leaves=10,
)


def literal(value: Any) -> Any:
    if isinstance(value, str):
        return literal_value(value)
    if isinstance(value, list):
        return [literal(item) for item in value]
    if isinstance(value, dict):
        return {key: literal(item) for key, item in value.items()}
    return value


@given(PLAIN_JSON)
def test_values_without_expressions_are_their_literals(value: Any) -> None:
    def has_expression(item: Any) -> bool:
        if isinstance(item, str):
            return is_expression(item)
        if isinstance(item, list):
            return any(has_expression(x) for x in item)
        if isinstance(item, dict):
            return any(has_expression(x) for x in item.values()) or any(
                k.lower() == "copy" for k in item
            )
        return False

    if has_expression(value):
        return
    assert evaluate_value(value) == literal(value)


@given(CHAINS)
def test_escaped_expressions_stay_literal(tree: Expr) -> None:
    text = print_template_string(tree)
    assert evaluate_value({"v": "[" + text}) == {"v": text}


SECRET = "Zq9#s3cr3t#Zq9"


@settings(max_examples=300)
@given(deciders() | WITH_HOLE)
def test_no_reason_quotes_a_value(tree: Expr) -> None:
    # the hole holds a secret; reasons may name template text, never a computed value
    value = evaluate(top_level(tree), ArmContext(parameters={"h": SECRET}, deployment=SCOPE))
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Unknown):
            assert SECRET not in item.reason, (print_expression(tree), item.reason)
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
