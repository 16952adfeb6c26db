"""Rule documentation from the packs: ``auditor rules show ID`` and one Markdown page per rule
(``docs/rules/<ID>.md`` with an index ``README.md``), so the docs never drift from the catalogue.

The SARIF ``helpUri`` of a rule points at its page when a base URL is known
(:func:`rule_page_url`)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from auditor.audit.packs import Catalogue, Rule, jsonable, shipped_catalogue

DOCS_URL_ENV = "AUDITOR_RULE_DOCS_URL"
"""The base URL of the rule pages (``.../docs/rules/``); a rule's page is ``<base><ID>.md``."""

_RUNS_ON = {
    "plan": "deployment plans and templates (`auditor gate`)",
    "estate": "estates (`auditor audit`)",
}


def rule_page_url(rule_id: str, base: str | None = None) -> str | None:
    """The absolute URL of a rule's page: ``base`` (else ``$AUDITOR_RULE_DOCS_URL``) + ``ID.md``;
    None without a base that is an absolute http(s) URL."""
    base = base if base is not None else os.environ.get(DOCS_URL_ENV, "")
    base = base.strip()
    if not base.startswith(("https://", "http://")):
        return None
    return base.rstrip("/") + "/" + rule_id + ".md"


def find_rule(rule_id: str, catalogue: Catalogue | None = None) -> Rule | None:
    """The rule ``rule_id`` names (ignoring case), or None."""
    catalogue = catalogue or shipped_catalogue()
    wanted = rule_id.strip().upper()
    return next((r for r in catalogue.rules if r.id.upper() == wanted), None)


def rule_doc(rule: Rule, catalogue: Catalogue) -> dict[str, Any]:
    """Everything the catalogue says about one rule (``rules show --format json``): the catalogue
    entry of ``rules list``, plus its messages, evidence, severity conditions and examples."""
    doc = rule.to_json(catalogue.settings)
    defaults = {name: s["default"] for name, s in doc.get("settings", {}).items()}
    for key in ("description", "remediation"):  # placeholders shown with their defaults
        doc[key] = _fill_settings(doc[key], defaults)
    doc["message"] = rule.message
    doc["passMessage"] = rule.pass_message
    if rule.evidence:
        doc["evidence"] = list(rule.evidence)
    if rule.severity_when:
        doc["severityWhen"] = [{"when": w, "severity": s} for w, s in rule.severity_when]
    if rule.examples:
        doc["examples"] = _examples_doc(rule)
    doc["page"] = f"docs/rules/{rule.id}.md"
    return doc


def _examples_doc(rule: Rule) -> dict[str, list[Any]]:
    """The rule's examples by status, as in its pack, a literal in a secret field masked (an
    example's password or token is fake, but a page never shows one)."""
    from auditor.model.secrets import MASK, is_secret_key

    def shown(value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            return {k: shown(v, str(k)) for k, v in value.items()}
        if isinstance(value, list):
            return [shown(v, key) for v in value]
        if isinstance(value, str) and (
            (is_secret_key(key) and not _REFERENCE.match(value))
            or value.startswith(("ssh-", "-----BEGIN"))
        ):
            return MASK
        return jsonable(value)

    out: dict[str, list[Any]] = {}
    for example in rule.examples:
        out.setdefault(example.status, []).append(shown(example.item))
    return out


_REFERENCE = re.compile(r"^\s*(?:<[^<>]+>|\$\{[^{}]+\})\s*$")


def _fill_settings(text: str, values: dict[str, Any]) -> str:
    """``{settings.NAME}`` replaced by the setting's value (other placeholders are left)."""
    import re

    def sub(m: re.Match[str]) -> str:
        name = m.group(1)
        return str(jsonable(values[name])) if name in values else m.group(0)

    return re.sub(r"\{settings\.(\w+)\}", sub, text)


def _md(text: str) -> str:
    """Pack text on one Markdown line (pack texts are the project's own, already Markdown)."""
    return " ".join(str(text).split())


def _value(value: Any) -> str:
    import json

    return "`" + json.dumps(jsonable(value), ensure_ascii=False) + "`"


def _reference(ref: str) -> str:
    ref = _md(ref)
    if ref.startswith(("https://", "http://")):
        return f"<{ref}>"
    if ref.startswith("AP "):  # the vendor's built-in policy definition, by its id
        return f"the vendor's built-in policy definition `{ref[3:]}`"
    return ref


def rule_text(doc: dict[str, Any]) -> str:
    """``rules show ID``: the rule as plain text for a terminal."""
    lines = [f"{doc['id']}  {doc['title']}", ""]
    lines.append(f"Severity:       {doc['severity']}")
    lines.append(f"Resource type:  {doc['resourceType']}")
    lines.append(f"Runs on:        {', '.join(doc['runsOn'])}")
    lines.append(f"Pack:           {doc['pack']}")
    if doc.get("requires"):
        lines.append(f"Needs:          {', '.join(doc['requires'])}")
    lines += ["", "What it checks (it fails when):", f"  {_md(doc['description'])}"]
    if doc.get("predicate"):
        lines.append(f"  passes when: {doc['predicate']}")
    if doc.get("check"):
        lines.append(f"  named check: {doc['check']}")
    if doc.get("appliesTo"):
        lines.append(f"  applies to:  {doc['appliesTo']}")
    for cond in doc.get("severityWhen", []):
        lines.append(f"  severity {cond['severity']} when: {cond['when']}")
    lines += ["", "How to fix:", f"  {_md(doc['remediation'])}"]
    if doc.get("settings"):
        lines += ["", "Settings (name: default; description):"]
        for name, s in doc["settings"].items():
            lines.append(f"  {name}: {s['default']!r}; {_md(s['description'])}")
    if doc.get("examples"):
        import json

        lines += [
            "",
            "Examples:",
            *("  " + line for line in json.dumps(doc["examples"], indent=2).splitlines()),
        ]
    lines += ["", "References:", *(f"  {_md(r)}" for r in doc["references"])]
    lines += ["", f"Documentation: {doc['page']}"]
    return "\n".join(lines) + "\n"


def rule_page(doc: dict[str, Any]) -> str:
    """One rule's Markdown page (``docs/rules/<ID>.md``)."""
    out = [
        f"# {doc['id']}: {_md(doc['title'])}",
        "",
        "<!-- Generated from the rule packs by `auditor rules docs`: do not edit. -->",
        "",
        "| | |",
        "|---|---|",
        f"| Severity | {doc['severity']} |",
        f"| Resource type | `{doc['resourceType']}` |",
        f"| Runs on | {'; '.join(_RUNS_ON.get(k, k) for k in doc['runsOn'])} |",
        f"| Pack | `{doc['pack']}` |",
    ]
    if doc.get("requires"):
        out.append(f"| Needs | {', '.join(f'`{r}`' for r in doc['requires'])} |")
    out += ["", "## What it checks", "", f"It fails when: {_md(doc['description'])}", ""]
    if doc.get("predicate"):
        out += [f"It passes when (`$filter` predicate): `{_md(doc['predicate'])}`", ""]
    if doc.get("check"):
        out += [f"Named check: `{doc['check']}`.", ""]
    if doc.get("appliesTo"):
        out += [f"Applies to resources where: `{_md(doc['appliesTo'])}`", ""]
    for cond in doc.get("severityWhen", []):
        out += [f"Severity **{cond['severity']}** when: `{_md(cond['when'])}`", ""]
    if doc.get("evidence"):
        out += ["Evidence: " + ", ".join(f"`{e}`" for e in doc["evidence"]) + ".", ""]
    out += ["## How to fix", "", _md(doc["remediation"]), ""]
    out += ["## Settings", ""]
    if doc.get("settings"):
        out += ["| Setting | Default | Description |", "|---|---|---|"]
        for name, s in doc["settings"].items():
            desc = _md(s["description"]).replace("|", "\\|")
            out.append(f"| `{name}` | {_value(s['default'])} | {desc} |")
        out += ["", "Set them in `auditor.toml` (`docs/configuration.md`).", ""]
    else:
        out += ["None.", ""]
    if doc.get("examples"):
        import json

        out += ["## Examples", "", "```json", json.dumps(doc["examples"], indent=2), "```", ""]
    out += ["## References", "", *(f"- {_reference(r)}" for r in doc["references"]), ""]
    return "\n".join(out)


def rules_index(docs: list[dict[str, Any]]) -> str:
    """``docs/rules/README.md``: every rule with its page."""
    out = [
        "# Rules",
        "",
        "<!-- Generated from the rule packs by `auditor rules docs`: do not edit. -->",
        "",
        f"{len(docs)} rules. `auditor rules show ID` prints one; `auditor rules list` the table.",
        "",
        "| Rule | Severity | Runs on | Resource type | Title |",
        "|---|---|---|---|---|",
    ]
    for d in docs:
        title = _md(d["title"]).replace("|", "\\|")
        out.append(
            f"| [{d['id']}]({d['id']}.md) | {d['severity']} | {', '.join(d['runsOn'])} | "
            f"`{d['resourceType']}` | {title} |"
        )
    return "\n".join(out) + "\n"


def rule_pages(catalogue: Catalogue | None = None) -> dict[str, str]:
    """File name -> content of every page and the index."""
    catalogue = catalogue or shipped_catalogue(examples=True)
    docs = [rule_doc(r, catalogue) for r in catalogue.rules]
    pages = {f"{d['id']}.md": rule_page(d) for d in docs}
    pages["README.md"] = rules_index(docs)
    return pages


def write_rule_docs(out: Path, catalogue: Catalogue | None = None) -> list[Path]:
    """Write every page and the index into ``out`` (created); pages of rules no longer in the
    catalogue are removed. Returns the files written."""
    pages = rule_pages(catalogue)
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.md"):
        if old.name not in pages:
            old.unlink()
    written = []
    for name, text in pages.items():
        path = out / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
