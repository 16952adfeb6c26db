"""``auditor rules test`` and ``auditor rules lint``, and the ``--rules DIR`` option (contracts
section 10; docs/rule-packs.md).

``rules test`` exits 0 when every example gives its expected status, 1 on a miss (naming the rule,
the example, its file and line), 2 for an unusable pack; ``rules lint`` exits 0 on clean packs, 2
with problems (each with file and line).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from auditor.errors import InputError

if TYPE_CHECKING:
    from auditor.audit.examples import ExampleResult
    from auditor.audit.packs import Catalogue, Rule

RulesOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--rules",
        metavar="DIR",
        help="A folder of your own rule packs (*.yaml, predicate rules; docs/rule-packs.md), "
        'loaded beside the shipped ones; repeatable. Also: rules = ["DIR"] in the '
        "configuration file.",
    ),
]
_ConfigOpt = Annotated[
    Path | None,
    typer.Option(
        "--config",
        metavar="FILE",
        help="Configuration file (default: auditor.toml, or [tool.auditor] in pyproject.toml, "
        "looked up from the current directory); its rules = [...] folders are loaded too.",
    ),
]
_DirArg = Annotated[
    Path | None,
    typer.Argument(
        metavar="[DIR]",
        help="A folder of rule packs (or one pack file): only its rules (default: every loaded "
        "rule, shipped and yours).",
    ),
]
SCHEMA_FILE = "rule-pack.schema.json"
"""The JSON Schema of the pack format, shipped in :mod:`auditor.audit`."""

_FormatOpt = Annotated[
    str, typer.Option("-o", "--output", metavar="text|json", help="Output format.")
]


def checked_dirs(rules: list[Path] | None) -> list[str]:
    """The ``--rules`` folders, each checked to exist."""
    for path in rules or ():
        if not path.exists():
            raise InputError("no such folder of rule packs", source=f"--rules {path}")
    return [os.fspath(p) for p in rules or ()]


def rule_pack_dirs(rules: list[Path] | None, config: Path | None) -> list[str]:
    """The user's pack folders: the configuration file's (``rules = [...]``), then ``--rules``."""
    from auditor.audit.settings import config_rule_packs

    if config is not None and not config.is_file():
        raise InputError("no such configuration file", source=f"--config {config}")
    given = checked_dirs(rules)
    return [*config_rule_packs(os.fspath(config) if config is not None else None), *given]


def load(rules: list[Path] | None, config: Path | None, *, examples: bool = False) -> Catalogue:
    """The catalogue: the shipped packs and the user's (:func:`rule_pack_dirs`); ``examples``:
    with the rules' examples."""
    from auditor.audit.packs import catalogue_with

    return catalogue_with(rule_pack_dirs(rules, config), examples=examples)


def _scope(
    folder: Path | None, rules: list[Path] | None, config: Path | None, with_shipped: bool
) -> tuple[Catalogue, list[Rule]]:
    """The catalogue to run in and the rules ``rules test``/``lint`` look at."""
    from auditor.audit.packs import catalogue_with, pack_files

    dirs = rule_pack_dirs(rules, config)
    if folder is None:
        catalogue = catalogue_with(dirs, examples=True)
        return catalogue, list(catalogue.rules)
    if not folder.exists():
        raise InputError("no such folder of rule packs", source=os.fspath(folder))
    mine = {os.path.realpath(p) for p in pack_files(folder)}
    others = [d for d in dirs if os.path.realpath(d) != os.path.realpath(folder)]
    catalogue = catalogue_with([*others, os.fspath(folder)], examples=True)
    chosen = [
        r
        for r in catalogue.rules
        if os.path.realpath(r.source) in mine or (with_shipped and not r.user)
    ]
    return catalogue, chosen


def _format(value: str) -> str:
    fmt = value.strip().lower()
    if fmt not in ("text", "json"):
        raise InputError(f"expected text or json, found {value!r}", source="-o")
    return fmt


def register(rules_app: typer.Typer) -> None:
    """Add ``test`` and ``lint`` to the ``rules`` group."""

    @rules_app.command("test")
    def rules_test(
        folder: _DirArg = None,
        rules: RulesOpt = None,
        with_shipped: Annotated[
            bool,
            typer.Option("--with-shipped", help="With DIR: also run the shipped rules' examples."),
        ] = False,
        config: _ConfigOpt = None,
        output: _FormatOpt = "text",
    ) -> None:
        """Run every example of every loaded rule (with DIR: the rules of DIR's packs) and print
        a table like a unit-test run: exit 0 when each gives its expected status, 1 on a miss
        (naming the rule, the example, its file and line), 2 for an unusable pack."""
        from auditor.audit.examples import missing_examples, run_examples

        fmt = _format(output)
        catalogue, chosen = _scope(folder, rules, config, with_shipped)
        results = run_examples(catalogue, chosen)
        missing = missing_examples(chosen)
        if fmt == "json":
            import json

            doc = {
                "rules": len(chosen),
                "examples": len(results),
                "passed": sum(r.ok for r in results),
                "missed": sum(not r.ok for r in results),
                "results": [r.to_json() for r in results],
                "missingExamples": missing,
            }
            sys.stdout.write(json.dumps(doc, indent=2) + "\n")
        else:
            sys.stdout.write(_table(results, missing, len(chosen)))
        if missing or not all(r.ok for r in results):
            raise SystemExit(1)

    @rules_app.command("lint")
    def rules_lint(
        folder: _DirArg = None,
        rules: RulesOpt = None,
        config: _ConfigOpt = None,
        output: _FormatOpt = "text",
    ) -> None:
        """Check rule packs (with DIR: DIR's; else the shipped and yours): unknown, missing and
        wrong-typed fields, predicates that do not parse, message placeholders the rule does not
        define, settings without a default, clashing ids, examples of the wrong shape. Each
        problem names its file and 1-based line; exit 0 when clean, 2 with problems."""
        fmt = _format(output)
        problems = _lint(folder, rules, config)
        if fmt == "json":
            import json

            doc = {"problems": [p.to_json() for p in problems]}
            sys.stdout.write(json.dumps(doc, indent=2) + "\n")
        else:
            from auditor.inert import inert_message

            for p in problems:
                sys.stdout.write(inert_message(str(p)) + "\n")
            sys.stdout.write(f"{len(problems)} problem(s)\n" if problems else "no problems found\n")
        if problems:
            # (the summary on standard error too, as every exit 2 says why there)
            from auditor.inert import inert

            files = sorted({p.file for p in problems})
            where = inert(files[0]) if len(files) == 1 else f"{len(files)} rule pack files"
            sys.stderr.write(f"auditor: error: {where}: {len(problems)} problem(s) found by lint\n")
            raise SystemExit(2)

    @rules_app.command("schema")
    def rules_schema() -> None:
        """Print the JSON Schema of the rule-pack format (for editors: save it and point a
        `# yaml-language-server: $schema=PATH` line of your pack at it; docs/rule-packs.md)."""
        from importlib import resources

        text = (resources.files("auditor.audit") / SCHEMA_FILE).read_text("utf-8")
        sys.stdout.write(text if text.endswith("\n") else text + "\n")

    del rules_test, rules_lint, rules_schema


def _lint(folder: Path | None, rules: list[Path] | None, config: Path | None) -> list[Any]:
    from auditor._resources import data_dir
    from auditor.audit.lint import lint_packs
    from auditor.audit.packs import load_catalogue, pack_files

    dirs = rule_pack_dirs(rules, config)
    if folder is not None:  # DIR's packs, against every other loaded rule
        if not folder.exists():
            raise InputError("no such folder of rule packs", source=os.fspath(folder))
        files = pack_files(folder)
        mine = {os.path.realpath(f) for f in files}
        others = [d for d in dirs if os.path.realpath(d) not in mine]
        known = [
            r for r in load_catalogue(None, others).rules if os.path.realpath(r.source) not in mine
        ]
        return lint_packs(files, user=True, known=known)
    problems = lint_packs(sorted(data_dir("rules").glob("*.yaml")), user=False)
    user_files = [f for d in dirs for f in pack_files(d)]
    if user_files:
        known = list(load_catalogue().rules) if not problems else []
        problems += lint_packs(user_files, user=True, known=known)
    return problems


def _table(results: list[ExampleResult], missing: list[dict[str, Any]], rules: int) -> str:
    from auditor.inert import inert_message

    header = ("RULE", "EXAMPLE", "EXPECTED", "GOT", "OK")
    rows = [
        (r.rule.id, r.label, r.example.status, r.got, "ok" if r.ok else "MISS") for r in results
    ]
    widths = [max([len(h), *(len(row[i]) for row in rows)]) for i, h in enumerate(header)]
    lines = ["  ".join(c.ljust(widths[i]) for i, c in enumerate(header)).rstrip()]
    lines += ["  ".join(c.ljust(widths[i]) for i, c in enumerate(row)).rstrip() for row in rows]
    misses = [r for r in results if not r.ok]
    if misses or missing:
        lines.append("")
    for r in misses:
        lines.append(
            inert_message(
                f"MISS {r.rule.id} {r.label} ({r.rule.source}, line {r.example.line}): expected "
                f"{r.example.status}, got {r.got}: {r.message}"
            )
        )
    for m in missing:
        lines.append(
            inert_message(
                f"MISS {m['rule']} ({m['file']}, line {m['line']}): no {m['missing']} example"
            )
        )
    passed = sum(r.ok for r in results)
    lines.append("")
    lines.append(
        f"{len(results)} example(s) of {rules} rule(s): {passed} passed, "
        f"{len(results) - passed} missed"
        + (f"; {len(missing)} rule(s) without a fail or pass example" if missing else "")
    )
    return "\n".join(lines) + "\n"
