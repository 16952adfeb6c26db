"""TOK-001..TOK-006, the token-value definition, and the --as-of clock."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from auditor.audit.checks.secrets import is_token_value, scan_file, scan_json, scan_text
from tests.test_rules_helpers import domain_body, run_plan, run_snapshot, statuses

HEX40 = "5a3b1e0c7d9f4a2b8c6e0d1f3a5b7c9e1f2a4b6c"


def tokens(*items: dict[str, Any], user: str = "u-1") -> dict[str, Any]:
    return {"devTooling": {"user": {"id": user}, "apps": [], "tokens": list(items)}}


def tok(tid: str, **kw: Any) -> dict[str, Any]:
    return {
        "id": tid,
        "kind": "app",
        "app": "org/app",
        "accessType": "readOnly",
        "description": "Release pipeline upload",
        "createdAt": "2024-01-01T00:00:00Z",
        **kw,
    }


def test_tok001_clock() -> None:
    doc = tokens(tok("t1"))
    assert statuses(run_snapshot("TOK-001", doc, as_of=dt.date(2025, 3, 31))) == ["pass"]
    assert statuses(run_snapshot("TOK-001", doc, as_of=dt.date(2025, 4, 1))) == ["fail"]
    assert statuses(run_snapshot("TOK-001", doc, as_of=dt.date(2025, 1, 15))) == ["pass"]


def test_tok002_tok003() -> None:
    doc = tokens(tok("a", accessType="full"), tok("b"), tok("c", kind="user", app=None))
    assert statuses(run_snapshot("TOK-002", doc)) == ["fail", "pass", "pass"]
    assert statuses(run_snapshot("TOK-003", doc)) == ["pass", "pass", "fail"]
    assert run_snapshot("TOK-002", doc)[0].resourceId == "a"


@pytest.mark.parametrize(
    ("description", "ok"),
    [
        ("", False),
        (None, False),
        ("CI bot", False),
        ("token", False),
        (" TEST ", False),
        ("Default", False),
        ("Nightly build uploader", True),
        ("12345678", True),
    ],
)
def test_tok004_descriptions(description: str | None, ok: bool) -> None:
    doc = tokens(tok("a", description=description))
    assert statuses(run_snapshot("TOK-004", doc)) == (["pass"] if ok else ["fail"])


def test_tok005_limit() -> None:
    many = tokens(*(tok(f"t{i}") for i in range(4501)), user="acct")
    f = run_snapshot("TOK-005", many)
    assert [(x.status, x.resourceId) for x in f] == [("fail", "acct")]
    few = tokens(*(tok(f"t{i}") for i in range(4500)), user="acct")
    assert statuses(run_snapshot("TOK-005", few)) == ["pass"]
    assert statuses(run_snapshot("TOK-005", few, settings={"tokenLimitRatio": 0.5})) == ["fail"]


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        (HEX40, True),
        ("dGhpcyBpcyBhIGxvbmcgYmFzZTY0IHRva2Vu", True),
        ("<API_TOKEN>", False),
        ("${API_TOKEN}", False),
        ("$API_TOKEN", False),
        ("**********", False),
        ("short", False),
        ("has spaces in it and is long", False),
        (f"Bearer {HEX40}", True),
    ],
)
def test_token_value_definition(value: str, ok: bool) -> None:
    assert is_token_value(value) is ok


def test_scan_json_by_key_name() -> None:
    doc = {
        "a": {"X-API-Token": HEX40, "apiToken": "<API_TOKEN>", "name": HEX40},
        "l": [{"token": HEX40}],
    }
    assert [p for p, _ in scan_json(doc)] == ["a.X-API-Token", "l[0].token"]


def test_scan_text_and_files(tmp_path: Path) -> None:
    assert [w for w, _ in scan_text(f"export APP_TOKEN={HEX40}\nname={HEX40}\n")] == [
        "line 1 (APP_TOKEN)"
    ]
    env = tmp_path / "ci.env"
    env.write_text(f"X-API-Token: {HEX40}\n")
    assert len(scan_file(str(env))) == 1
    js = tmp_path / "c.json"
    js.write_text(json.dumps({"settings": {"apiToken": HEX40}}))
    assert [w for w, _ in scan_file(str(js))] == ["settings.apiToken"]


def test_tok006_plan_bodies_never_echo_the_value() -> None:
    body = domain_body()
    body["tags"] = {"deployToken": HEX40}
    findings = run_plan("TOK-006", ("domain", body), ("domain", domain_body()))
    assert statuses(findings) == ["fail", "pass"]
    assert findings[0].location == "requests[0].body.tags.deployToken"
    assert HEX40 not in json.dumps([f.to_json() for f in findings])
    assert "a literal value of 40 characters" in findings[0].message


def test_tok006_files_in_an_estate_audit(tmp_path: Path) -> None:
    from auditor.audit.engine import Engine
    from auditor.audit.packs import shipped_catalogue
    from auditor.audit.runner import effective_settings
    from auditor.estate.snapshot import loads_snapshot

    leaked = tmp_path / "pipeline.yaml"
    leaked.write_text(f"steps:\n  - env:\n      APPCENTER_TOKEN: {HEX40}\n")
    clean = tmp_path / "clean.yaml"
    clean.write_text("steps: []\n")
    cat = shipped_catalogue()
    engine = Engine(
        settings=effective_settings(cat),
        as_of=dt.date(2026, 1, 1),
        snapshot=loads_snapshot(b'{"snapshotVersion": 1}'),
        files=[str(leaked), str(clean)],
    )
    findings = engine.run([cat.by_id()["TOK-006"]]).findings
    assert [(f.status, f.resourceId) for f in findings] == [
        ("fail", str(leaked)),
        ("pass", str(clean)),
    ]
    assert HEX40 not in json.dumps([f.to_json() for f in findings])
