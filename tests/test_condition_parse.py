"""Parsing, printing and syntax errors of version-2.0 conditions (semantics §2)."""

from __future__ import annotations

import pytest

from auditor.errors import InputError
from auditor.expr.condition import (
    MAX_BYTES,
    MAX_DEPTH,
    ActionMatches,
    And,
    Attribute,
    BoolValue,
    Comparison,
    ConditionSyntaxError,
    CrossProduct,
    Exists,
    GuidValue,
    IntValue,
    ListValue,
    Not,
    Op,
    Or,
    StrValue,
    SubOperationMatches,
    parse_condition,
    print_condition,
    validate_condition,
)

NAME = Attribute("Resource", "Cloud.Storage/storageAccounts/blobServices/containers:name")
A = Comparison(NAME, Op.STRING_EQUALS, StrValue("a"))
B = Comparison(NAME, Op.STRING_EQUALS, StrValue("b"))
C = Comparison(NAME, Op.STRING_EQUALS, StrValue("c"))
TEXT_A = "@Resource[Cloud.Storage/storageAccounts/blobServices/containers:name] StringEquals 'a'"
TEXT_B = TEXT_A.replace("'a'", "'b'")
TEXT_C = TEXT_A.replace("'a'", "'c'")


def syntax_error(text: str) -> ConditionSyntaxError:
    with pytest.raises(ConditionSyntaxError) as caught:
        parse_condition(text)
    return caught.value


# ------------------------------------------------------------------------------- the grammar


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        (TEXT_A, A),
        (f"{TEXT_A} AND {TEXT_B}", And((A, B))),
        (f"{TEXT_A} && {TEXT_B} && {TEXT_C}", And((A, B, C))),
        (f"{TEXT_A} OR {TEXT_B}", Or((A, B))),
        (f"{TEXT_A} || {TEXT_B}", Or((A, B))),
        (f"NOT {TEXT_A}", Not(A)),
        (f"!({TEXT_A})", Not(A)),
        (f"!!({TEXT_A})", Not(Not(A))),
        (f"(({TEXT_A}))", A),
        (f"({TEXT_A} AND {TEXT_B}) OR {TEXT_C}", Or((And((A, B)), C))),
        (f"{TEXT_A} AND ({TEXT_B} OR {TEXT_C})", And((A, Or((B, C))))),
        (f"({TEXT_A} AND {TEXT_B}) AND {TEXT_C}", And((And((A, B)), C))),
        (f"not {TEXT_A} and {TEXT_B}", And((Not(A), B))),
        ("ActionMatches{'Cloud.Storage/*/read'}", ActionMatches("Cloud.Storage/*/read")),
        ("actionmatches { 'x' }", ActionMatches("x")),
        ("SubOperationMatches{'Blob.List'}", SubOperationMatches("Blob.List")),
        (
            "ActionMatches{'r'} AND NOT SubOperationMatches{'Blob.List'}",
            And((ActionMatches("r"), Not(SubOperationMatches("Blob.List")))),
        ),
        (
            "Exists @Request[Cloud.Storage/x:snapshot]",
            Exists(Attribute("Request", "Cloud.Storage/x:snapshot")),
        ),
        ("NOT Exists @Request[x:y]", Not(Exists(Attribute("Request", "x:y")))),
        (
            "@Environment[UtcNow] DateTimeGreaterThan '2023-04-01T13:00:00.000Z'",
            Comparison(
                Attribute("Environment", "UtcNow"),
                Op.DATETIME_GREATER_THAN,
                StrValue("2023-04-01T13:00:00.000Z"),
            ),
        ),
        (
            "@Environment[isPrivateLink] BoolEquals true",
            Comparison(Attribute("Environment", "isPrivateLink"), Op.BOOL_EQUALS, BoolValue(True)),
        ),
        (
            "@Environment[isPrivateLink] BoolNotEquals FALSE",
            Comparison(
                Attribute("Environment", "isPrivateLink"), Op.BOOL_NOT_EQUALS, BoolValue(False)
            ),
        ),
        (
            "@Environment[Subnet] StringEqualsIgnoreCase '/x/y'",
            Comparison(
                Attribute("Environment", "Subnet"), Op.STRING_EQUALS_IGNORE_CASE, StrValue("/x/y")
            ),
        ),
        (
            "@Principal[Cloud.Directory/CustomSecurityAttributes/Id:Engineering_Project] "
            "StringEquals 'Baker'",
            Comparison(
                Attribute(
                    "Principal", "Cloud.Directory/CustomSecurityAttributes/Id:Engineering_Project"
                ),
                Op.STRING_EQUALS,
                StrValue("Baker"),
            ),
        ),
        (
            "@Resource[Cloud.Storage/storageAccounts/blobServices/containers/blobs/tags:Project<$key_case_sensitive$>]"
            " StringEquals 'Cascade'",
            Comparison(
                Attribute(
                    "Resource",
                    "Cloud.Storage/storageAccounts/blobServices/containers/blobs/tags:Project<$key_case_sensitive$>",
                ),
                Op.STRING_EQUALS,
                StrValue("Cascade"),
            ),
        ),
        (
            "@Request[Cloud.Storage/storageAccounts/blobServices/containers/blobs/tags&$keys$&] "
            "ForAllOfAnyValues:StringEquals {'Project', 'Program'}",
            Comparison(
                Attribute(
                    "Request",
                    "Cloud.Storage/storageAccounts/blobServices/containers/blobs/tags&$keys$&",
                ),
                Op.STRING_EQUALS,
                ListValue((StrValue("Project"), StrValue("Program"))),
                CrossProduct.FOR_ALL_OF_ANY,
            ),
        ),
        (
            "@Request[x:RoleDefinitionId] "
            "ForAnyOfAnyValues:GuidEquals{12338af0-0e69-4776-bea7-57ae8d297424}",
            Comparison(
                Attribute("Request", "x:RoleDefinitionId"),
                Op.GUID_EQUALS,
                ListValue((GuidValue("12338af0-0e69-4776-bea7-57ae8d297424"),)),
                CrossProduct.FOR_ANY_OF_ANY,
            ),
        ),
        (
            "@Request[x:id] GuidNotEquals '4633458B-17DE-408A-B874-0445C86B69E6'",
            Comparison(
                Attribute("Request", "x:id"),
                Op.GUID_NOT_EQUALS,
                StrValue("4633458B-17DE-408A-B874-0445C86B69E6"),
            ),
        ),
        (
            "{10, 20} ForAnyOfAllValues:NumericLessThan {15, 18}",
            Comparison(
                ListValue((IntValue(10), IntValue(20))),
                Op.NUMERIC_LESS_THAN,
                ListValue((IntValue(15), IntValue(18))),
                CrossProduct.FOR_ANY_OF_ALL,
            ),
        ),
        (
            "@Resource[n] NumericGreaterThanEquals -3",
            Comparison(Attribute("Resource", "n"), Op.NUMERIC_GREATER_THAN_EQUALS, IntValue(-3)),
        ),
        # attribute on the right, attribute on both sides
        (
            "'abcd' StringLike @Resource[p]",
            Comparison(StrValue("abcd"), Op.STRING_LIKE, Attribute("Resource", "p")),
        ),
        (
            "@Principal[a:b] StringEquals @Resource[c:d]",
            Comparison(
                Attribute("Principal", "a:b"), Op.STRING_EQUALS, Attribute("Resource", "c:d")
            ),
        ),
        # case-insensitive operator names and sources, printed canonically
        (
            "@resource[x] stringnotlikeignorecase 'a*'",
            Comparison(Attribute("Resource", "x"), Op.STRING_NOT_LIKE_IGNORE_CASE, StrValue("a*")),
        ),
        (
            "@REQUEST[x] forallofallvalues:numericnotequals {1}",
            Comparison(
                Attribute("Request", "x"),
                Op.NUMERIC_NOT_EQUALS,
                ListValue((IntValue(1),)),
                CrossProduct.FOR_ALL_OF_ALL,
            ),
        ),
        # a quote inside a string is doubled; backslashes are kept for StringLike
        (
            "@Resource[x] StringLike 'it''s \\*'",
            Comparison(Attribute("Resource", "x"), Op.STRING_LIKE, StrValue("it's \\*")),
        ),
        (
            "@Resource[x] StringEquals ''",
            Comparison(Attribute("Resource", "x"), Op.STRING_EQUALS, StrValue("")),
        ),
    ],
)
def test_parses_to_tree(text: str, tree: object) -> None:
    assert parse_condition(text) == tree
    printed = print_condition(parse_condition(text))
    assert parse_condition(printed) == tree


@pytest.mark.parametrize("op", list(Op))
def test_every_operator_parses_and_prints_canonically(op: Op) -> None:
    value = {
        "String": "'v'",
        "Numeric": "7",
        "DateTime": "'2024-01-02T03:04:05Z'",
        "Guid": "4633458b-17de-408a-b874-0445c86b69e6",
        "Bool": "true",
    }[op.family.value]
    tree = parse_condition(f"@Resource[x] {op.value.upper()} {value}")
    assert isinstance(tree, Comparison) and tree.op is op and tree.cross is None
    assert print_condition(tree) == f"@Resource[x] {op.value} {value}"
    if op.accepts_cross_product:
        for cross in CrossProduct:
            text = f"@Resource[x] {cross.value}:{op.value} {{{value}, {value}}}"
            parsed = parse_condition(text.lower())
            assert isinstance(parsed, Comparison) and parsed.cross is cross
            assert print_condition(parse_condition(text)) == text


def test_canonical_print() -> None:
    text = (
        "((!(ActionMatches{'Cloud.Authorization/roleAssignments/write'})) or (@request[X:Id] "
        "foranyofanyvalues:guidequals{12338af0-0e69-4776-bea7-57ae8d297424,4633458b-17de-408a-b874-0445c86b69e6}"
        ")) && (NOT Exists @Resource[y] || @Resource[z] BoolEquals TRUE)"
    )
    assert print_condition(parse_condition(text)) == (
        "(!(ActionMatches{'Cloud.Authorization/roleAssignments/write'}) OR @Request[X:Id] "
        "ForAnyOfAnyValues:GuidEquals {12338af0-0e69-4776-bea7-57ae8d297424, "
        "4633458b-17de-408a-b874-0445c86b69e6}) AND "
        "(!(Exists @Resource[y]) OR @Resource[z] BoolEquals true)"
    )


def test_no_space_needed_before_braces_and_whitespace_is_free() -> None:
    assert parse_condition("ActionMatches{'a'}") == parse_condition("ActionMatches {\n'a'\n}")
    tight = parse_condition("@Resource[x] ForAnyOfAnyValues:StringEquals{'a','b'}")
    loose = parse_condition("@Resource[x]\n\tForAnyOfAnyValues:StringEquals {\r\n 'a' ,\n 'b' }")
    assert tight == loose


# ------------------------------------------------------------------------------------ errors


def test_mixed_and_or_is_ambiguous() -> None:
    error = syntax_error(f"{TEXT_A} AND {TEXT_B} OR {TEXT_C}")
    assert "ambiguous: add parentheses" in error.problem
    assert error.line == 1
    assert error.column == len(f"{TEXT_A} AND {TEXT_B} ") + 1
    assert error.source_line[error.column - 1 :].startswith("OR")
    # also with symbols, on several lines, and inside parentheses
    error = syntax_error(f"({TEXT_A} ||\n{TEXT_B} &&\n{TEXT_C})")
    assert "ambiguous: add parentheses" in error.problem
    assert (error.line, error.column) == (2, len(TEXT_B) + 2)
    # parentheses settle it
    parse_condition(f"({TEXT_A} AND {TEXT_B}) OR {TEXT_C}")
    parse_condition(f"{TEXT_A} AND ({TEXT_B} OR {TEXT_C})")


def test_error_has_caret_and_expected_words() -> None:
    error = syntax_error("@Resource[x] 'a'")
    assert (error.line, error.column) == (1, 14)
    assert error.expected == ["a comparison operator such as StringEquals"]
    rendered = str(error)
    assert rendered.splitlines()[1:] == ["  @Resource[x] 'a'", "               ^"]
    assert "line 1, column 14" in rendered
    assert isinstance(error, InputError)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "(",
        ")",
        "AND",
        "@Resource[x] StringEquals",
        "@Resource[x] StringEquals 'a' AND",
        "ActionMatches{'a'",
        "ActionMatches{a}",
        "ActionMatches{'a'} )",
        "@Resource[x] StringEquals {'a',}",
        "Exists 'a'",
        "@Resource[x] StringEquals 'a' @Resource[y]",
        "{}  StringEquals 'a'",
    ],
)
def test_errors_speak_words_not_token_names(text: str) -> None:
    error = syntax_error(text)
    message = str(error)
    for raw in (
        "__ANON",
        "RBRACE",
        "LBRACE",
        "RPAR",
        "LPAR",
        "$END",
        "COMMA",
        "ATTRIBUTE",
        "OPERATOR",
    ):
        assert raw not in message
    assert error.expected or "unterminated" in error.problem or "malformed" in error.problem
    assert 1 <= error.column <= len(error.source_line) + 1


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("@Resource[x] StringEqualz 'a'", "did you mean StringEquals"),
        ("@Resource[x] NumericEquals 'a'", "NumericEquals compares integers, not a string"),
        (
            "@Resource[x] StringEquals 3",
            "StringEquals compares single-quoted strings, not an integer",
        ),
        ("@Resource[x] BoolEquals 'true'", "BoolEquals compares true or false"),
        ("@Resource[x] GuidEquals 'nope'", "'nope' is not a GUID"),
        ("@Resource[x] DateTimeEquals '2023-02-30T00:00:00Z'", "not an ISO 8601 date-time"),
        ("@Resource[x] StringEquals {'a', 'b'}", "needs a cross-product operator"),
        (
            "@Resource[x] ForAnyOfAnyValues:DateTimeEquals '2023-01-01'",
            "applies to the string, numeric and GUID",
        ),
        ("@Resource[x] ForAllOfAllValues:BoolEquals true", "not BoolEquals"),
        ("@Foo[x] StringEquals 'a'", "unknown attribute source '@Foo'"),
        ("@Resource[ ] StringEquals 'a'", "empty attribute name"),
        ("@Resource[x StringEquals 'a'", "malformed attribute"),
        ("@Resource[x] StringEquals 'a", "unterminated string"),
        ("@Resource[x] NumericEquals 9223372036854775808", "integer out of range"),
        ("@Resource[x] NumericEquals " + "9" * 5000, "integer out of range"),
        ("ActionMatches{'a'} StringEquals 'b'", "unexpected 'StringEquals'"),
        ("", "unexpected end of the condition"),
    ],
)
def test_error_problems(text: str, problem: str) -> None:
    assert problem in syntax_error(text).problem


def test_numeric_range_edges() -> None:
    parse_condition("@Resource[x] NumericEquals 9223372036854775807")
    parse_condition("@Resource[x] NumericEquals -9223372036854775808")


def test_error_positions_on_later_lines() -> None:
    error = syntax_error("(\n  ActionMatches{'a'}\n  OR\n  @Resource[x] StringEquals 1\n)")
    assert (error.line, error.column) == (4, 29)
    assert error.source_line == "  @Resource[x] StringEquals 1"
    assert str(error).splitlines()[-1] == "  " + " " * 28 + "^"


def test_deep_nesting_is_a_syntax_error_not_a_crash() -> None:
    # redundant parentheses leave no node, so any number of them is fine
    assert parse_condition("(" * 4000 + "ActionMatches{'a'}" + ")" * 4000) == ActionMatches("a")
    ok = "!(" * MAX_DEPTH + "ActionMatches{'a'}" + ")" * MAX_DEPTH
    parse_condition(ok)
    chain = "ActionMatches{'a'}"
    for _ in range(MAX_DEPTH + 5):
        chain = f"ActionMatches{{'a'}} AND (({chain}) OR ActionMatches{{'b'}})"
    for text in (
        "!(" * (MAX_DEPTH + 1) + "ActionMatches{'a'}" + ")" * (MAX_DEPTH + 1),
        "!" * 8000 + "ActionMatches{'a'}",
        "NOT " * 2000 + "ActionMatches{'a'}",
        chain,
    ):
        error = syntax_error(text)
        assert f"nested more than {MAX_DEPTH} levels deep" in error.problem
    assert "unexpected end" in syntax_error("(" * 8000).problem


# --------------------------------------------------------------------------------- 8 KB limit


def _condition_of_size(size: int) -> str:
    head = "@Resource[x] StringEquals '"
    return head + "a" * (size - len(head) - 1) + "'"


def test_eight_kilobytes_is_the_limit() -> None:
    exactly = _condition_of_size(MAX_BYTES)
    assert len(exactly.encode()) == MAX_BYTES
    parse_condition(exactly)
    assert validate_condition(exactly, "2.0") == []
    over = _condition_of_size(MAX_BYTES + 1)
    error = syntax_error(over)
    assert "8 KB" in error.problem and str(MAX_BYTES + 1) in error.problem
    assert error.column == MAX_BYTES + 1
    assert validate_condition(over, "2.0") == [
        f"the condition is {MAX_BYTES + 1} bytes long, over the 8 KB limit (8192 bytes of UTF-8)"
    ]


def test_limit_counts_utf8_bytes_not_characters() -> None:
    head = "@Resource[x] StringEquals '"
    text = head + "é" * 4090 + "'"  # 4090 characters of 2 bytes each
    assert len(text) < MAX_BYTES < len(text.encode())
    assert "8 KB" in syntax_error(text).problem
    lone_surrogate = head + "\ud800" * 3000 + "'"
    assert "8 KB" in syntax_error(lone_surrogate).problem


# --------------------------------------------------------------------------------- validation


def test_validate_condition() -> None:
    assert validate_condition(TEXT_A, "2.0") == []
    assert validate_condition(TEXT_A, None) == []  # the REST API's default version is 2.0
    assert validate_condition(None, None) == []
    assert validate_condition("", "2.0") == []
    assert validate_condition(TEXT_A, "1.0") == [
        "conditionVersion '1.0' is not supported; the only accepted value is '2.0'"
    ]
    problems = validate_condition(f"{TEXT_A} AND {TEXT_B} OR {TEXT_C}", "1.0")
    assert len(problems) == 2
    assert "does not parse at line 1, column" in problems[1]
    assert "ambiguous: add parentheses" in problems[1]
    assert validate_condition("@Resource[x] 'a'", "2.0") == [
        "the condition does not parse at line 1, column 14: unexpected ''a''; "
        "expected a comparison operator such as StringEquals"
    ]
