"""Trends in the reports (issue 22, item 3): two audits of the sample estate a change apart,
recorded in one history, show the change in the HTML trend and "Since the last audit" section, in
the Markdown delta and in ``history diff``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from auditor.cli import main
from auditor.estate.sample import sample_snapshot_bytes, sample_snapshot_json
from auditor.report.trends import markdown_since_last, trend_view


@pytest.fixture(autouse=True)
def _no_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no auditor.toml / pyproject.toml above tmp dirs


@pytest.fixture(scope="module")
def two_audits(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The sample estate audited, then audited again with one more public domain."""
    root = tmp_path_factory.mktemp("trends")
    before, after = root / "a.json", root / "b.json"
    before.write_bytes(sample_snapshot_bytes())
    changed = sample_snapshot_json()
    for domain in changed["domains"]:
        if domain["name"] == "dom-orders":
            domain["properties"]["publicNetworkAccess"] = "Enabled"  # new DOM-001, DOM-002
    after.write_text(json.dumps(changed))
    h = str(root / "h.db")
    outputs = []
    for n, snapshot in enumerate((before, after), start=1):
        html, md = root / f"report{n}.html", root / f"summary{n}.md"
        outs = ["-o", f"html={html}", "-o", f"markdown={md}"]
        code = main(["audit", "--snapshot", str(snapshot), "--history", h, *outs])
        assert code == 1  # the sample estate fails the gate
        outputs.append((html.read_text(encoding="utf-8"), md.read_text(encoding="utf-8")))
    return {"history": h, "first": outputs[0], "second": outputs[1]}


def test_second_html_has_the_trend_and_the_new_finding(two_audits: dict[str, Any]) -> None:
    html = two_audits["second"][0]
    trends = html[html.index('<section id="trends">') : html.index('<section id="findings">')]
    assert trends.count("<svg") == 3  # by severity, per subscription, per rule
    assert "Failing findings by severity in the last 2 run(s)" in trends
    assert "Failing findings per rule in the last 2 run(s)" in trends
    assert ">#1<" in trends and ">#2<" in trends  # one bar a run
    assert "DOM-001" in trends  # a rule's sparkline
    since = trends[trends.index('id="since-last"') :]
    assert "Run 2 (" in since and "against run 1" in since
    assert "<strong>2</strong> new" in since and "<strong>0</strong> fixed" in since
    new = since[since.index("since-new") : since.index("</table>")]
    assert "DOM-001" in new and "DOM-002" in new and "dom-orders" in new


def test_first_html_says_there_is_nothing_to_compare(two_audits: dict[str, Any]) -> None:
    html = two_audits["first"][0]
    assert '<section id="trends">' in html
    assert "first complete run of this target" in html
    assert "since-new" not in html


def test_markdown_holds_the_delta(two_audits: dict[str, Any]) -> None:
    first, second = two_audits["first"][1], two_audits["second"][1]
    assert "Since the last audit" not in first
    section = second[second.index("### Since the last audit") :]
    section = section[: section.index("###", 5)]
    assert "Run 2 against run 1" in section
    assert "**2** new, **0** fixed, **0** regressed" in section
    assert "**New** (2)" in section
    assert re.search(r"- high `DOM-00[12]` `[^`]*/dom-orders`", section)


def test_history_diff_shows_it(
    two_audits: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["history", "diff", "--history", two_audits["history"]]) == 0
    text = capsys.readouterr().out
    assert "new: 2" in text and "DOM-001" in text and "dom-orders" in text


def test_no_history_no_section() -> None:
    assert trend_view(None) is None
    assert markdown_since_last(None) == []
    assert markdown_since_last({"trend": {"runs": []}, "sinceLast": None}) == []


def _finding(n: int, **extra: Any) -> dict[str, Any]:
    return {
        "ruleId": "R-1",
        "severity": "high",
        "status": "fail",
        "resourceId": f"/subscriptions/s/r{n}",
        "message": f"m{n}",
        "fingerprint": f"f{n}",
        **extra,
    }


def test_lists_are_capped_and_labels_are_inert() -> None:
    hostile = "<script>alert(1)</script>\x1b]0;t\x07"
    runs = [
        {
            "id": i,
            "startedAt": f"2026-01-0{i}T00:00:00Z",
            "bySeverity": {"high": 100 * i},
            "bySubscription": {hostile: {"high": 100 * i}},
            "byRule": {f"R-{k}": {"high": k + i} for k in range(15)},
        }
        for i in (1, 2, 3)
    ]
    since = {
        "runA": {"id": 2, "startedAt": "2026-01-02"},
        "runB": {"id": 3, "startedAt": "2026-01-03"},
        "counts": {"new": 120, "fixed": 1, "severityChanged": 1, "waiversExpired": 9},
        "new": [_finding(n, message=hostile) for n in range(50)],
        "fixed": [_finding(99)],
        "regressed": [],
        "severityChanged": [_finding(7, severity="critical", previousSeverity="low")],
        "waiversExpired": [
            {"id": f"W-{n}", "before": "applied", "after": "expired"} for n in (1, 2)
        ],
        "waiversAdded": [],
    }
    view = trend_view({"trend": {"runs": runs}, "sinceLast": since})
    assert view is not None
    sections = {s["key"]: s for s in view["since"]["sections"]}
    assert sections["new"]["count"] == 120 and len(sections["new"]["entries"]) == 20
    assert view["rule_chart"].count("<g>") == 10  # the ten most failing rules
    assert "R-14" in view["rule_chart"] and "R-0<" not in view["rule_chart"]
    svg = view["subscription_chart"]
    assert "<script" not in svg and "\x1b" not in svg and "&lt;script&gt;" in svg
    assert view["severity_chart"].count("<rect") == 3 + 5  # a bar a run, the legend

    md = "\n".join(markdown_since_last({"trend": {"runs": runs}, "sinceLast": since}))
    assert "**120** new" in md and "**New** (120, first 5)" in md
    assert "- low → critical `R-1`" in md
    assert "**Waivers expired**: `W-1`, `W-2` and 7 more" in md
    assert "<script" not in md and "\x1b" not in md
