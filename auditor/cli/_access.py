"""``auditor access check|who|what`` and ``auditor gdpr export`` (contracts §4, §5).

Thin: parse arguments, call :mod:`auditor.access`, print. The engine is imported inside the commands
so that ``auditor --help`` stays fast.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from auditor.errors import InputError
from auditor.inert import TERMINAL_LIMIT, inert, inert_json

if TYPE_CHECKING:
    from rich.console import Console

    from auditor.access import AccessEngine, Decision, WhatResult, WhoResult

_FORMATS = ("json", "text")

_SNAPSHOT = typer.Option(..., "--snapshot", help="Snapshot file (contracts §2).", metavar="FILE")
_FORMAT = typer.Option("text", "--format", help="Output format: json or text.", metavar="FORMAT")
_ATTRIBUTE = typer.Option(
    None,
    "--attribute",
    help="KEY=VALUE request attribute (repeatable; VALUE is JSON when it parses as JSON). "
    "Given at least once, attributes are concrete: those not listed are absent.",
    metavar="KEY=VALUE",
)
_OUTPUT = typer.Option(
    None,
    "-o",
    "--output",
    help="json (to the terminal), json=PATH or pdf=PATH; repeatable.",
    metavar="FORMAT[=PATH]",
)


def _engine(path: str) -> AccessEngine:
    from auditor.access import AccessEngine
    from auditor.cli._progress import stage

    with stage(f"Loading and indexing {path}"):
        return AccessEngine.from_file(path)


def _console() -> Console:
    from rich.console import Console

    return Console(file=sys.stdout, highlight=False, soft_wrap=True)


def _check_format(value: str) -> str:
    lowered = value.lower()
    if lowered not in _FORMATS:
        raise InputError(f"expected json or text, found {value!r}", source="--format")
    return lowered


def _attribute(text: str) -> tuple[str, Any]:
    """``KEY=VALUE``; VALUE is read as JSON when it is JSON (numbers, true/false, arrays), else as a
    plain string."""
    cut = text.find("]=")
    cut = cut + 1 if cut >= 0 else text.find("=")
    if cut <= 0:
        raise InputError(f"expected KEY=VALUE, found {text!r}", source="--attribute")
    key, raw = text[:cut].strip(), text[cut + 1 :]
    try:
        value: Any = json.loads(raw)
    except ValueError:
        value = raw
    ok = isinstance(value, str | bool | int) and not isinstance(value, float)
    if isinstance(value, list):
        ok = all(isinstance(v, str | bool | int) and not isinstance(v, float) for v in value)
    if not ok:
        value = raw
    return key, value


def _dump(obj: Any) -> str:
    return inert_json(json.dumps(obj, ensure_ascii=False))


def _shown(value: object) -> str:
    """A value from the estate (a name, an id, a reason) as rich markup that prints it inert and
    bounded: no escape sequence, control or bidi character acts, no markup applies."""
    from rich.markup import escape

    return escape(inert(value, limit=TERMINAL_LIMIT))


_STYLE = {
    "allowed": "bold green",
    "denied": "bold red",
    "notGranted": "bold yellow",
    "conditional": "bold magenta",
}


def _print_decision(console: Console, decision: Decision) -> None:
    style = _STYLE.get(decision.decision, "bold")
    console.print(
        f"[{style}]{decision.decision.upper()}[/{style}]  {_shown(decision.principalId)}  "
        f"{_shown(decision.action)}  at  {_shown(decision.scope)}"
    )
    console.print(f"  {_shown(decision.reason)}")
    for label, values in (
        ("granted by", decision.grantedBy),
        ("denied by", decision.deniedBy),
        ("conditions", decision.conditions),
    ):
        for value in values:
            console.print(f"  {label}: {_shown(value)}")


def _request_lines(path: str) -> Iterator[bytes]:
    from auditor.access import request_lines  # regular files and pipes, lines of bounded length

    return request_lines(path)


def register(app: typer.Typer) -> None:
    """Add ``access`` and ``gdpr`` to ``app``."""
    access = typer.Typer(
        name="access",
        help="Effective access: check requests, who can, what can.",
        no_args_is_help=True,
    )
    gdpr = typer.Typer(name="gdpr", help="GDPR data-subject exports.", no_args_is_help=True)

    @access.command("check")
    def check(
        snapshot: str = _SNAPSHOT,
        principal: str | None = typer.Option(
            None, "--principal", help="Principal id.", metavar="ID"
        ),
        action: str | None = typer.Option(None, "--action", help="Operation.", metavar="OP"),
        scope: str | None = typer.Option(None, "--scope", help="Scope.", metavar="SCOPE"),
        data_action: bool = typer.Option(
            False, "--data-action", help="The operation is a data action."
        ),
        sub_operation: str | None = typer.Option(
            None, "--sub-operation", help="Sub-operation name.", metavar="NAME"
        ),
        attribute: list[str] | None = _ATTRIBUTE,
        requests: str | None = typer.Option(
            None,
            "--requests",
            help="JSON Lines file of requests (- for standard input); one decision a line.",
            metavar="FILE.jsonl",
        ),
        output_format: str = _FORMAT,
    ) -> None:
        """Decide one request, or a JSON Lines batch (answered in order, streaming)."""
        from auditor.access import BATCH_WINDOW, AccessRequest, read_request_lines

        fmt = _check_format(output_format)
        single = [principal, action, scope]
        if requests is not None:
            if any(v is not None for v in single) or attribute or sub_operation or data_action:
                raise InputError("give either --requests or --principal/--action/--scope, not both")
        else:
            missing = [
                name
                for name, value in zip(("--principal", "--action", "--scope"), single, strict=True)
                if not value
            ]
            if missing:
                raise InputError(
                    f"missing {', '.join(missing)} (or give a batch with --requests FILE.jsonl)"
                )
        engine = _engine(snapshot)
        if requests is None:
            assert principal and action and scope
            if not scope.startswith("/"):
                raise InputError(
                    f'expected a scope starting with "/", found {scope!r}', source="--scope"
                )
            attributes = dict(_attribute(a) for a in attribute) if attribute else None
            request = AccessRequest(
                principalId=principal,
                action=action,
                scope=scope,
                dataAction=data_action,
                subOperation=sub_operation,
                attributes=attributes,
            )
            decision = engine.check(request)
            if fmt == "json":
                typer.echo(inert_json(decision.to_json().decode()))
            else:
                _print_decision(_console(), decision)
            return
        source = "<stdin>" if requests == "-" else requests
        stream = read_request_lines(_request_lines(requests), source=source)
        # someone typing requests is answered line by line; files and pipes are decided a
        # window at a time (faster, same answers in the same order)
        window = 1 if requests == "-" and sys.stdin.isatty() else BATCH_WINDOW
        if fmt == "json":
            write = sys.stdout.write
            for decision in engine.check_many(stream, window=window):
                write(inert_json(decision.to_json().decode()))
                write("\n")
            sys.stdout.flush()
        else:
            console = _console()
            for decision in engine.check_many(stream, window=window):
                _print_decision(console, decision)

    @access.command("who")
    def who(
        snapshot: str = _SNAPSHOT,
        action: str = typer.Option(..., "--action", help="Operation.", metavar="OP"),
        scope: str = typer.Option(..., "--scope", help="Scope.", metavar="SCOPE"),
        data_action: bool = typer.Option(
            False, "--data-action", help="The operation is a data action."
        ),
        output_format: str = _FORMAT,
    ) -> None:
        """Who may perform OP at SCOPE (through groups, with the path), and who a deny blocks."""
        fmt = _check_format(output_format)
        if not scope.startswith("/"):
            raise InputError(
                f'expected a scope starting with "/", found {scope!r}', source="--scope"
            )
        result = _engine(snapshot).who(action, scope, data_action)
        if fmt == "json":
            typer.echo(_dump(result.to_wire()))
        else:
            _print_who(_console(), result)

    @access.command("what")
    def what(
        snapshot: str = _SNAPSHOT,
        principal: str = typer.Option(..., "--principal", help="Principal id.", metavar="ID"),
        scope: str | None = typer.Option(
            None, "--scope", help="Only what applies at this scope.", metavar="SCOPE"
        ),
        output_format: str = _FORMAT,
    ) -> None:
        """Every role and operation pattern a principal holds, per scope, after denies."""
        fmt = _check_format(output_format)
        if scope is not None and not scope.startswith("/"):
            raise InputError(
                f'expected a scope starting with "/", found {scope!r}', source="--scope"
            )
        result = _engine(snapshot).what(principal, scope)
        if fmt == "json":
            typer.echo(_dump(result.to_wire()))
        else:
            _print_what(_console(), result)

    @gdpr.command("export")
    def export(
        snapshot: str = _SNAPSHOT,
        principal_id: str | None = typer.Option(
            None, "--principal-id", help="The subject's principal id.", metavar="ID"
        ),
        email: str | None = typer.Option(
            None,
            "--email",
            help="The subject's e-mail (resolved through the directory).",
            metavar="ADDRESS",
        ),
        output: list[str] | None = _OUTPUT,
    ) -> None:
        """Every record of the snapshot that names one data subject."""
        from auditor.access import gdpr_export
        from auditor.estate._files import write_atomic
        from auditor.estate.snapshot import load_snapshot

        if (principal_id is None) == (email is None):
            raise InputError("give exactly one of --principal-id and --email")
        targets: list[tuple[str, str | None]] = []
        for item in output or ["json"]:
            fmt, _, target = item.partition("=")
            fmt = fmt.strip().lower()
            if fmt not in ("json", "pdf"):
                raise InputError(
                    f"the GDPR export is available as json or pdf, found {fmt!r}", source="-o"
                )
            if fmt == "pdf" and not target:
                raise InputError("a PDF needs a file: use -o pdf=PATH", source="-o")
            targets.append((fmt, target or None))
        document = gdpr_export(load_snapshot(snapshot), principal_id=principal_id, email=email)
        text = inert_json(json.dumps(document, indent=2, ensure_ascii=False)) + "\n"
        for fmt, path in targets:
            if fmt == "pdf" and path is not None:
                from auditor.report.pdf import render_gdpr_pdf

                render_gdpr_pdf(document, path)
            elif path is None:
                typer.echo(text, nl=False)
            else:
                write_atomic(Path(path), text.encode("utf-8"), overwrite=True, what="export file")

    app.add_typer(access)
    app.add_typer(gdpr)


def _print_who(console: Console, result: WhoResult) -> None:
    kind = "data action" if result.dataAction else "action"
    console.print(f"Who can perform {kind} {_shown(result.action)} at {_shown(result.scope)}")
    for entry in result.entries:
        style = _STYLE.get(entry.decision, "bold")
        name = entry.displayName or entry.principalId
        console.print(
            f"[{style}]{entry.decision.upper():11}[/{style}] {_shown(name)}  "
            f"({_shown(entry.type or 'unknown type')}, {_shown(entry.principalId)})"
        )
        for path in entry.paths:
            via = " directly"
            if len(path.via) > 1:
                via = f" through {' → '.join(_shown(n) for n in path.viaNames[1:])}"
            cond = " (conditioned)" if path.condition else ""
            console.print(f"    {_shown(path.roleName)} at {_shown(path.scope)}{via}{cond}")
        for deny in entry.deniedBy:
            console.print(f"    blocked by {_shown(deny)}")
    console.print(
        f"{len(result.allowed)} allowed, {len(result.conditional)} conditional, "
        f"{len(result.denied)} denied"
    )


def _print_what(console: Console, result: WhatResult) -> None:
    where = f" at {_shown(result.scope)}" if result.scope else ""
    console.print(f"What {_shown(result.principalId)} holds{where}")
    groups = result.by_scope()
    if not groups:
        console.print("  no role assignments")
    for scope, holdings in groups.items():
        console.print(f"[bold]{_shown(scope)}[/bold]")
        for holding in holdings:
            via = ""
            if len(holding.via) > 1:
                via = f" through {' → '.join(_shown(n) for n in holding.viaNames[1:])}"
            cond = " (conditioned)" if holding.condition else ""
            console.print(f"  {_shown(holding.roleName)}{via}{cond}")
            for perm in holding.permissions:
                for pattern in perm.patterns:
                    plane = "data" if pattern.dataAction else "control"
                    denied = ""
                    if pattern.deniedBy:
                        denied = f" by {', '.join(_shown(d) for d in pattern.deniedBy)}"
                    console.print(
                        f"    {plane:7} {_shown(pattern.pattern)}  {pattern.status}{denied}"
                    )
                excluded = perm.notActions + perm.notDataActions
                if excluded:
                    console.print(f"    except  {', '.join(_shown(x) for x in excluded)}")
