"""``auditor filter check``, ``auditor condition check`` and ``auditor query``.

Imports of the expression engines happen inside the commands, so ``auditor --help`` stays fast.
Errors are :class:`~auditor.errors.InputError` subclasses: ``auditor.cli.main`` prints them (with
their caret) and exits 2.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from auditor.cli._cache import CacheDir, NoCache


def register(app: typer.Typer) -> None:
    """Add the expression-language commands to ``app``."""
    filters = typer.Typer(
        name="filter",
        help="OData-style $filter expressions (semantics section 3).",
        no_args_is_help=True,
    )
    filters.command("check")(filter_check)
    app.add_typer(filters)

    conditions = typer.Typer(
        name="condition",
        help="Role-assignment conditions, version 2.0 (semantics section 2).",
        no_args_is_help=True,
    )
    conditions.command("check")(condition_check)
    app.add_typer(conditions)

    app.command("query")(query)


def filter_check(
    expr: str = typer.Argument(..., metavar="EXPR", help="The filter, e.g. \"name eq 'x'\"."),
) -> None:
    """Parse a $filter and print its canonical form; a syntax error shows a caret (exit 2)."""
    from auditor.expr.filter import parse_filter, print_filter
    from auditor.inert import inert

    typer.echo(inert(print_filter(parse_filter(expr))))


# --- `auditor condition check EXPR`: owned by the conditions work (auditor.expr.condition) -------
def condition_check(
    expr: str = typer.Argument(..., metavar="EXPR", help="The condition expression."),
) -> None:
    """Parse a role-assignment condition and print its canonical form (exit 2 on an error)."""
    from auditor.expr.condition import parse_condition, print_condition
    from auditor.inert import inert

    typer.echo(inert(print_condition(parse_condition(expr)), keep="\t\n"))


class QueryKindArg(StrEnum):
    ROLE_ASSIGNMENTS = "role-assignments"
    DENY_ASSIGNMENTS = "deny-assignments"
    HEALTH_EVENTS = "health-events"
    CLUSTERS = "clusters"
    DOMAINS = "domains"


class QueryFormat(StrEnum):
    TABLE = "table"
    JSON = "json"


_COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "role-assignments": (
        ("name", "name"),
        ("principal", "properties/principalId"),
        ("type", "properties/principalType"),
        ("role", "properties/roleDefinitionId"),
        ("scope", "properties/scope"),
        ("condition", "properties/condition"),
    ),
    "deny-assignments": (
        ("name", "properties/denyAssignmentName"),
        ("scope", "properties/scope"),
        ("children", "properties/doNotApplyToChildScopes"),
        ("system", "properties/isSystemProtected"),
        ("description", "properties/description"),
    ),
    "health-events": (
        ("name", "name"),
        ("type", "properties/eventType"),
        ("status", "properties/status"),
        ("level", "properties/eventLevel"),
        ("title", "properties/title"),
    ),
    "clusters": (
        ("name", "name"),
        ("location", "location"),
        ("version", "properties/clusterVersion"),
        ("state", "properties/clusterState"),
    ),
    "domains": (
        ("name", "name"),
        ("location", "location"),
        ("public access", "properties/publicNetworkAccess"),
        ("TLS", "properties/minimumTlsVersionAllowed"),
        ("state", "properties/provisioningState"),
    ),
}


def query(
    kind: Annotated[QueryKindArg, typer.Argument(help="What to list.")],
    snapshot: Annotated[Path, typer.Option("--snapshot", help="The snapshot file.")],
    filter_text: Annotated[
        str | None,
        typer.Option(
            "--filter",
            help="Without --scope: any $filter over the record's JSON, e.g. "
            "\"properties/principalType eq 'Group'\". With --scope: a form the API accepts "
            "for that list (atScope(), principalId eq '...', assignedTo('...'), ...).",
        ),
    ] = None,
    scope: Annotated[
        str | None,
        typer.Option(
            "--scope",
            help="List as the API does at this scope: at, above and below it "
            "(semantics section 3).",
        ),
    ] = None,
    output_format: Annotated[
        QueryFormat, typer.Option("--format", help="table or json.")
    ] = QueryFormat.TABLE,
    _no_cache: NoCache = False,
    _cache_dir: CacheDir = None,
) -> None:
    """List the records of a snapshot that match a filter (contracts section 5)."""
    from auditor.cli._estate import read_estate
    from auditor.sandbox.query import QueryKind, query_snapshot

    estate = read_estate(snapshot)
    rows = query_snapshot(estate, QueryKind(kind.value), filter_text, scope)
    if output_format is QueryFormat.JSON:
        import json

        from auditor.inert import inert_json

        typer.echo(inert_json(json.dumps(rows, indent=2, ensure_ascii=False)))
        return
    names: dict[str, str] = {}
    if kind is QueryKindArg.ROLE_ASSIGNMENTS:
        from auditor.audit.names import estate_names

        names = estate_names(estate)  # principal and role names next to their GUIDs
    _print_table(kind.value, rows, names)


def _print_table(
    kind: str, rows: list[dict[str, Any]], names: dict[str, str] | None = None
) -> None:
    from rich.console import Console
    from rich.table import Table

    columns = _COLUMNS[kind]
    table = Table(title=f"{len(rows)} {kind}")
    for header, _ in columns:
        table.add_column(header, overflow="fold")
    for row in rows:
        table.add_row(*(_cell(_at(row, path), names) for _, path in columns))
    Console().print(table)


def _at(doc: Any, path: str) -> Any:
    for part in path.split("/"):
        doc = doc.get(part) if isinstance(doc, dict) else None
    return doc


def _cell(value: Any, names: dict[str, str] | None = None) -> str:
    """A value of the snapshot as rich markup that prints it inert and bounded; a principal or
    role GUID with its name before it when ``names`` has one."""
    from rich.markup import escape

    from auditor.inert import TERMINAL_LIMIT, inert

    if value is None:
        return ""
    text = value if isinstance(value, str) else str(value)
    if "/roleDefinitions/" in text:
        text = text.rsplit("/", 1)[-1]
    name = names.get(text.lower()) if names else None
    if name:
        text = f"{name} ({text})"
    return escape(inert(text, limit=TERMINAL_LIMIT))
