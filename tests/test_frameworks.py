"""Frameworks (``rules/frameworks/*.yaml``), ``--framework``, the "Compliance by control" view in
every report, and rule-set pinning (``rules/catalogue/version.yaml``, ``--ruleset``)."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import re
import xml.etree.ElementTree as ET
from functools import cache
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from auditor._resources import data_dir
from auditor.audit.findings import AuditResult, Finding
from auditor.audit.frameworks import (
    Control,
    Framework,
    control_view,
    load_framework_file,
    load_frameworks,
    shipped_frameworks,
)
from auditor.audit.packs import shipped_catalogue
from auditor.audit.ruleset import catalogue_version, changelog_markdown, shipped_ruleset
from auditor.audit.runner import AuditOptions, audit_snapshot, gate_plan
from auditor.cli import main
from auditor.errors import InputError
from auditor.estate.plan import loads_plan
from auditor.estate.sample import sample_plans, sample_snapshot, sample_snapshot_bytes
from auditor.report import RenderOptions, render
from tests.test_audit_golden import AS_OF, GOLDEN, SETTINGS

CHANGELOG = Path(__file__).resolve().parents[1] / "docs" / "rules-changelog.md"


def _options(**kw: object) -> AuditOptions:
    return AuditOptions(use_config=False, as_of=AS_OF, settings=dict(SETTINGS), **kw)  # type: ignore[arg-type]


@cache
def _sample_audit() -> AuditResult:
    return audit_snapshot(sample_snapshot(), _options())


@pytest.fixture(autouse=True)
def _no_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no auditor.toml / pyproject.toml above tmp dirs


@pytest.fixture(scope="module")
def snapshot_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("fw") / "estate.json"
    path.write_bytes(sample_snapshot_bytes())
    return path


# --- the framework files -------------------------------------------------------------------------


def test_shipped_frameworks_validate() -> None:
    ids = set(shipped_catalogue().by_id())
    frameworks = shipped_frameworks()
    assert set(frameworks) == {"mcsb", "cis"}
    for fw in frameworks.values():
        assert fw.name and fw.version and fw.controls
        for control in fw.controls:
            assert control.title.strip(), control.id
            assert control.rules and set(control.rules) <= ids, control.id
        keys = [c.id for c in fw.controls]
        assert len(keys) == len(set(keys))
    assert {c.id for c in frameworks["mcsb"].controls} >= {"PA-1", "PA-7", "NS-2", "DP-3", "IM-1"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", frameworks["cis"].version)


def test_rule_references_agree_with_the_mappings() -> None:
    """A rule whose references name a CIS or MCSB control is mapped to that control."""
    frameworks = shipped_frameworks()
    mapped = {
        (fw_id, c.id, rule)
        for fw_id, fw in frameworks.items()
        for c in fw.controls
        for rule in c.rules
    }
    named = 0
    for rule in shipped_catalogue().rules:
        for ref in rule.info.references:
            m = re.fullmatch(r"(CIS|MCSB) (\S+)", ref)
            if m:
                named += 1
                assert (m.group(1).lower(), m.group(2), rule.id) in mapped, (rule.id, ref)
    assert named >= 4


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


GOOD = """
framework: {id: acme, name: Acme baseline, version: "2"}
controls:
  - id: AC-1
    title: Owners are few
    rules: [RBAC-001]
"""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            GOOD.replace("RBAC-001", "RBAC-999"),
            r"controls\[0\] \(AC-1\)\.rules\[0\]: no rule 'RBAC-999'",
        ),
        (GOOD.replace("    title: Owners are few\n", ""), r"controls\[0\] \(AC-1\)\.title"),
        (GOOD.replace("id: AC-1", "id: 5.30"), r"quoted string"),
        (GOOD.replace("rules: [RBAC-001]", "rules: []"), r"controls\[0\] \(AC-1\)\.rules"),
        (GOOD + "    extra: 1\n", r"extra"),
        (GOOD + GOOD.split("controls:\n")[1], r"AC-1 is listed twice"),
    ],
)
def test_a_bad_framework_file_is_an_input_error(tmp_path: Path, text: str, expected: str) -> None:
    path = _write(tmp_path / "frameworks" / "acme.yaml", text)
    with pytest.raises(InputError) as info:
        load_framework_file(path, shipped_catalogue().by_id())
    message = str(info.value)
    assert str(path) in message and re.search(expected, message), message


def test_a_user_pack_maps_its_rules_and_adds_frameworks(tmp_path: Path) -> None:
    _write(tmp_path / "frameworks" / "acme.yaml", GOOD)
    _write(
        tmp_path / "frameworks" / "mcsb-extra.yaml",
        'framework: {id: mcsb, name: ignored, version: "0"}\n'
        "controls:\n"
        "  - {id: PA-1, title: same control, rules: [RBAC-014]}\n"
        "  - {id: LT-3, title: Enable logging for security investigation, rules: [HLT-001]}\n",
    )
    loaded = load_frameworks([data_dir("rules"), tmp_path], shipped_catalogue().by_id())
    assert set(loaded) == {"mcsb", "cis", "acme"}
    mcsb = loaded["mcsb"]
    assert mcsb.name == shipped_frameworks()["mcsb"].name  # the first file's
    pa1 = next(c for c in mcsb.controls if c.id == "PA-1")
    assert pa1.rules[-1] == "RBAC-014" and "RBAC-001" in pa1.rules
    assert mcsb.controls[-1].id == "LT-3"


# --- --framework selects -------------------------------------------------------------------------


def test_framework_selects_its_rules() -> None:
    cis = shipped_frameworks()["cis"]
    result = audit_snapshot(sample_snapshot(), _options(frameworks=["CIS"]))
    ran = {r.id for r in result.rules}
    assert ran == set(cis.rule_ids())  # every CIS rule runs on the estate
    assert {f.ruleId for f in result.findings} <= ran
    assert {c.framework for c in result.controls} == {"cis"}
    both = audit_snapshot(sample_snapshot(), _options(frameworks=["cis", "mcsb"]))
    mcsb_estate = {r.id for r in shipped_catalogue().rules if r.runs_on("estate")} & set(
        shipped_frameworks()["mcsb"].rule_ids()
    )
    assert {r.id for r in both.rules} == ran | mcsb_estate


def test_framework_and_check_combine() -> None:
    result = audit_snapshot(sample_snapshot(), _options(frameworks=["cis"], checks=["RBAC-00[12]"]))
    assert {r.id for r in result.rules} == {"RBAC-001", "RBAC-002"}


def test_framework_in_the_configuration(tmp_path: Path) -> None:
    config = _write(tmp_path / "auditor.toml", 'framework = ["cis"]\n')
    options = AuditOptions(config_file=str(config), as_of=AS_OF)
    result = audit_snapshot(sample_snapshot(), options)
    assert {r.id for r in result.rules} == set(shipped_frameworks()["cis"].rule_ids())
    _write(config, 'framework = "nist"\n')
    with pytest.raises(InputError, match=r"auditor\.toml: framework.*unknown framework 'nist'"):
        audit_snapshot(sample_snapshot(), options)


def test_unknown_framework_exits_2_naming_the_known_ones(
    snapshot_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in (
        ["audit", "--snapshot", str(snapshot_file), "--framework", "nist"],
        ["gate", str(snapshot_file), "--framework", "nist"],
        ["rules", "list", "--framework", "nist"],
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "unknown framework 'nist'" in err and "cis, mcsb" in err, err


def test_framework_on_the_command_line(
    snapshot_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "f.json"
    code = main(
        ["audit", "--snapshot", str(snapshot_file), "--framework", "cis", "-o", f"json={out}"]
    )
    assert code == 1  # the sample estate fails CIS 5.27
    doc = json.loads(out.read_text("utf-8"))
    assert {f["ruleId"] for f in doc["findings"]} <= set(shipped_frameworks()["cis"].rule_ids())
    assert [c["id"] for c in doc["controls"]] == ["5.3.3", "5.3.5", "5.23", "5.27"]


def test_rules_list_shows_a_framework(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "list", "--framework", "cis"]) == 0
    text = capsys.readouterr().out
    assert "5.27  Ensure there are between 2 and 3 subscription owners" in text
    assert re.search(r"RBAC-001\s+high\s+At most 3 subscription owners", text)
    assert "DOM-001" not in text
    assert main(["rules", "list", "--framework", "mcsb", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [fw["id"] for fw in doc["frameworks"]] == ["mcsb"]
    pa1 = next(c for c in doc["frameworks"][0]["controls"] if c["id"] == "PA-1")
    assert "RBAC-001" in pa1["rules"] and pa1["title"]
    assert {r["id"] for r in doc["rules"]} == set(shipped_frameworks()["mcsb"].rule_ids())


# --- the control view ----------------------------------------------------------------------------


def _golden_fail_resources(rules: tuple[str, ...]) -> set[str]:
    rows = json.loads(GOLDEN.read_text("utf-8"))
    return {r for rule, status, r in rows if rule in rules and status == "fail" and "#" not in r}


def test_control_counts_on_the_sample_estate() -> None:
    """Each control's counts equal those of an audit running only the control's rules (the
    summary's counts, computed without the control view), and its failing resources those of the
    golden file."""
    result = _sample_audit()
    assert {c.framework for c in result.controls} == {"mcsb", "cis"}
    estate_rules = {r.id for r in shipped_catalogue().rules if r.runs_on("estate")}
    for control in result.controls:
        run = tuple(r for r in control.rules if r in estate_rules)
        assert control.rulesRun == run, control.key
        if not run:
            assert control.status == "not-run" and not any(control.counts.values())
            continue
        alone = audit_snapshot(sample_snapshot(), _options(checks=list(run))).summary()
        failing = sum(alone[s] for s in ("critical", "high", "medium", "low", "info"))
        assert control.counts["fail"] == failing, control.key
        assert control.counts["pass"] == alone["passed"], control.key
        assert control.counts["unknown"] == alone["unknown"], control.key
        assert control.counts["waived"] == alone["waived"], control.key
        golden = _golden_fail_resources(run)
        assert control.failingResourcesTotal == len(golden), control.key
        assert set(control.failingResources) <= golden
        expected = "fail" if failing else ("pass" if alone["passed"] else "no-resources")
        assert control.status == expected, control.key
    by_key = {c.key: c for c in result.controls}
    assert by_key["cis:5.27"].counts["fail"] == 2 and by_key["cis:5.27"].status == "fail"
    assert by_key["mcsb:IM-6"].status == "not-run"  # CLU-009 judges plans only


def test_control_view_in_a_gate_run() -> None:
    name, doc = next((n, d) for n, d in sample_plans().items() if n == "risky-plan")
    result = gate_plan(loads_plan(json.dumps(doc).encode(), source=name), _options())
    by_key = {c.key: c for c in result.controls}
    assert by_key["mcsb:IM-8"].rulesRun == ("CLU-008", "TOK-006")
    assert by_key["mcsb:IM-8"].status == "fail"
    assert "cis:5.27" not in by_key  # no CIS rule runs on a plan: the framework is not shown


def test_counted_failures_stay_in_the_counts() -> None:
    capped = audit_snapshot(sample_snapshot(), _options(max_failures_per_rule=1))
    full = {c.key: c.counts for c in _sample_audit().controls}
    assert {c.key: c.counts for c in capped.controls} == full
    pa1 = next(c for c in capped.controls if c.key == "mcsb:PA-1")
    assert pa1.failingResourcesTotal <= len(pa1.rulesRun)


def test_waived_findings_make_a_waived_control() -> None:
    result = _sample_audit()
    findings = [
        f if f.ruleId != "RBAC-008" or f.status != "fail" else _waived(f) for f in result.findings
    ]
    cis = shipped_frameworks()["cis"]
    view = {c.id: c for c in control_view(findings, [cis], [r.id for r in result.rules])}
    assert view["5.3.3"].status == "waived" and view["5.3.3"].counts["waived"] == 1
    assert view["5.3.3"].failingResources == ()


def _waived(f: Finding) -> Finding:
    return dataclasses.replace(f, status="waived")


def test_control_view_lists_at_most_20_failing_resources() -> None:
    findings = [
        Finding("RBAC-004", "high", "fail", f"/subscriptions/s/ra/{i}", "t", "m") for i in range(45)
    ]
    control = Control("C-1", "Disabled accounts hold no role", ("RBAC-004",))
    fw = Framework("x", "X", "1", None, (control,))
    (view,) = control_view(findings, [fw], ["RBAC-004"])
    assert view.counts["fail"] == 45 and view.failingResourcesTotal == 45
    assert len(view.failingResources) == 20 and view.failingResources[0].endswith("/0")


# --- every report shows it -----------------------------------------------------------------------


def test_json_has_the_controls_and_matches_the_schema() -> None:
    doc = json.loads(render(_sample_audit(), "json"))
    schema = json.loads((resources.files("auditor.report") / "findings.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(doc)
    pa1 = next(c for c in doc["controls"] if c["framework"] == "mcsb" and c["id"] == "PA-1")
    assert pa1["counts"]["fail"] > 0 and pa1["failingResources"] and pa1["url"].startswith("https")
    assert pa1["frameworkName"] == "Microsoft cloud security benchmark"


def test_text_and_markdown_show_the_controls() -> None:
    result = _sample_audit()
    text = render(result, "text").decode()
    assert "Compliance by control (15):" in text
    assert "[FAIL] cis:5.27  Ensure there are between 2 and 3 subscription owners" in text
    assert "[NOT-RUN] mcsb:IM-6" in text
    compact = render(result, "text", options=RenderOptions(compact=True)).decode()
    assert "Compliance by control: cis 4 fail; mcsb " in compact
    markdown = render(result, "markdown").decode()
    assert "### Compliance by control" in markdown
    assert re.search(
        r"\| `cis:5\.27` \| Ensure there are between 2 and 3 subscription owners \| fail \| 2 \|",
        markdown,
    )


def test_html_and_pdf_markup_show_the_controls() -> None:
    from auditor.report.pdf import build_html

    result = _sample_audit()
    html = render(result, "html").decode()
    assert '<section id="controls"' in html and "<h2>Compliance by control</h2>" in html
    assert 'id="control-cis-5.27"' in html and "mcsb:PA-1" in html
    pdf_html = build_html(result, RenderOptions())
    assert "<h1>Compliance by control</h1>" in pdf_html and "cis:5.23" in pdf_html


def test_csv_sarif_junit_and_ocsf_carry_the_control_ids() -> None:
    result = _sample_audit()
    rows = list(csv.DictReader(io.StringIO(render(result, "csv").decode("utf-8-sig"))))
    rbac001 = next(r for r in rows if r["ruleId"] == "RBAC-001")
    assert rbac001["controls"] == "cis:5.27; mcsb:PA-1"
    assert next(r for r in rows if r["ruleId"] == "DOM-009")["controls"] == ""
    sarif = json.loads(render(result, "sarif"))
    rules = {r["id"]: r for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert {"cis:5.27", "mcsb:PA-1"} <= set(rules["RBAC-001"]["properties"]["tags"])
    assert not any(
        ":" in t and t.startswith(("mcsb", "cis")) for t in rules["DOM-009"]["properties"]["tags"]
    )
    junit = ET.fromstring(render(result, "junit"))
    suite = next(s for s in junit.iter("testsuite") if s.get("name", "").startswith("RBAC-006:"))
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["controls"] == "cis:5.23; mcsb:PA-7"
    ocsf = json.loads(render(result, "ocsf"))
    event = next(e for e in ocsf if e["finding_info"]["analytic"]["uid"] == "RBAC-001")
    assert event["unmapped"]["compliance"]["requirements"] == ["cis:5.27", "mcsb:PA-1"]


def test_no_framework_view_when_no_mapped_rule_ran() -> None:
    result = audit_snapshot(sample_snapshot(), _options(checks=["DOM-009"]))
    assert result.controls == []
    assert "Compliance by control" not in render(result, "text").decode()
    assert json.loads(render(result, "json"))["controls"] == []


# --- rule-set pinning ----------------------------------------------------------------------------


def test_the_catalogue_has_a_version_and_its_changelog_holds_every_rule() -> None:
    ruleset = shipped_ruleset()
    assert (
        re.fullmatch(r"\d{4}\.\d+\.\d+", ruleset.version) and ruleset.version == catalogue_version()
    )
    assert ruleset.changes[0].version == ruleset.version
    assert ruleset.rule_ids() == set(shipped_catalogue().by_id()), (
        "a rule was added or removed without an entry in rules/catalogue/version.yaml"
    )


def test_the_changelog_page_is_up_to_date() -> None:
    assert CHANGELOG.read_text("utf-8") == changelog_markdown(), (
        "regenerate: auditor rules changelog --out docs/rules-changelog.md"
    )


def test_rules_list_shows_the_version(capsys: pytest.CaptureFixture[str]) -> None:
    version = catalogue_version()
    assert main(["rules", "list"]) == 0
    assert capsys.readouterr().out.startswith(f"Rule catalogue {version} (")
    assert main(["rules", "list", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["version"] == version and {"mcsb", "cis"} <= {f["id"] for f in doc["frameworks"]}
    assert main(["rules", "changelog", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["version"] == version


def test_ruleset_mismatch_exits_2(
    snapshot_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    installed = catalogue_version()
    for argv in (
        ["audit", "--snapshot", str(snapshot_file), "--ruleset", "2020.1.0"],
        ["gate", str(snapshot_file), "--ruleset", "2020.1.0"],
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert f"installed rule catalogue is {installed}" in err and "'2020.1.0'" in err, err
    out = tmp_path / "ok.json"
    code = main(
        ["audit", "--snapshot", str(snapshot_file), "--ruleset", installed, "-o", f"json={out}"]
    )
    assert code == 1 and out.is_file()  # pinned to what is installed: it runs
    _write(tmp_path / "auditor.toml", 'ruleset = "1999.0.0"\n')
    assert main(["audit", "--snapshot", str(snapshot_file)]) == 2
    err = capsys.readouterr().err
    assert "auditor.toml: ruleset" in err and "'1999.0.0'" in err
    _write(tmp_path / "auditor.toml", "ruleset = 2026\n")
    assert main(["audit", "--snapshot", str(snapshot_file)]) == 2
    assert "expected a version string" in capsys.readouterr().err


USER_PACK = """version: 1
pack: acme-clusters
resourceType: Cloud.AnalyticsCluster/clusters
rules:
  - id: ACME-001
    title: Clusters run in the home region
    severity: medium
    runsOn: [plan, estate]
    description: A cluster outside the company's home region.
    predicate: "location eq 'westeurope'"
    evidence: [location]
    message: "Cluster {resourceName} runs in {location}."
    passMessage: "Cluster {resourceName} runs in the home region."
    remediation: "Create the cluster in westeurope."
    references: [ACME policy 7]
    examples:
      fail:
        - {name: hdi-us, location: eastus, properties: {}}
      pass:
        - {name: hdi-eu, location: westeurope, properties: {}}
"""


def test_a_user_pack_framework_on_the_command_line(
    snapshot_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path / "pol" / "acme.yaml", USER_PACK)
    _write(
        tmp_path / "pol" / "frameworks" / "acme.yaml",
        GOOD.replace("rules: [RBAC-001]", "rules: [ACME-001, RBAC-001]"),
    )
    args = ["audit", "--snapshot", str(snapshot_file), "--rules", "pol", "--framework", "acme"]
    assert main([*args, "-o", "json=out.json"]) == 1
    doc = json.loads((tmp_path / "out.json").read_text("utf-8"))
    assert {f["ruleId"] for f in doc["findings"]} == {"ACME-001", "RBAC-001"}
    (control,) = doc["controls"]
    assert (control["framework"], control["id"]) == ("acme", "AC-1")
    assert control["rulesRun"] == ["ACME-001", "RBAC-001"] and control["status"] == "fail"
    assert main(["rules", "list", "--rules", "pol", "--framework", "acme"]) == 0
    text = capsys.readouterr().out
    assert "AC-1  Owners are few" in text and "ACME-001" in text
    assert main([*args[:3], "--framework", "acme"]) == 2  # without the pack, no such framework
    assert "unknown framework 'acme'" in capsys.readouterr().err


def test_a_framework_with_no_rule_for_the_input_says_so() -> None:
    name, doc = next((n, d) for n, d in sample_plans().items() if n == "risky-plan")
    result = gate_plan(
        loads_plan(json.dumps(doc).encode(), source=name), _options(frameworks=["cis"])
    )
    assert result.rules == [] and result.exit_code == 0
    assert all(c.status == "not-run" for c in result.controls) and len(result.controls) == 4
    assert any("framework cis: none of its rules ran on this plan" in w for w in result.warnings)


def test_the_markdown_table_is_bounded() -> None:
    result = _sample_audit()
    many = dataclasses.replace(
        result,
        controls=[
            dataclasses.replace(c, id=f"{c.id}-{i}") for i in range(6) for c in result.controls
        ],
    )
    markdown = render(many, "markdown").decode()
    rows = [
        line
        for line in markdown.splitlines()
        if line.startswith("| `cis:") or line.startswith("| `mcsb:")
    ]
    assert len(rows) == 60
    failing = sum(1 for c in many.controls if c.status == "fail")
    assert all("| fail |" in row for row in rows[: min(60, failing)])
    assert f"{len(many.controls) - 60} more control(s) (" in markdown
