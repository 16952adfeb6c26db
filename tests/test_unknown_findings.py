"""``unknown`` findings (contracts 6): a rule that cannot judge a resource says so, in every format,
with the same count; ``--fail-on-unknown`` blocks on them; waivers and baselines apply to them; a
finding says where its resource came from (``source``) and SARIF points code scanning at that line.

The plan here stands for what a template reader produces: the compliant sample plan with some values
left unknown (a TLS version from a parameter without a value, a gateway password from a
``securestring`` parameter, a cluster version from ``reference()``, a metastore URL from an
unresolved variable), each request defined at a line of ``main.json``.
"""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import io
import json
import re
import xml.etree.ElementTree as ET
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pypdf import PdfReader

from auditor.audit.findings import AuditResult
from auditor.audit.packs import member_paths
from auditor.audit.runner import AuditOptions, gate_plan
from auditor.audit.unknowns import split_path, unresolved
from auditor.audit.waivers import Waiver
from auditor.cli import main
from auditor.estate.plan import Plan, RequestSource, UnknownInfo, loads_plan
from auditor.estate.sample import sample_plans
from auditor.report import RenderOptions, render

AS_OF = dt.date(2026, 11, 21)
SARIF_SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"
CONFIGS = "properties/clusterDefinition/configurations"
GATEWAY_PASSWORD = f"{CONFIGS}/gateway/restAuthCredential.password"
HIVE_URL = f"{CONFIGS}/hive-site/javax.jdo.option.ConnectionURL"
TLS = "properties/minimumTlsVersionAllowed"
LINES = {"domain": 7, "cluster": 19}

DOMAIN_UNKNOWNS = {TLS: UnknownInfo("parameters('tlsVersion') has no value")}
CLUSTER_UNKNOWNS = {
    GATEWAY_PASSWORD: UnknownInfo("parameters('gatewayPassword') is a securestring", True),
    "properties/clusterVersion": UnknownInfo("reference('base').version is known at deployment"),
    HIVE_URL: UnknownInfo("variables('hiveUrl') has no value"),
}
EXPECTED_UNKNOWN = {"DOM-004", "CLU-010", "CLU-011", "CLU-012"}


def _template_plan(folder: Path, *, unknowns: bool = True) -> Plan:
    """The compliant plan with the values above left unknown (null in the body), each request
    sourced from ``main.json`` at a line."""
    doc = sample_plans()["compliant-plan"]
    dom, clu = doc["requests"][0]["body"], doc["requests"][1]["body"]
    if unknowns:
        dom["properties"]["minimumTlsVersionAllowed"] = None
        configs = clu["properties"]["clusterDefinition"]["configurations"]
        configs["gateway"]["restAuthCredential.password"] = None
        configs["hive-site"]["javax.jdo.option.ConnectionURL"] = None
        clu["properties"]["clusterVersion"] = None
    template = folder / "main.json"
    template.write_text(
        "{\n" + "\n".join(f'  "line{i}": {i},' for i in range(2, 40)) + '\n  "end": 0\n}\n'
    )
    plan = loads_plan(json.dumps(doc).encode(), source=str(folder / "plan.json"))
    requests = []
    for req in plan.requests:
        kind = req.kind
        requests.append(
            dataclasses.replace(
                req,
                source=RequestSource(str(template), LINES[kind], f"{kind}Resource"),
                unknowns=(DOMAIN_UNKNOWNS if kind == "domain" else CLUSTER_UNKNOWNS)
                if unknowns
                else {},
            )
        )
    plan.requests = requests
    return plan


def _gate(plan: Plan, **kw: Any) -> AuditResult:
    return gate_plan(plan, AuditOptions(use_config=False, as_of=AS_OF, **kw))


@pytest.fixture(autouse=True)
def _cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # SARIF URIs relative to the working directory; no config file


@pytest.fixture()
def result(tmp_path: Path) -> AuditResult:
    return _gate(_template_plan(tmp_path))


def test_unresolved_values_give_unknown_never_pass_or_fail(result: AuditResult) -> None:
    unknown = {f.ruleId for f in result.findings if f.status == "unknown"}
    assert unknown == EXPECTED_UNKNOWN
    judged = {(f.ruleId, f.resourceId) for f in result.findings if f.status in ("pass", "fail")}
    assert not {(f.ruleId, f.resourceId) for f in result.unknowns} & judged
    # the securestring parameter is a reference: fine for CLU-008, not a literal secret
    clu008 = [f for f in result.findings if f.ruleId == "CLU-008"]
    assert [f.status for f in clu008] == ["pass"]
    assert clu008[0].evidence["secretReferences"] == [GATEWAY_PASSWORD]
    # the evidence names what was missing, the message says so
    dom004 = next(f for f in result.unknowns if f.ruleId == "DOM-004")
    assert dom004.evidence == {"unresolved": {TLS: "parameters('tlsVersion') has no value"}}
    assert "not known before deployment" in dom004.message and TLS in dom004.message
    clu010 = next(f for f in result.unknowns if f.ruleId == "CLU-010")
    assert list(clu010.evidence["unresolved"]) == [GATEWAY_PASSWORD]
    # the rest of the compliant plan still passes; the gate does not fail on unknowns by default
    assert result.summary()["unknown"] == 4 and not result.failures
    assert result.exit_code == 0 and "4 unknown" in result.exit_reason()


def test_a_fully_known_template_has_no_unknown(tmp_path: Path) -> None:
    result = _gate(_template_plan(tmp_path, unknowns=False))
    assert result.summary()["unknown"] == 0 and result.exit_code == 0


def test_source_object_in_json_with_file_line_and_address(result: AuditResult) -> None:
    doc = json.loads(render(result, "json"))
    schema = json.loads(
        (resources.files("auditor.report") / "findings.schema.json").read_text("utf-8")
    )
    jsonschema.validate(doc, schema)
    for f in doc["findings"]:
        if f["ruleId"] == "TOK-006":  # a per-run check over the plan file's bodies
            continue
        assert f["source"]["file"].endswith("main.json")
        assert f["source"]["line"] in LINES.values()
        assert f["source"]["address"] in {"domainResource", "clusterResource"}


def _counts(result: AuditResult, folder: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    counts["json"] = json.loads(render(result, "json"))["summary"]["unknown"]
    sarif = json.loads(render(result, "sarif", None, RenderOptions(source_root=str(folder))))
    notes = [r for r in sarif["runs"][0]["results"] if r["kind"] == "review"]
    assert all(r["level"] == "note" for r in notes)
    counts["sarif"] = len(notes)
    junit = ET.fromstring(render(result, "junit"))
    counts["junit"] = sum(
        1 for s in junit.iter("skipped") if s.get("message", "").startswith("unknown: ")
    )
    text = render(result, "text").decode()
    m = re.search(r"\| unknown (\d+),", text)
    assert m is not None
    counts["text"] = int(m.group(1))
    listed = re.search(r"Unknown findings \(could not be judged\) \((\d+)\):", text)
    counts["text lines"] = int(listed.group(1)) if listed else 0
    rows = list(csv.DictReader(io.StringIO(render(result, "csv").decode("utf-8-sig"))))
    counts["csv"] = sum(1 for r in rows if r["status"] == "unknown")
    html = render(result, "html").decode()
    card = re.search(r'id="card-unknown" href="#status=unknown"><span class="n">(\d+)<', html)
    assert card is not None
    counts["html card"] = int(card.group(1))
    counts["html rows"] = html.count('data-status="unknown"')
    md = render(result, "markdown").decode()
    row = md.split("| Unknown | Passed |", 1)[1].splitlines()[2]
    counts["markdown"] = int(row.split("|")[1])
    return counts


def test_every_format_counts_the_same_unknown_findings(result: AuditResult, tmp_path: Path) -> None:
    counts = _counts(result, tmp_path)
    assert set(counts.values()) == {4}, counts


def test_pdf_counts_unknown(result: AuditResult, tmp_path: Path) -> None:
    data = render(result, "pdf", tmp_path / "report.pdf")
    text = " ".join(p.extract_text() for p in PdfReader(io.BytesIO(data)).pages)
    assert "4 unknown (could not be judged)" in " ".join(text.split())
    for rule in EXPECTED_UNKNOWN:
        assert rule in text


def test_text_shows_file_and_line_next_to_the_resource(result: AuditResult) -> None:
    text = render(result, "text").decode()
    block = text.split("Unknown findings (could not be judged)", 1)[1]
    assert re.search(r"\[HIGH\] DOM-004  \S+dom-orders-v2  \(\S*main\.json:7\)", block)
    assert re.search(r"CLU-011  \S+hdi-prod-etl  \(\S*main\.json:19\)", block)


def test_sarif_points_at_the_template_line_and_validates(
    result: AuditResult, tmp_path: Path
) -> None:
    doc = json.loads(render(result, "sarif", None, RenderOptions(source_root=str(tmp_path))))
    schema = json.loads(SARIF_SCHEMA.read_text("utf-8"))
    errors = list(jsonschema.validators.validator_for(schema)(schema).iter_errors(doc))
    assert not errors, errors[:3]
    results = [r for r in doc["runs"][0]["results"] if r["ruleId"] != "TOK-006"]
    assert results
    for r in results:
        phys = r["locations"][0]["physicalLocation"]
        assert phys["artifactLocation"]["uri"] == "main.json"  # relative to the working directory
        assert phys["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert phys["region"]["startLine"] in LINES.values()
    dom = next(r for r in results if r["ruleId"] == "DOM-004")
    assert dom["level"] == "note" and dom["properties"]["status"] == "unknown"
    assert dom["locations"][0]["physicalLocation"]["region"]["startLine"] == LINES["domain"]


def test_fail_on_unknown_blocks_and_says_why(tmp_path: Path) -> None:
    result = _gate(_template_plan(tmp_path), fail_on_unknown=True)
    assert result.exit_code == 1 and not result.failures
    assert "4 unknown finding(s) with --fail-on-unknown" in result.exit_reason()
    assert "FAILED: 4 unknown finding(s)" in render(result, "text").decode()


def test_waived_unknown_is_waived(tmp_path: Path) -> None:
    waiver = Waiver(
        id="W-1",
        rule="CLU-*",
        resource="*/hdi-prod-etl",
        justification="The versions come from the base deployment",
        expires=dt.date(2027, 3, 31),
    )
    result = _gate(_template_plan(tmp_path), fail_on_unknown=True, waiver_list=[waiver])
    waived = {f.ruleId for f in result.findings if f.status == "waived"}
    assert waived == {"CLU-010", "CLU-011", "CLU-012"}
    assert all(f.waiver is not None for f in result.findings if f.status == "waived")
    assert {f.ruleId for f in result.unknowns} == {"DOM-004"}
    assert result.exit_code == 1  # DOM-004 is still unknown
    expired = dataclasses.replace(waiver, rule="DOM-004", resource="*", expires=dt.date(2026, 1, 1))
    again = _gate(_template_plan(tmp_path), waiver_list=[expired])
    dom = next(f for f in again.findings if f.ruleId == "DOM-004")
    assert dom.status == "unknown" and dom.waiver is not None and dom.waiver.expired


def test_baselined_unknown(tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    first = _gate(_template_plan(tmp_path), create_baseline=str(baseline))
    assert {f.status for f in first.findings if f.ruleId in EXPECTED_UNKNOWN} <= {
        "baselined",
        "pass",
    }
    entries = json.loads(baseline.read_text())["findings"]
    assert {e["ruleId"] for e in entries} == EXPECTED_UNKNOWN
    second = _gate(_template_plan(tmp_path), baseline=str(baseline), fail_on_unknown=True)
    assert not second.unknowns and second.exit_code == 0


def test_gate_cli_fail_on_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = _template_plan(tmp_path)
    (tmp_path / "plan.json").write_text("{}")
    monkeypatch.setattr("auditor.estate.plan.load_plan", lambda path: plan)
    args = ["gate", str(tmp_path / "plan.json"), "--as-of", "2026-11-21", "-o", "text"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "PASSED" in out and "unknown 4" in out
    assert main([*args, "--fail-on-unknown"]) == 1
    captured = capsys.readouterr()
    assert "FAILED: 4 unknown finding(s) with --fail-on-unknown" in captured.out
    assert "auditor: exit 1, the gate failed: 4 unknown finding(s)" in captured.err


def test_appliesto_reading_an_unknown_value(tmp_path: Path) -> None:
    """DOM-010 applies to domains with inbound IP rules: unknown rules make it unknown."""
    plan = _template_plan(tmp_path, unknowns=False)
    dom = plan.requests[0]
    unknowns = {"properties/inboundIpRules": UnknownInfo("parameters('rules') has no value")}
    plan.requests = [dataclasses.replace(dom, unknowns=unknowns)]
    result = _gate(plan)
    statuses = {f.ruleId: f.status for f in result.findings}
    assert statuses["DOM-010"] == "unknown"
    assert statuses["DOM-002"] == statuses["DOM-003"] == "unknown"
    assert statuses["DOM-001"] == "pass"  # public access disabled: known


def test_node_passwords_and_ssh_keys(tmp_path: Path) -> None:
    """CLU-009: an unknown password is set all the same (fail); unknown SSH keys with no password
    cannot be counted (unknown); CLU-008 treats a non-reference unknown as unknown."""
    plan = _template_plan(tmp_path, unknowns=False)
    clu = plan.requests[1]
    role0 = "properties/computeProfile/roles/0/osProfile/linuxOperatingSystemProfile"
    password = {f"{role0}/password": UnknownInfo("variables('pw') has no value")}
    keys = {f"{role0}/sshProfile/publicKeys": UnknownInfo("var.keys has no default")}
    with_password = _gate(
        dataclasses.replace(plan, requests=[dataclasses.replace(clu, unknowns=password)])
    )
    by_rule = {(f.ruleId, f.status) for f in with_password.findings}
    assert ("CLU-009", "fail") in by_rule and ("CLU-008", "unknown") in by_rule
    assert ("CLU-010", "unknown") in by_rule
    # the template leaves role 0's SSH keys unknown (left out of the body), sets no password
    doc = sample_plans()["compliant-plan"]
    linux = doc["requests"][1]["body"]["properties"]["computeProfile"]["roles"][0]["osProfile"][
        "linuxOperatingSystemProfile"
    ]
    del linux["sshProfile"]
    no_keys = loads_plan(json.dumps(doc).encode(), source="plan.json").requests[1]
    result = _gate(
        dataclasses.replace(plan, requests=[dataclasses.replace(no_keys, unknowns=keys)])
    )
    clu009 = [f for f in result.findings if f.ruleId == "CLU-009"]
    assert [f.status for f in clu009] == ["unknown"]
    assert clu009[0].evidence["unresolved"] == {
        f"{role0}/sshProfile/publicKeys": "var.keys has no default"
    }
    # without the unknown marker the same body fails (no key given): never a guess either way
    result = _gate(dataclasses.replace(plan, requests=[no_keys]))
    assert [f.status for f in result.findings if f.ruleId == "CLU-009"] == ["fail"]


def test_member_paths_of_predicates() -> None:
    assert member_paths("properties/publicNetworkAccess eq 'Disabled'") == (
        "properties/publicNetworkAccess",
    )
    paths = member_paths(
        "properties/privateEndpointConnections/any(c: c/properties/status eq 'Approved') "
        "and identity/type ne null"
    )
    assert set(paths) == {
        "properties/privateEndpointConnections",
        "properties/privateEndpointConnections/properties/status",
        "identity/type",
    }


def test_unknown_paths_match_inside_above_and_across_indexes() -> None:
    info = {"properties/inboundIpRules/0/ipMask": UnknownInfo("x")}
    assert unresolved(["properties/inboundIpRules"], info) == {
        "properties/inboundIpRules/0/ipMask": "x"
    }
    assert unresolved(["PROPERTIES/InboundIpRules/ipMask"], info)
    assert not unresolved(["properties/publicNetworkAccess"], info)
    whole = {"properties": UnknownInfo("y")}
    assert unresolved(["properties/publicNetworkAccess"], whole) == {"properties": "y"}
    assert split_path("a/0/B", indexes=True) == ("a", "0", "b")


def test_plan_file_findings_name_their_request_and_line(tmp_path: Path) -> None:
    path = tmp_path / "risky.json"
    path.write_text(json.dumps(sample_plans()["risky-plan"], indent=2))
    result = _gate(loads_plan(path.read_bytes(), source=str(path)))
    doc = json.loads(render(result, "json"))
    dom = next(f for f in doc["findings"] if f["ruleId"] == "DOM-001" and f["status"] == "fail")
    assert dom["source"] == {"file": str(path), "address": "requests[0]"}
    text = render(result, "text").decode()
    body_line = path.read_text().splitlines().index('      "body": {') + 1
    assert re.search(rf"DOM-001  \S+dom-partner-ingest  \(\S*risky\.json:{body_line}\)", text)


def test_unknown_in_the_terminal_and_the_html_filter(result: AuditResult) -> None:
    from rich.console import Console

    from auditor.report.text import print_rich

    console = Console(record=True, width=200)
    print_rich(result, console)
    shown = console.export_text()
    assert "Unknown findings (could not be judged) (4)" in shown and "unknown" in shown
    html = render(result, "html").decode()
    assert '<input type="checkbox" name="status" value="unknown" checked>' in html
    assert 'class="st st-unknown"' in html


def test_every_plan_check_says_how_it_meets_unknown_values() -> None:
    """A named check that runs on plans either lists the body paths it reads or handles unknown
    values itself: a new check cannot silently read the null a template's unknown leaves."""
    from auditor.audit.packs import shipped_catalogue
    from auditor.audit.unknowns import CHECK_READS, UNKNOWN_AWARE

    plan_checks = {r.check for r in shipped_catalogue().rules if r.check and r.runs_on("plan")}
    assert plan_checks and plan_checks <= set(CHECK_READS) | UNKNOWN_AWARE
    assert not set(CHECK_READS) & UNKNOWN_AWARE
