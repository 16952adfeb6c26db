"""JUnit XML for CI test-report views (GitLab, Jenkins, Azure Pipelines, GitHub test reporters).

One ``testsuite`` per rule (every catalogue rule, so a rule that found nothing to check shows as an
empty suite), one ``testcase`` per finding, so the failures JUnit counts are the failing findings
every other format counts. A test case is named by its resource; when one rule has several findings
on one resource (say, three literal secrets in one cluster), each name gets the finding's
fingerprint (and an index if even that repeats), so names stay unique and stable from run to run.
Unknown findings (the rule could not judge the resource) are ``skipped`` with a message starting
``unknown:`` and saying what was missing; waived and baselined findings are ``skipped`` with the
waiver's id, expiry and justification (or a note that the baseline accepts them); passes are plain
test cases.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from auditor.audit.findings import Finding, RuleInfo
from auditor.report._sanitize import clip, evidence_json, one_line, xml_text
from auditor.report.controls import keys_by_rule

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
    controls = keys_by_rule(result)
    for rule in rules:
        suite = _suite(
            root, rule, by_rule.get(rule.id, {}), result.startedAt, controls.get(rule.id, ())
        )
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


def _cases(resources: dict[str, list[Finding]]) -> Iterator[tuple[str, Finding]]:
    """Each finding with its unique test case name: the resource, plus the fingerprint (and an
    index if that repeats) where one resource has several findings of the rule."""
    for resource, findings in resources.items():
        base = xml_text(resource) or "(unnamed)"
        if len(findings) == 1:
            yield base, findings[0]
            continue
        seen: dict[str, int] = {}
        for f in findings:
            name = f"{base} [{f.fingerprint[:16]}]" if f.fingerprint else base
            k = seen[name] = seen.get(name, 0) + 1
            yield (name if k == 1 else f"{name} #{k}"), f


def _suite(
    root: ET.Element,
    rule: RuleInfo,
    resources: dict[str, list[Finding]],
    timestamp: str,
    controls: Sequence[str] = (),
) -> ET.Element:
    suite = ET.SubElement(root, "testsuite", name=xml_text(f"{rule.id}: {one_line(rule.title)}"))
    props = ET.SubElement(suite, "properties")
    for name, value in (
        ("ruleId", rule.id),
        ("severity", rule.severity),
        ("resourceType", rule.resourceType),
        ("references", "; ".join(rule.references)),
        *((("controls", "; ".join(controls)),) if controls else ()),  # mcsb:PA-1; cis:5.27
    ):
        ET.SubElement(props, "property", name=name, value=xml_text(value))
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    classname = f"auditor.{rule.id}"
    for name, f in _cases(resources):
        counts["tests"] += 1
        case = ET.SubElement(suite, "testcase", classname=classname, name=name, time="0")
        if f.status == "fail":
            counts["failures"] += 1
            message = one_line(xml_text(f.message))
            failure = ET.SubElement(
                case, "failure", message=clip(message, MAX_MESSAGE), type=f.severity
            )
            failure.text = clip(_failure_text(f), MAX_BODY)
        elif f.status in ("unknown", "waived", "baselined"):
            counts["skipped"] += 1
            ET.SubElement(case, "skipped", message=clip(_skip_message(f), MAX_MESSAGE))
        elif f.message:
            ET.SubElement(case, "system-out").text = clip(one_line(xml_text(f.message)), MAX_BODY)
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
        where = f.source + (f":{f.line}" if f.line else "")
        where += f" at {f.address or f.location}" if f.address or f.location else ""
        lines += [f"Source: {where}"]
    if f.waiver is not None and f.waiver.expired:
        lines += [f"Waiver {f.waiver.id} expired on {f.waiver.expires}"]
    return xml_text("\n".join(lines))


def _skip_message(f: Finding) -> str:
    if f.status == "unknown":
        where = f" ({f.source}:{f.line})" if f.source and f.line else ""
        return xml_text(f"unknown: {one_line(f.message)}{where}")
    if f.status == "waived":
        if f.waiver is not None:
            return xml_text(
                f"waived by {f.waiver.id} until {f.waiver.expires}: "
                f"{one_line(f.waiver.justification)}"
            )
        return "waived"
    return "baselined: a known failure accepted by the baseline"
