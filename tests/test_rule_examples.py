"""Every rule carries its examples, and every example of every shipped rule holds (``auditor rules
test`` as a library call); the pack format's JSON Schema accepts every shipped pack."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor._resources import data_dir
from auditor.audit.examples import (
    EXAMPLE_AS_OF,
    missing_examples,
    run_example,
    run_examples,
    shape_problem,
)
from auditor.audit.packs import Example, load_catalogue, shipped_catalogue, without_examples
from auditor.errors import InputError


@pytest.fixture(scope="module")
def catalogue() -> Any:
    return shipped_catalogue(examples=True)


def test_every_shipped_example_holds(catalogue: Any) -> None:
    results = run_examples(catalogue)
    assert len(results) == sum(len(r.examples) for r in catalogue.rules) > 0
    misses = [
        f"{r.rule.id} {r.label} (line {r.example.line}): expected {r.example.status}, got "
        f"{r.got}: {r.message}"
        for r in results
        if not r.ok
    ]
    assert not misses, "\n".join(misses)


def test_every_shipped_rule_has_a_failing_and_a_passing_example(catalogue: Any) -> None:
    assert missing_examples(catalogue.rules) == []
    for rule in catalogue.rules:
        assert all(e.line > rule.line > 0 for e in rule.examples), rule.id
        assert {e.status for e in rule.examples} >= {"fail", "pass"}, rule.id


def test_examples_are_read_only_when_asked() -> None:
    plain, full = shipped_catalogue(), shipped_catalogue(examples=True)
    assert all(not r.examples for r in plain.rules)
    assert [r.to_json() for r in plain.rules] == [r.to_json() for r in full.rules]
    assert [r.line for r in plain.rules] == [r.line for r in full.rules]
    assert plain.settings == full.settings


def test_a_wrong_expectation_is_a_miss(catalogue: Any) -> None:
    rule = catalogue.by_id()["DOM-001"]
    example = next(e for e in rule.examples if e.status == "fail")
    flipped = Example("pass", 0, example.item, example.line)
    result = run_example(catalogue, rule, flipped)
    assert not result.ok and result.got == "fail"
    assert result.to_json()["expected"] == "pass"
    elsewhere = Example("fail", 0, {"estate": {}, "resource": "/subscriptions/nowhere"}, 1)
    result = run_example(catalogue, rule, elsewhere)
    assert result.got == "none" and "no finding" in result.message


def test_an_example_that_is_not_an_input_names_the_pack_and_line(catalogue: Any) -> None:
    rule = catalogue.by_id()["DOM-001"]
    bad = Example("fail", 3, {"name": "d", "location": 7, "properties": []}, 42)
    with pytest.raises(InputError) as err:
        run_example(catalogue, rule, bad)
    assert err.value.source == rule.source
    assert "line 42" in str(err.value.location) and "examples.fail[3]" in str(err.value.location)


def test_examples_run_at_a_fixed_clock_unless_they_say(catalogue: Any) -> None:
    rule = catalogue.by_id()["TOK-001"]
    token = {"id": "t", "kind": "app", "accessType": "readOnly", "description": "Release bot"}
    item = {"estate": {"devTooling": {"tokens": [token]}}, "resource": "t"}
    assert run_example(catalogue, rule, Example("fail", 0, item, 1)).ok  # 2026-11-21
    early = dict(item, asOf="2025-01-01")
    assert run_example(catalogue, rule, Example("pass", 0, early, 1)).ok
    assert EXAMPLE_AS_OF.isoformat() == "2026-11-21"


@pytest.mark.parametrize(
    ("item", "runs_on", "problem"),
    [
        ([1], ["estate"], "is a mapping"),
        ({"estate": {}}, ["estate"], "also names its resource"),
        ({"resource": 3}, ["estate"], "resource is the id"),
        ({"plan": {}, "resource": "x"}, ["estate"], "does not run on plans"),
        ({"estate": {}, "resource": "x", "settings": {"nope": 1}}, ["estate"], "nope"),
        ({"estate": [], "resource": "x"}, ["estate"], "estate is a mapping"),
    ],
)
def test_example_shapes(item: Any, runs_on: list[str], problem: str) -> None:
    found = shape_problem(
        item, runs_on=runs_on, resource_type="Cloud.EventRouting/domains", settings=["known"]
    )
    assert found is not None and problem in found
    ok = {"name": "d", "properties": {}}
    assert (
        shape_problem(ok, runs_on=runs_on, resource_type="Cloud.EventRouting/domains", settings=[])
        is None
    )


def test_the_schema_accepts_every_shipped_pack() -> None:
    import jsonschema

    schema = json.loads(
        (resources.files("auditor.audit") / "rule-pack.schema.json").read_text("utf-8")
    )
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    files = sorted(data_dir("rules").glob("*.yaml"))
    assert files
    for path in files:
        errors = [e.message for e in validator.iter_errors(yaml.safe_load(path.read_text()))]
        assert errors == [], path.name
    broken = {"version": 2, "pack": "x", "resourceType": "t", "rules": [{"id": "x"}]}
    assert len(list(validator.iter_errors(broken))) >= 2


_TEXT = st.text(alphabet="abc :#-\n", max_size=30)


@settings(max_examples=40, deadline=None)
@given(
    description=_TEXT,
    message=_TEXT,
    indent=st.sampled_from([2, 4]),
    with_examples=st.booleans(),
    after=st.booleans(),
)
def test_without_examples_cuts_the_examples_and_nothing_else(
    description: str, message: str, indent: int, with_examples: bool, after: bool
) -> None:
    rule: dict[str, Any] = {"id": "ACME-001", "title": "t", "description": description}
    if with_examples:
        rule["examples"] = {"fail": [{"name": "examples: x", "properties": {"a": [1, 2]}}]}
    rule["message"] = message
    if after:
        rule["runsOn"] = ["estate"]
    doc = {"version": 1, "rules": [rule, {"id": "ACME-002", "title": "examples:"}]}
    text = yaml.safe_dump(doc, indent=indent, sort_keys=False, default_flow_style=False)
    cut = without_examples(text)
    assert cut.count("\n") == text.count("\n")  # lines kept: line numbers hold
    rule.pop("examples", None)
    assert yaml.safe_load(cut) == doc
    assert yaml.safe_load(without_examples(text.replace("\n", "\r\n"))) == doc  # CRLF too


def test_a_user_rule_is_one_yaml_block_with_its_examples(tmp_path: Any) -> None:
    folder = tmp_path / "policies"
    folder.mkdir()
    (folder / "acme.yaml").write_text(
        """version: 1
pack: acme
resourceType: Cloud.EventRouting/domains
rules:
  - id: ACME-001
    title: Domains run in the home region
    severity: low
    runsOn: [plan, estate]
    description: A domain outside the home region.
    predicate: "location eq @settings/acmeHomeRegion"
    settings:
      acmeHomeRegion: {type: string, default: westeurope, description: The home region.}
    evidence: [location]
    message: "Domain {resourceName} is in {location}, not {settings.acmeHomeRegion}."
    passMessage: "Domain {resourceName} is in the home region."
    remediation: "Create it in {settings.acmeHomeRegion}."
    references: [ACME 1]
    examples:
      fail: [{name: d-us, location: eastus, properties: {}}]
      pass:
        - {name: d-eu, location: westeurope, properties: {}}
        - estate: {}
          resource: {name: d-us, location: eastus, properties: {}}
          settings: {acmeHomeRegion: eastus}
""",
        "utf-8",
    )
    catalogue = load_catalogue(None, [folder], examples=True)
    mine = [r for r in catalogue.rules if r.user]
    assert [r.id for r in mine] == ["ACME-001"]
    results = run_examples(catalogue, mine)
    assert [(r.example.status, r.got) for r in results] == [
        ("fail", "fail"),
        ("pass", "pass"),
        ("pass", "pass"),
    ]
    assert [r.example.line for r in results] == [19, 21, 22]


def test_rule_pages_show_examples_without_their_secret_literals() -> None:
    from auditor.audit.rule_docs import rule_pages

    pages = rule_pages()
    assert "## Examples" in pages["DOM-001.md"] and "dom-private" in pages["DOM-001.md"]
    text = "".join(pages.values())
    for literal in ("Example-Pa55word!", "Ex4mple!", "0123456789abcdef0123456789abcdef01234567"):
        assert literal not in text
    assert "${GATEWAY_PASSWORD}" in pages["CLU-008.md"]  # a reference is shown
