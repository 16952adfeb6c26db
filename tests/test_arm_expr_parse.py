"""Parsing, printing and syntax errors of ARM template expressions (issue 17, item 1)."""

from __future__ import annotations

import pytest

from auditor.errors import InputError
from auditor.expr.arm import (
    MAX_DEPTH,
    MAX_LENGTH,
    ArmSyntaxError,
    Call,
    Index,
    IntLit,
    Property,
    StrLit,
    is_expression,
    literal_value,
    parse_expression,
    parse_template_string,
    print_expression,
    print_template_string,
    validate_expressions,
)


def p(name: str) -> Call:
    return Call("parameters", (StrLit(name),))


# ------------------------------------------------------------------------------- what is parsed


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        ("[parameters('x')]", True),
        ("[[parameters('x')]", False),  # the escape for a literal '['
        ("[test] value", False),  # does not end with ']': a literal
        ("value [x]", False),
        ("[newGuid()", False),
        ("[]", True),  # an (empty, invalid) expression
        ("[", False),
        ("]", False),
        ("", False),
    ],
)
def test_is_expression(text: str, expression: bool) -> None:
    assert is_expression(text) is expression


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("[[test value]", "[test value]"),
        ("[test] value", "[test] value"),
        ("[[not closed", "[[not closed"),
        ("plain", "plain"),
        ("[[]", "[]"),
    ],
)
def test_literal_value(text: str, value: str) -> None:
    assert literal_value(text) == value


# ---------------------------------------------------------------------------------- the trees


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("[parameters('x')]", p("x")),
        ("[ parameters ( 'x' ) ]", p("x")),
        ("[concat('it''s', -12, 0)]", Call("concat", (StrLit("it's"), IntLit(-12), IntLit(0)))),
        ("[resourceGroup().location]", Property(Call("resourceGroup"), "location")),
        (
            "[parameters('subnets')[copyIndex()].name]",
            Property(Index(p("subnets"), Call("copyIndex")), "name"),
        ),
        (
            "[variables('user')['user-name']]",
            Index(Call("variables", (StrLit("user"),)), StrLit("user-name")),
        ),
        (
            "[listKeys(resourceId('Microsoft.Storage/storageAccounts', 'sa'), '2019-06-01').keys[0].value]",
            Property(
                Index(
                    Property(
                        Call(
                            "listKeys",
                            (
                                Call(
                                    "resourceId",
                                    (StrLit("Microsoft.Storage/storageAccounts"), StrLit("sa")),
                                ),
                                StrLit("2019-06-01"),
                            ),
                        ),
                        "keys",
                    ),
                    IntLit(0),
                ),
                "value",
            ),
        ),
        # a user-defined function; blanks around the namespace's dot are dropped
        ("[contoso.uniqueName('a')]", Call("contoso.uniqueName", (StrLit("a"),))),
        ("[contoso . uniqueName('a')]", Call("contoso.uniqueName", (StrLit("a"),))),
        # the bare words are the calls they stand for
        ("[if(true, null, FALSE)]", Call("if", (Call("true"), Call("null"), Call("FALSE")))),
        ("[true()]", Call("true")),
        # line breaks inside an expression
        ("[concat(\n  'a',\n  'b')]", Call("concat", (StrLit("a"), StrLit("b")))),
        ("[a($b_1())]", Call("a", (Call("$b_1"),))),
    ],
)
def test_parse_template_string(text: str, tree: object) -> None:
    assert parse_template_string(text) == tree
    assert parse_expression(text[1:-1]) == tree


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("[ concat( 'a','b' ) ]", "concat('a', 'b')"),
        ("[if(true, null, false)]", "if(true(), null(), false())"),
        ("[ns . fn()]", "ns.fn()"),
        ("[toLower('It''s')]", "toLower('It''s')"),
        ("[a()['b c'].d[0]]", "a()['b c'].d[0]"),
        ("[A(-1)]", "A(-1)"),
    ],
)
def test_print_is_canonical_and_reparses(text: str, canonical: str) -> None:
    tree = parse_template_string(text)
    assert print_expression(tree) == canonical
    assert print_template_string(tree) == f"[{canonical}]"
    assert parse_expression(canonical) == tree


def test_print_property_that_is_not_an_identifier_as_an_index() -> None:
    tree = Property(Call("f"), "user-name")
    assert print_expression(tree) == "f()['user-name']"


def test_print_redacts_string_literals() -> None:
    tree = parse_template_string(
        "[concat('P@ssw0rd!', parameters('x'), variables('v'), 'secret')['k'].v]"
    )
    text = print_expression(tree, redact_strings=True)
    # the names of parameters and variables stay: they are template names, not values
    assert text == "concat('***', parameters('x'), variables('v'), '***')['***'].v"
    assert "P@ss" not in text


def test_parse_is_cached_and_trees_are_immutable() -> None:
    first = parse_template_string("[concat('a', 'b')]")
    assert parse_template_string("[concat('a', 'b')]") is first
    with pytest.raises(AttributeError):
        first.name = "other"  # type: ignore[misc]


# ----------------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("text", "column", "problem", "expected"),
    [
        ("[foo]", 5, "unexpected ']'", ["'('"]),
        ("[]", 2, "empty expression", None),
        ("[  ]", 4, "empty expression", None),
        ("['abc']", 2, "unexpected string literal", ["a function call such as parameters('name')"]),
        ("[1]", 2, "unexpected '1'", None),
        ("[concat('a' 'b')]", 13, "unexpected string literal", ["')'", "','"]),
        ("[concat('a]", 9, "unterminated string", None),
        ("[a().]", 6, "unexpected ']'", ["a property name"]),
        ("[a().1]", 6, "unexpected '1'", ["a property name"]),
        ("[a(,)]", 4, "unexpected ','", None),
        ("[a())]", 5, "unexpected ')'", None),
        ("[a()[]]", 6, "unexpected ']'", None),
        ("[a(b.c)]", 7, "unexpected ')'", ["'('"]),
        ("[a(1.5)]", 5, "unexpected '.'", ["')'", "','"]),
        ("[a(#)]", 4, "unexpected character '#'", None),
        ("[a('x').b(1)]", 10, "unexpected '('", None),
        ("[a(99999999999999999999)]", 4, "integer out of range", None),
    ],
)
def test_syntax_errors_point_at_the_character_that_cannot_continue(
    text: str, column: int, problem: str, expected: list[str] | None
) -> None:
    with pytest.raises(ArmSyntaxError) as caught:
        parse_template_string(text)
    error = caught.value
    assert isinstance(error, InputError)
    assert error.line == 1
    assert error.column == column, str(error)
    assert error.problem.startswith(problem), error.problem
    if expected is not None:
        assert all(word in error.expected for word in expected), error.expected
    # the caret sits under the column
    lines = str(error).splitlines()
    assert lines[0].startswith(f"template expression syntax error at line 1, column {column}")
    assert lines[2].index("^") - 2 == column - 1


def test_error_on_a_later_line() -> None:
    with pytest.raises(ArmSyntaxError) as caught:
        parse_template_string("[concat(\n  'a',\n  'b' 'c')]")
    assert (caught.value.line, caught.value.column) == (3, 7)


def test_not_an_expression_is_refused_by_the_template_parser() -> None:
    with pytest.raises(ArmSyntaxError, match="must start with"):
        parse_template_string("[[literal]")


def test_limits() -> None:
    # the template's own bracket is one level
    deep = "[" + "a(" * MAX_DEPTH + ")" * MAX_DEPTH + "]"
    with pytest.raises(ArmSyntaxError, match="nested more than"):
        parse_template_string(deep)
    shallow = "[" + "a(" * (MAX_DEPTH - 1) + ")" * (MAX_DEPTH - 1) + "]"
    assert isinstance(parse_template_string(shallow), Call)
    with pytest.raises(ArmSyntaxError, match="property accesses and indexes in a row"):
        parse_template_string("[a()" + ".b" * (MAX_DEPTH + 1) + "]")
    with pytest.raises(ArmSyntaxError, match="property accesses and indexes in a row"):
        parse_template_string("[a()" + "[0]" * (MAX_DEPTH + 1) + "]")
    with pytest.raises(ArmSyntaxError, match="characters long"):
        parse_template_string("[a('" + "x" * MAX_LENGTH + "')]")


def test_long_expression_error_shows_a_window() -> None:
    text = "[concat('" + "x" * 500 + "' 'y')]"
    with pytest.raises(ArmSyntaxError) as caught:
        parse_template_string(text)
    message = str(caught.value)
    assert len(message) < 400
    shown, caret = message.splitlines()[1:3]
    assert shown.strip().startswith("...")
    assert shown[caret.index("^")] == "'"


def test_at_names_the_file_and_path_and_redacts() -> None:
    with pytest.raises(ArmSyntaxError) as caught:
        parse_template_string("[concat('Sup3rS3cret' 'x')]")
    located = caught.value.at(source="main.json", location="resources[0].properties.password")
    assert str(located).startswith(
        "main.json: resources[0].properties.password: template expression"
    )
    assert "Sup3rS3cret" in str(located)
    hidden = caught.value.at(location="parameters.adminPassword.defaultValue", redacted=True)
    assert "Sup3rS3cret" not in str(hidden)
    assert "'x'" not in str(hidden)
    assert "not shown" in str(hidden)
    assert hidden.column == caught.value.column


def test_redacted_unexpected_character_is_not_quoted() -> None:
    with pytest.raises(ArmSyntaxError) as caught:
        parse_template_string("[P@ssword]")
    hidden = caught.value.at(redacted=True)
    assert "@" not in str(hidden)
    assert "P@ss" not in str(hidden)


def test_validate_expressions_names_the_json_path() -> None:
    template = {
        "variables": {"ok": "[concat('a')]", "literal": "[[x]"},
        "resources": [{"properties": {"list": ["fine", "[concat('a' 'b')]"]}}],
    }
    with pytest.raises(ArmSyntaxError) as caught:
        validate_expressions(template, source="main.json")
    assert caught.value.location == "resources[0].properties.list[1]"
    assert caught.value.source == "main.json"
    assert validate_expressions({"a": ["[concat('a')]", "[[x]", 1, None]}) == 1


def test_validate_expressions_hides_text_under_secret_keys() -> None:
    template = {"properties": {"adminPassword": "[H@ckMe]"}}
    with pytest.raises(ArmSyntaxError) as caught:
        validate_expressions(template)
    assert caught.value.location == "properties.adminPassword"
    assert "H@ckMe" not in str(caught.value)
    assert caught.value.redacted


@pytest.mark.parametrize("bad", [None, 12, b"[a()]"])
def test_parse_rejects_non_strings(bad: object) -> None:
    with pytest.raises(TypeError):
        parse_expression(bad)  # type: ignore[arg-type]
