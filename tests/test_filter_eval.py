"""Evaluation of compiled ``$filter`` predicates: null rules, arrays, typed comparisons, lambdas,
functions, dicts vs pydantic models vs msgspec Structs, and the compiler against an oracle."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.expr.filter import (
    And,
    BoolLit,
    Call,
    Compare,
    Expr,
    FilterCompileError,
    In,
    Lambda,
    Member,
    Not,
    Or,
    compare_values,
    compile_filter,
    parse_filter,
    print_filter,
)
from auditor.expr.filter.compiler import comparison_constant, compile_ast, plain_constant
from auditor.model.access import RoleAssignment
from tests.test_filter_strategies import (
    conditions,
    member_literal_conditions,
    record_paths,
    records,
    small_literals,
)


def matches(text: str, record: Any) -> bool:
    return compile_filter(text)(record)


EVENT = {
    "id": "/subscriptions/s1/providers/Cloud.ResourceHealth/events/E1",
    "name": "E1",
    "properties": {
        "eventType": "ServiceIssue",
        "status": "Active",
        "priority": 3,
        "duration": 5400,
        "isHIR": True,
        "platformInitiated": False,
        "lastUpdateTime": "2024-02-03T10:00:00Z",
        "impactMitigationTime": None,
        "impact": [
            {
                "impactedService": "Storage",
                "impactedRegions": [
                    {"impactedRegion": "West Europe", "status": "Active"},
                    {"impactedRegion": "North Europe", "status": "Resolved"},
                ],
            },
            {"impactedService": "SQL Database", "impactedRegions": []},
        ],
        "faqs": [],
    },
}


# --- the examples of semantics section 3 -----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "properties/eventType eq 'ServiceIssue' or properties/eventType eq 'SecurityAdvisory'",
            True,
        ),
        ("properties/eventType eq 'SecurityAdvisory' or properties/eventType eq 'RCA'", False),
        ("properties/impact/impactedService eq 'Storage'", True),
        ("properties/impact/impactedService eq 'SQL Database'", True),
        ("properties/impact/impactedService eq 'Key Vault'", False),
        ("properties/impact/impactedRegions/impactedRegion eq 'North Europe'", True),
        ("properties/eventType eq 'ServiceIssue' and properties/status eq 'Active'", True),
        ("properties/eventType eq 'ServiceIssue' and properties/status eq 'Resolved'", False),
    ],
)
def test_health_event_examples(text: str, expected: bool) -> None:
    assert matches(text, EVENT) is expected


# --- members -----------------------------------------------------------------------------------------


def test_member_names_are_case_insensitive() -> None:
    assert matches("PROPERTIES/EVENTTYPE eq 'ServiceIssue'", EVENT)
    assert matches("properties/eventtype eq 'ServiceIssue'", EVENT)
    record = {"Properties": {"EventType": "X"}}
    assert matches("properties/eventType eq 'X'", record)
    assert matches("properties/eventType eq 'X'", {"properties": {"eventType": "X"}})


def test_an_exact_spelling_wins_over_another_case() -> None:
    record = {"name": "exact", "NAME": "other"}
    assert matches("name eq 'exact'", record)
    assert matches("NAME eq 'other'", record)


def test_spellings_are_learned_per_path_segment() -> None:
    predicate = compile_filter("pathlearned eq 1")
    assert [predicate({"PathLearned": 1}), predicate({"pathLEARNED": 1})] == [True, True]
    assert predicate({"PathLearned": 2}) is False
    assert predicate({}) is False


def test_null_rules() -> None:
    record = {"a": None, "b": "x"}
    assert matches("a eq null", record)
    assert matches("missing eq null", record)
    assert matches("missing/deeper/still eq null", record)
    assert not matches("b eq null", record)
    assert matches("b ne null", record)
    assert not matches("a ne null", record)
    assert matches("a ne 'x'", record)  # null ne 'x'
    assert not matches("a eq 'x'", record)
    for op in ("gt", "ge", "lt", "le"):
        assert not matches(f"a {op} 1", record)
        assert not matches(f"a {op} null", record)
        assert not matches(f"missing {op} 'x'", record)


def test_arrays_match_when_any_element_matches() -> None:
    record = {"tags": ["prod", "eu"], "items": [{"n": 1}, {"n": 5}], "deep": [[{"n": 9}]]}
    assert matches("tags eq 'eu'", record)
    assert not matches("tags eq 'us'", record)
    assert matches("tags ne 'prod'", record)  # some element differs
    assert matches("items/n gt 4", record)
    assert matches("items/n lt 2", record)
    assert not matches("items/n gt 5", record)
    assert matches("deep/n eq 9", record)
    assert matches("items/n in (5, 7)", record)


def test_a_path_through_an_empty_array_has_no_value() -> None:
    record = {"items": [], "none": None}
    assert not matches("items/n eq null", record)
    assert not matches("items/n ne 1", record)
    assert matches("none/n eq null", record)
    assert not matches("items eq null", record)


def test_elements_missing_a_member_are_null() -> None:
    record = {"items": [{"n": 1}, {"m": 2}]}
    assert matches("items/n eq null", record)
    assert matches("items/n eq 1", record)


def test_a_bare_member_is_true_only_when_it_is_true() -> None:
    for value, expected in [
        (True, True),
        (False, False),
        (None, False),
        (1, False),
        ("true", False),
    ]:
        assert matches("flag", {"flag": value}) is expected
        assert matches("not flag", {"flag": value}) is not expected
    assert matches("flags", {"flags": [False, True]})


def test_records_of_any_shape_never_raise() -> None:
    predicate = compile_filter("a/b eq 'x' or a/b/any(y: y/c gt 1) or contains(a/b, 'x')")
    for record in [
        None,
        1,
        "text",
        [],
        [None],
        {"a": 1},
        {"a": "s"},
        {"a": [1, [2]]},
        {1: 2},
        object(),
        {"a": {"b": object()}},
        {"a": {"b": Decimal("NaN")}},
    ]:
        assert predicate(record) in (True, False)


# --- typed comparisons -------------------------------------------------------------------------------


def test_numbers_compare_with_numbers_only() -> None:
    assert matches("n eq 1", {"n": 1})
    assert matches("n eq 1", {"n": 1.0})
    assert matches("n eq 1.0", {"n": 1})
    assert matches("n gt 1.5", {"n": 2})
    assert matches("n le 2.5", {"n": Decimal("2.5")})
    assert not matches("n eq 1", {"n": True})
    assert not matches("n eq true", {"n": 1})
    assert not matches("n eq 1", {"n": "1"})
    assert not matches("n gt 0", {"n": "1"})
    assert matches("n ne 1", {"n": "1"})  # different types: ne is true


def test_strings_compare_by_code_point_and_case() -> None:
    assert matches("s lt 'b'", {"s": "a"})
    assert not matches("s lt 'B'", {"s": "a"})
    assert not matches("s eq 'A'", {"s": "a"})
    assert matches("s ge ''", {"s": ""})


def test_date_times_compare_as_instants() -> None:
    record = {"t": "2024-01-01T01:00:00+01:00", "naive": "2024-01-01T00:00:00", "bad": "soon"}
    assert matches("t eq 2024-01-01T00:00:00Z", record)
    assert matches("t lt 2024-01-01T00:00:01Z", record)
    assert matches("naive eq 2024-01-01T00:00:00Z", record)
    assert not matches("bad eq 2024-01-01T00:00:00Z", record)
    assert matches("bad ne 2024-01-01T00:00:00Z", record)
    assert not matches("bad lt 2024-01-01T00:00:00Z", record)
    aware = datetime(2024, 1, 1, tzinfo=UTC)
    assert matches("t eq 2024-01-01T00:00:00Z", {"t": aware})
    assert matches("t eq 2024-01-01T00:00:00Z", {"t": aware.replace(tzinfo=None)})
    assert not matches("t eq 2024-01-01T00:00:00Z", {"t": 1704067200})


def test_guids_compare_case_insensitively() -> None:
    lower = "8e3af657-a8ff-443c-a75c-2fe8c4bcb635"
    record = {"id": lower.upper(), "uuid": uuid.UUID(lower)}
    assert matches(f"id eq {lower}", record)
    assert matches(f"id eq '{lower}'", record)
    assert matches(f"uuid eq '{lower.upper()}'", record)
    assert matches(f"id in ('x', '{lower}')", record)
    assert not matches(f"id ne '{lower}'", record)
    assert not matches("id eq 'something else'", record)


def test_mismatched_types_compare_false_and_never_raise() -> None:
    record = {"v": {"nested": 1}, "l": [1, "a", None, {"k": 1}]}
    for literal in [
        "1",
        "'a'",
        "true",
        "2024-01-01T00:00:00Z",
        "8e3af657-a8ff-443c-a75c-2fe8c4bcb635",
    ]:
        for op in ("eq", "gt", "ge", "lt", "le"):
            assert not matches(f"v {op} {literal}", record)
        assert matches(f"v ne {literal}", record)


@pytest.mark.parametrize(
    ("op", "a", "b", "expected"),
    [
        ("eq", None, None, True),
        ("ne", None, None, False),
        ("ne", None, 1, True),
        ("lt", None, 1, False),
        ("eq", 1, 1.0, True),
        ("eq", True, 1, False),
        ("lt", False, True, True),
        ("eq", "a", "a", True),
        ("gt", "b", "a", True),
        ("eq", "A", uuid.UUID(int=10), False),
        ("eq", str(uuid.UUID(int=10)).upper(), uuid.UUID(int=10), True),
        ("eq", "2024-01-01T00:00:00Z", datetime(2024, 1, 1, tzinfo=UTC), True),
        ("gt", "x", 1, False),
        ("ne", "x", 1, True),
        ("eq", [1], [1], False),
        ("lt", Decimal("NaN"), 1.0, False),
    ],
)
def test_compare_values(op: str, a: Any, b: Any, expected: bool) -> None:
    assert compare_values(op, a, b) is expected


# --- functions and lambdas ---------------------------------------------------------------------------


def test_string_functions() -> None:
    record = {"title": "Network outage in EU", "n": 5, "list": ["abc", "xyz"]}
    assert matches("contains(title, 'outage')", record)
    assert not matches("contains(title, 'Outage')", record)
    assert matches("contains(tolower(title), 'network')", record)
    assert matches("startswith(title, 'Net') and endswith(title, 'EU')", record)
    assert matches("toupper(title) eq 'NETWORK OUTAGE IN EU'", record)
    assert not matches("contains(n, '5')", record)
    assert matches("tolower(n) eq null", record)
    assert matches("startswith(list, 'xy')", record)
    assert matches("contains('a fixed text', 'fixed')", record)


def test_lambdas() -> None:
    assert matches(
        "properties/impact/any(i: i/impactedRegions/any(r: r/impactedRegion eq 'West Europe'))",
        EVENT,
    )
    assert matches(
        "properties/impact/any(i: i/impactedService eq 'Storage' and "
        "i/impactedRegions/any(r: r/status eq 'Resolved'))",
        EVENT,
    )
    assert not matches(
        "properties/impact/any(i: i/impactedService eq 'SQL Database' and "
        "i/impactedRegions/any(r: r/status eq 'Resolved'))",
        EVENT,
    )
    assert not matches("properties/impact/all(i: i/impactedService eq 'Storage')", EVENT)
    assert matches("properties/impact/all(i: i/impactedService ne 'Key Vault')", EVENT)
    assert matches("properties/faqs/all(f: f/question eq 'never')", EVENT)  # vacuously
    assert matches("properties/missing/all(f: f eq 1)", EVENT)
    assert not matches("properties/missing/any(f: f eq null)", EVENT)
    assert matches("properties/impact/any()", EVENT)
    assert not matches("properties/faqs/any()", EVENT)
    # the variable shadows a member of the record; other paths start at the record
    record = {"x": "outer", "items": [{"x": "inner"}]}
    assert matches("items/any(x: x/x eq 'inner')", record)
    assert matches("items/any(i: x eq 'outer' and i/x eq 'inner')", record)
    assert matches("items/any(i: i/any(j: j eq 'inner'))", {"items": [["inner"]]})


def test_lambda_on_scalars_and_nested_arrays() -> None:
    assert matches("tags/any(t: t eq 'a')", {"tags": "a"})
    assert matches("tags/any(t: t eq 'b')", {"tags": [["a"], ["b"]]})


def test_endpoint_functions_are_not_record_predicates() -> None:
    for text in ["atScope()", "assignedTo('p')", "a eq 1 and atScope()"]:
        with pytest.raises(FilterCompileError, match="only the role- and deny-assignment"):
            compile_filter(text)
    with pytest.raises(FilterCompileError) as info:
        compile_filter("a eq 1 and atScope()")
    assert "column 12" in str(info.value)


def test_hand_built_trees_that_are_not_conditions_are_refused() -> None:
    from auditor.expr.filter import StringLit

    with pytest.raises(FilterCompileError):
        compile_filter(StringLit("x"))
    node: Expr = Member(("a",))
    for _ in range(200):
        node = Not(node)
    with pytest.raises(FilterCompileError, match="nested too deeply"):
        compile_ast(node)


def test_compiled_callables_are_cached_by_canonical_text() -> None:
    first = compile_filter("cache/test eq 'x'")
    assert compile_filter("cache/test  EQ  'x'") is first
    assert compile_filter(parse_filter("cache/test eq 'x'")) is first
    assert compile_filter("Cache/test eq 'x'") is not first  # a different spelling of a member


# --- evaluation properties ---------------------------------------------------------------------------

member_conditions = member_literal_conditions(record_paths.map(tuple))


some_records = st.lists(records, min_size=1, max_size=6)


@settings(max_examples=100)
@given(member_conditions, some_records)
def test_not_not_p_is_p(node: Expr, batch: list[Any]) -> None:
    p, not_not_p = compile_ast(node), compile_ast(Not(Not(node)))
    for record in batch:
        assert not_not_p(record) == p(record)


@settings(max_examples=100)
@given(member_conditions, member_conditions, some_records)
def test_de_morgan(p: Expr, q: Expr, batch: list[Any]) -> None:
    not_and, or_not = compile_ast(Not(And((p, q)))), compile_ast(Or((Not(p), Not(q))))
    not_or, and_not = compile_ast(Not(Or((p, q)))), compile_ast(And((Not(p), Not(q))))
    for record in batch:
        assert not_and(record) == or_not(record)
        assert not_or(record) == and_not(record)


@settings(max_examples=200)
@given(
    st.builds(
        In,
        record_paths.map(lambda path: Member(tuple(path))),
        st.lists(small_literals, min_size=1, max_size=4).map(tuple),
    ),
    some_records,
)
def test_in_is_a_chain_of_eq(node: In, batch: list[Any]) -> None:
    chain = [Compare("eq", node.operand, value) for value in node.values]
    as_or = chain[0] if len(chain) == 1 else Or(tuple(chain))
    compiled = [compile_ast(node), compile_ast(as_or), compile_ast(as_or, specialise=False)]
    for record in batch:
        assert len({predicate(record) for predicate in compiled}) == 1


@settings(max_examples=200)
@given(member_conditions, some_records)
def test_compiled_fast_paths_agree_with_the_generic_path_and_the_oracle(
    node: Expr, batch: list[Any]
) -> None:
    fast, generic = compile_ast(node), compile_ast(node, specialise=False)
    for record in batch:
        assert fast(record) == generic(record) == oracle(node, record, {})


@settings(max_examples=150)
@given(conditions, some_records)
def test_any_parsed_filter_compiles_and_evaluates_without_raising(
    node: Expr, batch: list[Any]
) -> None:
    predicate = compile_filter(print_filter(node))
    generic = compile_ast(node, specialise=False)
    for record in batch:
        result = predicate(record)
        assert result in (True, False)
        assert result == generic(record) == oracle(node, record, {})


# --- dicts, pydantic models and msgspec Structs give the same answers ------------------------------

ids = st.sampled_from(
    ["8e3af657-a8ff-443c-a75c-2fe8c4bcb635", "8E3AF657-A8FF-443C-A75C-2FE8C4BCB635", "p2", ""]
)
role_assignments = st.fixed_dictionaries(
    {"id": st.sampled_from(["/ra/1", "/ra/2"]), "name": st.sampled_from(["one", "two"])},
    optional={
        "properties": st.fixed_dictionaries(
            {},
            optional={
                "principalId": ids,
                "principalType": st.sampled_from(["User", "Group", "ServicePrincipal"]),
                "scope": st.sampled_from(
                    ["/", "/subscriptions/s1", "/subscriptions/s1/resourceGroups/rg"]
                ),
                "condition": st.none() | st.just("@Resource[x] StringEquals 'y'"),
                "conditionVersion": st.sampled_from(["2.0", "1.0"]),
                "customField": st.sampled_from(["extra", "EXTRA"]),
            },
        )
    },
)
ROLE_ASSIGNMENT_FILTERS = [
    "properties/principalId eq '8e3af657-a8ff-443c-a75c-2fe8c4bcb635'",
    "properties/principalType in ('User', 'Group') and properties/conditionVersion eq '2.0'",
    "properties/condition ne null",
    "properties/condition eq null or properties/scope eq '/'",
    "startswith(properties/scope, '/subscriptions/s1/') or not contains(name, 'o')",
    "PROPERTIES/PRINCIPALTYPE eq 'User'",
    "properties/customField eq 'extra'",
    "properties/missing eq null and id ne null",
    "properties/scope gt '/subscriptions'",
]


@settings(max_examples=200)
@given(role_assignments, st.sampled_from(ROLE_ASSIGNMENT_FILTERS))
def test_dicts_and_pydantic_models_give_the_same_answers(record: dict[str, Any], text: str) -> None:
    model = RoleAssignment.model_validate(record)
    predicate = compile_filter(text)
    assert predicate(model) == predicate(record)
    assert predicate(model.to_wire()) == predicate(record)


class Region(msgspec.Struct, rename="camel"):
    impacted_region: str
    status: str | None = None


class Impact(msgspec.Struct, rename="camel"):
    impacted_service: str
    impacted_regions: list[Region] = []


class EventProperties(msgspec.Struct, rename="camel"):
    event_type: str
    status: str
    priority: int
    is_hir: bool = msgspec.field(name="isHIR", default=False)
    last_update_time: str | None = None
    impact: list[Impact] = []


class Event(msgspec.Struct):
    id: str
    name: str
    properties: EventProperties


def test_msgspec_structs_by_wire_name() -> None:
    event = msgspec.convert(EVENT, Event)
    for text in [
        "properties/eventType eq 'ServiceIssue' or properties/eventType eq 'SecurityAdvisory'",
        "properties/impact/impactedService eq 'Storage'",
        "properties/impact/any(i: i/impactedRegions/any(r: r/impactedRegion eq 'West Europe'))",
        "properties/isHIR and properties/priority le 7",
        "properties/lastUpdateTime ge 2024-02-01T00:00:00Z",
        "properties/impact/impactedRegions/status eq 'Resolved'",
    ]:
        assert matches(text, event) is True
        assert matches(text, EVENT) is True
    assert matches("properties/event_type eq 'ServiceIssue'", event)  # the attribute name works too
    assert not matches("properties/__class__ eq null and properties/missing ne null", event)


def test_pydantic_models_by_alias_and_extra_fields() -> None:
    from pydantic import BaseModel, ConfigDict, Field

    class Props(BaseModel):
        model_config = ConfigDict(extra="allow", populate_by_name=True)
        event_type: str = Field(alias="eventType")

    class Wrapper(BaseModel):
        properties: Props
        tags: list[str] = []

    record = Wrapper.model_validate(
        {"properties": {"eventType": "RCA", "Custom": 1}, "tags": ["a", "b"]}
    )
    assert matches("properties/eventType eq 'RCA'", record)
    assert matches("properties/EVENTTYPE eq 'RCA'", record)
    assert matches("properties/event_type eq 'RCA'", record)
    assert matches("properties/custom eq 1", record)
    assert matches("tags eq 'b' and tags/any(t: t eq 'a')", record)
    assert matches("properties/model_fields eq null and properties/dict eq null", record)


def test_plain_objects_expose_public_attributes_only() -> None:
    class Thing:
        def __init__(self) -> None:
            self.visible = "yes"
            self._hidden = "no"

        @property
        def computed(self) -> str:
            return "never read"

    thing = Thing()
    assert matches("visible eq 'yes'", thing)
    assert matches("VISIBLE eq 'yes'", thing)
    assert matches("_hidden eq null", thing)
    assert matches("computed eq null", thing)
    assert matches("__class__ eq null and __dict__ eq null", thing)


# --- an independent, naive evaluator -----------------------------------------------------------------


def oracle(node: Expr, record: Any, env: dict[str, Any]) -> bool:
    """The semantics written as plainly as possible (walks the AST for every record)."""
    if isinstance(node, And):
        return all(oracle(item, record, env) for item in node.operands)
    if isinstance(node, Or):
        return any(oracle(item, record, env) for item in node.operands)
    if isinstance(node, Not):
        return not oracle(node.operand, record, env)
    if isinstance(node, BoolLit):
        return node.value
    if isinstance(node, Member):
        return any(v is True for v in _values(node, record, env))
    if isinstance(node, Compare):
        left, right = _values(node.left, record, env), _values(node.right, record, env)
        return any(compare_values(node.op, a, b) for a in left for b in right)
    if isinstance(node, In):
        constants = [comparison_constant(v) for v in node.values]
        return any(
            compare_values("eq", a, b)
            for a in _values(node.operand, record, env)
            for b in constants
        )
    if isinstance(node, Call):
        a = _values(node.args[0], record, env, compared=False)
        b = _values(node.args[1], record, env, compared=False)
        pairs = [(x, y) for x in a for y in b if isinstance(x, str) and isinstance(y, str)]
        if node.name == "contains":
            return any(y in x for x, y in pairs)
        if node.name == "startswith":
            return any(x.startswith(y) for x, y in pairs)
        return any(x.endswith(y) for x, y in pairs)
    if isinstance(node, Lambda):
        elements = [e for e in _values(node.collection, record, env) if e is not None]
        if node.predicate is None or node.variable is None:
            return bool(elements)
        key = node.variable.casefold()
        results = [oracle(node.predicate, record, {**env, key: e}) for e in elements]
        return any(results) if node.op == "any" else all(results)
    raise AssertionError(f"not a condition: {node!r}")


def _values(node: Expr, record: Any, env: dict[str, Any], *, compared: bool = True) -> list[Any]:
    if isinstance(node, Member):
        first = node.path[0].casefold()
        current, path = ([env[first]], node.path[1:]) if first in env else ([record], node.path)
        current = _flat(current)
        for name in path:
            current = _flat([_get(item, name) for item in current])
        return current
    if isinstance(node, Call) and node.name in ("tolower", "toupper"):
        inner = _values(node.args[0], record, env, compared=False)
        return [
            (v.lower() if node.name == "tolower" else v.upper()) if isinstance(v, str) else None
            for v in inner
        ]
    if isinstance(node, Compare | In | Not | And | Or | Lambda | Call | BoolLit) and not (
        isinstance(node, BoolLit) and not compared
    ):
        if isinstance(node, BoolLit):
            return [node.value]
        return [oracle(node, record, env)]
    return [comparison_constant(node) if compared else plain_constant(node)]  # type: ignore[arg-type]


def _flat(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for value in values:
        if isinstance(value, list | tuple):
            out.extend(_flat(list(value)))
        else:
            out.append(value)
    return out


def _get(item: Any, name: str) -> Any:
    if isinstance(item, dict):
        if name in item:
            return item[name]
        for key, value in item.items():
            if isinstance(key, str) and key.casefold() == name.casefold():
                return value
    return None
