"""The compact text summary: counts, verdict and one line per failing rule."""

from __future__ import annotations

from auditor.audit import AuditOptions, audit_snapshot
from auditor.estate.sample import sample_snapshot
from auditor.report import RenderOptions, render


def test_compact_lists_each_failing_rule_once_with_its_count() -> None:
    result = audit_snapshot(sample_snapshot(), AuditOptions(use_config=False))
    text = render(result, "text", None, RenderOptions(compact=True)).decode()
    failing: dict[str, int] = {}
    for f in result.findings:
        if f.status == "fail":
            failing[f.ruleId] = failing.get(f.ruleId, 0) + 1
    lines = [line for line in text.splitlines() if line.startswith("  [")]
    assert len(lines) == len(failing)
    for line in lines:
        rule, count = line.split()[2:4] if line.split()[1] == "]" else line.split()[1:3]
        assert failing[rule] == int(count)
    assert f"Failing rules ({len(failing)})" in text
    assert "FAILED" in text
    full = render(result, "text").decode()
    assert len(text) < len(full) / 3
