"""PDF: the audit report for reading and filing, and the GDPR export of one person's data.

Rendered by WeasyPrint from Jinja2 templates and print CSS in the shipped ``reports/`` folder:
cover, executive summary, findings by rule with evidence and remediation, access, waivers and an
appendix of rules, with running headers and page numbers. A large estate is capped sensibly: the
first ``pdf_detail_per_rule`` non-passing findings of each rule are shown in full, the rest in a
compact table (at most ``pdf_max_table_rows`` rows in all), with a note pointing to the HTML,
JSON and CSV reports, which hold everything.

Layout runs in a child process (``python -m auditor.report.pdf``) with a time limit
(``pdf_timeout``) and a memory ceiling, so a huge estate cannot hang or exhaust the audit; a
timeout is a clear :class:`PdfRenderError`. WeasyPrint is given a URL fetcher that fetches
nothing, so no markup in the data can make the PDF reach the network or read local files (the
report needs no external resource: CSS and SVG are inline).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auditor.errors import AuditorError
from auditor.report._sanitize import clip, evidence_json, scalar_text

if TYPE_CHECKING:
    from auditor.audit.findings import AuditResult
    from auditor.report import RenderOptions
    from auditor.report.html import FindingView

MEMORY_LIMIT_BYTES = 8 << 30
"""Address-space ceiling of the PDF child process."""


class PdfRenderError(AuditorError):
    """The PDF could not be produced (time limit, memory, or a layout failure)."""


def render(result: AuditResult, options: RenderOptions) -> bytes:
    """The PDF report of ``result``."""
    data, _ = render_with_stats(result, options)
    return data


def render_with_stats(result: AuditResult, options: RenderOptions) -> tuple[bytes, dict[str, Any]]:
    """The PDF report and figures about its making (seconds, child's peak memory, pages)."""
    html = build_html(result, options)
    return html_to_pdf(html, timeout=options.pdf_timeout, what=f"{len(result.findings)} findings")


TABLE_PER_RULE = 100
"""Rows of one rule's compact table at most (the rest are counted; the HTML, JSON and CSV
reports list every finding)."""

ACCESS_ROWS = 300
"""Privileged principals the PDF's access section lists in all (the rest are counted)."""

ESCALATIONS = 25
"""Shadow admins' escalation paths drawn in the PDF at most."""


def path_row(v: FindingView) -> dict[str, str] | None:
    """A finding whose evidence is a ``path`` of steps (principal → role assignment → role →
    permission → operation: RBAC-010 and the other effective-access rules) as one row of a
    compact table (principal, scope, what it can do, the path), or None for other evidence."""
    evidence = v.f.evidence
    path = evidence.get("path") if isinstance(evidence, Mapping) else None
    if not isinstance(path, list) or not path or not all(isinstance(s, Mapping) for s in path):
        return None
    steps: list[str] = []
    principal = ""
    pid = str(evidence.get("principalId") or "")
    for i, step in enumerate(path):
        kind = str(step.get("kind") or "")
        name = str(step.get("name") or step.get("id") or "")
        if i == 0 and (kind == "principal" or (pid and str(step.get("id")) == pid)):
            principal = name.strip("'")  # the principal itself (a user, or the group)
            continue
        steps.append(f"{kind} {name}".strip())
    ops = evidence.get("operations")
    can = ", ".join(str(o) for o in ops) if isinstance(ops, list) else scalar_text(ops or "")
    who = principal or str(evidence.get("principalId") or "")
    ptype = evidence.get("principalType")
    return {
        "principal": f"{who} ({ptype})" if ptype else who,
        "principalId": str(evidence.get("principalId") or ""),
        "scope": v.f.resourceId,
        "can": can,
        "path": " → ".join(steps),
        "status": v.f.status,
    }


def build_html(result: AuditResult, options: RenderOptions) -> str:
    """The HTML (print CSS inline) that the PDF is laid out from.

    Each rule lists its first ``pdf_detail_per_rule`` findings that are not passes in full and
    the rest in a compact table (at most :data:`TABLE_PER_RULE` rows per rule and
    ``pdf_max_table_rows`` in all, the rest counted); findings whose evidence is an access path
    (RBAC-010) are all rows of a table (principal, scope, operations, path), never a block of
    JSON each."""
    from auditor.report.html import asset, build_context, environment

    context = build_context(result, options)
    per_rule = max(0, options.pdf_detail_per_rule)
    table_budget = max(0, options.pdf_max_table_rows)
    sections = []
    left_out = 0
    for group in context["groups"]:
        shown = [v for v in group.findings if v.f.status != "pass"]
        passed = group.counts.get("pass", 0)
        paths: list[dict[str, str]] = []
        if shown and path_row(shown[0]) is not None:
            rows = [path_row(v) for v in shown[: min(TABLE_PER_RULE, table_budget)]]
            paths = [r for r in rows if r is not None]
            table_budget -= len(paths)
            detail: list[FindingView] = []
            rest: list[FindingView] = []
            omitted = len(shown) - len(paths)
        else:
            detail, rest = shown[:per_rule], shown[per_rule:]
            omitted = 0
        table = rest[: min(TABLE_PER_RULE, table_budget)]
        table_budget -= len(table)
        omitted += len(rest) - len(table)
        left_out += omitted
        sections.append(
            {
                "group": group,
                "detail": detail,
                "table": table,
                "paths": paths,
                "omitted": omitted,
                "passed": passed,
                "rest": len(rest),
            }
        )
    privileged: dict[str, list[Any]] = {}
    access_budget = ACCESS_ROWS
    privileged_total = 0
    for sub, rows in context["privileged"].items():
        privileged_total += len(rows)
        if access_budget > 0:
            privileged[sub] = rows[:access_budget]
            access_budget -= len(privileged[sub])
    escalations = context["escalations"]
    context.update(
        css=_markup(asset("print.css")),
        Markup=_markup,
        pdf_sections=[
            s for s in sections if s["detail"] or s["table"] or s["paths"] or s["omitted"]
        ],
        passed_only=[
            s["group"]
            for s in sections
            if not s["detail"] and not s["rest"] and not s["paths"] and not s["omitted"]
        ],
        per_rule=per_rule,
        table_per_rule=TABLE_PER_RULE,
        left_out=left_out,
        privileged=privileged,
        privileged_more=privileged_total - sum(len(r) for r in privileged.values()),
        escalations=escalations[:ESCALATIONS],
        escalations_more=max(0, len(escalations) - ESCALATIONS),
    )
    return str(environment().get_template("pdf.html.j2").render(context))


def _markup(text: str) -> Any:
    from markupsafe import Markup

    return Markup(text)


# --- GDPR export ------------------------------------------------------------------------------


def _humanise(key: str) -> str:
    words: list[str] = []
    current = ""
    for ch in key.replace("_", " ").replace("-", " "):
        if ch.isupper() and current and not current[-1].isupper() and current[-1] != " ":
            words.append(current)
            current = ch
        else:
            current += ch
    words.append(current)
    text = " ".join(w.strip() for w in words if w.strip())
    return text[:1].upper() + text[1:]


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _cell(value: Any) -> dict[str, Any]:
    """A value for a table cell: scalars as text, anything else as a JSON block."""
    if _is_scalar(value):
        return {"text": "" if value is None else scalar_text(value), "block": False}
    return {"text": clip(evidence_json(value), 20_000), "block": True}


def _records_section(title: str, records: Sequence[Any], note: str = "") -> dict[str, Any]:
    dicts = [r for r in records if isinstance(r, Mapping)]
    if len(dicts) == len(records) and records:
        columns: list[str] = []
        for r in dicts:
            for k in r:
                if k not in columns:
                    columns.append(str(k))
        flat = all(_is_scalar(v) for r in dicts for v in r.values())
        if flat and len(columns) <= 6:
            return {
                "title": title,
                "note": note,
                "count": len(records),
                "columns": [_humanise(c) for c in columns],
                "rows": [[_cell(r.get(c)) for c in columns] for r in dicts],
                "records": [],
            }
        return {
            "title": title,
            "note": note,
            "count": len(records),
            "columns": [],
            "rows": [],
            "records": [[(_humanise(str(k)), _cell(v)) for k, v in r.items()] for r in dicts],
        }
    return {
        "title": title,
        "note": note,
        "count": len(records),
        "columns": ["Value"],
        "rows": [[_cell(r)] for r in records],
        "records": [],
    }


def gdpr_context(export: Mapping[str, Any]) -> dict[str, Any]:
    """The GDPR export (any JSON object of sections of records) arranged for the template.

    Top-level scalars describe the export; a top-level list is a section of records; an object
    holding ``records`` (or ``items``) is a section with a title; a ``sections`` list holds such
    objects; any other object is shown as a section of one record.
    """
    about: list[tuple[str, dict[str, Any]]] = []
    sections: list[dict[str, Any]] = []

    def add(key: str, value: Any) -> None:
        if isinstance(value, Mapping):
            records = value.get("records", value.get("items"))
            if isinstance(records, list):
                title = str(value.get("title") or value.get("name") or _humanise(key))
                note = str(value.get("description") or value.get("note") or "")
                sections.append(_records_section(title, records, note))
            else:
                sections.append(_records_section(_humanise(key), [value]))
        elif isinstance(value, list):
            sections.append(_records_section(_humanise(key), value))
        else:
            about.append((_humanise(key), _cell(value)))

    for key, value in export.items():
        if key == "sections" and isinstance(value, list):
            for i, sec in enumerate(value):
                add(f"section {i + 1}", sec)
        else:
            add(str(key), value)
    subject = ""
    for k in ("subject", "principal", "principalId", "email", "displayName"):
        v = export.get(k)
        if isinstance(v, str):
            subject = v
            break
        if isinstance(v, Mapping):
            subject = str(v.get("displayName") or v.get("email") or v.get("id") or "")
            if subject:
                break
    return {"about": about, "sections": sections, "subject": subject}


def _text(value: Any) -> dict[str, Any]:
    """A table cell of plain text (never a JSON block)."""
    if value is None or value == "":
        return {"text": "", "block": False}
    if isinstance(value, list | tuple):
        return {"text": ", ".join(scalar_text(v) for v in value), "block": False}
    if isinstance(value, Mapping):
        return {
            "text": "; ".join(f"{_humanise(str(k))}: {scalar_text(v)}" for k, v in value.items()),
            "block": False,
        }
    if isinstance(value, bool):
        return {"text": "yes" if value else "no", "block": False}
    return {"text": scalar_text(value), "block": False}


def _table(
    title: str, note: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]
) -> dict[str, Any]:
    return {
        "title": title,
        "note": note,
        "count": len(rows),
        "columns": list(columns),
        "rows": [[_text(c) for c in row] for row in rows],
        "records": [],
    }


def _props(record: Any) -> Mapping[str, Any]:
    props = record.get("properties") if isinstance(record, Mapping) else None
    return props if isinstance(props, Mapping) else {}


def _who(name: Any, key: Any) -> str:
    if name and key and name != key:
        return f"{name} ({key})"
    return str(name or key or "not recorded")


def _role(record: Mapping[str, Any]) -> str:
    role_id = str(_props(record).get("roleDefinitionId") or "")
    guid = role_id.rsplit("/", 1)[-1]
    name = record.get("roleName")
    return f"{name}\n{guid}" if name and guid else str(name or guid or "unknown role")


def _part(export: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    """An object of the export, or an empty one when it is missing or not an object."""
    value = export.get(key)
    return value if isinstance(value, Mapping) else {}


def _is_subject_export(export: Mapping[str, Any]) -> bool:
    """The document :func:`auditor.access.gdpr.gdpr_export` writes (not any JSON object)."""
    return (
        "exportVersion" in export
        and isinstance(export.get("subject"), Mapping)
        and isinstance(export.get("roleAssignments"), Mapping)
    )


def subject_export_context(export: Mapping[str, Any]) -> dict[str, Any]:
    """The data-subject export in plain language: what is held about the person, where, and
    granted by whom, a section per kind of record with its count (no raw JSON)."""
    subject = export["subject"]
    entry = (
        export.get("directoryEntry") if isinstance(export.get("directoryEntry"), Mapping) else None
    )
    pid = subject.get("principalId")
    name = str((entry or {}).get("displayName") or subject.get("email") or pid or "the subject")
    snap = _part(export, "snapshot")
    sections: list[dict[str, Any]] = []

    rows: list[list[Any]] = []
    if entry is not None:
        for key, value in entry.items():
            rows.append([_humanise(str(key)), value])
    section = _table(
        f"Directory entry of {name}",
        "The person's record in the directory.",
        ["Field", "Value"],
        rows,
    )
    section["count"] = 1 if entry is not None else 0
    sections.append(section)

    groups = _part(export, "groupMemberships")
    names = {str(g.get("id")): g.get("displayName") for g in groups.get("transitive", []) or []}
    rows = []
    for g in groups.get("transitive", []) or []:
        path = [str(k) for k in g.get("path", [])[1:-1]]
        how = (
            "directly"
            if g.get("direct")
            else "through " + " → ".join(str(names.get(k) or k) for k in path)
        )
        rows.append([g.get("displayName") or "", g.get("id"), how])
    sections.append(
        _table(
            f"Groups {name} belongs to",
            "Directly or through other groups.",
            ["Group", "Id", "Member"],
            rows,
        )
    )

    roles = export["roleAssignments"]
    for bucket, title, note, who_column in (
        (
            "asPrincipal",
            f"Role assignments held by {name}",
            "Access granted to the person.",
            "Granted by",
        ),
        (
            "asCreatedBy",
            f"Role assignments {name} granted",
            "Access the person gave to others (recorded as the assignment's creator).",
            "Held by",
        ),
        (
            "asUpdatedBy",
            f"Role assignments {name} last changed",
            "Recorded as the assignment's last editor.",
            "Held by",
        ),
    ):
        rows = []
        for record in roles.get(bucket, []) or []:
            if not isinstance(record, Mapping):
                continue
            props = _props(record)
            if who_column == "Granted by":
                who = _who(record.get("createdByName"), props.get("createdBy"))
            else:
                who = _who(record.get("principalName"), props.get("principalId"))
            when = props.get("createdOn") if bucket != "asUpdatedBy" else props.get("updatedOn")
            rows.append(
                [
                    _role(record),
                    props.get("scope") or record.get("id"),
                    who,
                    when,
                    "\n".join(str(x) for x in (record.get("name"), props.get("description")) if x),
                ]
            )
        columns = ["Role", "Scope", who_column, "On", "Assignment"]
        section = _table(title, note, columns, rows)
        section["kind"] = "ra"
        sections.append(section)

    how_named = {
        "named": "names the person",
        "allPrincipals": "applies to everyone",
        "excluded": "exempts the person",
    }
    rows = []
    for record in export.get("denyAssignments", []) or []:
        if not isinstance(record, Mapping):
            continue
        props = _props(record)
        how = ", ".join(how_named.get(str(h), str(h)) for h in record.get("subjectIs", []))
        rows.append(
            [
                props.get("denyAssignmentName") or record.get("name"),
                record.get("id"),
                how,
                props.get("description") or "",
            ]
        )
    sections.append(
        _table(
            f"Deny assignments that apply to {name}",
            "Access blocked for the person.",
            ["Name", "Where", "How", "Description"],
            rows,
        )
    )

    dev = _part(export, "devTooling")
    dev_note = str(dev.get("note") or "")
    user = dev.get("user")
    rows = [[_humanise(str(k)), v] for k, v in user.items()] if isinstance(user, Mapping) else []
    section = _table("Developer-tooling account", dev_note, ["Field", "Value"], rows)
    section["count"] = 1 if isinstance(user, Mapping) else 0
    sections.append(section)
    sections.append(
        _table(
            "Developer-tooling app memberships",
            "",
            ["App", "Owner type", "Role"],
            [
                [m.get("app"), m.get("ownerType"), m.get("role")]
                for m in dev.get("appMemberships", []) or []
                if isinstance(m, Mapping)
            ],
        )
    )
    sections.append(
        _table(
            "Developer-tooling apps owned",
            "",
            ["App"],
            [[a] for a in dev.get("ownedApps", []) or []],
        )
    )
    tokens = [tok for tok in dev.get("tokens", []) or [] if isinstance(tok, Mapping)]
    columns = list(dict.fromkeys(str(k) for tok in tokens for k in tok))
    sections.append(
        _table(
            "API tokens (metadata only, never their values)",
            "",
            [_humanise(c) for c in columns],
            [[tok.get(c) for c in columns] for tok in tokens],
        )
    )
    health = _part(export, "healthEvents")
    section = _table("Health events", str(health.get("reason") or ""), ["Event"], [])
    sections.append(section)

    about = [
        ("Person", _text(_who(name, pid))),
        ("E-mail", _text(subject.get("email") or "none recorded")),
        ("In the directory", _text(bool(subject.get("inDirectory")))),
        (
            "Asked for by",
            _text(
                "principal id" if subject.get("requestedBy") == "principalId" else "e-mail address"
            ),
        ),
        ("Estate snapshot", _text(snap.get("source"))),
        ("Collected at", _text(snap.get("collectedAt"))),
        ("Tenant", _text(snap.get("tenantId"))),
        ("Export version", _text(export.get("exportVersion"))),
    ]
    notes = [str(n) for n in export.get("notes", []) or []]
    notes += [f"When loading the snapshot: {w}" for w in snap.get("warnings", []) or []]
    return {
        "about": about,
        "sections": sections,
        "subject": name,
        "plain": True,
        "notes": notes,
        "held": sum(s["count"] for s in sections),
    }


def render_gdpr_pdf(
    export: Mapping[str, Any],
    path: str | os.PathLike[str] | None = None,
    *,
    timeout: float = 300.0,
    title: str = "Personal data export",
) -> bytes:
    """The GDPR export (what the access engine's ``gdpr_export`` returns) as its own PDF; written
    to ``path`` (atomically) when one is given."""
    from auditor import __version__
    from auditor.report.html import asset, environment

    if _is_subject_export(export):
        context = subject_export_context(export)
    else:
        context = gdpr_context(export)
        context.update(plain=False, notes=[], held=sum(s["count"] for s in context["sections"]))
    context.update(
        title=title,
        css=_markup(asset("print.css")),
        generated=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        version=__version__,
    )
    html = str(environment().get_template("gdpr.html.j2").render(context))
    data, _ = html_to_pdf(html, timeout=timeout, what="the GDPR export")
    if path is not None:
        from auditor.estate import write_atomic

        write_atomic(path, data, overwrite=True, what="PDF export")
    return data


# --- the child process ------------------------------------------------------------------------


def html_to_pdf(
    html: str, *, timeout: float, what: str = "the report"
) -> tuple[bytes, dict[str, Any]]:
    """Lay ``html`` out as PDF in a child process stopped after ``timeout`` seconds."""
    with tempfile.TemporaryDirectory(prefix="auditor-pdf-") as tmp:
        out = Path(tmp) / "report.pdf"
        cmd = [sys.executable, "-m", "auditor.report.pdf", "--worker", str(out)]
        env = dict(os.environ)
        package_root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (package_root, env.get("PYTHONPATH", "")) if p
        )
        started = time.perf_counter()
        try:
            proc = subprocess.run(
                cmd,
                input=html.encode("utf-8"),
                capture_output=True,
                timeout=timeout,
                env=env,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise PdfRenderError(
                f"the PDF of {what} was not finished within {timeout:g} seconds and was stopped; "
                "lower the detail (fewer findings per rule) or use the HTML report"
            ) from None
        elapsed = time.perf_counter() - started
        if proc.returncode != 0 or not out.is_file():
            detail = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            reason = detail[-1] if detail else f"exit code {proc.returncode}"
            if "MemoryError" in reason:
                reason = f"it needed more than {MEMORY_LIMIT_BYTES >> 30} GiB of memory"
            raise PdfRenderError(f"the PDF of {what} could not be made: {clip(reason, 300)}")
        stats: dict[str, Any] = {"seconds": elapsed}
        with contextlib.suppress(ValueError):
            stats.update(json.loads(proc.stdout.decode("utf-8") or "{}"))
        return out.read_bytes(), stats


def _no_fetcher() -> Any:
    """A WeasyPrint URL fetcher that fetches nothing but ``data:`` URLs (the report is
    self-contained; markup from the data cannot reach the network or local files)."""
    base: Any = importlib.import_module("weasyprint.urls").URLFetcher

    def fetch(self: Any, url: str, headers: Any = None) -> Any:
        if not url.startswith("data:"):
            raise ValueError("external resources are not fetched")
        return base.fetch(self, url, headers)

    return type("NoFetch", (base,), {"fetch": fetch})()


def _worker(out_path: str) -> int:
    import logging
    import resource

    try:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = MEMORY_LIMIT_BYTES
        if hard != resource.RLIM_INFINITY:
            limit = min(hard, limit)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError):
        pass
    logging.getLogger("weasyprint").setLevel(logging.ERROR)
    logging.getLogger("fontTools").setLevel(logging.ERROR)
    weasyprint: Any = importlib.import_module("weasyprint")

    html = sys.stdin.buffer.read().decode("utf-8")
    document = weasyprint.HTML(string=html, base_url=None, url_fetcher=_no_fetcher()).render()
    document.write_pdf(out_path)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    figures = {
        "pages": len(document.pages),
        "peakMemoryMiB": usage.ru_maxrss / 1024,
        "cpuSeconds": usage.ru_utime + usage.ru_stime,
    }
    sys.stdout.write(json.dumps(figures))
    return 0


if __name__ == "__main__":  # pragma: no cover - the child process
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        sys.exit(_worker(sys.argv[2]))
    sys.stderr.write("usage: python -m auditor.report.pdf --worker OUT.pdf < page.html\n")
    sys.exit(2)
