"""JUnit XML for CI test-report views (GitLab, Jenkins, Azure Pipelines, GitHub test reporters).

One ``testsuite`` per rule (every catalogue rule, so a rule that found nothing to check shows as an
empty suite), one ``testcase`` per rule and resource. A resource with several findings of one rule
(say, three literal secrets in one cluster) is one test case: it fails when any of them fails, and
the failure lists them all. Waived and baselined findings are ``skipped`` with the waiver's id,
expiry and justification (or a note that the baseline accepts them); passes are plain test cases.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from typing import TYPE_CHECKING

from auditor.audit.findings import Finding, RuleInfo
from auditor.report._sanitize import clip, evidence_json, one_line, xml_text

if TYPE_CHECKING:
    from auditor.audit.findings import AuditResult
    from auditor.report import RenderOptions

MAX_MESSAGE = 2_000
MAX_BODY = 20_000


def render(result: AuditResult, options: RenderOptions) -> bytes:
    """The JUnit XML document of ``result``."""
    by_rule: dict[str, dict[str, list[Finding]]] = defaultdict(dict)
    for f in result.findings:
        by_rule[f.ruleId].setdefault(f.resourceId, []).append(f)
    rules: list[RuleInfo] = list(result.rules)
    known = {r.id for r in rules}
    for rule_id, resources in by_rule.items():
        if rule_id not in known:
            first = next(iter(resources.values()))[0]
            known.add(rule_id)
            rules.append(RuleInfo(rule_id, first.title, first.severity, first.resourceType, ()))

    root = ET.Element("testsuites", name=xml_text(f"auditor: {result.target}"))
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for rule in rules:
        suite = _suite(root, rule, by_rule.get(rule.id, {}), result.startedAt)
        for key in totals:
            totals[key] += int(suite.get(key, "0"))
    for incomplete in result.incomplete:
        suite = ET.SubElement(
            root, "testsuite", name="auditor: sources", tests="1", failures="0", errors="1",
            skipped="0", time="0",
        )  # fmt: skip
        case = ET.SubElement(suite, "testcase", classname="auditor.sources",
                             name=xml_text(incomplete), time="0")  # fmt: skip
        ET.SubElement(case, "error", message=clip(xml_text(f"could not read {incomplete}"), 500),
                      type="incomplete")  # fmt: skip
        totals["tests"] += 1
        totals["errors"] += 1
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("time", "0")
    ET.indent(root, space="  ")
    body = ET.tostring(root, encoding="unicode")
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n").encode("utf-8")


_STATUS_RANK = {"fail": 3, "baselined": 2, "waived": 1, "pass": 0}


def _suite(
    root: ET.Element, rule: RuleInfo, resources: dict[str, list[Finding]], timestamp: str
) -> ET.Element:
    suite = ET.SubElement(root, "testsuite", name=xml_text(f"{rule.id}: {one_line(rule.title)}"))
    props = ET.SubElement(suite, "properties")
    for name, value in (
        ("ruleId", rule.id),
        ("severity", rule.severity),
        ("resourceType", rule.resourceType),
        ("references", "; ".join(rule.references)),
    ):
        ET.SubElement(props, "property", name=name, value=xml_text(value))
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    classname = f"auditor.{rule.id}"
    for resource, findings in resources.items():
        counts["tests"] += 1
        case = ET.SubElement(
            suite, "testcase", classname=classname, name=xml_text(resource) or "(unnamed)",
            time="0",
        )  # fmt: skip
        worst = max(findings, key=lambda f: _STATUS_RANK.get(f.status, 0))
        if worst.status == "fail":
            counts["failures"] += 1
            failing = [f for f in findings if f.status == "fail"]
            message = one_line(xml_text(failing[0].message))
            if len(failing) > 1:
                message += f" (and {len(failing) - 1} more)"
            failure = ET.SubElement(
                case, "failure", message=clip(message, MAX_MESSAGE), type=worst.severity
            )
            failure.text = clip("\n\n".join(_failure_text(f) for f in failing), MAX_BODY)
        elif worst.status in ("waived", "baselined"):
            counts["skipped"] += 1
            ET.SubElement(case, "skipped", message=clip(_skip_message(worst), MAX_MESSAGE))
        out = "\n".join(one_line(xml_text(f.message)) for f in findings if f.status == "pass")
        if out and worst.status == "pass":
            ET.SubElement(case, "system-out").text = clip(out, MAX_BODY)
    for key, count in counts.items():
        suite.set(key, str(count))
    suite.set("time", "0")
    suite.set("timestamp", timestamp.removesuffix("Z"))
    return suite


def _failure_text(f: Finding) -> str:
    lines = [
        f"{f.severity.upper()} {f.ruleId} on {f.resourceId}",
        one_line(f.message),
    ]
    if f.evidence:
        lines += ["Evidence:", evidence_json(f.evidence)]
    if f.remediation:
        lines += ["Remediation: " + one_line(f.remediation)]
    if f.references:
        lines += ["References: " + "; ".join(f.references)]
    if f.source:
        where = f.source + (f" at {f.location}" if f.location else "")
        lines += [f"Source: {where}"]
    if f.waiver is not None and f.waiver.expired:
        lines += [f"Waiver {f.waiver.id} expired on {f.waiver.expires}"]
    return xml_text("\n".join(lines))


def _skip_message(f: Finding) -> str:
    if f.status == "waived":
        if f.waiver is not None:
            return xml_text(
                f"waived by {f.waiver.id} until {f.waiver.expires}: "
                f"{one_line(f.waiver.justification)}"
            )
        return "waived"
    return "baselined: a known failure accepted by the baseline"
