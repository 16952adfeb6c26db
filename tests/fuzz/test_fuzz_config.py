"""Fuzzing the configuration (``auditor.toml``, ``[tool.auditor]`` in ``pyproject.toml``, or
``--config FILE``) through ``audit``, ``gate`` and ``rules list``."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz._bases import AS_OF, config, plans, snapshot_bytes, to_toml
from tests.fuzz._harness import budget, run_and_check
from tests.fuzz._hostile import Raw, mutated_bytes, mutated_documents, to_json

ESTATE = "estate.json"
PLAN = "plan.json"

TOML_VALUES = st.sampled_from(
    [
        "2027-02-30",
        "1979-05-27T25:00:00",
        "1979-05-27T07:32:00+25:00",
        "inf",
        "-nan",
        "99999999999999999999999999",
        "0x_1",
        "[" * 5_000 + "]" * 5_000,
        "{a = " * 2_000 + "1" + "}" * 2_000,
        '"' + "*" * 40 + 'z"',
        '"' + "*a" * 20 + 'b"',
        '"\\u202e"',
        '"\\u001b[31m"',
        "'''multi\nline'''",
        '"/dev/zero"',
        '"."',
        '"' + "../" * 50 + '"',
        "true false",
    ]
).map(Raw)

# (file name, how the command finds it, wrap the document in [tool.auditor])
LOCATIONS = [
    ("auditor.toml", "--config", False),
    ("custom.toml", "--config", False),
    ("auditor.toml", "found", False),
    ("pyproject.toml", "found", True),
    ("pyproject.toml", "--config", True),
]


def _argv(command: int, name: str, how: str) -> list[str]:
    config_args = ["--config", name] if how == "--config" else []
    return [
        ["audit", "--snapshot", ESTATE, "--as-of", AS_OF, "-o", "json=out.json", *config_args],
        ["gate", PLAN, "-o", "json=out.json", *config_args],
        ["rules", "list", "--format", "json", *config_args],
    ][command]


def _inputs(name: str, data: bytes) -> dict[str, bytes]:
    return {ESTATE: snapshot_bytes(), PLAN: to_json(plans()[1]), name: data}


@budget(quick=40)
@given(
    doc=mutated_documents(config(), extra=TOML_VALUES),
    where=st.sampled_from(LOCATIONS),
    command=st.integers(0, 2),
)
def test_structured_configurations(doc: Any, where: tuple[str, str, bool], command: int) -> None:
    name, how, wrapped = where
    text = to_toml({"tool": {"auditor": doc}} if wrapped else doc)
    run_and_check(
        _argv(command, name, how), inputs=_inputs(name, text.encode("utf-8")), input_name=name
    )


@budget(quick=30)
@given(
    data=mutated_bytes(to_toml(config()).encode()),
    where=st.sampled_from(LOCATIONS[:3]),
    command=st.integers(0, 2),
)
def test_damaged_configuration_bytes(
    data: bytes, where: tuple[str, str, bool], command: int
) -> None:
    name, how, _ = where
    run_and_check(
        _argv(command, name, how),
        inputs=_inputs(name, data),
        input_name=name,
        secrets_in="messages",
    )


def _second_wave_config() -> dict[str, Any]:
    """The keys the second wave added: user rule pack folders, frameworks, the pinned rule set
    and the cache (read by every command that loads a snapshot)."""
    return {
        "rules": ["policies"],
        "framework": ["mcsb"],
        "ruleset": "2026.11.0",
        "cache": True,
        "settings": {"acmeHomeRegion": "westeurope"},
    }


_PACK = b"""version: 1
pack: acme
resourceType: Cloud.EventRouting/domains
rules:
  - id: ACME-001
    title: Home region
    severity: low
    runsOn: [estate]
    description: A domain outside the home region.
    predicate: "location eq @settings/acmeHomeRegion"
    settings:
      acmeHomeRegion: {type: string, default: westeurope, description: The home region.}
    message: "{resourceName} is elsewhere."
    passMessage: "{resourceName} is home."
    remediation: Move it.
"""


@budget(quick=30)
@given(
    doc=mutated_documents(_second_wave_config(), extra=TOML_VALUES),
    command=st.integers(0, 3),
)
def test_structured_second_wave_keys(doc: Any, command: int) -> None:
    argv = ["estate", "show", ESTATE] if command == 3 else _argv(command, "auditor.toml", "found")
    inputs = {**_inputs("auditor.toml", to_toml(doc).encode("utf-8")), "policies/a.yaml": _PACK}
    run_and_check(argv, inputs=inputs, input_name="auditor.toml")
