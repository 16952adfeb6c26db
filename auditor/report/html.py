"""HTML: one self-contained file that works offline (no CDN, no external font, script or image).

Built from Jinja2 templates in the shipped ``reports/`` folder with autoescaping on and
``StrictUndefined``. Sections: executive summary (severity chart and status bar as inline SVG;
unknown findings, which no rule could judge, counted on their own card and filterable by status),
findings grouped by rule (evidence, remediation, references, source file and line) with filters and
search, an index by resource, the waiver register, the access section (privileged principals per
subscription and each shadow admin's escalation path as a small SVG graph), the access changes of
``gate --estate`` (before and after per principal), coverage (inputs read,
rules that lacked an input, files skipped) and the rule catalogue.

The listed findings (and, in a large estate, the privileged principals) travel as one compressed
data block (:mod:`auditor.report._html_data`) that the page's script draws a page of rows at a
time, so the report of a million role assignments stays near 17 MB and opens in seconds; up to
:data:`STATIC_ROWS` findings are also written as markup for a browser without JavaScript. The page
is written in parts (:func:`chunks`: before the block, the block as it is made and compressed,
after it), so the block is never held whole nor copied into the page's text.

Untrusted text is escaped and made inert (control characters and invisible bidi and format
characters shown as ``\\x1b`` or ``<U+202E>``: every value a template prints passes
:func:`_finalize`); evidence strings that carry markup (health-event descriptions) are cleaned by nh3
down to a few harmless tags. A Content-Security-Policy meta tag allows no source
but the one inline script, pinned by its SHA-256, inline styles and ``data:`` images, so nothing
from the data can run script even if it got through.

:func:`build_context` prepares the same view of a result for the PDF renderer.
"""

from __future__ import annotations

import base64
import hashlib
from collections import Counter, defaultdict
from contextlib import suppress
from dataclasses import dataclass, field
from functools import cache
from itertools import islice
from operator import attrgetter, gt, neg
from typing import TYPE_CHECKING, Any

from auditor._collector import paused
from auditor.audit.findings import (
    SEVERITIES,
    SEVERITY_RANK,
    Finding,
    Findings,
    RuleInfo,
    WaiverInfo,
)
from auditor.audit.names import describer
from auditor.report import _svg
from auditor.report._sanitize import (
    clean_html,
    escape_html,
    evidence_json,
    is_url,
    looks_like_html,
    scalar_text,
    xml_text,
)
from auditor.report.trends import trend_view

if TYPE_CHECKING:
    from collections.abc import Iterator

    from jinja2 import Environment
    from jinja2.bccache import Bucket, BytecodeCache
    from markupsafe import Markup

    from auditor.audit.findings import AuditResult, EscalationPath, Privileged
    from auditor.report import RenderOptions

STATUS_ORDER = {"fail": 0, "unknown": 1, "baselined": 2, "waived": 3, "pass": 4}
STATUSES = ("fail", "unknown", "baselined", "waived", "pass")


@dataclass(slots=True)
class FindingView:
    n: int
    f: Finding
    rule: RuleInfo
    name: str = ""
    """The resource in the names the snapshot holds (:func:`auditor.audit.names.describe`)."""

    @property
    def details(self) -> Markup:
        """Waiver, evidence, remediation and references (when they differ from the rule's),
        source: built with every value escaped, and only when a page prints them (the HTML
        page's script builds them from its data block)."""
        from markupsafe import Markup

        return Markup(details_html(self.f, self.rule))


@dataclass(slots=True)
class RuleGroup:
    rule: RuleInfo
    findings: list[FindingView] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    worst: str | None = None
    """The highest severity of the rule's failing findings (a finding may be rated above the
    rule's default by ``severityWhen``); None when nothing fails."""
    resources: list[str] = field(default_factory=list, compare=False, repr=False)
    """The resource id of each of :attr:`findings` while the context is made (what they are
    ordered by, without going back to each finding)."""

    @property
    def failing(self) -> int:
        return self.counts.get("fail", 0)

    @property
    def severity(self) -> str:
        """The severity the rule is shown and ordered by: its worst failing finding's, else its
        default."""
        return self.worst or self.rule.severity


@dataclass
class PassedRow:
    """Passing findings counted per rule and resource type (listed only with
    ``--include-passed``)."""

    rule: RuleInfo
    resourceType: str
    count: int


@dataclass(slots=True)
class ResourceRow:
    resource: str
    resourceType: str
    name: str = ""
    findings: list[FindingView] = field(default_factory=list)


@dataclass
class WaiverRow:
    waiver: WaiverInfo
    state: str
    """``applied``, ``expired`` or ``stale``."""
    findings: int


@dataclass
class AccessChangeRow:
    """One change of the access delta (``gate --estate``) as the "Access changes" section shows
    it: the operation and scope, before and after, and what it goes through."""

    action: str
    scope: str
    before: str
    after: str
    via: str


@dataclass
class AccessPrincipal:
    principalId: str
    name: str
    changes: list[AccessChangeRow] = field(default_factory=list)


ESCALATION_GRAPHS = 100
"""Shadow admins' escalation paths drawn as a graph; the rest are listed as one line each."""

ACCESS_ROWS = 1_000
"""Changes the "Access changes" section lists (the JSON report's ``accessDelta`` has all)."""


def access_changes(result: AuditResult) -> dict[str, Any] | None:
    """The "Access changes" section: the access delta grouped by principal, before and after (at
    most :data:`ACCESS_ROWS` changes), with its summary; None when the run has no delta."""
    delta = result.accessDelta
    if delta is None:
        return None
    names: dict[str, str] = delta.names
    principals: list[AccessPrincipal] = []
    shown = 0
    for principal, changes in delta.by_principal().items():
        if shown >= ACCESS_ROWS:
            break
        row = AccessPrincipal(principal, names.get(principal) or principal)
        for c in changes[: ACCESS_ROWS - shown]:
            parts: list[str] = []
            if c.path:
                parts.append("through " + " → ".join(names.get(g, g) for g in c.path))
            ids, verb = (c.grantedBy, "granted by") if c.grantedBy else (c.deniedBy, "blocked by")
            if ids:
                more = f" (+{len(ids) - 1})" if len(ids) > 1 else ""
                parts.append(f"{verb} {ids[0]}{more}")
            action = c.action + (" (data)" if c.dataAction else "")
            row.changes.append(
                AccessChangeRow(action, c.scope, c.before, c.after, "; ".join(parts))
            )
        shown += len(row.changes)
        principals.append(row)
    return {
        "summary": delta.summary,
        "principals": principals,
        "more": len(delta.changes) - shown,
    }


def _ref_html(ref: str) -> str:
    if is_url(ref):
        e = escape_html(ref)
        return f'<a href="{e}" rel="noopener noreferrer" target="_blank">{e}</a>'
    return escape_html(ref)


def evidence_html(evidence: dict[str, Any]) -> str:
    """Evidence as a definition list: strings escaped, except those carrying markup (health-event
    descriptions), which are cleaned by nh3; arrays and objects as JSON blocks."""
    parts = ['<dl class="ev">']
    for key, value in evidence.items():
        parts.append(f"<dt>{escape_html(str(key))}</dt>")
        if isinstance(value, str):
            if looks_like_html(value):
                parts.append(f'<dd class="rich">{clean_html(value)}</dd>')
            else:
                parts.append(f"<dd>{escape_html(value)}</dd>")
        elif isinstance(value, dict | list | tuple):
            text = evidence_json(value, indent=None)
            if len(text) > 80:
                text = evidence_json(value)
            parts.append(f"<dd><pre>{escape_html(text)}</pre></dd>")
        else:
            parts.append(f"<dd>{escape_html(scalar_text(value))}</dd>")
    parts.append("</dl>")
    return "".join(parts)


def details_html(f: Finding, rule: RuleInfo) -> str:
    """The body of a finding's details (shared by the HTML and PDF reports)."""
    out: list[str] = []
    w = f.waiver
    if w is not None:
        what = "Expired waiver" if w.expired else "Waived by"
        out.append(
            f'<p class="waiver">{what} <code>{escape_html(w.id)}</code> until '
            f"{escape_html(w.expires)}: {escape_html(w.justification)}</p>"
        )
    if f.evidence:
        out.append(evidence_html(f.evidence))
    if f.remediation and f.remediation != rule.remediation:
        out.append(f"<p><strong>Remediation:</strong> {escape_html(f.remediation)}</p>")
    if f.references and tuple(f.references) != tuple(rule.references):
        refs = "; ".join(_ref_html(r) for r in f.references)
        out.append(f"<p><strong>References:</strong> {refs}</p>")
    where = ""
    if f.source:
        where = f"Source <code>{escape_html(f.source)}"
        where += f":{f.line}</code>" if f.line is not None else "</code>"
        at = f.address or f.location
        if at:
            where += f" at <code>{escape_html(at)}</code>"
        if f.location and f.address and f.location != f.address:
            where += f" (<code>{escape_html(f.location)}</code>)"
        where += " · "
    out.append(f'<p class="small">{where}fingerprint <code>{escape_html(f.fingerprint)}</code></p>')
    return "\n".join(out)


def _sort_key(f: Finding) -> tuple[int, int, str]:
    return (STATUS_ORDER.get(f.status, 9), -SEVERITY_RANK.get(f.severity, 0), f.resourceId)


def _view_key(v: FindingView) -> tuple[int, int, str]:
    """:func:`_sort_key` of a view's finding."""
    return _sort_key(v.f)


_status_severity = attrgetter("status", "severity")
_waiver_status = attrgetter("waiver", "status")
_resource = attrgetter("resource")
_subscription_role = attrgetter("subscription", "role")


def _by_failures(rows: list[ResourceRow], fails: list[int]) -> list[ResourceRow]:
    """Resource rows by their failing findings (``fails``, most first), then id without case,
    as a sort by that key would order them (equal keys in their order): sorted by id, then by
    failures, both stable, by keys made in C and compared as plain strings and numbers (a
    tuple's comparison costs several). (The ids are lowered here, all at once, rather than kept
    from the rows' making: made among the rows' objects, a large report's 55,000 of them left
    their memory scattered and the page's peak 8 MB higher.)"""
    order = sorted(range(len(rows)), key=list(map(str.lower, map(_resource, rows))).__getitem__)
    order.sort(key=list(map(neg, fails)).__getitem__)
    return list(map(rows.__getitem__, order))


def build_context(result: AuditResult, options: RenderOptions) -> dict[str, Any]:
    """Everything the HTML and PDF templates show, computed once."""
    rules: dict[str, RuleInfo] = {r.id: r for r in result.rules}
    groups: dict[str, RuleGroup] = {}
    row_of: dict[str, int] = {}  # resource id -> its row's place in these lists:
    rows: list[ResourceRow] = []
    fails: list[int] = []  # (its failing findings)
    passed: Counter[tuple[str, str]] = Counter()
    include_passed = options.include_passed
    names = result.names
    name_of = describer(names)  # describe()'s words, each subscription's name looked up once
    findings = result.findings
    # passes held in blocks are counted per block, never made (a large estate has millions)
    blocks = []
    if isinstance(findings, Findings) and findings.passes_last and not include_passed:
        blocks = findings.blocks
    rule_id: str | None = None
    group = None
    rule = None
    counts: dict[str, int] = {}
    listing = views_of = keying = None
    worst: str | None = None
    mixed: set[str] = set()  # rules whose listed findings differ in status or severity
    ranked: tuple[str, str] = ("", "")
    total = 0
    get_row = row_of.get
    for n, f in enumerate(findings.listed if blocks else findings):  # type: ignore[attr-defined]
        if f.ruleId != rule_id:  # (a rule's findings come together, mostly)
            rule_id = f.ruleId
            rule = rules.get(rule_id)
            if rule is None:
                rule = rules[rule_id] = RuleInfo(
                    rule_id, f.title, f.severity, f.resourceType, (), "", f.remediation,
                    f.references,
                )  # fmt: skip
            group = groups.get(rule_id)
            if group is None:
                group = groups[rule_id] = RuleGroup(rule)
            counts = group.counts
            views_of = group.findings
            listing = views_of.append
            keying = group.resources.append
            worst = group.worst
            first = views_of[0].f if views_of else None
            ranked = (first.status, first.severity) if first is not None else ("", "")
        assert group is not None and rule is not None and listing and keying
        status = f.status
        counts[status] = counts.get(status, 0) + 1
        if status == "pass" and not include_passed:
            # passes are counted, not listed: a large estate has millions of them
            passed[(f.ruleId, f.resourceType)] += 1
            continue
        severity = f.severity
        if not views_of:
            ranked = (status, severity)
        elif status != ranked[0] or severity != ranked[1]:
            mixed.add(f.ruleId)
        resource = f.resourceId
        at = get_row(resource)
        if at is None:
            at = row_of[resource] = len(rows)
            row = ResourceRow(resource, f.resourceType, name_of(resource))
            rows.append(row)
            fails.append(0)
        else:
            row = rows[at]
        if status == "fail":
            fails[at] += 1
            if severity != worst and (
                worst is None or SEVERITY_RANK[severity] > SEVERITY_RANK[worst]
            ):
                group.worst = worst = severity
        view = FindingView(n, f, rule, row.name)
        listing(view)
        keying(resource)
        row.findings.append(view)
        total += 1

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

    for rule_id, group in groups.items():
        if rule_id in mixed:
            group.findings.sort(key=_view_key)
        else:  # one status and severity: by resource id alone, in C (the same order)
            ids = group.resources
            if any(map(gt, ids, islice(ids, 1, None))):  # (mostly in order already)
                views_of = group.findings
                views_of[:] = map(
                    views_of.__getitem__, sorted(range(len(ids)), key=ids.__getitem__)
                )
        group.resources = []
    ordered_groups = sorted(
        groups.values(),
        key=lambda g: (
            0 if g.failing else 1,
            -SEVERITY_RANK.get(g.severity, 0),
            -g.failing,
            g.rule.id,
        ),
    )
    resource_rows = _by_failures(rows, fails)
    resources_failing = len(fails) - fails.count(0)
    del row_of, rows, fails
    for row in resource_rows:
        if len(row.findings) > 1:  # (most resources of a large estate list one finding)
            row.findings.sort(key=_view_key)

    summary = result.summary()
    # the listed findings read twice more, not four times (a large report lists 60,000): what
    # is not a pass is counted by (status, severity), the passes' count is the summary's
    judged = findings.listed if isinstance(findings, Findings) else findings
    graded = Counter(map(_status_severity, judged))  # (status, severity) -> findings
    status_counts: Counter[str] = Counter()
    for (status, _), n in graded.items():
        status_counts[status] += n
    status_counts["pass"] = summary["passed"]
    waived_by: Counter[str] = Counter(
        w.id for w, status in map(_waiver_status, judged) if w is not None and status != "pass"
    )
    waiver_rows = (
        [WaiverRow(w, "applied", waived_by.get(w.id, 0)) for w in result.waivers]
        + [WaiverRow(w, "expired", waived_by.get(w.id, 0)) for w in result.expiredWaivers]
        + [WaiverRow(w, "stale", 0) for w in result.staleWaivers]
    )
    privileged: dict[str, list[Privileged]] = defaultdict(list)
    escalations: list[tuple[EscalationPath, str]] = []
    if result.access is not None:
        for p in sorted(result.access.privileged, key=_subscription_role):
            privileged[p.subscription].append(p)
        # graphs for the paths a report draws (the rest are listed as one line each)
        escalations = [
            (e, _svg.escalation_graph(e) if i < ESCALATION_GRAPHS else "")
            for i, e in enumerate(result.access.escalations)
        ]

    bar = SEVERITY_RANK[result.failOn]
    failing = status_counts.get("fail", 0)
    blocking = sum(
        n for (status, sev), n in graded.items() if status == "fail" and SEVERITY_RANK[sev] >= bar
    )
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
        "resources_failing": resources_failing,
        "rules": sorted(rules.values(), key=lambda r: r.id),
        "rule_ids": sorted(groups),
        "waivers": waiver_rows,
        "privileged": dict(privileged),
        "escalations": escalations,
        "access_changes": access_changes(result),
        "trends": trend_view(result.history),
        "severity_chart": _svg.severity_chart(summary),
        "status_chart": _svg.status_bar(status_counts),
        "blocking": blocking,
        "failing": failing,
        "unknown": status_counts.get("unknown", 0),
        "coverage": result.coverage,
        "absent": sorted({n for i in result.coverage.inputs for n in i.get("absent", ())}),
        "total": total,
        "include_passed": include_passed,
        "passed_rows": [
            PassedRow(rules[rule_id], rtype, count)
            for (rule_id, rtype), count in sorted(passed.items())
        ],
    }


def _rid(value: object) -> Markup:
    """A resource id escaped and made inert, breakable only after its path separators
    (``<wbr>`` after each ``/``)."""
    from markupsafe import Markup

    text = value if isinstance(value, str) else scalar_text(value)
    return Markup(escape_html(text).replace("/", "/<wbr>"))


def _is_url(value: object) -> bool:
    return isinstance(value, str) and is_url(value)


def _finalize(value: Any) -> Any:
    """Every value a template prints, before autoescaping: text made inert. Markup is left alone:
    it is built by this package (details, charts) from values already made inert, or is the
    shipped CSS and script."""
    if value.__class__ is str:
        return value if value.isprintable() else xml_text(value)
    if isinstance(value, str) and not hasattr(value, "__html__"):
        return xml_text(value)
    return value


def _path_item(escalation: tuple[EscalationPath, str]) -> str:
    """A shadow admin's path listed as one line (``<li>``, the paths after those drawn as graphs),
    as the template printed it, every value made inert and escaped as the template does (made
    in Python: a large estate has thousands, and the template's loops took half its time)."""
    from markupsafe import escape

    e = escalation[0]
    steps = " → ".join([escape(_finalize(label)) for _, label in e.steps])
    return (
        f"<li><strong>{escape(_finalize(e.displayName))}</strong> (<code>"
        f"{escape(_finalize(e.principalId))}</code>) at <code>{escape(_finalize(e.scope))}</code>: "
        f"{steps}</li>\n"
    )


@cache
def environment() -> Environment:
    """The Jinja2 environment of the shipped templates (autoescape on, StrictUndefined, every
    printed value made inert)."""
    import jinja2

    from auditor._resources import data_dir

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(data_dir("reports"))),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
        finalize=_finalize,
        bytecode_cache=_bytecode_cache(),
    )
    env.tests["url"] = _is_url
    env.filters["tojson_pretty"] = evidence_json
    env.filters["rid"] = _rid
    return env


def _bytecode_cache() -> BytecodeCache | None:
    """Where the templates' compiled code is kept between runs (compiling them took about 0.05 s
    of every HTML report): files in the user's own private cache folder
    (:func:`auditor._resources.user_cache_dir`, as the parsers' tables; none when
    ``AUDITOR_CACHE_DIR`` is set but empty, or when the folder is not the user's own), named by
    this version of auditor and Jinja and the environment's settings; Jinja checks the template's
    text and the Python version itself. It never fails a report: a cache that cannot be read (or
    is corrupt) is compiled again, one that cannot be written is left alone."""
    import jinja2

    from auditor import __version__
    from auditor._resources import user_cache_dir

    folder = user_cache_dir()
    if folder is None:
        return None

    class TemplateCache(jinja2.FileSystemBytecodeCache):
        def load_bytecode(self, bucket: Bucket) -> None:
            try:
                super().load_bytecode(bucket)
            except Exception:  # (a corrupt or truncated entry: compiled again)
                bucket.reset()

        def dump_bytecode(self, bucket: Bucket) -> None:
            with suppress(Exception):  # (a read-only or full disk: nothing kept)
                super().dump_bytecode(bucket)

    settings = f"{__version__} {jinja2.__version__} {_TEMPLATE_SETTINGS}"
    tag = hashlib.sha256(settings.encode("utf-8")).hexdigest()[:16]
    return TemplateCache(str(folder), f"report-template-{tag}-%s.jinja-cache")


_TEMPLATE_SETTINGS = "autoescape trim_blocks lstrip_blocks finalize StrictUndefined 1"
"""The :func:`environment` settings the compiled code depends on (part of its cache's names:
change this text with them)."""


@cache
def asset(name: str) -> str:
    """A shipped text file of ``reports/`` (CSS, JavaScript)."""
    from auditor._resources import data_dir

    return (data_dir("reports") / name).read_text(encoding="utf-8")


def script_hash(script: str) -> str:
    """The CSP source expression allowing exactly this inline script."""
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def content_security_policy(script: str) -> str:
    return (
        "default-src 'none'; "
        f"script-src '{script_hash(script)}'; "
        "style-src 'unsafe-inline'; "
        "img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )


STATIC_ROWS = 1_000
"""Up to this many listed findings the page also holds them as markup, shown when JavaScript is
off (``<noscript>``: a browser running the script does not even parse it); a larger report says
that its findings need JavaScript."""


def render(result: AuditResult, options: RenderOptions, *, _legacy: bool = False) -> bytes:
    """The HTML report of ``result``.

    ``_legacy`` (for the benchmark's baseline only): every listed finding as markup in the page,
    as reports were written before the data block."""
    return b"".join(chunks(result, options, _legacy=_legacy))


_DATA = "\x00auditor:data\x00"
"""Where the data block goes in the rendered page (no printed value holds a NUL: they are all
made inert)."""


def chunks(
    result: AuditResult, options: RenderOptions, *, _legacy: bool = False
) -> Iterator[bytes]:
    """The bytes of :func:`render` as parts: the page before the data block, the block as it is
    made and compressed (:func:`~auditor.report._html_data.packed_parts`), the page after it (the
    block, most of a large report, is never held whole nor copied into the page's text)."""
    # the collector off while a page is made: its views, rows and columns are hundreds of
    # thousands of containers without a cycle in a large report, whose allocations set off
    # collections that walk everything alive since the audit's objects were frozen, again and
    # again (about 0.5 s of a 1,000,000-assignment audit's page)
    with paused():
        yield from _chunks(result, options, _legacy=_legacy)


def _chunks(result: AuditResult, options: RenderOptions, *, _legacy: bool) -> Iterator[bytes]:
    from markupsafe import Markup

    from auditor.report._html_data import FORMAT, packed_parts

    env = environment()
    script = asset("report.js")
    context = build_context(result, options)
    privileged_total = sum(len(rows) for rows in context["privileged"].values())
    privileged_static = _legacy or privileged_total <= STATIC_ROWS
    groups, resources = context["groups"], context["resources"]
    privileged = None if privileged_static else context["privileged"]
    context.update(
        css=Markup(asset("report.css")),
        script=Markup(script),
        csp=content_security_policy(script),
        Markup=Markup,
        data=Markup("" if _legacy else _DATA),
        data_format=FORMAT,
        legacy=_legacy,
        static_rows=_legacy or context["total"] <= STATIC_ROWS,
        privileged_static=privileged_static,
        privileged_total=privileged_total,
        escalation_graphs=len(context["escalations"]) if _legacy else ESCALATION_GRAPHS,
    )
    context["more_paths"] = Markup(
        "".join(map(_path_item, islice(context["escalations"], context["escalation_graphs"], None)))
    )
    page = env.get_template("report.html.j2").render(context)
    del context
    if _legacy:
        yield page.encode("utf-8")
        return
    head, mark, tail = page.partition(_DATA)
    del page
    if not mark or _DATA in tail:
        raise AssertionError("the HTML template must print the data block once")
    yield head.encode("utf-8")
    del head
    yield from packed_parts(groups, resources, STATUSES, privileged)
    yield tail.encode("utf-8")
