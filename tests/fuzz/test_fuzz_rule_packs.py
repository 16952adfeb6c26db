"""Fuzzing a user's rule pack (contracts 10, YAML) through ``rules lint``, ``rules test`` and
``audit --rules``: hostile values in every field (predicates, messages, settings, examples), tags,
anchors and alias bombs, damaged bytes, and a framework file beside the pack."""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz._bases import AS_OF, snapshot_bytes
from tests.fuzz._harness import budget, run_and_check
from tests.fuzz._hostile import Raw, mutated_bytes, mutated_documents, to_yaml_flow

PACK = "policies/acme.yaml"
FRAMEWORK = "policies/frameworks/acme.yaml"
ESTATE = "estate.json"


def pack() -> dict[str, Any]:
    """A valid user pack with one predicate rule and its examples."""
    return {
        "version": 1,
        "pack": "acme-domains",
        "resourceType": "Cloud.EventRouting/domains",
        "rules": [
            {
                "id": "ACME-001",
                "title": "Domains live in the home region",
                "severity": "medium",
                "runsOn": ["plan", "estate"],
                "description": "A domain outside the home region.",
                "predicate": "location eq @settings/acmeHomeRegion and not (tags/env eq 'x')",
                "settings": {
                    "acmeHomeRegion": {
                        "type": "string",
                        "default": "westeurope",
                        "description": "The home region.",
                    }
                },
                "evidence": ["location"],
                "message": "Domain {resourceName} is in {location}, not {settings.acmeHomeRegion}.",
                "passMessage": "Domain {resourceName} is in the home region.",
                "remediation": "Move it.",
                "references": ["ACME policy 7"],
                "examples": {
                    "fail": [{"name": "d1", "location": "eastus", "properties": {}}],
                    "pass": [{"name": "d2", "location": "westeurope", "properties": {}}],
                },
            }
        ],
    }


def framework() -> dict[str, Any]:
    return {
        "framework": {"id": "acme", "name": "ACME controls", "version": "1"},
        "controls": [{"id": "A-1", "title": "Home region", "rules": ["ACME-001", "DOM-001"]}],
    }


PREDICATES = st.sampled_from(
    [
        "(" * 300 + "true" + ")" * 300,
        "not " * 500 + "true",
        " and ".join(["location eq 'x'"] * 400),
        "location eq @settings/nope",
        "location eq @asOf/x",
        "location in @settings/acmeHomeRegion",
        "contains(location, '" + "%" * 5_000 + "')",
        "properties/" + "a/" * 500 + "b eq 1",
        "location eq '\u202e\x1b[31m'",
        "length(location) gt 99999999999999999999999",
        "tags/any(t: t/any(u: u/any(v: v eq 1)))",
        "",
    ]
).map(Raw)


@st.composite
def pack_documents(draw: st.DrawFn) -> bytes:
    kind = draw(st.integers(0, 5))
    if kind == 0:  # an alias bomb where the rules go
        levels, width = draw(st.integers(1, 9)), draw(st.integers(2, 10))
        lines = ['l0: &l0 ["lol", "lol"]']
        for i in range(1, levels + 1):
            lines.append(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]")
        lines += ["version: 1", "pack: p", "resourceType: Cloud.EventRouting/domains"]
        lines.append(f"rules: *l{levels}")
        return ("\n".join(lines) + "\n").encode()
    if kind == 1:  # a hostile predicate in an otherwise valid pack
        doc = pack()
        doc["rules"][0]["predicate"] = draw(PREDICATES)
        return to_yaml_flow(doc)
    doc = draw(mutated_documents(pack(), extra=PREDICATES))
    return to_yaml_flow(doc)


def _commands(which: int) -> list[str]:
    return [
        ["rules", "lint", "policies"],
        ["rules", "test", "policies"],
        ["rules", "list", "--rules", "policies", "--framework", "acme"],
        [
            "audit",
            "--snapshot",
            ESTATE,
            "--as-of",
            AS_OF,
            "--rules",
            "policies",
            "--check",
            "ACME-*",
            "-o",
            "json=out.json",
            "-o",
            "text=out.txt",
        ],
    ][which]


@budget(quick=30)
@given(data=pack_documents(), which=st.integers(0, 3))
def test_hostile_rule_packs(data: bytes, which: int) -> None:
    inputs = {ESTATE: snapshot_bytes(), PACK: data, FRAMEWORK: yaml.safe_dump(framework()).encode()}
    run_and_check(_commands(which), inputs=inputs, input_name=PACK)


@budget(quick=20)
@given(
    data=mutated_bytes(yaml.safe_dump(pack(), sort_keys=False).encode()),
    frame=mutated_bytes(yaml.safe_dump(framework(), sort_keys=False).encode()),
    which=st.integers(0, 3),
)
def test_damaged_rule_pack_and_framework_bytes(data: bytes, frame: bytes, which: int) -> None:
    inputs = {ESTATE: snapshot_bytes(), PACK: data, FRAMEWORK: frame}
    run_and_check(
        _commands(which), inputs=inputs, input_name=(PACK, FRAMEWORK), secrets_in="messages"
    )
