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

The document is written as a stream (:func:`chunks`): a suite at a time, the passes of a
:class:`~auditor.audit.findings.PassBlock` that share one finding (``proto``) written from their
resource ids alone, a chunk at a time, so a million passes never exist as objects. The bytes are
those of :func:`render_tree` (the whole ``ElementTree`` built, indented and serialised at once),
which the tests compare.
"""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from auditor.audit.findings import Finding, Findings, Located, PassBlock, RuleInfo
from auditor.report._sanitize import clip, evidence_json, one_line, xml_text
from auditor.report.controls import keys_by_rule

if TYPE_CHECKING:
    from auditor.audit.findings import AuditResult
    from auditor.report import RenderOptions

MAX_MESSAGE = 2_000
MAX_BODY = 20_000


def render_tree(result: AuditResult, options: RenderOptions | None = None) -> bytes:
    """The JUnit XML document of ``result`` built as one tree: the reference the stream of
    :func:`chunks` equals (it holds every finding, passes too, in memory)."""
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
        root.append(_incomplete_suite(incomplete))
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
    suite = ET.SubElement(root, "testsuite", name=_suite_name(rule))
    suite.append(_properties(rule, controls))
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    classname = f"auditor.{rule.id}"
    for name, f in _cases(resources):
        counts["tests"] += 1
        suite.append(_case_element(classname, name, f))
        if f.status == "fail":
            counts["failures"] += 1
        elif f.status in _SKIPPED:
            counts["skipped"] += 1
    for key, count in counts.items():
        suite.set(key, str(count))
    suite.set("time", "0")
    suite.set("timestamp", timestamp.removesuffix("Z"))
    return suite


_SKIPPED = frozenset({"unknown", "waived", "baselined"})


def _suite_name(rule: RuleInfo) -> str:
    return xml_text(f"{rule.id}: {one_line(rule.title)}")


def _properties(rule: RuleInfo, controls: Sequence[str]) -> ET.Element:
    props = ET.Element("properties")
    for name, value in (
        ("ruleId", rule.id),
        ("severity", rule.severity),
        ("resourceType", rule.resourceType),
        ("references", "; ".join(rule.references)),
        *((("controls", "; ".join(controls)),) if controls else ()),  # mcsb:PA-1; cis:5.27
    ):
        ET.SubElement(props, "property", name=name, value=xml_text(value))
    return props


def _incomplete_suite(incomplete: str) -> ET.Element:
    """The suite of a source that could not be read: one test case in error."""
    suite = ET.Element(
        "testsuite", name="auditor: sources", tests="1", failures="0", errors="1", skipped="0",
        time="0",
    )  # fmt: skip
    case = ET.SubElement(suite, "testcase", classname="auditor.sources",
                         name=xml_text(incomplete), time="0")  # fmt: skip
    ET.SubElement(case, "error", message=clip(xml_text(f"could not read {incomplete}"), 500),
                  type="incomplete")  # fmt: skip
    return suite


def _case_element(classname: str, name: str, f: Finding) -> ET.Element:
    """The ``testcase`` of one finding."""
    case = ET.Element("testcase", classname=classname, name=name, time="0")
    if f.status == "fail":
        message = one_line(xml_text(f.message))
        failure = ET.SubElement(
            case, "failure", message=clip(message, MAX_MESSAGE), type=f.severity
        )
        failure.text = clip(_failure_text(f), MAX_BODY)
    elif f.status in _SKIPPED:
        ET.SubElement(case, "skipped", message=clip(_skip_message(f), MAX_MESSAGE))
    elif f.message:
        ET.SubElement(case, "system-out").text = clip(one_line(xml_text(f.message)), MAX_BODY)
    return case


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


# -- the stream ------------------------------------------------------------------------------------

CHUNK = 5_000
"""Test cases written at a time."""
_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'
_CASE = "\n    "
"""What comes before each child of a suite (its indentation in the tree)."""
_COUNTS = ("tests", "failures", "errors", "skipped")


def render(result: AuditResult, options: RenderOptions | None = None) -> bytes:
    """The JUnit XML document of ``result`` (:func:`chunks` joined)."""
    return b"".join(chunks(result, options))


def chunks(result: AuditResult, options: RenderOptions | None = None) -> Iterator[bytes]:
    """The document of :func:`render_tree`, a suite and a few thousand test cases at a time; the
    passes of a block sharing one finding are written from their resource ids, never made."""
    parts = _parts_by_rule(result.findings)
    rules: list[RuleInfo] = list(result.rules)
    known = {r.id for r in rules}
    for rule_id, rule_parts in parts.items():
        if rule_id not in known:
            first = _first(rule_parts[0])
            known.add(rule_id)
            rules.append(RuleInfo(rule_id, first.title, first.severity, first.resourceType, ()))
    plans = [_plan(rule, parts.get(rule.id, [])) for rule in rules]
    totals = dict.fromkeys(_COUNTS, 0)
    for plan in plans:
        for key in _COUNTS:
            totals[key] += plan.counts[key]
    totals["tests"] += len(result.incomplete)
    totals["errors"] += len(result.incomplete)
    attributes = [
        ("name", xml_text(f"auditor: {result.target}")),
        *((key, str(value)) for key, value in totals.items()),
        ("time", "0"),
    ]
    if not plans and not result.incomplete:
        yield (_DECLARATION + _start("testsuites", attributes, empty=True) + "\n").encode()
        return
    yield (_DECLARATION + _start("testsuites", attributes)).encode()
    controls = keys_by_rule(result)
    for plan in plans:
        yield b"\n  "
        yield from _suite_chunks(plan, result.startedAt, controls.get(plan.rule.id, ()))
    for incomplete in result.incomplete:
        suite = _incomplete_suite(incomplete)
        ET.indent(suite, space="  ", level=1)
        yield ("\n  " + ET.tostring(suite, encoding="unicode")).encode()
    yield b"\n</testsuites>\n"


Part = Finding | PassBlock


class _Plan:
    """One rule's suite: its findings and blocks in order, its counts, and, when a resource has
    several findings of the rule, every finding grouped by resource (made: :func:`render_tree`'s
    order and names, for this rule only)."""

    __slots__ = ("counts", "grouped", "parts", "rule")

    def __init__(
        self,
        rule: RuleInfo,
        parts: list[Part],
        counts: dict[str, int],
        grouped: dict[str, list[Finding]] | None,
    ) -> None:
        self.rule = rule
        self.parts = parts
        self.counts = counts
        self.grouped = grouped


def _parts_by_rule(findings: Iterable[Finding]) -> dict[str, list[Part]]:
    """Rule id -> its findings and pass blocks, in the order of iteration (rules in the order
    of their first finding)."""
    out: dict[str, list[Part]] = {}
    segments: Iterable[Iterable[Finding] | PassBlock]
    segments = findings.segments() if isinstance(findings, Findings) else [findings]
    for segment in segments:
        if type(segment) is PassBlock:
            out.setdefault(segment.ruleId, []).append(segment)
            continue
        for f in segment:
            out.setdefault(f.ruleId, []).append(f)
    return out


def _first(part: Part) -> Finding:
    return next(iter(part)) if type(part) is PassBlock else part  # type: ignore[return-value]


def _made(part: Part) -> Iterable[Finding]:
    """The findings of ``part`` (a block's made one by one, as read)."""
    return part if isinstance(part, PassBlock) else (part,)


def _bulk(part: Part) -> bool:
    """Whether ``part`` is a block of passes that share one finding (written without it)."""
    return type(part) is PassBlock and part.proto is not None and part.proto.status == "pass"


def _plan(rule: RuleInfo, parts: list[Part]) -> _Plan:
    counts = dict.fromkeys(_COUNTS, 0)
    seen: set[str] = set()
    total = 0

    def count(f: Finding) -> None:
        if f.status == "fail":
            counts["failures"] += 1
        elif f.status in _SKIPPED:
            counts["skipped"] += 1
        seen.add(f.resourceId)

    for part in parts:
        if type(part) is PassBlock:
            if _bulk(part):
                for rids in _resource_ids(part):
                    seen.update(rids)
            else:
                for f in part:  # made and dropped
                    count(f)
            total += len(part)
        else:
            count(part)  # type: ignore[arg-type]
            total += 1
    counts["tests"] = total
    grouped: dict[str, list[Finding]] | None = None
    if len(seen) != total:  # a resource with several findings of the rule: named apart
        grouped = {}
        for part in parts:
            for f in _made(part):
                grouped.setdefault(f.resourceId, []).append(f)
    return _Plan(rule, parts, counts, grouped)


def _resource_ids(block: PassBlock) -> Iterator[list[str]]:
    """The resource ids of a bulk block's passes, a chunk at a time."""
    items = block.items
    if isinstance(items, Located):
        for start in range(0, len(items), CHUNK):
            yield items.columns(start, start + CHUNK)[0]
        return
    it = iter(items)
    while batch := list(itertools.islice(it, CHUNK)):
        yield [item[0] for item in batch]


def _suite_chunks(plan: _Plan, timestamp: str, controls: Sequence[str]) -> Iterator[bytes]:
    rule = plan.rule
    attributes = [
        ("name", _suite_name(rule)),
        *((key, str(plan.counts[key])) for key in _COUNTS),
        ("time", "0"),
        ("timestamp", timestamp.removesuffix("Z")),
    ]
    props = _properties(rule, controls)
    ET.indent(props, space="  ", level=2)
    yield (
        _start("testsuite", attributes) + _CASE + ET.tostring(props, encoding="unicode")
    ).encode()
    classname = f"auditor.{rule.id}"
    if plan.grouped is not None:
        cases = (_case_xml(classname, name, f) for name, f in _cases(plan.grouped))
        yield from _joined(cases)
    else:
        for part in plan.parts:
            if _bulk(part):
                yield from _bulk_cases(classname, part)  # type: ignore[arg-type]
            else:
                yield from _joined(
                    _case_xml(classname, xml_text(f.resourceId) or "(unnamed)", f)
                    for f in _made(part)
                )
    yield b"\n  </testsuite>"


def _joined(cases: Iterable[str]) -> Iterator[bytes]:
    """The test cases, each after its indentation, a chunk at a time."""
    it = iter(cases)
    while batch := list(itertools.islice(it, CHUNK)):
        yield (_CASE + _CASE.join(batch)).encode()


def _case_xml(classname: str, name: str, f: Finding) -> str:
    """The ``testcase`` of one finding as the tree writes it (a pass without the tree)."""
    if f.status == "pass":
        return _pass_head(classname) + _attribute(name) + _pass_tail(f.message)
    case = _case_element(classname, name, f)
    ET.indent(case, space="  ", level=2)
    return ET.tostring(case, encoding="unicode")


def _bulk_cases(classname: str, block: PassBlock) -> Iterator[bytes]:
    """The test cases of a block's passes, from their resource ids (one name each: the plan
    found no resource with another finding of the rule)."""
    assert block.proto is not None
    head, tail = _pass_head(classname), _pass_tail(block.proto.message)
    between = tail + _CASE + head
    for rids in _resource_ids(block):
        names = [name or "(unnamed)" for name in map(xml_text, rids)]
        joined = "\x00".join(names)  # no name holds NUL (xml_text shows it as text)
        if joined.count("\x00") == len(names) - 1:
            escaped = _attribute(joined).split("\x00")
        else:  # pragma: no cover - defensive
            escaped = [_attribute(name) for name in names]
        yield (_CASE + head + between.join(escaped) + tail).encode()


def _pass_head(classname: str) -> str:
    return f'<testcase classname="{_attribute(classname)}" name="'


def _pass_tail(message: str) -> str:
    """What follows a passing test case's name: its message as ``system-out``, if any."""
    if not message:
        return '" time="0" />'
    text = clip(one_line(xml_text(message)), MAX_BODY)
    out = f"<system-out>{_cdata(text)}</system-out>" if text else "<system-out />"
    return f'" time="0">\n      {out}\n    </testcase>'


def _start(tag: str, attributes: Iterable[tuple[str, str]], *, empty: bool = False) -> str:
    text = "".join(f' {key}="{_attribute(value)}"' for key, value in attributes)
    return f"<{tag}{text}{' />' if empty else '>'}"


_ATTRIBUTE_ESCAPES = (
    ("&", "&amp;"),
    ("<", "&lt;"),
    (">", "&gt;"),
    ('"', "&quot;"),
    ("\r", "&#13;"),
    ("\n", "&#10;"),
    ("\t", "&#09;"),
)


def _attribute(text: str) -> str:
    """An attribute value escaped as ``ElementTree`` escapes it."""
    for char, entity in _ATTRIBUTE_ESCAPES:
        if char in text:
            text = text.replace(char, entity)
    return text


def _cdata(text: str) -> str:
    """Element text escaped as ``ElementTree`` escapes it."""
    for char, entity in _ATTRIBUTE_ESCAPES[:3]:
        if char in text:
            text = text.replace(char, entity)
    return text
