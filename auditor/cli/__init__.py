"""The ``auditor`` command line: thin wrappers that parse arguments, call the layers below and map
errors to exit codes (contracts section 5).

Start-up is kept short (a light command answers in well under a tenth of a second): heavy libraries
are imported inside the commands, and each command module (``auditor.cli._access`` ...) is imported
only when one of its commands runs or a help page lists them all (:data:`COMMANDS`)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

# Plain help and usage errors start in a fraction of the time rich's markdown stack takes to load
# (the command line must feel instant); TYPER_USE_RICH=1 brings the rich help back. Shell completion
# (--install-completion, --show-completion) costs nothing at start-up: typer imports it anyway.
os.environ.setdefault("TYPER_USE_RICH", "0")
# pydantic looks for plugins (every installed distribution's entry points) before its first model
# is built: tens of milliseconds a command pays for nothing auditor uses.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

import typer
from typer.core import TyperGroup

from auditor import __version__
from auditor.cli import _ci
from auditor.errors import EXIT_INCOMPLETE, EXIT_INPUT, EXIT_INTERNAL, AuditorError

COMMANDS: dict[str, str] = {
    "estate": "_estate",
    "query": "_expr",
    "filter": "_expr",
    "condition": "_expr",
    "access": "_access",
    "gdpr": "_access",
    "audit": "_audit",
    "gate": "_audit",
    "rules": "_audit",
    "collect": "_collect",
    "sandbox": "_sandbox",
    "demo": "_demo",
    "history": "_history",
    "cache": "_cache",
}
"""Each top-level command and the module of ``auditor.cli`` whose ``register(app)`` adds it (help
lists commands, then groups, each in this order). A module is imported when one of its commands is
looked up, so a command pays for its own imports alone: a new command is one line here."""


class _Commands(dict[str, Any]):
    """The root group's commands: looking one up that is not there yet loads its module."""

    def __init__(self, group: _LazyGroup, commands: Mapping[str, Any]) -> None:
        super().__init__(commands)
        self._group = group

    def __missing__(self, name: str) -> Any:
        if name not in COMMANDS:
            raise KeyError(name)
        self._group.load(COMMANDS[name])
        return dict.__getitem__(self, name)


class _LazyGroup(TyperGroup):
    """The root group, whose commands come from :data:`COMMANDS` on first use."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands = _Commands(self, self.commands)
        self._loaded: dict[str, list[str]] = {}

    def load(self, module_name: str) -> None:
        """Import ``auditor.cli.<module_name>`` and add the commands its ``register`` defines."""
        if module_name in self._loaded:
            return
        import importlib

        module = importlib.import_module(f"auditor.cli.{module_name}")
        holder = typer.Typer()
        module.register(holder)
        group = typer.main.get_group(holder)
        self._loaded[module_name] = list(group.commands)
        for name, command in group.commands.items():
            self.commands[name] = command

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name in COMMANDS:
            self.load(COMMANDS[cmd_name])
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: Any) -> list[str]:
        modules = list(dict.fromkeys(COMMANDS.values()))
        for module_name in modules:
            self.load(module_name)
        order = {
            name: (hasattr(self.commands[name], "list_commands"), modules.index(module), i)
            for module, names in self._loaded.items()
            for i, name in enumerate(names)
        }
        listed = [name for name in self.commands if name in order]
        return sorted(listed, key=order.__getitem__) + [n for n in self.commands if n not in order]


app = typer.Typer(
    name="auditor",
    help="Policy and compliance audit engine for the cloud estate of the seed specification.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    cls=_LazyGroup,
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


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; user-facing errors become a message and an exit code, never a traceback.

    Exit codes (contracts section 5): 0, 1 (the gate failed), 2 (usage or input), 3 (incomplete),
    70 (an internal error: a defect, reported with a hint and no traceback), 130 (interrupted).
    """
    from auditor.estate import tracking_inputs

    _ci.mode = _ci.CiMode()  # a command's CI options last for that command only
    try:
        with tracking_inputs():  # and so do the inputs no output may be written over
            code = app(args=argv, prog_name="auditor", standalone_mode=False)
        # outside standalone mode typer returns an Exit's code, and turns an interruption into
        # Exit(130): it must not become a success (a gate stopped half-way would pass)
        if isinstance(code, int) and not isinstance(code, bool) and code:
            if code == 130:
                _print_error("interrupted")
            return code
    except AuditorError as exc:
        _print_error(str(exc))
        return exc.exit_code
    except KeyboardInterrupt:
        _print_error("interrupted")
        return 130
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else 0
    except _click_exception_types()[1] as exc:  # click may be imported by the command
        return int(getattr(exc, "exit_code", 0))
    except _click_exception_types()[0] as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":
            exc.show()  # help was asked for by giving no arguments
            return 0
        exc.show()
        return int(getattr(exc, "exit_code", 2)) or 2
    except _click_exception_types()[2]:
        _print_error("aborted")
        return 1
    except BrokenPipeError:  # the reader of the output went away (`auditor ... | head`)
        _quiet_stdout()
        return 141  # as if killed by SIGPIPE, like other command-line tools
    except Exception as exc:  # the last guard: a message, never a traceback
        if os.environ.get("AUDITOR_DEBUG"):
            raise
        return _unforeseen(exc, argv)
    return 0


_REPORT = "please report this, with the command; AUDITOR_DEBUG=1 shows the traceback"


def _unforeseen(exc: Exception, argv: list[str] | None) -> int:
    """An exception no layer turned into an AuditorError: a short message naming the command and
    the exception's type (never its text, which may quote an input), and an exit code. The kinds an
    input can still cause keep the contract's codes: an input nested too deeply or not UTF-8 is 2,
    running out of memory leaves the evaluation incomplete (3), a file that cannot be read or
    written is 2; anything else is a defect (70)."""
    where = _command(argv)
    kind = type(exc).__name__
    if isinstance(exc, RecursionError):
        _print_error(f"an input nests too deeply to be processed ({where}); {_REPORT}")
        return EXIT_INPUT
    if isinstance(exc, MemoryError):
        _print_error(f"out of memory: the evaluation is incomplete ({where})")
        return EXIT_INCOMPLETE
    if isinstance(exc, UnicodeError):
        _print_error(f"an input is not UTF-8 text ({kind} in {where}); {_REPORT}")
        return EXIT_INPUT
    if isinstance(exc, OSError):
        name = f" {exc.filename}" if isinstance(exc.filename, str) else ""
        reason = exc.strerror or kind
        _print_error(f"cannot read or write{name}: {reason} ({where})")
        return EXIT_INPUT
    _print_error(f"internal error in {where} ({kind}); {_REPORT}")
    return EXIT_INTERNAL


def _command(argv: list[str] | None) -> str:
    """``auditor access check``: the command (and group) ``argv`` names, without its arguments."""
    args = list(sys.argv[1:] if argv is None else argv)
    names: list[str] = []
    try:
        command: Any = typer.main.get_command(app)
        for arg in args:
            found = command.get_command(None, arg) if hasattr(command, "get_command") else None
            if found is None:
                break
            names.append(arg)
            command = found
    except Exception:  # only a name for a message
        pass
    return "`" + " ".join(["auditor", *names]) + "`"


def _quiet_stdout() -> None:
    """Point standard output at /dev/null, so flushing it at exit raises nothing more."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


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
    # only an imported click can raise its exceptions (a typer without its own copy imports it)
    click: Any = sys.modules.get("click")
    if click is not None:
        usage.append(click.ClickException)
        exits.append(click.exceptions.Exit)
        aborts.append(click.exceptions.Abort)
    return tuple(usage), tuple(exits), tuple(aborts)


def _print_error(message: str) -> None:
    """``message`` on standard error, inert (no escape sequence, control or bidi character acts:
    each shows as ``\\x1b`` or ``<U+202E>``) and bounded (:data:`auditor.inert.MESSAGE_LIMIT`)."""
    from auditor.inert import inert_message

    sys.stderr.write(f"auditor: error: {inert_message(message)}\n")


_HELD: list[Any] | None = None
"""What a command leaves to the end of the process (:func:`hold_until_exit`); None in process."""


def hold_until_exit(*objects: Any) -> None:
    """Keep ``objects`` (a loaded estate, an audit's result) to the end of the ``auditor``
    process, which then ends without freeing them one by one (a million records take a second);
    nothing when the CLI runs in process (:func:`main` called by tests or a library user)."""
    if _HELD is not None:
        _HELD.extend(objects)


@contextmanager
def collector_paused() -> Iterator[None]:
    """No garbage collection while the block runs (a batch of decisions makes hundreds of
    thousands of objects and no cycles), and none of what it made walked afterwards in the
    ``auditor`` process, which ends without freeing it (:func:`hold_until_exit`): there the
    block's objects are frozen (:func:`gc.freeze`) before the collector comes back; in process
    (tests, a library user) the collector is only turned back on (:func:`auditor._collector.paused`)."""
    from auditor._collector import paused

    with paused(freeze=_HELD is not None):
        yield


def run() -> None:
    """Console-script entry point."""
    global _HELD
    _HELD = []
    code = main()
    if _HELD:
        import threading

        if threading.active_count() == 1:  # no thread is left to finish its work
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            except (OSError, ValueError):
                sys.exit(code)
            import atexit

            atexit._run_exitfuncs()
            os._exit(code)
    sys.exit(code)
