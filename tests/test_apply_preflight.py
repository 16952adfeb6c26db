"""``gate --apply`` never half-applies on what it could have known (issue 20, item 6): every URL,
secret reference and body is checked before the first request, and a problem sends nothing."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import msgspec
import pytest

from auditor.api.apply import ApplyPreflightError, prepare_bodies
from auditor.cli import main
from auditor.estate.plan import Plan, loads_plan
from auditor.estate.sample import sample_plans, sample_snapshot
from tests.test_api_apply import SECRETS
from tests.test_sandbox_helpers import sandbox


def _plan(name: str = "compliant-plan") -> Plan:
    return loads_plan(msgspec.json.encode(sample_plans()[name]), source=name)


def test_a_good_plan_gets_every_body_with_its_secrets() -> None:
    plan = _plan()
    bodies = prepare_bodies(plan, SECRETS)
    assert len(bodies) == len(plan.requests)
    assert "gw-Secret-1" in json.dumps(bodies)


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("https://elsewhere.example{path}?api-version=2025-02-15", "not a path of the API"),
        ("/subscriptions/other/resourceGroups/rg/providers/X/y/z", "does not name the request"),
        ("{path}?api-version=2025-02-15&api-version=2021-01-01", "more than one api-version"),
    ],
)
def test_every_problem_is_named_before_anything_is_sent(url: str, problem: str) -> None:
    plan = _plan()
    first = plan.requests[0]
    bad = dataclasses.replace(first, url=url.format(path=first.resource_id))
    broken = dataclasses.replace(plan, requests=[bad, *plan.requests[1:]])
    with pytest.raises(ApplyPreflightError) as caught:
        prepare_bodies(broken, {})  # and no secret values: the cluster's references fail too
    problems = caught.value.problems
    assert any(p.startswith("request 0 ") and problem in p for p in problems), problems
    assert any("has no value" in p for p in problems)  # every problem, not only the first
    assert "nothing was applied" in str(caught.value)
    for value in SECRETS.values():
        assert value not in str(caught.value)


def test_the_cli_sends_nothing_when_a_secret_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "auditor.toml").write_text("")  # no configuration found above tmp dirs
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(sample_plans()["compliant-plan"]))
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("GATEWAY_PASSWORD")
    monkeypatch.setenv("AUDITOR_TOKEN", "t-sandbox-reader")
    plan = _plan()
    with sandbox(sample_snapshot(), api_tokens={}) as server:
        code = main(["gate", str(plan_file), "-q", "--apply", "--base-url", server.url])
        store = server.sandbox.store
        sent = [
            r.resource_id
            for r in plan.requests
            if store.cluster(r.resource_id) or store.domain(r.resource_id)
        ]
    err = capsys.readouterr().err
    assert code == 2, err
    assert sent == []
    assert "GATEWAY_PASSWORD has no value" in err and "nothing was applied" in err
    for value in SECRETS.values():
        assert value not in err
