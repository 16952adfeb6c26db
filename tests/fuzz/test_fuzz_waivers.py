"""Fuzzing waivers files (contracts 7, YAML) through ``audit --waivers`` and ``gate --waivers``:
impossible dates, tags, anchors and alias bombs, wildcard-heavy globs, damaged bytes."""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz._bases import AS_OF, plans, snapshot_bytes, waivers
from tests.fuzz._harness import budget, run_and_check
from tests.fuzz._hostile import Raw, mutated_bytes, mutated_documents, to_json, to_yaml_flow
from tests.fuzz._secrets import SECRET_KEYS, SECRETS

FILE = "waivers.yaml"
ESTATE = "estate.json"
PLAN = "plan.json"

YAML_VALUES = st.sampled_from(
    [
        "2027-02-30",
        "2027-13-01",
        "2027-01-01T25:00:00",
        "2027-03-31 10:00:00 +25:00",
        "!!timestamp notadate",
        "!!timestamp 2027-02-30",
        "!!int notanumber",
        "!!float x",
        "!!binary '%%%'",
        "!!python/object/apply:os.system ['true']",
        "!!python/name:os.system",
        "!<tag:yaml.org,2002:str> 1",
        "!!set {a, b}",
        "!!omap [a: 1]",
        "*undefined",
        "&a [*a]",
        ".nan",
        "-.inf",
        "0x1F",
        "0o17",
        "1_000_000",
        "99999999999999999999999999",
        "~",
        "yes",
        "=",
        "<<: {a: 1}",
        "'",
        '"\\ud800"',
        '"\\x1b[31m"',
        '"\\u202e"',
        "|\n  literal",
        "'" + "*" * 30 + "z'",
        "'" + "*a" * 20 + "b'",
        "'" + "[" * 50 + "'",
    ]
).map(Raw)


def _alias_bomb(levels: int, width: int) -> bytes:
    lines = ['l0: &l0 ["lol", "lol"]']
    for i in range(1, levels + 1):
        refs = ", ".join([f"*l{i - 1}"] * width)
        lines.append(f"l{i}: &l{i} [{refs}]")
    lines.append("version: 1")
    lines.append(f"waivers: *l{levels}")
    return ("\n".join(lines) + "\n").encode()


def _recursive_alias() -> bytes:
    return b"version: 1\nwaivers: &w\n  - id: W-1\n    rule: *w\n    resource: '*'\n"


@st.composite
def yaml_documents(draw: st.DrawFn) -> bytes:
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return _alias_bomb(draw(st.integers(1, 9)), draw(st.integers(2, 10)))
    if kind == 1:
        return _recursive_alias()
    if kind == 2:  # several documents, or a secret under a secret-looking key
        entry = {
            "id": "W-9",
            "rule": "*",
            "resource": "*",
            "justification": "j",
            "expires": "2027-01-01",
        }
        entry[draw(st.sampled_from(SECRET_KEYS))] = draw(st.sampled_from(SECRETS))
        doc = {"version": 1, "waivers": [entry]}
        text = yaml.safe_dump(doc)
        return (text + draw(st.sampled_from(["", "---\n" + text, "...\n"]))).encode()
    doc = draw(mutated_documents(waivers(), extra=YAML_VALUES))
    return to_yaml_flow(doc)


def _commands(fmt: str) -> list[list[str]]:
    return [
        [
            "audit",
            "--snapshot",
            ESTATE,
            "--as-of",
            AS_OF,
            "--waivers",
            FILE,
            "-o",
            f"{fmt}=out.{fmt}",
        ],
        ["gate", PLAN, "--as-of", AS_OF, "--waivers", FILE, "-o", f"{fmt}=out.{fmt}"],
    ]


def _inputs(data: bytes) -> dict[str, bytes]:
    return {ESTATE: snapshot_bytes(), PLAN: to_json(plans()[0]), FILE: data}


@budget(quick=40)
@given(
    data=yaml_documents(),
    fmt=st.sampled_from(["json", "text", "sarif", "markdown"]),
    which=st.integers(0, 1),
)
def test_structured_waivers(data: bytes, fmt: str, which: int) -> None:
    run_and_check(_commands(fmt)[which], inputs=_inputs(data), input_name=FILE)


def _block_yaml(doc: Any) -> bytes:
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True).encode()


@budget(quick=30)
@given(data=mutated_bytes(_block_yaml(waivers())), which=st.integers(0, 1))
def test_damaged_waiver_bytes(data: bytes, which: int) -> None:
    run_and_check(
        _commands("json")[which], inputs=_inputs(data), input_name=FILE, secrets_in="messages"
    )
