"""Fuzzing snapshot files (contracts 2) through every command that reads one: audit (every text
output format), estate show, access check / who / what, gdpr export, query."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz._bases import (
    ACTIONS,
    AS_OF,
    emails,
    principal_ids,
    scopes,
    snapshot,
    snapshot_bytes,
)
from tests.fuzz._harness import budget, run_and_check
from tests.fuzz._hostile import mutated_bytes, mutated_documents, to_json

FILE = "estate.json"
FORMATS = ("text", "json", "sarif", "junit", "csv", "markdown", "html")

Command = Callable[[str], list[str]]


def _audit(fmt: str) -> Command:
    return lambda f: [
        "audit",
        "--snapshot",
        f,
        "--as-of",
        AS_OF,
        "-o",
        f"{fmt}=report.{fmt}",
        "-o",
        "text",
    ]


COMMANDS: list[Command] = [
    *(_audit(fmt) for fmt in FORMATS),
    lambda f: ["audit", "--snapshot", f, "--as-of", AS_OF, "--compact"],
    lambda f: ["estate", "show", f, "--format", "json"],
    lambda f: ["estate", "show", f],
    lambda f: [
        "access", "check", "--snapshot", f, "--principal", principal_ids()[0],
        "--action", ACTIONS[0], "--scope", scopes()[-1], "--format", "json",
    ],
    lambda f: ["access", "who", "--snapshot", f, "--action", ACTIONS[0], "--scope", scopes()[-1]],
    lambda f: ["access", "what", "--snapshot", f, "--principal", principal_ids()[1]],
    lambda f: ["gdpr", "export", "--snapshot", f, "--email", emails()[0], "-o", "json=export.json"],
    lambda f: [
        "query", "role-assignments", "--snapshot", f,
        "--filter", "properties/principalType eq 'User'", "--format", "json",
    ],
    lambda f: ["query", "clusters", "--snapshot", f, "--format", "json"],
]  # fmt: skip
commands = st.sampled_from(COMMANDS)

WILDCARDS = st.one_of(
    st.sampled_from(["*" * 16 + "z", "*a" * 20 + "b", "*/" * 40 + "x", "Cloud.*" * 30, "*?" * 30]),
    st.text(st.sampled_from("*a/.z"), min_size=10, max_size=200),
)


@budget(quick=40)
@given(doc=mutated_documents(snapshot()), command=commands, ascii_only=st.booleans())
def test_structured_snapshots(doc: Any, command: Command, ascii_only: bool) -> None:
    data = to_json(doc, ascii_only=ascii_only)
    run_and_check(command(FILE), inputs={FILE: data}, input_name=FILE)


@budget(quick=30)
@given(data=mutated_bytes(snapshot_bytes()), command=commands)
def test_damaged_snapshot_bytes(data: bytes, command: Command) -> None:
    run_and_check(command(FILE), inputs={FILE: data}, input_name=FILE, secrets_in="messages")


@st.composite
def wildcard_estates(draw: st.DrawFn) -> dict[str, Any]:
    """Roles and deny assignments whose actions are the worst wildcard patterns (issue 16: a
    custom role with ``****************z`` stalled the engine)."""
    doc = snapshot()
    for role in doc["roleDefinitions"]:
        perm = role["properties"]["permissions"][0]
        perm["actions"] = draw(st.lists(WILDCARDS, min_size=1, max_size=3))
        perm["notActions"] = draw(st.lists(WILDCARDS, max_size=2))
    for deny in doc["denyAssignments"]:
        perm = deny["properties"]["permissions"][0]
        perm["actions"] = draw(st.lists(WILDCARDS, min_size=1, max_size=3))
        perm["notActions"] = draw(st.lists(WILDCARDS, max_size=2))
    return doc


WILDCARD_COMMANDS: list[Command] = [
    lambda f: ["audit", "--snapshot", f, "--as-of", AS_OF, "-o", "json=report.json"],
    lambda f: [
        "access", "check", "--snapshot", f, "--principal", principal_ids()[2],
        "--action", "a" * 200, "--scope", scopes()[-1], "--format", "json",
    ],
    lambda f: ["access", "who", "--snapshot", f, "--action", "a/" * 100, "--scope", scopes()[-1]],
    lambda f: ["access", "what", "--snapshot", f, "--principal", principal_ids()[0]],
]  # fmt: skip


@budget(quick=12)
@given(doc=wildcard_estates(), command=st.sampled_from(WILDCARD_COMMANDS))
def test_wildcard_heavy_roles_and_denies(doc: dict[str, Any], command: Command) -> None:
    run_and_check(command(FILE), inputs={FILE: to_json(doc)}, input_name=FILE)
