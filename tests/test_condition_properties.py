"""Properties of the condition language: printing round-trips over generated trees, no exception
but ConditionSyntaxError escapes the parser for any text, and evaluation obeys the laws of logic
(concretely and three-valued, where a decided answer is never contradicted by real attributes)."""

from __future__ import annotations

import string
from typing import Any

from hypothesis import assume, example, given
from hypothesis import strategies as st

from auditor.expr.condition import (
    MAX_BYTES,
    MAX_DEPTH,
    SOURCES,
    ActionMatches,
    And,
    Attribute,
    BoolValue,
    Comparison,
    Condition,
    ConditionRequest,
    ConditionSyntaxError,
    CrossProduct,
    Exists,
    Family,
    GuidValue,
    IntValue,
    ListValue,
    Not,
    Op,
    Operand,
    Or,
    Scalar,
    StrValue,
    SubOperationMatches,
    attributes_read,
    compile_condition,
    parse_condition,
    print_condition,
    utf8_size,
)

from .test_condition_vendor import EXAMPLES

# ------------------------------------------------------------------------------- strategies

INT64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)


@st.composite
def datetimes_text(draw: st.DrawFn) -> str:
    moment = draw(st.datetimes())
    digits = draw(st.integers(min_value=0, max_value=9))
    fraction = (
        "." + "".join(draw(st.sampled_from(string.digits)) for _ in range(digits)) if digits else ""
    )
    zone = draw(st.sampled_from(["Z", "", "+02:00", "-05:30", "z"]))
    stamp = f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}T"
    stamp += f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}"
    return stamp + fraction + zone


def literals(family: Family) -> st.SearchStrategy[Scalar]:
    if family is Family.STRING:
        return st.text(max_size=12).map(StrValue)
    if family is Family.NUMERIC:
        return INT64.map(IntValue)
    if family is Family.DATETIME:
        return datetimes_text().map(StrValue)
    if family is Family.GUID:
        return st.uuids().flatmap(
            lambda u: st.sampled_from(
                [
                    GuidValue(str(u)),
                    GuidValue(str(u).upper()),
                    StrValue(str(u)),
                    StrValue("{" + str(u) + "}"),
                ]
            )
        )
    return st.booleans().map(BoolValue)


attribute_names = st.text(
    alphabet=st.characters(blacklist_characters="]\r\n", blacklist_categories=("Cs",)),
    min_size=1,
    max_size=30,
).filter(lambda name: name.strip() != "")
attributes = st.builds(Attribute, st.sampled_from(SOURCES), attribute_names)


@st.composite
def comparisons(draw: st.DrawFn, attrs: st.SearchStrategy[Attribute] = attributes) -> Comparison:
    op = draw(st.sampled_from(list(Op)))
    cross = (
        draw(st.none() | st.sampled_from(list(CrossProduct))) if op.accepts_cross_product else None
    )
    scalar = literals(op.family)

    def operand() -> Operand:
        kind = draw(st.sampled_from(["attribute", "scalar", "list"]))
        if kind == "attribute":
            return draw(attrs)
        if kind == "list":
            size = draw(st.integers(min_value=1, max_value=4 if cross else 1))
            return ListValue(tuple(draw(scalar) for _ in range(size)))
        return draw(scalar)

    return Comparison(operand(), op, operand(), cross)


def trees(
    leaves: st.SearchStrategy[Condition], max_leaves: int = 8
) -> st.SearchStrategy[Condition]:
    def extend(children: st.SearchStrategy[Condition]) -> st.SearchStrategy[Condition]:
        many = st.lists(children, min_size=2, max_size=4).map(tuple)
        return st.one_of(many.map(And), many.map(Or), children.map(Not))

    return st.recursive(leaves, extend, max_leaves=max_leaves)


any_leaf: st.SearchStrategy[Condition] = st.one_of(
    comparisons(),
    attributes.map(Exists),
    st.text(max_size=15).map(ActionMatches),
    st.text(max_size=15).map(SubOperationMatches),
)


def depth(node: Condition) -> int:
    if isinstance(node, And | Or):
        return 1 + max(depth(child) for child in node.operands)
    if isinstance(node, Not):
        return 1 + depth(node.operand)
    return 0


# ----------------------------------------------------------------------------- round trips


@given(trees(any_leaf))
def test_print_then_parse_is_identity(tree: Condition) -> None:
    assume(depth(tree) < MAX_DEPTH)
    text = print_condition(tree)
    assume(utf8_size(text) <= MAX_BYTES)
    assert parse_condition(text) == tree
    assert print_condition(parse_condition(text)) == text


# ------------------------------------------------------------------------------------ fuzzing

FRAGMENTS = [
    "(", ")", "!", "NOT ", " AND ", " OR ", "&&", "||", "{", "}", ",", "'", "''", "@", "[", "]",
    "@Resource[", "@Request[x]", "@Environment[UtcNow]", " StringEquals ", " ForAnyOfAnyValues:",
    "GuidEquals", " NumericLessThan ", "Exists ", "ActionMatches{", "SubOperationMatches", "true",
    "12338af0-0e69-4776-bea7-57ae8d297424", "-", "9" * 30, "'2023-01-01T00:00:00Z'", "\n", "\t",
    "\r", "\u2028", "\x00", "\ud800", "é", "<$key_case_sensitive$>", "&$keys$&", ":", "*", "\\",
]  # fmt: skip


def _check_text(text: str) -> None:
    try:
        tree = parse_condition(text)
    except ConditionSyntaxError as error:
        assert error.line >= 1 and error.column >= 1
        assert error.problem
        str(error)  # renders
        return
    printed = print_condition(tree)
    assert parse_condition(printed) == tree


@given(st.text(max_size=200))
@example("")
@example("(" * 5000)
@example("!" * 9000)
@example("@Resource[x] NumericEquals " + "1" * 6000)
def test_random_text_raises_only_syntax_errors(text: str) -> None:
    _check_text(text)


@st.composite
def mutated_conditions(draw: st.DrawFn) -> str:
    base = draw(
        st.sampled_from([example.text for example in EXAMPLES])
        | trees(any_leaf, max_leaves=4).map(print_condition)
    )
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        position = draw(st.integers(min_value=0, max_value=len(base)))
        action = draw(st.sampled_from(["insert", "delete", "replace", "duplicate"]))
        piece = draw(st.sampled_from(FRAGMENTS) | st.text(max_size=3))
        length = draw(st.integers(min_value=1, max_value=20))
        if action == "insert":
            base = base[:position] + piece + base[position:]
        elif action == "delete":
            base = base[:position] + base[position + length :]
        elif action == "replace":
            base = base[:position] + piece + base[position + length :]
        else:
            base = (
                base[:position] + base[position : position + length] * 2 + base[position + length :]
            )
    return base


@given(mutated_conditions())
def test_mutated_conditions_raise_only_syntax_errors(text: str) -> None:
    _check_text(text)


# --------------------------------------------------------------------------------- evaluation

POOL = [Attribute("Resource", "x"), Attribute("Request", "y"), Attribute("Principal", "Id:z")]
ACTIONS = ["a/b", "a/c/d", "B/x/C", "q"]
PATTERNS = ["a/*", "a/b", "*", "b/*/c", "*/d"]
SUBS = [None, "s1", "S1", "s2"]

eval_leaf: st.SearchStrategy[Condition] = st.one_of(
    comparisons(st.sampled_from(POOL)),
    st.sampled_from(POOL).map(Exists),
    st.sampled_from(PATTERNS).map(ActionMatches),
    st.sampled_from(["s1", "s2"]).map(SubOperationMatches),
)
eval_trees = trees(eval_leaf, max_leaves=6)

raw_scalars = st.one_of(
    st.sampled_from(
        ["a", "A", "", "2023-01-01T00:00:00Z", "12338af0-0e69-4776-bea7-57ae8d297424", "true"]
    ),
    st.text(max_size=4),
    st.integers(min_value=-3, max_value=3),
    st.booleans(),
)
attribute_values = st.one_of(raw_scalars, st.lists(raw_scalars, max_size=3))
concrete_attributes = st.dictionaries(
    st.sampled_from([attr.key for attr in POOL]), attribute_values | st.none(), max_size=3
)


@st.composite
def requests(draw: st.DrawFn, known: bool | None = None) -> ConditionRequest:
    known = draw(st.booleans()) if known is None else known
    attributes: dict[str, Any] | None = draw(concrete_attributes) if known else None
    return ConditionRequest(draw(st.sampled_from(ACTIONS)), draw(st.sampled_from(SUBS)), attributes)


def run(tree: Condition, request: ConditionRequest) -> bool | None:
    return compile_condition(tree)(request)


@given(eval_trees, requests(known=True))
def test_concrete_evaluation_is_two_valued(tree: Condition, request: ConditionRequest) -> None:
    assert run(tree, request) in (True, False)


@given(eval_trees, requests())
def test_double_negation(tree: Condition, request: ConditionRequest) -> None:
    assert run(Not(Not(tree)), request) is run(tree, request)


@given(eval_trees, eval_trees, requests())
def test_de_morgan(p: Condition, q: Condition, request: ConditionRequest) -> None:
    assert run(Not(And((p, q))), request) is run(Or((Not(p), Not(q))), request)
    assert run(Not(Or((p, q))), request) is run(And((Not(p), Not(q))), request)


@given(eval_trees, requests())
def test_not_inverts(tree: Condition, request: ConditionRequest) -> None:
    value = run(tree, request)
    assert run(Not(tree), request) is (None if value is None else not value)


@given(eval_trees, requests(known=False), concrete_attributes)
def test_three_valued_decisions_are_sound(
    tree: Condition, request: ConditionRequest, attributes: dict[str, Any]
) -> None:
    decided = run(tree, request)
    concrete = run(tree, ConditionRequest(request.action, request.sub_operation, attributes))
    if decided is not None:
        assert concrete is decided


@given(eval_trees, requests(known=False))
def test_three_valued_none_only_when_attributes_are_read(
    tree: Condition, request: ConditionRequest
) -> None:
    if not attributes_read(tree):
        assert run(tree, request) is not None


@given(eval_trees, requests(known=False))
def test_tautology_and_contradiction_on_one_tree_are_decided(
    tree: Condition, request: ConditionRequest
) -> None:
    assume(depth(tree) < 8)
    assert run(Or((tree, Not(tree))), request) is True
    assert run(And((tree, Not(tree))), request) is False
