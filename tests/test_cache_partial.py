"""Every answer from a cache entry equals the answer from the whole estate loaded from its JSON
(issue 23): access check with its warnings (unknown principal, scope outside the estate, unknown
action, unread attribute), who-can, and principals named by id, e-mail or display name, over
generated estates (auditor.estate.generate at small sizes, the cache's MIN_BYTES set to 0) with
twists a real file has: ids and scopes written in other casings, merged duplicates, unknown fields,
role assignment ids and types that are not the usual ones, no directory at all; and groups as the
cache's directory walk meets them (issue 23, who-can on a large answer): cycles, a group of nearly
everyone holding a role, a member listed before its group and naming it in another casing, a copy
of a group's entry with its id in capitals, deny assignments naming groups no grant reaches (a
member meets them through other groups it belongs to). A who-can decodes only the directory
entries of the principals it reaches."""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.access import AccessEngine, AccessRequest
from auditor.access import partial as partial_module
from auditor.access.partial import PartialEstate, cache_tables
from auditor.errors import InputError
from auditor.estate.cache import EstateCache
from auditor.estate.generate import generate_estate
from auditor.estate.roles import READER
from auditor.estate.snapshot import Snapshot, load_snapshot

GROUP_TWISTS = ("group-cycle", "big-group", "member-first", "twin-entry", "deny-nested")
_RA_INFIX = "/providers/Cloud.Authorization/roleAssignments/"
TWISTS = (
    "casing",
    "duplicate",
    "unknown-field",
    "odd-ids",
    "no-directory",
    "deny-everyone",
    *GROUP_TWISTS,
)
ACTIONS = [
    ("Cloud.Authorization/roleAssignments/write", False),
    ("Cloud.Compute/virtualMachines/read", False),
    ("Cloud.Storage/storageAccounts/blobServices/containers/blobs/read", True),
    ("Cloud.Storage/storageAccounts/blobServices/containers/blobs/read", False),
    ("Cloud.Nothing/misspelt/reed", False),
]


def _twist(doc: dict[str, Any], twists: set[str]) -> None:
    ras = doc["roleAssignments"]
    if "casing" in twists and ras:
        for ra in ras[::3]:
            props = ra["properties"]
            props["principalId"] = props["principalId"].upper()
            props["scope"] = props["scope"].upper() + "/"
        for pr in doc["principals"][::4]:
            pr["memberOf"] = [g.upper() for g in pr.get("memberOf", [])]
    if "odd-ids" in twists and len(ras) > 3:
        ras[1]["id"] = "/custom/id/not/made/of/scope/and/name"
        ras[2]["id"] = ""
        ras[3]["type"] = ""
        ras[0]["name"] = None
    if "unknown-field" in twists and ras:
        ras[len(ras) // 2]["properties"]["extraField"] = [1, "two"]
        if doc["principals"]:
            doc["principals"][0]["userPrincipalName"] = "Someone.Else@Example.Test"
    _twist_groups(doc, twists)
    if "duplicate" in twists and ras:
        ras.append(json.loads(json.dumps(ras[0])))  # an identical copy: merged, with a warning
    if "no-directory" in twists:
        doc["principals"] = []
    if "deny-everyone" in twists and doc.get("denyAssignments"):
        deny = doc["denyAssignments"][0]["properties"]
        deny["doNotApplyToChildScopes"] = True
        deny["permissions"] = [{"actions": ["Cloud.Authorization/*"], "dataActions": ["*"]}]


def _twist_groups(doc: dict[str, Any], twists: set[str]) -> None:
    principals = doc["principals"]
    groups = [p for p in principals if p.get("type") == "Group"]
    if not groups:
        return
    first, last = groups[0], groups[-1]
    if "group-cycle" in twists:  # two groups members of each other, one of itself
        first["memberOf"] = [*first.get("memberOf", []), last["id"], first["id"]]
        last["memberOf"] = [*last.get("memberOf", []), first["id"]]
    if "big-group" in twists:  # nearly everyone in one group, which holds a role
        for member in principals:
            if member is not last and last["id"] not in member.get("memberOf", []):
                member["memberOf"] = [*member.get("memberOf", []), last["id"]]
        ras = doc["roleAssignments"]
        if ras:
            held = copy.deepcopy(ras[0])
            held["properties"]["principalId"] = last["id"]
            held["name"] = "00000000-0000-0000-0000-0000000b1660"
            held["id"] = f"{held['properties']['scope']}{_RA_INFIX}{held['name']}"
            ras.append(held)
    if "member-first" in twists and principals[-1] is not first:
        # a member listed first names its group in capitals: the engine shows that casing
        member = principals.pop()
        member["memberOf"] = [*member.get("memberOf", []), first["id"].upper()]
        principals.insert(0, member)
    nested = [g for g in groups if g.get("memberOf")]
    if "deny-nested" in twists and nested and doc.get("denyAssignments"):
        # a deny naming the group a nested group belongs to and excluding that nested group:
        # members below decide through groups they reach upwards
        inner = nested[-1]
        outer = next((g for g in groups if g["id"] in inner["memberOf"]), first)
        deny = doc["denyAssignments"][-1]["properties"]
        deny["principals"] = [{"id": outer["id"].upper(), "type": "Group"}]
        deny["excludePrincipals"] = [{"id": inner["id"], "type": "Group"}]
        deny["permissions"] = [{"actions": ["*"], "dataActions": ["*"]}]
    if "twin-entry" in twists:  # a second copy of a group's entry, its id in capitals (merged)
        twin = copy.deepcopy(first)
        twin["id"] = first["id"].upper()
        principals.append(twin)


def _questions(snap: Snapshot) -> tuple[list[str], list[str], list[str]]:
    """Principals (by id, e-mail, display name and unknown), scopes (known, new, outside)."""
    ras = snap.roleAssignments
    principals = [ra.properties.principalId for ra in ras[:: max(1, len(ras) // 3)]][:3]
    groups = [p for p in snap.principals if p.memberOf][:2]
    for pr in [*snap.principals[:1], *groups]:
        principals += [pr.id, pr.email or pr.id, pr.displayName or pr.id]
    for deny in snap.denyAssignments[:1]:
        principals += [p.id for p in deny.properties.excludePrincipals if p.id][:1]
    principals += ["00000000-0000-0000-0000-00000000beef", "Nobody-Known@example.test"]
    scopes = [ra.properties.scope for ra in ras[:: max(1, len(ras) // 3)]][:3]
    scopes += [s + "/providers/Cloud.Compute/virtualMachines/new-vm" for s in scopes[:1]]
    scopes += [h.id for h in snap.hierarchy[:2]]
    scopes += [d.properties.scope for d in (*snap.denyAssignments[:1], *snap.denyAssignments[-1:])]
    scopes += [
        "/",
        "/subscriptions/00000000-0000-0000-0000-00000000dead/resourceGroups/rg",
        "/providers/Cloud.Management/managementGroups/not-there",
    ]
    return principals, scopes, []


def _same_answers(path: Path, cache_dir: Path) -> None:
    store = EstateCache(cache_dir, min_bytes=0, indexer=cache_tables)
    snap = store.load(path, load_snapshot)  # writes the entry
    whole = AccessEngine.from_snapshot(load_snapshot(path))
    opened = store.open(path)
    assert opened is not None
    partial = PartialEstate(opened)
    principals, scopes, _ = _questions(snap)
    for text in principals:
        try:
            want = whole.resolve_principal(text)
        except InputError:
            want = None
        got = partial.resolve(text)
        assert got is None or got == want, text  # None: the whole estate words the error
        principal = want.id if want is not None else text
        for scope in scopes:
            engine = partial.engine_for_check(principal, scope)
            for action, data in ACTIONS:
                request = AccessRequest(principal, action, scope, data)
                assert engine.check(request, warn=True) == whole.check(request, warn=True), request
            attributes = {"@Resource[Cloud.Storage/storageAccounts:name]": "x", "bogus": 1}
            request = AccessRequest(principal, ACTIONS[2][0], scope, True, attributes=attributes)
            assert engine.check(request, warn=True) == whole.check(request, warn=True)
    for scope in scopes:
        engine = partial.engine_for_who(scope)
        for action, data in ACTIONS:
            got_who = engine.who(action, scope, data, warn=True).to_wire()
            assert got_who == whole.who(action, scope, data, warn=True).to_wire(), (scope, action)
    opened.close()


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    role_assignments=st.integers(0, 60),
    seed=st.integers(0, 10_000),
    principals=st.integers(1, 25),
    denies=st.integers(0, 5),
    twists=st.sets(st.sampled_from(TWISTS), max_size=3),
)
def test_partial_answers_equal_whole_answers(
    role_assignments: int, seed: int, principals: int, denies: int, twists: set[str]
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "estate.json"
        generate_estate(
            role_assignments,
            seed=seed,
            principals=principals,
            deny_assignments=denies,
            out=path,
            progress=False,
        )
        if twists:
            doc = json.loads(path.read_bytes())
            _twist(doc, twists)
            path.write_text(json.dumps(doc))
        _same_answers(path, Path(folder) / "cache")


def test_every_twist_at_once(tmp_path: Path) -> None:
    path = tmp_path / "estate.json"
    generate_estate(200, seed=11, principals=50, deny_assignments=6, out=path, progress=False)
    doc = json.loads(path.read_bytes())
    _twist(doc, set(TWISTS) - {"no-directory"})
    path.write_text(json.dumps(doc))
    _same_answers(path, tmp_path / "cache")


def test_groups_as_the_directory_walk_meets_them(tmp_path: Path) -> None:
    """Every group twist at once on an estate with many groups, nested (generated 1 to 4 levels
    deep, and chains of eight)."""
    path = tmp_path / "estate.json"
    generate_estate(200, seed=5, principals=300, deny_assignments=4, out=path, progress=False)
    doc = json.loads(path.read_bytes())
    _twist(doc, set(GROUP_TWISTS))
    path.write_text(json.dumps(doc))
    _same_answers(path, tmp_path / "cache")


def test_who_reads_only_the_directory_keys_it_reaches(tmp_path: Path) -> None:
    """A who-can decodes the directory entries of the principals it reaches, and splits about one
    key per bucket it reads (buckets of one key on average: not eight keys to read one)."""
    path = tmp_path / "estate.json"
    generate_estate(2000, seed=9, principals=1500, deny_assignments=4, out=path, progress=False)
    store = EstateCache(tmp_path / "cache", min_bytes=0, indexer=cache_tables)
    snap = store.load(path, load_snapshot)
    whole = AccessEngine.from_snapshot(snap)
    opened = store.open(path)
    assert opened is not None
    groups = {g.lower() for p in snap.principals for g in p.memberOf}
    scope = next(
        ra.properties.scope
        for ra in snap.roleAssignments
        if ra.properties.principalId.lower() in groups
    )
    partial = PartialEstate(opened)
    engine = partial.engine_for_who(scope)
    action = ACTIONS[1][0]
    got = engine.who(action, scope, False, warn=True).to_wire()
    assert got == whole.who(action, scope, False, warn=True).to_wire()
    reached = [k for k, found in partial._dirs.items() if found is not None]
    assert len(got["allowed"]) > 10 and len(reached) < len(snap.principals)
    buckets = opened._buckets["dir"]
    assert len(buckets) <= len(partial._dirs)
    split = sum(len(bucket) for bucket in buckets.values())
    assert split <= 2.5 * len(partial._dirs), (split, len(partial._dirs))
    opened.close()


def _guid(n: int) -> str:
    return f"00000000-0000-0000-0000-{n:012x}"


def test_who_meets_deny_subjects_through_groups_no_grant_reaches(tmp_path: Path) -> None:
    """A member reached through the group that holds the role is denied through other groups it
    belongs to (nested below the group a deny names), or spared by a group the deny excludes: the
    cache's who-can reads those groups too, though no grant reaches them."""
    path = tmp_path / "estate.json"
    generate_estate(60, seed=1, principals=20, deny_assignments=2, out=path, progress=False)
    doc = json.loads(path.read_bytes())
    held = copy.deepcopy(doc["roleAssignments"][0])
    scope = held["properties"]["scope"]
    group = {"type": "Group", "accountEnabled": True, "memberOf": []}
    doc["principals"] += [
        {**group, "id": _guid(1), "displayName": "grp-hold"},
        {**group, "id": _guid(2), "displayName": "grp-deny"},
        {**group, "id": _guid(3), "displayName": "grp-mid", "memberOf": [_guid(2)]},
        {**group, "id": _guid(4), "displayName": "grp-spared", "memberOf": [_guid(2).upper()]},
        {
            "id": _guid(5),
            "type": "User",
            "displayName": "Denied One",
            "memberOf": [_guid(1), _guid(3)],
        },
        {
            "id": _guid(6),
            "type": "User",
            "displayName": "Spared Two",
            "memberOf": [_guid(1), _guid(4)],
        },
    ]
    held["name"] = _guid(7)
    held["id"] = f"{scope}{_RA_INFIX}{held['name']}"
    props = held["properties"]
    props["principalId"] = _guid(1)
    props["roleDefinitionId"] = f"/providers/Cloud.Authorization/roleDefinitions/{READER}"
    doc["roleAssignments"].append(held)
    deny = copy.deepcopy(doc["denyAssignments"][0])
    deny["name"] = _guid(8)
    deny["id"] = deny["id"].rsplit("/", 1)[0] + "/" + _guid(8)
    deny["properties"].update(
        scope=scope,
        doNotApplyToChildScopes=False,
        permissions=[{"actions": ["*/read"]}],
        principals=[{"id": _guid(2), "type": "Group"}],
        excludePrincipals=[{"id": _guid(4), "type": "Group"}],
    )
    doc["denyAssignments"].append(deny)
    path.write_text(json.dumps(doc))
    whole = AccessEngine.from_snapshot(load_snapshot(path))
    action = "Cloud.Compute/virtualMachines/read"
    want = whole.who(action, scope, False, warn=True).to_wire()
    decided = {e["principalId"]: e["decision"] for e in want["allowed"] + want["denied"]}
    assert decided[_guid(5)] == "denied" and decided[_guid(6)] == "allowed"
    store = EstateCache(tmp_path / "cache", min_bytes=0, indexer=cache_tables)
    store.load(path, load_snapshot)
    with store.open(path) as opened:  # type: ignore[union-attr]
        engine = PartialEstate(opened).engine_for_who(scope)
        assert engine.who(action, scope, False, warn=True).to_wire() == want
        for other in ("Cloud.Authorization/roleAssignments/write", ACTIONS[2][0]):
            got = engine.who(other, scope, False, warn=True).to_wire()
            assert got == whole.who(other, scope, False, warn=True).to_wire()
    _same_answers(path, tmp_path / "cache2")


def test_who_reads_the_groups_above_when_a_deny_names_many(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the budget of principals below the deny assignments' subjects, who-can reads every
    group above its members instead: the same answers."""
    monkeypatch.setattr(partial_module, "_BELOW_SUBJECTS", 0)
    test_who_meets_deny_subjects_through_groups_no_grant_reaches(tmp_path)
    path = tmp_path / "nested.json"
    generate_estate(120, seed=5, principals=200, deny_assignments=8, out=path, progress=False)
    doc = json.loads(path.read_bytes())
    _twist(doc, {"deny-nested", "big-group"})
    path.write_text(json.dumps(doc))
    _same_answers(path, tmp_path / "cache3")
