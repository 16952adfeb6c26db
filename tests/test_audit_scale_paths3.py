"""Differential tests of the reports' faster paths at scale (third part): the text report's
per-finding lines and its parts, and :func:`~auditor.audit.names.describer`, each against the
code it replaced, kept here as the oracle (and the run's names, read by both, against theirs)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.audit.findings import AuditResult, Finding, Findings, WaiverInfo
from auditor.audit.names import describe, describer, estate_names
from auditor.audit.runner import AuditOptions, audit_snapshot
from auditor.estate.snapshot import loads_snapshot
from auditor.report import text
from auditor.report.controls import control_lines
from auditor.report.text import _m, _places, _plain_lines, _t
from tests.report_fixtures import make_result
from tests.test_audit_scale_paths2 import _old_estate_names
from tests.test_rules_as_data import snapshots


def _old_plain_lines(result: AuditResult) -> Iterator[str]:
    """The text report's lines as made before (the oracle)."""
    lines = [text._header(result), text._summary_line(result), text._verdict(result), ""]
    place = _places(result)
    for title, items in text._groups(result):
        if not items:
            continue
        lines.append(f"{title} ({len(items)}):")
        for f in items:
            where = place(f)
            lines.append(
                f"  [{f.severity.upper()}] {_t(f.ruleId)}  {_t(f.resourceId)}"
                + (f"  ({where})" if where else "")
            )
            name = describe(f.resourceId, result.names)
            if name:
                lines.append(f"      = {_m(name)}")
            lines.append(f"      {_m(f.message)}")
            if f.waiver is not None:
                state = "EXPIRED " if f.waiver.expired else ""
                lines.append(
                    f"      {state}waiver {_t(f.waiver.id)} until {_t(f.waiver.expires)}: "
                    f"{_m(f.waiver.justification)}"
                )
            if f.status == "fail" and f.remediation:
                lines.append(f"      fix: {_m(f.remediation)}")
        lines.append("")
    access = text._access_changes(result)
    if access:
        lines.extend([*access, ""])
    for note_title, notes in text._notes(result):
        lines.append(f"{note_title} ({len(notes)}):")
        lines.extend(f"  {item}" for item in notes)
        lines.append("")
    lines.extend([*control_lines(result), ""] if result.controls else [])
    coverage = text._coverage(result)
    if coverage:
        lines.extend([*coverage, ""])
    yield from lines


# -- ids and names

SUBSCRIPTIONS = ["/subscriptions/Sub-1", "/SUBSCRIPTIONS/sub-1", "/subscriptions/sub-2"]
GROUPS = [
    "/providers/Cloud.Management/managementGroups/mg-a",
    "/providers/cloud.management/MANAGEMENTGROUPS/MG-A",
    "/providers/Other.Management/managementGroups/mg-b",
    "/providers/Cloud.Management/managementGroups",
]
TAILS = [
    "",
    "/",
    "/resourceGroups/rg-Edge",
    "/RESOURCEGROUPS/rg-edge/providers/Cloud.Web/sites/app",
    "/resourceGroups/rg-x/providers/Cloud.Authorization/roleAssignments/ra-1",
    "/providers/Cloud.Authorization/roleAssignments/ra-2",
    "/resourceGroups/",
    "/resourceGroups//resourceGroups/rg-2/x",
    "/resourceGroups/",
    "/re\u017fourcegroups/rg-long-s",  # a long s: the pattern matches it, lower-casing does not
    "/resourcegroups/\u0130stanbul/resourceGroups/rg-3",
    "/providers/x/\u212aeys/resourceGroups/rg-4",
]
ODD = [
    "",
    "/",
    "relative/id",
    "/providers/Cloud.Web/sites/x",
    "/subscriptions",
    "/subscriptions//x",
]

ids = st.one_of(
    st.builds(
        lambda top, tail: top + tail,
        st.sampled_from(SUBSCRIPTIONS + GROUPS),
        st.sampled_from(TAILS),
    ),
    st.sampled_from(ODD),
    st.text(alphabet="/aAsSrR-_.\u202e\x1b\u017f\u0130", max_size=30),
)
names_of = st.dictionaries(
    st.one_of(ids.map(str.lower), ids),
    st.sampled_from(["", "Payments prod", "Kofi \x1b[31m", "x" * 600]),
)


@settings(max_examples=300, deadline=None)
@given(names=names_of, resource_ids=st.lists(ids, max_size=12))
def test_describer_says_what_describe_says(names: dict[str, str], resource_ids: list[str]) -> None:
    """The describer (each top's name looked up once) gives describe's words for every id, the
    same id asked again included."""
    name_of = describer(names)
    for rid in [*resource_ids, *resource_ids]:
        assert name_of(rid) == describe(rid, names)


def test_describer_finds_resource_groups_as_the_pattern() -> None:
    """Every id of the lists above under a named subscription and management group: the
    describer's words are describe's (a resource group after an empty one, a long s that only
    the pattern matches, casings)."""
    names = {top.lower(): f"top {n}" for n, top in enumerate(SUBSCRIPTIONS + GROUPS)}
    names.update({(top + tail).lower(): "own" for top in SUBSCRIPTIONS[:1] for tail in TAILS})
    name_of = describer(names)
    every = [top + tail for top in SUBSCRIPTIONS + GROUPS for tail in TAILS] + ODD
    assert [name_of(rid) for rid in every] == [describe(rid, names) for rid in every]
    assert name_of("/subscriptions/sub-2/re\u017fourcegroups/rg-long-s").endswith("rg-long-s")


# -- the text report's lines

texts = st.one_of(
    st.sampled_from(["", "plain words", "a\nbreak", "\x1b[31mred", "bidi \u202e", "x" * 2_100]),
    st.text(max_size=40),
)


@st.composite
def results(draw: Any) -> AuditResult:
    """A result with failing, unknown, waived and baselined findings whose texts are short and
    long, printable and not, named and not, in several groups of severity and rule."""
    listed: list[Finding] = []
    for _ in range(draw(st.integers(0, 12))):
        status = draw(st.sampled_from(["fail", "unknown", "waived", "baselined"]))
        waiver = None
        if status == "waived" or draw(st.booleans()):
            waiver = WaiverInfo(
                draw(texts), "R", "x", draw(texts), draw(st.sampled_from(["2027-01-01", "\x07"])),
                expired=draw(st.booleans()),
            )  # fmt: skip
        listed.append(
            Finding(
                draw(st.sampled_from(["RBAC-001", "RBAC-003", "r\x1bule", "x" * 600])),
                draw(st.sampled_from(["critical", "high", "low"])),
                status,
                draw(st.one_of(ids, texts)),
                "Title",
                draw(texts),
                {},
                draw(texts),
                (),
                "fp",
                "type",
                draw(st.sampled_from([None, "snap.json"])),
                None,
                waiver,
            )
        )
    return AuditResult(
        findings=Findings(listed),
        rules=[],
        startedAt="s",
        finishedAt="f",
        target="snap.json",
        names=draw(names_of),
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(result=results())
def test_finding_lines_equal_those_made_before(result: AuditResult) -> None:
    """Each finding's lines (its head made once per severity and rule, inert's common case
    decided inline, the names by the describer) are those made before."""
    assert list(_plain_lines(result)) == list(_old_plain_lines(result))


def test_the_sample_reports_lines_equal_those_made_before(tmp_path: Path) -> None:
    """The report fixtures' result (waivers, baseline, a plan's lines) writes the same lines."""
    result = make_result(tmp_path)
    assert result.judged
    assert list(_plain_lines(result)) == list(_old_plain_lines(result))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=snapshots())
def test_a_runs_report_and_names_equal_those_made_before(doc: dict[str, Any]) -> None:
    """A whole run on a generated estate: the text report's lines and the names, the findings
    given twice over (several findings on one assignment), equal those made before."""
    snapshot = loads_snapshot(json.dumps(doc).encode(), source="generated.json")
    result = audit_snapshot(snapshot, AuditOptions())
    assert list(_plain_lines(result)) == list(_old_plain_lines(result))
    judged = [*result.judged, *result.judged]
    ids_ = [f.resourceId for f in judged]
    located = [(f.resourceId, f.location) for f in judged]
    got = estate_names(snapshot, ids_, located=located)
    assert list(got.items()) == list(_old_estate_names(snapshot, ids_, located=located).items())


def test_names_of_principals_named_and_not_equal_those_found_before() -> None:
    """Principals without a name, with an empty one, and given twice (identical copies) are
    named as before."""
    doc = {
        "principals": [
            {"id": "P-1", "type": "User", "displayName": "First"},
            {"id": "P-1", "type": "User", "displayName": "First"},
            {"id": "p-2", "type": "User"},
            {"id": "P-3", "type": "User", "displayName": ""},
            {"id": "p-4", "type": "User", "displayName": "Fourth"},
        ]
    }
    snapshot = loads_snapshot(json.dumps(doc).encode(), source="names.json")
    got = estate_names(snapshot)
    assert list(got.items()) == list(_old_estate_names(snapshot).items())
    assert got["p-1"] == "First" and "p-2" not in got and "p-3" not in got


# -- the text written in parts


def test_parts_across_blocks_join_as_the_lines(monkeypatch: Any) -> None:
    """Runs of line breaks alone across the 4,096-line blocks, at the end and in between, are
    written as the lines joined and stripped at the end."""
    for lines in (
        ["a", *[""] * 5_000, "b\n", *["\n"] * 4_095, "c", "", "\n"],
        [*[""] * 4_096, "a"],
        ["a", *[""] * 9_000],
        [""] * 3,
        [],
        [f"l{n}" if n % 7 else "" for n in range(12_000)],
    ):
        monkeypatch.setattr(text, "_plain_lines", lambda _result, lines=lines: iter(lines))
        result = AuditResult(findings=[], rules=[], startedAt="s", finishedAt="f", target="t")
        parts = list(text._plain_parts(result))
        assert "".join(parts) == "\n".join(lines).rstrip("\n") + "\n"
        if len(lines) == 12_000:
            assert len(parts) > 2  # written as it is made


def test_many_remediations_and_names_write_the_lines_made_before() -> None:
    """More distinct remediations than the writer keeps, each met twice, and long or unprintable
    names and ids: the lines made before."""
    listed = [
        Finding(
            f"R-{n % 3}",
            "high",
            "fail",
            f"/subscriptions/s-{n % 5}/resourceGroups/rg-{n}" + ("\x1b" if n % 7 == 0 else ""),
            "T",
            "m" * (n * 9 % 2_100),
            {},
            f"fix {n % 400}" + ("\u202e" if n % 11 == 0 else ""),
        )
        for n in range(900)
    ]
    names = {f"/subscriptions/s-{n}": f"sub {n}" for n in range(4)}
    names.update({f"/subscriptions/s-1/resourcegroups/rg-{n}": "x" * (n * 3) for n in range(900)})
    result = AuditResult(
        findings=Findings(listed), rules=[], startedAt="s", finishedAt="f", target="t", names=names
    )
    assert list(_plain_lines(result)) == list(_old_plain_lines(result))
