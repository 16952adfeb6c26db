"""No silent answers from the access commands (issue 18): principals named by id, e-mail, user
principal name or display name; warnings for what a request names that the estate does not know;
reasons that name the attributes a condition needed and the deny assignments that did not apply.
Through the library and through ``auditor.cli.main``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.access import (
    AccessEngine,
    AccessRequest,
    decide,
    request_warnings,
    resolve_principal,
)
from auditor.access.advice import action_warnings, scope_warnings
from auditor.access.principals import MAX_CANDIDATES
from auditor.cli import main
from auditor.errors import InputError
from auditor.estate.records import PrincipalRecord
from auditor.estate.snapshot import Snapshot, dump_snapshot, load_snapshot
from tests.test_access_properties import REQUESTS, Estate, estates
from tests.test_access_support import (
    BLOB_READ,
    BLOB_READER,
    CONTRIBUTOR,
    MG,
    OWNER,
    READER,
    RG,
    SUB,
    VM,
    VM_WRITE,
    build,
    deny,
    group,
    ra,
    role,
    user,
)

GUID = "0b6e1a6e-1111-4222-8333-944455556666"
UNKNOWN_GUID = "9f9f9f9f-0000-4000-8000-000000000001"
NAME_KEY = "@Resource[Cloud.Storage/storageAccounts/blobServices/containers:name]"
COND = f"((!(ActionMatches{{'{BLOB_READ}'}})) OR ({NAME_KEY} StringEquals 'logs'))"
BATCH_POOLS = "55555555-0000-0000-0000-000000000001"


def _snapshot() -> Snapshot:
    snapshot = build(
        principals=[
            user("alice", "team", name="Alice Archer", email="Alice@Example.com"),
            user(GUID, name="Bob Brennan", email="bob@example.com"),
            user("carol-1", name="Carol", email="carol@example.com"),
            user("carol-2", name="carol", email="c2@example.com"),
            group("team", name="Platform Team"),
        ],
        roles=[role(BATCH_POOLS, "Pool operator", actions=["Cloud.Batch/pools/*"])],
        assignments=[
            ra("a1", "team", CONTRIBUTOR, SUB, principal_type="Group"),
            ra("a2", GUID, BLOB_READER, RG, condition=COND),
            ra("a3", "only-assigned", READER, RG),
            ra("a4", GUID, OWNER, MG),
        ],
        denies=[
            deny("d-here", RG, actions=["Cloud.Compute/*/delete"], at_scope_only=True,
                 name="Only at rg"),
            deny("d-excl", SUB, actions=["Cloud.Compute/virtualMachines/write"],
                 excluded=["team"], name="Team excluded"),
            deny("d-self", SUB, actions=["Cloud.Compute/virtualMachines/start/action"],
                 excluded=[GUID], name="Bob excluded"),
        ],
    )  # fmt: skip
    # a principal the directory lacks, known by the name and address a deny assignment gives it
    snapshot.denyAssignments[0].properties.excludePrincipals.append(
        PrincipalRecord(
            id="svc-1", type="ServicePrincipal", displayName="Deploy Bot", email="bot@example.com"
        )
    )
    return snapshot


@pytest.fixture(scope="module")
def engine() -> AccessEngine:
    return AccessEngine.from_snapshot(_snapshot())


@pytest.fixture(scope="module")
def snapshot_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("warnings") / "snapshot.json"
    dump_snapshot(_snapshot(), path)
    document = json.loads(path.read_text())
    for entry in document["principals"]:
        if entry["id"] == "alice":
            entry["userPrincipalName"] = "aarcher@corp.example"  # kept as an unknown field
    path.write_text(json.dumps(document))
    return str(path)


def _request(principal: str, action: str, scope: str, **kw: Any) -> AccessRequest:
    return AccessRequest(principalId=principal, action=action, scope=scope, **kw)


# ----------------------------------------------------------------------------- principal names


def test_resolution_by_id_keeps_the_casing_typed(engine: AccessEngine) -> None:
    found = engine.resolve_principal("ALICE")
    assert (found.id, found.matchedBy, found.known) == ("ALICE", "id", True)
    assert found.displayName == "Alice Archer" and found.type == "User"
    assert engine.resolve_principal("only-assigned").matchedBy == "id"  # an assignment names it


@pytest.mark.parametrize(
    ("text", "expected", "how"),
    [
        ("alice@example.com", "alice", "email"),
        ("  BOB@EXAMPLE.COM ", GUID, "email"),
        ("alice archer", "alice", "displayName"),
        ("platform team", "team", "displayName"),
        ("deploy bot", "svc-1", "displayName"),  # named by a deny assignment only
        ("BOT@example.com", "svc-1", "email"),
    ],
)
def test_resolution_by_address_and_name(
    engine: AccessEngine, text: str, expected: str, how: str
) -> None:
    found = engine.resolve_principal(text)
    assert (found.id, found.matchedBy, found.known, found.given) == (
        expected,
        how,
        True,
        text.strip(),
    )


def test_resolution_by_user_principal_name(snapshot_file: str) -> None:
    snapshot = load_snapshot(snapshot_file)
    found = resolve_principal(snapshot, "AArcher@corp.example")
    assert (found.id, found.matchedBy) == ("alice", "userPrincipalName")
    assert AccessEngine.from_snapshot(snapshot).resolve_principal("aarcher@corp.example").id == (
        "alice"
    )


def test_ambiguous_names_list_the_candidates(engine: AccessEngine) -> None:
    with pytest.raises(InputError) as caught:
        engine.resolve_principal("CAROL")
    message = str(caught.value)
    assert message.startswith("--principal: the display name 'CAROL' belongs to 2 principals")
    assert "carol-1 (User, 'Carol')" in message and "carol-2 (User, 'carol')" in message


def test_many_candidates_are_cut_with_a_count() -> None:
    people = [user(f"p{i:02}", name="Sam") for i in range(MAX_CANDIDATES + 4)]
    with pytest.raises(InputError) as caught:
        resolve_principal(build(principals=people), "sam")
    message = str(caught.value)
    assert f"belongs to {MAX_CANDIDATES + 4} principals" in message
    assert message.count("(User, 'Sam')") == MAX_CANDIDATES and "and 4 more" in message


def test_a_name_cannot_add_a_line_to_the_candidates() -> None:
    hostile = "Sam\n  p9 (User, 'Sam')"
    people = [user("p1", name="Sam", email="s@x"), user("p2", name=hostile, email="S@X")]
    with pytest.raises(InputError) as caught:
        resolve_principal(build(principals=people), "s@x")
    lines = str(caught.value).splitlines()
    assert len(lines) == 3 and not any(line.startswith("  p9") for line in lines)
    assert "p2 (User, 'Sam\\n  p9 (User, 'Sam')')" in lines[2]


def test_unknown_names_and_ids(engine: AccessEngine) -> None:
    with pytest.raises(InputError) as caught:
        engine.resolve_principal("nobody@example.com")
    message = str(caught.value)
    assert "'nobody@example.com'" in message and "5 directory entries" in message
    assert "GUID" in message
    found = engine.resolve_principal(UNKNOWN_GUID.upper())
    assert (found.id, found.matchedBy, found.known) == (UNKNOWN_GUID.upper(), "unknownId", False)
    with pytest.raises(InputError):
        engine.resolve_principal("   ")


def test_resolution_from_a_snapshot_scans_the_assignments() -> None:
    snapshot = _snapshot()
    assert resolve_principal(snapshot, "ONLY-assigned").matchedBy == "id"
    assert resolve_principal(snapshot, "svc-1").matchedBy == "id"


# ----------------------------------------------------------------------------------- warnings


def test_a_request_the_estate_knows_has_no_warnings(engine: AccessEngine) -> None:
    for request in (
        _request("alice", VM_WRITE, VM),
        _request("only-assigned", "Cloud.Compute/virtualMachines/read", RG + "/new/thing"),
        _request(GUID, BLOB_READ, RG, dataAction=True, attributes={NAME_KEY: "logs"}),
        _request("team", "Cloud.Batch/pools/write", "/"),
        _request("alice", "Cloud.Batch/pools/resize/action", SUB),  # plausible: a role's prefix
    ):
        assert engine.warnings(request) == (), request
        assert engine.check(request, warn=True).warnings == ()


def test_unknown_principal_warns(engine: AccessEngine) -> None:
    decision = engine.check(
        _request(UNKNOWN_GUID, "Cloud.Compute/virtualMachines/read", VM), warn=True
    )
    assert decision.decision == "notGranted"
    (warning,) = decision.warnings
    assert warning.startswith(f"unknown principal '{UNKNOWN_GUID}'")
    empty = AccessEngine.from_snapshot(build())
    assert "holds no directory" in empty.warnings(_request("x", VM_WRITE, VM))[0]


@pytest.mark.parametrize(
    "scope",
    [
        "/subscriptions/sub-9/resourceGroups/rg-1",
        "/subscriptions/sub-9",
        "/providers/Cloud.Management/managementGroups/elsewhere",
        "/somewhere/else",
    ],
)
def test_scope_outside_the_estate_warns(engine: AccessEngine, scope: str) -> None:
    (warning,) = engine.check(_request("alice", VM_WRITE, scope), warn=True).warnings
    assert warning.startswith(f"scope '{scope}' is outside the estate")
    assert scope_warnings(engine.indexes, scope) == (warning,)


@pytest.mark.parametrize("scope", ["/", MG, SUB.upper() + "/", RG + "/providers/X/y/z"])
def test_scopes_inside_the_estate_do_not_warn(engine: AccessEngine, scope: str) -> None:
    assert scope_warnings(engine.indexes, scope) == ()


def test_a_resource_makes_its_subscription_known() -> None:
    from auditor.model.domain import Domain

    snapshot = build(hierarchy=())
    domain = "/subscriptions/sub-7/resourceGroups/r/providers/Cloud.EventRouting/domains/d"
    snapshot.domains = [Domain.model_validate({"id": domain})]
    ix = AccessEngine.from_snapshot(snapshot).indexes
    assert scope_warnings(ix, "/subscriptions/sub-7/resourceGroups/other") == ()
    assert scope_warnings(ix, "/subscriptions/sub-8") != ()


@pytest.mark.parametrize(
    "action",
    [
        "Cloud.Compute/virtualMachines/wirte",  # not a verb
        "Cloud.Compte/virtualMachines/write",  # namespace
        "Cloud.Compute/virtualMachnes/write",  # type
        "Cloud.Batch/pool/write",  # the role names pools
        "*",
        "read",
    ],
)
def test_misspelt_actions_warn(engine: AccessEngine, action: str) -> None:
    (warning,) = engine.check(_request("alice", action, VM), warn=True).warnings
    assert warning.startswith(f"action '{action}' is named by no role") and "misspelt" in warning
    assert action_warnings(engine.indexes, action) == (warning,)


@pytest.mark.parametrize(
    "action",
    [
        "cloud.authorization/ROLEASSIGNMENTS/write",  # shipped operation list, case ignored
        "Cloud.EventRouting/domains/delete",
        "Cloud.Purview/consents/write",  # Contributor's notActions name it literally
        "Cloud.KeyVault/vaults/keys/read",  # Key Vault Administrator: Cloud.KeyVault/vaults/*/read
        "Cloud.Batch/pools/resize/action",  # the custom role: Cloud.Batch/pools/*
    ],
)
def test_known_and_plausible_actions_do_not_warn(engine: AccessEngine, action: str) -> None:
    assert action_warnings(engine.indexes, action) == ()


def test_a_namespace_alone_does_not_make_an_action_plausible(engine: AccessEngine) -> None:
    # the built-in roles hold Cloud.Support/* and Cloud.Insights/alertRules/*
    assert len(action_warnings(engine.indexes, "Cloud.Support/supportTickets/write")) == 1
    assert action_warnings(engine.indexes, "Cloud.Insights/alertRules/incidents/read") == ()


def test_the_plane_of_an_action_is_checked(engine: AccessEngine) -> None:
    (warning,) = action_warnings(engine.indexes, BLOB_READ, False)
    assert "is a data action in the estate's roles" in warning and "--data-action" in warning
    (warning,) = action_warnings(engine.indexes, VM_WRITE, True)
    assert "is a control-plane action" in warning
    assert action_warnings(engine.indexes, BLOB_READ, True) == ()


def test_attributes_no_condition_reads_warn(engine: AccessEngine) -> None:
    request = _request(
        GUID,
        BLOB_READ,
        RG,
        dataAction=True,
        attributes={
            NAME_KEY.lower(): "logs",  # keys compare ignoring case
            "@Environment[UtcNow]": "2026-11-21T10:00:00Z",
            "name": "logs",
        },
    )
    decision = engine.check(request, warn=True)
    assert decision.decision == "allowed"
    assert decision.warnings == (
        "attribute '@Environment[UtcNow]' is read by no condition on the request's path (the "
        "role assignments of the principal and its groups and the deny assignments at the scope "
        "or above), so it does not change the answer",
        "attribute 'name' is not an attribute reference: keys are written as conditions write "
        "them (@Request[...], @Resource[...], @Principal[...] or @Environment[...])",
    )
    # alice's path holds no condition: the same key is unused there
    other = _request("alice", BLOB_READ, RG, dataAction=True, attributes={NAME_KEY: "logs"})
    assert len(engine.warnings(other)) == 1


def test_warnings_come_in_order_and_only_when_asked(engine: AccessEngine) -> None:
    request = _request(UNKNOWN_GUID, "Cloud.Nope/things/write", "/subscriptions/zz")
    kinds = [w.split(" ")[0] for w in request_warnings(engine.indexes, request)]
    assert kinds == ["unknown", "scope", "action"]
    assert engine.check(request).warnings == ()
    assert decide(engine.indexes, request).warnings == ()
    assert list(engine.check_many([request])) == [decide(engine.indexes, request)]


def test_batches_carry_the_same_warnings(engine: AccessEngine) -> None:
    requests = [
        _request("alice", VM_WRITE, VM),
        _request(UNKNOWN_GUID, VM_WRITE, VM),
        _request("alice", "Cloud.Compute/virtualMachines/wirte", VM),
        _request(GUID, BLOB_READ, RG, dataAction=True, attributes={"@Environment[UtcNow]": "x"}),
        _request("alice", VM_WRITE, "/subscriptions/zz/resourceGroups/a"),
    ] * 3
    alone = [engine.check(r, warn=True) for r in requests]
    assert [len(d.warnings) for d in alone] == [0, 1, 1, 1, 1] * 3
    assert list(engine.check_many(requests, warn=True)) == alone
    for window in (1, 2, 4):
        assert list(engine.check_many(iter(requests), window=window, warn=True)) == alone
    stripped = [msgspec.structs.replace(d, warnings=()) for d in alone]
    assert stripped == [decide(engine.indexes, r) for r in requests]


def test_wire_forms_name_warnings_only_when_there_are_some(engine: AccessEngine) -> None:
    plain = engine.check(_request("alice", VM_WRITE, VM), warn=True)
    assert "warnings" not in plain.to_wire()
    assert json.loads(plain.to_json()) == plain.to_wire()
    warned = engine.check(_request(UNKNOWN_GUID, VM_WRITE, VM), warn=True)
    assert warned.to_wire()["warnings"] == list(warned.warnings)
    assert json.loads(warned.to_json()) == warned.to_wire()
    assert list(warned.to_wire()) == [*plain.to_wire(), "warnings"]


def test_who_and_what_warn(engine: AccessEngine) -> None:
    who = engine.who("Cloud.Compute/virtualMachnes/write", "/subscriptions/zz", warn=True)
    assert len(who.warnings) == 2 and who.to_wire()["warnings"] == list(who.warnings)
    assert "warnings" not in engine.who(VM_WRITE, VM, warn=True).to_wire()
    assert engine.who("x", "/subscriptions/zz").warnings == ()
    what = engine.what(UNKNOWN_GUID, "/subscriptions/zz", warn=True)
    assert [w.split(" ")[0] for w in what.warnings] == ["unknown", "scope"]
    assert "warnings" not in engine.what("alice", VM, warn=True).to_wire()


@settings(max_examples=40, deadline=None)
@given(estates(), st.lists(st.sampled_from(REQUESTS), max_size=30))
def test_warnings_never_change_an_answer(estate: Estate, requests: list[AccessRequest]) -> None:
    engine = estate.engine()
    warned = list(engine.check_many(requests, warn=True))
    assert [msgspec.structs.replace(d, warnings=()) for d in warned] == [
        decide(engine.indexes, r) for r in requests
    ]
    for request, decision in zip(requests, warned, strict=True):
        assert decision.warnings == engine.warnings(request)


# ------------------------------------------------------------------------------------- reasons


def test_a_false_condition_names_what_it_reads(engine: AccessEngine) -> None:
    decision = engine.check(_request(GUID, BLOB_READ, RG, dataAction=True, attributes={}))
    assert decision.decision == "notGranted"
    assert f"its condition, which reads {NAME_KEY} (not supplied), is false" in decision.reason
    other = engine.check(
        _request(GUID, BLOB_READ, RG, dataAction=True, attributes={NAME_KEY: "audit"})
    )
    assert f"which reads {NAME_KEY}, is false" in other.reason


def test_an_open_condition_names_what_it_needs(engine: AccessEngine) -> None:
    decision = engine.check(_request(GUID, BLOB_READ, RG, dataAction=True))
    assert decision.decision == "conditional"
    assert decision.reason.endswith(f"The answer depends on {NAME_KEY}.")


def test_an_unusable_condition_is_named_as_such() -> None:
    broken = COND[:-1]  # a parenthesis short
    eng = AccessEngine.from_snapshot(build(assignments=[ra("a", "u", BLOB_READER, RG,
                                                          condition=broken)]))  # fmt: skip
    decision = eng.check(_request("u", BLOB_READ, RG, dataAction=True, attributes={NAME_KEY: "x"}))
    assert decision.decision == "conditional"
    assert (
        "A condition cannot be used, so no attribute settles it: the condition does not parse"
        in (decision.reason)
    )
    assert eng.warnings(
        _request("u", BLOB_READ, RG, dataAction=True, attributes={NAME_KEY: 1})
    ) == (())  # the broken condition still names the attribute it would read


def test_a_deny_for_its_own_scope_only_is_named(engine: AccessEngine) -> None:
    delete = "Cloud.Compute/virtualMachines/delete"
    below = engine.check(_request("alice", delete, VM))
    assert below.decision == "allowed"
    assert (
        f"Deny assignment 'Only at rg' at {RG} does not apply: it applies only at its own scope "
        "(doNotApplyToChildScopes)."
    ) in below.reason
    assert engine.check(_request("alice", delete, RG)).decision == "denied"
    nobody = engine.check(_request("only-assigned", delete, VM))
    assert nobody.decision == "notGranted" and "'Only at rg'" in nobody.reason


def test_an_excluding_deny_is_named(engine: AccessEngine) -> None:
    decision = engine.check(_request("alice", VM_WRITE, VM))
    assert decision.decision == "allowed"
    assert (
        "Deny assignment 'Team excluded' at /subscriptions/sub-1 does not apply: it excludes "
        "group 'Platform Team' that the principal belongs to (excludePrincipals)."
    ) in decision.reason
    start = engine.check(_request(GUID, "Cloud.Compute/virtualMachines/start/action", VM))
    assert "'Bob excluded'" in start.reason and "it excludes the principal" in start.reason
    # a deny that names nobody the request concerns is not mentioned
    assert "does not apply" not in engine.check(_request("alice", BLOB_READ, VM)).reason


def test_several_skipped_denies_are_counted() -> None:
    eng = AccessEngine.from_snapshot(
        build(
            principals=[user("u")],
            assignments=[ra("a", "u", OWNER, SUB)],
            denies=[
                deny(f"d{i}", RG, actions=["*"], at_scope_only=True, name=f"n{i}") for i in range(3)
            ],
        )
    )
    reason = eng.check(_request("u", VM_WRITE, VM)).reason
    assert "'n0'" in reason and "(2 more deny assignments do not apply either)" in reason


@settings(max_examples=60, deadline=None)
@given(estates())
def test_skipped_denies_are_named_exactly_when_there_are_some(estate: Estate) -> None:
    """Brute force: a deny assignment at the scope or above that matches the operation and names
    one of the principal's identities, but sits above the scope with doNotApplyToChildScopes or
    excludes one of them, is named in the reason of every answer that is not a denial."""
    engine = estate.engine()
    ix = engine.indexes
    for request, decision in zip(REQUESTS, engine.check_many(REQUESTS), strict=True):
        if decision.decision == "denied":
            continue
        key = request.scope.rstrip("/").lower() or "/"
        chain = ix.scopes.chain(key)
        identities = ix.directory.identities(request.principalId.lower())
        skipped = [
            d
            for d in ix.denies
            if d.scope in chain
            and d.names(identities)
            and d.matching(request.action.lower(), request.dataAction)
            and ((d.at_scope_only and d.scope != key) or d.excludes(identities))
        ]
        assert ("does not apply" in decision.reason) == bool(skipped), (request, decision)


# ----------------------------------------------------------------------------- command line


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _check(snapshot: str, *args: str) -> list[str]:
    return ["access", "check", "--snapshot", snapshot, *args]


def test_cli_check_by_email_and_name(
    snapshot_file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(
        capsys, *_check(snapshot_file, "--principal", "ALICE@example.com", "--action", VM_WRITE,
                        "--scope", VM, "--format", "json"),
    )  # fmt: skip
    assert code == 0
    decision = json.loads(out)
    assert decision["principalId"] == "alice" and decision["decision"] == "allowed"
    assert "warnings" not in decision
    code, out, _ = _run(
        capsys, *_check(snapshot_file, "--principal", "aarcher@corp.example", "--action",
                        VM_WRITE, "--scope", VM),
    )  # fmt: skip
    assert code == 0 and out.startswith("ALLOWED  alice")
    assert "principal: 'aarcher@corp.example' is User 'Alice Archer', id alice" in out
    assert "(matched by user principal name)" in out


def test_cli_ambiguous_and_unknown_names(
    snapshot_file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--action", VM_WRITE, "--scope", VM]
    code, out, err = _run(capsys, *_check(snapshot_file, "--principal", "carol", *args))
    assert code == 2 and not out
    assert "--principal: the display name 'carol' belongs to 2 principals" in err
    assert "carol-1 (User, 'Carol')" in err and "Traceback" not in err
    code, _out, err = _run(capsys, *_check(snapshot_file, "--principal", "Mallory", *args))
    assert code == 2 and "no principal of the snapshot" in err
    code, out, err = _run(
        capsys, *_check(snapshot_file, "--principal", UNKNOWN_GUID, *args, "--format", "json")
    )
    assert code == 0 and not err
    assert json.loads(out)["warnings"][0].startswith(f"unknown principal '{UNKNOWN_GUID}'")


def test_cli_strict(snapshot_file: str, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--principal", "alice", "--scope", VM, "--strict"]
    code, out, err = _run(capsys, *_check(snapshot_file, *args, "--action", VM_WRITE))
    assert code == 0 and out.startswith("ALLOWED") and not err
    code, out, err = _run(
        capsys, *_check(snapshot_file, *args, "--action", "Cloud.Compute/virtualMachines/wirte")
    )
    assert code == 2 and out.startswith("ALLOWED")  # Contributor's "*" grants any text
    assert "warning: action 'Cloud.Compute/virtualMachines/wirte'" in out
    assert "--strict: the answer carries 1 warning" in err
    code, out, _ = _run(
        capsys,
        *_check(snapshot_file, "--principal", "alice", "--scope", VM, "--action", VM_WRITE,
                "--attribute", "@Environment[UtcNow]=2026-01-01T00:00:00Z"),
    )  # fmt: skip
    assert code == 0 and "warning: attribute '@Environment[UtcNow]' is read by no" in out


def test_cli_batch_warns_on_unknown_ids(
    snapshot_file: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    requests = tmp_path / "requests.jsonl"
    lines = [
        {"principalId": "alice", "action": VM_WRITE, "scope": VM},
        {"principalId": "alice@example.com", "action": VM_WRITE, "scope": VM},  # not resolved
        {"principalId": GUID, "action": BLOB_READ, "scope": RG},
    ]
    requests.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    code, out, _ = _run(
        capsys, *_check(snapshot_file, "--requests", str(requests), "--format", "json")
    )
    assert code == 0
    answers = [json.loads(line) for line in out.splitlines()]
    # the unknown id meets the deny assignment of every principal but the team; bob's Owner "*"
    # grants the data action's name as a control-plane action (hence the warning)
    assert [a["decision"] for a in answers] == ["allowed", "denied", "allowed"]
    assert "warnings" not in answers[0]
    assert answers[1]["warnings"][0].startswith("unknown principal 'alice@example.com'")
    assert "is a data action" in answers[2]["warnings"][0]
    code, out, err = _run(capsys, *_check(snapshot_file, "--requests", str(requests), "--strict"))
    assert code == 2 and out.count("warning:") == 2
    assert "--strict: 2 decisions of the batch carry warnings" in err


def test_cli_who_and_what(snapshot_file: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        capsys, "access", "who", "--snapshot", snapshot_file, "--action",
        "Cloud.Compute/virtualMachnes/write", "--scope", VM, "--format", "json",
    )  # fmt: skip
    assert code == 0 and "misspelt" in json.loads(out)["warnings"][0]
    code, out, err = _run(
        capsys, "access", "who", "--snapshot", snapshot_file, "--action", VM_WRITE,
        "--scope", "/subscriptions/elsewhere", "--strict",
    )  # fmt: skip
    assert code == 2 and "warning: scope '/subscriptions/elsewhere'" in out
    assert "--strict" in err
    code, out, _ = _run(
        capsys, "access", "what", "--snapshot", snapshot_file, "--principal", "Platform Team",
        "--format", "json",
    )  # fmt: skip
    assert code == 0 and json.loads(out)["principalId"] == "team"
    code, out, _ = _run(
        capsys, "access", "what", "--snapshot", snapshot_file, "--principal", "alice archer"
    )
    assert code == 0 and "What alice holds" in out and "matched by display name" in out
    code, out, _ = _run(
        capsys, "access", "what", "--snapshot", snapshot_file, "--principal", UNKNOWN_GUID,
        "--strict",
    )  # fmt: skip
    assert code == 2 and "warning: unknown principal" in out


def test_cli_gdpr_export_by_name(snapshot_file: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(
        capsys, "gdpr", "export", "--snapshot", snapshot_file, "--principal", "bob brennan"
    )
    assert code == 0 and "matched by display name" in err
    document = json.loads(out)
    assert document["subject"]["principalId"] == GUID
    assert [r["name"] for r in document["roleAssignments"]["asPrincipal"]] == ["a2", "a4"]
    code, out, err = _run(
        capsys, "gdpr", "export", "--snapshot", snapshot_file, "--principal", UNKNOWN_GUID
    )
    assert code == 0 and "warning:" in err and json.loads(out)["subject"]["inDirectory"] is False
    code, _out, err = _run(
        capsys, "gdpr", "export", "--snapshot", snapshot_file, "--principal", "carol"
    )
    assert code == 2 and "belongs to 2 principals" in err
    code, _out, err = _run(
        capsys, "gdpr", "export", "--snapshot", snapshot_file, "--principal", "x",
        "--email", "a@b.c",
    )  # fmt: skip
    assert code == 2 and "exactly one of --principal-id, --email and --principal" in err
