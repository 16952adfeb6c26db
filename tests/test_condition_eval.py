"""Evaluating conditions against access requests (semantics §2, contracts §4)."""

from __future__ import annotations

from typing import Any

import pytest

from auditor.expr.condition import (
    ConditionRequest,
    action_matches,
    attributes_read,
    compile_condition,
    parse_condition,
    targeted_actions,
)

X = "@Resource[Cloud.Storage/storageAccounts/blobServices/containers:name]"
Y = "@Request[Cloud.Storage/storageAccounts/blobServices/containers/blobs:path]"
READ = "Cloud.Storage/storageAccounts/blobServices/containers/blobs/read"


def ev(
    text: str, attributes: dict[str, Any] | None = None, action: str = READ, sub: str | None = None
) -> bool | None:
    return compile_condition(text)(ConditionRequest(action, sub, attributes))


def with_x(text: str, value: Any) -> bool | None:
    return ev(text, {X: value})


# ------------------------------------------------------------------ the documented truth table


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("'abcd' StringLike 'a*c?'", True),
        ("'abcd' StringLike 'A*C?'", False),
        ("'abcd' StringLike 'a*c'", False),
        ("{'red', 'blue'} ForAnyOfAnyValues:StringEquals {'blue', 'green'}", True),
        ("{'red', 'blue'} ForAnyOfAnyValues:StringEquals {'orange', 'green'}", False),
        ("{'red', 'blue'} ForAllOfAnyValues:StringEquals {'orange', 'red', 'blue'}", True),
        ("{'red', 'blue'} ForAllOfAnyValues:StringEquals {'red', 'green'}", False),
        ("{10, 20} ForAnyOfAllValues:NumericLessThan {15, 18}", True),
        ("{10, 20} ForAllOfAllValues:NumericLessThan {5, 15, 18}", False),
        ("{10, 20} ForAllOfAllValues:NumericLessThan {25, 30}", True),
        ("{10, 20} ForAllOfAllValues:NumericLessThan {15, 25, 30}", False),
        ("ActionMatches{'Cloud.Authorization/roleAssignments/*'}", True),
        ("ActionMatches{'Cloud.Authorization/roleDefinitions/*'}", False),
    ],
)
def test_documented_truth_table(text: str, expected: bool) -> None:
    action = "Cloud.Authorization/roleAssignments/write"
    assert ev(text, {}, action) is expected
    # literal-only comparisons are decided even with unknown attributes
    assert ev(text, None, action) is expected


@pytest.mark.parametrize(
    ("value", "pattern", "expected"),
    [
        ("abcd", "a*c?", True),
        ("abcd", "*", True),
        ("", "*", True),
        ("", "?", False),
        ("a/b/c", "a*c", True),
        ("abc", "a?c", True),
        ("ac", "a?c", False),
        ("a*c", "a\\*c", True),
        ("abc", "a\\*c", False),
        ("a?c", "a\\?c", True),
        ("abc", "a\\?c", False),
        ("a\\bc", "a\\b*", True),  # a backslash before anything else is literal
        ("a.c", "a.c", True),
        ("abc", "a.c", False),  # no regular expressions
        ("readonly/x/y", "readonly/*", True),
        ("x/readonly/y", "readonly/*", False),  # whole-string match
        ("line1\nline2", "line1*", True),
    ],
)
def test_string_like(value: str, pattern: str, expected: bool) -> None:
    text = f"{X} StringLike '{pattern}'"
    assert with_x(text, value) is expected
    assert with_x(f"{X} StringNotLike '{pattern}'", value) is (not expected)


def test_string_operators() -> None:
    assert with_x(f"{X} StringEquals 'Logs'", "Logs") is True
    assert with_x(f"{X} StringEquals 'Logs'", "logs") is False
    assert with_x(f"{X} StringEqualsIgnoreCase 'Logs'", "LOGS") is True
    assert with_x(f"{X} StringNotEquals 'Logs'", "logs") is True
    assert with_x(f"{X} StringNotEqualsIgnoreCase 'Logs'", "logs") is False
    assert with_x(f"{X} StringStartsWith 'read'", "readonly") is True
    assert with_x(f"{X} StringStartsWith 'read'", "Readonly") is False
    assert with_x(f"{X} StringStartsWithIgnoreCase 'read'", "Readonly") is True
    assert with_x(f"{X} StringNotStartsWith 'read'", "write") is True
    assert with_x(f"{X} StringNotStartsWithIgnoreCase 'READ'", "readonly") is False
    assert with_x(f"{X} StringLikeIgnoreCase 'A*C?'", "abcd") is True
    assert with_x(f"{X} StringNotLikeIgnoreCase 'A*C?'", "abcd") is False
    assert with_x(f"{X} StringEquals 'it''s'", "it's") is True


def test_numeric_operators() -> None:
    cases = {
        "NumericEquals": (5, True),
        "NumericNotEquals": (5, False),
        "NumericGreaterThan": (4, True),
        "NumericGreaterThanEquals": (5, True),
        "NumericLessThan": (5, False),
        "NumericLessThanEquals": (5, True),
    }
    for op, (right, expected) in cases.items():
        assert with_x(f"{X} {op} {right}", 5) is expected, op
    assert with_x(f"{X} NumericEquals 5", "5") is False  # a string is not a number
    assert with_x(f"{X} NumericEquals 1", True) is False  # nor is a boolean
    assert with_x(f"{X} NumericNotEquals 1", True) is False


def test_datetime_operators_compare_instants() -> None:
    text = f"{X} DateTimeEquals '2023-04-01T13:00:00Z'"
    assert with_x(text, "2023-04-01T13:00:00.0000000Z") is True
    assert with_x(text, "2023-04-01T15:00:00+02:00") is True
    assert with_x(text, "2023-04-01T13:00:00") is True  # no offset: UTC
    assert with_x(text, "2023-04-01T13:00:00.0000001Z") is False  # 100 ns later
    assert (
        with_x(f"{X} DateTimeGreaterThan '2023-04-01T13:00:00Z'", "2023-04-01T13:00:00.0000001Z")
        is True
    )
    assert with_x(f"{X} DateTimeLessThanEquals '2023-04-01'", "2023-04-01T00:00:00Z") is True
    assert with_x(f"{X} DateTimeLessThan '2023-04-01'", "2023-03-31T23:59:59.999Z") is True
    assert (
        with_x(f"{X} DateTimeGreaterThanEquals '2023-04-01'", "2023-03-31T23:59:59.999Z") is False
    )
    assert with_x(f"{X} DateTimeNotEquals '2023-04-01'", "2023-04-02") is True
    assert with_x(f"{X} DateTimeNotEquals '2023-04-01'", "not a date") is False


def test_guid_and_bool_operators() -> None:
    guid = "4633458b-17de-408a-b874-0445c86b69e6"
    assert with_x(f"{X} GuidEquals {guid}", guid.upper()) is True
    assert with_x(f"{X} GuidEquals '{guid.upper()}'", guid) is True
    assert with_x(f"{X} GuidNotEquals {guid}", "00000000-0000-0000-0000-000000000000") is True
    assert with_x(f"{X} GuidNotEquals {guid}", "not-a-guid") is False
    assert with_x(f"{X} BoolEquals true", True) is True
    assert with_x(f"{X} BoolEquals true", "True") is True
    assert with_x(f"{X} BoolNotEquals true", False) is True
    assert with_x(f"{X} BoolEquals false", 0) is False


# ------------------------------------------------------------------------ absent and multi-valued


@pytest.mark.parametrize(
    "text",
    [
        f"{X} StringEquals 'a'",
        f"{X} StringNotEquals 'a'",
        f"{X} StringNotLike 'a*'",
        f"{X} StringNotStartsWith 'a'",
        f"{X} NumericNotEquals 1",
        f"{X} DateTimeNotEquals '2023-01-01'",
        f"{X} GuidNotEquals 4633458b-17de-408a-b874-0445c86b69e6",
        f"{X} BoolNotEquals true",
        f"{X} ForAllOfAllValues:StringNotEquals {{'a', 'b'}}",
        f"{X} ForAllOfAnyValues:StringEquals {{'a'}}",
        f"'a' StringNotEquals {X}",
        f"Exists {X}",
    ],
)
def test_absent_attribute_makes_every_comparison_false(text: str) -> None:
    assert ev(text, {}) is False
    assert ev(text, {X: None}) is False  # JSON null counts as absent
    assert ev(f"NOT ({text})", {}) is True  # NOT inverts


def test_empty_value_set() -> None:
    for cross, expected in (
        ("ForAnyOfAnyValues", False),
        ("ForAnyOfAllValues", False),
        ("ForAllOfAnyValues", True),
        ("ForAllOfAllValues", True),
    ):
        assert with_x(f"{X} {cross}:StringEquals {{'a'}}", []) is expected, cross
        assert with_x(f"{X} {cross}:StringNotEquals {{'a'}}", []) is expected, cross
    assert ev(f"Exists {X}", {X: []}) is True  # an empty list is present


def test_multi_valued_attribute_without_prefix_is_false() -> None:
    # documented choice: plain operators compare one value with one value
    assert with_x(f"{X} StringEquals 'a'", ["a", "b"]) is False
    assert with_x(f"{X} StringNotEquals 'c'", ["a", "b"]) is False
    assert with_x(f"{X} StringEquals 'a'", []) is False
    assert with_x(f"{X} StringEquals 'a'", ["a"]) is True  # one element counts as the value
    assert with_x(f"{X} StringEquals {{'a'}}", "a") is True
    assert with_x(f"{X} ForAnyOfAnyValues:StringEquals 'a'", ["a", "b"]) is True
    assert with_x(f"{X} ForAllOfAnyValues:StringEquals 'a'", ["a", "b"]) is False


def test_cross_products_with_attributes_on_both_sides() -> None:
    text = f"{X} ForAllOfAnyValues:StringEquals {Y}"
    assert ev(text, {X: ["a", "b"], Y: ["b", "a", "c"]}) is True
    assert ev(text, {X: ["a", "d"], Y: ["b", "a", "c"]}) is False
    assert ev(text, {X: ["a"]}) is False  # right side absent
    assert ev(f"{X} StringEquals {Y}", {X: "a", Y: "a"}) is True
    assert ev(f"{X} ForAnyOfAllValues:StringNotEquals {Y}", {X: ["a", "z"], Y: ["a", "b"]}) is True


def test_wrong_typed_elements_match_nothing() -> None:
    assert with_x(f"{X} ForAnyOfAnyValues:StringEquals {{'1'}}", [1, "1"]) is True
    assert with_x(f"{X} ForAllOfAnyValues:StringEquals {{'1'}}", [1, "1"]) is False
    assert with_x(f"{X} ForAllOfAnyValues:StringNotEquals {{'2'}}", [1, "1"]) is False


# --------------------------------------------------------------------------- keys and matching


def test_attribute_keys_match_case_insensitively_except_the_tag_key() -> None:
    assert ev(f"{X} StringEquals 'a'", {X.upper(): "a"}) is True
    assert ev(f"{X} StringEquals 'a'", {X.lower(): "a"}) is True
    tag = "@Resource[Cloud.Storage/storageAccounts/blobServices/containers/blobs/tags:Project<$key_case_sensitive$>]"
    text = f"{tag} StringEquals 'Cascade'"
    assert ev(text, {tag: "Cascade"}) is True
    assert (
        ev(
            text,
            {tag.replace("Cloud.Storage", "cloud.storage").replace("<$key", "<$KEY"): "Cascade"},
        )
        is True
    )
    assert ev(text, {tag.replace(":Project<", ":project<"): "Cascade"}) is False
    assert ev(text.replace(":Project<", ":PROJECT<"), {tag: "Cascade"}) is False


def test_action_matches_is_a_case_insensitive_glob() -> None:
    assert action_matches("Cloud.Storage/*", "cloud.storage/storageAccounts/blobServices/x/read")
    assert action_matches("*/read", "Cloud.Compute/virtualMachines/read")
    assert action_matches("Cloud.Network/*/read", "Cloud.Network/a/b/read")
    assert not action_matches("Cloud.Network/*/read", "Cloud.Network/a/b/write")
    assert not action_matches("Cloud.Storage/x", "Cloud.Storage/x/y")
    assert action_matches("a.b(c)+", "A.B(C)+")  # no regular expressions
    assert not action_matches("a.b", "axb")
    assert ev("ActionMatches{'*/blobs/*'}", {}) is True


def test_sub_operation_matches() -> None:
    text = "SubOperationMatches{'Blob.List'}"
    assert ev(text, {}, sub="blob.list") is True
    assert ev(text, {}, sub="Blob.Read") is False
    assert ev(text, {}, sub=None) is False
    assert ev(text, None, sub=None) is False  # known even without attributes


def test_legacy_sub_operation_attribute_reads_the_request() -> None:
    text = (
        f"!(ActionMatches{{'{READ}'}} AND @Request[subOperation] ForAnyOfAnyValues:StringEqualsIgnoreCase "
        "{'Blob.Read.WithTagConditions'}) OR @Resource[x] StringEquals 'a'"
    )
    assert ev(text, None, sub="Blob.List") is True
    assert ev(text, None, sub="blob.read.withtagconditions") is None
    assert ev(text, {"@Resource[x]": "a"}, sub="Blob.Read.WithTagConditions") is True
    assert ev(text, {}, sub=None) is True  # no sub-operation: the attribute is absent


# ------------------------------------------------------------------------------- three-valued


def test_three_valued_decided_without_attributes() -> None:
    text = f"(!(ActionMatches{{'X'}})) OR ({X} StringEquals 'a')"
    assert ev(text, None, action="Y") is True
    assert ev(text, None, action="X") is None
    assert ev(text, {}, action="X") is False
    assert ev(text, {X: "a"}, action="X") is True


def test_three_valued_short_circuits() -> None:
    assert ev(f"ActionMatches{{'Y'}} AND {X} StringEquals 'a'", None, action="X") is False
    assert ev(f"{X} StringEquals 'a' AND ActionMatches{{'Y'}}", None, action="X") is False
    assert ev(f"{X} StringEquals 'a' OR ActionMatches{{'X'}}", None, action="X") is True
    assert ev(f"NOT ({X} StringEquals 'a' OR ActionMatches{{'X'}})", None, action="X") is False
    assert ev(f"NOT Exists {X}", None) is None
    assert ev(f"{X} StringEquals 'a' OR {Y} StringEquals 'b'", None) is None
    assert ev(f"{X} StringEquals 'a' AND {Y} StringEquals 'b'", None) is None


def test_three_valued_sees_through_tautologies_on_one_atom() -> None:
    p = f"{X} StringEquals 'a'"
    assert ev(f"{p} OR NOT ({p})", None) is True
    assert ev(f"{p} AND NOT ({p})", None) is False
    assert ev(f"({p} AND Exists {Y}) OR NOT ({p}) OR NOT Exists {Y}", None) is True
    # different atoms on one attribute are not assumed to be related (sound, not complete)
    assert ev(f"{p} OR {X} StringNotEquals 'a'", None) is None
    assert ev(f"{p} OR {X} StringNotEquals 'a'", {}) is False  # indeed: absent makes both false


def test_three_valued_results_are_cached_per_action() -> None:
    compiled = compile_condition(f"(!(ActionMatches{{'X'}})) OR ({X} StringEquals 'a')")
    for _ in range(3):
        assert compiled(ConditionRequest("y")) is True
        assert compiled(ConditionRequest("x")) is None


def test_attributes_read_and_targeted_actions() -> None:
    tree = parse_condition(
        f"(!(ActionMatches{{'{READ}'}} AND NOT SubOperationMatches{{'Blob.List'}})) OR "
        f"({X} StringEquals {Y.lower()} AND NOT Exists @environment[UtcNow] AND ActionMatches{{'b'}})"
    )
    assert targeted_actions(tree) == {READ, "b"}
    assert attributes_read(tree) == {
        X,
        "@Request" + Y.lower()[len("@request") :],
        "@Environment[UtcNow]",
    }
    assert attributes_read(parse_condition("ActionMatches{'a'}")) == frozenset()


def test_compile_is_cached_by_text_and_tree() -> None:
    text = f"{X} StringEquals 'cached'"
    assert compile_condition(text) is compile_condition(text)
    tree = parse_condition(text)
    assert compile_condition(tree) is compile_condition(parse_condition(text))
    assert compile_condition(tree).text == text
    assert repr(compile_condition(tree)) == f"CompiledCondition({text!r})"


def test_request_values_of_every_shape() -> None:
    request = ConditionRequest(READ, None, {X: ("a",), Y: None, "@Resource[n]": 3})
    assert compile_condition(f"{X} StringEquals 'a'")(request) is True
    assert compile_condition(f"Exists {Y}")(request) is False
    assert compile_condition("@Resource[N] NumericEquals 3")(request) is True
    assert request.attributes_known
    assert not ConditionRequest(READ).attributes_known
