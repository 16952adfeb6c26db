"""Passes held compactly and the JSON and CSV written as a stream (issue 23, item 2).

The engine keeps a run's passes in :class:`~auditor.audit.findings.PassBlock` values; the JSON is
written a chunk at a time. Every output must be byte for byte what it was when every pass was a
:class:`~auditor.audit.findings.Finding` in one list: each test renders the same result both
ways (the run's :class:`~auditor.audit.findings.Findings`, and the plain list of its findings as
the reference) and compares.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.audit import limits
from auditor.audit.baseline import BaselineEntry, apply_baseline
from auditor.audit.engine import Engine
from auditor.audit.findings import (
    AuditResult,
    DeferredFingerprint,
    Finding,
    Findings,
    Located,
    PassBlock,
    count_passes,
    fingerprint,
    judged_findings,
    pass_counts,
)
from auditor.audit.runner import AuditOptions, audit_snapshot, prepare, sort_findings
from auditor.estate.generate import generate_estate
from auditor.estate.sample import sample_snapshot
from auditor.estate.snapshot import load_snapshot
from auditor.report import RenderOptions, render, stream, write
from auditor.report import json as json_report

AS_OF = dt.date(2026, 11, 21)
OPTIONS = AuditOptions(use_config=False, as_of=AS_OF)
FORMATS = ("text", "json", "sarif", "junit", "csv", "markdown", "html", "ocsf")


def _as_list(result: AuditResult) -> AuditResult:
    """The result as every renderer saw it before: every finding, passes too, in one list."""
    return dataclasses.replace(result, findings=list(result.findings))


@pytest.fixture(scope="module")
def sample() -> AuditResult:
    return audit_snapshot(sample_snapshot(), OPTIONS)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> AuditResult:
    """A generated estate whose snapshot merged a duplicate (findings name where entries were
    read: the relocated locations of bulk passes)."""
    folder = tmp_path_factory.mktemp("streaming")
    path = folder / "estate.json"
    generate_estate(300, seed=11, out=path, progress=False)
    doc = json.loads(path.read_bytes())
    doc["roleAssignments"].append(doc["roleAssignments"][3])  # merged on load
    path.write_text(json.dumps(doc))
    return audit_snapshot(load_snapshot(path), OPTIONS)


def test_a_run_holds_its_passes_in_blocks(sample: AuditResult) -> None:
    findings = sample.findings
    assert isinstance(findings, Findings)
    assert findings.blocks and all(f.status != "pass" for f in findings.listed)
    assert any(b.proto is not None for b in findings.blocks)  # bulk passes of named checks
    assert any(b.proto is None for b in findings.blocks)  # passes made when read
    assert sample.summary()["passed"] == findings.pass_count() == count_passes(findings)
    assert len(findings) == len(findings.listed) + findings.pass_count()


@pytest.mark.parametrize("which", ["sample", "generated"])
def test_json_stream_is_the_whole_document(
    which: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    result: AuditResult = request.getfixturevalue(which)
    before = json_report.render_document(_as_list(result))  # the document as it was written
    assert b"".join(json_report.chunks(result)) == before
    monkeypatch.setattr(json_report, "CHUNK", 7)  # chunk boundaries everywhere
    parts = list(json_report.chunks(result))
    assert len(parts) > 20
    assert b"".join(parts) == before
    doc = json.loads(before)
    assert doc["summary"]["passed"] == sum(1 for f in doc["findings"] if f["status"] == "pass")


def test_relocated_bulk_passes_name_where_they_were_read(generated: AuditResult) -> None:
    findings = generated.findings
    assert isinstance(findings, Findings)
    relocated = [b for b in findings.blocks if b.proto is not None and b.relocate is not None]
    assert relocated
    passes = list(relocated[0])
    assert passes[0].location is not None
    assert passes[0].fingerprint == fingerprint(passes[0].ruleId, passes[0].resourceId, "estate")


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_is_unchanged(fmt: str, sample: AuditResult, generated: AuditResult) -> None:
    for result in (sample, generated):
        before = render(_as_list(result), fmt, None, RenderOptions())
        assert render(result, fmt, None, RenderOptions()) == before
        assert b"".join(stream(result, fmt, RenderOptions())) == before


def test_html_with_every_pass_is_unchanged(generated: AuditResult) -> None:
    options = RenderOptions(include_passed=True)
    assert render(generated, "html", None, options) == render(
        _as_list(generated), "html", None, options
    )


def test_reports_that_count_passes_make_none(
    generated: AuditResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Text, SARIF, Markdown, OCSF and HTML count passes by block: at most the first pass of a
    block whose rule has no other finding is made (to name its rule)."""
    made: list[str] = []
    original = PassBlock.__iter__

    def counting(self: PassBlock) -> Iterator[Finding]:
        for f in original(self):
            made.append(f.ruleId)
            yield f

    monkeypatch.setattr(PassBlock, "__iter__", counting)
    findings = generated.findings
    assert isinstance(findings, Findings)
    for fmt in ("text", "sarif", "markdown", "ocsf", "html"):
        made.clear()
        render(generated, fmt, None, RenderOptions())
        assert len(made) <= len(findings.blocks), fmt
    made.clear()
    render(generated, "text", None, RenderOptions(compact=True))
    assert generated.summary()["passed"] > 1000
    assert not made


def test_json_and_csv_files_are_streamed(tmp_path: Path, sample: AuditResult) -> None:
    for fmt in ("json", "csv"):
        path = tmp_path / f"out.{fmt}"
        write(sample, fmt, path)
        assert path.read_bytes() == render(_as_list(sample), fmt)
    write(sample, "text", tmp_path / "out.txt")  # not streamed: written as before
    assert (tmp_path / "out.txt").read_bytes() == render(sample, "text")


def test_findings_read_like_a_list(sample: AuditResult) -> None:
    findings = sample.findings
    assert isinstance(findings, Findings)
    every = list(findings)
    assert findings == every and every == list(findings)
    assert findings != every[:-1]
    for index in (0, len(findings.listed), len(every) - 1, -1, -len(every)):
        assert findings[index] == every[index]
    assert findings[3:9] == every[3:9]
    with pytest.raises(IndexError):
        findings[len(every)]
    assert judged_findings(findings) == [f for f in every if f.status != "pass"]
    counts = pass_counts(findings)
    assert counts == pass_counts(every)
    assert list(counts) == list(pass_counts(every))  # the same order
    assert "passes in blocks" in repr(findings)


def test_an_empty_run_writes_an_empty_findings_array() -> None:
    result = AuditResult(findings=Findings([]), rules=[], startedAt="s", finishedAt="f", target="t")
    data = b"".join(json_report.chunks(result))
    assert b'"findings": [],' in data
    assert data == json_report.render_document(_as_list(result))


def test_lone_surrogates_are_written_as_before() -> None:
    """A plan read by json.loads may hold a lone surrogate: the whole document was then written
    through json.dumps; the stream writes the same bytes."""
    proto = Finding(
        "R-1", "low", "pass", "", "T", "ok", {}, "fix", (), DeferredFingerprint("plan"), "t", "p"
    )  # type: ignore[arg-type]
    block = PassBlock(
        "R-1",
        [("/a", "x[0]"), ("/b", "x[\ud800]"), ("/c", None)],
        types={"t": 3},
        proto=proto,
        source_kind="plan",
    )
    failing = Finding("R-2", "high", "fail", "/d", "T", "bad \ud800 value", {"v": "\ud800"})
    result = AuditResult(
        findings=Findings([failing], [block]), rules=[], startedAt="s", finishedAt="f", target="t"
    )
    before = json_report.render_document(_as_list(result))
    assert b"\\ud800" in before
    assert b"".join(json_report.chunks(result)) == before


def test_mixed_located_passes_keep_their_order() -> None:
    proto = Finding(
        "R-1", "low", "pass", "", "T", "ok", {}, "fix", (), DeferredFingerprint("estate"), "t", "f"
    )  # type: ignore[arg-type]
    items = [("/a", "x[0]"), ("/b", None), ("/c/", "x[2]"), ("", None), ('/q"\\', "x[4]")]
    block = PassBlock("R-1", items, types={"t": 5}, proto=proto)
    result = AuditResult(
        findings=Findings([], [block]), rules=[], startedAt="s", finishedAt="f", target="t"
    )
    assert b"".join(json_report.chunks(result)) == json_report.render_document(_as_list(result))
    assert [f.resourceId for f in result.findings] == [rid for rid, _ in items]


def test_a_scrubbed_block_masks_its_shared_texts() -> None:
    proto = Finding(
        "R-1", "low", "pass", "", "T", "has s3cret-value", {}, "fix", (),
        DeferredFingerprint("estate"), "t", "f",
    )  # type: ignore[arg-type]  # fmt: skip
    block = PassBlock("R-1", [("/a", None)], types={"t": 1}, proto=proto)
    masked = block.map(lambda f: dataclasses.replace(f, message=f.message.replace("s3cret", "*")))
    assert [f.message for f in masked] == ["has *-value"]
    lazy = PassBlock("R-1", [proto], types={"t": 1}).map(
        lambda f: dataclasses.replace(f, message="m")
    )
    assert [f.message for f in lazy] == ["m"]


def test_a_baseline_entry_that_now_passes_is_fixed(tmp_path: Path) -> None:
    """The runner applies the baseline to the listed findings; an entry whose resource a pass in
    a block judged is fixed, as when every pass was in the list."""
    snapshot = sample_snapshot()
    prep = prepare(OPTIONS)
    evaluation = Engine(settings=prep.settings, as_of=AS_OF, snapshot=snapshot).run(prep.rules)
    passing = next(iter(evaluation.findings.blocks[0]))
    failing = next(f for f in evaluation.findings.listed if f.status == "fail")
    entries = [
        BaselineEntry("a" * 32, passing.ruleId, passing.resourceId),
        BaselineEntry(failing.fingerprint, failing.ruleId, failing.resourceId),
        BaselineEntry("b" * 32, failing.ruleId, "/subscriptions/gone"),
    ]
    path = tmp_path / "baseline.json"
    path.write_text(
        json.dumps(
            {
                "baselineVersion": 1,
                "createdAt": "2026-11-21T00:00:00Z",
                "findings": [dataclasses.asdict(e) for e in entries],
            }
        )
    )
    result = audit_snapshot(snapshot, dataclasses.replace(OPTIONS, baseline=str(path)))
    reference = apply_baseline(list(evaluation.findings), entries, [r.id for r in prep.rules])
    assert result.baselineFixed == reference.fixed == ["a" * 32]
    assert result.baselineStale == reference.stale == ["b" * 32]
    assert sum(1 for f in result.findings if f.status == "baselined") == 1


def test_located_items_are_made_when_read() -> None:
    ids = ["/a", None, "/c", "/d"]
    items = Located(ids, "roleAssignments")
    every = [("/a", "roleAssignments[0]"), ("roleAssignments[1]", "roleAssignments[1]")]
    every += [("/c", "roleAssignments[2]"), ("/d", "roleAssignments[3]")]
    assert list(items) == every and len(items) == 4
    assert items[-1] == every[-1] and items[1:3] == every[1:3]
    some = items.subset([3, 1])
    assert list(some) == [every[3], every[1]] and some[0] == every[3]
    assert list(some.subset([1])) == [every[1]]
    assert items.subset([0, 1, 2, 3]).indexes is None  # every entry: no index array
    assert items.columns(1, 9) == (["roleAssignments[1]", "/c", "/d"], [e[1] for e in every[1:]])
    with pytest.raises(IndexError):
        some[2]


_LEAVES = (
    st.none()
    | st.integers()
    | st.text(max_size=8)
    | st.integers(0, 2_010).map(lambda n: "é" * n)  # around MAX_CHARS
)
_EVIDENCE = st.dictionaries(
    st.text(max_size=5),
    st.recursive(
        _LEAVES,
        lambda inner: st.lists(inner, max_size=55) | st.dictionaries(st.text(max_size=3), inner),
        max_leaves=60,
    ),
    max_size=20,
)


@settings(max_examples=40, deadline=None)
@given(evidence=_EVIDENCE)
def test_evidence_found_within_bounds_is_what_the_cutter_keeps(evidence: dict[str, object]) -> None:
    """``bound_evidence`` skips the cutter for evidence within the bounds: only where the cutter
    would cut and mask nothing."""
    cutter = limits._Cutter(())
    cutter.value(evidence, "")
    if limits._within(evidence):
        assert not cutter.items and not cutter.chars
        assert limits.bound_evidence(evidence) is evidence


def test_an_evaluation_keeps_the_order_rules_gave_their_findings() -> None:
    """A run's findings read in evaluation order (passes where they were found); the report
    order (passes last) is the runner's."""
    prep = prepare(OPTIONS)
    engine = Engine(settings=prep.settings, as_of=AS_OF, snapshot=sample_snapshot())
    findings = engine.run(prep.rules).findings
    assert not findings.passes_last
    expected = [f for rule in prep.rules if engine.applicable(rule) for f in engine.run_rule(rule)]
    assert [f.status for f in findings] == [f.status for f in expected]
    assert list(findings) == expected
    assert findings[len(findings) // 2] == expected[len(expected) // 2]
    assert list(pass_counts(findings)) == list(pass_counts(expected))
    doc = AuditResult(findings=findings, rules=[], startedAt="s", finishedAt="f", target="t")
    assert b"".join(json_report.chunks(doc)) == json_report.render_document(_as_list(doc))
    for fmt in ("sarif", "html", "text"):
        assert render(doc, fmt) == render(_as_list(doc), fmt), fmt


def test_sorting_keeps_passes_last_in_evaluation_order() -> None:
    def made(rule: str, status: str, rid: str) -> Finding:
        return Finding(rule, "high", status, rid, "T", "m", resourceType="t")  # type: ignore[arg-type]

    proto = made("R-2", "pass", "")
    block = PassBlock("R-2", [("/b1", None), ("/b2", None)], types={"t": 2}, proto=proto)
    listed = [made("R-1", "pass", "/a"), made("R-1", "fail", "/z"), made("R-3", "pass", "/c")]
    findings = Findings([], [])
    for part in (listed[0], listed[1], block, listed[2], made("R-0", "fail", "/y")):
        findings.append(part)
    ordered = sort_findings(findings)
    assert isinstance(ordered, Findings) and ordered.passes_last
    assert list(ordered) == sort_findings(list(findings))
    assert [b.ruleId for b in ordered.blocks] == ["R-1", "R-2", "R-3"]


@settings(max_examples=60, deadline=None)
@given(lines=st.lists(st.sampled_from(["", "\n", "a", "b\n", " ", "\n\nc", "d\n\n"]), max_size=12))
def test_the_text_written_in_parts_is_the_text_joined(lines: list[str]) -> None:
    from auditor.report import text

    result = AuditResult(findings=[], rules=[], startedAt="s", finishedAt="f", target="t")
    original = text._plain_lines
    try:
        text._plain_lines = lambda _result: iter(lines)  # type: ignore[assignment]
        parts = list(text._plain_parts(result))
    finally:
        text._plain_lines = original  # type: ignore[assignment]
    assert "".join(parts) == "\n".join(lines).rstrip("\n") + "\n"


def test_the_text_report_is_its_lines_joined(generated: AuditResult) -> None:
    from auditor.report import text

    lines = list(text._plain_lines(generated))
    assert len(lines) > 100
    expected = ("\n".join(lines).rstrip("\n") + "\n").encode()
    assert render(generated, "text") == expected
    assert b"".join(stream(generated, "text")) == expected
