"""The ``auditor`` command line: thin wrappers that parse arguments, call the layers below and map
errors to exit codes (contracts section 5). Heavy libraries are imported inside the commands."""

from __future__ import annotations

import os
import sys
from typing import Any

# Plain help and usage errors start in a fraction of the time rich's markdown stack takes to load
# (the command line must feel instant); TYPER_USE_RICH=1 brings the rich help back.
os.environ.setdefault("TYPER_USE_RICH", "0")

import typer

from auditor import __version__
from auditor.cli import _access, _audit, _collect, _demo, _estate, _expr, _sandbox
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


for _module in (_estate, _expr, _access, _audit, _collect, _sandbox, _demo):
    _module.register(app)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; user-facing errors become a message and an exit code, never a traceback."""
    usage_errors, exits, aborts = _click_exception_types()
    try:
        app(args=argv, prog_name="auditor", standalone_mode=False)
    except AuditorError as exc:
        _print_error(str(exc))
        return exc.exit_code
    except KeyboardInterrupt:
        _print_error("interrupted")
        return 130
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else 0
    except exits as exc:
        return int(getattr(exc, "exit_code", 0))
    except usage_errors as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":
            exc.show()  # help was asked for by giving no arguments
            return 0
        exc.show()
        return int(getattr(exc, "exit_code", 2)) or 2
    except aborts:
        _print_error("aborted")
        return 1
    except Exception as exc:  # anything unexpected: a message, not a traceback
        if os.environ.get("AUDITOR_DEBUG"):
            raise
        _print_error(f"internal error ({type(exc).__name__}); set AUDITOR_DEBUG=1 for details")
        return 70
    return 0


def _click_exception_types() -> tuple[
    tuple[type[Any], ...], tuple[type[Any], ...], tuple[type[Any], ...]
]:
    """Usage-error, exit and abort classes of typer's bundled click and of click itself."""
    usage: list[type[Any]] = []
    exits: list[type[Any]] = [typer.Exit]
    aborts: list[type[Any]] = [typer.Abort]
    try:
        from typer._click.exceptions import ClickException as TyperClickException

        usage.append(TyperClickException)
    except ImportError:  # older typer uses click directly
        pass
    try:
        import click

        usage.append(click.ClickException)
        exits.append(click.exceptions.Exit)
        aborts.append(click.exceptions.Abort)
    except ImportError:
        pass
    return tuple(usage), tuple(exits), tuple(aborts)


def _print_error(message: str) -> None:
    sys.stderr.write(f"auditor: error: {message}\n")


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
