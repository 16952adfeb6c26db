"""The synthetic estate generator: deterministic, loadable, realistic in shape, within the vendor's
limits, and safe with existing files."""

from __future__ import annotations

import hashlib
import io
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.errors import InputError
from auditor.estate import generate as G
from auditor.estate.generate import (
    MAX_ROLE_ASSIGNMENTS_PER_SUBSCRIPTION,
    default_deny_assignments,
    default_principals,
    generate_estate,
)
from auditor.estate.roles import role_catalogue, role_guid
from auditor.estate.snapshot import load_snapshot, loads_snapshot
from auditor.model.access import ALL_PRINCIPALS_ID


def _bytes(n: int, seed: int, **kw: Any) -> bytes:
    buf = io.BytesIO()
    generate_estate(n, seed=seed, out=buf, **kw)
    return buf.getvalue()


@pytest.fixture(scope="module")
def estate() -> dict[str, Any]:
    """A 12,000-assignment estate as plain JSON (four subscriptions)."""
    return msgspec.json.decode(_bytes(12_000, seed=3))  # type: ignore[no-any-return]


def _sub(scope: str) -> str | None:
    m = re.match(r"^/subscriptions/([^/]+)", scope)
    return m.group(1) if m else None


def test_same_seed_same_bytes_other_seed_other_bytes() -> None:
    a = _bytes(2_000, seed=11)
    assert a == _bytes(2_000, seed=11)
    assert a != _bytes(2_000, seed=12)
    assert _bytes(50, seed=1, principals=7, deny_assignments=3) == _bytes(
        50, seed=1, principals=7, deny_assignments=3
    )


def test_path_and_stream_give_the_same_bytes(tmp_path: Path) -> None:
    out = tmp_path / "deep" / "estate.json"
    result = generate_estate(1_500, seed=5, out=out)
    data = out.read_bytes()
    assert data == _bytes(1_500, seed=5)
    assert result.path == str(out)
    assert result.bytes_written == len(data)
    assert [p.name for p in out.parent.iterdir()] == ["estate.json"]  # no temporary left


@settings(max_examples=12)
@given(
    n=st.integers(min_value=0, max_value=2_500),
    seed=st.integers(min_value=0, max_value=2**32),
    principals=st.none() | st.integers(min_value=1, max_value=300),
    deny=st.none() | st.integers(min_value=0, max_value=40),
)
def test_generated_estates_load_with_the_requested_counts(
    n: int, seed: int, principals: int | None, deny: int | None
) -> None:
    buf = io.BytesIO()
    result = generate_estate(n, seed=seed, principals=principals, deny_assignments=deny, out=buf)
    snap = loads_snapshot(buf.getvalue(), source="generated")
    counts = snap.counts()
    assert counts == result.counts
    assert counts["roleAssignments"] == n
    assert counts["principals"] == (default_principals(n) if principals is None else principals)
    assert counts["denyAssignments"] == (default_deny_assignments(n) if deny is None else deny)
    assert result.bytes_written == len(buf.getvalue())
    per_sub = Counter(_sub(ra.properties.scope or "") for ra in snap.roleAssignments)
    per_sub.pop(None, None)
    assert max(per_sub.values(), default=0) <= MAX_ROLE_ASSIGNMENTS_PER_SUBSCRIPTION


def test_default_sizes() -> None:
    assert default_principals(1_000_000) == 100_000
    assert default_deny_assignments(1_000_000) == 10_000
    assert default_principals(10) == 50
    assert default_deny_assignments(10) == 1


def test_a_million_fits_the_per_subscription_limit() -> None:
    layout = G._make_layout(1, 1_000_000, 100, 10)  # the plan only: no records are made
    assert max(layout.sub_quota) <= MAX_ROLE_ASSIGNMENTS_PER_SUBSCRIPTION
    assert sum(layout.sub_quota) + layout.n_mg_ra == 1_000_000
    assert min(layout.sub_quota) > 0
    assert 2 <= layout.mg_depth <= 4


def test_per_subscription_limit_on_a_written_estate(estate: dict[str, Any]) -> None:
    per_sub = Counter(_sub(ra["properties"]["scope"]) for ra in estate["roleAssignments"])
    above = per_sub.pop(None, 0)
    assert len(per_sub) == G.subscriptions_for(12_000) == 4
    assert max(per_sub.values()) <= MAX_ROLE_ASSIGNMENTS_PER_SUBSCRIPTION
    assert above == 12  # a few at management groups
    subs = {h["id"] for h in estate["hierarchy"] if h["id"].startswith("/subscriptions/")}
    assert {f"/subscriptions/{s}" for s in per_sub} == subs


def test_hierarchy_is_a_tree_of_depth_two_to_four(estate: dict[str, Any]) -> None:
    parent = {h["id"]: h["parent"] for h in estate["hierarchy"]}
    mgs = [i for i in parent if "/managementGroups/" in i]

    def depth(scope: str) -> int:
        d = 0
        while scope != "/":
            scope = parent[scope]
            d += 1
            assert d < 10
        return d

    assert 2 <= max(depth(m) for m in mgs) <= 4
    assert all(parent[s] in mgs for s in parent if s.startswith("/subscriptions/"))


def test_principal_mix_and_group_nesting(estate: dict[str, Any]) -> None:
    principals = estate["principals"]
    kinds = Counter(p["type"] for p in principals)
    total = len(principals)
    assert total == 1_200
    assert 0.75 < kinds["User"] / total < 0.85
    assert 0.10 < kinds["Group"] / total < 0.14
    assert 0.06 < kinds["ServicePrincipal"] / total < 0.10
    users = [p for p in principals if p["type"] == "User"]
    assert any(p["userType"] == "Guest" for p in users)
    assert any(p["accountEnabled"] is False for p in users)
    member_of = {p["id"]: p.get("memberOf", []) for p in principals}
    groups = {p["id"] for p in principals if p["type"] == "Group"}
    assert all(set(m) <= groups for m in member_of.values())

    def nesting(g: str, seen: frozenset[str] = frozenset()) -> int:
        assert g not in seen, "a cycle"
        parents = member_of[g]
        return 1 + max((nesting(p, seen | {g}) for p in parents), default=0)

    depths = Counter(nesting(g) for g in groups)
    assert {1, 2, 3, 4} <= set(depths)
    assert max(depths) >= 8  # the deep chains


def test_assignments_look_real(estate: dict[str, Any]) -> None:
    ras = estate["roleAssignments"]
    ids = [ra["id"] for ra in ras]
    assert len(set(ids)) == len(ids)
    directory = {p["id"]: p["type"] for p in estate["principals"]}
    custom = {r["name"] for r in estate["roleDefinitions"]}
    known_roles = set(role_catalogue()) | custom
    per_principal: Counter[str] = Counter()
    orphans = 0
    conditioned = 0
    scope_depths: Counter[int] = Counter()
    for ra in ras:
        p = ra["properties"]
        assert (
            ra["id"] == f"{p['scope']}/providers/Cloud.Authorization/roleAssignments/{ra['name']}"
        )
        assert role_guid(p["roleDefinitionId"]) in known_roles
        if p["principalId"] in directory:
            assert directory[p["principalId"]] == p["principalType"]
        else:
            orphans += 1
        per_principal[p["principalId"]] += 1
        if "condition" in p:
            conditioned += 1
            assert p["conditionVersion"] == "2.0"
        scope_depths[p["scope"].count("/")] += 1
    assert 0 < conditioned < 0.05 * len(ras)
    assert orphans < 0.01 * len(ras)
    assert any(role_guid(ra["properties"]["roleDefinitionId"]) in custom for ra in ras)
    # Zipf-like: the busiest principal holds far more than the typical one
    counts = sorted(per_principal.values(), reverse=True)
    assert counts[0] > 20 * counts[len(counts) // 2]
    # subscription (2 slashes), resource group (4), resource (8) and nested resource (10) scopes
    assert {2, 4, 8, 10} <= set(scope_depths)


def test_generated_conditions_parse(estate: dict[str, Any]) -> None:
    from auditor.expr.condition import validate_condition

    conditions = {
        (ra["properties"]["condition"], ra["properties"]["conditionVersion"])
        for ra in estate["roleAssignments"]
        if "condition" in ra["properties"]
    }
    assert conditions
    for text, version in conditions:
        assert validate_condition(text, version) == [], text


def test_deny_assignments_include_all_principals_with_exclusions(estate: dict[str, Any]) -> None:
    denies = estate["denyAssignments"]
    assert len(denies) == 120
    first = denies[0]["properties"]
    assert first["principals"][0]["id"] == ALL_PRINCIPALS_ID
    assert first["principals"][0]["type"] == "SystemDefined"
    assert first["excludePrincipals"]
    assert any(not d["properties"]["isSystemProtected"] for d in denies)
    assert any(d["properties"]["doNotApplyToChildScopes"] for d in denies)


def test_small_sections_are_present(estate: dict[str, Any]) -> None:
    assert estate["clusters"] and estate["domains"] and estate["healthEvents"]
    assert estate["devTooling"]["tokens"] and estate["devTooling"]["apps"]
    listed_for = {c["id"] for c in estate["clusters"]} | {d["id"] for d in estate["domains"]}
    for e in estate["healthEvents"]:
        prefix = e["id"].split("/providers/Cloud.ResourceHealth/events/")[0]
        assert prefix in listed_for or re.fullmatch(r"/subscriptions/[^/]+", prefix)


def test_refuses_to_overwrite(tmp_path: Path) -> None:
    out = tmp_path / "estate.json"
    out.write_text("keep me")
    with pytest.raises(InputError, match="exists already") as info:
        generate_estate(10, seed=1, out=out)
    assert str(out) in str(info.value)
    assert out.read_text() == "keep me"
    generate_estate(10, seed=1, out=out, overwrite=True)
    assert load_snapshot(out).counts()["roleAssignments"] == 10


def test_refuses_a_directory_and_bad_numbers(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="directory"):
        generate_estate(10, seed=1, out=tmp_path, overwrite=True)
    with pytest.raises(InputError, match="negative"):
        generate_estate(-1, seed=1, out=io.BytesIO())
    with pytest.raises(InputError, match="principals"):
        generate_estate(5, seed=1, principals=0, out=io.BytesIO())


def test_zero_principals_without_assignments_is_fine() -> None:
    snap = loads_snapshot(_bytes(0, seed=1, principals=0, deny_assignments=2))
    assert snap.counts()["principals"] == 0
    assert snap.counts()["denyAssignments"] == 2


def test_no_progress_output_when_not_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    _bytes(3_000, seed=2)
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_progress_bar_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    _bytes(100, seed=2, progress=True)  # forced on: rich draws to stderr, stdout stays clean
    assert capsys.readouterr().out == ""


def test_same_bytes_across_processes_and_hash_seeds() -> None:
    code = (
        "import io, hashlib\n"
        "from auditor.estate.generate import generate_estate\n"
        "b = io.BytesIO()\n"
        "generate_estate(800, seed=21, out=b)\n"
        "print(hashlib.sha256(b.getvalue()).hexdigest())\n"
    )
    digests = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        digests.add(done.stdout.strip())
    assert digests == {hashlib.sha256(_bytes(800, seed=21)).hexdigest()}
