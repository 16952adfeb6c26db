"""``auditor gate PATH...`` on the templates people really deploy (issue 17): ARM templates with their
parameters files, Bicep-compiled JSON in both layouts, the verified-module domain, Terraform
configurations and plans, and folders of them, judged rule by rule through the command line.

Every real file under ``tests/data/real/`` that holds a cluster or a domain is gated here with the
answer a reviewer gives by hand, the reasoning beside each rule (rules.md). The real files are
copied to a temporary folder first (the tests run there, so paths are relative and nothing is ever
written beside the originals), and a digest of every copied file is compared after the runs.

Shared reasoning for the eight quickstart clusters (the vendor's ``101-hdinsight-*`` templates with
their ``azuredeploy.parameters.json``, used by convention):
- CLU-001 fail: no ``encryptionInTransitProperties`` (not true); CLU-002 fail: no
  ``diskEncryptionProperties.encryptionAtHost``; CLU-005/CLU-006 fail: no ``networkProperties``
  (resource provider connection not Outbound, private link not Enabled).
- CLU-007 pass: ``restAuthCredential.isEnabled`` is the literal ``true``.
- CLU-008 fail, one per secret field: the gateway password and every node role's SSH password come
  from the parameters file's literal ``GEN-PASSWORD`` (a literal in a parameters file is a literal
  secret); the storage key is ``listKeys(...)`` (a reference: fine).
- CLU-009 fail, one per role: a password is set and no SSH public key is given.
- CLU-010 fail, one per literal password: ``GEN-PASSWORD`` has no lower-case letter and no digit.
- CLU-011 fail: ``clusterVersion`` 3.6 or 4.0, below the default minimum 5.1.
- CLU-012 pass: no metastore URL; CLU-013 pass: exactly one storage account, ``isDefault: true``.
- PLAN-001 fail: ``apiVersion`` 2018-06-01-preview where seed §9 says 2021-06-01.
- TOK-006 pass: no API token value in the body.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from auditor.cli import main
from auditor.errors import InputError
from auditor.estate.plan import loads_plan
from auditor.sources import read_deployment

DATA = Path(__file__).parent / "data"
REAL = DATA / "real"
TERRAFORM = DATA / "terraform"
SARIF_SCHEMA = DATA / "sarif-schema-2.1.0.json"
AS_OF = "2026-11-21"
QUICK = "real/fathym-it__azure-quickstart-templates"
BICEP = "real/Azure__bicep/src/Bicep.Core.Samples/Files/user_submitted/101/hdinsight-spark-linux"
AVM = "real/Azure__bicep-registry-modules/avm/res/event-grid/domain/main.json"
SCHEMA = "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#"


def _expect(**rules: str | list[str]) -> Counter[tuple[str, str]]:
    """``CLU_008=["fail"] * 3`` -> Counter({("CLU-008", "fail"): 3})."""
    out: Counter[tuple[str, str]] = Counter()
    for rule, statuses in rules.items():
        for status in [statuses] if isinstance(statuses, str) else statuses:
            out[(rule.replace("_", "-"), status)] += 1
    return out


def _quickstart(roles: int, *, in_vnet: bool = False) -> Counter[tuple[str, str]]:
    """The shared answer (module docstring) for a quickstart cluster with ``roles`` node roles."""
    return _expect(
        CLU_001="fail",
        CLU_002="fail",
        # CLU-004: one failure per role without virtualNetworkProfile id and subnet, or one pass
        CLU_004="pass" if in_vnet else ["fail"] * roles,
        CLU_005="fail",
        CLU_006="fail",
        CLU_007="pass",
        CLU_008=["fail"] * (roles + 1),  # gateway password + each role's SSH password
        CLU_009=["fail"] * roles,
        CLU_010=["fail"] * (roles + 1),
        CLU_011="fail",
        CLU_012="pass",
        CLU_013="pass",
        PLAN_001="fail",
        TOK_006="pass",
    )


REAL_TEMPLATES: dict[str, tuple[int, Counter[tuple[str, str]]]] = {
    # spark: headnode and workernode, clusterVersion 4.0, no virtual network.
    f"{QUICK}/101-hdinsight-spark-linux/azuredeploy.json": (100, _quickstart(2)),
    # autoscale: the same cluster shape with a schedule-based autoscale; clusterVersion 3.6.
    f"{QUICK}/101-hdinsight-autoscale-schedulebased/azuredeploy.json": (62, _quickstart(2)),
    # hbase and kafka: three roles (head, worker, zookeeper), each with the SSH password.
    f"{QUICK}/101-hdinsight-hbase-linux/azuredeploy.json": (118, _quickstart(3)),
    f"{QUICK}/101-hdinsight-kafka/azuredeploy.json": (118, _quickstart(3)),
    # ssh-password: the kind is a parameter (hadoop from the file); two roles.
    f"{QUICK}/101-hdinsight-linux-ssh-password/azuredeploy.json": (113, _quickstart(2)),
    # minimum-tls: both roles get virtualNetworkProfile id and subnet from resourceId() of
    # parameters the file gives -> CLU-004 pass; clusterVersion is the parameter's default 4.0;
    # minSupportedTlsVersion 1.2 is not what any rule reads.
    f"{QUICK}/101-hdinsight-minimum-tls/azuredeploy.json": (111, _quickstart(2, in_vnet=True)),
    # secure-vnet: the virtual network and subnet come from the template's own variables ->
    # CLU-004 pass (the resource group is the {resourceGroupName} placeholder, as text).
    f"{QUICK}/101-hdinsight-secure-vnet/azuredeploy.json": (138, _quickstart(2, in_vnet=True)),
    # custom-ambari-db: vnet from parameters -> CLU-004 pass. The metastore password
    # (hive-site ConnectionPassword, ambari-conf database-user-password) is a Key Vault reference
    # in the parameters file: fine for CLU-008 (3 failures: gateway + 2 roles), and its strength
    # cannot be judged (CLU-010: 3 failures + 1 unknown naming both paths). The hive JDBC URL is
    # concat('jdbc:sqlserver://', reference(<server>).fullyQualifiedDomainName,
    # ';database=', ..., ';encrypt=true;trustServerCertificate=true;...'): the server's name is
    # known only at deployment, but the properties after it are literal, and a reviewer reading
    # them fails CLU-012 for trustServerCertificate=true; so does the evaluator, which keeps the
    # known pieces of a half-known string.
    f"{QUICK}/101-hdinsight-custom-ambari-db/azuredeploy.json": (
        178,
        _quickstart(2, in_vnet=True)
        + _expect(CLU_010="unknown", CLU_012="fail")
        - _expect(CLU_012="pass"),
    ),
}

# The Bicep sample compiled in both layouts (resources as an array; languageVersion 2.0 with the
# symbolic name "cluster"): no parameters file beside it, so clusterName, the user names and both
# securestring passwords have no value. The passwords are then secret references: CLU-008 pass
# (one finding: nothing literal), CLU-010 one unknown naming the three password paths; CLU-009
# still fails per role (a password is set, whatever its value). The name is unknown: the resource
# id keeps {parameters('clusterName')} with a warning, and no finding is unknown because of it.
# Otherwise as the quickstart spark (clusterVersion 4.0, no vnet, api-version 2018-06-01-preview).
BICEP_ANSWER = _expect(
    CLU_001="fail",
    CLU_002="fail",
    CLU_004=["fail", "fail"],
    CLU_005="fail",
    CLU_006="fail",
    CLU_007="pass",
    CLU_008="pass",
    CLU_009=["fail", "fail"],
    CLU_010="unknown",
    CLU_011="fail",
    CLU_012="pass",
    CLU_013="pass",
    PLAN_001="fail",
    TOK_006="pass",
)
REAL_TEMPLATES[f"{BICEP}/main.json"] = (103, BICEP_ANSWER)
REAL_TEMPLATES[f"{BICEP}/main.symbolicnames.json"] = (104, BICEP_ANSWER)

# The verified module's domain (symbolic name "domain"), every parameter at its default:
# publicNetworkAccess '' and no private endpoints -> null -> the seed default Enabled: DOM-001 fail;
# no inbound IP rules (null, left out) -> open to every address: DOM-002 fail (DOM-003 and DOM-010
# do not apply); minimumTlsVersionAllowed '1.2': DOM-004 pass; disableLocalAuth true: DOM-005
# pass; managedIdentities null -> identity null: DOM-006 fail; no custom schema: DOM-009 pass; no
# user-assigned identities: DOM-011 pass; api-version 2023-06-01-preview, not 2025-02-15: PLAN-001
# fail. The role assignments, locks, diagnostics and private endpoints are loops over empty
# defaults: nothing else is deployed.
REAL_TEMPLATES[AVM] = (
    890,
    _expect(
        DOM_001="fail",
        DOM_002="fail",
        DOM_004="pass",
        DOM_005="pass",
        DOM_006="fail",
        DOM_009="pass",
        DOM_011="pass",
        PLAN_001="fail",
        TOK_006="pass",
    ),
)


def _digests(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder holding copies of tests/data/real (``real/``) and tests/data/terraform (``tf/``);
    afterwards, every copied file is byte for byte what it was."""
    root = tmp_path_factory.mktemp("gate-iac")
    shutil.copytree(REAL, root / "real")
    shutil.copytree(TERRAFORM, root / "tf")
    before = _digests(root / "real") | _digests(root / "tf")
    yield root
    assert _digests(root / "real") | _digests(root / "tf") == before  # nothing written over


@pytest.fixture(autouse=True)
def _in_workdir(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(workdir)  # relative paths as a user gives them; no configuration file


def _gate(
    capsys: pytest.CaptureFixture[str], *args: str, fmt: str = "json"
) -> tuple[int, Any, str]:
    """Run ``auditor gate ARGS -o FMT=out/report.FMT``: exit code, the report, standard error."""
    out = Path("out")
    out.mkdir(exist_ok=True)
    report = out / f"report.{fmt}"
    code = main(["gate", *args, "--as-of", AS_OF, "-o", f"{fmt}={report}"])
    err = capsys.readouterr().err
    if not report.exists():
        return code, None, err
    text = report.read_text(encoding="utf-8")
    report.unlink()
    return code, json.loads(text) if fmt in ("json", "sarif") else text, err


def _answer(doc: dict[str, Any]) -> Counter[tuple[str, str]]:
    return Counter((f["ruleId"], f["status"]) for f in doc["findings"])


# --- the real templates -----------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(REAL_TEMPLATES))
def test_real_template_answers_rule_by_rule(path: str, capsys: pytest.CaptureFixture[str]) -> None:
    line, expected = REAL_TEMPLATES[path]
    code, doc, err = _gate(capsys, path)
    assert _answer(doc) == expected
    assert code == 1  # every one fails at high or above (PLAN-001, and more)
    for finding in doc["findings"]:  # TOK-006 too: it names the template, not the gate's target
        source = finding["source"]
        assert source["file"] == path and source["line"] == line, finding
        assert source["address"]
    assert "Traceback" not in err


def test_quickstart_parameters_file_is_used_by_convention_and_on_request(
    capsys: pytest.CaptureFixture[str],
) -> None:
    template = f"{QUICK}/101-hdinsight-spark-linux/azuredeploy.json"
    parameters = f"{QUICK}/101-hdinsight-spark-linux/azuredeploy.parameters.json"
    _, by_convention, _ = _gate(capsys, template)
    _, explicit, _ = _gate(capsys, template, "--parameters", parameters)
    assert _answer(by_convention) == _answer(explicit)
    files = {i["file"] for i in explicit["coverage"]["inputs"]}
    assert {template, parameters} <= files
    # the gateway password from the file's literal GEN-PASSWORD: CLU-008 names the field
    clu008 = [f for f in explicit["findings"] if f["ruleId"] == "CLU-008"]
    assert any("restAuthCredential.password" in f["message"] for f in clu008)
    assert "GEN-PASSWORD" not in json.dumps(explicit)  # a secret value is never echoed


def test_dash_p_wins_over_the_parameters_file_and_is_never_echoed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    template = f"{QUICK}/101-hdinsight-minimum-tls/azuredeploy.json"
    secret = "Xk7#pLm9-Quartz-2207"
    code, doc, err = _gate(
        capsys, template, "-p", "clusterVersion=5.1", "-p", f"clusterLoginPassword={secret}"
    )
    statuses = Counter((f["ruleId"], f["status"]) for f in doc["findings"])
    assert statuses[("CLU-011", "pass")] == 1  # 5.1 given: at the minimum
    # the gateway password is now a strong literal: still a literal (CLU-008), no longer weak
    assert statuses[("CLU-010", "fail")] == 2 and statuses[("CLU-008", "fail")] == 3
    assert secret not in json.dumps(doc) and secret not in err
    assert code == 1  # the literal passwords still fail CLU-008


def test_the_two_bicep_layouts_give_the_same_findings(capsys: pytest.CaptureFixture[str]) -> None:
    _, array, err = _gate(capsys, f"{BICEP}/main.json")
    _, symbolic, _ = _gate(capsys, f"{BICEP}/main.symbolicnames.json")

    def shape(doc: dict[str, Any]) -> list[tuple[str, str, str, str]]:
        return sorted(  # TOK-006's message names the file
            (f["ruleId"], f["status"], f["resourceId"], f["message"] * (f["ruleId"] != "TOK-006"))
            for f in doc["findings"]
        )

    assert shape(array) == shape(symbolic)
    rid = array["findings"][0]["resourceId"]
    assert rid.endswith("/clusters/{parameters('clusterName')}")
    assert rid.startswith("/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/")
    assert any("name is not known before deployment" in w for w in array["warnings"])
    assert "name is not known before deployment" in err
    # the unknown passwords are named by their expressions, never by a value
    clu010 = next(f for f in symbolic["findings"] if f["ruleId"] == "CLU-010")
    unresolved = clu010["evidence"]["unresolved"]
    gateway = "properties/clusterDefinition/configurations/gateway/restAuthCredential.password"
    assert unresolved[gateway].startswith("parameters('clusterLoginPassword')")
    assert len(unresolved) == 3
    # the symbolic layout's address is the symbolic name
    assert {f["source"]["address"] for f in symbolic["findings"] if "source" in f} >= {"cluster"}


def test_a_folder_gate_reads_every_template_and_lists_what_it_skipped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, doc, err = _gate(capsys, "real")
    assert code == 1 and "Traceback" not in err
    expected: Counter[tuple[str, str]] = Counter()
    for _, answer in REAL_TEMPLATES.values():
        expected += answer
    assert _answer(doc) == expected  # each template as on its own (parameters by convention)
    skipped = {s["file"]: s["reason"] for s in doc["coverage"]["skipped"]}
    assert "real/README.md" in skipped and "real/Azure__bicep/LICENSE" in skipped
    cassette = next(f for f in skipped if f.endswith("HdinsightTest.common.json"))
    assert "not an ARM template" in skipped[cassette]
    # parameters files are inputs of their templates, never templates nor skipped
    assert not [f for f in skipped if f.endswith(".parameters.json")]
    inputs = {i["file"] for i in doc["coverage"]["inputs"]}
    assert f"{QUICK}/101-hdinsight-kafka/azuredeploy.parameters.json" in inputs
    assert len(skipped) == len(doc["coverage"]["skipped"])  # each listed once


def test_sarif_points_code_scanning_at_the_template_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    template = f"{QUICK}/101-hdinsight-kafka/azuredeploy.json"
    _, sarif, _ = _gate(capsys, template, fmt="sarif")
    jsonschema.validate(sarif, json.loads(SARIF_SCHEMA.read_text()))
    results = sarif["runs"][0]["results"]
    assert results
    for result in results:
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == template
        assert location["region"]["startLine"] == 118


# --- Terraform ---------------------------------------------------------------------------------------


def _by_address(doc: dict[str, Any]) -> dict[str, dict[str, list[str]]]:
    out: dict[str, dict[str, list[str]]] = {}
    for f in doc["findings"]:
        address = f.get("source", {}).get("address")
        if address:
            out.setdefault(address, {}).setdefault(f["ruleId"], []).append(f["status"])
    return {a: {r: sorted(s) for r, s in rules.items()} for a, rules in out.items()}


def test_terraform_domain_folder(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc, _ = _gate(capsys, "tf/domain")
    assert code == 1
    found = _by_address(doc)
    # fail: the provider's example, every default: public access on (DOM-001), no inbound rule
    # (DOM-002), no minimum TLS sent (DOM-004), local auth on (DOM-005), no identity (DOM-006)
    assert found["azurerm_eventgrid_domain.fail"] == {
        "DOM-001": ["fail"],
        "DOM-002": ["fail"],
        "DOM-004": ["fail"],
        "DOM-005": ["fail"],
        "DOM-006": ["fail"],
        "DOM-009": ["pass"],
        "DOM-011": ["pass"],
        "PLAN-001": ["pass"],  # the provider sends the seed's api-version
        "TOK-006": ["pass"],  # no token value in the body (the finding names this resource)
    }
    # pass: public access and local auth off, a system identity; still no minimum TLS (DOM-004)
    assert found["azurerm_eventgrid_domain.pass"]["DOM-004"] == ["fail"]
    assert {r for r, s in found["azurerm_eventgrid_domain.pass"].items() if s == ["fail"]} == {
        "DOM-004"
    }
    # mapped: 0.0.0.0/0 is an inbound rule DOM-003 always fails, the /16 one still narrows public
    # access (DOM-002 pass); a user-assigned identity is set (DOM-006 pass, DOM-011 fail); the
    # custom schema has its mapping (DOM-009 pass)
    mapped = found["azurerm_eventgrid_domain.mapped"]
    assert mapped["DOM-003"] == ["fail"] and mapped["DOM-002"] == ["pass"]
    assert mapped["DOM-006"] == ["pass"] and mapped["DOM-011"] == ["fail"]
    assert mapped["DOM-009"] == ["pass"]
    lines = {f["source"]["address"]: f["source"]["line"] for f in doc["findings"]}
    assert lines["azurerm_eventgrid_domain.fail"] == 8
    assert lines["azurerm_eventgrid_domain.mapped"] == 34
    assert {f["source"]["file"] for f in doc["findings"] if f["ruleId"] == "DOM-001"} == {
        "tf/domain/main.tf"
    }


def test_terraform_clusters_and_plan(capsys: pytest.CaptureFixture[str]) -> None:
    _, clusters, _ = _gate(capsys, "tf/clusters")
    spark = _by_address(clusters)["azurerm_hdinsight_spark_cluster.example"]
    # the spark example: encryption in transit and at host, private link with Outbound, every role
    # in a subnet: CLU-001/002/004/005/006 pass; its metastore's URL is the provider's
    # (trustServerCertificate=true): CLU-012 fail; the metastore password is a variable without a
    # value (a reference: CLU-010 unknown, not judged)
    for rule in ("CLU-001", "CLU-002", "CLU-004", "CLU-005", "CLU-006"):
        assert spark[rule] == ["pass"], rule
    assert spark["CLU-012"] == ["fail"] and spark["CLU-010"] == ["unknown"]
    assert len(_by_address(clusters)) == 5  # hadoop, spark, hbase, kafka, interactive query
    code, plan, err = _gate(capsys, "tf/plan/plan.json")
    assert code == 1
    found = _by_address(plan)
    assert found["azurerm_eventgrid_domain.fail"]["DOM-001"] == ["fail"]
    # a role assignment is a request of its own kind: PLAN-001 judges it, and without --estate
    # the access-change rules cannot (unknown; tests/test_access_gate.py)
    assert found["azurerm_role_assignment.ra[0]"] == {
        "PLAN-001": ["pass"],
        "TOK-006": ["pass"],
        "ACC-001": ["unknown"],
        "ACC-002": ["unknown"],
        "ACC-003": ["unknown"],
    }
    assert "deletes are not judged" in err and "plan-gone" not in json.dumps(plan["findings"])


def test_suppressions_in_terraform_are_waived_with_their_reasons(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, doc, _ = _gate(capsys, "tf/suppress")
    waived = {f["ruleId"]: f for f in doc["findings"] if f["status"] == "waived"}
    assert set(waived) == {"DOM-001", "DOM-002", "DOM-004", "DOM-005", "DOM-006"}
    assert waived["DOM-001"]["waiver"]["justification"] == (
        "Public endpoint required by the partner integration (ticket SEC-42)"
    )
    assert waived["DOM-004"]["waiver"]["rule"] == "DOM-00*"
    assert waived["DOM-001"]["waiver"]["id"] == "inline:tf/suppress/main.tf:1"
    assert {f["source"]["address"] for f in waived.values()} == {
        "azurerm_eventgrid_domain.suppressed"
    }
    # the other domain: a comment outside its block and one inside a string suppress nothing
    plain = {
        f["ruleId"]
        for f in doc["findings"]
        if f["status"] == "fail" and f["source"]["address"] == "azurerm_eventgrid_domain.plain"
    }
    assert {"DOM-002", "DOM-004"} <= plain
    assert code == 1 and doc["summary"]["waived"] == 5


# --- templates written for these tests ----------------------------------------------------------------


def _domain(name: str, properties: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "type": "Microsoft.EventGrid/domains",
        "apiVersion": "2025-02-15",
        "name": name,
        "location": "westeurope",
        "properties": properties,
        **extra,
    }


LOCKED = {"publicNetworkAccess": "Disabled", "disableLocalAuth": True}


def _template(tmp_path: Path, resources: list[dict[str, Any]], **parameters: Any) -> str:
    path = tmp_path / "main.json"
    doc = {
        "$schema": SCHEMA,
        "contentVersion": "1.0.0.0",
        "parameters": parameters,
        "resources": resources,
    }
    path.write_text(json.dumps(doc, indent=2))
    return str(path)


def test_a_parameter_without_a_default_is_unknown_and_can_block(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a locked-down domain whose minimum TLS version is a parameter nobody gives: DOM-004 cannot
    # be judged (unknown, with the expression as evidence); everything else passes
    properties = {**LOCKED, "minimumTlsVersionAllowed": "[parameters('tlsVersion')]"}
    path = _template(
        tmp_path,
        [_domain("events", properties, identity={"type": "SystemAssigned"})],
        tlsVersion={"type": "string"},
    )
    code, doc, _ = _gate(capsys, path)
    unknown = [f for f in doc["findings"] if f["status"] == "unknown"]
    assert [f["ruleId"] for f in unknown] == ["DOM-004"]
    assert unknown[0]["evidence"]["unresolved"] == {
        "properties/minimumTlsVersionAllowed": (
            "parameters('tlsVersion'): parameter 'tlsVersion' has no value"
        )
    }
    assert not [f for f in doc["findings"] if f["status"] == "fail"]
    assert code == 0 and doc["summary"]["unknown"] == 1
    code, _, err = _gate(capsys, path, "--fail-on-unknown")
    assert code == 1 and "1 unknown finding" in err
    _, given, _ = _gate(capsys, path, "-p", "tlsVersion=1.0")
    assert ("DOM-004", "fail") in _answer(given)


def test_suppressions_and_same_named_resources_in_arm_in_every_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # two domains named "twin" (public access on, so DOM-001 fails on both); the first carries a
    # suppression of DOM-001: only its own finding is waived, with the reason and its line
    reason = "Partner webhook needs a public endpoint (SEC-7)"
    skip = {"auditor": {"skip": {"DOM-001": reason}}}
    path = _template(
        tmp_path,
        [
            _domain("twin", {"disableLocalAuth": True}, metadata=skip),
            _domain("twin", {"disableLocalAuth": True}),
        ],
    )
    code, doc, _ = _gate(capsys, path)
    dom001 = sorted(
        (f for f in doc["findings"] if f["ruleId"] == "DOM-001"),
        key=lambda f: f["source"]["line"],
    )
    assert [f["status"] for f in dom001] == ["waived", "fail"]  # two resources stay two
    first, second = (f["source"]["line"] for f in dom001)
    assert first < second
    assert dom001[0]["waiver"]["justification"] == reason
    assert dom001[0]["waiver"]["id"] == f"inline:{path}:{first}"
    assert dom001[0]["resourceId"] == dom001[1]["resourceId"]
    assert code == 1  # the second twin's DOM-001 still fails the gate
    _, sarif, _ = _gate(capsys, path, fmt="sarif")
    suppressed = [r for r in sarif["runs"][0]["results"] if r.get("suppressions")]
    assert [r["ruleId"] for r in suppressed] == ["DOM-001"]
    assert suppressed[0]["suppressions"][0]["justification"] == reason
    assert suppressed[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == first
    _, junit, _ = _gate(capsys, path, fmt="junit")
    skipped = [e.get("message", "") for e in ET.fromstring(junit).iter("skipped")]
    assert any(reason in m and f"inline:{path}:{first}" in m for m in skipped)
    _, text, _ = _gate(capsys, path, fmt="text")
    assert "Waived findings" in text and reason in text and f"{path}:{first}" in text


def test_a_suppression_without_a_reason_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _template(
        tmp_path, [_domain("d", LOCKED, metadata={"auditor": {"skip": {"DOM-006": " "}}})]
    )
    code, _, err = _gate(capsys, path)
    assert code == 2 and path in err and "reason" in err
    code, _, err = _gate(capsys, "tf/suppress_no_reason")
    assert code == 2 and "main.tf: line 6" in err and "no reason" in err


def test_unknown_values_the_wire_model_refuses_as_null(tmp_path: Path) -> None:
    # a domain's location from resourceGroup() (required: the placeholder {location}) and an
    # inbound IP rule from a parameter nobody gives (an unknown element of a typed array: the
    # whole array is unknown, its known elements kept)
    rules = [{"ipMask": "10.0.0.0/16", "action": "Allow"}, "[parameters('extraRule')]"]
    path = _template(
        tmp_path,
        [{**_domain("d", {"inboundIpRules": rules}), "location": "[resourceGroup().location]"}],
        extraRule={"type": "object"},
    )
    request = read_deployment([path]).plan.requests[0]
    assert request.raw_body is not None and request.raw_body["location"] == "{location}"
    assert set(request.unknowns) == {"location", "properties/inboundIpRules"}
    assert request.raw_body["properties"]["inboundIpRules"] == rules[:1]
    assert "parameters('extraRule')" in request.unknowns["properties/inboundIpRules"].text


def test_a_body_the_wire_model_refuses_names_file_line_and_address(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _template(tmp_path, [_domain("d", {"disableLocalAuth": "yes"})])
    code, _, err = _gate(capsys, path)
    assert code == 2
    assert f"{path}: line 6, d: request.body.properties.disableLocalAuth" in err
    assert "found a string" in err


def test_role_assignments_from_a_template_are_plan_requests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assignment = {
        "type": "Microsoft.Authorization/roleAssignments",
        "apiVersion": "2022-04-01",
        "name": "6f2b4c1a-0000-4000-8000-000000000001",
        "scope": "[resourceId('Microsoft.EventGrid/domains', 'd')]",
        "properties": {
            "roleDefinitionId": "[subscriptionResourceId('Microsoft.Authorization/"
            "roleDefinitions', 'acdd72a7-3385-48ef-bd42-f606fba81ae7')]",
            "principalId": "11111111-2222-3333-4444-555555555555",
            "principalType": "Group",
        },
    }
    path = _template(tmp_path, [_domain("d", LOCKED), assignment])
    read = read_deployment([path], subscription_id="sub-1", resource_group="rg")
    domain, role = read.plan.requests
    assert domain.kind == "domain" and role.kind == "roleAssignment"
    assert (
        role.scope
        == "/subscriptions/sub-1/resourceGroups/rg/providers/Cloud.EventRouting/domains/d"
    )
    assert role.body.properties.principalId == "11111111-2222-3333-4444-555555555555"
    assert role.body.properties.roleDefinitionId.endswith("acdd72a7-3385-48ef-bd42-f606fba81ae7")
    assert "Cloud.Authorization/roleDefinitions" in role.body.properties.roleDefinitionId
    _, doc, _ = _gate(capsys, path)
    plan001 = [f for f in doc["findings"] if f["ruleId"] == "PLAN-001"]
    assert [f["status"] for f in plan001] == ["pass", "pass"]


def test_plan_files_take_role_and_deny_assignments() -> None:
    ra = "/providers/Cloud.Authorization/roleAssignments"
    plan = loads_plan(
        json.dumps(
            {
                "planVersion": 1,
                "requests": [
                    {
                        "method": "PUT",
                        "url": f"/subscriptions/s1{ra}/a1?api-version=2022-04-01",
                        "body": {"properties": {"principalId": "p1", "conditionVersion": "2.0"}},
                    },
                    {"method": "DELETE", "url": f"{ra}/a2?api-version=2022-04-01"},
                    {
                        "method": "PUT",
                        "url": "/providers/Cloud.Management/managementGroups/mg"
                        "/providers/Cloud.Authorization/denyAssignments/d1?api-version=2022-04-01",
                        "body": {"properties": {"denyAssignmentName": "no-deletes"}},
                    },
                ],
            }
        ).encode(),
        source="plan.json",
    )
    put, delete, deny = plan.requests
    assert (put.kind, put.scope, put.subscription_id) == (
        "roleAssignment",
        "/subscriptions/s1",
        "s1",
    )
    assert (delete.kind, delete.method, delete.scope, delete.body) == (
        "roleAssignment",
        "DELETE",
        "/",
        None,
    )
    assert deny.kind == "denyAssignment" and deny.api_version_ok
    assert not any(r.is_configuration for r in plan.requests)
    bad = {
        "planVersion": 1,
        "requests": [
            {
                "method": "PUT",
                "url": f"/subscriptions/s1{ra}/a1?api-version=2022-04-01",
                "body": {"properties": {"condition": "true", "conditionVersion": "1.0"}},
            }
        ],
    }
    with pytest.raises(InputError, match=r"expected '2\.0'") as info:
        loads_plan(json.dumps(bad).encode(), source="plan.json")
    assert info.value.location == "requests[0].body.properties.conditionVersion"


# --- bad inputs ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content", "words"),
    [
        ("notes.txt", "just some notes\n", "not a format gate reads"),
        ("settings.json", '{"name": "x", "version": 2}', "valid JSON, but not a template"),
        ("main.bicep", "param name string\n", "bicep build"),
        ("prod.tfvars", 'name = "x"\n', "--var-file"),
        ("azuredeploy.parameters.json", '{"parameters": {"a": {"value": 1}}}', "--parameters"),
    ],
)
def test_a_file_of_no_recognised_format_names_what_gate_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: str, words: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    code, _, err = _gate(capsys, str(path))
    assert code == 2 and str(path) in err and words in err, err
    assert "Traceback" not in err
    if words.startswith(("not a format", "valid JSON")):
        assert "ARM template" in err and "Terraform" in err and "plan file" in err


def test_a_terraform_syntax_error_names_file_line_and_column(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = _gate(capsys, "tf/syntax")
    assert code == 2 and "tf/syntax/broken.tf: line 4, column 30" in err


def test_nothing_auditable_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty"
    (empty / "docs").mkdir(parents=True)
    (empty / "docs" / "README.md").write_text("# infra\n")
    code, _, err = _gate(capsys, str(empty))
    assert code == 2 and "nothing to audit" in err and "directory" in err and "1 file(s)" in err
    storage = _template(
        tmp_path,
        [{"type": "Microsoft.Storage/storageAccounts", "apiVersion": "2023-01-01", "name": "s"}],
    )
    code, _, err = _gate(capsys, storage)
    assert code == 2 and "nothing to audit" in err and "Microsoft.Storage/storageAccounts" in err


def test_apply_is_for_plan_files_only(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["gate", "tf/domain", "--apply", "--base-url", "http://127.0.0.1:9"])
    err = capsys.readouterr().err
    assert code == 2 and "--apply" in err and "templates and Terraform are gated" in err


def test_terraform_unknowns_and_azapi(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc, _ = _gate(capsys, "tf/unknowns", "tf/azapi")
    found = _by_address(doc)
    # publicNetworkAccess comes from a variable without a value: DOM-001 and DOM-002 unknown (the
    # rest of that domain is judged: no TLS, local auth on, no identity)
    unknown = found["azurerm_eventgrid_domain.unknown"]
    assert unknown["DOM-001"] == unknown["DOM-002"] == ["unknown"]
    assert unknown["DOM-005"] == ["fail"]
    evidence = next(
        f["evidence"]["unresolved"]
        for f in doc["findings"]
        if f["ruleId"] == "DOM-001" and f["status"] == "unknown"
    )
    assert evidence == {
        "properties/publicNetworkAccess": (
            "var.replicas: the variable 'replicas' has no value (no default, not given)"
        )
    }
    # secrets known only after apply (random_password, a variable without a value) are references:
    # CLU-008 passes and CLU-010 cannot judge them
    secrets = found["azurerm_hdinsight_hadoop_cluster.secrets"]
    assert secrets["CLU-008"] == ["pass"] and secrets["CLU-010"] == ["unknown"]
    # azapi: the jsonencode body is locked down (DOM-001/004/005 pass, no identity: DOM-006 fail);
    # the HCL-object body keeps public access with a /24 rule (DOM-001 fail, DOM-002 and DOM-003
    # pass) and an api-version that is not the seed's (PLAN-001 fail)
    as_json, as_object = found["azapi_resource.domain_json"], found["azapi_resource.domain_object"]
    assert as_json["DOM-001"] == as_json["DOM-005"] == ["pass"] and as_json["DOM-006"] == ["fail"]
    assert as_object["DOM-001"] == ["fail"] and as_object["DOM-003"] == ["pass"]
    assert as_object["DOM-002"] == ["pass"] and as_object["PLAN-001"] == ["fail"]
    assert code == 1
    inputs = {i["file"] for i in doc["coverage"]["inputs"]}
    assert {"tf/unknowns/main.tf", "tf/azapi/main.tf"} <= inputs


def test_unknown_evidence_never_quotes_part_of_a_secret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gateway = {
        "restAuthCredential.isEnabled": True,
        "restAuthCredential.username": "admin",
        "restAuthCredential.password": "[concat('Hunter2-Plain', parameters('suffix'))]",
    }
    cluster = {
        "type": "Microsoft.HDInsight/clusters",
        "apiVersion": "2021-06-01",
        "name": "c1",
        "location": "westeurope",
        "properties": {
            "clusterVersion": "5.1",
            "clusterDefinition": {"kind": "spark", "configurations": {"gateway": gateway}},
        },
    }
    path = _template(tmp_path, [cluster], suffix={"type": "string"})
    code, doc, err = _gate(capsys, path)
    text = json.dumps(doc)
    assert "Hunter2" not in text and "Hunter2" not in err
    clu010 = next(f for f in doc["findings"] if f["ruleId"] == "CLU-010")
    assert clu010["status"] == "unknown"
    shown = clu010["evidence"]["unresolved"][
        "properties/clusterDefinition/configurations/gateway/restAuthCredential.password"
    ]
    assert shown.startswith("parameters('suffix')")  # what is missing, not the literal part
    assert code == 1  # the rest of this bare cluster fails


def test_format_forces_a_reading_and_broken_files_in_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    template = Path(_template(tmp_path, [_domain("d", LOCKED)]))
    odd = template.rename(tmp_path / "domain.template")
    code, doc, _ = _gate(capsys, str(odd))  # recognised by its shape, whatever its name
    assert ("DOM-001", "pass") in _answer(doc) and code == 1  # no identity, no TLS: still fails
    code, _, err = _gate(capsys, str(odd), "--format", "plan")  # forced: read as a plan file
    assert code == 2 and "planVersion" in err
    code, _, err = _gate(capsys, str(odd), "--format", "yaml")
    assert code == 2 and "--format" in err
    # in a folder: broken JSON that is not a template is skipped; a broken template is an error
    folder = tmp_path / "repo"
    folder.mkdir()
    odd.rename(folder / "main.json")
    (folder / "package.json").write_text('{"name": "x",')
    (folder / ".hidden").mkdir()
    (folder / ".hidden" / "broken.json").write_text("{")
    _, doc, _ = _gate(capsys, str(folder))
    skipped = {Path(s["file"]).name: s["reason"] for s in doc["coverage"]["skipped"]}
    assert set(skipped) == {"package.json"} and "not JSON gate reads" in skipped["package.json"]
    (folder / "broken.json").write_text(f'{{"$schema": "{SCHEMA}", "resources": [')
    code, _, err = _gate(capsys, str(folder))
    assert code == 2 and "broken.json" in err


def test_a_token_in_a_template_names_the_template_and_the_resource(
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = Path("infra")
    folder.mkdir()
    (folder / "variables.tf").write_text('variable "x" {\n  default = 1\n}\n')
    (folder / "main.tf").write_text(
        "# a domain whose tag holds a token value\n"
        'resource "azurerm_eventgrid_domain" "tagged" {\n'
        '  name                = "dom1"\n'
        '  location            = "westeurope"\n'
        '  resource_group_name = "rg"\n'
        '  tags = { apitoken = "ghp_16C7e42F292c6912E7710c838347Ae178B4a" }\n'
        "}\n"
    )
    code, doc, _ = _gate(capsys, "infra", "--check", "TOK-006")
    assert code == 1
    (finding,) = doc["findings"]
    assert finding["status"] == "fail"
    # the file and line of the resource, not the folder the gate was given
    assert finding["source"] == {
        "file": str(folder / "main.tf"),
        "line": 2,
        "address": "azurerm_eventgrid_domain.tagged",
    }
    assert finding["message"].startswith(f"{folder / 'main.tf'}: azurerm_eventgrid_domain.tagged")
    assert "ghp_16C7" not in json.dumps(doc)
