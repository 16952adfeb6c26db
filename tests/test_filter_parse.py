"""Parsing and printing of OData ``$filter`` (semantics section 3): grammar, AST, errors, round trip."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from auditor.expr.errors import FilterSyntaxError
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
    parse_filter,
    print_filter,
)
from auditor.expr.filter.parser import (
    MAX_DEPTH,
    MAX_LENGTH,
    build_parser,
    expected_words,
    parse,
    parse_with,
)
from tests.test_filter_strategies import any_filter

CORPUS = Path(__file__).resolve().parent.parent / "benchmarks" / "data" / "filters.txt"


def m(path: str) -> Member:
    return Member(tuple(path.split("/")))


def s(value: str) -> StringLit:
    return StringLit(value)


def eq(path: str, value: Expr) -> Compare:
    return Compare("eq", m(path), value)


def syntax_error(text: str) -> FilterSyntaxError:
    with pytest.raises(FilterSyntaxError) as info:
        parse(text)
    return info.value


# --- the examples of semantics section 3 and seed 4.1, 4.2, 4.5, 4.6 --------------------------------

SPEC_EXAMPLES: list[tuple[str, Expr]] = [
    (
        "properties/eventType eq 'ServiceIssue' or properties/eventType eq 'SecurityAdvisory'",
        Or(
            (
                eq("properties/eventType", s("ServiceIssue")),
                eq("properties/eventType", s("SecurityAdvisory")),
            )
        ),
    ),
    (
        "properties/impact/impactedService eq 'Storage'",
        eq("properties/impact/impactedService", s("Storage")),
    ),
    ("atScope()", Call("atScope")),
    (
        "principalId eq '8e3af657-a8ff-443c-a75c-2fe8c4bcb635'",
        eq("principalId", s("8e3af657-a8ff-443c-a75c-2fe8c4bcb635")),
    ),
    (
        "principalId eq 8e3af657-a8ff-443c-a75c-2fe8c4bcb635",
        eq("principalId", GuidLit("8e3af657-a8ff-443c-a75c-2fe8c4bcb635")),
    ),
    ("assignedTo('abc')", Call("assignedTo", (s("abc"),))),
    (
        "atScope() and assignedTo('abc')",
        And((Call("atScope"), Call("assignedTo", (s("abc"),)))),
    ),
    ("denyAssignmentName eq 'Deny writes'", eq("denyAssignmentName", s("Deny writes"))),
    ("gdprExportPrincipalId eq 'p1'", eq("gdprExportPrincipalId", s("p1"))),
]


@pytest.mark.parametrize(("text", "expected"), SPEC_EXAMPLES)
def test_spec_examples_parse(text: str, expected: Expr) -> None:
    assert parse(text) == expected
    assert parse(print_filter(expected)) == expected


def test_every_construct_of_the_subset() -> None:
    text = (
        "not contains(tolower(a/b), 'x') and c in ('a', 1, 2.5, true, null) "
        "or d/any(x: x/e ge 2024-01-01T10:00:00Z) and f/all(y: startswith(y, 'p')) "
        "or endswith(toupper(g), 'Z') and h/any() or i ne 01234567-89ab-cdef-0123-456789abcdef"
    )
    node = parse(text)
    assert isinstance(node, Or)
    assert node == Or(
        (
            And(
                (
                    Not(Call("contains", (Call("tolower", (m("a/b"),)), s("x")))),
                    In(
                        m("c"),
                        (s("a"), IntLit(1), DecimalLit(Decimal("2.5")), BoolLit(True), NullLit()),
                    ),
                )
            ),
            And(
                (
                    Lambda(
                        m("d"),
                        "any",
                        "x",
                        Compare("ge", m("x/e"), DateTimeLit(datetime(2024, 1, 1, 10, tzinfo=UTC))),
                    ),
                    Lambda(m("f"), "all", "y", Call("startswith", (m("y"), s("p")))),
                )
            ),
            And((Call("endswith", (Call("toupper", (m("g"),)), s("Z"))), Lambda(m("h"), "any"))),
            Compare("ne", m("i"), GuidLit("01234567-89ab-cdef-0123-456789abcdef")),
        )
    )


def test_the_corpus_parses_and_round_trips() -> None:
    lines = [
        line
        for line in CORPUS.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert len(lines) >= 50
    for line in lines:
        node = parse(line)
        assert parse(print_filter(node)) == node


# --- precedence ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a or b and c", Or((m("a"), And((m("b"), m("c")))))),
        ("a and b or c", Or((And((m("a"), m("b"))), m("c")))),
        ("a or b or c", Or((m("a"), m("b"), m("c")))),
        ("a or (b or c)", Or((m("a"), Or((m("b"), m("c")))))),
        ("(a or b) and c", And((Or((m("a"), m("b"))), m("c")))),
        ("a eq 1 and b eq 2", And((eq("a", IntLit(1)), eq("b", IntLit(2))))),
        # `not` binds tighter than comparisons, `in` tighter than `not`
        ("not a eq b", Compare("eq", Not(m("a")), m("b"))),
        ("not (a eq b)", Not(eq("a", m("b")))),
        ("not a in (1, 2)", Not(In(m("a"), (IntLit(1), IntLit(2))))),
        ("not not a", Not(Not(m("a")))),
        ("not a and b", And((Not(m("a")), m("b")))),
        ("(a eq b) eq c", Compare("eq", eq("a", m("b")), m("c"))),
        ("a eq (b eq c)", Compare("eq", m("a"), eq("b", m("c")))),
        ("((a))", m("a")),
    ],
)
def test_precedence(text: str, expected: Expr) -> None:
    assert parse(text) == expected
    assert parse(print_filter(expected)) == expected


def test_comparisons_do_not_chain() -> None:
    error = syntax_error("a eq 1 eq 2")
    assert error.column == 8
    assert "chained" in error.problem


@pytest.mark.parametrize(
    ("node", "text"),
    [
        (Or((m("a"), And((m("b"), m("c"))))), "a or b and c"),
        (And((Or((m("a"), m("b"))), m("c"))), "(a or b) and c"),
        (Not(eq("a", m("b"))), "not (a eq b)"),
        (Compare("eq", Not(m("a")), m("b")), "not a eq b"),
        (In(Not(m("a")), (IntLit(1),)), "(not a) in (1)"),
        (Not(In(m("a"), (IntLit(1),))), "not a in (1)"),
        (eq("a", s("it's")), "a eq 'it''s'"),
        (eq("a", DecimalLit(Decimal("5"))), "a eq 5.0"),
        (eq("a", DecimalLit(Decimal("1E+3"))), "a eq 1E+3"),
        (eq("a", DateTimeLit(datetime(2024, 1, 1, tzinfo=UTC))), "a eq 2024-01-01T00:00:00Z"),
        (
            eq("a", DateTimeLit(datetime(2024, 1, 1, 0, 0, 0, 500000, tzinfo=UTC))),
            "a eq 2024-01-01T00:00:00.500Z",
        ),
        (
            eq("a", DateTimeLit(datetime(2024, 1, 1, tzinfo=timezone(timedelta(hours=2))))),
            "a eq 2024-01-01T00:00:00+02:00",
        ),
        (Lambda(m("t"), "any", "x", eq("x", s("a"))), "t/any(x: x eq 'a')"),
        (Call("atScope"), "atScope()"),
    ],
)
def test_canonical_text(node: Expr, text: str) -> None:
    assert print_filter(node) == text
    assert parse(text) == node


# --- keywords, identifiers, whitespace, literals ---------------------------------------------------


def test_keywords_and_function_names_are_case_insensitive() -> None:
    lower = parse("not a eq 'x' and b ne 1 or c in (true, null) or d/any(x: contains(x, 'y'))")
    upper = parse("NOT a EQ 'x' AND b Ne 1 Or c IN (TRUE, Null) OR d/ANY(x: CONTAINS(x, 'y'))")
    assert lower == upper
    assert parse("ATSCOPE() and AssignedTo('p')") == And(
        (Call("atScope"), Call("assignedTo", (s("p"),)))
    )


@pytest.mark.parametrize(
    "name",
    [
        "allowedValues",
        "nullable",
        "notes",
        "order",
        "android",
        "inside",
        "equals",
        "trueValue",
        "falsey",
        "nothing",
        "ANDROID",
        "eq",
        "and",
        "or",
        "in",
        "any",
        "all",
    ],
)
def test_identifiers_that_start_with_or_are_keywords(name: str) -> None:
    assert parse(f"{name} eq 1") == eq(name, IntLit(1))
    assert parse(f"x eq 1 and {name} eq 2") == And((eq("x", IntLit(1)), eq(name, IntLit(2))))
    assert parse(f"not {name}") == Not(m(name))
    assert parse(f"a/{name}/b eq {name}") == Compare("eq", m(f"a/{name}/b"), m(name))


@pytest.mark.parametrize(
    "text",
    ["a eq1", "a eq'x'", "a eq 'x'and b", "(a eq 1)and(b eq 2)", "a in('x')", "a or(b)", "1eq a"],
)
def test_whitespace_around_binary_keywords_is_required(text: str) -> None:
    error = syntax_error(text)
    assert error.line == 1


def test_a_eq1_names_the_glued_keyword() -> None:
    error = syntax_error("a eq1")
    assert error.column == 3
    assert "whitespace is required around 'eq'" in error.problem
    assert "a comparison operator such as eq" in error.expected


def test_whitespace_may_be_newlines_and_tabs() -> None:
    assert parse("a\teq\n'x'\r\nand\n\tb") == And((eq("a", s("x")), m("b")))
    assert parse("  a eq 1  ") == eq("a", IntLit(1))
    assert parse("not(a)") == Not(m("a"))
    assert parse("contains( a ,'x' )") == Call("contains", (m("a"), s("x")))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("''", ""),
        ("''''", "'"),
        ("'it''s'", "it's"),
        ("'a''''b'", "a''b"),
        ("'line\nbreak'", "line\nbreak"),
        ("'é and ✓'", "é and ✓"),
    ],
)
def test_quotes_in_strings_are_doubled(text: str, value: str) -> None:
    node = parse(f"a eq {text}")
    assert node == eq("a", s(value))
    assert print_filter(node) == f"a eq {text}"


@pytest.mark.parametrize(
    ("text", "literal"),
    [
        ("0", IntLit(0)),
        ("-17", IntLit(-17)),
        ("+3", IntLit(3)),
        ("2.50", DecimalLit(Decimal("2.5"))),
        ("-1e3", DecimalLit(Decimal("-1000"))),
        ("true", BoolLit(True)),
        ("False", BoolLit(False)),
        ("NULL", NullLit()),
        ("8E3AF657-A8FF-443C-A75C-2FE8C4BCB635", GuidLit("8e3af657-a8ff-443c-a75c-2fe8c4bcb635")),
        ("deadbeef-dead-beef-dead-beefdeadbeef", GuidLit("deadbeef-dead-beef-dead-beefdeadbeef")),
        ("2024-02-29T23:59:59Z", DateTimeLit(datetime(2024, 2, 29, 23, 59, 59, tzinfo=UTC))),
        ("2024-02-29T23:59", DateTimeLit(datetime(2024, 2, 29, 23, 59, tzinfo=UTC))),
        (
            "2024-02-29T23:59:59.1234567+05:30",
            DateTimeLit(
                datetime(2024, 2, 29, 23, 59, 59, 123456, tzinfo=timezone(timedelta(minutes=330)))
            ),
        ),
    ],
)
def test_literals(text: str, literal: Expr) -> None:
    assert parse(f"a eq {text}") == eq("a", literal)


def test_a_number_is_not_a_boolean() -> None:
    assert parse("a eq 1") != parse("a eq true")


# --- errors ----------------------------------------------------------------------------------------

RAW_TOKEN_NAME = re.compile(r"__ANON|\$END|\b(RPAR|LPAR|COMMA|COLON|CMP|PATH|NUMBER|STRING|GUID)\b")


def test_acceptance_example_caret_under_the_end() -> None:
    text = "properties/eventType eq 'ServiceIssue' or"
    error = syntax_error(text)
    assert (error.line, error.column) == (1, len(text) + 1)
    assert error.expected == ["a value"]
    rendered = str(error).splitlines()
    assert rendered[1] == f"  {text}"
    assert rendered[2] == "  " + " " * len(text) + "^"


@pytest.mark.parametrize(
    ("text", "column", "expected"),
    [
        ("a eq", 5, ["a value"]),
        (
            "(a eq 1",
            8,
            ["a comparison operator such as eq", "'and'", "'or'", "a closing parenthesis"],
        ),
        ("a in", 5, ["an opening parenthesis"]),
        ("a in ()", 7, ["a literal value"]),
        ("a in ('x' 'y')", 11, ["a comma", "a closing parenthesis"]),
        ("a eq 1)", 7, ["a comparison operator such as eq", "'and'", "'or'", "end of input"]),
        ("contains(a,", 12, ["a value"]),
        ("f(", 3, ["a value", "a closing parenthesis"]),
        ("", 1, ["a condition such as properties/status eq 'Active'"]),
    ],
)
def test_errors_point_at_the_token_and_say_what_was_expected(
    text: str, column: int, expected: list[str]
) -> None:
    error = syntax_error(text)
    assert error.column == column
    assert error.expected == expected
    assert not RAW_TOKEN_NAME.search(str(error))


@pytest.mark.parametrize(
    ("text", "column", "problem"),
    [
        ("a eq 'x", 6, "unterminated string"),
        ('a eq "x"', 6, "single quotes"),
        ("a == 1", 3, "operators are words"),
        ("a eq 1 && b", 8, "operators are words"),
        ("a @ b", 3, "unexpected character '@'"),
        ("foo(1)", 1, "unknown function foo()"),
        ("contains(a)", 1, "takes two arguments"),
        ("atScope(1)", 1, "takes no arguments"),
        ("assignedTo(a)", 12, "principal id in quotes"),
        ("any(x: x)", 1, "needs a collection"),
        ("t/all()", 3, "takes a lambda"),
        ("t/any(x/y: true)", 7, "single name"),
        ("contains(x: 1)", 10, "only any() and all()"),
        ("'x'", 1, "a string is not a condition"),
        ("a and 5", 7, "a number is not a condition"),
        ("tolower(a)", 1, "tolower() is not a condition"),
        ("not null", 5, "null is not a condition"),
        ("t/any(x: 'a')", 10, "not a condition"),
        ("a eq 2024-13-01T00:00:00Z", 6, "not a valid date-time"),
        ("a eq " + "9" * 65, 6, "too long"),
        ("   ", 1, "empty"),
    ],
)
def test_error_messages(text: str, column: int, problem: str) -> None:
    error = syntax_error(text)
    assert error.column == column
    assert problem in error.problem
    assert not RAW_TOKEN_NAME.search(str(error))


def test_errors_on_later_lines() -> None:
    error = syntax_error("a eq 1 and\n  b eq\n")
    assert (error.line, error.column) == (2, 7)
    assert str(error).splitlines()[1:] == ["    b eq", "        ^"]


def test_very_long_input_is_refused_in_words() -> None:
    error = syntax_error("a eq 1 or " * (MAX_LENGTH // 10 + 1))
    assert "too long" in error.problem
    assert len(str(error)) < 400


@pytest.mark.parametrize(
    "text",
    [
        "(" * 5000 + "a" + ")" * 5000,
        "not " * 3000 + "a",
        "(" * 100 + "a eq 1" + ")" * 100,
        "contains(" * 200 + "a" + ", 'x')" * 200,
        "t/any(x: " * 100 + "x" + ")" * 100,
        "a eq (" * 80 + "1" + ")" * 80,
        "(" * 5000,
        ")" * 5000,
    ],
)
def test_deep_nesting_is_a_syntax_error_not_a_crash(text: str) -> None:
    try:
        node = parse(text)
    except FilterSyntaxError as error:
        assert "nested too deeply" in error.problem or error.column >= 1
    else:  # redundant parentheses add no depth
        assert parse(print_filter(node)) == node


def test_nesting_limit() -> None:
    shallow = "not " * (MAX_DEPTH - 2) + "a"
    assert parse(shallow)
    error = syntax_error("not " * (MAX_DEPTH + 1) + "a")
    assert "nested too deeply" in error.problem


def test_expected_words_never_show_terminal_names() -> None:
    names = {
        "CMP",
        "AND",
        "OR",
        "IN",
        "NOT",
        "PATH",
        "STRING",
        "NUMBER",
        "GUID",
        "DATETIME",
        "TRUE",
        "FALSE",
        "NULL",
        "_LPAR",
        "_RPAR",
        "_COMMA",
        "_COLON",
        "$END",
    }
    for size in range(1, len(names) + 1):
        words = expected_words(set(sorted(names)[:size]))
        assert not RAW_TOKEN_NAME.search(", ".join(words))


# --- properties ------------------------------------------------------------------------------------


@settings(max_examples=200)
@given(any_filter)
@example(Compare("eq", Member(("eq",)), Member(("in",))))
@example(Not(Member(("in",))))
@example(And((Member(("and",)), Member(("or",)))))
@example(Compare("eq", Member(("a",)), StringLit("'")))
def test_print_then_parse_gives_the_same_ast(node: Expr) -> None:
    text = print_filter(node)
    assert parse(text) == node
    assert print_filter(parse(text)) == text


ALPHABET = "ab01 '()/,:-.eEtTqQ\n\t\"=@$xnlorid"
VALID = [
    "properties/eventType eq 'ServiceIssue' or properties/eventType eq 'SecurityAdvisory'",
    "not contains(tolower(a/b), 'x') and c in ('a', 1, 2.5, true, null)",
    "d/any(x: x/e ge 2024-01-01T10:00:00Z) and f/all(y: startswith(y, 'p'))",
    "atScope() and assignedTo('8e3af657-a8ff-443c-a75c-2fe8c4bcb635')",
    "i ne 01234567-89ab-cdef-0123-456789abcdef or h/any()",
]


def _check_only_syntax_errors(text: str) -> None:
    try:
        node = parse(text)
    except FilterSyntaxError as error:
        assert error.line >= 1 and error.column >= 1
        assert not RAW_TOKEN_NAME.search(str(error))
        assert error.caret.endswith("^")
        return
    assert parse(print_filter(node)) == node


@settings(max_examples=200)
@given(st.text(max_size=60))
def test_fuzz_random_text(text: str) -> None:
    _check_only_syntax_errors(text)


@settings(max_examples=200)
@given(st.text(alphabet=ALPHABET, max_size=60))
def test_fuzz_filter_like_text(text: str) -> None:
    _check_only_syntax_errors(text)


@settings(max_examples=200)
@given(
    st.sampled_from(VALID),
    st.lists(
        st.tuples(
            st.sampled_from(["insert", "delete", "replace"]),
            st.integers(0, 200),
            st.sampled_from(ALPHABET),
        ),
        min_size=1,
        max_size=4,
    ),
)
def test_fuzz_mutations_of_valid_filters(text: str, edits: list[tuple[str, int, str]]) -> None:
    for action, where, char in edits:
        where %= len(text) + 1
        if action == "insert":
            text = text[:where] + char + text[where:]
        elif action == "delete":
            text = text[:where] + text[where + 1 :]
        else:
            text = text[:where] + char + text[where + 1 :]
    _check_only_syntax_errors(text)


LARK_LEXER = build_parser(fast_lexer=False, cache=False)


@settings(max_examples=200)
@given(st.one_of(st.sampled_from(VALID), st.text(alphabet=ALPHABET, max_size=40)))
def test_the_fast_token_loop_agrees_with_larks(text: str) -> None:
    def outcome(parse_one: object) -> object:
        try:
            return parse_one(text)  # type: ignore[operator]
        except FilterSyntaxError as error:
            return str(error)

    assert outcome(parse) == outcome(lambda t: parse_with(LARK_LEXER, t))


def test_parse_filter_caches_by_text() -> None:
    text = "cached eq 'yes'"
    assert parse_filter(text) is parse_filter(text)


def test_positions_are_kept_but_not_compared() -> None:
    node = parse("  a eq 'x' or b")
    assert isinstance(node, Or)
    assert node.pos == 11
    first = node.operands[0]
    assert isinstance(first, Compare)
    assert (first.pos, first.left.pos, first.right.pos) == (4, 2, 7)
    assert node == Or((eq("a", s("x")), m("b")))


def test_unprintable_trees_are_refused() -> None:
    for node in [
        Member(("true",)),
        Member(("a b",)),
        Member(()),
        And((m("a"),)),
        In(m("a"), ()),
        eq("a", DecimalLit(Decimal("NaN"))),
        eq("a", DateTimeLit(datetime(2024, 1, 1))),
        Lambda(m("t"), "all"),
        eq("a", IntLit(10**70)),
    ]:
        with pytest.raises(ValueError):
            print_filter(node)


def test_deep_hand_built_trees_do_not_crash_the_printer() -> None:
    node: Expr = m("a")
    for _ in range(5000):
        node = Not(node)
    with pytest.raises(ValueError, match="nested too deeply"):
        print_filter(node)
