"""Rule texts as people read them: every placeholder of every rule of the shipped catalogue filled
from the settings in force (none left as ``{settings.NAME}`` or ``${{NAME}}``), in every report;
findings ordered and counted by their own severity."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from auditor.audit.engine import rule_texts
from auditor.audit.findings import RuleInfo
from auditor.audit.packs import render_template, shipped_catalogue, template_fields
from auditor.audit.runner import AuditOptions, audit_snapshot, effective_settings, gate_plan
from auditor.estate.plan import loads_plan
from auditor.estate.sample import sample_plans, sample_snapshot
from auditor.report import RenderOptions, render
from tests.report_fixtures import make_result

PLACEHOLDER = re.compile(r"(?<!\$)\{[A-Za-z_][A-Za-z0-9_.\[\]]*\}")
"""A ``{name}`` left unfilled (``${NAME}``, a secret reference the texts name, is literal)."""


def _unfilled(text: str) -> list[str]:
    return PLACEHOLDER.findall(text) + (["${{"] if "${{" in text else [])


def test_every_rule_text_of_the_catalogue_is_filled_with_the_default_settings() -> None:
    catalogue = shipped_catalogue()
    settings = effective_settings(catalogue)
    assert len(catalogue.rules) > 20
    filled_settings = 0
    for rule in catalogue.rules:
        info = rule_texts(rule.info, settings)
        for what, text in (
            ("title", info.title),
            ("description", info.description),
            ("remediation", info.remediation),
        ):
            assert not _unfilled(text), f"{rule.id} {what}: {text!r}"
        for template in (rule.message, rule.pass_message, rule.info.remediation):
            for name in template_fields(template):
                if name.startswith("settings."):
                    filled_settings += 1
                    assert name[9:] in settings, f"{rule.id}: unknown setting in {template!r}"
            # every placeholder a finding fills: nothing but the braces' own text survives
            rendered = render_template(template, lambda name: "VALUE")
            assert not _unfilled(rendered), f"{rule.id}: {template!r} -> {rendered!r}"
    assert filled_settings >= 5  # the catalogue does use settings in its texts


def test_rule_texts_follow_the_settings_in_force() -> None:
    catalogue = shipped_catalogue()
    by_id = catalogue.by_id()
    uses = [r for r in catalogue.rules if "{settings.minimumClusterVersion}" in r.info.remediation]
    assert uses, "a rule's remediation names the minimum cluster version"
    settings = effective_settings(catalogue, {"minimumClusterVersion": "9.9"})
    info = rule_texts(by_id[uses[0].id].info, settings)
    assert "9.9" in info.remediation and "{" not in info.remediation
    literal = RuleInfo("X-1", "t", "high", "cluster", (), "", "use ${{NAME}} or {{x}}", ())
    assert rule_texts(literal, settings).remediation == "use ${NAME} or {x}"


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Every text format of an audit of the sample estate and a gate of every sample plan."""
    folder = tmp_path_factory.mktemp("texts")
    results = [audit_snapshot(sample_snapshot(), AuditOptions())]
    for name, doc in sample_plans().items():
        plan = loads_plan(json.dumps(doc).encode(), source=str(folder / f"{name}.json"))
        results.append(gate_plan(plan, AuditOptions()))
    out: dict[str, str] = {}
    for i, result in enumerate(results):
        for fmt in ("text", "json", "sarif", "markdown", "csv", "junit", "html"):
            out[f"{i}.{fmt}"] = render(result, fmt, None, RenderOptions()).decode("utf-8")
    return out


def test_no_placeholder_survives_in_any_report(outputs: dict[str, str]) -> None:
    assert "${NAME}" in "\n".join(outputs.values())  # the literal of CLU-008, unescaped
    for name, text in outputs.items():
        assert "{settings." not in text, name
        assert "${{" not in text, name
    sarif = json.loads(outputs["0.sarif"])
    for rule in sarif["runs"][0]["tool"]["driver"]["rules"]:
        for part in ("text", "markdown"):
            help_text = rule["help"][part]
            assert not _unfilled(help_text), (rule["id"], help_text)


def test_a_finding_rated_above_its_rule_is_counted_and_shown_at_its_own_severity(
    tmp_path: Path,
) -> None:
    result = make_result(tmp_path)
    rules = {r.id: r for r in result.rules}
    # a low rule whose one failing finding is rated critical (severityWhen)
    low_rule = next(r for r in result.rules if r.severity in ("low", "info", "medium"))
    others = [f for f in result.findings if f.ruleId != low_rule.id]
    critical = dataclasses.replace(
        next(f for f in result.findings if f.status == "fail"),
        ruleId=low_rule.id,
        severity="critical",
        resourceId="/subscriptions/x/resourceGroups/rg/providers/Cloud.X/things/rated-up",
        fingerprint="f" * 32,
    )
    # many failing rules above it, so that ordering by the rule's default would drop it from the top
    fillers = []
    for i in range(12):
        rid = f"FILL-{i:03d}"
        rules[rid] = RuleInfo(rid, f"Filler {i}", "high", "cluster", ("estate",), "", "", ())
        for j in range(3):
            fillers.append(
                dataclasses.replace(
                    critical,
                    ruleId=rid,
                    severity="high",
                    resourceId=f"/subscriptions/x/things/fill-{i}-{j}",
                    fingerprint=f"{i:02d}{j:02d}" + "0" * 28,
                )
            )
    result = dataclasses.replace(
        result, findings=[*others, critical, *fillers], rules=list(rules.values())
    )
    assert result.summary()["critical"] >= 1

    from auditor.report.html import build_context

    context = build_context(result, RenderOptions())
    top = [g.rule.id for g in context["top_groups"]]
    assert low_rule.id in top, top
    group = next(g for g in context["groups"] if g.rule.id == low_rule.id)
    assert group.severity == "critical"
    html = render(result, "html").decode()
    top_table = html.split("Rules with the most failures", 1)[1].split("</table>", 1)[0]
    row = top_table.split(f"#rule-{low_rule.id}", 1)[1].split("</tr>", 1)[0]
    assert "sev-critical" in row
    heading = html.split(f'id="rule-{low_rule.id}"', 1)[1].split("</h3>", 1)[0]
    assert "sev-critical" in heading and f"rule default {low_rule.severity}" in heading


def test_rules_list_json_shows_the_texts_filled() -> None:
    from auditor.audit.runner import rule_catalogue_json

    doc = rule_catalogue_json()
    for rule in doc["rules"]:
        for key in ("title", "description", "remediation"):
            assert not _unfilled(rule.get(key, "")), (rule["id"], key, rule.get(key))
    configured = rule_catalogue_json(None, {"minimumClusterVersion": "9.9"})
    assert any("9.9 or later" in r.get("remediation", "") for r in configured["rules"])
