"""Units of the access engine: scope tree, directory, globs, role catalogue, request parsing."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from auditor.access.catalogue import Catalogue
from auditor.access.decision import Decision
from auditor.access.directory import Directory
from auditor.access.globs import covers, intersects, matches
from auditor.access.requests import parse_request, parse_requests, read_request_lines
from auditor.access.scopes import ScopeTree, scope_key
from auditor.errors import InputError
from auditor.estate.records import HierarchyRecord
from tests.test_access_support import MG, MG2, OWNER, RG, SUB, SUB2, VM, group, role, user

# ------------------------------------------------------------------------------------ scopes


def _tree() -> ScopeTree:
    return ScopeTree(
        [
            HierarchyRecord(id=MG, parent="/"),
            HierarchyRecord(id=MG2.upper() + "/", parent=MG),
            HierarchyRecord(id=SUB, parent=MG2),
        ]
    )


def test_scope_key() -> None:
    assert scope_key("/") == "/"
    assert scope_key("//") == "/"
    assert scope_key("/Subscriptions/ABC/") == "/subscriptions/abc"


def test_chain_uses_structure_and_hierarchy() -> None:
    tree = _tree()
    chain = tree.chain(scope_key(VM))
    assert chain == (
        scope_key(VM),
        scope_key(VM).rsplit("/", 1)[0],
        scope_key(RG + "/providers/Cloud.Compute"),
        scope_key(RG + "/providers"),
        scope_key(RG),
        scope_key(SUB + "/resourceGroups"),
        scope_key(SUB),
        scope_key(MG2),
        scope_key(MG),
        "/",
    )
    assert tree.chain(scope_key(SUB2)) == (scope_key(SUB2), "/")
    assert tree.chain("/") == ("/",)
    assert tree.chain(scope_key("/providers/Cloud.Management/managementGroups/other")) == (
        scope_key("/providers/Cloud.Management/managementGroups/other"),
        "/",
    )


def test_display_keeps_first_casing() -> None:
    tree = _tree()
    assert tree.display(scope_key(MG2)) == MG2.upper()
    key = tree.add("/subscriptions/Sub-X/resourceGroups/RG/")
    tree.add("/SUBSCRIPTIONS/sub-x/resourcegroups/rg")
    assert tree.display(key) == "/subscriptions/Sub-X/resourceGroups/RG"


def test_kinds_and_resource_types() -> None:
    tree = _tree()
    tree.add(VM)
    assert ScopeTree.kind("/") == "root"
    assert ScopeTree.kind(scope_key(MG)) == "managementGroup"
    assert ScopeTree.kind(scope_key(SUB)) == "subscription"
    assert ScopeTree.kind(scope_key(RG)) == "resourceGroup"
    assert ScopeTree.kind(scope_key(VM)) == "resource"
    assert tree.resource_type(scope_key(VM)) == "Cloud.Compute/virtualMachines"
    nested = tree.add(VM + "/extensions/ext1")
    assert tree.resource_type(nested) == "Cloud.Compute/virtualMachines/extensions"
    assert ScopeTree.subscription_of(scope_key(VM)) == scope_key(SUB)
    assert ScopeTree.subscription_of(scope_key(MG)) is None


def test_hierarchy_cycle_terminates() -> None:
    tree = ScopeTree(
        [
            HierarchyRecord(id=MG, parent=MG2),
            HierarchyRecord(id=MG2, parent=MG),
            HierarchyRecord(id=SUB, parent=MG),
        ]
    )
    chain = tree.chain(scope_key(RG))
    assert chain[-1] == "/" and scope_key(MG) in chain and scope_key(MG2) in chain
    assert len(tree.hierarchy_cycles) == 1


# --------------------------------------------------------------------------------- directory


def test_transitive_groups_and_paths() -> None:
    directory = Directory(
        [
            user("U", "g1", "g2"),
            group("g1", "g3"),
            group("g2", "g3"),
            group("g3", "g4"),
            group("g4"),
        ]
    )
    assert directory.groups_of("u") == {"g1", "g2", "g3", "g4"}
    assert directory.identities("u") == {"u", "g1", "g2", "g3", "g4"}
    assert directory.group_path("u", "g4") in {("u", "g1", "g3", "g4"), ("u", "g2", "g3", "g4")}
    assert directory.group_path("u", "nope") == ()
    members = directory.transitive_members("g3")
    assert set(members) == {"g1", "g2", "u"}
    assert Directory.path_to("u", "g3", members)[-1] == "g3"
    assert directory.display("u") == "U"
    assert directory.cycles() == []


def test_membership_cycles_reported_once_each() -> None:
    directory = Directory(
        [
            user("u", "a"),
            group("a", "b"),
            group("b", "a"),
            group("c", "c"),
            group("d", "e"),
            group("e", "f"),
            group("f", "d"),
        ]
    )
    assert directory.groups_of("u") == {"a", "b"}
    assert directory.groups_of("a") == {"b"}
    cycles = directory.cycles()
    assert sorted(sorted(c) for c in cycles) == [["a", "b"], ["c"], ["d", "e", "f"]]


@given(st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=30))
def test_groups_of_matches_reachability(edges: list[tuple[int, int]]) -> None:
    member_of: dict[int, list[int]] = {}
    for a, b in edges:
        member_of.setdefault(a, []).append(b)
    directory = Directory(
        [group(f"n{i}", *(f"n{j}" for j in member_of.get(i, []))) for i in range(8)]
    )
    for start in range(8):
        seen: set[int] = set()
        stack = list(member_of.get(start, []))
        while stack:
            node = stack.pop()
            if node not in seen:
                seen.add(node)
                stack.extend(member_of.get(node, []))
        seen.discard(start)
        assert directory.groups_of(f"n{start}") == {f"n{i}" for i in seen}
        # the decision's form of the identity set: the same members, each once, before and after
        # the set form is cached
        expected = {f"n{i}" for i in seen} | {f"n{start}"}
        for _ in range(2):
            found = directory.identity_tuple(f"n{start}")
            assert len(found) == len(set(found)) and set(found) == expected
            assert directory.identities(f"n{start}") == expected


# ------------------------------------------------------------------------------------- globs


@pytest.mark.parametrize(
    ("pattern", "operation", "expected"),
    [
        ("*", "Cloud.Compute/virtualMachines/write", True),
        ("*/read", "Cloud.Network/virtualNetworks/subnets/read", True),
        ("*/read", "Cloud.Network/virtualNetworks/subnets/write", False),
        ("Cloud.Network/*/read", "cloud.network/a/b/READ", True),
        ("Cloud.Network/*/read", "Cloud.Network/read", False),
        ("Cloud.Compute/*", "Cloud.Compute/x", True),
        ("Cloud.Compute/*", "Cloud.ComputeX/x", False),
        ("a*b*c", "abc", True),
        ("a*b*c", "axxbyyc", True),
        ("a*b*c", "axxcyyb", False),
        ("a.b", "axb", False),
        ("a?b", "axb", False),
    ],
)
def test_matches(pattern: str, operation: str, expected: bool) -> None:
    assert matches(pattern, operation) is expected


def test_intersects_and_covers() -> None:
    assert intersects("Cloud.Compute/*", "*/write")
    assert intersects("*/read", "Cloud.Network/*")
    assert not intersects("Cloud.Compute/*", "Cloud.Network/*")
    assert not intersects("*/read", "*/write")
    assert covers("*", "Cloud.Compute/*")
    assert covers("Cloud.Compute/*", "Cloud.Compute/virtualMachines/*/read")
    assert not covers("Cloud.Compute/*/read", "Cloud.Compute/*")
    assert covers("cloud.compute/virtualmachines/write", "Cloud.Compute/virtualMachines/WRITE")


_ALPHABET = st.text(alphabet="ab/*", max_size=6)


@given(_ALPHABET, _ALPHABET, st.text(alphabet="ab/", max_size=7))
def test_glob_relations_are_sound(p: str, q: str, op: str) -> None:
    if matches(p, op) and matches(q, op):
        assert intersects(p, q)
    if covers(p, q) and matches(q, op):
        assert matches(p, op)


# --------------------------------------------------------------------------------- catalogue


def test_catalogue_by_guid_whatever_prefix() -> None:
    catalogue = Catalogue([role("22222222-0000-0000-0000-000000000000", "Custom", ["a/*"])])
    assert catalogue.role_of(f"/subscriptions/x/providers/X/roleDefinitions/{OWNER.upper()}")
    assert catalogue.name(OWNER) == "Owner"
    assert catalogue.granting("22222222-0000-0000-0000-000000000000", "a/b", False)
    assert not catalogue.granting("22222222-0000-0000-0000-000000000000", "a/b", True)
    assert catalogue.granting("missing", "a/b", False) == ()


# ---------------------------------------------------------------------------------- requests


def test_parse_request_full() -> None:
    request = parse_request(
        {
            "principalId": "p",
            "action": "a/b",
            "dataAction": True,
            "scope": "/",
            "subOperation": None,
            "attributes": {"@Resource[x]": ["a", 1, True]},
        }
    )
    assert request.dataAction and request.attributes == {"@Resource[x]": ["a", 1, True]}
    assert parse_request({"principalId": "p", "action": "a", "scope": "/"}).attributes is None


@pytest.mark.parametrize(
    ("obj", "where", "words"),
    [
        ([], "line 4", "expected a JSON object"),
        ({"action": "a", "scope": "/"}, "field principalId", "required"),
        ({"principalId": 5, "action": "a", "scope": "/"}, "field principalId", "a string"),
        ({"principalId": "p", "action": "", "scope": "/"}, "field action", "non-empty"),
        ({"principalId": "p", "action": "a", "scope": "subscriptions/x"}, "field scope", '"/"'),
        ({"principalId": "p", "action": "a", "scope": "/", "dataAction": "yes"}, "dataAction", ""),
        ({"principalId": "p", "action": "a", "scope": "/", "subOperation": 1}, "subOperation", ""),
        ({"principalId": "p", "action": "a", "scope": "/", "attributes": []}, "attributes", ""),
        (
            {"principalId": "p", "action": "a", "scope": "/", "attributes": {"k": 1.5}},
            "field attributes.k",
            "",
        ),
        (
            {"principalId": "p", "action": "a", "scope": "/", "attributes": {"k": {"x": 1}}},
            "field attributes.k",
            "",
        ),
        ({"principalId": "p", "action": "a", "scope": "/", "bogus": 1}, "field bogus", "unknown"),
    ],
)
def test_parse_request_errors(obj: object, where: str, words: str) -> None:
    with pytest.raises(InputError) as info:
        parse_request(obj, source="req.jsonl", line=4)
    message = str(info.value)
    assert message.startswith("req.jsonl: line 4")
    assert where in message and words in message


def test_read_request_lines_numbers_lines() -> None:
    lines = [
        b'{"principalId": "p", "action": "a", "scope": "/"}\n',
        b"\n",
        b'{"principalId": "p", "action": "a", "scope": "/"\n',
    ]
    stream = read_request_lines(lines, source="batch.jsonl")
    assert next(stream).principalId == "p"
    with pytest.raises(InputError, match=r"batch.jsonl: line 3: invalid JSON"):
        next(stream)


def test_read_request_lines_accepts_one_pretty_object() -> None:
    pretty = ["{\n", '  "principalId": "p",\n', '  "action": "a",\n', '  "scope": "/"\n', "}\n"]
    assert [r.principalId for r in read_request_lines(pretty)] == ["p"]
    with pytest.raises(InputError, match="line 1: invalid JSON"):
        list(read_request_lines(["{\n", "nonsense\n"], source="x"))


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["", " ", "p", "/", "a/b", "Ünïcode → x"]),
)
_ANY = st.one_of(
    _SCALARS,
    st.lists(_SCALARS, max_size=3),
    st.dictionaries(st.text(max_size=3), _SCALARS, max_size=2),
)
_ATTRIBUTE = st.one_of(
    st.text(max_size=4), st.booleans(), st.integers(), st.lists(st.one_of(st.text(), st.integers()))
)
_REQUIRED = {
    "principalId": st.sampled_from(["p", "Ünïcode → x"]),
    "action": st.sampled_from(["a/b", "Cloud.X/y/read"]),
    "scope": st.sampled_from(["/", "/subscriptions/S"]),
}
_OPTIONAL = {
    "dataAction": st.booleans(),
    "subOperation": st.none() | st.text(max_size=4),
    "attributes": st.none() | st.dictionaries(st.text(max_size=4), _ATTRIBUTE, max_size=3),
}


@st.composite
def _one_field_wrong(draw: st.DrawFn) -> dict[str, Any]:
    obj = draw(st.fixed_dictionaries(_REQUIRED, optional=_OPTIONAL))
    wrong = st.sampled_from(["", " ", "a/b", None, 0, 1.5, True, [], {}]) | _ANY
    obj[draw(st.sampled_from([*sorted(obj), "bogus"]))] = draw(wrong)
    return obj


_REQUEST_LIKE = st.one_of(
    st.fixed_dictionaries(_REQUIRED, optional=_OPTIONAL),
    _one_field_wrong(),
    st.fixed_dictionaries(  # any field absent, anything or unknown
        {},
        optional={
            **{key: value | _ANY for key, value in {**_REQUIRED, **_OPTIONAL}.items()},
            "bogus": _ANY,
        },
    ),
)
"""Objects shaped like requests: each field absent, well typed or anything at all."""


def _outcome(run: Any) -> object:
    try:
        return ("ok", run().to_wire())
    except InputError as exc:
        return ("error", str(exc))


@given(_REQUEST_LIKE)
@example({"principalId": "p", "action": "a", "scope": "/", "dataAction": None})
@example({"principalId": "p", "action": "a", "scope": "/", "attributes": {"k": [1, "v", True]}})
@example({"principalId": "p", "action": "a", "scope": "/", "attributes": {"k": 1.5}})
@example({"principalId": " ", "action": "a", "scope": "/"})
@example({"principalId": "p", "action": "a", "scope": "a/b"})
@example({"principalId": "p", "action": "a", "scope": "/", "bogus": 1})
def test_lines_decode_as_one_object_does(obj: dict[str, Any]) -> None:
    """A JSON Lines request after the first (decoded straight into a request when it can be)
    gives the request, or the error, that the same object gives to :func:`parse_request`."""
    import json

    first = json.dumps({"principalId": "p", "action": "a", "scope": "/"})
    line = json.dumps(obj, ensure_ascii=False)
    for raw in (line, line.encode()):
        stream = read_request_lines([first, raw], source="b.jsonl")
        next(stream)
        got = _outcome(lambda stream=stream: next(stream))  # type: ignore[misc]
        want = _outcome(lambda: parse_request(json.loads(line), source="b.jsonl", line=2))
        assert got == want


_TEXTS = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)


@given(
    st.builds(
        Decision,
        decision=st.sampled_from(["allowed", "denied", "notGranted", "conditional"]),
        principalId=_TEXTS,
        action=_TEXTS,
        scope=_TEXTS,
        grantedBy=st.lists(_TEXTS, max_size=3).map(tuple),
        deniedBy=st.lists(_TEXTS, max_size=3).map(tuple),
        conditions=st.lists(_TEXTS, max_size=3).map(tuple),
        reason=_TEXTS,
    )
)
def test_a_decisions_json_is_its_wire_form(decision: Decision) -> None:
    """``to_json`` (what JSON Lines answers are written with) is the object of contracts §4, its
    fields in the same order, text not escaped, on one line."""
    import json

    text = decision.to_json().decode("utf-8")
    assert json.loads(text) == decision.to_wire()
    assert list(json.loads(text)) == list(decision.to_wire())
    assert text == json.dumps(decision.to_wire(), ensure_ascii=False, separators=(",", ":"))


def test_parse_requests_object_or_lines() -> None:
    pretty = '{\n  "principalId": "p",\n  "action": "a",\n  "scope": "/"\n}\n'
    assert len(parse_requests(pretty)) == 1
    lines = '{"principalId": "p", "action": "a", "scope": "/"}\n' * 3
    assert len(parse_requests(lines)) == 3
    with pytest.raises(InputError):
        parse_requests("   ")
    _ = (MG, SUB2)


# ------------------------------------------------------------------------------------ levels

_SEGMENTS = st.sampled_from(
    ["subscriptions", "providers", "cloud.management", "managementGroups", "s1", "S2", "rg", "x"]
)
_SCOPES = st.lists(_SEGMENTS, max_size=6).map(lambda parts: "/" + "/".join(parts))


def _reference_levels(ix: Any, scope: str) -> tuple[list[tuple[str, bool]], list[tuple[str, bool]]]:
    """The levels of ``scope`` from its full chain: each level's key and whether it is the scope
    itself (rank 0)."""
    chain = ix.scopes.chain(scope_key(scope))
    grants = [(level, d == 0) for d, level in enumerate(chain) if level in ix.at_scope]
    denies = [(level, d == 0) for d, level in enumerate(chain) if level in ix.deny_by_scope]
    return grants, denies


def _levels_seen(ix: Any, scope: str) -> tuple[list[tuple[str, bool]], list[tuple[str, bool]]]:
    """What :meth:`Indexes.levels` gives for ``scope``, in the terms of :func:`_reference_levels`:
    each level's scope key and whether it is the requested scope itself."""
    levels = ix.levels(scope)
    base = levels.base
    tables = {id(table): level for level, table in ix.at_scope.items()}
    grants = [(tables[id(table)], base == height) for table, height in levels.grant_levels]
    denies = [(level, base == height) for level, height in levels.deny_levels]
    return grants, denies


@given(
    st.lists(_SCOPES, max_size=6),
    st.lists(_SCOPES, max_size=3),
    st.lists(st.tuples(_SCOPES, _SCOPES), max_size=3),
    st.lists(_SCOPES, min_size=1, max_size=8),
)
def test_levels_match_the_full_chain(
    assigned: list[str],
    denied: list[str],
    hierarchy: list[tuple[str, str]],
    requested: list[str],
) -> None:
    """The shortcut of :meth:`Indexes.levels` (walk up to the nearest scope that matters, then
    reuse its levels) finds the same levels, in the same order and with the same rank-0 level, as
    walking the whole chain, whatever odd scopes hold assignments (``/subscriptions`` itself,
    ``/providers``, ...) and whatever the hierarchy says."""
    from auditor.access.indexes import Indexes
    from tests.test_access_support import build, deny, ra

    snapshot = build(
        assignments=[ra(f"a{i}", "u", OWNER, s) for i, s in enumerate(assigned)],
        denies=[deny(f"d{i}", s, actions=["*"]) for i, s in enumerate(denied)],
        hierarchy=[(child, parent) for child, parent in hierarchy if child != "/"],
    )
    ix = Indexes(snapshot)
    for scope in requested + [s + "/a/b" for s in assigned]:
        levels = ix.levels(scope)
        distances = [levels.base - height for _t, height in levels.grant_levels]
        assert distances == sorted(distances) and len(set(distances)) == len(distances)
        assert all(d >= 0 for d in distances)
        assert _levels_seen(ix, scope) == _reference_levels(ix, scope), scope


def _reference_chain(tree: ScopeTree, key: str) -> tuple[str, ...]:
    """The chain by its definition, with no cache: the parent walk until it would repeat, then
    ``/`` last."""
    out: list[str] = []
    current: str | None = key
    while current is not None and current not in out:
        out.append(current)
        current = tree.parent(current)
    if "/" in out:
        out.remove("/")
    return (*out, "/")


_ODD_PARENTS = st.one_of(
    st.tuples(_SCOPES, _SCOPES),
    # a parent below its own child: the walk meets the child again
    st.tuples(_SCOPES, _SEGMENTS).map(lambda cs: (cs[0], cs[0].rstrip("/") + "/" + cs[1])),
)


@given(
    st.lists(_ODD_PARENTS, max_size=6),
    st.lists(_SCOPES, min_size=1, max_size=10),
)
def test_chain_matches_its_definition(hierarchy: list[tuple[str, str]], keys: list[str]) -> None:
    """Whatever the hierarchy (cycles, odd parents) and whichever chains are already cached, a
    chain is the parent walk of its definition."""
    tree = ScopeTree([HierarchyRecord(id=c, parent=p) for c, p in hierarchy])
    for scope in keys + [k + "/rg/x" for k in keys] + [s for pair in hierarchy for s in pair]:
        key = tree.add(scope)
        assert tree.chain(key) == _reference_chain(tree, key), key


_ROOTS = st.sampled_from(
    [
        "",
        "/subscriptions/s1",
        "/SUBSCRIPTIONS/s1",
        "/subscriptions/s2",
        "/providers/Cloud.Management/managementGroups/m1",
        "/providers/Cloud.Management/managementGroups/m2",
    ]
)
_PLAIN_SCOPES = st.tuples(_ROOTS, st.lists(_SEGMENTS, max_size=4)).map(
    lambda rs: (rs[0] + "".join("/" + s for s in rs[1])) or "/"
)
_PLAIN_HIERARCHY = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "/subscriptions/s1",
                "/subscriptions/s2",
                "/providers/Cloud.Management/managementGroups/m1",
                "/providers/Cloud.Management/managementGroups/m2",
            ]
        ),
        st.sampled_from(
            [
                "/",
                "/providers/Cloud.Management/managementGroups/m1",
                "/providers/Cloud.Management/managementGroups/m2",
            ]
        ),
    ),
    max_size=4,
)


@given(
    st.lists(_PLAIN_SCOPES, max_size=8),
    st.lists(_PLAIN_SCOPES, max_size=3),
    _PLAIN_HIERARCHY,
    st.lists(_PLAIN_SCOPES, min_size=1, max_size=8),
)
def test_levels_prepared_at_index_time_match_the_full_chain(
    assigned: list[str],
    denied: list[str],
    hierarchy: list[tuple[str, str]],
    requested: list[str],
) -> None:
    """With a plain hierarchy (cycles among management groups included) the levels of every
    scope holding assignments are prepared when the indexes are built, each from its nearest
    anchor above; they are the levels of the full chain."""
    from auditor.access.indexes import Indexes
    from tests.test_access_support import build, deny, ra

    snapshot = build(
        assignments=[ra(f"a{i}", "u", OWNER, s) for i, s in enumerate(assigned)],
        denies=[deny(f"d{i}", s, actions=["*"]) for i, s in enumerate(denied)],
        hierarchy=hierarchy,
    )
    ix = Indexes(snapshot)
    assert ix.scopes.plain_hierarchy
    for scope in requested + assigned + [s + "/a/b" for s in assigned]:
        assert _levels_seen(ix, scope) == _reference_levels(ix, scope), scope
    for key, prepared in ix._levels_by_key.items():
        chain = ix.scopes.chain(key)
        assert prepared.base == len(chain) - 1, key
