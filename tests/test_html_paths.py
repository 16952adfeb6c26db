"""The HTML report made faster for issue 23 (1,000,000 role assignments), against the code as it
was (HEAD 5102402), with the same answers.

- ``build_context``: a rule's group looked up once per run of its findings, groups whose findings
  share a status and severity sorted by resource id alone, resource rows ordered by keys made in
  C, counts by (status, severity): the same context (every view, row, count and chart) as the
  old function, kept here as the oracle, over generated results (findings of rules in and out of
  the catalogue, in any order, with passes listed or held in blocks).
- The data block's evidence: a list or object several findings share made inert once (kept by
  its identity): the same document as the old block (``tests/test_report_stream_paths.py``'s
  oracle) when findings share values, printable or not.
- The page made with the cyclic garbage collector paused, and the collector's state restored
  however the page ends.
- The templates' compiled code kept in the user's cache folder: the same page from the cache;
  a corrupt, truncated or unreadable entry, or one that cannot be written, compiles as before."""

from __future__ import annotations

import gc
from collections import Counter, defaultdict
from pathlib import Path
from types import GeneratorType
from typing import Any

import jinja2
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from auditor.audit.findings import (
    SEVERITIES,
    SEVERITY_RANK,
    AuditResult,
    EscalationPath,
    Finding,
    Findings,
    PassBlock,
    Privileged,
    RuleInfo,
    WaiverInfo,
    count_passes,
)
from auditor.audit.names import describer
from auditor.report import RenderOptions, _html_data, _svg, html
from auditor.report.html import (
    STATUSES,
    FindingView,
    PassedRow,
    ResourceRow,
    RuleGroup,
    WaiverRow,
)
from auditor.report.trends import trend_view
from tests.report_fixtures import make_result, synthetic_result
from tests.test_report_stream_paths import _json, _reference_block, _resolved, _text


def _old_build_context(result: AuditResult, options: RenderOptions) -> dict[str, Any]:
    """``build_context`` as it was (HEAD 5102402), the oracle."""
    rules: dict[str, RuleInfo] = {r.id: r for r in result.rules}
    groups: dict[str, RuleGroup] = {}
    resources: dict[str, ResourceRow] = {}
    views: list[FindingView] = []
    passed: Counter[tuple[str, str]] = Counter()
    failing_on: dict[str, int] = {}  # failing findings per resource
    include_passed = options.include_passed
    names = result.names
    name_of = describer(names)  # describe()'s words, each subscription's name looked up once
    findings = result.findings
    # passes held in blocks are counted per block, never made (a large estate has millions)
    blocks = []
    if isinstance(findings, Findings) and findings.passes_last and not include_passed:
        blocks = findings.blocks
    for n, f in enumerate(findings.listed if blocks else findings):  # type: ignore[attr-defined]
        rule = rules.get(f.ruleId)
        if rule is None:
            rule = rules[f.ruleId] = RuleInfo(
                f.ruleId, f.title, f.severity, f.resourceType, (), "", f.remediation, f.references
            )
        group = groups.get(f.ruleId)
        if group is None:
            group = groups[f.ruleId] = RuleGroup(rule)
        status = f.status
        group.counts[status] = group.counts.get(status, 0) + 1
        if status == "pass" and not include_passed:
            # passes are counted, not listed: a large estate has millions of them
            passed[(f.ruleId, f.resourceType)] += 1
            continue
        if status == "fail":
            failing_on[f.resourceId] = failing_on.get(f.resourceId, 0) + 1
            if group.worst is None or SEVERITY_RANK[f.severity] > SEVERITY_RANK[group.worst]:
                group.worst = f.severity
        row = resources.get(f.resourceId)
        if row is None:
            label = name_of(f.resourceId)
            row = resources[f.resourceId] = ResourceRow(f.resourceId, f.resourceType, label)
        view = FindingView(n=n, f=f, rule=rule, name=row.name)
        views.append(view)
        group.findings.append(view)
        row.findings.append(view)

    for block in blocks:
        if block.ruleId not in groups:
            first = next(iter(block))
            rule = rules.get(first.ruleId) or RuleInfo(
                first.ruleId, first.title, first.severity, first.resourceType, (), "",
                first.remediation, first.references,
            )  # fmt: skip
            rules[first.ruleId] = rule
            groups[first.ruleId] = RuleGroup(rule)
        group = groups[block.ruleId]
        group.counts["pass"] = group.counts.get("pass", 0) + len(block)
        for rtype, count in block.types.items():
            passed[(block.ruleId, rtype)] += count

    for group in groups.values():
        group.findings.sort(key=lambda v: html._sort_key(v.f))
    ordered_groups = sorted(
        groups.values(),
        key=lambda g: (
            0 if g.failing else 1,
            -SEVERITY_RANK.get(g.severity, 0),
            -g.failing,
            g.rule.id,
        ),
    )
    resource_rows = sorted(
        resources.values(), key=lambda r: (-failing_on.get(r.resource, 0), r.resource.lower())
    )
    for row in resource_rows:
        if len(row.findings) > 1:  # (most resources of a large estate list one finding)
            row.findings.sort(key=lambda v: html._sort_key(v.f))

    summary = result.summary()
    judged = result.judged
    status_counts: Counter[str] = Counter(f.status for f in judged)
    status_counts["pass"] = count_passes(findings)
    waived_by: Counter[str] = Counter(f.waiver.id for f in judged if f.waiver is not None)
    waiver_rows = (
        [WaiverRow(w, "applied", waived_by.get(w.id, 0)) for w in result.waivers]
        + [WaiverRow(w, "expired", waived_by.get(w.id, 0)) for w in result.expiredWaivers]
        + [WaiverRow(w, "stale", 0) for w in result.staleWaivers]
    )
    privileged: dict[str, list[Privileged]] = defaultdict(list)
    escalations: list[tuple[EscalationPath, str]] = []
    if result.access is not None:
        for p in sorted(result.access.privileged, key=lambda p: (p.subscription, p.role)):
            privileged[p.subscription].append(p)
        # graphs for the paths a report draws (the rest are listed as one line each)
        escalations = [
            (e, _svg.escalation_graph(e) if i < html.ESCALATION_GRAPHS else "")
            for i, e in enumerate(result.access.escalations)
        ]

    failing = [f for f in judged if f.status == "fail"]
    blocking = [f for f in failing if SEVERITY_RANK[f.severity] >= SEVERITY_RANK[result.failOn]]
    return {
        "title": options.title,
        "result": result,
        "summary": summary,
        "severities": SEVERITIES,
        "statuses": STATUSES,
        "status_counts": {s: status_counts.get(s, 0) for s in STATUSES},
        "groups": ordered_groups,
        "top_groups": [g for g in ordered_groups if g.failing][:10],
        "resources": resource_rows,
        "resources_failing": len(failing_on),
        "rules": sorted(rules.values(), key=lambda r: r.id),
        "rule_ids": sorted(groups),
        "waivers": waiver_rows,
        "privileged": dict(privileged),
        "escalations": escalations,
        "access_changes": html.access_changes(result),
        "trends": trend_view(result.history),
        "severity_chart": _svg.severity_chart(summary),
        "status_chart": _svg.status_bar(status_counts),
        "blocking": len(blocking),
        "failing": len(failing),
        "unknown": status_counts.get("unknown", 0),
        "coverage": result.coverage,
        "absent": sorted({n for i in result.coverage.inputs for n in i.get("absent", ())}),
        "total": len(views),
        "include_passed": include_passed,
        "passed_rows": [
            PassedRow(rules[rule_id], rtype, count)
            for (rule_id, rtype), count in sorted(passed.items())
        ],
    }


# build_context against the old one


_RULES = [
    RuleInfo("R-1", "one", "high", "roleAssignment", (), "", "fix one", ("https://x/1",)),
    RuleInfo("R-2", "two", "low", "roleAssignment", ()),
    RuleInfo("R-3", "three", "critical", "domain", ()),
]
_WAIVERS = [
    WaiverInfo("w1", "R-1", "*", "why", "2030-01-01"),
    WaiverInfo("w2", "R-2", "*", "old", "2020-01-01", expired=True),
]
_IDS = ["/subscriptions/a/x", "/Subscriptions/A/X", "/subscriptions/a/y", "/subscriptions/b", "r"]


def _finding(rule_id: str, status: str, severity: str, resource: str, waiver: Any) -> Finding:
    return Finding(
        ruleId=rule_id, severity=severity, status=status, resourceId=resource,  # type: ignore[arg-type]
        title="t " + rule_id, message="m", evidence={}, remediation="fix",
        references=(), fingerprint=f"{rule_id}{resource}", resourceType="roleAssignment",
        waiver=waiver,
    )  # fmt: skip


@st.composite
def _results(draw: st.DrawFn) -> AuditResult:
    rows = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["R-1", "R-2", "R-3", "X-9"]),
                st.sampled_from(STATUSES),
                st.sampled_from(SEVERITIES),
                st.sampled_from(_IDS),
                st.none() | st.sampled_from(_WAIVERS),
            ),
            max_size=40,
        )
    )
    findings: Any = [_finding(*row) for row in rows]
    if draw(st.booleans()):  # as a run holds them: the passes in blocks, after the rest
        passes: dict[str, list[Finding]] = defaultdict(list)
        for f in findings:
            if f.status == "pass":
                passes[f.ruleId].append(f)
        blocks = [
            PassBlock(rule_id, made, types=dict(Counter(f.resourceType for f in made)))
            for rule_id, made in passes.items()
        ]
        findings = Findings([f for f in findings if f.status != "pass"], blocks)
    names = (
        {"/subscriptions/a": "Sub A", "/subscriptions/a/y": "why"} if draw(st.booleans()) else {}
    )
    return AuditResult(
        findings=findings, rules=list(_RULES), startedAt="s", finishedAt="f", target="t",
        failOn=draw(st.sampled_from(SEVERITIES)), waivers=[_WAIVERS[0]],
        expiredWaivers=[_WAIVERS[1]], names=names,
    )  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(result=_results(), include_passed=st.booleans())
def test_the_context_is_the_old_one(result: AuditResult, include_passed: bool) -> None:
    options = RenderOptions(include_passed=include_passed)
    new, old = html.build_context(result, options), _old_build_context(result, options)
    assert list(new) == list(old)
    for key, value in old.items():
        assert new[key] == value, key
    for g_new, g_old in zip(new["groups"], old["groups"], strict=True):  # (views compare by value)
        assert [v.n for v in g_new.findings] == [v.n for v in g_old.findings]
    for r_new, r_old in zip(new["resources"], old["resources"], strict=True):
        assert [v.n for v in r_new.findings] == [v.n for v in r_old.findings]


def test_the_context_of_the_sample_reports_is_the_old_one(tmp_path: Path) -> None:
    for result in (make_result(tmp_path), synthetic_result(1_500, tmp_path)):
        for include_passed in (False, True):
            options = RenderOptions(include_passed=include_passed)
            assert html.build_context(result, options) == _old_build_context(result, options)


def test_groups_with_one_status_and_severity_are_ordered_by_resource_alone() -> None:
    """The shortcut's premise, which the generated results also cover: a group whose findings
    share status and severity, sorted by resource id with ties in their order."""
    findings = [
        _finding("R-1", "fail", "high", resource, None)
        for resource in ["/b", "/a", "/B", "/a", "/c"]
    ]
    result = AuditResult(findings=findings, rules=list(_RULES), startedAt="s", finishedAt="f",
                         target="t")  # fmt: skip
    (group,) = html.build_context(result, RenderOptions())["groups"]
    assert [v.n for v in group.findings] == [2, 1, 3, 0, 4]  # "/B" < "/a" < "/b" < "/c"


# evidence values several findings share


@settings(max_examples=80, deadline=None)
@given(
    pool=st.lists(
        st.lists(_text, max_size=3) | st.dictionaries(_text, _json, max_size=3) | _json,
        min_size=1,
        max_size=4,
    ),
    picks=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=12),
)
def test_shared_evidence_gives_the_old_block(pool: list[Any], picks: list[tuple[int, int]]) -> None:
    rule = RuleInfo("R-1", "t", "high", "roleAssignment", ())
    group = RuleGroup(rule)
    row = ResourceRow("/s", "roleAssignment", "")
    for n, (a, b) in enumerate(picks):
        evidence = {"first": pool[a % len(pool)], "second": pool[b % len(pool)], "n": n}
        f = Finding("R-1", "high", "fail", f"/s/{n}", "t", "m", evidence, fingerprint=f"{n}")
        view = FindingView(n, f, rule, "")
        group.findings.append(view)
        row.findings.append(view)
    new, count = _html_data.data_block([group], [row], STATUSES)
    old, old_count = _reference_block([group], [row], STATUSES)
    assert count == old_count == len(picks)
    assert _resolved(new) == _resolved(old)


@settings(max_examples=100, deadline=None)
@given(shape=st.lists(st.lists(st.booleans(), max_size=3), max_size=8))
@example(shape=[[True, True], []])  # (as many findings as rows, not one each)
def test_resource_rows_give_the_old_block(shape: list[list[bool]]) -> None:
    """The resource index's rows, made in C: one finding each, none, several, or findings left out
    of the groups (which the rows then leave out, as before)."""
    rule = RuleInfo("R-1", "t", "high", "roleAssignment", ())
    group = RuleGroup(rule)
    rows = []
    n = 0
    for r, listed in enumerate(shape):
        row = ResourceRow(f"/s/{r}", "roleAssignment", f"name {r % 2}")
        for in_groups in listed:
            f = Finding("R-1", "high", "fail", f"/s/{r}", "t", "m", {}, fingerprint=f"{n}")
            view = FindingView(n, f, rule, row.name)
            row.findings.append(view)
            if in_groups:
                group.findings.append(view)
            n += 1
        rows.append(row)
    new, _ = _html_data.data_block([group], rows, STATUSES)
    old, _ = _reference_block([group], rows, STATUSES)
    assert _resolved(new) == _resolved(old)


# the collector


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> AuditResult:
    return make_result(tmp_path_factory.mktemp("html-paths"))


def test_the_collector_is_paused_while_the_page_is_made(sample: AuditResult) -> None:
    assert gc.isenabled()
    parts = html.chunks(sample, RenderOptions())
    assert isinstance(parts, GeneratorType)
    next(parts)
    assert not gc.isenabled()
    parts.close()  # (a reader that stops early)
    assert gc.isenabled()
    page = b"".join(html.chunks(sample, RenderOptions()))
    assert gc.isenabled() and page.endswith(b"</html>")
    gc.disable()
    try:
        assert b"".join(html.chunks(sample, RenderOptions())) == page
        assert not gc.isenabled()  # (left off, as it was)
    finally:
        gc.enable()


def test_the_collector_is_restored_when_the_page_fails(
    sample: AuditResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: Any) -> dict[str, Any]:
        assert not gc.isenabled()
        raise RuntimeError("broken")

    monkeypatch.setattr(html, "build_context", broken)
    with pytest.raises(RuntimeError, match="broken"):
        html.render(sample, RenderOptions())
    assert gc.isenabled()


# the templates' compiled code


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    folder = tmp_path / "cache"
    monkeypatch.setenv("AUDITOR_CACHE_DIR", str(folder))
    html.environment.cache_clear()
    yield folder
    html.environment.cache_clear()


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("report-template-*.jinja-cache"))


def _no_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: Any, **__: Any) -> Any:
        raise AssertionError("compiled, not read from the cache")

    monkeypatch.setattr(jinja2.Environment, "compile", refuse)


def test_the_compiled_templates_are_kept_and_give_the_same_page(
    sample: AuditResult, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = html.render(sample, RenderOptions())
    entries = _entries(cache_dir)
    assert len(entries) == 3  # the page and the two templates it includes
    assert all(e.stat().st_mode & 0o077 == 0 for e in entries)  # the user's own
    html.environment.cache_clear()
    with monkeypatch.context() as patch:
        _no_compiling(patch)
        assert html.render(sample, RenderOptions()) == page
    html.environment.cache_clear()
    monkeypatch.setenv("AUDITOR_CACHE_DIR", "")  # no cache: compiled, the same page
    assert html.environment().bytecode_cache is None
    assert html.render(sample, RenderOptions()) == page


@pytest.mark.parametrize("spoil", ["empty", "garbage", "truncated", "bad checksum"])
def test_a_spoilt_entry_is_compiled_again(
    sample: AuditResult, cache_dir: Path, monkeypatch: pytest.MonkeyPatch, spoil: str
) -> None:
    page = html.render(sample, RenderOptions())
    for entry in _entries(cache_dir):
        data = entry.read_bytes()
        entry.write_bytes(
            {
                "empty": b"",
                "garbage": b"\x00\xff" * 100,
                "truncated": data[: len(data) // 2],
                "bad checksum": data[:40] + b"\xff" * 8 + data[48:],
            }[spoil]
        )
    html.environment.cache_clear()
    assert html.render(sample, RenderOptions()) == page
    html.environment.cache_clear()  # written again whole: read back without compiling
    with monkeypatch.context() as patch:
        _no_compiling(patch)
        assert html.render(sample, RenderOptions()) == page


def test_a_cache_that_fails_never_fails_the_page(
    sample: AuditResult, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = html.render(sample, RenderOptions())
    html.environment.cache_clear()

    def fail(*_: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(jinja2.FileSystemBytecodeCache, "dump_bytecode", fail)
    monkeypatch.setattr(jinja2.bccache.Bucket, "load_bytecode", fail)
    assert html.render(sample, RenderOptions()) == page


def test_a_public_or_changed_cache_is_not_used(
    sample: AuditResult, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    html.render(sample, RenderOptions())
    first = _entries(cache_dir)
    monkeypatch.setattr(html, "_TEMPLATE_SETTINGS", html._TEMPLATE_SETTINGS + " changed")
    html.environment.cache_clear()
    html.render(sample, RenderOptions())
    assert len(_entries(cache_dir)) == 2 * len(first)  # other settings: other entries
    cache_dir.chmod(0o777)  # a folder others may write to: no cache
    html.environment.cache_clear()
    assert html.environment().bytecode_cache is None
