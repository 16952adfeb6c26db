"""``auditor rules list`` with the catalogue's version and ``--framework NAME``, and ``auditor rules
changelog``: the command line's side of frameworks and rule-set pinning
(:mod:`auditor.audit.frameworks`, :mod:`auditor.audit.ruleset`)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from auditor.errors import InputError


def annotate(
    doc: dict[str, Any], catalogue: Any, names: list[str] | None, user_dirs: Sequence[str] = ()
) -> None:
    """Add the catalogue's version (and its frameworks: the shipped ones and those of the user's
    pack folders) to the ``rules list`` document; with ``names``, keep only the rules those
    frameworks map and add their controls."""
    from auditor.audit.frameworks import frameworks_for, select_frameworks
    from auditor.audit.ruleset import catalogue_version

    known = frameworks_for([r.id for r in catalogue.rules], user_dirs)
    doc["version"] = catalogue_version()
    doc["frameworks"] = [fw.info() for fw in known.values()]
    if not names:
        return
    selected = select_frameworks(known, names)
    wanted = {r for fw in selected for r in fw.rule_ids()}
    doc["rules"] = [r for r in doc["rules"] if r["id"] in wanted]
    doc["frameworks"] = [fw.to_json() for fw in selected]


def header(doc: dict[str, Any]) -> None:
    """The table's first lines: the catalogue's version and how to pin it."""
    version = doc["version"]
    sys.stdout.write(
        f"Rule catalogue {version} ({len(doc['rules'])} rules shown; pin it with "
        f"--ruleset {version})\n\n"
    )


def controls_table(doc: dict[str, Any]) -> None:
    """``rules list --framework NAME``: each control with the rules that answer it."""
    titles = {r["id"]: (r["severity"], r["title"]) for r in doc["rules"]}
    lines: list[str] = []
    for fw in doc["frameworks"]:
        lines.append(f"{fw['name']} {fw['version']} ({fw['id']}): {len(fw['controls'])} controls")
        for control in fw["controls"]:
            lines.append(f"  {control['id']}  {control['title']}")
            for rule_id in control["rules"]:
                severity, title = titles.get(rule_id, ("", ""))
                lines.append(f"      {rule_id:<9} {severity:<8}  {title}")
        lines.append("")
    sys.stdout.write("\n".join(lines))


def footer(doc: dict[str, Any]) -> None:
    """The frameworks the rules map to, after the table."""
    names = ", ".join(f"{fw['id']} ({fw['name']} {fw['version']})" for fw in doc["frameworks"])
    sys.stdout.write(f"\nFrameworks (--framework NAME): {names or 'none'}\n")


def register(rules_app: typer.Typer) -> None:
    """Add ``rules changelog`` to ``rules_app``."""

    @rules_app.command("changelog")
    def rules_changelog(
        out: Annotated[
            Path | None,
            typer.Option(
                "--out",
                metavar="FILE",
                help="Write the Markdown to FILE (docs/rules-changelog.md) instead of standard "
                "output.",
            ),
        ] = None,
        fmt: Annotated[
            str, typer.Option("--format", metavar="markdown|json", help="Output format.")
        ] = "markdown",
    ) -> None:
        """The rule catalogue's version and its changelog: the rules added, changed and removed
        per version (docs/rules-changelog.md)."""
        from auditor.audit.ruleset import changelog_markdown, shipped_ruleset

        if fmt not in ("markdown", "json"):
            raise InputError(f"expected markdown or json, found {fmt!r}", source="--format")
        ruleset = shipped_ruleset()
        if fmt == "json":
            import json

            doc = {"version": ruleset.version, "changes": [c.to_json() for c in ruleset.changes]}
            text = json.dumps(doc, indent=2) + "\n"
        else:
            text = changelog_markdown(ruleset)
        if out is None:
            sys.stdout.write(text)
            return
        from auditor.estate import write_atomic

        write_atomic(out, text.encode("utf-8"), overwrite=True, what="changelog")
        sys.stderr.write(f"wrote the rule catalogue changelog to {out}\n")

    del rules_changelog
