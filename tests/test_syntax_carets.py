"""Syntax-error carets point at the character that cannot continue (issue 16, item 8): where the
lexer stopped a token short (``a//b``: it ends the path before the first '/'), the caret goes under
what cannot follow what was written, not under the first character it could not read."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from auditor.expr.condition import parse_condition
from auditor.expr.errors import ConditionSyntaxError, FilterSyntaxError
from auditor.expr.filter import parse_filter


def filter_error(text: str) -> FilterSyntaxError:
    with pytest.raises(FilterSyntaxError) as info:
        parse_filter(text)
    return info.value


def condition_error(text: str) -> ConditionSyntaxError:
    with pytest.raises(ConditionSyntaxError) as info:
        parse_condition(text)
    return info.value


@pytest.mark.parametrize(
    ("text", "column", "problem", "expected"),
    [
        ("a//b eq 1", 3, "unexpected '/' after 'a/' (a path has no empty member)", "a member name"),
        ("properties//eventType eq 'x'", 12, "after 'properties/'", "a member name"),
        ("a/b eq c//d", 10, "after 'c/'", "a member name"),
        ("t/any(r:r/x//y eq 1)", 13, "after 'r/x/'", "a member name"),
        ("properties/ eq 1", 12, "unexpected whitespace after 'properties/'", "a member name"),
        ("properties/", 12, "unexpected end of input after 'properties/'", "a member name"),
        ("a eq x/1", 8, "does not start with a digit", "a member name"),
        ("a eq 1.x", 8, "unexpected 'x' after '1.'", "a digit"),
        ("a eq 1e", 8, "unexpected end of input after '1e'", "a digit"),
        ("a eq 1.5e+ and b eq 2", 11, "unexpected whitespace after '1.5e+'", "a digit"),
    ],
)
def test_filter_caret_under_what_cannot_continue(
    text: str, column: int, problem: str, expected: str
) -> None:
    error = filter_error(text)
    assert (error.line, error.column) == (1, column)
    assert problem in error.problem
    assert error.expected == [expected]
    assert str(error).splitlines()[2] == "  " + " " * (column - 1) + "^"


@pytest.mark.parametrize(
    ("text", "column"),
    [
        ("a eq 'x'//b", 9),  # nothing continues a string: the first '/' is the culprit
        ("a eq 1/2", 7),  # nor a whole number
        ("a @ b", 3),
        ("a eq1", 3),
    ],
)
def test_filter_caret_stays_where_the_token_cannot_continue(text: str, column: int) -> None:
    assert filter_error(text).column == column


def test_filter_caret_on_a_later_line() -> None:
    error = filter_error("a eq 1 and\n  b//c eq 2")
    assert (error.line, error.column) == (2, 5)


_NAME = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True).filter(
    lambda s: s.lower() not in {"not", "true", "false", "null"}
)


@given(st.lists(_NAME, min_size=2, max_size=5), st.data())
def test_an_empty_path_member_is_pointed_at(names: list[str], data: st.DataObject) -> None:
    cut = data.draw(st.integers(1, len(names) - 1))
    head = "/".join(names[:cut])
    error = filter_error(f"{head}//{'/'.join(names[cut:])} eq 1")
    assert error.column == len(head) + 2  # the second '/'
    assert error.expected == ["a member name"]


@pytest.mark.parametrize(
    ("text", "column", "problem"),
    [
        (
            "@Resource[x] ForAnyOfAnyValues::StringEquals {'a'}",
            32,
            "unexpected character ':' after 'ForAnyOfAnyValues:'",
        ),
        (
            "@Resource[x] ForAnyOfAnyValue:StringEquals {'a'}",
            30,
            "unexpected character ':' after 'ForAnyOfAnyValue'",
        ),
        ("@Resource[x] Strin 'a'", 19, "unexpected character ' ' after 'Strin'"),
        ("@Resource[x] ForAllOfAllValues:Gu", 34, "unexpected end of the condition after"),
        ("@Resource[x StringEquals 'a'", 29, "the closing ']' is missing"),
        ("@Resource StringEquals 'a'", 10, "expected '[' after '@Resource'"),
        ("@[x] StringEquals 'a'", 2, "expected a source such as @Resource[...]"),
    ],
)
def test_condition_caret_under_what_cannot_continue(text: str, column: int, problem: str) -> None:
    error = condition_error(text)
    assert (error.line, error.column) == (1, column)
    assert problem in error.problem


def test_condition_unclosed_attribute_points_at_the_line_end() -> None:
    error = condition_error("@Resource[a] StringEquals 'x'\nAND @Resource[b\n] StringEquals 'y'")
    assert (error.line, error.column) == (2, len("AND @Resource[b") + 1)
    assert "malformed attribute" in error.problem


def test_condition_carets_that_were_right_stay() -> None:
    assert condition_error("@Resource[x] Equals 'a'").column == 14  # no operator begins with E
    assert condition_error("@Resource[x] StringEquals 'a").column == 27  # the opening quote
    assert condition_error("ActionMatches{'a'} AND AND").column == 24
