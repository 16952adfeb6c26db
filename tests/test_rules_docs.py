"""Rule documentation (issue 20, item 4): ``auditor rules show ID`` in text and JSON, the pages in
``docs/rules/`` generated from the packs and kept up to date, and SARIF ``helpUri`` at the page."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from auditor.audit.packs import shipped_catalogue
from auditor.audit.rule_docs import DOCS_URL_ENV, rule_page_url, rule_pages
from auditor.cli import main

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "rules"
KAFKA = ROOT / "tests" / "data" / "terraform" / "clusters" / "kafka.tf"


def test_the_checked_in_pages_are_up_to_date(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "rules"
    assert main(["rules", "docs", "--out", str(out)]) == 0
    assert "wrote" in capsys.readouterr().err
    fresh = {p.name: p.read_text(encoding="utf-8") for p in out.glob("*.md")}
    checked_in = {p.name: p.read_text(encoding="utf-8") for p in DOCS.glob("*.md")}
    stale = sorted(n for n in fresh.keys() | checked_in.keys() if fresh.get(n) != checked_in.get(n))
    assert not stale, f"run `auditor rules docs --out docs/rules`: {stale} differ"
    ids = {r.id for r in shipped_catalogue().rules}
    assert set(fresh) == {f"{i}.md" for i in ids} | {"README.md"}


def test_regenerating_removes_pages_of_rules_that_are_gone(tmp_path: Path) -> None:
    (tmp_path / "OLD-001.md").write_text("a rule that no longer exists\n")
    assert main(["rules", "docs", "--out", str(tmp_path)]) == 0
    assert not (tmp_path / "OLD-001.md").exists()


def test_every_page_has_its_sections_and_no_unfilled_setting() -> None:
    pages = rule_pages()
    for rule in shipped_catalogue().rules:
        page = pages[f"{rule.id}.md"]
        for heading in ("## What it checks", "## How to fix", "## Settings", "## References"):
            assert heading in page, (rule.id, heading)
        assert "{settings." not in page, rule.id
        assert f"[{rule.id}]({rule.id}.md)" in pages["README.md"]


def test_rules_show_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "show", "clu-010"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("CLU-010  ")
    for part in ("What it checks", "How to fix", "minPasswordLength: 10", "docs/rules/CLU-010.md"):
        assert part in out
    assert "{settings." not in out
    assert "at least 10 characters" in out  # the remediation's placeholder, filled


def test_rules_show_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "show", "CLU-010", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["id"] == "CLU-010" and doc["severity"] == "high"
    assert doc["settings"]["minPasswordLength"]["default"] == 10
    assert doc["remediation"] and doc["references"] and doc["description"]
    assert doc["page"] == "docs/rules/CLU-010.md"


@pytest.mark.parametrize("args", [["NOPE-001"], ["CLU-001", "--format", "yaml"]])
def test_rules_show_bad_input_is_exit_2(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rules", "show", *args]) == 2
    assert re.search(r"NOPE-001|--format", capsys.readouterr().err)


def test_page_urls_need_an_absolute_base() -> None:
    assert rule_page_url("CLU-001", "https://x.example/docs/rules") == (
        "https://x.example/docs/rules/CLU-001.md"
    )
    assert rule_page_url("CLU-001", "docs/rules/") is None
    assert rule_page_url("CLU-001", "") is None


def test_sarif_help_uri_points_at_the_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "auditor.toml").write_text("")  # no configuration found above tmp dirs
    schema = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())
    monkeypatch.setenv(DOCS_URL_ENV, "https://example.org/auditor/docs/rules/")
    main(["gate", str(KAFKA), "-q", "-o", "sarif=with.sarif"])
    sarif = json.loads((tmp_path / "with.sarif").read_text())
    jsonschema.validate(sarif, schema)
    rules = sarif["runs"][0]["tool"]["driver"]["rules"]
    assert rules
    for rule in rules:
        assert rule["helpUri"] == f"https://example.org/auditor/docs/rules/{rule['id']}.md"
    monkeypatch.delenv(DOCS_URL_ENV)
    main(["gate", str(KAFKA), "-q", "-o", "sarif=without.sarif"])
    plain = json.loads((tmp_path / "without.sarif").read_text())
    jsonschema.validate(plain, schema)
    assert all(
        "docs/rules" not in r.get("helpUri", "")
        for r in plain["runs"][0]["tool"]["driver"]["rules"]
    )
    capsys.readouterr()
