"""User rule packs: ``--rules DIR`` and ``rules = [...]`` in the configuration load them beside the
shipped ones; they appear in every report; clashes and ``check:`` are input errors; ``auditor rules
test`` runs their examples (exit 0, 1 on a miss, 2 for an unusable pack)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from auditor.audit.packs import load_catalogue
from auditor.audit.runner import AuditOptions, audit_snapshot
from auditor.cli import main
from auditor.errors import InputError
from auditor.estate.sample import sample_plans, sample_snapshot, sample_snapshot_bytes

PACK = """version: 1
pack: acme-clusters
resourceType: Cloud.AnalyticsCluster/clusters
rules:
  - id: ACME-001
    title: Clusters run in the home region
    severity: medium
    runsOn: [plan, estate]
    description: A cluster outside the company's home region.
    predicate: "location eq @settings/acmeHomeRegion"
    settings:
      acmeHomeRegion: {type: string, default: westeurope, description: The home region.}
    evidence: [location]
    message: "Cluster {resourceName} runs in {location}, not {settings.acmeHomeRegion}."
    passMessage: "Cluster {resourceName} runs in the home region."
    remediation: "Create the cluster in {settings.acmeHomeRegion}."
    references: [ACME policy 7]
    examples:
      fail:
        - {name: hdi-us, location: eastus, properties: {}}
      pass:
        - {name: hdi-eu, location: westeurope, properties: {}}
"""


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # no configuration file of the checkout is found
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "acme.yaml").write_text(PACK, "utf-8")
    (tmp_path / "estate.json").write_bytes(sample_snapshot_bytes())
    return tmp_path


def _findings(path: Path) -> list[dict[str, Any]]:
    return list(json.loads(path.read_text("utf-8"))["findings"])


def test_audit_with_rules_dir_reports_the_user_rule(work: Path) -> None:
    args = ["audit", "--snapshot", "estate.json", "--rules", "policies", "--fail-on", "none"]
    code = main([*args, "-o", "json=out.json", "-o", "sarif=out.sarif", "--check", "ACME-*"])
    assert code == 0
    mine = [(f["status"], f["resourceId"].rsplit("/", 1)[-1]) for f in _findings(work / "out.json")]
    assert ("fail", "hdi-dev-sandbox") in mine and ("pass", "hdi-prod-analytics") in mine
    sarif = json.loads((work / "out.sarif").read_text("utf-8"))
    assert "ACME-001" in {r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]}


def test_configuration_names_rule_folders_relative_to_the_file(work: Path) -> None:
    (work / "conf").mkdir()
    (work / "conf" / "auditor.toml").write_text(
        'rules = ["../policies"]\n[settings]\nacmeHomeRegion = "eastus"\n', "utf-8"
    )
    options = AuditOptions(config_file=str(work / "conf" / "auditor.toml"), checks=["ACME-001"])
    result = audit_snapshot(sample_snapshot(), options)
    assert result.findings and {f.ruleId for f in result.findings} == {"ACME-001"}
    status = {f.resourceId.rsplit("/", 1)[-1]: f.status for f in result.findings}
    assert status["hdi-prod-analytics"] == "fail"  # westeurope: the default home, not eastus
    assert all("not eastus" in f.message for f in result.findings if f.status == "fail")


def test_library_rule_packs_option(work: Path) -> None:
    options = AuditOptions(use_config=False, rule_packs=[str(work / "policies")])
    result = audit_snapshot(sample_snapshot(), options)
    assert "ACME-001" in {r.id for r in result.rules}
    shipped = audit_snapshot(sample_snapshot(), AuditOptions(use_config=False))
    assert "ACME-001" not in {r.id for r in shipped.rules}


def test_a_clash_with_a_shipped_id_names_both_files_and_lines(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (work / "policies" / "acme.yaml").write_text(PACK.replace("ACME-001", "DOM-001"), "utf-8")
    assert main(["audit", "--snapshot", "estate.json", "--rules", "policies"]) == 2
    err = capsys.readouterr().err
    assert "acme.yaml" in err and "line 5" in err
    assert "domains.yaml, line 8" in err and "DOM-001" in err


def test_a_clash_between_user_packs(work: Path) -> None:
    (work / "more").mkdir()
    (work / "more" / "copy.yaml").write_text(PACK, "utf-8")
    with pytest.raises(InputError) as err:
        load_catalogue(None, [work / "policies", work / "more"])
    assert "copy.yaml" in str(err.value.source) and "acme.yaml, line 5" in err.value.message


def test_a_user_pack_may_not_name_code(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = PACK.replace(
        'predicate: "location eq @settings/acmeHomeRegion"', "check: cluster-version"
    )
    (work / "policies" / "acme.yaml").write_text(text, "utf-8")
    assert main(["rules", "list", "--rules", "policies"]) == 2
    err = capsys.readouterr().err
    assert "acme.yaml" in err and "predicate" in err and "cluster-version" in err


def test_a_bad_predicate_is_an_input_error(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = PACK.replace("location eq @settings", "location eqq @settings")
    (work / "policies" / "acme.yaml").write_text(text, "utf-8")
    (work / "plan.json").write_text(json.dumps(sample_plans()["compliant-plan"]), "utf-8")
    assert main(["gate", "plan.json", "--rules", "policies"]) == 2
    err = capsys.readouterr().err
    assert "acme.yaml" in err and "eqq" in err
    assert main(["rules", "test", "policies"]) == 2


def test_rules_list_and_show_see_user_rules(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "list", "--format", "json", "--rules", "policies"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "ACME-001" in [r["id"] for r in doc["rules"]]
    assert doc["settings"]["acmeHomeRegion"]["default"] == "westeurope"
    assert main(["rules", "show", "ACME-001", "--rules", "policies"]) == 0
    assert "home region" in capsys.readouterr().out
    assert main(["rules", "show", "ACME-001"]) == 2


def test_rules_test_dir_passes(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "test", "policies"]) == 0
    out = capsys.readouterr().out
    assert "ACME-001  examples.fail[0]  fail      fail  ok" in out
    assert "2 example(s) of 1 rule(s): 2 passed, 0 missed" in out
    assert "DOM-001" not in out  # DIR given: its rules only


def test_rules_test_reports_a_miss(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = PACK.replace("{name: hdi-us, location: eastus", "{name: hdi-us, location: westeurope")
    (work / "policies" / "acme.yaml").write_text(text, "utf-8")
    assert main(["rules", "test", "policies", "-o", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert (doc["passed"], doc["missed"]) == (1, 1)
    miss = next(r for r in doc["results"] if not r["ok"])
    assert miss["rule"] == "ACME-001" and miss["example"] == "examples.fail[0]"
    assert miss["line"] == 20 and miss["file"].endswith("acme.yaml") and miss["got"] == "pass"
    assert main(["rules", "test", "policies"]) == 1
    out = capsys.readouterr().out
    assert "MISS ACME-001 examples.fail[0]" in out and "line 20" in out


def test_rules_test_requires_a_failing_and_a_passing_example(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = PACK.split("    examples:")[0]
    (work / "policies" / "acme.yaml").write_text(text, "utf-8")
    assert main(["rules", "test", "policies"]) == 1
    out = capsys.readouterr().out
    assert "MISS ACME-001" in out and "no fail example" in out and "no pass example" in out


def test_rules_test_with_shipped_and_every_loaded_rule(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from auditor.cli._rules import _scope

    _, mine = _scope(work / "policies", None, None, with_shipped=False)
    _, both = _scope(work / "policies", None, None, with_shipped=True)
    assert [r.id for r in mine] == ["ACME-001"]
    assert len(both) > 1 and {"ACME-001", "DOM-001"} <= {r.id for r in both}
    (work / "auditor.toml").write_text('rules = ["policies"]\n', "utf-8")
    assert main(["rules", "test", "-o", "json"]) == 0  # the configuration's packs are loaded
    loaded = json.loads(capsys.readouterr().out)
    assert loaded["rules"] == len(both) and loaded["missed"] == 0
    assert "ACME-001" in {r["rule"] for r in loaded["results"]}


def test_rules_option_needs_an_existing_folder(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["audit", "--snapshot", "estate.json", "--rules", "nowhere"]) == 2
    assert "nowhere" in capsys.readouterr().err
    (work / "empty").mkdir()
    assert main(["rules", "test", "empty"]) == 2
    assert "no rule packs" in capsys.readouterr().err


def test_rules_schema_prints_the_shipped_schema(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib import resources

    assert main(["rules", "schema"]) == 0
    shipped = (resources.files("auditor.audit") / "rule-pack.schema.json").read_text("utf-8")
    assert json.loads(capsys.readouterr().out) == json.loads(shipped)


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("rules = [1]", "expected a list of folders of rule packs"),
        ('rules = "policies"', "expected a list of folders of rule packs or a table"),
        ('rules = ["missing"]', "no such folder of rule packs: 'missing'"),
    ],
)
def test_configuration_rules_key_errors(
    work: Path, capsys: pytest.CaptureFixture[str], line: str, words: str
) -> None:
    (work / "auditor.toml").write_text(line + "\n", "utf-8")
    assert main(["audit", "--snapshot", "estate.json"]) == 2
    err = capsys.readouterr().err
    assert "auditor.toml" in err and "rules" in err and words in err


def test_a_resource_type_no_predicate_can_judge_is_an_input_error(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = PACK.replace("Cloud.AnalyticsCluster/clusters", "Cloud.Compute/virtualMachines")
    (work / "policies" / "acme.yaml").write_text(text, "utf-8")
    assert main(["audit", "--snapshot", "estate.json", "--rules", "policies"]) == 2
    err = capsys.readouterr().err
    assert "acme.yaml: line 3, resourceType" in err and "Cloud.EventRouting/domains" in err
    assert main(["rules", "lint", "policies"]) == 2
    assert "acme.yaml:3:1: resourceType 'Cloud.Compute/virtualMachines'" in capsys.readouterr().out


def test_a_user_rule_may_name_no_reference_every_shipped_one_does(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = work / "policies" / "acme.yaml"
    pack.write_text(PACK.replace("    references: [ACME policy 7]\n", ""), "utf-8")
    assert main(["rules", "lint", "policies"]) == 0
    assert main(["rules", "test", "policies"]) == 0
    args = ["audit", "--snapshot", "estate.json", "--rules", "policies", "--check", "ACME-*"]
    assert main([*args, "--fail-on", "none", "-o", "sarif=out.sarif"]) == 0
    capsys.readouterr()
    shipped = load_catalogue()
    assert all(rule.info.references for rule in shipped.rules), "a shipped rule without reference"


@pytest.mark.parametrize("command", [["rules", "lint", "policies"], ["rules", "test", "policies"]])
def test_a_pipe_among_the_packs_is_refused_not_skipped(
    work: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    import os

    os.mkfifo(work / "policies" / "zz.yaml")  # read, it would block forever
    assert main(command) == 2
    out = capsys.readouterr()
    assert "zz.yaml" in out.out + out.err and "named pipe" in out.out + out.err
