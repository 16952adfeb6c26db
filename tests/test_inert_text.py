"""Inert text everywhere (issue 16, item 6): escape sequences, window-title escapes, control
characters and bidi overrides and isolates from the estate are shown, never acted on, in every
output: the terminal (text report, rich tables, access and estate printing, error messages), HTML,
Markdown, CSV, PDF, SARIF, JUnit, JSON and the GDPR export; long values are bounded on the terminal.
"""

from __future__ import annotations

import csv
import dataclasses
import html
import io
import json
import re
import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from auditor.audit.findings import AccessSummary, AuditResult, EscalationPath, Privileged
from auditor.cli import _print_error, main
from auditor.estate.records import HierarchyRecord
from auditor.estate.snapshot import dump_snapshot
from auditor.inert import MESSAGE_LIMIT, inert, inert_json, inert_json_bytes, inert_message
from auditor.report import RenderOptions, render
from tests.report_fixtures import SUB_PROD, make_result
from tests.test_access_support import SUB, build, group, ra, role, user

Capsys = pytest.CaptureFixture[str]

# --- hostile text -------------------------------------------------------------------------------

SGR = "\x1b[31mRED\x1b[0m"
TITLE = "\x1b]0;pwned\x07"
LINK = "\x1b]8;;https://evil.invalid/\x1b\\click\x1b]8;;\x1b\\"
BIDI = "user\u202egnp.exe\u202c \u2066iso\u2069 \u200emark\u200f \u061calm \u202a\u202b\u202d"
CONTROLS = "nul\x00 bs\x08 cr\r del\x7f csi\x9b zw\u200bsp"
MARKUP = "[link=https://evil.invalid]x[/link] [bold red]loud[/]"
HOSTILE = f"{SGR} {TITLE} {LINK} {BIDI} {CONTROLS} {MARKUP}"
BIG = "A" * 400_000 + HOSTILE + "B" * 400_000
"""An 800 KB value with everything hostile in its middle."""

BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_RAW_IN_DOCUMENT = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b{BIDI_CONTROLS}]")
"""What no document may hold raw (tab, LF and CR may be layout)."""
_RAW_ON_TERMINAL = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b{BIDI_CONTROLS}\ud800-\udfff]")
"""What no terminal output may hold raw (a CR rewrites the line)."""

VISIBLE = ("\\x1b[31mRED", "\\x1b]0;pwned\\x07", "<U+202E>", "<U+2066>", "\\x00", "\\x9b")
"""How the hostile text shows once inert."""


def _raw(text: str, pattern: re.Pattern[str] = _RAW_IN_DOCUMENT) -> list[str]:
    return sorted({f"U+{ord(c):04X}" for c in pattern.findall(text)})


def _strings(value: object) -> list[str]:
    """Every string in a decoded JSON value, keys included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _shows_hostile(text: str) -> None:
    for form in VISIBLE:
        assert form in text, form


# --- the module ---------------------------------------------------------------------------------


def _acts(ch: str, keep: str = "") -> bool:
    """True for a character :func:`inert` must show rather than leave as it is."""
    if ch in keep or ch in "\u200c\u200d":
        return False
    return unicodedata.category(ch) in {"Cc", "Cf", "Cs", "Zl", "Zp"} or ch in "\ufffe\uffff"


def test_every_control_format_and_separator_character_is_shown() -> None:
    acting = [chr(c) for c in range(0x110000) if _acts(chr(c))]
    assert len(acting) > 200
    left = [f"U+{ord(c):04X}" for c in acting if inert(c) == c]
    assert left == []
    assert inert("\u200d\u200c") == "\u200d\u200c"  # emoji and scripts need the joiners


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[31mred", "\\x1b[31mred"),
        ("\x1b]0;title\x07", "\\x1b]0;title\\x07"),
        ("a\u202eb", "a<U+202E>b"),
        ("tab\tlf\ncr\r", "tab\\tlf\\ncr\\r"),
        ("\x9b\x7f\x00", "\\x9b\\x7f\\x00"),
        ("\U000e0041", "<U+E0041>"),
        ("\ud800", "<U+D800>"),
        ("Zoë 名前 🙂 👨\u200d👩\u200d👧", "Zoë 名前 🙂 👨\u200d👩\u200d👧"),
    ],
)
def test_inert_shows_what_acts(raw: str, shown: str) -> None:
    assert inert(raw) == shown


def test_keep_and_line_breaks() -> None:
    assert inert("a\r\nb\rc\td\n", keep="\t\n") == "a\nb\\rc\td\n"
    assert inert("a\r\nb", keep="\t\n\r") == "a\r\nb"


def test_limit_bounds_a_huge_value_quickly() -> None:
    shown = inert(BIG, limit=500)
    assert len(shown) == 500 and shown.endswith("…") and shown.startswith("AAAA")
    assert inert("x" * 10, limit=10) == "x" * 10
    # the escapes count: the result stays within the limit
    assert len(inert("\x1b" * 100, limit=10)) == 10


_SPECIAL = st.sampled_from(list("\x00\x1b\x07\r\n\t\x7f\x85\x9b\u200b\u200d\u2028\ufeff\ud800"))
_TEXT = st.text(alphabet=st.one_of(st.characters(), _SPECIAL, st.sampled_from(BIDI_CONTROLS)))


@given(_TEXT, st.sampled_from(["", "\t\n", "\t\n\r"]), st.none() | st.integers(1, 50))
def test_inert_properties(text: str, keep: str, limit: int | None) -> None:
    shown = inert(text, keep=keep, limit=limit)
    assert not [c for c in shown if _acts(c, keep)]
    if limit is not None:
        assert len(shown) <= limit
    else:
        assert inert(shown, keep=keep) == shown  # idempotent
    if limit is None and not any(_acts(c, keep) for c in text) and "\r\n" not in text:
        assert shown == text  # safe text is left alone


@given(_TEXT)
def test_inert_json_keeps_the_value_and_hides_nothing_raw(text: str) -> None:
    doc = json.dumps({"k": text, "l": [text]}, ensure_ascii=False)
    safe = inert_json(doc)
    assert json.loads(safe) == {"k": text, "l": [text]}
    assert not _raw(safe, _RAW_ON_TERMINAL) and "\u2028" not in safe


def test_inert_json_escapes_del_in_ascii_json() -> None:
    # JSON encoders leave DEL raw; an all-ASCII document takes the fast path
    assert inert_json_bytes(b'{"a":"x\x7fy"}') == b'{"a":"x\\u007fy"}'
    assert inert_json('"\x7f"') == '"\\u007f"'
    clean = b'{"a":"plain"}'
    assert inert_json_bytes(clean) is clean


def test_inert_message_bounds_and_keeps_the_caret() -> None:
    head = "filter syntax error at line 1, column 400008: unexpected input"
    source = "  " + "x" * 400_000 + "\x1b]0;t\x07" + "y" * 400_000
    caret = "  " + " " * 400_001 + "^"  # under the ']' after the ESC
    shown = inert_message(f"{head}\n{source}\n{caret}")
    assert len(shown) <= MESSAGE_LIMIT
    first, line, mark = shown.split("\n")
    assert first == head
    assert "\\x1b]0;t\\x07" in line and line.startswith("…") and line.endswith("…")
    assert line[mark.index("^")] == "]"
    assert not _raw(shown, _RAW_ON_TERMINAL)


def test_inert_message_caret_under_escapes_and_tabs() -> None:
    source = "  a\x1bb\tc\u202ed"
    caret = "     \t  ^"  # under the 'd'
    _, line, mark = inert_message(f"oops\n{source}\n{caret}").split("\n")
    assert line == "  a\\x1bb\tc<U+202E>d"
    assert line.expandtabs(8)[mark.expandtabs(8).index("^")] == "d"


# --- every report format --------------------------------------------------------------------------


def _hostile_result(folder: Path, big: str) -> AuditResult:
    """The renderers' sample result with hostile text in every place that comes from data."""
    result = make_result(folder)
    findings = list(result.findings)
    waived = next(i for i, f in enumerate(findings) if f.waiver is not None)
    w = findings[waived].waiver
    assert w is not None
    waiver = dataclasses.replace(w, id=f"W-{HOSTILE}", justification=HOSTILE)
    findings[waived] = dataclasses.replace(findings[waived], waiver=waiver)
    fails = [i for i, f in enumerate(findings) if f.status == "fail"]
    findings[fails[0]] = dataclasses.replace(
        findings[fails[0]],
        message=f"{HOSTILE} {big}",
        resourceId=f"{SUB_PROD}/resourceGroups/rg/providers/Cloud.EventRouting/domains/{HOSTILE}",
        remediation=HOSTILE,
        evidence={
            "displayName": HOSTILE,
            HOSTILE: ["list", HOSTILE],
            "description": f"<p>{HOSTILE}</p>",  # markup: cleaned by nh3, then shown
        },
        references=(HOSTILE, "https://example.invalid/\u202eevil"),
        location=f"domains[0].properties['{HOSTILE}']",
    )
    # a lone surrogate (json.loads of a plan lets one through): no encoder can write it raw
    findings[fails[1]] = dataclasses.replace(findings[fails[1]], message=f"{HOSTILE} \ud800")
    access = AccessSummary(
        privileged=[Privileged(SUB_PROD, f"u-{HOSTILE}", HOSTILE, "User", "Owner", (HOSTILE,))],
        escalations=[
            EscalationPath("u-x", HOSTILE, SUB_PROD, (("principal", HOSTILE), ("group", HOSTILE)))
        ],
    )
    return dataclasses.replace(
        result,
        findings=findings,
        target=f"{result.target} {HOSTILE}",
        waivers=[waiver],
        incomplete=[f"https://api.invalid/{HOSTILE}"],
        baselineFixed=[HOSTILE],
        access=access,
    )


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> AuditResult:
    return _hostile_result(tmp_path_factory.mktemp("hostile"), BIG)


def test_text_report_is_inert_and_bounded(hostile: AuditResult) -> None:
    for compact in (False, True):
        text = render(hostile, "text", None, RenderOptions(compact=compact)).decode("utf-8")
        assert not _raw(text, _RAW_ON_TERMINAL)
        assert "\\x1b]0;pwned\\x07" in text
        assert len(text) < 50_000  # the 800 KB message is cut on the terminal
    _shows_hostile(render(hostile, "text").decode("utf-8"))


def test_rich_report_is_inert_and_reads_no_markup(hostile: AuditResult) -> None:
    from rich.console import Console

    from auditor.report.text import print_rich

    buf = io.StringIO()
    print_rich(hostile, Console(file=buf, force_terminal=True, color_system="truecolor", width=240))
    out = buf.getvalue()
    # rich's own styles are SGR sequences; nothing else may reach the terminal
    styles_removed = re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert not _raw(styles_removed, _RAW_ON_TERMINAL)
    assert "\x1b]" not in out and "\x1b[31mRED" not in out
    assert "\\x1b]0;pwned\\x07" in styles_removed and "<U+202E>" in styles_removed
    assert "[link=https://evil.invalid]" in styles_removed  # shown as text, not a hyperlink


def test_json_keeps_exact_values_as_escapes(hostile: AuditResult) -> None:
    data = render(hostile, "json").decode("utf-8")
    assert not _raw(data, _RAW_ON_TERMINAL) and "\\u202e" in data
    doc = json.loads(data)
    messages = [f["message"] for f in doc["findings"]]
    assert f"{HOSTILE} \ud800" in messages  # the machine-readable value is exact
    assert f"{HOSTILE} {BIG}" in messages


def test_sarif_shows_controls_in_message_text(hostile: AuditResult, tmp_path: Path) -> None:
    data = render(hostile, "sarif", None, RenderOptions(source_root=str(tmp_path))).decode()
    assert not _raw(data, _RAW_ON_TERMINAL)
    doc = json.loads(data)
    texts = [r["message"]["text"] for r in doc["runs"][0]["results"]]
    assert not [t for t in texts if _raw(t)]
    _shows_hostile("\n".join(texts))
    justifications = [
        s["justification"] for r in doc["runs"][0]["results"] for s in r.get("suppressions", [])
    ]
    assert any("<U+202E>" in j for j in justifications)


def test_junit_shows_controls(hostile: AuditResult) -> None:
    data = render(hostile, "junit").decode("utf-8")
    assert not _raw(data)
    root = ET.fromstring(data)
    messages = "\n".join(
        (e.get("message") or "") + (e.text or "") for e in root.iter() if e.tag == "failure"
    )
    _shows_hostile(messages)


def test_csv_shows_controls(hostile: AuditResult) -> None:
    data = render(hostile, "csv").decode("utf-8-sig")
    assert not _raw(data)
    limit = csv.field_size_limit(2_000_000)  # the 800 KB message is one cell
    try:
        rows = list(csv.DictReader(io.StringIO(data, newline="")))
    finally:
        csv.field_size_limit(limit)
    cells = "\n".join(v for row in rows for v in row.values())
    _shows_hostile(cells)
    for row in rows:
        for value in row.values():
            assert not value.startswith(("=", "+", "-", "@", "\t", "\r"))


def test_markdown_shows_controls(hostile: AuditResult) -> None:
    from markdown_it import MarkdownIt

    md = render(hostile, "markdown").decode("utf-8")
    assert not _raw(md)
    shown = html.unescape(re.sub(r"<[^>]+>", "", MarkdownIt().render(md)))
    assert not _raw(shown)
    _shows_hostile(shown)


def test_html_shows_controls_and_holds_no_bidi_character(hostile: AuditResult) -> None:
    page = render(hostile, "html").decode("utf-8")
    assert not _raw(page)
    assert sum(page.count(c) for c in BIDI_CONTROLS) == 0
    text = html.unescape(page)
    _shows_hostile(text)
    assert "<U+202E>gnp.exe" in text  # the spoofed file name reads as what it is
    # in the evidence that was cleaned as HTML, and in the escalation graph's SVG labels too
    assert page.count("\\x1b]0;pwned\\x07") >= 5


def test_pdf_text_shows_controls(tmp_path: Path) -> None:
    from pypdf import PdfReader

    # the layout of an 800 KB message is the PDF renderer's budget, not this test's subject
    result = _hostile_result(tmp_path, "A" * 2_000)
    data = render(result, "pdf", None, RenderOptions(pdf_timeout=120))
    reader = PdfReader(io.BytesIO(data))
    text = "\n".join(page.extract_text() or "" for page in reader.pages)
    assert not _raw(text)
    assert "U+202E" in text and "x1b]0;pwned" in text


def test_gdpr_pdf_and_template_values_are_inert() -> None:
    from pypdf import PdfReader

    from auditor.report.pdf import render_gdpr_pdf

    export = {
        "subject": {"displayName": HOSTILE, "id": "u-1"},
        "roleAssignments": [{"id": f"ra-{HOSTILE}", "scope": SUB, "role": HOSTILE}],
        "notes": [HOSTILE],
    }
    reader = PdfReader(io.BytesIO(render_gdpr_pdf(export, timeout=120)))
    text = "\n".join(page.extract_text() or "" for page in reader.pages)
    assert not _raw(text)
    assert "U+202E" in text and "x1b]0;pwned" in text


# --- the command line ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile_snapshot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    guid = "0d1e5f1a-0000-4000-8000-00000000beef"
    snapshot = build(
        principals=[
            user("alice", "team", name=HOSTILE, email="shared@example.com"),
            user("mallory", name=BIG, email="shared@example.com"),
            group("team", name=f"team {HOSTILE}"),
        ],
        roles=[role(guid, f"Role {HOSTILE}", ["Cloud.Compute/*"])],
        assignments=[
            ra("a1", "team", guid, SUB, principal_type="Group"),
            ra(f"a2-{HOSTILE}", "alice", guid, SUB),
        ],
    )
    snapshot.hierarchy = [
        HierarchyRecord(id=h.id, parent=h.parent, displayName=HOSTILE if h.id == SUB else None)
        for h in snapshot.hierarchy
    ]
    path = tmp_path_factory.mktemp("cli") / "snapshot.json"
    dump_snapshot(snapshot, path)
    return path


def _run(capsys: Capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "argv",
    [
        ["access", "what", "--principal", "alice"],
        ["access", "who", "--action", "Cloud.Compute/virtualMachines/write", "--scope", SUB],
        ["access", "check", "--principal", "alice", "--action", "Cloud.Compute/x/write",
         "--scope", SUB],
        ["estate", "show"],
        ["query", "role-assignments"],
    ],
)  # fmt: skip
def test_terminal_printing_is_inert(
    capsys: Capsys, hostile_snapshot: Path, argv: list[str]
) -> None:
    where = (
        ["--snapshot", str(hostile_snapshot)] if argv[0] != "estate" else [str(hostile_snapshot)]
    )
    code, out, err = _run(capsys, *argv, *where)
    assert code == 0, err
    assert not _raw(out, _RAW_ON_TERMINAL) and not _raw(err, _RAW_ON_TERMINAL)
    assert "x1b" in out and ("<U+202E>" in out or "U+202E" in out.replace("\n", ""))
    if argv[:2] == ["access", "what"]:
        assert "Role \\x1b[31mRED" in out and "team \\x1b[31mRED" in out
        assert "[link=https://evil.invalid]" in out  # shown as text, not as rich markup
    if argv[:2] == ["access", "who"]:
        assert len(out) < 20_000  # mallory holds nothing here; alice's name is shown, inert


@pytest.mark.parametrize(
    "argv",
    [
        ["access", "who", "--action", "Cloud.Compute/virtualMachines/write", "--scope", SUB,
         "--format", "json"],
        ["access", "what", "--principal", "alice", "--format", "json"],
        ["gdpr", "export", "--principal-id", "alice"],
        ["query", "role-assignments", "--format", "json"],
        ["estate", "show", "--format", "json"],
    ],
)  # fmt: skip
def test_json_printing_keeps_values_as_escapes(
    capsys: Capsys, hostile_snapshot: Path, argv: list[str]
) -> None:
    where = (
        ["--snapshot", str(hostile_snapshot)] if argv[0] != "estate" else [str(hostile_snapshot)]
    )
    code, out, err = _run(capsys, *argv, *where)
    assert code == 0, err
    assert not _raw(out, _RAW_ON_TERMINAL) and "\\u202e" in out
    assert any(HOSTILE in value for value in _strings(json.loads(out)))  # exact values


def test_access_check_batch_json_lines_are_inert(
    capsys: Capsys, hostile_snapshot: Path, tmp_path: Path
) -> None:
    requests = tmp_path / "requests.jsonl"
    line = {"principalId": HOSTILE, "action": "Cloud.Compute/x/write", "scope": SUB}
    requests.write_text(json.dumps(line) + "\n" + json.dumps({**line, "principalId": "alice"}))
    code, out, err = _run(
        capsys, "access", "check", "--snapshot", str(hostile_snapshot), "--requests",
        str(requests), "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    assert not _raw(out, _RAW_ON_TERMINAL)
    decisions = [json.loads(x) for x in out.splitlines()]
    assert [d["principalId"] for d in decisions] == [HOSTILE, "alice"]


def test_an_error_quoting_hostile_text_is_inert_and_bounded(capsys: Capsys, tmp_path: Path) -> None:
    # a plan request to an unknown URL: the refusal quotes the URL, 800 KB of it
    url = f"/subscriptions/s/resourceGroups/r/providers/Cloud.Evil/{TITLE}{HOSTILE}{BIG}"
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"planVersion": 1, "requests": [
        {"method": "PUT", "url": url, "body": {}}]}))  # fmt: skip
    code, out, err = _run(capsys, "gate", str(plan))
    assert code == 2 and out == ""
    assert err.startswith("auditor: error: ") and "requests[0].url" in err
    assert not _raw(err, _RAW_ON_TERMINAL)
    assert "Cloud.Evil/\\x1b]0;" in err  # shown, and cut where the message's bound falls
    assert len(err) <= MESSAGE_LIMIT + 40


def test_an_error_naming_a_hostile_file_is_inert(capsys: Capsys, tmp_path: Path) -> None:
    name = tmp_path / "estate\x1b]0;pwned\x07\u202egnp.json"
    code, _, err = _run(capsys, "estate", "show", str(name))
    assert code == 2
    assert not _raw(err, _RAW_ON_TERMINAL)
    assert "estate\\x1b]0;pwned\\x07<U+202E>gnp.json" in err


def test_a_syntax_error_in_a_huge_filter_is_bounded_with_its_caret(capsys: Capsys) -> None:
    text = "name eq 'x' and " + "a" * 300_000 + " \x1b]0;t\x07 eq 1"
    code, _, err = _run(capsys, "filter", "check", text)
    assert code == 2
    assert len(err) <= MESSAGE_LIMIT + 40
    assert not _raw(err, _RAW_ON_TERMINAL)
    lines = err.rstrip("\n").split("\n")
    assert "^" in lines[-1]


def test_print_error_bounds_any_message(capsys: Capsys) -> None:
    _print_error(f"server said: {BIG}")
    err = capsys.readouterr().err
    assert len(err) <= MESSAGE_LIMIT + 40 and err.endswith("…\n")
    assert not _raw(err, _RAW_ON_TERMINAL)
