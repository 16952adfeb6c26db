"""What one run puts in the history: its target, inputs and their hashes, settings, findings and
pass counts (:func:`record_run`).

- **Target** (:class:`Target`): the key that says "the same estate" across runs. A snapshot (read
  from a file or collected from the API) is its tenant and its subscriptions:
  ``tenant:<id> subscriptions:<count>:<hash>`` (the hash of the sorted, lower-cased subscription
  ids; one subscription is named: ``subscriptions:<id>``), so a subscription added or removed
  starts a new target (compare across it with ``history diff RUN_A RUN_B``). Without a tenant or subscriptions it is the input as given:
  ``snapshot:<path>`` or ``api:<url>``; a plan (``gate``) is ``plan:<path>``, the path as given
  (relative paths stay relative, so CI jobs checked out in different folders share a target).
- **Inputs**: each file read (snapshot or plan, waivers, baseline, configuration, scanned files),
  with its size and SHA-256, hashed in full (in chunks of 8 MiB: 0.5-1.2 s for an 800 MB snapshot
  already in the page cache, a few percent of its audit); the API by its URL.
- **Findings**: failing, unknown, waived and baselined ones, each as its fingerprint, rule,
  severity, status, resource, title, message, evidence (JSON, already without secrets: the engine
  never puts one in a finding), source and waiver id. A finding whose content is unchanged since an
  earlier run is stored once and shared (by a digest of its content), and a run holds its findings
  as ranges of their ids: a run that changes little costs little. Passes are stored as counts per
  rule and resource type.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import os
import re
import sqlite3
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import groupby
from operator import attrgetter
from typing import TYPE_CHECKING, Any, NewType

import msgspec

from auditor.audit.findings import AuditResult, Finding, Findings, RuleInfo, pass_counts

if TYPE_CHECKING:
    from auditor.audit.runner import AuditOptions

RunId = NewType("RunId", int)
"""A run's number in its history file (increasing in the order runs were recorded)."""

OPEN_STATUSES = ("fail", "waived", "baselined")
"""Statuses of a finding the rule found: failing, whether or not a waiver or baseline hides it."""
RECORDED_STATUSES = (*OPEN_STATUSES, "unknown")
"""Statuses stored finding by finding (passes are counted)."""
LISTED_SUBSCRIPTIONS = 1
"""Subscriptions named in a target key; more are given as their count and a hash (keys stay
short)."""

_SUBSCRIPTION_SCOPE = re.compile(r"^/subscriptions/([^/]+)/?$", re.IGNORECASE)
_JSON = msgspec.json.Encoder(order="sorted", enc_hook=str)


def _encode(value: Any) -> bytes:
    """Canonical JSON (keys sorted; anything JSON has no type for as its ``str``)."""
    try:
        return _JSON.encode(value)
    except (TypeError, ValueError, OverflowError):  # e.g. a key that is not a string
        return _JSON.encode(_plain(value))


def _plain(value: Any) -> Any:
    """``value`` with every key a string, every number JSON can hold, the rest as its ``str``."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 1 << 63:
        return str(value)
    return value


@dataclass(frozen=True)
class Target:
    """What a run audited: ``key`` is stable for the same estate, ``name`` the input as given."""

    key: str
    kind: str
    """``snapshot``, ``api`` or ``plan``."""
    name: str


def _path(name: str) -> str:
    return os.path.normpath(name).replace(os.sep, "/")


def estate_key(tenant_id: str | None, subscriptions: Iterable[str]) -> str | None:
    """``tenant:<id> subscriptions:<count>:<hash>`` for an estate (None when it names
    neither)."""
    subs = sorted({s.strip().lower() for s in subscriptions if s.strip()})
    parts = []
    if tenant_id and tenant_id.strip():
        parts.append(f"tenant:{tenant_id.strip().lower()}")
    if subs:
        if len(subs) <= LISTED_SUBSCRIPTIONS:
            parts.append("subscriptions:" + ",".join(subs))
        else:
            digest = hashlib.sha256("\n".join(subs).encode()).hexdigest()[:12]
            parts.append(f"subscriptions:{len(subs)}:{digest}")
    return " ".join(parts) or None


def snapshot_subscriptions(snapshot: Any) -> list[str]:
    """The subscription ids a snapshot's hierarchy lists."""
    out = []
    for entry in getattr(snapshot, "hierarchy", None) or ():
        m = _SUBSCRIPTION_SCOPE.match(getattr(entry, "id", "") or "")
        if m is not None:
            out.append(m.group(1))
    return out


def target_of(result: AuditResult, snapshot: Any = None) -> Target:
    """The target of a run (see the module's documentation). ``snapshot``: the estate audited, when
    the run audited one (its ``tenantId`` and ``hierarchy`` are read)."""
    kind = result.targetKind
    name = result.target if kind == "api" else _path(result.target)
    if kind == "plan":
        return Target(f"plan:{name}", kind, name)
    key = None
    if snapshot is not None:
        key = estate_key(getattr(snapshot, "tenantId", None), snapshot_subscriptions(snapshot))
    return Target(key or f"{kind}:{name}", kind, name)


Content = tuple[Any, ...]
"""A finding as stored: fingerprint, rule, severity, status, resource id, resource type, title,
message, evidence (the object), source file, source line, address, location, waiver id. Its
resource type and title are None when they are its rule's, its address None when it is its
location (or unknown)."""


def contents(
    findings: Iterable[Finding], rules: Mapping[str, RuleInfo]
) -> list[tuple[bytes, Content]]:
    """Each finding's stored content, led by the digest of that content (which dedupes it)."""
    encode = _encode
    blake2b = hashlib.blake2b
    out = []
    for f in findings:
        rule = rules.get(f.ruleId)
        src = f.source
        title: str | None = f.title
        kind: str | None = f.resourceType
        if rule is not None:
            title = None if title == rule.title else title
            kind = None if kind == rule.resourceType else kind
        location = f.location
        address = f.address
        content = (
            f.fingerprint,
            f.ruleId,
            f.severity,
            f.status,
            f.resourceId,
            kind,
            title,
            f.message,
            f.evidence,
            None if src is None else src if type(src) is str else str(src),
            f.line,
            None if address == location else address,
            location,
            None if f.waiver is None else f.waiver.id,
        )
        out.append((blake2b(encode(content), digest_size=16).digest(), content))
    return out


def finding_rows(
    finding_id: int, digest: bytes, content: Content
) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """The ``finding`` and ``finding_detail`` rows of one content (its evidence as JSON text)."""
    return (
        (finding_id, digest, *content[:6]),
        (finding_id, content[6], content[7], _encode(content[8]).decode(), *content[9:]),
    )


@dataclass
class Scan:
    """One pass over a run's findings: those that are not passes, and the passes counted."""

    judged: list[Finding]
    passes: dict[tuple[str, str], int]
    """(rule, resource type) -> passes."""


def scan(findings: Sequence[Finding]) -> Scan:
    """Split the findings into judged ones and pass counts. A rule's findings are mostly next to
    each other (the runner lists passes last, rule by rule), so they are taken a rule at a time
    and a group of passes of one resource type is counted without looking at each."""
    if isinstance(findings, Findings) and findings.passes_last:  # passes counted, never made
        listed = [f for f in findings.listed if f.status != "pass"]
        return Scan(listed, dict(pass_counts(findings)))
    judged: list[Finding] = []
    passes: Counter[tuple[str, str]] = Counter()
    status_of, type_of = attrgetter("status"), attrgetter("resourceType")
    for rule, group in groupby(findings, key=attrgetter("ruleId")):
        items = list(group)
        statuses = set(map(status_of, items))
        if statuses == {"pass"}:
            kinds = set(map(type_of, items))
            if len(kinds) == 1:
                passes[(rule, kinds.pop())] += len(items)
                continue
        for f in items:
            if f.status == "pass":
                passes[(rule, f.resourceType)] += 1
            else:
                judged.append(f)
    return Scan(judged, dict(passes))


def failure_counts(findings: Iterable[Finding]) -> dict[str, dict[str, dict[str, int]]]:
    """Failing findings by rule and by subscription (``-`` above subscriptions), then severity:
    ``{"byRule": {rule: {severity: n}}, "bySubscription": {...}}``."""
    by_rule: dict[str, dict[str, int]] = {}
    by_sub: dict[str, dict[str, int]] = {}
    for f in findings:
        if f.status != "fail":
            continue
        rid = f.resourceId
        sub = "-"
        if rid[:15].lower() == "/subscriptions/":
            sub = rid[15:].split("/", 1)[0].lower() or "-"
        for table, key in ((by_rule, f.ruleId), (by_sub, sub)):
            counts = table.setdefault(key, {})
            counts[f.severity] = counts.get(f.severity, 0) + 1
    return {"byRule": by_rule, "bySubscription": by_sub}


def id_ranges(ids: Iterable[int]) -> list[tuple[int, int]]:
    """Sorted ids as (first, last) ranges of consecutive ids."""
    out: list[tuple[int, int]] = []
    for i in sorted(set(ids)):
        if out and out[-1][1] == i - 1:
            out[-1] = (out[-1][0], i)
        else:
            out.append((i, i))
    return out


_CHUNK = 8 << 20
"""Bytes read at a time to hash an input."""


def file_entry(kind: str, path: str) -> dict[str, Any]:
    """``{"kind", "file", "size", "sha256"}``: the file hashed in full, in chunks (``sha256`` None
    when it cannot be read any more)."""
    entry: dict[str, Any] = {"kind": kind, "file": path}
    digest = hashlib.sha256()
    try:
        with open(path, "rb", buffering=0) as fh:
            entry["size"] = os.fstat(fh.fileno()).st_size
            buffer = bytearray(_CHUNK)
            view = memoryview(buffer)
            while n := fh.readinto(buffer):
                digest.update(view[:n])
    except OSError:
        entry["size"] = None
        entry["sha256"] = None
    else:
        entry["sha256"] = digest.hexdigest()
    return entry


def run_inputs(result: AuditResult, files: Mapping[str, Sequence[str]]) -> list[dict[str, Any]]:
    """Every input of the run: those the result's coverage names, then ``files`` (kind -> paths:
    waivers, baseline, configuration, scanned files), each with its hash."""
    out: list[dict[str, Any]] = []
    for entry in result.coverage.inputs:
        kind = str(entry.get("kind", "input"))
        if isinstance(entry.get("file"), str):
            out.append(file_entry(kind, entry["file"]))
        elif isinstance(entry.get("url"), str):
            out.append({"kind": kind, "url": entry["url"]})
    for kind, paths in files.items():
        out.extend(file_entry(kind, p) for p in paths)
    return out


def run_settings(
    result: AuditResult, options: AuditOptions | None
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The run's settings (the gate's options and every rule setting in effect) and the files its
    options named (kind -> paths)."""
    settings: dict[str, Any] = {
        "failOn": result.failOn,
        "failOnUnknown": result.failOnUnknown,
        "requireComplete": result.requireComplete,
    }
    files: dict[str, list[str]] = {}
    if options is None:
        return settings, files
    from auditor.audit.packs import jsonable
    from auditor.audit.runner import prepare

    prep = prepare(replace(options, waiver_list=[]))
    settings["asOf"] = prep.as_of.isoformat()
    settings["checks"] = list(options.checks) + list(prep.config.checks)
    settings["skipChecks"] = list(options.skip_checks) + list(prep.config.skip_checks)
    settings["rules"] = {k: jsonable(v) for k, v in sorted(prep.settings.items())}
    waivers = options.waivers or prep.config.waivers
    for kind, paths in (
        ("configuration", [prep.config.source] if prep.config.source else []),
        ("waivers", [waivers] if waivers else []),
        ("baseline", [p for p in (options.baseline, options.create_baseline) if p]),
        ("scanned", list(options.files)),
    ):
        if paths:
            files[kind] = [p for p in paths if p is not None]
    return settings, files


def ruleset_digest(rules: Sequence[Mapping[str, Any]]) -> str:
    """A digest of the rules a run ran (ids, severities, titles, ...): the rule-set's version."""
    return "sha256:" + hashlib.sha256(_encode(list(rules))).hexdigest()[:16]


def _now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _text(value: Any) -> str:
    return _encode(value).decode()


def insert_run(
    conn: sqlite3.Connection,
    result: AuditResult,
    *,
    command: str,
    target: Target,
    options: AuditOptions | None = None,
    recorded_at: str | None = None,
) -> RunId:
    """Write one run (inside the caller's transaction); returns its id."""
    settings, files = run_settings(result, options)
    run_inputs_list = run_inputs(result, files)
    found = scan(result.findings)
    by_rule = {r.id: r for r in result.rules}
    rows = contents(found.judged, by_rule)
    rules = [r.to_json() for r in result.rules]
    waivers = [
        {**w.to_json(), "state": state}
        for state, group in (
            ("applied", result.waivers),
            ("stale", result.staleWaivers),
            ("expired", result.expiredWaivers),
        )
        for w in group
    ]
    # the summary and verdict of the judged findings alone: a pass changes neither (but its
    # count), and this does not walk millions of passes again
    judged = replace(result, findings=found.judged)
    summary = {**judged.summary(), "passed": sum(found.passes.values())}
    exit_code = judged.exit_code
    known: dict[bytes, int] = dict(conn.execute("SELECT digest, id FROM finding"))
    next_id = int(conn.execute("SELECT coalesce(max(id), 0) FROM finding").fetchone()[0]) + 1
    fresh: list[tuple[Any, ...]] = []
    details: list[tuple[Any, ...]] = []
    ids: list[int] = []
    for digest, content in rows:
        fid = known.get(digest)
        if fid is None:
            fid = known[digest] = next_id
            next_id += 1
            row, detail = finding_rows(fid, digest, content)
            fresh.append(row)
            details.append(detail)
        ids.append(fid)
    conn.executemany(
        "INSERT INTO finding (id, digest, fingerprint, rule_id, severity, status, resource_id, "
        "resource_type) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        fresh,
    )
    conn.executemany(
        "INSERT INTO finding_detail (id, title, message, evidence, source_file, source_line, "
        "address, location, waiver_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        details,
    )
    cursor = conn.execute(
        "INSERT INTO run (command, started_at, finished_at, recorded_at, target, target_kind, "
        "target_name, complete, exit_code, tool_version, ruleset, summary, counts, settings, "
        "inputs, rules, waivers, warnings) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            command,
            result.startedAt,
            result.finishedAt,
            recorded_at or _now(),
            target.key,
            target.kind,
            target.name,
            0 if result.incomplete else 1,
            exit_code,
            result.toolVersion,
            ruleset_digest(rules),
            _text(summary),
            _text(failure_counts(found.judged)),
            _text(settings),
            _text(run_inputs_list),
            _text(rules),
            _text(waivers),
            _text({"warnings": result.warnings, "incomplete": result.incomplete}),
        ),
    )
    run_id = RunId(int(cursor.lastrowid or 0))
    conn.executemany(
        "INSERT INTO run_range (run_id, first_id, last_id) VALUES (?, ?, ?)",
        ((run_id, first, last) for first, last in id_ranges(ids)),
    )
    conn.executemany(
        "INSERT INTO pass_count (run_id, rule_id, resource_type, passed) VALUES (?, ?, ?, ?)",
        ((run_id, rule, kind, n) for (rule, kind), n in sorted(found.passes.items())),
    )
    return run_id


def configured_history(
    options: AuditOptions | None = None, *, config_file: str | None = None
) -> str | None:
    """The history file the configuration names (its ``history`` key), for a run with ``options``
    or, without, the configuration ``config_file`` (None: looked up from the current directory)."""
    from auditor.audit.packs import shipped_catalogue
    from auditor.audit.settings import load_config

    if options is not None:
        if options.config_file is None and not options.use_config:
            return None
        config_file = options.config_file
    catalogue = options.catalogue if options is not None and options.catalogue else None
    known = (catalogue or shipped_catalogue()).settings
    return load_config(config_file, known).history
