"""``auditor rules lint``: each class of mistake is reported with its file and 1-based line; the
shipped packs are clean."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from auditor._resources import data_dir
from auditor.audit.lint import lint_packs
from auditor.audit.packs import shipped_catalogue
from auditor.cli import main

GOOD = """version: 1
pack: acme
resourceType: Cloud.EventRouting/domains
rules:
  - id: ACME-001
    title: Domains keep TLS 1.2
    severity: low
    runsOn: [plan, estate]
    description: A domain that allows TLS below 1.2.
    predicate: "properties/minimumTlsVersionAllowed eq @settings/acmeTls"
    settings:
      acmeTls: {type: string, default: "1.2", description: The TLS version.}
    evidence: [properties/minimumTlsVersionAllowed]
    message: "Domain {resourceName} allows {properties/minimumTlsVersionAllowed} in {location}."
    passMessage: "Domain {resourceName} requires TLS {settings.acmeTls}."
    remediation: "Set minimumTlsVersionAllowed to {settings.acmeTls}."
    references: [ACME 2]
    examples:
      fail: [{name: d, location: westeurope, properties: {minimumTlsVersionAllowed: "1.0"}}]
      pass: [{name: d, location: westeurope, properties: {minimumTlsVersionAllowed: "1.2"}}]
"""


def _lint(tmp_path: Path, text: str) -> list[tuple[int, str]]:
    path = tmp_path / "pack.yaml"
    path.write_text(text, "utf-8")
    problems = lint_packs([path], known=shipped_catalogue().rules)
    assert all(p.file == str(path) for p in problems)
    return [(p.line, p.message) for p in problems]


def test_shipped_packs_are_clean() -> None:
    files = sorted(data_dir("rules").glob("*.yaml"))
    assert files and lint_packs(files, user=False) == []


def test_a_good_user_pack_is_clean(tmp_path: Path) -> None:
    assert _lint(tmp_path, GOOD) == []


@pytest.mark.parametrize(
    ("old", "new", "line", "words"),
    [
        (
            "    severity: low\n",
            "    severity: low\n    colour: red\n",
            8,
            "unknown field 'colour'",
        ),
        ("pack: acme\n", "pack: acme\nauthor: me\n", 3, "unknown field 'author'"),
        ("version: 1\n", "version: 2\n", 1, "version"),
        ("    title: Domains keep TLS 1.2\n", "", 5, "missing field 'title'"),
        ("severity: low", "severity: severe", 7, "severity"),
        ("runsOn: [plan, estate]", "runsOn: plan", 8, "runsOn"),
        ('eq @settings/acmeTls"', 'eqq @settings/acmeTls"', 10, "column 37 of the predicate"),
        ('eq @settings/acmeTls"', 'eq @settings/acmeTLS"', 10, "reads @settings/acmeTLS"),
        ("in {location}", "in {locaton}", 14, "{locaton}"),
        ("TLS {settings.acmeTls}.", "TLS {settings.tls}.", 15, "no setting 'tls'"),
        ('default: "1.2", ', "", 12, "setting 'acmeTls' has no default"),
        (
            '{type: string, default: "1.2"',
            '{type: integer, default: "1.2"',
            12,
            "expected an integer",
        ),
        ("id: ACME-001", "id: DOM-001", 5, "already defined in"),
        ("id: ACME-001", "id: acme-1", 5, "ABC-123"),
        ("fail: [{name: d,", "fail: [{estate: {}, name: d,", 19, "also names its resource"),
        ("      fail: [{name", "      fial: [{name", 19, "examples.fial"),
        (
            '    predicate: "properties/minimumTlsVersionAllowed eq @settings/acmeTls"\n',
            "    check: cluster-version\n",
            10,
            "check (code) is for the shipped packs only",
        ),
    ],
)
def test_each_mistake_with_its_line(
    tmp_path: Path, old: str, new: str, line: int, words: str
) -> None:
    assert old in GOOD
    found = _lint(tmp_path, GOOD.replace(old, new, 1))
    assert any(at == line and words in message for at, message in found), found


def test_missing_examples_and_clashes_within_the_files(tmp_path: Path) -> None:
    no_examples = GOOD.split("    examples:")[0]
    twice = no_examples + no_examples.split("rules:\n", 1)[1].replace("acmeTls", "acmeTls2")
    found = _lint(tmp_path, twice)
    assert (5, "no examples: give at least one failing and one passing example") in found
    assert any(at == 18 and "ACME-001 is already defined in" in m for at, m in found), found


def test_yaml_that_does_not_parse(tmp_path: Path) -> None:
    found = _lint(tmp_path, GOOD.replace("    title: Domains", "   title: [Domains"))
    assert len(found) == 1 and found[0][0] >= 5 and "YAML" in found[0][1]


def test_cli_exit_codes_and_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # no configuration file of the checkout is found
    folder = tmp_path / "packs"
    folder.mkdir()
    (folder / "acme.yaml").write_text(GOOD, "utf-8")
    assert main(["rules", "lint", str(folder)]) == 0
    assert "no problems found" in capsys.readouterr().out
    (folder / "acme.yaml").write_text(GOOD.replace("in {location}", "in {locaton}"), "utf-8")
    assert main(["rules", "lint", str(folder)]) == 2
    out = capsys.readouterr().out
    assert f"{folder / 'acme.yaml'}:14:5: ACME-001: message uses {{locaton}}" in out
    assert main(["rules", "lint", str(folder), "-o", "json"]) == 2
    doc = json.loads(capsys.readouterr().out)
    assert [(p["line"], p["rule"]) for p in doc["problems"]] == [(14, "ACME-001")]


def test_cli_lints_shipped_and_configured_packs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["rules", "lint"]) == 0
    capsys.readouterr()
    (tmp_path / "packs").mkdir()
    (tmp_path / "packs" / "acme.yaml").write_text(GOOD.replace("ACME-001", "DOM-004"), "utf-8")
    (tmp_path / "auditor.toml").write_text('rules = ["packs"]\n', "utf-8")
    assert main(["rules", "lint"]) == 2
    assert "DOM-004 is already defined in" in capsys.readouterr().out


def test_a_predicate_error_points_at_its_file_line_and_column(tmp_path: Path) -> None:
    quoted = tmp_path / "quoted.yaml"
    quoted.write_text(GOOD.replace("Allowed eq @", "Allowed eqq @"), "utf-8")
    block = tmp_path / "block.yaml"
    block.write_text(
        GOOD.replace(
            '    predicate: "properties/minimumTlsVersionAllowed eq @settings/acmeTls"\n',
            "    predicate: >-\n"
            "      properties/minimumTlsVersionAllowed ne null and\n"
            "      properties/minimumTlsVersionAllowed  eqq @settings/acmeTls\n",
        ),
        "utf-8",
    )
    (q,) = lint_packs([quoted], known=shipped_catalogue().rules)
    assert (q.line, q.column) == (10, 53)  # the quote at 16, then 36 characters
    assert "column 37 of the predicate" in q.message
    (b,) = lint_packs([block], known=shipped_catalogue().rules)
    assert (b.line, b.column) == (12, 44)  # whitespace runs read as one space
    assert "column 85 of the predicate" in b.message
