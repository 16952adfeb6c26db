"""The access-change gate (issue 19): ``auditor gate PLAN --estate SNAPSHOT`` computes what the
plan's role and deny assignments grant and take away (the after-estate, the access delta of
contracts §9) and judges it with ACC-001 (new privileged access), ACC-002 (a new escalation path)
and ACC-003 (the last administrator of a scope removed); without ``--estate`` those rules are
unknown, never a pass. Scenarios for each rule, waivers, the JSON ``accessDelta`` against the
schema, the after-estate against a hand-built one (``access diff`` gives the same delta), ARM
templates, and every report format."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import pytest

from auditor.access import apply_plan_to_estate, plan_access_change, plan_change
from auditor.audit import audit_snapshot
from auditor.audit.runner import AuditOptions, gate_plan
from auditor.cli import main
from auditor.estate.plan import loads_plan
from auditor.estate.snapshot import Snapshot, dump_snapshot
from tests.test_access_support import (
    ALL_PRINCIPALS_ID,
    BLOB_READER,
    CONTRIBUTOR,
    OWNER,
    READER,
    RG,
    SUB,
    build,
    deny,
    group,
    ra,
    role,
    user,
)

AS_OF = "2026-11-21"
SUB2 = "/subscriptions/sub-2"
RA = "/providers/Cloud.Authorization/roleAssignments"
DA = "/providers/Cloud.Authorization/denyAssignments"
API = "?api-version=2022-04-01"
GRANTER = "7b3d1c4e-0000-4000-8000-00000000feed"
"""A custom role that can write role assignments (an escalation when assigned outside admins)."""

MEMBERS = [
    user("ann", "ops", name="Ann"),
    user("bob", "night", name="Bob"),
    user("gus", "ops", name="Gus", guest=True),
    group("night", "ops", name="Night shift"),
    group("ops", name="Operators"),
    user("olga", name="Olga"),
    user("carl", name="Carl"),
]
BASE = [
    ra("own-olga", "olga", OWNER, SUB),
    ra("read-ann", "ann", READER, RG),
    ra("own-olga-2", "olga", OWNER, SUB2),
]
HIERARCHY = [(SUB, None), (SUB2, None)]


def _estate(**changes: Any) -> Snapshot:
    spec: dict[str, Any] = {
        "principals": MEMBERS,
        "assignments": BASE,
        "hierarchy": HIERARCHY,
        "roles": [role(GRANTER, "Access Granter", ["Cloud.Authorization/roleAssignments/write"])],
    }
    spec.update(changes)
    return build(**spec)


def _role_id(guid: str) -> str:
    return f"{SUB}/providers/Cloud.Authorization/roleDefinitions/{guid}"


def _put(scope: str, name: str, principal: str, guid: str, kind: str = "User") -> dict[str, Any]:
    return {
        "method": "PUT",
        "url": f"{scope}{RA}/{name}{API}",
        "body": {
            "properties": {
                "roleDefinitionId": _role_id(guid),
                "principalId": principal,
                "principalType": kind,
            }
        },
    }


def _plan(*requests: dict[str, Any]) -> bytes:
    return json.dumps({"planVersion": 1, "requests": list(requests)}).encode()


OWNER_TO_OPS = _put(SUB, "grant-ops", "ops", OWNER, "Group")


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    estate = tmp_path / "estate.json"
    dump_snapshot(_estate(), estate)
    plan = tmp_path / "plan.json"
    plan.write_bytes(_plan(OWNER_TO_OPS))
    return {"estate": estate, "plan": plan, "dir": tmp_path}


def _gate(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, dict[str, Any], str]:
    """``auditor gate ARGS -o json``: exit code, the document, standard error."""
    code = main(["gate", *map(str, args), "--as-of", AS_OF, "-o", "json"])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def _failing(doc: dict[str, Any], rule: str) -> list[dict[str, Any]]:
    return [f for f in doc["findings"] if f["ruleId"] == rule and f["status"] == "fail"]


def _statuses(doc: dict[str, Any], rule: str) -> list[str]:
    return sorted(f["status"] for f in doc["findings"] if f["ruleId"] == rule)


def _gate_lib(plan: bytes, estate: Snapshot | None = None, **options: Any) -> Any:
    return gate_plan(
        loads_plan(plan, source="plan.json"),
        AuditOptions(use_config=False, **options),
        estate=estate,
    )


# ------------------------------------------------------------------------------------ done when


def test_owner_to_a_group_names_every_principal_and_how_and_fails(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["gate", str(files["plan"]), "--estate", str(files["estate"]), "--as-of", AS_OF])
    out, err = capsys.readouterr()
    assert code == 1
    assert "exit 1, the gate failed" in err
    assert "Ann (User) newly gets Cloud.Authorization/roleAssignments/write" in out
    assert "through Night shift → Operators: role assignment grant-ops gives 'Owner'" in out
    assert "Gus (User) newly gets" in out and "a guest user" in out
    assert "Access changes:" in out and "Bob (bob)" in out
    code, doc, _ = _gate(capsys, files["plan"], "--estate", files["estate"])
    assert code == 1
    grants = {f["evidence"]["principalName"]: f for f in _failing(doc, "ACC-001")}
    # the group, its nested group and every member: each named with its membership path
    assert set(grants) == {"Operators", "Night shift", "Ann", "Bob", "Gus"}
    bob = grants["Bob"]
    assert bob["severity"] == "high"
    assert bob["evidence"]["pathNames"] == ["Night shift", "Operators"]
    assert bob["evidence"]["role"] == "Owner"
    assert bob["evidence"]["assignmentScope"] == SUB
    assert bob["evidence"]["scope"] == SUB
    assert bob["evidence"]["scopesBelow"] == 1  # the resource group of Ann's Reader assignment
    assert bob["evidence"]["newAdministrator"] is True
    assert bob["evidence"]["operations"][0] == "Cloud.Authorization/roleAssignments/write"
    assert bob["resourceId"] == f"{SUB}{RA}/grant-ops"
    assert bob["source"]["address"] == "requests[0]"
    assert grants["Gus"]["evidence"]["guest"] is True
    assert _statuses(doc, "ACC-002") == ["pass"] and _statuses(doc, "ACC-003") == ["pass"]
    assert doc["accessDelta"]["summary"]["principals"] == 5


def test_a_reader_grant_passes(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    files["plan"].write_bytes(_plan(_put(SUB, "read", "carl", READER)))
    code, doc, _ = _gate(capsys, files["plan"], "--estate", files["estate"])
    assert code == 0
    assert [_statuses(doc, r) for r in ("ACC-001", "ACC-002", "ACC-003")] == [["pass"]] * 3
    assert doc["accessDelta"]["changes"] == []


# ------------------------------------------------------------------------------------- ACC-002


def test_a_custom_role_that_writes_role_assignments_is_a_new_escalation_path() -> None:
    before = _estate()
    plan = _plan(_put(SUB, "granter", "carl", GRANTER))
    result = _gate_lib(plan, before)
    doc = result.to_json()
    (esc,) = _failing(doc, "ACC-002")
    assert esc["severity"] == "critical"
    assert esc["evidence"]["principalName"] == "Carl" and esc["evidence"]["scope"] == SUB
    kinds = [s["kind"] for s in esc["evidence"]["path"]]
    assert kinds == ["principal", "roleAssignment", "roleDefinition", "operation"]
    assert "'Access Granter'" in esc["message"] and "write roleAssignments" in esc["message"]
    assert result.exit_code == 1
    # it is exactly a new RBAC-010 finding of the after-estate
    after = apply_plan_to_estate(before, loads_plan(plan, source="plan.json"))
    options = AuditOptions(use_config=False, checks=["RBAC-010"])

    def shadow(snapshot: Snapshot) -> set[tuple[str, str]]:
        found = audit_snapshot(snapshot, options).to_json()["findings"]
        return {
            (f["evidence"]["principalId"], f["resourceId"]) for f in found if f["status"] == "fail"
        }

    assert shadow(after) - shadow(before) == {("carl", SUB)}


def test_an_administrator_gets_no_escalation_finding() -> None:
    plan = _plan(_put(SUB, "granter", "olga", GRANTER))
    doc = _gate_lib(plan, _estate()).to_json()
    assert _statuses(doc, "ACC-002") == ["pass"]


# ------------------------------------------------------------------------------------- ACC-003


def test_deleting_the_only_owner_of_a_subscription() -> None:
    plan = _plan({"method": "DELETE", "url": f"{SUB}{RA}/OWN-OLGA{API}"})  # ids ignore case
    result = _gate_lib(plan, _estate())
    doc = result.to_json()
    (lost,) = _failing(doc, "ACC-003")
    assert lost["severity"] == "high"
    assert lost["evidence"]["scope"] == SUB
    assert lost["evidence"]["administratorsBefore"] == ["olga"]
    assert lost["resourceId"] == f"{SUB}{RA}/OWN-OLGA"
    assert _statuses(doc, "ACC-001") == ["pass"]
    assert doc["accessDelta"]["summary"]["newlyBlocked"] > 0
    assert {c["after"] for c in doc["accessDelta"]["changes"]} == {"notGranted"}
    assert result.exit_code == 1
    # another owner left at the scope: no finding
    plan = _plan(OWNER_TO_OPS, {"method": "DELETE", "url": f"{SUB}{RA}/own-olga{API}"})
    assert _statuses(_gate_lib(plan, _estate()).to_json(), "ACC-003") == ["pass", "pass"]


# ------------------------------------------------------------------------------ deny assignments


def test_a_deny_assignment_in_the_plan_removes_access_and_grants_nothing() -> None:
    body = {
        "properties": {
            "denyAssignmentName": "no-access-writes",
            "permissions": [{"actions": ["Cloud.Authorization/*/write"]}],
            "principals": [{"id": "olga", "type": "User"}],
        }
    }
    plan = _plan({"method": "PUT", "url": f"{SUB}{DA}/d1{API}", "body": body})
    doc = _gate_lib(plan, _estate()).to_json()
    changes = doc["accessDelta"]["changes"]
    assert changes and all(c["after"] == "denied" for c in changes)
    assert {c["principalId"] for c in changes} == {"olga"}
    assert {c["deniedBy"][0] for c in changes} == {f"{SUB}{DA}/d1"}
    assert _statuses(doc, "ACC-001") == ["pass"]
    # deleting that deny gives the access back: attributed to the DELETE request
    denied = _estate(denies=[deny("d1", SUB, actions=["*"], principals=["carl"])])
    denied.roleAssignments.append(ra("own-carl", "carl", OWNER, SUB))
    plan = _plan({"method": "DELETE", "url": f"{SUB}{DA}/d1{API}"})
    (grant,) = _failing(_gate_lib(plan, denied).to_json(), "ACC-001")
    assert grant["evidence"]["principalName"] == "Carl"
    assert grant["resourceId"] == f"{SUB}{DA}/d1"


# ------------------------------------------------------------------------------- no estate given


def test_without_estate_the_access_rules_are_unknown(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, doc, err = _gate(capsys, files["plan"])
    assert code == 0  # unknown never fails by itself ...
    for rule in ("ACC-001", "ACC-002", "ACC-003"):
        (finding,) = [f for f in doc["findings"] if f["ruleId"] == rule]
        assert finding["status"] == "unknown"
        assert "--estate" in finding["evidence"]["reason"]
    assert "accessDelta" not in doc
    assert "the access change was not computed" in err
    code, _, _ = _gate(capsys, files["plan"], "--fail-on-unknown")
    assert code == 1  # ... and blocks with --fail-on-unknown


def test_an_unusable_estate_is_an_input_error(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    missing = files["dir"] / "nowhere.json"
    code = main(["gate", str(files["plan"]), "--estate", str(missing)])
    assert code == 2
    assert "nowhere.json" in capsys.readouterr().err
    code = main(["gate", str(files["plan"]), "--estate", str(files["plan"])])
    err = capsys.readouterr().err
    assert code == 2 and "plan.json" in err and "Traceback" not in err


def test_a_plan_without_assignments_has_no_access_findings(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    domain = {
        "method": "PUT",
        "url": f"{RG}/providers/Cloud.EventRouting/domains/d1?api-version=2025-02-15",
        "body": {"location": "westeurope", "properties": {"publicNetworkAccess": "Disabled"}},
    }
    files["plan"].write_bytes(_plan(domain))
    _, doc, _ = _gate(capsys, files["plan"], "--estate", files["estate"])
    assert not [f for f in doc["findings"] if f["ruleId"].startswith("ACC-")]
    assert doc["accessDelta"]["changes"] == []


# -------------------------------------------------------------------------------------- waivers


def test_a_waiver_on_acc_001_works(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    waivers = files["dir"] / "waivers.yaml"
    waivers.write_text(
        "version: 1\nwaivers:\n"
        "  - id: W-1\n    rule: ACC-001\n"
        f'    resource: "{SUB}{RA}/grant-*"\n'
        '    justification: "Operators own the subscription, approved in CHG-42"\n'
        "    expires: 2027-03-31\n"
    )
    code, doc, _ = _gate(capsys, files["plan"], "--estate", files["estate"], "--waivers", waivers)
    assert code == 0
    statuses = _statuses(doc, "ACC-001")
    assert statuses == ["waived"] * 5
    assert doc["waivers"]["applied"][0]["id"] == "W-1"


# ----------------------------------------------------------------------------------- JSON shape


def test_the_json_access_delta_validates_against_the_schema(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, doc, _ = _gate(capsys, files["plan"], "--estate", files["estate"])
    schema = json.loads(
        (resources.files("auditor.report") / "findings.schema.json").read_text("utf-8")
    )
    jsonschema.validate(doc, schema)
    delta = doc["accessDelta"]
    assert delta["schemaVersion"] == 1
    assert set(delta) == {"schemaVersion", "changes", "summary"}
    broken = json.loads(json.dumps(doc))
    broken["accessDelta"]["changes"][0]["after"] = "maybe"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


# ------------------------------------------------------------------- the after-estate, by hand


def test_the_after_estate_agrees_with_access_diff(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    requests = [
        OWNER_TO_OPS,
        _put(SUB2, "granter", "night", GRANTER, "Group"),
        {"method": "DELETE", "url": f"{SUB2}{RA}/own-olga-2{API}"},
        _put(RG, "read-ann", "ann", OWNER),  # replaces Ann's Reader by Owner (same id)
    ]
    files["plan"].write_bytes(_plan(*requests))
    by_hand = _estate(
        assignments=[
            ra("own-olga", "olga", OWNER, SUB),
            ra("read-ann", "ann", OWNER, RG),
            ra("grant-ops", "ops", OWNER, SUB, principal_type="Group"),
            ra("granter", "night", GRANTER, SUB2, principal_type="Group"),
        ]
    )
    after = files["dir"] / "after.json"
    dump_snapshot(by_hand, after)
    code = main(["access", "diff", str(files["estate"]), str(after), "-o", "json"])
    diff = json.loads(capsys.readouterr().out)
    assert code == 0
    _, doc, _ = _gate(capsys, files["plan"], "--estate", files["estate"])
    assert doc["accessDelta"] == diff
    assert diff["summary"]["newlyAllowed"] > 0 and diff["summary"]["newlyBlocked"] > 0
    # the library's after-estate holds the same assignments as the one built by hand
    computed = apply_plan_to_estate(_estate(), loads_plan(_plan(*requests)))

    def assignments(snapshot: Snapshot) -> list[Any]:
        return sorted(
            (msgspec.to_builtins(r) for r in snapshot.roleAssignments),
            key=lambda r: r["id"].lower(),
        )

    wanted = assignments(by_hand)
    for item in wanted:
        item["properties"].pop("principalType")
    got = assignments(computed)
    for item in got:
        item["properties"].pop("principalType", None)
    assert got == wanted
    # every finding kind on that plan
    assert _failing(doc, "ACC-002") and _failing(doc, "ACC-003")
    assert {f["evidence"]["scope"] for f in _failing(doc, "ACC-003")} == {SUB2}


def test_two_plan_files_with_the_same_request_index_are_told_apart(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    second = files["dir"] / "second.json"
    second.write_bytes(_plan({"method": "DELETE", "url": f"{SUB2}{RA}/own-olga-2{API}"}))
    _, doc, _ = _gate(capsys, files["plan"], second, "--estate", files["estate"])
    grants = _failing(doc, "ACC-001")
    assert len(grants) == 5 and {f["source"]["file"] for f in grants} == {str(files["plan"])}
    (lost,) = _failing(doc, "ACC-003")
    assert lost["source"]["file"] == str(second) and lost["evidence"]["scope"] == SUB2
    assert sorted(f["status"] for f in doc["findings"] if f["ruleId"] == "ACC-001") == [
        "fail"
    ] * 5 + ["pass"]


def test_apply_plan_to_estate_is_pure_and_notes_what_it_could_not_do() -> None:
    before = _estate()
    kept = msgspec.to_builtins(before.roleAssignments)
    plan = loads_plan(
        _plan(OWNER_TO_OPS, {"method": "DELETE", "url": f"{SUB}{RA}/no-such{API}"}),
        source="plan.json",
    )
    after = apply_plan_to_estate(before, plan)
    assert msgspec.to_builtins(before.roleAssignments) == kept
    assert len(after.roleAssignments) == len(kept) + 1
    change = plan_access_change(before, plan)
    assert any("requests[1]: DELETE" in n and "nothing removed" in n for n in change.notes)


# --------------------------------------------------------------------------- unknown requests


SUB_SCHEMA = (
    "https://schema.management.azure.com/schemas/2018-05-01/subscriptionDeploymentTemplate.json#"
)


def _arm(
    tmp_path: Path, principal: str, metadata: dict[str, Any] | None = None, **parameters: Any
) -> Path:
    path = tmp_path / "main.json"
    assignment: dict[str, Any] = {
        "type": "Microsoft.Authorization/roleAssignments",
        "apiVersion": "2022-04-01",
        "name": "grant-ops",
        "properties": {
            "roleDefinitionId": "[subscriptionResourceId('Microsoft.Authorization/"
            f"roleDefinitions', '{OWNER}')]",
            "principalId": principal,
            "principalType": "Group",
        },
    }
    if metadata is not None:
        assignment["metadata"] = metadata
    doc = {
        "$schema": SUB_SCHEMA,
        "contentVersion": "1.0.0.0",
        "parameters": parameters,
        "resources": [assignment],
    }
    path.write_text(json.dumps(doc, indent=2))
    return path


def test_an_arm_template_gives_the_same_access_findings(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    template = _arm(files["dir"], "ops")
    code, arm, _ = _gate(capsys, template, "--estate", files["estate"], "--subscription", "sub-1")
    _, plan, _ = _gate(capsys, files["plan"], "--estate", files["estate"])
    assert code == 1

    def answer(doc: dict[str, Any]) -> list[tuple[Any, ...]]:
        return sorted(
            (f["ruleId"], f["status"], f["resourceId"], f["evidence"].get("principalId"))
            for f in doc["findings"]
            if f["ruleId"].startswith("ACC-")
        )

    assert answer(arm) == answer(plan)
    assert arm["accessDelta"] == plan["accessDelta"]
    line = _failing(arm, "ACC-001")[0]["source"]
    assert line["file"] == str(template) and line["line"] == 6
    # an inline suppression on the template's resource waives its findings, with the reason
    skip = {"auditor": {"skip": {"ACC-001": "break-glass group, reviewed monthly"}}}
    template = _arm(files["dir"], "ops", metadata=skip)
    code, arm, _ = _gate(capsys, template, "--estate", files["estate"], "--subscription", "sub-1")
    assert code == 0
    assert _statuses(arm, "ACC-001") == ["waived"] * 5


def test_a_template_value_not_known_before_deployment_is_unknown(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    template = _arm(files["dir"], "[parameters('principalId')]", principalId={"type": "string"})
    code, doc, _ = _gate(capsys, template, "--estate", files["estate"], "--subscription", "sub-1")
    assert code == 0
    for rule in ("ACC-001", "ACC-002", "ACC-003"):
        (finding,) = [f for f in doc["findings"] if f["ruleId"] == rule]
        assert finding["status"] == "unknown"
        assert "principalId" in finding["evidence"]["reason"]
    # the subscription not given: the scope is a placeholder, not the estate's
    template = _arm(files["dir"], "ops")
    _, doc, _ = _gate(capsys, template, "--estate", files["estate"])
    (finding,) = [f for f in doc["findings"] if f["ruleId"] == "ACC-001"]
    assert finding["status"] == "unknown" and "--subscription" in finding["message"]


def test_a_role_the_estate_does_not_define_is_unknown() -> None:
    plan = _plan(_put(SUB, "x", "carl", "00000000-1111-2222-3333-444444444444"))
    doc = _gate_lib(plan, _estate()).to_json()
    (finding,) = [f for f in doc["findings"] if f["ruleId"] == "ACC-001"]
    assert finding["status"] == "unknown" and "neither built in" in finding["message"]


# ---------------------------------------------------------------------------------- the reports


def test_every_format_shows_the_access_findings(files: dict[str, Path]) -> None:
    from auditor.report import RenderOptions, render

    result = _gate_lib(files["plan"].read_bytes(), _estate())
    html = render(result, "html").decode()
    assert '<section id="access-changes">' in html and 'href="#access-changes"' in html
    assert "Night shift → Operators" in html and "notGranted" in html
    for fmt in ("sarif", "junit", "csv", "markdown"):
        assert "ACC-001" in render(result, fmt).decode(), fmt
    compact = render(result, "text", None, RenderOptions(compact=True)).decode()
    assert "Access changes: 50 for 5 principals" in compact
    plain = render(result, "text").decode()
    assert "Access changes: " in plain and "Ann (ann)" in plain


# ------------------------------------------------- conditions newly bypassed, uncovered denies

CONTAINER = f"{RG}/providers/Cloud.Storage/storageAccounts/sa1/blobServices/default/containers/c1"
ONLY_LOGS = (
    "((!(ActionMatches{'Cloud.Storage/storageAccounts/blobServices/containers/blobs/read'})) OR "
    "(@Resource[Cloud.Storage/storageAccounts/blobServices/containers/blobs:path] "
    "StringStartsWith 'logs/'))"
)


def test_an_unconditioned_grant_newly_bypasses_a_condition() -> None:
    estate = _estate()
    estate.roleAssignments.append(
        ra("cond-ann", "ann", BLOB_READER, CONTAINER, condition=ONLY_LOGS)
    )
    assert not plan_access_change(estate, loads_plan(_plan(), source="p.json")).bypassed
    plan = _plan(_put(RG, "free-ann", "ann", BLOB_READER))
    change = plan_access_change(estate, loads_plan(plan, source="plan.json"))
    (new,) = change.bypassed
    assert new.request == 0
    assert new.bypass.roleAssignmentId.endswith("/cond-ann")
    assert new.bypass.bypassingAssignmentId.endswith("/free-ann")
    (finding,) = _failing(_gate_lib(plan, estate).to_json(), "ACC-001")
    evidence = finding["evidence"]
    assert evidence["conditionNewlyBypassed"] is True
    assert evidence["principalName"] == "Ann"
    assert evidence["conditionedAssignmentId"].endswith("/cond-ann")
    assert evidence["assignmentScope"] == RG
    assert "newly bypasses the condition of role assignment cond-ann" in finding["message"]
    # an unconditioned grant already there before: nothing newly bypassed
    estate.roleAssignments.append(ra("free-ann-old", "ann", BLOB_READER, SUB))
    assert not plan_access_change(estate, loads_plan(plan, source="plan.json")).bypassed


def test_a_new_deny_lists_the_grants_it_fails_to_cover() -> None:
    estate = _estate()
    estate.roleAssignments.append(
        ra("contrib-ops", "ops", CONTRIBUTOR, SUB, principal_type="Group")
    )
    body = {
        "properties": {
            "denyAssignmentName": "no-writes",
            "permissions": [{"actions": ["*/write"]}],
            "principals": [{"id": ALL_PRINCIPALS_ID, "type": "SystemDefined"}],
            "excludePrincipals": [{"id": "ops", "type": "Group"}],
        }
    }
    plan = _plan({"method": "PUT", "url": f"{SUB}{DA}/d1{API}", "body": body})
    change = plan_access_change(estate, loads_plan(plan, source="plan.json"))
    uncovered = change.uncovered[0]
    # the excluded group and its (transitive) members keep Contributor's writes; Olga (Owner, not
    # excluded) is covered
    assert {u.principalId for u in uncovered} == {"ops", "night", "ann", "bob", "gus"}
    assert {(u.operation, u.scope, u.decision, u.why) for u in uncovered} == {
        ("*/write", SUB, "allowed", "excluded")
    }
    assert all(u.grantedBy == (f"{SUB}{RA}/contrib-ops",) for u in uncovered)
    doc = _gate_lib(plan, estate).to_json()
    (outcome,) = [f for f in doc["findings"] if f["ruleId"] == "ACC-001"]
    assert outcome["status"] == "pass"
    assert {u["principalName"] for u in outcome["evidence"]["uncovered"]} >= {"Ann", "Bob"}
    assert any("does not cover 5 grant(s)" in w for w in doc["warnings"])
    # a deny that excludes nobody and applies below covers every grant
    body["properties"].pop("excludePrincipals")
    plan = _plan({"method": "PUT", "url": f"{SUB}{DA}/d1{API}", "body": body})
    assert not plan_access_change(estate, loads_plan(plan, source="plan.json")).uncovered
    # one that applies at its scope only leaves the grants below it: Carl's Contributor at the
    # resource group, and Ann's (through Operators) where she holds an assignment
    estate.roleAssignments.append(ra("contrib-carl", "carl", CONTRIBUTOR, RG))
    body["properties"]["doNotApplyToChildScopes"] = True
    plan = _plan({"method": "PUT", "url": f"{SUB}{DA}/d1{API}", "body": body})
    below = plan_access_change(estate, loads_plan(plan, source="plan.json")).uncovered[0]
    assert {(u.principalId, u.scope, u.why) for u in below} == {
        ("carl", RG, "doNotApplyToChildScopes"),
        ("ann", RG, "doNotApplyToChildScopes"),
    }


def test_the_search_for_uncovered_grants_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    estate = _estate()
    estate.roleAssignments.append(
        ra("contrib-ops", "ops", CONTRIBUTOR, SUB, principal_type="Group")
    )
    body = {
        "properties": {
            "denyAssignmentName": "no-writes",
            "permissions": [{"actions": ["*/write"]}],
            "principals": [{"id": ALL_PRINCIPALS_ID, "type": "SystemDefined"}],
            "excludePrincipals": [{"id": "ops", "type": "Group"}],
        }
    }
    plan = loads_plan(
        _plan({"method": "PUT", "url": f"{SUB}{DA}/d1{API}", "body": body}), source="p"
    )
    monkeypatch.setattr(plan_change, "_DECISIONS", 2)
    change = plan_access_change(estate, plan)
    assert len(change.uncovered.get(0, ())) <= 2
    assert any("the list is incomplete" in note for note in change.notes)
