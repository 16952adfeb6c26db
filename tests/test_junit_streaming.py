"""The JUnit XML written as a stream (issue 23, item 2): passes held compactly in a
:class:`~auditor.audit.findings.PassBlock` sharing one finding become test cases from their resource
ids, never :class:`~auditor.audit.findings.Finding` objects, and the bytes are those of the tree
renderer (:func:`auditor.report.junit.render_tree`, every finding in one ``ElementTree``), which
every test here renders the same result with, as the reference."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.audit.findings import (
    AuditResult,
    DeferredFingerprint,
    Finding,
    Findings,
    Located,
    PassBlock,
    RuleInfo,
)
from auditor.audit.runner import AuditOptions, audit_snapshot
from auditor.estate.generate import generate_estate
from auditor.estate.sample import sample_snapshot
from auditor.estate.snapshot import load_snapshot
from auditor.report import RENDERERS, STREAMED, RenderOptions, junit, stream, write

OPTIONS = AuditOptions(use_config=False, as_of=dt.date(2026, 11, 21))


def _as_list(result: AuditResult) -> AuditResult:
    """The result as the tree renderer saw it before passes were held compactly."""
    return dataclasses.replace(result, findings=list(result.findings))


def _reference(result: AuditResult) -> bytes:
    return junit.render_tree(_as_list(result), RenderOptions())


def _streamed(result: AuditResult) -> bytes:
    return b"".join(junit.chunks(result, RenderOptions()))


@pytest.fixture(scope="module")
def sample() -> AuditResult:
    return audit_snapshot(sample_snapshot(), OPTIONS)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> AuditResult:
    """A generated estate (with a merged duplicate: relocated bulk passes)."""
    path = tmp_path_factory.mktemp("junit") / "estate.json"
    generate_estate(400, seed=5, out=path, progress=False)
    doc = json.loads(path.read_bytes())
    doc["roleAssignments"].append(doc["roleAssignments"][2])
    path.write_text(json.dumps(doc))
    return audit_snapshot(load_snapshot(path), OPTIONS)


def _streamed_making_no_bulk_pass(result: AuditResult) -> bytes:
    """:func:`_streamed`, failing if a pass of a block sharing one finding is made."""
    original = PassBlock.__iter__

    def iterate(self: PassBlock) -> Iterator[Finding]:
        if self.proto is not None:
            raise AssertionError(f"a bulk pass of {self.ruleId} was made")
        return original(self)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(PassBlock, "__iter__", iterate)
        return _streamed(result)


def test_junit_is_registered_as_streamed() -> None:
    assert "junit" in STREAMED
    assert RENDERERS["junit"].__name__ == "render_junit"


@pytest.mark.parametrize("estate", ["sample", "generated"])
def test_the_stream_is_the_tree_byte_for_byte(estate: str, request: pytest.FixtureRequest) -> None:
    result: AuditResult = request.getfixturevalue(estate)
    findings = result.findings
    assert isinstance(findings, Findings)
    assert sum(len(b) for b in findings.blocks if b.proto is not None) > 0
    streamed = _streamed_making_no_bulk_pass(result)
    assert streamed == _reference(result)
    root = ET.fromstring(streamed)
    assert int(root.get("tests", "0")) == len(findings)
    assert int(root.get("failures", "0")) == sum(f.status == "fail" for f in findings.listed)


def test_stream_write_and_render_agree(tmp_path: Path, sample: AuditResult) -> None:
    reference = _reference(sample)
    parts = list(stream(sample, "junit"))
    assert len(parts) > 1 and b"".join(parts) == reference
    write(sample, "junit", tmp_path / "junit.xml")
    assert (tmp_path / "junit.xml").read_bytes() == reference
    assert RENDERERS["junit"](sample, RenderOptions()) == reference


def _proto(rule: str = "R-1", message: str = "ok") -> Finding:
    deferred: Any = DeferredFingerprint("estate")  # what the engine's bulk passes hold
    return Finding(
        rule, "low", "pass", "", "T", message, {}, "fix", ("ref",), deferred, "t", "snap.json"
    )


def _result(
    findings: Findings,
    rules: list[RuleInfo] | None = None,
    target: str = "estate & <co>",
    incomplete: list[str] | None = None,
) -> AuditResult:
    return AuditResult(
        findings=findings,
        rules=rules
        if rules is not None
        else [RuleInfo("R-1", "Rule one", "low", "t", ("estate",))],
        startedAt="2026-11-21T00:00:00Z",
        finishedAt="f",
        target=target,
        incomplete=incomplete or [],
    )


def test_a_resource_with_several_findings_of_a_rule_is_named_as_before() -> None:
    """A pass and a failure of one rule on one resource, and a resource passing twice: test
    cases grouped by resource and named with their fingerprints, as the tree does."""
    failing = Finding("R-1", "high", "fail", "/b", "T", "bad", {"k": 1}, fingerprint="f" * 32)
    block = PassBlock("R-1", [("/a", "x[0]"), ("/b", "x[1]"), ("/a", "x[2]")], types={"t": 3},
                      proto=_proto())  # fmt: skip
    result = _result(Findings([failing], [block]))
    data = _streamed(result)
    assert data == _reference(result)
    names = [case.get("name") for case in ET.fromstring(data).iter("testcase")]
    assert len(names) == len(set(names)) == 4 and all("[" in n for n in names if n)


def test_an_empty_run_and_unreadable_sources() -> None:
    empty = _result(Findings([]), rules=[])
    assert _streamed(empty) == _reference(empty)
    assert b"<testsuites " in _streamed(empty) and b" />" in _streamed(empty)
    incomplete = _result(Findings([]), incomplete=["roleAssignments: HTTP 500 <x>"])
    assert _streamed(incomplete) == _reference(incomplete)
    assert b'errors="1"' in _streamed(incomplete)


def test_rules_not_in_the_catalogue_and_blocks_made_when_read() -> None:
    """A rule only the findings name gets its suite after the catalogue's; a block without a
    shared finding is made one pass at a time; a message of blanks gives an empty system-out."""
    lazy = PassBlock("R-9", [_proto("R-9", " \n ")], types={"t": 1})
    silent = PassBlock("R-1", [("/s", None)], types={"t": 1}, proto=_proto(message=""))
    blank = PassBlock("R-2", [("/z", None)], types={"t": 1}, proto=_proto("R-2", "\t"))
    waived = Finding("R-3", "medium", "waived", "/w", "T", "w")
    result = _result(Findings([waived], [silent, lazy, blank]))
    data = _streamed(result)
    assert data == _reference(result)
    assert b"<system-out />" in data and b'name="R-9: T"' in data


def test_located_passes_from_a_snapshot_section() -> None:
    ids = ["/r/0", None, "/r/2", "", "/r/4", "/r/5"]
    items = Located(ids, "roleAssignments", [0, 1, 2, 3, 5])
    block = PassBlock("R-1", items, types={"t": 5}, proto=_proto())
    result = _result(Findings([], [block]))
    data = _streamed(result)
    assert data == _reference(result)
    assert b'name="roleAssignments[1]"' in data and b"/r/4" not in data


_CHARS = list("ab/&<>\"'\t\n\r \x00\x1b\x7f\u202eé€𝄞]")
_TEXT = st.text(alphabet=st.sampled_from([*_CHARS, "\ud800"]), max_size=12)
_ID = st.text(alphabet=st.sampled_from(_CHARS), max_size=12)
"""Resource ids: no lone surrogate (a deferred fingerprint cannot hash one)."""


@settings(max_examples=60, deadline=None)
@given(
    rids=st.lists(_ID, min_size=1, max_size=8),
    message=_TEXT,
    title=_TEXT,
    failing=st.lists(st.tuples(_ID, _TEXT), max_size=3),
)
def test_any_text_is_escaped_as_the_tree_escapes_it(
    rids: list[str], message: str, title: str, failing: list[tuple[str, str]]
) -> None:
    listed = [Finding("R-1", "high", "fail", rid, title, text) for rid, text in failing]
    block = PassBlock("R-1", [(rid, None) for rid in rids], types={"t": len(rids)},
                      proto=_proto(message=message))  # fmt: skip
    rules = [RuleInfo("R-1", title, "low", "t", ("estate",), references=(title, "x"))]
    result = _result(Findings(listed, [block]), rules=rules, target=title)
    assert _streamed(result) == _reference(result)
