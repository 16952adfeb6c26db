"""``auditor query``: one filter engine over records, and the API's listing semantics with --scope."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.access.scopes import ScopeTree, scope_key
from auditor.cli import main
from auditor.estate import sample as S
from auditor.estate.snapshot import dumps_snapshot
from auditor.expr.filter import compile_filter
from auditor.sandbox.query import QueryKind, query_snapshot, wire

SNAP = S.sample_snapshot()
SUB = S.SUBSCRIPTIONS["prod"]
SUB_SCOPE = f"/subscriptions/{SUB}"


@pytest.fixture(scope="module")
def snapshot_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("query") / "estate.json"
    path.write_bytes(dumps_snapshot(SNAP))
    return path


FILTERS = st.sampled_from(
    [
        "properties/principalType eq 'Group'",
        "properties/principalType ne 'User' and properties/condition eq null",
        "startswith(properties/scope, '/subscriptions/') and not contains(name, 'x')",
        "properties/principalType in ('ServicePrincipal', 'Group')",
        "properties/conditionVersion eq '2.0' or properties/conditionVersion eq '1.0'",
    ]
)


@given(FILTERS)
@settings(max_examples=20)
def test_a_filter_over_records_matches_the_same_filter_over_their_json(text: str) -> None:
    got = query_snapshot(SNAP, QueryKind.ROLE_ASSIGNMENTS, text)
    predicate = compile_filter(text)
    expected = [d for d in (wire(r) for r in SNAP.roleAssignments) if predicate(d)]
    assert got == expected


def test_at_scope_lists_at_or_above_only() -> None:
    tree = ScopeTree(SNAP.hierarchy)
    here = scope_key(SUB_SCOPE)
    rows = query_snapshot(SNAP, QueryKind.ROLE_ASSIGNMENTS, "atScope()", SUB_SCOPE)
    assert rows
    for row in rows:
        assert tree.is_at_or_above(scope_key(row["properties"]["scope"]), here)
    everything = query_snapshot(SNAP, QueryKind.ROLE_ASSIGNMENTS, None, SUB_SCOPE)
    below = [r for r in everything if scope_key(r["properties"]["scope"]).startswith(here + "/")]
    assert below and all(r not in rows for r in below)
    assert len(everything) == len(rows) + len(below)


def test_principal_filter_keeps_only_that_principal() -> None:
    principal = SNAP.roleAssignments[0].properties.principalId
    rows = query_snapshot(
        SNAP, QueryKind.ROLE_ASSIGNMENTS, f"principalId eq '{principal.upper()}'", "/"
    )
    assert rows and {r["properties"]["principalId"].lower() for r in rows} == {principal.lower()}


def test_health_events_under_a_subscription() -> None:
    rows = query_snapshot(SNAP, QueryKind.HEALTH_EVENTS, "properties/status eq 'Active'", SUB_SCOPE)
    assert all(r["id"].lower().startswith(SUB_SCOPE.lower() + "/") for r in rows)
    assert all(r["properties"]["status"] == "Active" for r in rows)


def test_cli_json_and_table(snapshot_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "query",
            "domains",
            "--snapshot",
            str(snapshot_file),
            "--filter",
            "properties/publicNetworkAccess eq 'Disabled'",
            "--format",
            "json",
        ]
    )
    assert code == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and all(r["properties"]["publicNetworkAccess"] == "Disabled" for r in rows)
    assert main(["query", "clusters", "--snapshot", str(snapshot_file)]) == 0
    assert f"{len(SNAP.clusters)} clusters" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--filter", "properties/x eq"], "^"),
        (["--scope", SUB_SCOPE, "--filter", "properties/scope eq 'x'"], "accepted forms"),
    ],
)
def test_cli_bad_filters_exit_2_with_a_caret(
    snapshot_file: Path, capsys: pytest.CaptureFixture[str], args: list[str], words: str
) -> None:
    code = main(["query", "role-assignments", "--snapshot", str(snapshot_file), *args])
    err = capsys.readouterr().err
    assert code == 2 and words in err and "Traceback" not in err


def test_cli_bad_snapshot_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"roleAssignments": [')
    assert main(["query", "role-assignments", "--snapshot", str(bad)]) == 2
    assert str(bad) in capsys.readouterr().err
