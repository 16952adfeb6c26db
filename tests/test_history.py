"""The audit history (``auditor/history``, ``auditor history ...``, ``--history``, ``--fail-on-new``):
concurrent writers, diff semantics on hand-built run sequences, the mirror property, the schema
migration from version 1, no secret in the file, bad files, prune, the commands in both formats."""

from __future__ import annotations

import json
import multiprocessing
import re
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.audit.findings import AuditResult, Finding, RuleInfo, WaiverInfo
from auditor.cli import main
from auditor.estate.sample import (
    SAMPLE_API_TOKEN,
    STRONG_LITERAL_PASSWORD,
    sample_plans,
    sample_snapshot_bytes,
    sample_snapshot_json,
)
from auditor.history import History, RunState, Target, compare, estate_key, record_run
from auditor.history.record import id_ranges, scan, snapshot_subscriptions
from auditor.history.schema import APPLICATION_ID, SCHEMA_VERSION, migrate

TARGET = Target("tenant:t subscriptions:s", "snapshot", "estate.json")
RULES = [
    RuleInfo(rid, f"title {rid}", "high", "Cloud.X/things", ("estate",), remediation=f"fix {rid}")
    for rid in ("R-1", "R-2", "R-3")
]


def finding(
    n: int,
    severity: str = "high",
    status: str = "fail",
    rule: str = "R-1",
    waiver: WaiverInfo | None = None,
) -> Finding:
    return Finding(
        ruleId=rule,
        severity=severity,  # type: ignore[arg-type]
        status=status,  # type: ignore[arg-type]
        resourceId=f"/subscriptions/sub-{n % 2}/things/t{n}",
        title=f"title {rule}",
        message=f"thing {n} is wrong",
        evidence={"n": n, "why": ["a", "b"]},
        fingerprint=f"fp-{rule}-{n}",
        resourceType="Cloud.X/things",
        source="estate.json",
        location=f"things[{n}]",
        waiver=waiver,
    )


def result(
    findings: Sequence[Finding],
    *,
    rules: Sequence[RuleInfo] = RULES,
    started: str = "2026-11-21T10:00:00Z",
    applied: Sequence[WaiverInfo] = (),
    stale: Sequence[WaiverInfo] = (),
    expired: Sequence[WaiverInfo] = (),
    incomplete: Sequence[str] = (),
) -> AuditResult:
    return AuditResult(
        findings=list(findings),
        rules=list(rules),
        startedAt=started,
        finishedAt=started,
        target="estate.json",
        waivers=list(applied),
        staleWaivers=list(stale),
        expiredWaivers=list(expired),
        incomplete=list(incomplete),
    )


def waiver(wid: str, expired: bool = False) -> WaiverInfo:
    return WaiverInfo(wid, "R-3", "/subscriptions/*", "reviewed", "2027-01-01", expired)


def fps(findings: Sequence[dict[str, Any]]) -> list[str]:
    return sorted(f["fingerprint"] for f in findings)


@pytest.fixture(autouse=True)
def _no_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no auditor.toml / pyproject.toml above tmp dirs


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("history-inputs")
    out = {"snapshot": root / "snapshot.json"}
    out["snapshot"].write_bytes(sample_snapshot_bytes())
    for name, doc in sample_plans().items():
        out[name] = root / f"{name}.json"
        out[name].write_text(json.dumps(doc))
    changed = sample_snapshot_json()
    for domain in changed["domains"]:
        if domain["name"] == "dom-orders":
            domain["properties"]["publicNetworkAccess"] = "Enabled"  # new DOM-001, DOM-002
    out["changed"] = root / "changed.json"
    out["changed"].write_text(json.dumps(changed))
    return out


# --- two writers at once --------------------------------------------------------------------------

_RUNS_EACH = 12


def _writer(path: str, which: int, barrier: Any) -> None:
    shared = [finding(n) for n in range(150)]  # content both writers share
    own = [finding(1000 * which + n, rule="R-2") for n in range(150)]
    barrier.wait()
    for i in range(_RUNS_EACH):
        record_run(path, result([*shared, *own[i:]]), target=TARGET)


def test_two_processes_recording_at_once_do_not_corrupt_the_file(tmp_path: Path) -> None:
    path = str(tmp_path / "history.db")
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(2)
    procs = [ctx.Process(target=_writer, args=(path, w, barrier)) for w in (1, 2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0]
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
    with History(path) as h:
        runs = h.runs()
        assert len(runs) == 2 * _RUNS_EACH
        counts = sorted(len(h.findings(r.id)) for r in runs)
    assert counts == sorted([300 - i for i in range(_RUNS_EACH)] * 2)


# --- diff semantics -------------------------------------------------------------------------------


@pytest.fixture()
def sequence(tmp_path: Path) -> tuple[str, list[int]]:
    """Four runs of one target:

    1. A (high), B (medium), C (low), W waived by W-1, U unknown; R-3 runs.
    2. A fixed, B raised to high, D new, W-1 expired (W fails), W-2 added (stale), U fails now
       (unknown before: neither new nor fixed), C stays.
    3. A back (regressed), D fixed.
    4. R-1 not run: nothing of R-1 is fixed; C is unknown: not fixed.
    """
    path = str(tmp_path / "history.db")
    a, b, c = finding(1), finding(2, "medium"), finding(3, "low", rule="R-3")
    w = finding(4, rule="R-3", status="waived", waiver=waiver("W-1"))
    u = finding(5, rule="R-2", status="unknown")
    d = finding(6, rule="R-2")
    b_high, w_fail, u_fail = finding(2, "high"), finding(4, rule="R-3"), finding(5, rule="R-2")
    runs = [
        result([a, b, c, w, u], applied=[waiver("W-1")]),
        result(
            [b_high, c, w_fail, u_fail, d], expired=[waiver("W-1", True)], stale=[waiver("W-2")]
        ),
        result([a, b_high, c, w_fail, u_fail], stale=[waiver("W-2")]),
        result(
            [finding(3, "low", rule="R-3", status="unknown"), u_fail],
            rules=RULES[1:],
            stale=[waiver("W-2")],
        ),
    ]
    for i, run in enumerate(runs):
        run.startedAt = run.finishedAt = f"2026-11-{21 + i}T10:00:00Z"
    ids = [record_run(path, r, target=TARGET) for r in runs]
    return path, ids


def test_diff_new_fixed_severity_and_waivers(sequence: tuple[str, list[int]]) -> None:
    path, (r1, r2, _r3, _r4) = sequence
    with History(path) as h:
        doc = h.diff(r1, r2).to_json()
    assert list(doc) == [
        "runA",
        "runB",
        "new",
        "fixed",
        "regressed",
        "severityChanged",
        "waiversExpired",
        "waiversAdded",
    ]
    assert doc["runA"]["id"] == r1 and doc["runB"]["id"] == r2
    assert fps(doc["new"]) == ["fp-R-2-6"]  # U was unknown, not judged: not new
    assert fps(doc["fixed"]) == ["fp-R-1-1"]
    assert doc["regressed"] == []
    [changed] = doc["severityChanged"]
    assert (changed["fingerprint"], changed["previousSeverity"], changed["severity"]) == (
        "fp-R-1-2",
        "medium",
        "high",
    )
    assert [(w["id"], w["before"], w["after"]) for w in doc["waiversExpired"]] == [
        ("W-1", "applied", "expired")
    ]
    assert [(w["id"], w["before"], w["after"]) for w in doc["waiversAdded"]] == [
        ("W-2", "absent", "stale")
    ]
    fixed = doc["fixed"][0]  # a finding as in contracts section 6, from the run it was in
    assert fixed["title"] == "title R-1" and fixed["remediation"] == "fix R-1"
    assert fixed["resourceType"] == "Cloud.X/things" and fixed["evidence"] == {
        "n": 1,
        "why": ["a", "b"],
    }
    assert fixed["source"] == {"file": "estate.json", "address": "things[1]"}


def test_diff_regressed_and_rules_not_judged(sequence: tuple[str, list[int]]) -> None:
    path, (r1, r2, r3, r4) = sequence
    with History(path) as h:
        third = h.diff(r2, r3).to_json()
        fourth = h.diff(r3, r4).to_json()
        default = h.diff().to_json()
        since_last = h.since_last()
        from_first = h.diff(r1).to_json()
        since = h.diff(since="2026-11-22").to_json()
    assert fps(third["new"]) == ["fp-R-1-1"] and fps(third["regressed"]) == ["fp-R-1-1"]
    assert fps(third["fixed"]) == ["fp-R-2-6"]
    # run 4 did not run R-1 and could not judge C: neither is fixed
    assert fps(fourth["fixed"]) == ["fp-R-3-4"]
    assert fourth["new"] == [] and fourth["waiversExpired"] == []
    assert default["runA"]["id"] == r3 and default["runB"]["id"] == r4
    assert since_last is not None and since_last.runA.id == r3
    assert from_first["runA"]["id"] == r1 and from_first["runB"]["id"] == r4
    assert (since["runA"]["id"], since["runB"]["id"]) == (r2, r4)


def test_diff_both_ways_is_a_mirror_on_the_database(sequence: tuple[str, list[int]]) -> None:
    path, (r1, r2, _r3, _r4) = sequence
    with History(path) as h:
        ab, ba = h.diff(r1, r2).to_json(), h.diff(r2, r1).to_json()
    assert fps(ab["new"]) == fps(ba["fixed"]) and fps(ab["fixed"]) == fps(ba["new"])
    assert [(f["previousSeverity"], f["severity"]) for f in ab["severityChanged"]] == [
        (f["severity"], f["previousSeverity"]) for f in ba["severityChanged"]
    ]
    assert [w["id"] for w in ab["waiversExpired"]] == [w["id"] for w in ba["waiversAdded"]]


_STATUSES = st.sampled_from(["fail", "waived", "baselined", "unknown"])


@st.composite
def run_states(draw: st.DrawFn, run_id: int) -> RunState:
    fingerprints = draw(st.lists(st.sampled_from([f"f{i}" for i in range(12)]), unique=True))
    rules = draw(st.frozensets(st.sampled_from(["R-1", "R-2", "R-3"]), min_size=1))
    findings = {
        fp: (
            i,
            draw(st.sampled_from(sorted(rules))),
            draw(st.sampled_from(["critical", "high", "low"])),
            draw(_STATUSES),
        )
        for i, fp in enumerate(fingerprints)
    }
    waivers = {
        wid: {"id": wid, "state": draw(st.sampled_from(["applied", "stale", "expired"]))}
        for wid in draw(st.lists(st.sampled_from(["W-1", "W-2", "W-3"]), unique=True))
    }
    return RunState(run_id, findings, rules, waivers)


@settings(max_examples=200)
@given(a=run_states(1), b=run_states(2))
def test_diff_a_b_mirrors_diff_b_a(a: RunState, b: RunState) -> None:
    ab, ba = compare(a, b), compare(b, a)
    assert ab.new == ba.fixed and ab.fixed == ba.new
    assert ab.severityChanged == ba.severityChanged
    assert ab.waiversExpired == ba.waiversAdded and ab.waiversAdded == ba.waiversExpired
    assert not set(ab.new) & set(ab.fixed)


# --- schema and files -----------------------------------------------------------------------------


def test_a_version_1_file_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn, to=1)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    run_columns = (
        "command, started_at, finished_at, recorded_at, target, target_kind, target_name, "
        "complete, exit_code, tool_version, ruleset, summary, counts, settings, inputs, rules, "
        "waivers, warnings"
    )
    rules = json.dumps([r.to_json() for r in RULES])
    for started in ("2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"):
        conn.execute(
            f"INSERT INTO run ({run_columns}) VALUES "
            "('audit', ?, ?, ?, 't', 'snapshot', 'estate.json', 1, 1, '0.1', 'x', "
            "'{\"high\": 3}', '{}', '{}', '[]', ?, '[]', '{}')",
            (started, started, started, rules),
        )
    for fid in range(1, 8):
        conn.execute(
            "INSERT INTO finding (id, digest, fingerprint, rule_id, severity, status, "
            "resource_id) VALUES (?, ?, ?, 'R-1', 'high', 'fail', ?)",
            (fid, bytes([fid]), f"fp{fid}", f"/r/{fid}"),
        )
        conn.execute(
            "INSERT INTO finding_detail (id, message, evidence) VALUES (?, 'm', '{}')", (fid,)
        )
    members = {1: [1, 2, 3, 5], 2: [2, 3, 5, 6, 7]}
    for run_id, ids in members.items():
        conn.executemany("INSERT INTO run_finding VALUES (?, ?)", [(run_id, i) for i in ids])
    conn.close()

    with History(path) as h:
        assert h.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2
        ranges = h.conn.execute("SELECT run_id, first_id, last_id FROM run_range").fetchall()
        assert sorted(ranges) == [(1, 1, 3), (1, 5, 5), (2, 2, 3), (2, 5, 7)]
        assert sorted(f["fingerprint"] for f in h.findings(2)) == [
            "fp2",
            "fp3",
            "fp5",
            "fp6",
            "fp7",
        ]
        doc = h.diff(1, 2).to_json()
        tables = {r[0] for r in h.conn.execute("SELECT name FROM sqlite_master")}
    assert fps(doc["new"]) == ["fp6", "fp7"] and fps(doc["fixed"]) == ["fp1"]
    assert "run_finding" not in tables


def test_id_ranges() -> None:
    assert id_ranges([5, 1, 2, 3, 9, 8, 3]) == [(1, 3), (5, 5), (8, 9)]
    assert id_ranges([]) == []


def _foreign(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (x)")
    conn.commit()
    conn.close()


def _newer(path: Path) -> None:
    record_run(path, result([finding(1)]), target=TARGET)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda p: p.write_text("this is not a database, it is text\n" * 200), "not an auditor"),
        (_foreign, "not an auditor history database"),
        (_newer, "newer auditor"),
        (lambda p: p.write_bytes(b""), "an empty file"),
        (lambda p: None, "no such history file"),
        (lambda p: p.mkdir(), "not a regular file"),
    ],
    ids=["text", "foreign-sqlite", "newer-schema", "empty", "missing", "directory"],
)
@pytest.mark.parametrize("command", [["list"], ["show", "1"], ["diff"], ["prune", "--keep", "1"]])
def test_bad_history_files_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    make: Any,
    expected: str,
    command: list[str],
) -> None:
    path = tmp_path / "h.db"
    make(path)
    before = path.read_bytes() if path.is_file() else None
    code = main(["history", *command, "--history", str(path)])
    err = capsys.readouterr().err
    assert code == 2
    assert expected in err and str(path) in err and "Traceback" not in err
    if before is not None:
        assert path.read_bytes() == before  # a file that is not ours is never written


def test_audit_with_a_bad_history_exits_2_before_auditing(
    tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "h.db"
    _foreign(bad)
    code = main(["audit", "--snapshot", str(files["snapshot"]), "--history", str(bad)])
    captured = capsys.readouterr()
    assert code == 2 and "not an auditor history database" in captured.err
    assert captured.out == ""  # no report: the file was checked first
    code = main(["audit", "--snapshot", str(files["snapshot"]), "--fail-on-new"])
    assert code == 2 and "--fail-on-new needs a history" in capsys.readouterr().err


def test_a_run_that_fails_while_recording_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "h.db"
    record_run(path, result([finding(1)]), target=TARGET)

    def broken(ids: Any) -> Any:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr("auditor.history.record.id_ranges", broken)
    with pytest.raises(RuntimeError):
        record_run(path, result([finding(n) for n in range(2, 40)]), target=TARGET)
    with History(path) as h:
        assert [r.id for r in h.runs()] == [1]
        assert h.conn.execute("SELECT count(*) FROM finding").fetchone()[0] == 1


# --- recording real audits -------------------------------------------------------------------------


def test_no_secret_reaches_the_database(
    tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "h.db"
    for plan in ("risky-plan", "metastore-plan"):
        assert main(["gate", str(files[plan]), "--history", str(path), "-o", "json"]) == 1
    assert main(["audit", "--snapshot", str(files["snapshot"]), "--history", str(path)]) == 1
    capsys.readouterr()
    secrets = {STRONG_LITERAL_PASSWORD, SAMPLE_API_TOKEN, *_literal_secrets(sample_plans())}
    assert len(secrets) >= 5
    with History(path) as h:
        runs = h.runs()
        clu008 = [f for f in h.findings(runs[0].id) if f["ruleId"] == "CLU-008"]
        assert clu008 and all("literal value" in f["message"] for f in clu008)
    data = b"".join(p.read_bytes() for p in tmp_path.glob("h.db*"))
    assert b"CLU-008" in data
    for secret in secrets:
        assert secret.encode() not in data, f"a secret of {len(secret)} characters was stored"


def _literal_secrets(doc: Any) -> Iterator[str]:
    """Literal values under password, key and token fields of the sample plans (not references):
    passwords (weak ones too), storage keys, API tokens, key material."""
    if isinstance(doc, dict):
        for key, value in doc.items():
            if (
                isinstance(value, str)
                and re.search(r"password|key$|token", key, re.IGNORECASE)
                and len(value) >= 8
                and not value.startswith(("<", "${", "[", "@"))
            ):
                yield value
            else:
                yield from _literal_secrets(value)
    elif isinstance(doc, list):
        for item in doc:
            yield from _literal_secrets(item)


def test_record_keeps_summary_inputs_settings_and_pass_counts(
    tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    from auditor.audit.runner import AuditOptions, audit_snapshot
    from auditor.estate.snapshot import load_snapshot

    snapshot = load_snapshot(files["snapshot"])
    options = AuditOptions(use_config=False, checks=["RBAC-*", "DOM-*"])
    audited = audit_snapshot(snapshot, options, target=str(files["snapshot"]))
    path = tmp_path / "h.db"
    run_id = record_run(path, audited, options=options, snapshot=snapshot)
    assert sum(scan(audited.findings).passes.values()) == audited.summary()["passed"]
    with History(path) as h:
        doc = h.show(run_id)
        trend = h.trend()
    run = doc["run"]
    assert run["summary"] == audited.summary()
    assert run["target"] == estate_key(snapshot.tenantId, snapshot_subscriptions(snapshot))
    assert run["target"].startswith("tenant:") and "subscriptions:3:" in run["target"]
    [entry] = run["inputs"]
    import hashlib

    assert entry["sha256"] == hashlib.sha256(files["snapshot"].read_bytes()).hexdigest()
    assert run["settings"]["checks"] == ["RBAC-*", "DOM-*"]
    assert run["settings"]["rules"]["maxSubscriptionOwners"] == 3
    assert sum(p["passed"] for p in doc["passCounts"]) == audited.summary()["passed"]
    assert len(doc["findings"]) == sum(1 for f in audited.findings if f.status != "pass")
    assert {f["ruleId"][:3] for f in doc["findings"]} <= {"RBA", "DOM"}
    [point] = trend["runs"]
    assert point["bySeverity"]["high"] == audited.summary()["high"]
    by_rule = sum(n for counts in point["byRule"].values() for n in counts.values())
    assert by_rule == len(audited.failures)
    assert any(len(sub) == 36 for sub in point["bySubscription"])


def test_target_keys() -> None:
    assert estate_key("T", ["S2", "s1"]) == estate_key("t", ["s1", "s2"])
    assert estate_key("T", ["s1"]) == "tenant:t subscriptions:s1"
    assert estate_key(None, []) is None
    assert estate_key("T", ["s1", "s2"]) != estate_key("T", ["s1", "s3"])


# --- commands -------------------------------------------------------------------------------------


def test_commands_table_and_json(
    tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    h = str(tmp_path / "h.db")
    snapshot, changed = str(files["snapshot"]), str(files["changed"])
    assert main(["audit", "--snapshot", snapshot, "--history", h, "-o", "json"]) == 1
    assert main(["audit", "--snapshot", changed, "--history", h, "-o", "json"]) == 1
    capsys.readouterr()

    assert main(["history", "list", "--history", h, "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [list(r) for r in listed["runs"]] == [["id", "startedAt", "target", "summary"]] * 2
    assert listed["runs"][0]["target"] == listed["runs"][1]["target"]

    assert main(["history", "list", "--history", h]) == 0
    table = capsys.readouterr().out
    assert table.startswith("RUN") and "CRIT" in table and len(table.splitlines()) == 3

    assert main(["history", "diff", "--history", h, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [f["ruleId"] for f in doc["new"]] == ["DOM-001", "DOM-002"]
    assert all(f["resourceId"].endswith("/dom-orders") and f["fingerprint"] for f in doc["new"])
    assert doc["fixed"] == [] and doc["severityChanged"] == []

    assert main(["history", "diff", "--history", h]) == 0
    text = capsys.readouterr().out
    assert "new: 2" in text and "DOM-001" in text and "fixed: 0" in text

    assert main(["history", "show", "2", "--history", h, "--format", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["run"]["id"] == 2 and shown["run"]["inputs"][0]["file"] == changed
    assert main(["history", "show", "2", "--history", h]) == 0
    assert "run 2: audit of" in capsys.readouterr().out

    assert main(["history", "list", "--history", h, "--since", "2999-01-01"]) == 0
    assert "no run recorded since then" in capsys.readouterr().out
    assert main(["history", "show", "9", "--history", h]) == 2
    assert "no run 9" in capsys.readouterr().err
    assert main(["history", "diff", "x", "--history", h]) == 2
    assert "expected a run number" in capsys.readouterr().err


def test_fail_on_new_gates_on_what_is_new(
    tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    h = str(tmp_path / "h.db")
    snapshot, changed = str(files["snapshot"]), str(files["changed"])
    base = ["audit", "--history", h, "--fail-on-new", "-o", "json=" + str(tmp_path / "r.json")]
    # the target's first run: every failing finding is new
    assert main([*base, "--snapshot", snapshot]) == 1
    assert "new failing finding(s) at or above high since nothing" in capsys.readouterr().err
    assert main([*base, "--snapshot", snapshot]) == 0
    err = capsys.readouterr().err
    assert "exit 0: no new failing finding at or above high since run 1" in err
    assert main([*base, "--snapshot", changed]) == 1
    err = capsys.readouterr().err
    assert "2 new failing finding(s) at or above high since run 2" in err
    assert "new: high DOM-001" in err and "dom-orders" in err
    # a rule the last run did not run counts as new for the gate
    assert main([*base, "--snapshot", changed, "--skip-check", "DOM-001"]) == 0
    capsys.readouterr()
    assert main([*base, "--snapshot", changed]) == 1
    assert "3 new failing finding(s) at or above high since run 4" in capsys.readouterr().err


def test_gate_history_and_configured_history(
    tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "auditor.toml").write_text('history = "audits/h.db"\n')
    assert main(["gate", str(files["risky-plan"]), "-o", "json"]) == 1
    assert "recorded run 1 in" in capsys.readouterr().err
    assert (tmp_path / "audits" / "h.db").is_file()
    assert main(["history", "list", "--format", "json"]) == 0
    [run] = json.loads(capsys.readouterr().out)["runs"]
    assert run["target"] == f"plan:{files['risky-plan'].as_posix()}"


def test_prune(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "h.db"
    other = Target("other", "snapshot", "other.json")
    for n in range(4):
        record_run(path, result([finding(n), finding(100 + n)]), target=TARGET)
        record_run(path, result([finding(50 + n)], started="2020-01-01T00:00:00Z"), target=other)
    assert (
        main(["history", "prune", "--keep", "2", "--history", str(path), "--format", "json"]) == 0
    )
    assert json.loads(capsys.readouterr().out) == {
        "deleted": 4,
        "kept": 4,
        "bytes": path.stat().st_size,
    }
    with History(path) as h:
        assert [r.id for r in h.runs()] == [5, 6, 7, 8]
        stored = {r[0] for r in h.conn.execute("SELECT fingerprint FROM finding")}
    assert stored == {f"fp-R-1-{n}" for n in (2, 3, 102, 103, 52, 53)}
    assert main(["history", "prune", "--older-than", "365", "--history", str(path)]) == 0
    assert "deleted 2 run(s), kept 2" in capsys.readouterr().out
    with History(path) as h:
        assert [r.target for r in h.runs()] == [TARGET.key, TARGET.key]
    assert main(["history", "prune", "--history", str(path)]) == 2
    assert "give --keep N or --older-than DAYS" in capsys.readouterr().err


def test_incomplete_runs_are_marked_and_skipped_by_defaults(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    record_run(path, result([finding(1)]), target=TARGET)
    record_run(path, result([finding(2)]), target=TARGET)
    record_run(path, result([], incomplete=["snapshot: cut short"]), target=TARGET)
    with History(path) as h:
        assert [r.complete for r in h.runs()] == [True, True, False]
        assert h.run(3).exitCode == 3
        doc = h.diff().to_json()
    assert (doc["runA"]["id"], doc["runB"]["id"]) == (1, 2)
    assert fps(doc["new"]) == ["fp-R-1-2"] and fps(doc["fixed"]) == ["fp-R-1-1"]


def test_the_file_is_marked_as_ours(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    record_run(path, result([finding(1)]), target=TARGET)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    conn.close()


def test_evidence_of_any_shape_is_stored_as_json(tmp_path: Path) -> None:
    import dataclasses
    import datetime as dt

    odd = dataclasses.replace(
        finding(1), evidence={1: "one", "when": dt.date(2026, 1, 2), "big": 10**30, "set": {3}}
    )
    path = tmp_path / "h.db"
    run_id = record_run(path, result([odd]), target=TARGET)
    with History(path) as h:
        [stored] = h.findings(run_id)
    assert stored["evidence"] == {
        "1": "one",
        "when": "2026-01-02",
        "big": "1000000000000000000000000000000",
        "set": [3],
    }
