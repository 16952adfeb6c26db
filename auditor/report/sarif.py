"""SARIF 2.1.0 for code-scanning services.

Choices, and why:

- Every result is anchored to a real file: the ``--sarif-anchor`` file when one is given (a
  repository file standing for an estate that lives elsewhere), otherwise the finding's source
  (snapshot, plan or template), otherwise the audited target. URIs are relative to the source root
  (default: the current directory, which in CI is the checkout) with ``uriBaseId`` ``%SRCROOT%``; a
  file outside it gets an absolute ``file:`` URI. Code scanning needs ``region.startLine``: the
  finding's own line (a template resource's definition) when it has one, else the line of its JSON
  path in the file, else its nearest enclosing value's, else line 1 (:mod:`auditor.report._locate`).
  No snippet is copied from the file (a plan can hold literal secrets).
- An ``unknown`` finding (the rule could not judge the resource) is a result of level ``note``
  and kind ``review``, whatever the rule's severity: it never fails, but the reviewer should look.
- The resource id goes in ``logicalLocations``; the finding's fingerprint in
  ``partialFingerprints`` (key ``auditorFindingHash/v1``), so alerts follow the resource and the
  rule rather than a line number.
- Passing checks are not emitted. Code scanning turns results into alerts whatever their ``kind``,
  and a rule with no result in a run closes its open alerts, which is exactly what a pass should
  do; the number of passes is in ``invocations[0].properties``.
- Waived findings carry ``suppressions`` (kind ``external``: the waiver file, with its id,
  expiry and justification); baselined ones ``baselineState: unchanged``, new failures ``new``.
- Written as a stream (:func:`chunks`): the results are made and encoded a batch at a time
  into the log's text, so neither 25,000 result objects nor the whole text are held at once;
  the bytes are those of the whole document encoded at once.
- Limits: at most ``sarif_max_results`` (25,000) results, the most severe kept and a
  ``toolExecutionNotification`` saying how many were left out; at most 20 tags per rule; messages,
  descriptions and justifications clipped.
- Text from the data is made inert (:mod:`auditor.inert`): control characters and invisible bidi
  and format characters in messages, names and justifications are shown as ``\\x1b`` or
  ``<U+202E>``, and the file writes any left elsewhere as ``\\u`` escapes.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from auditor.audit.findings import SEVERITY_RANK, Finding, Findings, RuleInfo
from auditor.inert import inert_json
from auditor.report._locate import SourceLines, parse_json_path
from auditor.report._sanitize import clip, is_url, one_line, xml_text
from auditor.report.controls import keys_by_rule

if TYPE_CHECKING:
    from auditor.audit.findings import AuditResult
    from auditor.report import RenderOptions

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = "auditorFindingHash/v1"

SECURITY_SEVERITY: dict[str, str] = {
    "critical": "9.5",
    "high": "8.0",
    "medium": "5.5",
    "low": "3.0",
    "info": "1.0",
}
"""Code scanning maps ``security-severity`` > 9.0 to critical, 7.0-8.9 high, 4.0-6.9 medium,
0.1-3.9 low."""

LEVEL: dict[str, str] = {
    "critical": "error",
    "high": "error",
    "medium": "warning",
    "low": "note",
    "info": "note",
}

MAX_TAGS = 20
MAX_MESSAGE = 4_000
MAX_SHORT = 1_000
MAX_FULL = 4_000
MAX_HELP = 16_000
MAX_JUSTIFICATION = 1_000


def render(result: AuditResult, options: RenderOptions) -> bytes:
    """The SARIF log of ``result`` (one run), as compact UTF-8 JSON (code scanning caps the
    upload's size; tools that show SARIF indent it themselves)."""
    return b"".join(chunks(result, options))


BATCH = 1_000
"""Results made and encoded together by :func:`chunks`."""

_RESULTS = "\x00results\x00"
"""Where :func:`chunks` splices the results into the log's text (the last value of that text
but ``columnKind``'s)."""


def chunks(result: AuditResult, options: RenderOptions) -> Iterator[bytes]:
    """The bytes of :func:`render` as parts: the results are made and encoded :data:`BATCH` at a
    time, so neither their objects nor the whole log's text are held at once (25,000 results
    took about 140 MB)."""
    doc, results = _log(result, options)
    doc["runs"][0]["results"] = _RESULTS
    text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
    head, _, tail = text.rpartition(json.dumps(_RESULTS))
    del text
    yield inert_json(head + "[").encode("utf-8")
    batch: list[dict[str, Any]] = []
    first = True
    for item in results:
        batch.append(item)
        if len(batch) >= BATCH:
            part = json.dumps(batch, ensure_ascii=False, separators=(",", ":"))[1:-1]
            yield inert_json(part if first else "," + part).encode("utf-8")
            first = False
            batch.clear()
    if batch:
        part = json.dumps(batch, ensure_ascii=False, separators=(",", ":"))[1:-1]
        yield inert_json(part if first else "," + part).encode("utf-8")
    yield inert_json("]" + tail).encode("utf-8") + b"\n"


def build(result: AuditResult, options: RenderOptions) -> dict[str, Any]:
    """The SARIF log as a JSON-ready dict."""
    doc, results = _log(result, options)
    doc["runs"][0]["results"] = list(results)
    return doc


def _log(
    result: AuditResult, options: RenderOptions
) -> tuple[dict[str, Any], Iterator[dict[str, Any]]]:
    """The SARIF log with its run's ``results`` left empty, and the results, made as they are
    read (every result is located first: the artifact table comes before them)."""
    root = Path(options.source_root or os.getcwd()).resolve()
    rules = _all_rules(result)
    rule_index = {r.id: i for i, r in enumerate(rules)}

    reported = result.judged  # unknown ones included; passes are never made
    reported.sort(key=lambda f: (-SEVERITY_RANK.get(f.severity, 0), _status_order(f.status)))
    limit = max(0, options.sarif_max_results)
    dropped = max(0, len(reported) - limit)
    kept = reported[:limit]

    artifacts = _Artifacts(root, result, options.sarif_anchor, kept)
    located = [artifacts.locate(f) for f in kept]
    results = (_result(f, rule_index, at) for f, at in zip(kept, located, strict=True))

    notifications: list[dict[str, Any]] = []
    if dropped:
        notifications.append(
            {
                "level": "warning",
                "descriptor": {"id": "auditor/results-capped"},
                "message": {
                    "text": f"{dropped} of {len(reported)} results were left out (the least severe) "
                    f"to stay within {limit} results per run; the JSON report has them all."
                },
            }
        )
    for source in result.incomplete:
        notifications.append(
            {
                "level": "error",
                "descriptor": {"id": "auditor/incomplete"},
                "message": {"text": clip(f"Could not read in full: {one_line(source)}", 1000)},
            }
        )
    summary = result.summary()
    invocation: dict[str, Any] = {
        "executionSuccessful": not result.incomplete,
        "startTimeUtc": result.startedAt,
        "endTimeUtc": result.finishedAt,
        "properties": {
            "summary": summary,
            "failOn": result.failOn,
            "gateFailed": result.gate_failed,
            "target": xml_text(result.target),
            "expiredWaivers": [w.id for w in result.expiredWaivers],
            "staleWaivers": [w.id for w in result.staleWaivers],
            "baselineFixed": len(result.baselineFixed),
        },
    }
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "auditor",
                "semanticVersion": result.toolVersion,
                "version": result.toolVersion,
                "rules": [_rule(r, keys_by_rule(result).get(r.id, ())) for r in rules],
            }
        },
        "automationDetails": {"id": f"auditor/{result.targetKind}/"},
        "invocations": [invocation],
        "originalUriBaseIds": {SRCROOT: {"uri": root.as_uri() + "/"}},
        "artifacts": artifacts.table(),
        "results": [],
        "columnKind": "unicodeCodePoints",
    }
    return {"$schema": SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}, results


def _status_order(status: str) -> int:
    return {"fail": 0, "unknown": 1, "baselined": 2, "waived": 3}.get(status, 4)


def _first_of_each(findings: Iterable[Finding], known: set[str]) -> Iterator[Finding]:
    """The findings, but of each block of passes only the first, and only when its rule is not
    ``known`` (enough to name the rule)."""
    if not isinstance(findings, Findings):
        yield from findings
        return
    for segment in findings.segments():
        if isinstance(segment, list):
            yield from segment
        elif segment.ruleId not in known:
            yield next(iter(segment))


def _all_rules(result: AuditResult) -> list[RuleInfo]:
    """The catalogue's rules plus any rule a finding names that the catalogue lacks."""
    rules = list(result.rules)
    known = {r.id for r in rules}
    for f in _first_of_each(result.findings, known):
        if f.ruleId not in known:
            known.add(f.ruleId)
            rules.append(
                RuleInfo(
                    id=f.ruleId,
                    title=f.title or f.ruleId,
                    severity=f.severity,
                    resourceType=f.resourceType,
                    runsOn=(),
                    remediation=f.remediation,
                    references=f.references,
                )
            )
    return rules


def _pascal(text: str) -> str:
    words = re.findall(r"[A-Za-z0-9]+", text)
    return "".join(w[:1].upper() + w[1:] for w in words) or "Rule"


def _rule(rule: RuleInfo, controls: Sequence[str] = ()) -> dict[str, Any]:
    title = one_line(xml_text(rule.title)) or rule.id
    description = one_line(xml_text(rule.description)) or title
    remediation = xml_text(rule.remediation).strip()
    refs = [one_line(xml_text(r)) for r in rule.references if r.strip()]
    help_text = remediation or "See the rule description."
    help_md = help_text
    if refs:
        help_text += "\n\nReferences:\n" + "\n".join(f"- {r}" for r in refs)
        help_md += "\n\n**References**\n\n" + "\n".join(
            f"- <{r}>" if is_url(r) else f"- {_md_plain(r)}" for r in refs
        )
    tags = ["security", rule.severity]
    if rule.resourceType:
        tags.append(rule.resourceType)
    tags.extend(f"runs-on/{k}" for k in rule.runsOn)
    tags.extend(controls)  # the framework controls the rule answers (mcsb:PA-1)
    tags.extend(f"external/{_tag(r)}" for r in refs)
    tags = list(dict.fromkeys(t for t in tags if t))[:MAX_TAGS]
    out: dict[str, Any] = {
        "id": rule.id,
        "name": _pascal(title),
        "shortDescription": {"text": clip(title, MAX_SHORT)},
        "fullDescription": {"text": clip(description, MAX_FULL)},
        "help": {"text": clip(help_text, MAX_HELP), "markdown": clip(help_md, MAX_HELP)},
        "defaultConfiguration": {"level": LEVEL.get(rule.severity, "warning")},
        "properties": {
            "security-severity": SECURITY_SEVERITY.get(rule.severity, "5.5"),
            "severity": rule.severity,
            "precision": "high",
            "problem.severity": _problem_severity(rule.severity),
            "tags": tags,
        },
    }
    from auditor.audit.rule_docs import rule_page_url  # the rule's page, with a docs base URL

    urls = [u for u in [rule_page_url(rule.id)] if u] + [r for r in refs if is_url(r)]
    if urls:
        out["helpUri"] = urls[0]
    return out


def _problem_severity(severity: str) -> str:
    return {"critical": "error", "high": "error", "medium": "warning"}.get(
        severity, "recommendation"
    )


def _tag(reference: str) -> str:
    return re.sub(r"\s+", "-", reference.strip())[:80]


def _md_plain(text: str) -> str:
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|<>])", r"\\\1", text)


def _result(
    f: Finding, rule_index: dict[str, int], located: tuple[str, int, int]
) -> dict[str, Any]:
    message = one_line(xml_text(f.message)) or one_line(xml_text(f.title)) or f.ruleId
    uri, index, line = located
    physical: dict[str, Any] = {
        "artifactLocation": _artifact_location(uri, index),
        "region": {"startLine": line},
    }
    resource = one_line(xml_text(f.resourceId)) or "(unnamed resource)"
    logical: dict[str, Any] = {
        "fullyQualifiedName": resource,
        "name": resource.rstrip("/").rsplit("/", 1)[-1] or resource,
        "kind": "resource",
    }
    unknown = f.status == "unknown"
    out: dict[str, Any] = {
        "ruleId": f.ruleId,
        "ruleIndex": rule_index[f.ruleId],
        "kind": "review" if unknown else "fail",
        "level": "note" if unknown else LEVEL.get(f.severity, "warning"),
        "message": {"text": clip(message, MAX_MESSAGE)},
        "locations": [{"physicalLocation": physical, "logicalLocations": [logical]}],
        "baselineState": "unchanged" if f.status == "baselined" else "new",
        "properties": {
            "severity": f.severity,
            "status": f.status,
            "security-severity": SECURITY_SEVERITY.get(f.severity, "5.5"),
            "resourceType": f.resourceType,
        },
    }
    if f.fingerprint:
        out["partialFingerprints"] = {FINGERPRINT_KEY: f.fingerprint}
    if f.location:
        out["properties"]["jsonPath"] = clip(xml_text(f.location), 1000)
    if f.address:
        out["properties"]["address"] = clip(xml_text(f.address), 1000)
    if f.status == "waived":
        suppression: dict[str, Any] = {"kind": "external", "status": "accepted"}
        if f.waiver is not None:
            suppression["justification"] = clip(
                one_line(xml_text(f.waiver.justification)) or "waived", MAX_JUSTIFICATION
            )
            suppression["properties"] = {
                "waiverId": xml_text(f.waiver.id),
                "expires": xml_text(f.waiver.expires),
            }
        else:
            suppression["justification"] = "waived"
        out["suppressions"] = [suppression]
    return out


def _artifact_location(uri: str, index: int) -> dict[str, Any]:
    loc: dict[str, Any] = {"uri": uri, "index": index}
    if not uri.startswith("file:"):
        loc["uriBaseId"] = SRCROOT
    return loc


class _Artifacts:
    """The files results point at: their URIs, artifact indexes and the lines of findings."""

    def __init__(
        self, root: Path, result: AuditResult, anchor: str | None, findings: list[Finding]
    ) -> None:
        self.root = root
        self.anchor = anchor
        self.fallback = anchor or (result.target if result.targetKind != "api" else None)
        self.uris: dict[str, int] = {}
        self.order: list[tuple[str, str]] = []  # (uri, role)
        self._uri_cache: dict[str, str] = {}
        # the paths wanted per file are collected first, so each file is scanned once
        self.lines = SourceLines(findings, self._file_for)

    def _file_for(self, f: Finding) -> str | None:
        return self.anchor or f.source or self.fallback

    def locate(self, f: Finding) -> tuple[str, int, int]:
        path = self._file_for(f)
        if path is None or not path.strip():
            path = "auditor-findings"
        uri = self._uri(path)
        index = self.uris.get(uri)
        if index is None:
            index = self.uris[uri] = len(self.order)
            self.order.append((uri, "analysisTarget"))
        return uri, index, self.lines.line(f) or 1

    def _uri(self, path: str) -> str:
        uri = self._uri_cache.get(path)
        if uri is None:
            uri = self._uri_cache[path] = self._make_uri(path)
        return uri

    def _make_uri(self, path: str) -> str:
        if re.match(r"^[A-Za-z][A-Za-z0-9+.\-]*://", path):
            return path  # already a URI (an API base URL as a last resort)
        p = Path(path)
        absolute = (p if p.is_absolute() else Path.cwd() / p).resolve()
        try:
            rel = absolute.relative_to(self.root)
        except ValueError:
            return absolute.as_uri()
        return quote(rel.as_posix(), safe="/-_.~") or quote(absolute.name)

    def table(self) -> list[dict[str, Any]]:
        out = []
        for uri, role in self.order:
            loc: dict[str, Any] = {"uri": uri}
            if not uri.startswith("file:"):
                loc["uriBaseId"] = SRCROOT
            out.append({"location": loc, "roles": [role]})
        return out


__all__ = ["build", "chunks", "parse_json_path", "render"]
