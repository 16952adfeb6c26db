"""Hypothesis strategies shared by the tests of ``auditor.expr.filter`` (ASTs and records); no tests."""

from __future__ import annotations

import string
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

from hypothesis import strategies as st

from auditor.expr.filter import (
    And,
    BoolLit,
    Call,
    Compare,
    DateTimeLit,
    DecimalLit,
    Expr,
    GuidLit,
    In,
    IntLit,
    Lambda,
    Member,
    Not,
    NullLit,
    Or,
    StringLit,
)

RESERVED = {"true", "false", "null", "not"}

# Names that collide with keywords in interesting ways, plus ordinary ones.
TRICKY_NAMES = [
    "eq",
    "and",
    "or",
    "in",
    "any",
    "all",
    "notes",
    "nullable",
    "allowedValues",
    "order",
    "android",
    "inside",
    "equals",
    "trueValue",
    "falsey",
    "Not_",
    "_x",
    "NOTES",
]

names = st.one_of(
    st.sampled_from(["a", "b", "c", "name", "tags", "x", *TRICKY_NAMES]),
    st.text(string.ascii_letters + "_", min_size=1, max_size=6),
    st.builds(
        lambda head, tail: head + tail,
        st.text(string.ascii_letters + "_", min_size=1, max_size=3),
        st.text(string.ascii_letters + string.digits + "_", max_size=4),
    ),
).filter(lambda name: name.lower() not in RESERVED)

paths = st.lists(names, min_size=1, max_size=4).map(tuple)
members = paths.map(Member)

strings = st.text(max_size=12)
literals = st.one_of(
    strings.map(StringLit),
    st.integers(-(10**30), 10**30).map(IntLit),
    st.integers(0, 6)
    .flatmap(
        lambda places: st.decimals(
            min_value=-(10**9),
            max_value=10**9,
            allow_nan=False,
            allow_infinity=False,
            places=places,
        )
    )
    .map(DecimalLit),
    st.decimals(allow_nan=False, allow_infinity=False, min_value=-1000, max_value=1000)
    .map(lambda d: d.scaleb(7))
    .filter(lambda d: len(str(d)) < 40)
    .map(DecimalLit),
    st.booleans().map(BoolLit),
    st.just(NullLit()),
    st.uuids().map(lambda u: GuidLit(str(u))),
    st.builds(
        lambda moment, minutes: DateTimeLit(
            moment.replace(tzinfo=timezone(timedelta(minutes=minutes)))
        ),
        st.datetimes(min_value=datetime(1000, 1, 1), max_value=datetime(9998, 12, 31)),
        st.sampled_from([0, 0, 60, -300, 330, 765, -720]),
    ),
)


def _string_function(children: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
    return st.builds(
        lambda name, a, b: Call(name, (a, b)),
        st.sampled_from(["contains", "startswith", "endswith"]),
        children,
        children,
    )


values: st.SearchStrategy[Expr] = st.recursive(
    st.one_of(literals, members),
    lambda inner: st.builds(
        lambda name, arg: Call(name, (arg,)), st.sampled_from(["tolower", "toupper"]), inner
    ),
    max_leaves=3,
)


def _conditions(inner: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
    operand = st.one_of(values, inner)
    return st.one_of(
        st.builds(Compare, st.sampled_from(["eq", "ne", "gt", "ge", "lt", "le"]), operand, operand),
        st.builds(In, operand, st.lists(literals, min_size=1, max_size=4).map(tuple)),
        st.builds(Not, inner),
        st.lists(inner, min_size=2, max_size=3).map(lambda items: And(tuple(items))),
        st.lists(inner, min_size=2, max_size=3).map(lambda items: Or(tuple(items))),
        _string_function(operand),
        st.builds(
            lambda collection, op, variable, predicate: Lambda(collection, op, variable, predicate),
            members,
            st.sampled_from(["any", "all"]),
            names,
            inner,
        ),
        members.map(lambda collection: Lambda(collection, "any")),
    )


conditions: st.SearchStrategy[Expr] = st.recursive(
    st.one_of(st.booleans().map(BoolLit), members),
    _conditions,
    max_leaves=10,
)
"""Well-formed filter ASTs (anything the parser could produce, except the endpoint functions)."""

endpoint_calls = st.one_of(
    st.just(Call("atScope")),
    st.uuids().map(lambda u: Call("assignedTo", (StringLit(str(u)),))),
)
any_filter = st.one_of(conditions, endpoint_calls)


# --- records ----------------------------------------------------------------------------------------

RECORD_KEYS = ["a", "A", "b", "B", "c", "name", "Name", "tags", "x", "X", "notes"]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(-5, 5, allow_nan=False),
    st.sampled_from(["", "a", "A", "b", "abc", "xyz", "ABC"]),
    st.sampled_from(
        [
            "8e3af657-a8ff-443c-a75c-2fe8c4bcb635",
            "8E3AF657-A8FF-443C-A75C-2FE8C4BCB635",
            "2024-01-01T00:00:00Z",
            "2024-01-01T01:00:00+01:00",
            "2025-06-30T12:00:00",
        ]
    ),
)

records: st.SearchStrategy[Any] = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(RECORD_KEYS), inner, max_size=4),
    ),
    max_leaves=12,
)


small_literals: st.SearchStrategy[Expr] = st.one_of(
    st.sampled_from(["a", "A", "abc", "", "xyz"]).map(StringLit),
    st.sampled_from(["8E3AF657-A8FF-443C-A75C-2FE8C4BCB635", "2024-01-01T00:00:00Z"]).map(
        StringLit
    ),
    st.integers(-5, 5).map(IntLit),
    st.booleans().map(BoolLit),
    st.just(NullLit()),
    st.just(GuidLit("8e3af657-a8ff-443c-a75c-2fe8c4bcb635")),
    st.just(DateTimeLit(datetime(2024, 1, 1, tzinfo=UTC))),
    st.just(DecimalLit(Decimal("2.5"))),
)
"""Literals likely to meet the values of :data:`records`."""


def member_literal_conditions(
    paths_: st.SearchStrategy[tuple[str, ...]],
) -> st.SearchStrategy[Expr]:
    """Conditions over members drawn from ``paths_`` against small literals (useful matches)."""
    small = small_literals
    member = paths_.map(Member)
    leaf = st.one_of(
        st.builds(Compare, st.sampled_from(["eq", "ne", "gt", "ge", "lt", "le"]), member, small),
        st.builds(Compare, st.sampled_from(["eq", "ne", "gt", "lt"]), small, member),
        st.builds(In, member, st.lists(small, min_size=1, max_size=3).map(tuple)),
        member,
        st.builds(
            lambda m, s: Call("contains", (m, s)),
            member,
            st.sampled_from(["a", "b", ""]).map(StringLit),
        ),
        st.builds(
            lambda m, s: Compare("eq", Call("tolower", (m,)), s),
            member,
            st.sampled_from(["a", "abc"]).map(StringLit),
        ),
    )
    return st.recursive(
        leaf,
        lambda inner: st.one_of(
            st.builds(Not, inner),
            st.lists(inner, min_size=2, max_size=3).map(lambda items: And(tuple(items))),
            st.lists(inner, min_size=2, max_size=3).map(lambda items: Or(tuple(items))),
            st.builds(
                lambda collection, op, predicate: Lambda(collection, op, "x", predicate),
                member,
                st.sampled_from(["any", "all"]),
                _lambda_body(small),
            ),
        ),
        max_leaves=6,
    )


def _lambda_body(small: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
    element = st.one_of(
        st.just(Member(("x",))),
        st.sampled_from(RECORD_KEYS).map(lambda key: Member(("x", key))),
    )
    leaf = st.builds(Compare, st.sampled_from(["eq", "ne", "gt"]), element, small)
    return st.one_of(
        leaf,
        st.lists(leaf, min_size=2, max_size=2).map(lambda items: And(tuple(items))),
    )


record_paths = st.lists(
    st.sampled_from(["a", "b", "c", "name", "x", "tags"]), min_size=1, max_size=3
)
