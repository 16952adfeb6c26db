"""The curated sample estate: it loads, round-trips, holds every feature the rules need, and its table
of expected rule outcomes names every rule of rules.md."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest

from auditor.audit.packs import shipped_catalogue
from auditor.estate import sample as S
from auditor.estate.plan import loads_plan
from auditor.estate.roles import (
    CONTRIBUTOR,
    OWNER,
    RBAC_ADMINISTRATOR,
    USER_ACCESS_ADMINISTRATOR,
    role_catalogue,
    role_guid,
)
from auditor.estate.snapshot import dumps_snapshot, loads_snapshot
from auditor.model.access import ALL_PRINCIPALS_ID
from tests import sample_outcomes as O

RULES_MD = Path(__file__).parent / "data" / "rules.md"
RULE_IDS = re.findall(r"^\| ((?:DOM|CLU|RBAC|DENY|HLT|TOK)-\d{3}) \|", RULES_MD.read_text(), re.M)


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return S.sample_snapshot_json()


@pytest.fixture(scope="module")
def plans() -> dict[str, dict[str, Any]]:
    return S.sample_plans()


def _by_id(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {item["id"]: item for item in items}


def _ras(data: dict[str, Any]) -> list[dict[str, Any]]:
    return list(data["roleAssignments"])


def _is_below_or_at(scope: str, ancestor: str) -> bool:
    scope, ancestor = scope.lower().rstrip("/"), ancestor.lower().rstrip("/")
    return scope == ancestor or scope.startswith(ancestor + "/")


def _groups_of(data: dict[str, Any], principal_id: str) -> set[str]:
    """Every group a principal belongs to, transitively."""
    member_of = {p["id"]: p.get("memberOf", []) for p in data["principals"]}
    seen: set[str] = set()
    todo = list(member_of.get(principal_id, []))
    while todo:
        g = todo.pop()
        if g not in seen:
            seen.add(g)
            todo.extend(member_of.get(g, []))
    return seen


# --- loading ----------------------------------------------------------------------------------------


def test_sample_loads_and_round_trips() -> None:
    snap = S.sample_snapshot()
    assert loads_snapshot(dumps_snapshot(snap)) == snap
    assert loads_snapshot(dumps_snapshot(snap, indent=2)) == snap
    counts = snap.counts()
    assert counts["roleAssignments"] == len(S.ROLE_ASSIGNMENTS)
    assert counts["denyAssignments"] == len(S.DENY_ASSIGNMENTS)
    assert counts["clusters"] == len(S.CLUSTERS)
    assert counts["domains"] == len(S.DOMAINS)
    assert counts["healthEvents"] == len(S.HEALTH_EVENTS)
    assert counts["devTooling.tokens"] == len(S.TOKENS)


def test_sample_is_deterministic_and_fresh() -> None:
    a, b = S.sample_snapshot_json(), S.sample_snapshot_json()
    assert a == b
    a["principals"].clear()
    assert S.sample_snapshot_json()["principals"]
    assert S.sample_snapshot_bytes() == S.sample_snapshot_bytes()
    assert S.sample_plans() == S.sample_plans()


def test_sample_bytes_are_the_json(data: dict[str, Any]) -> None:
    assert json.loads(S.sample_snapshot_bytes()) == data


def test_token_sprawl_variant_only_adds_tokens(data: dict[str, Any]) -> None:
    sprawl = S.sample_snapshot_json("token-sprawl")
    tokens = sprawl["devTooling"]["tokens"]
    assert len(tokens) > 0.9 * 5000
    assert len({t["id"] for t in tokens}) == len(tokens)
    sprawl["devTooling"]["tokens"] = tokens[: len(S.TOKENS)]
    assert sprawl == data
    assert S.sample_snapshot("token-sprawl").counts()["devTooling.tokens"] == len(tokens)


def test_every_plan_loads(plans: dict[str, dict[str, Any]]) -> None:
    assert set(plans) == set(S.PLAN_NAMES)
    for name, plan in plans.items():
        loaded = loads_plan(msgspec.json.encode(plan), source=name)
        assert len(loaded.requests) == len(plan["requests"])
        wrong = {S.plan_ref(name, r.index) for r in loaded.requests if not r.api_version_ok}
        expected = {ref for ref in O.EXPECTED_PLAN_API_VERSION_FINDINGS if ref.startswith(name)}
        assert wrong == expected


# --- the directory ------------------------------------------------------------------------------------


def test_directory_is_consistent(data: dict[str, Any]) -> None:
    principals = _by_id(data["principals"])
    assert len(principals) == len(data["principals"])
    for p in data["principals"]:
        for g in p.get("memberOf", []):
            assert principals[g]["type"] == "Group"
    # no cycles: a group never reaches itself
    for p in data["principals"]:
        if p["type"] == "Group":
            assert p["id"] not in _groups_of(data, p["id"])
    kinds = {p["type"] for p in data["principals"]}
    assert kinds == {"User", "Group", "ServicePrincipal"}


def test_three_level_group_nesting(data: dict[str, Any]) -> None:
    grace = S.PRINCIPALS["grace"]
    chain = [S.PRINCIPALS[g] for g in ("g-contractors", "g-app-team", "g-engineering")]
    assert _groups_of(data, grace) == set(chain)
    member_of = {p["id"]: p.get("memberOf", []) for p in data["principals"]}
    assert member_of[grace] == chain[:1]
    assert member_of[chain[0]] == chain[1:2]
    assert member_of[chain[1]] == chain[2:]


def test_guests_disabled_accounts_and_orphans(data: dict[str, Any]) -> None:
    principals = _by_id(data["principals"])
    guests = {pid for pid, p in principals.items() if p.get("userType") == "Guest"}
    disabled = {pid for pid, p in principals.items() if p.get("accountEnabled") is False}
    assert len(guests) >= 2
    assert any(principals[d]["type"] == "ServicePrincipal" for d in disabled)
    assigned = {ra["properties"]["principalId"] for ra in _ras(data)}
    assert disabled & assigned, "a disabled account holds a role assignment"
    # a guest owner, directly
    assert any(
        ra["properties"]["principalId"] in guests
        and role_guid(ra["properties"]["roleDefinitionId"]) == OWNER
        for ra in _ras(data)
    )
    # a guest with a privileged role through nested groups only
    privileged = {OWNER, CONTRIBUTOR, USER_ACCESS_ADMINISTRATOR, RBAC_ADMINISTRATOR}
    via_group = [
        ra
        for ra in _ras(data)
        if role_guid(ra["properties"]["roleDefinitionId"]) in privileged
        and principals.get(ra["properties"]["principalId"], {}).get("type") == "Group"
        and any(ra["properties"]["principalId"] in _groups_of(data, g) for g in guests)
    ]
    assert [ra["id"] for ra in via_group] == [S.ROLE_ASSIGNMENTS["app-team-contributor-rg"]]
    orphans = [ra for ra in _ras(data) if ra["properties"]["principalId"] not in principals]
    assert [ra["id"] for ra in orphans] == [S.ROLE_ASSIGNMENTS["orphan-reader-shared"]]


# --- roles and role assignments -----------------------------------------------------------------------


def test_role_definitions_are_real_builtins_or_sample_customs(data: dict[str, Any]) -> None:
    snap = S.sample_snapshot()
    catalogue = role_catalogue(snap.roleDefinitions)
    builtins = set(role_catalogue())
    used = {role_guid(ra["properties"]["roleDefinitionId"]) for ra in _ras(data)}
    assert used <= set(catalogue)
    assert {OWNER, CONTRIBUTOR, USER_ACCESS_ADMINISTRATOR, RBAC_ADMINISTRATOR} <= used & builtins
    customs = {r["name"] for r in data["roleDefinitions"]}
    assert customs & used and not customs & builtins
    for ra in _ras(data):
        rid = ra["properties"]["roleDefinitionId"]
        assert re.fullmatch(
            r"(/subscriptions/[0-9a-f-]{36})?/providers/Cloud\.Authorization/roleDefinitions/"
            r"[0-9a-f-]{36}",
            rid,
        ), rid
        assert ra["id"].startswith(ra["properties"]["scope"] + "/providers/Cloud.Authorization/")
        if ra["properties"]["scope"].startswith("/subscriptions/"):
            assert rid.startswith("/".join(ra["properties"]["scope"].split("/")[:3]) + "/")


def test_risky_custom_roles(data: dict[str, Any]) -> None:
    perms = {
        r["properties"]["roleName"]: r["properties"]["permissions"][0]
        for r in data["roleDefinitions"]
    }
    assert any("*" in p["actions"] for p in perms.values())
    assert any("Cloud.Authorization/roleAssignments/write" in p["actions"] for p in perms.values())
    assert any(
        p["dataActions"]
        and any("managementGroups" in s for s in r["properties"]["assignableScopes"])
        for r in data["roleDefinitions"]
        for p in r["properties"]["permissions"]
    )


def test_assignment_scopes_have_depth(data: dict[str, Any]) -> None:
    scopes = {ra["properties"]["scope"] for ra in _ras(data)}
    assert any(s.startswith("/providers/Cloud.Management/managementGroups/") for s in scopes)
    assert any(re.fullmatch(r"/subscriptions/[^/]+", s) for s in scopes)
    assert any(re.fullmatch(r"/subscriptions/[^/]+/resourceGroups/[^/]+", s) for s in scopes)
    assert any("/providers/Cloud.Storage/storageAccounts/" in s for s in scopes)


def test_conditioned_assignments(data: dict[str, Any]) -> None:
    conditioned = {
        ra["id"]: ra["properties"] for ra in _ras(data) if "condition" in ra["properties"]
    }
    valid = [p for p in conditioned.values() if p["conditionVersion"] == "2.0"]
    assert any(p["condition"] == S.CONDITION_LOGS_CONTAINER for p in valid)
    assert S.CONDITION_LOGS_CONTAINER == (
        "((!(ActionMatches{'Cloud.Storage/storageAccounts/blobServices/containers/blobs/read'}))"
        " OR (@Resource[Cloud.Storage/storageAccounts/blobServices/containers:name] StringEquals"
        " 'logs'))"
    )
    assert any(p["conditionVersion"] == "1.0" for p in conditioned.values())
    unparsable = conditioned[S.ROLE_ASSIGNMENTS["quinn-blob-reader-bad-condition"]]["condition"]
    assert unparsable.count("(") != unparsable.count(")")
    # the bypassed one: the same role, unconditioned, for one of Judy's groups at an ancestor scope
    judy = conditioned[S.ROLE_ASSIGNMENTS["judy-blob-reader-conditioned"]]
    bypass = [
        ra
        for ra in _ras(data)
        if "condition" not in ra["properties"]
        and ra["properties"]["principalId"] in _groups_of(data, S.PRINCIPALS["judy"])
        and ra["properties"]["roleDefinitionId"] == judy["roleDefinitionId"]
        and _is_below_or_at(judy["scope"], ra["properties"]["scope"])
    ]
    assert [ra["id"] for ra in bypass] == [S.ROLE_ASSIGNMENTS["analysts-blob-reader-rg"]]


def test_conditions_agree_with_the_condition_parser(data: dict[str, Any]) -> None:
    from auditor.expr.condition import validate_condition

    bad = [
        ra["id"]
        for ra in _ras(data)
        if validate_condition(
            ra["properties"].get("condition"), ra["properties"].get("conditionVersion")
        )
    ]
    assert bad == O.EXPECTED_RULE_OUTCOMES["RBAC-011"]["fail"]


# --- deny assignments ---------------------------------------------------------------------------------


def test_deny_assignments(data: dict[str, Any]) -> None:
    denies = {d["id"]: d["properties"] for d in data["denyAssignments"]}
    everyone = [
        p
        for p in denies.values()
        if any(
            x["id"] == ALL_PRINCIPALS_ID and x["type"] == "SystemDefined" for x in p["principals"]
        )
    ]
    assert everyone and all(p["excludePrincipals"] for p in everyone)
    assert any(p["doNotApplyToChildScopes"] for p in denies.values())
    assert any(p["isSystemProtected"] for p in denies.values())
    contradictions = [
        did
        for did, p in denies.items()
        if {x["id"] for x in p["principals"]} & {x["id"] for x in p["excludePrincipals"]}
    ]
    assert contradictions == [S.DENY_ASSIGNMENTS["contractor-network-guard"]]
    for did, p in denies.items():
        assert did.startswith(p["scope"] + "/providers/Cloud.Authorization/denyAssignments/")


# --- clusters, domains, health events, developer tooling ------------------------------------------------


def test_clusters_and_domains_mix_compliant_and_not(data: dict[str, Any]) -> None:
    clusters = _by_id(data["clusters"])
    assert set(clusters) == set(S.CLUSTERS.values())
    good = clusters[S.CLUSTERS["hdi-prod-analytics"]]["properties"]
    bad = clusters[S.CLUSTERS["hdi-dev-sandbox"]]["properties"]
    assert good["encryptionInTransitProperties"]["isEncryptionInTransitEnabled"] is True
    assert bad["encryptionInTransitProperties"]["isEncryptionInTransitEnabled"] is False
    for c in clusters.values():  # responses carry no secrets and no configurations
        text = json.dumps(c)
        assert "password" not in text.lower() and "configurations" not in text
    domains = _by_id(data["domains"])
    assert set(domains) == set(S.DOMAINS.values())
    access = {d["properties"].get("publicNetworkAccess") for d in domains.values()}
    assert access == {"Disabled", "Enabled", None}


def test_health_events(data: dict[str, Any]) -> None:
    events = data["healthEvents"]
    types = {e["properties"]["eventType"] for e in events}
    assert types == {
        "EmergingIssues",
        "HealthAdvisory",
        "PlannedMaintenance",
        "RCA",
        "SecurityAdvisory",
        "ServiceIssue",
    }
    assert {e["properties"]["status"] for e in events} == {"Active", "Resolved"}
    assert sum(e["properties"]["isHIR"] for e in events) == 1
    listed_for = set(S.CLUSTERS.values()) | {
        f"/subscriptions/{s}" for s in S.SUBSCRIPTIONS.values()
    }
    for e in events:
        assert any(
            e["id"].startswith(x + "/providers/Cloud.ResourceHealth/events/") for x in listed_for
        )
    # a wrong priority by the documented order, and one out of range
    rank = ("ServiceIssue", "PlannedMaintenance", "HealthAdvisory")
    levels = ("Critical", "Error", "Warning", "Informational")
    wrong = []
    for e in events:
        p = e["properties"]
        if not 0 <= p["priority"] <= 23:
            wrong.append(e["id"])
        elif p["eventType"] in rank:
            expected = 8 * rank.index(p["eventType"]) + 2 * levels.index(p["eventLevel"])
            if p["priority"] != expected + (p["status"] == "Resolved"):
                wrong.append(e["id"])
    assert set(wrong) == set(O.EXPECTED_RULE_OUTCOMES["HLT-005"]["fail"])
    # an active service issue whose region is a cluster's location written differently
    issue = next(e for e in events if e["id"] == S.HEALTH_EVENTS["service-issue-westeurope"])
    region = issue["properties"]["impact"][0]["impactedRegions"][0]["impactedRegion"]
    cluster = _by_id(data["clusters"])[S.CLUSTERS["hdi-prod-analytics"]]
    assert region != cluster["location"]
    assert region.replace(" ", "").lower() == cluster["location"].replace(" ", "").lower()
    assert "<script>alert(1)</script>" in issue["properties"]["description"]


def test_dev_tooling(data: dict[str, Any]) -> None:
    dev = data["devTooling"]
    assert {a["ownerType"] for a in dev["apps"]} == {"user", "org"}
    assert all(a["users"] for a in dev["apps"])
    apps = {f"{a['owner']}/{a['name']}" for a in dev["apps"]}
    tokens = dev["tokens"]
    assert {(t["kind"], t["accessType"]) for t in tokens} >= {
        ("user", "full"),
        ("user", "readOnly"),
        ("app", "full"),
        ("app", "readOnly"),
    }
    for t in tokens:
        assert (t["app"] is None) == (t["kind"] == "user")
        assert t["app"] is None or t["app"] in apps
        assert "value" not in t
    descriptions = {t["description"] for t in tokens}
    assert "" in descriptions and "token" in descriptions
    assert any(len(d) >= 8 for d in descriptions)


# --- secrets ------------------------------------------------------------------------------------------


def test_token_value_appears_only_where_tok_006_needs_it(
    data: dict[str, Any], plans: dict[str, dict[str, Any]]
) -> None:
    token_like = re.compile(r"(?<![0-9a-f])[0-9a-f]{40}(?![0-9a-f])")
    assert not token_like.search(json.dumps(data))
    found = []
    for name, plan in plans.items():
        for i, request in enumerate(plan["requests"]):
            if token_like.search(json.dumps(request)):
                found.append(S.plan_ref(name, i))
    assert found == O.EXPECTED_RULE_OUTCOMES["TOK-006"]["fail"]
    assert S.SAMPLE_API_TOKEN in json.dumps(plans["risky-plan"]["requests"][0])


def test_plans_hold_references_and_literals(plans: dict[str, dict[str, Any]]) -> None:
    text = json.dumps(plans)
    assert "<PASSWORD>" in text and "<STORAGE_KEY>" in text and "${GATEWAY_PASSWORD}" in text
    assert S.STRONG_LITERAL_PASSWORD in text
    assert S.WEAK_GATEWAY_PASSWORD in text and S.WEAK_METASTORE_PASSWORD in text
    assert S.LITERAL_STORAGE_KEY in text
    compliant = json.dumps(plans["compliant-plan"])
    for literal in (S.STRONG_LITERAL_PASSWORD, S.WEAK_GATEWAY_PASSWORD, S.LITERAL_STORAGE_KEY):
        assert literal not in compliant


def test_metastore_urls_cover_every_jdbc_kind() -> None:
    def kind(url: str) -> str:
        k = url.split(":")[1].lower()
        return k if k in ("sqlserver", "postgresql", "mysql", "mariadb") else "other"

    # URLs of passing requests (the compliant plan's included) are good; in a failing request,
    # the URLs that are not known good are the bad ones, and there is at least one
    good = {S.JDBC_SQLSERVER_ENCRYPT, S.JDBC_POSTGRES_VERIFY_FULL}
    for hive, oozie, ok in S.METASTORE_URLS:
        if ok:
            good |= {u for u in (hive, oozie) if u is not None}
    bad = set()
    for hive, oozie, ok in S.METASTORE_URLS:
        if not ok:
            culprits = {u for u in (hive, oozie) if u is not None and u not in good}
            assert culprits, (hive, oozie)
            bad |= culprits
    assert {kind(u) for u in good} == {"sqlserver", "postgresql", "mysql", "mariadb"}
    assert {kind(u) for u in bad} == {"sqlserver", "postgresql", "mysql", "mariadb", "other"}
    # property names and values in odd case are among the good ones
    assert any("Encrypt=TRUE" in u for u in good) and any("SSLMODE=" in u for u in good)


# --- expected outcomes --------------------------------------------------------------------------------


def test_rules_md_copy_is_current() -> None:
    assert len(RULE_IDS) == len(set(RULE_IDS))
    assert set(RULE_IDS) <= {r.id for r in shipped_catalogue().rules}  # the packs hold rules.md
    spec = Path(__file__).resolve().parents[2] / "shared" / "spec" / "rules.md"
    if spec.is_file():  # beside the checkout (developers, CI): the copy must be current
        assert spec.read_text() == RULES_MD.read_text(), "refresh tests/data/rules.md from the spec"


def test_expected_outcomes_name_every_rule() -> None:
    assert list(O.EXPECTED_RULE_OUTCOMES) == RULE_IDS
    for rule, outcome in O.EXPECTED_RULE_OUTCOMES.items():
        assert set(outcome) == {"fail", "pass"}, rule
        assert outcome["fail"] and outcome["pass"], rule
        assert len(set(outcome["fail"])) == len(outcome["fail"]), rule
        if rule not in O.EXPECTED_OTHER_RUNS:
            assert not set(outcome["fail"]) & set(outcome["pass"]), rule
    assert set(O.EXPECTED_OTHER_RUNS) <= set(RULE_IDS)


def test_expected_outcomes_name_things_that_exist(
    data: dict[str, Any], plans: dict[str, dict[str, Any]]
) -> None:
    known: set[str] = {"/"}
    known |= {h["id"] for h in data["hierarchy"]}
    known |= {f"/subscriptions/{s}" for s in S.SUBSCRIPTIONS.values()}
    for section in ("roleAssignments", "denyAssignments", "roleDefinitions", "clusters", "domains",
                    "healthEvents"):  # fmt: skip
        known |= {item["id"] for item in data[section]}
    known |= {t["id"] for t in data["devTooling"]["tokens"]}
    known.add(data["devTooling"]["user"]["id"])
    for name, plan in plans.items():
        known |= {S.plan_ref(name, i) for i in range(len(plan["requests"]))}
    for rule, outcome in O.EXPECTED_RULE_OUTCOMES.items():
        for ref in outcome["fail"] + outcome["pass"]:
            assert ref in known, (rule, ref)
    for scope, principals in O.EXPECTED_SHADOW_ADMINS.items():
        assert scope in O.EXPECTED_RULE_OUTCOMES["RBAC-010"]["fail"]
        assert set(principals) <= set(S.PRINCIPALS.values())


def test_plan_only_rules_are_judged_on_plans() -> None:
    runs_on = {r.id: set(r.info.runsOn) for r in shipped_catalogue().rules}
    # TOK-006 also scans the estate's tokens and files, but the sample has token values in plans only
    plan_only = [r for r in O.EXPECTED_RULE_OUTCOMES if runs_on[r] == {"plan"} or r == "TOK-006"]
    assert plan_only
    for rule in plan_only:
        outcome = O.EXPECTED_RULE_OUTCOMES[rule]
        assert all("#requests[" in ref for ref in outcome["fail"] + outcome["pass"]), rule
    estate_only = [r for r in O.EXPECTED_RULE_OUTCOMES if runs_on[r] == {"estate"}]
    assert estate_only
    for rule in estate_only:
        outcome = O.EXPECTED_RULE_OUTCOMES[rule]
        assert not any("#requests[" in ref for ref in outcome["fail"] + outcome["pass"]), rule
