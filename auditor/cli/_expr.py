"""``auditor filter check``, ``auditor condition check`` and ``auditor query``.

Imports of the expression engines happen inside the commands, so ``auditor --help`` stays fast.
Errors are :class:`~auditor.errors.InputError` subclasses: ``auditor.cli.main`` prints them (with
their caret) and exits 2.
"""

from __future__ import annotations

import typer


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

    # `auditor query KIND --snapshot FILE --filter EXPR [--scope SCOPE] [--format table|json]`
    # is added here once the snapshot loader lands (contracts section 5).


def filter_check(
    expr: str = typer.Argument(..., metavar="EXPR", help="The filter, e.g. \"name eq 'x'\"."),
) -> None:
    """Parse a $filter and print its canonical form; a syntax error shows a caret (exit 2)."""
    from auditor.expr.filter import parse_filter, print_filter

    typer.echo(print_filter(parse_filter(expr)))


# --- `auditor condition check EXPR`: owned by the conditions work (auditor.expr.condition) -------
def condition_check(
    expr: str = typer.Argument(..., metavar="EXPR", help="The condition expression."),
) -> None:
    """Parse a role-assignment condition and print its canonical form (exit 2 on an error)."""
    from auditor.expr.condition import parse_condition, print_condition

    typer.echo(print_condition(parse_condition(expr)))
