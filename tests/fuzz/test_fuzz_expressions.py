"""Fuzzing ``$filter`` expressions (``filter check``, ``query --filter``, with and without
``--scope``) and condition expressions (``condition check``, and inside a snapshot's role assignment,
evaluated by ``access check`` and ``audit``): generated from the grammars' ASTs and from realistic
texts, then damaged token by token; deep nesting, huge numbers, wildcard-heavy patterns, control and
bidi characters, undecodable bytes (as a shell passes them: surrogate escapes)."""

from __future__ import annotations

import os
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from auditor.expr.condition import print_condition
from auditor.expr.filter import print_filter
from tests.fuzz._bases import AS_OF, requests_bytes, scopes, snapshot
from tests.fuzz._harness import budget, run_and_check
from tests.fuzz._hostile import HOSTILE_NUMBERS, HOSTILE_STRINGS, to_json
from tests.test_condition_properties import any_leaf, trees
from tests.test_condition_vendor import EXAMPLES
from tests.test_filter_strategies import member_literal_conditions, record_paths

ESTATE = "estate.json"
REQUESTS = "requests.jsonl"
CONTAINER = "@Resource[Cloud.Storage/storageAccounts/blobServices/containers:name]"
READ = "Cloud.Storage/storageAccounts/blobServices/containers/blobs/read"

FILTERS = [
    "principalId eq 'cd18c18a-775c-5776-a857-fb9fc1e4af11'",
    "properties/principalType eq 'Group' and properties/scope ne '/'",
    "atScope()",
    "assignedTo('cd18c18a-775c-5776-a857-fb9fc1e4af11')",
    "properties/eventType eq 'ServiceIssue' or properties/eventLevel in ('Critical', 'Warning')",
    "contains(tolower(name), 'prod') and not startswith(name, 'x')",
    "tags/any(t: t eq 'a')",
    "properties/impactStartTime ge 2024-01-01T00:00:00Z",
    "id eq 8e3af657-a8ff-443c-a75c-2fe8c4bcb635",
    "a/b/c eq 1.5e10 and x eq null",
    "name eq 'it''s'",
    "location in ('westeurope', 'northeurope') and properties/clusterVersion lt '5.1'",
]
CONDITIONS = [
    *(e.text for e in EXAMPLES),
    f"{CONTAINER} StringLike '{'*a' * 8}b'",
    f"{CONTAINER} ForAnyOfAnyValues:StringLike {{'{'*' * 18}z', '{'*a' * 10}b'}}",
    f"ActionMatches{{'{'*' * 18}'}} OR ActionMatches{{'Cloud.*/{'*/' * 20}read'}}",
    "@Environment[UtcNow] DateTimeGreaterThan '2027-02-30T00:00:00.0Z'",
    "@Request[x:y] NumericLessThan " + "9" * 400,
]

FILTER_TOKENS = [
    "(", ")", "'", "''", " and ", " or ", "not ", " eq ", " in ", "/", "//", ",", ":", "x: ",
    "any(", "all(", "$it", "$filter", "contains(", "tolower(", "{", "}", "[", "]", " ",
    "2027-02-30T00:00:00Z", "'" + "*" * 30 + "'", "-",
]  # fmt: skip
CONDITION_TOKENS = [
    "(", ")", "!", " AND ", " OR ", " NOT ", "'", "{", "}", "[", "]", ":", "@Request[",
    "@Resource[", "@Principal[", "@Environment[", "ActionMatches", "SubOperationMatches",
    " StringLike ", " StringEquals ", " ForAnyOfAnyValues:", " ForAllOfAllValues:", " Exists ",
    " NumericLessThan ", " DateTimeEquals ", " GuidEquals ", "<$key_case_sensitive$>", "&$keys$&",
    "'" + "*a" * 12 + "b'",
]  # fmt: skip

hostile_tokens = st.one_of(
    st.sampled_from(HOSTILE_STRINGS),
    st.sampled_from(HOSTILE_NUMBERS),
    st.text(max_size=8),
)


def _no_nul(text: str) -> str:
    return text.replace("\x00", "")  # a command line cannot carry NUL


@st.composite
def damaged(draw: st.DrawFn, text: str, tokens: list[str]) -> str:
    """``text`` with a few token-level changes; now and then nested very deep."""
    for _ in range(draw(st.integers(0, 4))):
        pos = draw(st.integers(0, len(text)))
        kind = draw(st.integers(0, 5))
        if kind == 0:
            text = text[:pos] + draw(st.sampled_from(tokens)) + text[pos:]
        elif kind == 1:
            text = text[:pos] + draw(hostile_tokens) + text[pos:]
        elif kind == 2:
            text = text[:pos] + text[pos + draw(st.integers(1, 20)) :]
        elif kind == 3:
            text = text[:pos]
        elif kind == 4:
            end = pos + draw(st.integers(1, 20))
            text = text[:pos] + text[pos:end] * draw(st.integers(2, 30)) + text[end:]
        else:
            depth = draw(st.sampled_from([2, 100, 1_000, 10_000]))
            opening, closing = draw(st.sampled_from([("(", ")"), ("not (", ")"), ("!(", ")")]))
            text = opening * depth + text + closing * depth
    return text


def _undecodable(data: bytes) -> str:
    return os.fsdecode(data.replace(b"\x00", b""))  # how the shell's bytes reach Python


filter_texts = st.one_of(
    st.sampled_from(FILTERS).flatmap(lambda t: damaged(t, FILTER_TOKENS)),
    member_literal_conditions(record_paths)
    .map(print_filter)
    .flatmap(lambda t: damaged(t, FILTER_TOKENS)),
    st.binary(max_size=200).map(_undecodable),
).map(_no_nul)

condition_texts = st.one_of(
    st.sampled_from(CONDITIONS).flatmap(lambda t: damaged(t, CONDITION_TOKENS)),
    trees(any_leaf, max_leaves=6)
    .map(print_condition)
    .flatmap(lambda t: damaged(t, CONDITION_TOKENS)),
    st.binary(max_size=200).map(_undecodable),
)


def _filter_argv(which: int, expr: str) -> list[str]:
    return [
        ["filter", "check", "--", expr],
        ["query", "role-assignments", "--snapshot", ESTATE, f"--filter={expr}", "--format", "json"],
        ["query", "health-events", "--snapshot", ESTATE, f"--filter={expr}", "--format", "json"],
        [
            "query",
            "role-assignments",
            "--snapshot",
            ESTATE,
            "--scope",
            scopes()[-1],
            f"--filter={expr}",
        ],
        ["query", "deny-assignments", "--snapshot", ESTATE, f"--filter={expr}"],
    ][which]


@budget(quick=60)
@given(expr=filter_texts, which=st.integers(0, 4))
def test_filters(expr: str, which: int) -> None:
    estate = {ESTATE: to_json(snapshot())} if which else {}
    run_and_check(_filter_argv(which, expr), inputs=estate)


@budget(quick=60)
@given(expr=condition_texts.map(_no_nul))
def test_condition_check(expr: str) -> None:
    run_and_check(["condition", "check", "--", expr])


def _estate_with(condition: str) -> dict[str, Any]:
    doc = snapshot()
    props = doc["roleAssignments"][0]["properties"]
    props["condition"], props["conditionVersion"] = condition, "2.0"
    deny = doc["denyAssignments"][0]["properties"]
    deny["condition"], deny["conditionVersion"] = condition, "2.0"
    return doc


def _requests_for(doc: dict[str, Any], value: str) -> bytes:
    props = doc["roleAssignments"][0]["properties"]
    base = {"principalId": props["principalId"], "scope": props["scope"]}
    return requests_bytes(
        [
            {**base, "action": READ, "dataAction": True, "attributes": {CONTAINER: value}},
            {**base, "action": READ, "dataAction": True},
            {**base, "action": "Cloud.Authorization/roleAssignments/write"},
            {**base, "action": "a" * 200, "attributes": {CONTAINER: [value] * 20}},
        ]
    )


@budget(quick=40)
@given(
    expr=condition_texts,
    value=st.one_of(st.just("a" * 200), st.sampled_from(HOSTILE_STRINGS)),
    audit=st.booleans(),
)
def test_conditions_in_an_estate(expr: str, value: str, audit: bool) -> None:
    doc = _estate_with(expr)
    inputs = {ESTATE: to_json(doc), REQUESTS: _requests_for(doc, value)}
    argv = (
        ["audit", "--snapshot", ESTATE, "--as-of", AS_OF, "-o", "json=out.json"]
        if audit
        else ["access", "check", "--snapshot", ESTATE, "--requests", REQUESTS, "--format", "json"]
    )
    run_and_check(argv, inputs=inputs, input_name=(ESTATE, REQUESTS))
