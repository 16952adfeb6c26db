"""Real exports in (issue 18): ``auditor estate import`` and every ``--snapshot`` option reading
management-API responses, the vendor CLI's JSON, HAR files and VCR cassettes directly.

The recorded responses in ``tests/data/real/`` (copied byte for byte from the repositories named
there, with their licences) are imported and audited, and the findings asserted rule by rule, each
with the reason read from the recording and ``rules.md``. HAR files and YAML cassettes are built
from the same recordings, with a fake bearer token in their request headers that must appear in no
output and no snapshot.
"""

from __future__ import annotations

import base64
import gzip
import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.cli import main
from auditor.errors import InputError
from auditor.estate import sample as S
from auditor.estate.snapshot import dumps_snapshot, load_snapshot
from auditor.sources import ImportedSnapshot, import_estate, load_estate, to_seed, to_vendor

Capsys = pytest.CaptureFixture[str]

DATA = Path(__file__).parent / "data"
CASSETTES = DATA / "real/cloud-custodian__cloud-custodian/tools/c7n_azure/tests_azure/cassettes"
ACCESS = CASSETTES / "AccessControlTest.test_find_assignments_by_role.json"
DOMAIN = CASSETTES / "AzureEventGridDomainTest.test_event_grid_domain_policy_run.json"
CLUSTER = CASSETTES / "HdinsightTest.common.json"
EVENTS = (
    DATA / "real/weixian-zhang__azure-servicehealth-integration/src/az-servicehealth-integration"
    "/src/helpers/issue-api/test-data/bak/sea_issues_only_from_rest_api_response.json"
)
EXPORTS = DATA / "exports"
RECORDINGS = (ACCESS, DOMAIN, CLUSTER)

TOKEN = (
    "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJodHRwczovL21hbmFnZW1lbnQuYXp1cmUuY29tIn0"
    ".ZmFrZS1zaWduYXR1cmUtZm9yLXRlc3RzLW9ubHk"
)
"""A fake bearer token put in the request headers of the HAR files and cassettes built here."""

OWNER = "8e3af657-a8ff-443c-a75c-2fe8c4bcb635"
CONTRIBUTOR = "b24988ac-6180-42a0-ab88-20f7382dd24c"
USER_ACCESS_ADMIN = "18d7d88d-d35e-4fb5-a5c3-7773c20a72d9"
SUBSCRIPTION = "ea42f556-5106-4743-99b0-c129bfa71a47"


def _run(capsys: Capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _audit(capsys: Capsys, tmp_path: Path, target: Path | str) -> tuple[int, dict[str, Any], str]:
    report = tmp_path / f"findings-{abs(hash(str(target)))}.json"
    code, out, err = _run(capsys, "audit", "--snapshot", str(target), "-o", f"json={report}")
    assert code in (0, 1), err
    return code, json.loads(report.read_text()), out + err


def _statuses(doc: dict[str, Any]) -> dict[str, Counter[str]]:
    out: dict[str, Counter[str]] = {}
    for f in doc["findings"]:
        out.setdefault(f["ruleId"], Counter())[f["status"]] += 1
    return out


def _facts(doc: dict[str, Any]) -> Counter[tuple[str, str, str, str]]:
    """What a reviewer compares: rule, status, resource (case-insensitively) and message."""
    return Counter(
        (f["ruleId"], f["status"], f["resourceId"].lower(), f["message"]) for f in doc["findings"]
    )


def _responses(path: Path) -> list[tuple[str, Any]]:
    """The (URL, parsed body) of every interaction of a cloud-custodian recording."""
    doc = json.loads(path.read_text())
    return [(i["request"]["uri"], i["response"]["body"]["data"]) for i in doc["interactions"]]


# --- the recorded responses, imported and audited rule by rule ------------------------------------


def test_domain_recording_rule_by_rule(capsys: Capsys, tmp_path: Path) -> None:
    code, doc, _ = _audit(capsys, tmp_path, DOMAIN)
    found = _statuses(doc)
    domain = next(f for f in doc["findings"] if f["ruleId"] == "DOM-001")
    # the vendor's Microsoft.EventGrid/domains is the seed's Cloud.EventRouting/domains
    assert domain["resourceId"] == (
        f"/subscriptions/{SUBSCRIPTION}/resourceGroups/VV/providers/Cloud.EventRouting/domains/testegvv"
    )
    # and the finding names where in the recording the domain is
    assert domain["source"]["file"] == str(DOMAIN)
    assert domain["location"] == "interactions[0] > value[0]"
    # publicNetworkAccess is "Enabled"
    assert found["DOM-001"] == {"fail": 1}
    # ... and no inboundIpRules narrow it: open to every address
    assert found["DOM-002"] == {"fail": 1}
    # no inbound IP rule to judge, and public access is not disabled
    assert "DOM-003" not in found and "DOM-010" not in found
    # the 2020-06-01 response has no minimumTlsVersionAllowed
    assert found["DOM-004"] == {"fail": 1}
    # no disableLocalAuth: the seed's default is false
    assert found["DOM-005"] == {"fail": 1}
    # no identity
    assert found["DOM-006"] == {"fail": 1}
    # its one private endpoint connection is Approved, provisioning Succeeded
    assert found["DOM-007"] == {"pass": 1}
    assert found["DOM-012"] == {"pass": 1}
    # inputSchema EventGridSchema is the seed's EventRoutingSchema: no mapping needed
    assert found["DOM-009"] == {"pass": 1}
    dom9 = next(f for f in doc["findings"] if f["ruleId"] == "DOM-009")
    assert dom9["evidence"]["inputSchema"] == "EventRoutingSchema"
    # no userAssignedIdentities
    assert found["DOM-011"] == {"pass": 1}
    # in-region residency is off by default
    assert "DOM-008" not in found
    # no health event in the recording: no service issue in eastus
    assert found["HLT-002"] == {"pass": 1}
    # the recording lists no directory, role definitions or deny assignments: never a pass
    for rule in ("RBAC-003", "RBAC-004", "RBAC-005", "RBAC-010", "DENY-001"):
        assert "pass" not in found.get(rule, {}), rule
    assert code == 1  # DOM-001, -002, -004, -005 are high


def test_cluster_recording_rule_by_rule(capsys: Capsys, tmp_path: Path) -> None:
    code, doc, _ = _audit(capsys, tmp_path, CLUSTER)
    found = _statuses(doc)
    # no encryptionInTransitProperties, no diskEncryptionProperties (no encryption at host, no
    # customer-managed key), no networkProperties (neither outbound nor private link)
    for rule in ("CLU-001", "CLU-002", "CLU-003", "CLU-005", "CLU-006"):
        assert found[rule] == {"fail": 1}, rule
    # none of headnode, workernode and zookeepernode has a virtualNetworkProfile
    assert found["CLU-004"] == {"fail": 3}
    roles = {f["evidence"]["role"] for f in doc["findings"] if f["ruleId"] == "CLU-004"}
    assert roles == {"headnode", "workernode", "zookeepernode"}
    # clusterVersion 3.6.1000.67 is below the supported minimum 5.1
    assert found["CLU-011"] == {"fail": 1}
    clu11 = next(f for f in doc["findings"] if f["ruleId"] == "CLU-011")
    assert clu11["evidence"]["clusterVersion"] == "3.6.1000.67"
    # provisioningState Succeeded, clusterState Running
    assert found["CLU-015"] == {"pass": 1}
    # plan-only rules (credentials, node login, metastore TLS, storage default) do not run
    for rule in ("CLU-007", "CLU-008", "CLU-009", "CLU-010", "CLU-012", "CLU-013"):
        assert rule not in found, rule
    # compute isolation is not required by default
    assert "CLU-014" not in found
    # South Central US: no health event at all
    assert found["HLT-002"] == {"pass": 1}
    assert code == 1


def test_role_assignment_recording_rule_by_rule(capsys: Capsys, tmp_path: Path) -> None:
    (_, listing), *definitions = _responses(ACCESS)
    assignments = [a["properties"] | {"id": a["id"]} for a in listing["value"]]

    def role(a: dict[str, Any]) -> str:
        return str(a["roleDefinitionId"]).rsplit("/", 1)[-1]

    def at_subscription_or_above(scope: str) -> bool:
        return scope == "/" or scope.count("/") <= 2 or "/managementGroups/" in scope

    code, doc, _ = _audit(capsys, tmp_path, ACCESS)
    found = _statuses(doc)
    by_rule: dict[str, list[dict[str, Any]]] = {}
    for f in doc["findings"]:
        by_rule.setdefault(f["ruleId"], []).append(f)

    # RBAC-001/-002: distinct Owner principals at the subscription or above (a group counts once)
    owners = {
        a["principalId"]
        for a in assignments
        if role(a) == OWNER and at_subscription_or_above(a["scope"])
    }
    assert len(owners) == 18
    (rbac1,) = by_rule["RBAC-001"]
    assert rbac1["status"] == "fail" and set(rbac1["evidence"]["owners"]) == owners
    assert found["RBAC-002"] == {"pass": 1}

    # RBAC-009: a service principal with Owner, Contributor or User Access Administrator at the
    # subscription or above (one Contributor sits at the management group custodian-test)
    privileged = {OWNER, CONTRIBUTOR, USER_ACCESS_ADMIN}
    sps = [a for a in assignments if a["principalType"] == "ServicePrincipal"]
    bad = {
        to_seed(a["id"]).lower()
        for a in sps
        if role(a) in privileged and at_subscription_or_above(a["scope"])
    }
    assert len(bad) == 49
    assert {f["resourceId"].lower() for f in by_rule["RBAC-009"] if f["status"] == "fail"} == bad
    assert found["RBAC-009"]["pass"] == len(sps) - len(bad)

    # RBAC-014: more than 5 direct user assignments in the subscription
    users = [
        a
        for a in assignments
        if a["principalType"] == "User" and a["scope"].startswith(f"/subscriptions/{SUBSCRIPTION}")
    ]
    (rbac14,) = by_rule["RBAC-014"]
    assert rbac14["status"] == "fail" and rbac14["evidence"]["directUserAssignments"] == len(users)

    # the seven role definitions read are built-in roles: no custom role to fault
    assert all(body["properties"]["type"] == "BuiltInRole" for _, body in definitions)
    for rule in ("RBAC-006", "RBAC-007", "RBAC-015"):
        assert "fail" not in found.get(rule, {}), rule
    # no User Access Administrator anywhere, no condition anywhere
    assert "fail" not in found.get("RBAC-008", {})
    assert "fail" not in found.get("RBAC-011", {})
    # without the directory and the deny assignments these cannot pass
    for rule in ("RBAC-003", "RBAC-004", "RBAC-005", "RBAC-010", "RBAC-013", "DENY-001"):
        assert "pass" not in found.get(rule, {}), rule
    assert code == 1  # RBAC-001 is high


def test_health_event_response_rule_by_rule(capsys: Capsys, tmp_path: Path) -> None:
    snapshot = load_estate(EVENTS)
    # the response lists one event twice, once per impacted service: one event, both impacts
    (event,) = snapshot.healthEvents
    assert [i.impactedService for i in event.properties.impact] == [
        "Virtual Machines",
        "Redis Cache",
    ]
    # its tenant-relative id is placed in the one subscription every impact names
    assert event.id == (
        "/subscriptions/227b734f-e14f-4de6-b7fc-3190c21e69f6"
        "/providers/Cloud.ResourceHealth/events/GCC46-OUT"
    )
    # impactMitigationTime 0001-01-01T00:00:00 means "not mitigated": no value
    assert event.properties.impactMitigationTime is None
    assert "impactMitigationTime" not in event.properties.to_wire()

    code, doc, _ = _audit(capsys, tmp_path, EVENTS)
    found = _statuses(doc)
    # a ServiceIssue: HLT-001 judges security advisories only
    assert "HLT-001" not in found
    # active, and it affects subscription 227b734f..., which the snapshot holds
    assert found["HLT-003"] == {"fail": 1}
    # isHIR is false
    assert found["HLT-004"] == {"pass": 1}
    # priority 14, but ServiceIssue (0), Warning (2), Active (0) rank 8*0 + 2*2 + 0 = 4
    (hlt5,) = [f for f in doc["findings"] if f["ruleId"] == "HLT-005"]
    assert hlt5["status"] == "fail" and hlt5["evidence"]["expectedPriority"] == 4
    # no cluster or domain to be in Southeast Asia
    assert "HLT-002" not in found
    assert code == 0  # HLT-003 is medium, HLT-005 info


def test_every_recording_imported_together(capsys: Capsys, tmp_path: Path) -> None:
    out = tmp_path / "estate.json"
    code, stdout, err = _run(
        capsys, "estate", "import", *map(str, RECORDINGS), str(EVENTS), "--out", str(out)
    )
    assert code == 0, err
    # the summary names every file, what it was recognised as and what was read from it
    for path in (*RECORDINGS, EVENTS):
        assert path.name[-40:] in stdout
    assert "VCR cassette (8 interactions)" in stdout and "management-API listing" in stdout
    assert f"wrote {out}" in stdout
    counts = load_snapshot(out).counts()
    assert counts["roleAssignments"] == 74 and counts["roleDefinitions"] == 7
    assert counts["clusters"] == counts["domains"] == counts["healthEvents"] == 1
    _, doc, _ = _audit(capsys, tmp_path, out)
    found = _statuses(doc)
    # the event is in Southeast Asia; the cluster in South Central US, the domain in eastus
    assert found["HLT-002"] == {"pass": 2}
    # the domain and cluster recordings' subscription is audited now, but the event names 227b...
    assert found["HLT-003"] == {"fail": 1}


# --- HAR files and cassettes built from the recordings -------------------------------------------


def _har_entry(url: str, body: Any, *, method: str = "GET", status: int = 200) -> dict[str, Any]:
    text = body if isinstance(body, str) else json.dumps(body)
    return {
        "startedDateTime": "2021-09-01T09:42:31.120Z",
        "time": 41,
        "request": {
            "method": method,
            "url": url,
            "httpVersion": "HTTP/1.1",
            "headers": [
                {"name": "Authorization", "value": f"Bearer {TOKEN}"},
                {"name": "Cookie", "value": f"portal={TOKEN}"},
            ],
            "cookies": [{"name": "portal", "value": TOKEN}],
            "queryString": [],
            "headersSize": -1,
            "bodySize": 0,
        },
        "response": {
            "status": status,
            "statusText": "OK",
            "httpVersion": "HTTP/1.1",
            "headers": [{"name": "Content-Type", "value": "application/json"}],
            "cookies": [],
            "content": {"size": len(text), "mimeType": "application/json", "text": text},
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": len(text),
        },
        "cache": {},
        "timings": {"send": 0, "wait": 40, "receive": 1},
    }


def _har(path: Path, *recordings: Path, extra: bool = True) -> Path:
    entries = [_har_entry(url, body) for r in recordings for url, body in _responses(r)]
    if extra:
        base = f"https://management.azure.com/subscriptions/{SUBSCRIPTION}"
        entries += [
            # a portal session holds much else: none of it is read
            _har_entry(f"{base}/resourcegroups?api-version=2021-04-01&sig={TOKEN}", {"value": []}),
            _har_entry(f"{base}/providers/Microsoft.Compute/virtualMachines", {"value": []}),
            _har_entry(
                f"{base}/resourceGroups/VV/providers/Microsoft.EventGrid/domains/x",
                {},
                method="PUT",
            ),
            _har_entry(f"{base}/providers/Microsoft.Authorization/denyAssignments", {}, status=403),
        ]
        # a base64 body, as browsers record binary content
        ok = _har_entry(f"{base}/providers/Microsoft.Authorization/denyAssignments", "")
        ok["response"]["content"].update(
            text=base64.b64encode(b'{"value": []}').decode(), encoding="base64"
        )
        entries.append(ok)
    path.write_text(
        json.dumps({"log": {"version": "1.2", "creator": {"name": "t"}, "entries": entries}})
    )
    return path


def test_har_of_the_recordings_gives_their_findings(capsys: Capsys, tmp_path: Path) -> None:
    har = _har(tmp_path / "portal.har", *RECORDINGS)
    _, from_har, printed = _audit(capsys, tmp_path, har)
    folder = tmp_path / "recordings"
    folder.mkdir()
    for r in RECORDINGS:
        shutil.copy(r, folder / r.name)
    _, from_cassettes, _ = _audit(capsys, tmp_path, folder)
    # the same findings, but where the HAR says more: its deny assignment listing (the base64
    # body) is empty, which means "none", so the rules that read deny assignments can judge
    denies = ("DENY-001", "DENY-002", "DENY-003", "RBAC-013")

    def without_denies(doc: dict[str, Any]) -> Counter[tuple[str, str, str, str]]:
        return Counter({k: n for k, n in _facts(doc).items() if k[0] not in denies})

    assert without_denies(from_har) == without_denies(from_cassettes)
    assert _statuses(from_har)["RBAC-001"] == {"fail": 1}
    assert all("unknown" not in _statuses(from_har).get(rule, {}) for rule in denies)
    assert all("unknown" in _statuses(from_cassettes)[rule] for rule in denies)
    # the token of the request headers and of a query string is nowhere
    snapshot = tmp_path / "from-har.json"
    code, out, err = _run(capsys, "estate", "import", str(har), "--out", str(snapshot))
    assert code == 0, err
    for text in (printed, out, err, snapshot.read_text(), json.dumps(from_har)):
        assert TOKEN not in text and "portal=" not in text
    # what was not read is listed, with why
    assert "not an endpoint the audit reads" in out
    assert "not a GET" in out and "status 403" in out
    assert "Microsoft.Compute/virtualMachines" in out
    assert "sig=" not in out + err  # queries are never shown
    # the recording says when it was made
    assert load_snapshot(snapshot).collectedAt == "2021-09-01T09:42:31.120Z"


def test_har_of_a_directory_session(tmp_path: Path) -> None:
    users = json.loads((EXPORTS / "az-ad-user-list.json").read_text())
    members = json.loads(
        (EXPORTS / "members-9a0b0000-0000-4000-8000-0000000000a1.json").read_text()
    )
    graph = "https://graph.microsoft.com/v1.0"
    context = {"@odata.context": f"{graph}/$metadata#users"}
    har = tmp_path / "entra.har"
    entries = [
        _har_entry(
            f"{graph}/users?$select=id,displayName,mail,userType", {**context, "value": users}
        ),
        _har_entry(
            f"{graph}/groups/9a0b0000-0000-4000-8000-0000000000a1/members", {"value": members}
        ),
        _har_entry(f"{graph}/me", {"id": "x"}),
    ]
    har.write_text(json.dumps({"log": {"entries": entries}}))
    snapshot = load_estate(har)
    people = {p.displayName: p for p in snapshot.principals}
    assert people["Bob Partner"].userType == "Guest"
    assert people["Bob Partner"].memberOf == ["9a0b0000-0000-4000-8000-0000000000a1"]
    assert snapshot.has_section("principals")  # a directory listing: the directory is known
    assert any("/v1.0/me: not an endpoint" in w for w in snapshot.warnings)


def test_har_with_nothing_recognised_is_exit_2(capsys: Capsys, tmp_path: Path) -> None:
    har = tmp_path / "other.har"
    har.write_text(
        json.dumps({"log": {"entries": [_har_entry("https://example.com/api/things", {"a": 1})]}})
    )
    code, _, err = _run(capsys, "audit", "--snapshot", str(har))
    assert code == 2
    assert str(har) in err and "nothing auditable recognised" in err
    assert "not an endpoint the audit reads" in err and TOKEN not in err


def test_har_listing_continued_beyond_the_recording_is_warned(
    capsys: Capsys, tmp_path: Path
) -> None:
    url, body = _responses(CLUSTER)[0]
    body = {**body, "nextLink": url + "&$skipToken=page2"}
    har = tmp_path / "paged.har"
    har.write_text(json.dumps({"log": {"entries": [_har_entry(url, body)]}}))
    _, doc, printed = _audit(capsys, tmp_path, har)
    assert any("nextLink" in w and "missing" in w for w in doc["warnings"])
    assert "does not hold" in printed


def _yaml_cassette(path: Path, recording: Path) -> Path:
    interactions = []
    for url, body in _responses(recording):
        interactions.append(
            {
                "request": {
                    "body": None,
                    "headers": {"Authorization": [f"Bearer {TOKEN}"]},
                    "method": "GET",
                    "uri": url,
                },
                "response": {
                    "body": {"string": gzip.compress(json.dumps(body).encode(), mtime=0)},
                    "headers": {"Content-Encoding": ["gzip"]},
                    "status": {"code": 200, "message": "OK"},
                },
            }
        )
    path.write_text(yaml.safe_dump({"interactions": interactions, "version": 1}))
    return path


def test_yaml_cassette_with_gzip_bodies(capsys: Capsys, tmp_path: Path) -> None:
    cassette = _yaml_cassette(tmp_path / "domain.yaml", DOMAIN)
    assert "!!binary" in cassette.read_text()
    _, from_yaml, printed = _audit(capsys, tmp_path, cassette)
    _, from_json, _ = _audit(capsys, tmp_path, DOMAIN)
    assert _facts(from_yaml) == _facts(from_json)
    snapshot = tmp_path / "s.json"
    code, out, err = _run(capsys, "estate", "import", str(cassette), "--out", str(snapshot))
    assert code == 0 and "VCR cassette (1 interactions)" in out
    assert TOKEN not in printed + out + err + snapshot.read_text()


def test_yaml_alias_bomb_is_refused(capsys: Capsys, tmp_path: Path) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("\n".join([*lines, "interactions: [*a8]"]) + "\n")
    code, _, err = _run(capsys, "audit", "--snapshot", str(bomb))
    assert code == 2 and str(bomb) in err and "aliases" in err
    assert len(err) < 2_000


# --- flattened health events, and Microsoft.* against Cloud.* -----------------------------------


def test_flattened_health_events_read_as_the_rest_response() -> None:
    rest = load_estate(EVENTS)
    for name in ("health-events-sdk.json", "health-events-cli.json"):
        flat = load_estate(EXPORTS / name)
        assert [e.to_wire() for e in flat.healthEvents] == [e.to_wire() for e in rest.healthEvents]


def test_vendor_and_seed_names_give_the_same_findings(capsys: Capsys, tmp_path: Path) -> None:
    for recording in (*RECORDINGS, EVENTS):
        text = recording.read_text()
        seed = tmp_path / f"seed-{recording.name}"
        seed.write_text(to_seed(text).replace("EventGridSchema", "EventRoutingSchema"))
        assert "Microsoft." not in seed.read_text()
        _, vendor_doc, _ = _audit(capsys, tmp_path, recording)
        _, seed_doc, _ = _audit(capsys, tmp_path, seed)
        assert _facts(vendor_doc) == _facts(seed_doc), recording.name


# --- the vendor CLI's outputs: a whole tenant with its directory ---------------------------------


def test_cli_exports_of_a_tenant(capsys: Capsys, tmp_path: Path) -> None:
    snapshot = load_estate(EXPORTS)
    people = {p.displayName: p for p in snapshot.principals}
    # members-<group>.json and the {"groupId", "members"} wrapper give memberOf
    assert people["Alice Archer"].memberOf == ["9a0b0000-0000-4000-8000-0000000000a1"]
    assert people["deploy-bot"].memberOf == ["9a0b0000-0000-4000-8000-0000000000a2"]
    # the user listing's userType and accountEnabled are kept; a user without mail has its UPN
    assert (
        people["Bob Partner"].userType == "Guest" and people["Carol Left"].accountEnabled is False
    )
    assert people["Carol Left"].email == "carol@contoso.example"
    # the CLI's display fields are not kept; the role definition's roleType is its type
    assert b"principalName" not in dumps_snapshot(snapshot)
    assert snapshot.roleDefinitions[0].properties.type == "CustomRole"

    code, doc, _ = _audit(capsys, tmp_path, EXPORTS)
    assert code == 1
    fails = {
        (f["ruleId"], f["message"].split(" holds ")[0])
        for f in doc["findings"]
        if f["status"] == "fail"
    }
    # Bob is a guest: Contributor directly on rg-apps, Owner through platform-admins
    assert ("RBAC-003", "Guest Bob Partner") in fails
    # Carol is disabled and still holds Reader
    assert ("RBAC-004", "Disabled account Carol Left") in fails
    # 0a4a0000-... is in no listing: an orphaned assignment
    assert any(r == "RBAC-005" for r, _ in fails)
    # the custom role grants "*", so role assignments can be written
    assert {"RBAC-006", "RBAC-007"} <= {r for r, _ in fails}
    # deploy-bot is a service principal with Contributor at the subscription
    assert ("RBAC-009", "Service principal deploy-bot") in fails
    found = _statuses(doc)
    # two owners (the group and Alice): not too many, not too few
    assert found["RBAC-001"] == {"pass": 1} and found["RBAC-002"] == {"pass": 1}
    # the CLI's flattened domain: TLS 1.2, local auth off, an identity, a /16 rule, no endpoint
    for rule in ("DOM-002", "DOM-003", "DOM-004", "DOM-005", "DOM-006"):
        assert found[rule] == {"pass": 1}, rule
    assert found["DOM-001"] == {"fail": 1} and found["DOM-007"] == {"fail": 1}


def test_access_query_show_and_gdpr_read_exports(capsys: Capsys, tmp_path: Path) -> None:
    scope = "/subscriptions/6f2d3c1a-0b7e-4c55-9a51-2f3e4d5c6b7a/resourceGroups/rg-apps"
    code, out, err = _run(
        capsys, "access", "check", "--snapshot", str(EXPORTS), "--principal",
        "alice@contoso.example", "--action", "Microsoft.Storage/storageAccounts/write",
        "--scope", scope, "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["decision"] == "allowed"
    code, out, err = _run(
        capsys, "query", "role-assignments", "--snapshot", str(ACCESS), "--filter",
        "properties/principalId eq '0cbd037f-fe7a-429d-864d-46b7d53fe4d5'", "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    assert len(json.loads(out)) == 1
    code, out, err = _run(capsys, "estate", "show", str(CLUSTER), "--format", "json")
    assert code == 0 and json.loads(out)["counts"]["clusters"] == 1
    code, out, err = _run(
        capsys, "gdpr", "export", "--snapshot", str(EXPORTS), "--email", "bob@partner.example"
    )
    assert code == 0, err
    assert "b0b00000-0000-4000-8000-000000000002" in out


def test_writing_back_needs_a_snapshot(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="estate import"):
        load_estate(DOMAIN, snapshot_only=True)
    snapshot = tmp_path / "s.json"
    snapshot.write_bytes(S.sample_snapshot_bytes())
    assert load_estate(snapshot, snapshot_only=True).counts() == S.sample_snapshot().counts()


# --- nothing recognised is exit 2 -----------------------------------------------------------------

_ARM = {
    "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
    "contentVersion": "1.0.0.0",
    "resources": [{"type": "Microsoft.EventGrid/domains", "apiVersion": "2025-02-15", "name": "d"}],
}


@pytest.mark.parametrize(
    ("document", "said"),
    [
        ({"foo": 1}, "found 'foo'"),
        (_ARM, "ARM template"),
        ({"planVersion": 1, "requests": []}, "plan file"),
        ({"value": []}, "empty listing"),
        ([], "empty array"),
        ({"value": [{"type": "Microsoft.Compute/virtualMachines", "id": "/x"}]}, "Cloud.Compute"),
        # `az resource list`: a domain without its properties is not judged on the defaults
        (
            [{"id": "/x", "type": "Microsoft.EventGrid/domains", "properties": None, "kind": None}],
            "without its properties",
        ),
    ],
)
def test_nothing_auditable_is_exit_2(
    capsys: Capsys, tmp_path: Path, document: Any, said: str
) -> None:
    path = tmp_path / "input.json"
    path.write_text(json.dumps(document))
    for argv in (
        ["audit", "--snapshot", str(path)],
        ["estate", "show", str(path)],
        ["access", "who", "--snapshot", str(path), "--action", "*", "--scope", "/"],
        ["estate", "import", str(path), "--out", str(tmp_path / "out.json")],
    ):
        code, _, err = _run(capsys, *argv)
        assert code == 2, argv
        assert str(path) in err and "nothing auditable recognised" in err and said in err
        assert "management-API listing" in err  # what was expected
    assert "auditor gate" in err if said in ("ARM template", "plan file") else True
    assert not (tmp_path / "out.json").exists()


def test_unknown_top_level_keys_of_a_snapshot_are_named(capsys: Capsys, tmp_path: Path) -> None:
    document = S.sample_snapshot_json()
    document["roleAssigments"] = []  # a typo: not read
    path = tmp_path / "estate.json"
    path.write_text(json.dumps(document))
    _, doc, printed = _audit(capsys, tmp_path, path)
    assert any("roleAssigments" in w and "not read" in w for w in doc["warnings"])
    assert "roleAssigments" in printed


# --- estate import on the command line -----------------------------------------------------------


def test_estate_import_outputs(capsys: Capsys, tmp_path: Path) -> None:
    out = tmp_path / "estate.json"
    code, stdout, err = _run(capsys, "estate", "import", str(EXPORTS), "--out", str(out))
    assert code == 0, err
    assert "az-role-assignment-list.json" in stdout and "vendor CLI output" in stdout
    assert "README.md" in stdout  # listed, not read
    # an existing output is refused, --force replaces it, an input never
    code, _, err = _run(capsys, "estate", "import", str(EXPORTS), "--out", str(out))
    assert code == 2 and "exists already" in err
    code, _, err = _run(capsys, "estate", "import", str(EXPORTS), "--out", str(out), "--force")
    assert code == 0, err
    copy = tmp_path / "cluster.json"
    shutil.copy(CLUSTER, copy)
    code, _, err = _run(capsys, "estate", "import", str(copy), "--out", str(copy), "--force")
    assert code == 2 and "never overwrites" in err
    assert copy.read_bytes() == CLUSTER.read_bytes()
    # to standard output: the snapshot there, the table on standard error
    code, stdout, err = _run(capsys, "estate", "import", str(CLUSTER), "--out", "-")
    assert code == 0
    assert json.loads(stdout)["clusters"][0]["type"] == "Cloud.AnalyticsCluster/clusters"
    assert "VCR cassette" in err and "VCR cassette" not in stdout


def test_forced_format(capsys: Capsys, tmp_path: Path) -> None:
    out = tmp_path / "o.json"
    code, _, err = _run(
        capsys, "estate", "import", str(DOMAIN), "--out", str(out), "--format", "cli"
    )
    assert code == 2 and "expected the vendor CLI's JSON output" in err
    members = tmp_path / "team.json"
    shutil.copy(EXPORTS / "members-9a0b0000-0000-4000-8000-0000000000a1.json", members)
    code, _, err = _run(
        capsys, "estate", "import", str(members), "--out", str(out), "--format", "group-members"
    )
    assert code == 2 and "members-<group id>.json" in err
    code, _, err = _run(
        capsys, "estate", "import", str(DOMAIN), "--out", str(out), "--format", "vcr"
    )
    assert code == 0, err


# --- duplicates, conflicts, provenance, errors ----------------------------------------------------


def _assignment(
    n: int, principal_type: str, updated: str, *, case: str = "Microsoft"
) -> dict[str, Any]:
    scope = f"/subscriptions/{SUBSCRIPTION}"
    return {
        "id": f"{scope}/providers/{case}.Authorization/roleAssignments/0000000{n}-0000-4000-8000-000000000000",
        "type": f"{case}.Authorization/roleAssignments",
        "properties": {
            "roleDefinitionId": f"{scope}/providers/{case}.Authorization/roleDefinitions/{OWNER}",
            "principalId": f"{n}{n}{n}{n}{n}{n}{n}{n}-0000-4000-8000-000000000000",
            "principalType": principal_type,
            "scope": scope,
            "updatedOn": updated,
        },
    }


def test_overlapping_exports_merge_and_conflicts_are_named(tmp_path: Path) -> None:
    a = tmp_path / "a.json"
    b = tmp_path / "b.json"
    a.write_text(
        json.dumps(
            {
                "value": [
                    _assignment(1, "User", "2024-01-01T00:00:00Z"),
                    _assignment(2, "User", "2024-05-01T00:00:00Z"),
                ]
            }
        )
    )
    # 1: the same assignment again (in the seed's names, its id upper case): merged silently
    # 2: a different copy, older: the newer one (a.json's) is kept
    again = _assignment(1, "User", "2024-01-01T00:00:00Z", case="Cloud")
    again["id"] = again["id"].upper()
    b.write_text(json.dumps({"value": [again, _assignment(2, "Group", "2023-01-01T00:00:00Z")]}))
    snapshot = import_estate([a, b])
    assert len(snapshot.roleAssignments) == 2
    assert snapshot.roleAssignments[1].properties.principalType == "User"
    (conflict,) = [w for w in snapshot.warnings if "two different copies" in w]
    assert f"{a}: value[1]" in conflict and f"{b}: value[1]" in conflict
    assert (
        "properties.principalType" in conflict
        and f"kept {a}: value[1] (newer updatedOn)" in conflict
    )
    assert snapshot.summary.merged["roleAssignments"] == 1 and snapshot.summary.conflicts == 1
    # where each record came from
    assert str(snapshot.origin("roleAssignments", 1)) == f"{a}: value[1]"
    assert snapshot.origin_of(snapshot.roleAssignments[0].id.upper()) is not None
    # without timestamps the later input wins
    c = tmp_path / "c.json"
    c.write_text(
        json.dumps({"value": [_assignment(2, "ServicePrincipal", "2024-05-01T00:00:00Z")]})
    )
    later = import_estate([a, c])
    assert later.roleAssignments[1].properties.principalType == "ServicePrincipal"
    assert any("the later copy" in w for w in later.warnings)


def test_a_bad_value_is_named_at_its_place(capsys: Capsys, tmp_path: Path) -> None:
    page = tmp_path / "page.json"
    bad = _assignment(2, "User", "2024-01-01T00:00:00Z")
    bad["properties"]["principalId"] = 5
    page.write_text(json.dumps({"value": [_assignment(1, "User", "2024-01-01T00:00:00Z"), bad]}))
    code, _, err = _run(capsys, "audit", "--snapshot", str(page))
    assert code == 2
    assert f"{page}: value[1].properties.principalId: expected a string" in err
    deep = tmp_path / "deep.json"
    deep.write_text('{"value": [' + "[" * 200 + "]" * 200 + "]}")
    code, _, err = _run(capsys, "audit", "--snapshot", str(deep))
    assert code == 2 and str(deep) in err and "nested deeper" in err


def test_secret_looking_unknown_fields_are_dropped(capsys: Capsys, tmp_path: Path) -> None:
    secret = "Sup3r-Secret-Passw0rd!"
    _, listing = _responses(CLUSTER)[0]
    listing["value"][0]["properties"]["adminPassword"] = secret
    assignment = _assignment(1, "User", "2024-01-01T00:00:00Z")
    assignment["properties"]["clientSecret"] = secret
    path = tmp_path / "with-secrets.json"
    path.write_text(json.dumps({"value": listing["value"]}))
    page = tmp_path / "assignments.json"
    page.write_text(json.dumps({"value": [assignment]}))
    out = tmp_path / "estate.json"
    code, stdout, err = _run(capsys, "estate", "import", str(path), str(page), "--out", str(out))
    assert code == 0, err
    assert secret not in out.read_text() + stdout + err
    assert f"{path}: value[0].properties.adminPassword" in err
    assert f"{page}: value[0].properties.clientSecret" in err


# --- any split of an estate's records gives the same snapshot -----------------------------------

_SAMPLE = S.sample_snapshot()
_SPLIT = (
    "roleAssignments",
    "denyAssignments",
    "roleDefinitions",
    "clusters",
    "domains",
    "healthEvents",
)


def _vendor(value: Any, key: str | None = None) -> Any:
    """A record as the vendor's API writes it: ids, scopes, types and actions in Microsoft.*."""
    if isinstance(value, str):
        if key == "inputSchema":
            return value.replace("EventRoutingSchema", "EventGridSchema")
        if key == "condition" or value.startswith(("/", "Cloud.")):
            return to_vendor(value)
        return value
    if isinstance(value, dict):
        return {(to_vendor(k) if k.startswith("/") else k): _vendor(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_vendor(v, key) for v in value]
    return value


def _records(section: str) -> list[dict[str, Any]]:
    items = getattr(_SAMPLE, section)
    if section in ("roleAssignments", "denyAssignments"):
        return [msgspec.to_builtins(r) for r in items]
    return [m.to_wire(reveal_secrets=True) for m in items]


def _flat(section: str, record: dict[str, Any]) -> dict[str, Any]:
    """The vendor CLI's shape: properties at the top level (a role definition's type as roleType)."""
    props = dict(record.get("properties", {}))
    if section == "roleDefinitions":
        props["roleType"] = props.pop("type", None)
    return {**{k: v for k, v in record.items() if k != "properties"}, **props}


@st.composite
def _layouts(draw: st.DrawFn) -> list[tuple[str, Any]]:
    """Files (name, JSON) holding the sample's records: each section cut into pages at random
    places, each page a listing (vendor or seed names) or a CLI array, some pages repeated, the
    pages of the sections interleaved in any order that keeps each section's own order."""
    queues: list[list[tuple[str, Any]]] = []
    for section in _SPLIT:
        records = _records(section)
        cuts = sorted(draw(st.sets(st.integers(1, max(1, len(records) - 1)), max_size=4)))
        pages = [
            records[i:j]
            for i, j in zip([0, *cuts], [*cuts, len(records)], strict=True)
            if records[i:j]
        ]
        queue = []
        for page in pages:
            vendor = draw(st.booleans())
            items = [_vendor(r) if vendor else r for r in page]
            if section in ("roleAssignments", "roleDefinitions") and draw(st.booleans()):
                document: Any = [_flat(section, r) for r in items]
            else:
                document = {"value": items, "nextLink": None}
            queue.append((section, document))
            if draw(st.integers(0, 5)) == 0:
                queue.append((section, document))  # overlapping exports: identical copies
        queues.append(queue)
    order = draw(st.permutations([i for i, q in enumerate(queues) for _ in q]))
    return [queues[i].pop(0) for i in order]


@settings(
    max_examples=25,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(layout=_layouts())
def test_any_split_of_the_records_gives_the_same_snapshot(
    tmp_path: Path, layout: list[tuple[str, Any]]
) -> None:
    folder = tmp_path / f"split-{abs(hash(json.dumps(layout, sort_keys=True)))}"
    folder.mkdir()
    rest = json.loads(S.sample_snapshot_bytes())
    for section in _SPLIT:
        del rest[section]
    (folder / "000-rest.json").write_text(json.dumps(rest))
    for n, (section, document) in enumerate(layout, start=1):
        (folder / f"{n:03d}-{section}.json").write_text(json.dumps(document))
    imported = import_estate([folder])
    assert isinstance(imported, ImportedSnapshot)
    assert json.loads(dumps_snapshot(imported)) == json.loads(dumps_snapshot(_SAMPLE))
    assert not [w for w in imported.warnings if "two different copies" in w]
    shutil.rmtree(folder)
