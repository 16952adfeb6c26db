"""The ``auditor`` command line: thin wrappers that parse arguments, call the layers below and map
errors to exit codes (contracts section 5). Heavy libraries are imported inside the commands."""

from __future__ import annotations

import os
import sys

import typer

from auditor import __version__
from auditor.cli import _estate, _expr
from auditor.errors import AuditorError

app = typer.Typer(
    name="auditor",
    help="Policy and compliance audit engine for the cloud estate of the seed specification.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"auditor {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", help="Print the version and exit.", callback=_version, is_eager=True
    ),
) -> None:
    """Audit role and deny assignments, clusters, domains, health events and API tokens."""


for _module in (_estate, _expr):
    _module.register(app)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; user-facing errors become a message and an exit code, never a traceback."""
    try:
        app(args=argv, prog_name="auditor", standalone_mode=False)
    except AuditorError as exc:
        _print_error(str(exc))
        return exc.exit_code
    except KeyboardInterrupt:
        _print_error("interrupted")
        return 130
    except SystemExit as exc:  # typer.Exit / click usage errors
        code = exc.code
        return code if isinstance(code, int) else 0
    except Exception as exc:  # click usage errors and anything unexpected
        import click

        if isinstance(exc, click.exceptions.Exit):
            return exc.exit_code
        if isinstance(exc, click.ClickException):
            exc.show()
            return 2
        if isinstance(exc, click.exceptions.Abort):
            _print_error("aborted")
            return 1
        if os.environ.get("AUDITOR_DEBUG"):
            raise
        _print_error(f"internal error ({type(exc).__name__}); set AUDITOR_DEBUG=1 for details")
        return 70
    return 0


def _print_error(message: str) -> None:
    sys.stderr.write(f"auditor: error: {message}\n")


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
