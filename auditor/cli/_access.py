"""``auditor access check|who|what`` and ``auditor gdpr export`` (contracts §4, §5).

Thin: parse arguments, call :mod:`auditor.access`, print. The engine is imported inside the commands
so that ``auditor --help`` stays fast.
"""

from __future__ import annotations

import json
import operator
import sys
from collections.abc import Iterable, Iterator
from itertools import compress
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import typer

from auditor.cli._cache import CacheDir, NoCache
from auditor.errors import InputError
from auditor.inert import TERMINAL_LIMIT, inert, inert_json

if TYPE_CHECKING:
    from rich.console import Console

    from auditor.access import AccessEngine, Decision, ResolvedPrincipal, WhatResult, WhoResult
    from auditor.access.directory import Directory
    from auditor.access.partial import PartialEstate
    from auditor.estate.snapshot import Snapshot

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
_STRICT = typer.Option(
    False,
    "--strict",
    help="Exit 2 when the answer carries a warning (an unknown principal, a scope outside the "
    "estate, an unknown action, an attribute no condition reads); the answer is printed first.",
)
_PRINCIPAL_HELP = (
    "Principal: its id, e-mail address, user principal name or display name (ignoring case)."
)
_OUTPUT = typer.Option(
    None,
    "-o",
    "--output",
    help="json (to the terminal), json=PATH or pdf=PATH; repeatable.",
    metavar="FORMAT[=PATH]",
)


_SPINNER_DELAY = 0.25
"""Seconds of loading before the spinner shows: a small estate is answered without loading rich."""


def _engine(path: str) -> AccessEngine:
    from auditor.access import AccessEngine
    from auditor.cli._estate import read_estate
    from auditor.cli._progress import stage

    with stage(f"Loading and indexing {path}", delay=_SPINNER_DELAY):
        engine = AccessEngine.from_snapshot(read_estate(path))
    _held(engine)
    return engine


def _held(engine: AccessEngine) -> None:
    """Let the ``auditor`` process end without freeing ``engine`` (and, with it, the modules and
    what they hold): the interpreter's own clean-up takes a fifth of a question's start-up
    (:func:`auditor.cli.hold_until_exit`)."""
    from auditor.cli import hold_until_exit

    hold_until_exit(engine)


def _partial(path: str) -> PartialEstate | None:
    """The cache entry of the snapshot ``path`` when the running command uses the cache and the
    entry is sound and current (:mod:`auditor.access.partial`: one question is answered from the
    few blocks it needs); None otherwise (the command loads the snapshot, writing the entry)."""
    from auditor.cli._cache import estate_cache

    cache = estate_cache(path)
    opened = cache.open(path) if cache is not None else None
    if opened is None:
        return None
    from auditor.access.partial import PartialEstate

    try:
        return PartialEstate(opened)
    except InputError as exc:
        opened.discard(exc.detail)
        return None


def _answering(partial: PartialEstate, engine: AccessEngine) -> AccessEngine:
    """``engine``, once the loader's warnings about the snapshot are printed as
    :func:`~auditor.cli._estate.read_estate` prints them."""
    from auditor.cli._estate import print_warnings

    print_warnings(partial.warnings)
    _held(engine)
    return engine


class _Out:
    """Where a text answer goes: rich on a terminal (or when colour is forced), else plain lines.

    Both print the same characters: values inert and bounded (no escape sequence, control or bidi
    character acts; :func:`~auditor.inert.inert` leaves no control character, so the marks around a
    styled part below cannot come from a value), never read as markup or emoji codes, no wrapping;
    only rich adds colour. The plain writer spares a question the import of rich (a fifth of its
    start-up)."""

    def __init__(self) -> None:
        self._rich: Console | None = None
        if _wants_rich():
            from rich.console import Console

            self._rich = Console(file=sys.stdout, highlight=False, soft_wrap=True)

    @staticmethod
    def value(value: object) -> str:
        """A value from the estate (a name, an id, a reason), as it is to be printed."""
        return inert(value, limit=TERMINAL_LIMIT)

    def styled(self, style: str, text: str) -> str:
        """``text`` in ``style`` (on rich only)."""
        return text if self._rich is None else f"\x00{style}\x01{text}\x00"

    def print(self, line: str) -> None:
        if self._rich is None:
            sys.stdout.write(line + "\n")
            return
        from rich.text import Text

        text = Text()
        for i, part in enumerate(line.split("\x00")):
            if i % 2:
                style, _, part = part.partition("\x01")
                text.append(part, style=style)
            else:
                text.append(part)
        self._rich.print(text)


def _wants_rich() -> bool:
    """Colour goes to a terminal, or wherever ``FORCE_COLOR`` (or ``TTY_COMPATIBLE=1``) asks for it
    as rich reads them; ``NO_COLOR`` and a plain pipe get plain lines."""
    import os

    if os.environ.get("FORCE_COLOR") or os.environ.get("TTY_COMPATIBLE") == "1":
        return True
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def _console() -> _Out:
    return _Out()


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


_STYLE = {
    "allowed": "bold green",
    "denied": "bold red",
    "notGranted": "bold yellow",
    "conditional": "bold magenta",
}


def _print_decision(
    console: _Out, decision: Decision, resolved: ResolvedPrincipal | None = None
) -> None:
    style = _STYLE.get(decision.decision, "bold")
    console.print(
        f"{console.styled(style, decision.decision.upper())}  {console.value(decision.principalId)}  "
        f"{console.value(decision.action)}  at  {console.value(decision.scope)}"
    )
    if resolved is not None and resolved.matchedBy not in ("id", "unknownId"):
        console.print(f"  principal: {console.value(resolved.describe())}")
    console.print(f"  {console.value(decision.reason)}")
    for label, values in (
        ("granted by", decision.grantedBy),
        ("denied by", decision.deniedBy),
        ("conditions", decision.conditions),
    ):
        for value in values:
            console.print(f"  {label}: {console.value(value)}")
    _print_warnings(console, decision.warnings)


def _print_warnings(console: _Out, warnings: tuple[str, ...]) -> None:
    for warning in warnings:
        console.print(f"  {console.styled('bold yellow', 'warning:')} {console.value(warning)}")


def _strict(warnings: int, what: str, snapshot: str) -> None:
    """``--strict``: warnings make the command an input error (exit 2), after the answer."""
    if warnings:
        raise InputError(
            f"{what} carries {warnings:,} warning{'' if warnings == 1 else 's'} (the request "
            f"names what the snapshot {snapshot} does not hold)",
            source="--strict",
        )


def _resolve(engine: AccessEngine, principal: str) -> ResolvedPrincipal:
    """The principal a person named (id, e-mail, UPN or display name); ambiguous or unknown
    names are input errors (see :mod:`auditor.access.principals`)."""
    return engine.resolve_principal(principal)


def _checker(path: str, principal: str, scope: str) -> tuple[AccessEngine, ResolvedPrincipal]:
    """The engine that answers one question about ``principal`` at ``scope`` (from the cache
    entry when there is a sound one, else the whole snapshot) and the principal resolved."""
    partial = _partial(path)
    if partial is not None:
        try:
            resolved = partial.resolve(principal)
            if resolved is not None:
                return _answering(partial, partial.engine_for_check(resolved.id, scope)), resolved
        except InputError as exc:  # a damaged block: the entry goes, the snapshot is loaded
            partial.cached.discard(exc.detail)
    engine = _engine(path)
    return engine, _resolve(engine, principal)


def _who_engine(path: str, scope: str) -> AccessEngine:
    """The engine that answers who-can at ``scope`` (see :func:`_checker`)."""
    partial = _partial(path)
    if partial is not None:
        try:
            return _answering(partial, partial.engine_for_who(scope))
        except InputError as exc:
            partial.cached.discard(exc.detail)
    return _engine(path)


def _request_lines(path: str) -> Iterator[bytes]:
    from auditor.access import request_lines  # regular files and pipes, lines of bounded length

    return request_lines(path)


def _inert_lines(data: bytes) -> bytes:
    """:func:`~auditor.inert.inert_json_bytes` of each line of ``data`` (JSON Lines), looking only
    at the lines that are not ASCII (a decision's reason often holds an arrow): the same bytes as
    making each line inert by itself, in a fraction of the time of scanning the whole block."""
    from auditor.inert import inert_json_bytes

    if data.isascii() and b"\x7f" not in data:
        return data
    lines = data.split(b"\n")
    check: Iterable[int] = range(len(lines))
    if b"\x7f" not in data:
        check = compress(check, map(operator.not_, map(bytes.isascii, lines)))
    changed = False
    for i in check:
        safe = inert_json_bytes(lines[i])
        if safe is not lines[i]:
            lines[i] = safe
            changed = True
    return b"\n".join(lines) if changed else data


_WRITE_EVERY = 64
"""Decisions of a batch encoded and written at once (``--requests``, JSON): a block that stays in
the processor's caches (larger blocks measured slower: the encoding is bound by memory)."""
_WARNINGS = operator.attrgetter("warnings")


def _write_windows(windows: Iterable[list[Decision]], *, each: bool, window: int) -> int:
    """Write the decisions of ``windows`` (lists of decisions, as
    :meth:`~auditor.access.AccessEngine.check_windows` gives them for windows of ``window``
    requests) to standard output as JSON Lines (contracts §4), inert, encoded a block at a time
    without a Python step per decision, each window as soon as it comes (and flushed with
    ``each``, for a person typing requests); how many carry warnings. When the windows stop at
    an error (a bad request), those before it have been written. The last window's decisions (the one not filled) are kept to the end of the
    ``auditor`` process (:func:`auditor.cli.hold_until_exit`: freeing them one by one takes a
    quarter of the time of encoding them); the others go as soon as they are written."""
    from auditor.access import decisions_to_json_lines
    from auditor.cli import hold_until_exit

    sys.stdout.flush()
    binary: BinaryIO | None = getattr(sys.stdout, "buffer", None)
    warned = 0
    try:
        for decisions in windows:
            count = len(decisions)
            for start in range(0, count, _WRITE_EVERY):
                data = _inert_lines(
                    decisions_to_json_lines(decisions[start : start + _WRITE_EVERY])
                )
                if binary is None:
                    sys.stdout.write(data.decode("utf-8"))
                else:
                    binary.write(data)
            warned += sum(map(bool, map(_WARNINGS, decisions)))
            if each:
                (binary or sys.stdout).flush()
            if 1 < count < window:  # the last window: none is decided after it
                hold_until_exit(decisions)
            del decisions  # before the next window is decided
    finally:
        (binary or sys.stdout).flush()
    return warned


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
            None, "--principal", help=_PRINCIPAL_HELP, metavar="ID|EMAIL|NAME"
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
        strict: bool = _STRICT,
        _no_cache: NoCache = False,
        _cache_dir: CacheDir = None,
    ) -> None:
        """Decide one request, or a JSON Lines batch (answered in order, streaming).

        A decision names what the request asks about that the estate does not know (warnings,
        exit 0; 2 with --strict). Requests in a batch name principals by id."""
        from auditor.access import BATCH_WINDOW, AccessRequest, read_request_lines
        from auditor.cli import collector_paused

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
        if requests is None:
            assert principal and action and scope
            if not scope.startswith("/"):
                raise InputError(
                    f'expected a scope starting with "/", found {scope!r}', source="--scope"
                )
            attributes = dict(_attribute(a) for a in attribute) if attribute else None
            engine, resolved = _checker(snapshot, principal, scope)
            request = AccessRequest(
                principalId=resolved.id,
                action=action,
                scope=scope,
                dataAction=data_action,
                subOperation=sub_operation,
                attributes=attributes,
            )
            decision = engine.check(request, warn=True)
            if fmt == "json":
                typer.echo(inert_json(decision.to_json().decode()))
            else:
                _print_decision(_console(), decision, resolved)
            if strict:
                _strict(len(decision.warnings), "the answer", snapshot)
            return
        engine = _engine(snapshot)
        source = "<stdin>" if requests == "-" else requests
        stream = read_request_lines(_request_lines(requests), source=source)
        # someone typing requests is answered line by line; files and pipes are decided a
        # window at a time (faster, same answers in the same order)
        window = 1 if requests == "-" and sys.stdin.isatty() else BATCH_WINDOW
        warned = 0
        with collector_paused():
            if fmt == "json":
                windows = engine.check_windows(stream, window=window, warn=True)
                warned = _write_windows(windows, each=window == 1, window=window)
            else:
                console = _console()
                for decision in engine.check_many(stream, window=window, warn=True):
                    _print_decision(console, decision)
                    warned += bool(decision.warnings)
        if strict and warned:
            raise InputError(
                f"{warned:,} decision{'' if warned == 1 else 's'} of the batch carr"
                f"{'ies' if warned == 1 else 'y'} warnings (the requests name what the "
                f"snapshot {snapshot} does not hold)",
                source="--strict",
            )

    @access.command("who")
    def who(
        snapshot: str = _SNAPSHOT,
        action: str = typer.Option(..., "--action", help="Operation.", metavar="OP"),
        scope: str = typer.Option(..., "--scope", help="Scope.", metavar="SCOPE"),
        data_action: bool = typer.Option(
            False, "--data-action", help="The operation is a data action."
        ),
        output_format: str = _FORMAT,
        strict: bool = _STRICT,
        _no_cache: NoCache = False,
        _cache_dir: CacheDir = None,
    ) -> None:
        """Who may perform OP at SCOPE (through groups, with the path), and who a deny blocks."""
        fmt = _check_format(output_format)
        if not scope.startswith("/"):
            raise InputError(
                f'expected a scope starting with "/", found {scope!r}', source="--scope"
            )
        result = _who_engine(snapshot, scope).who(action, scope, data_action, warn=True)
        if fmt == "json":
            typer.echo(_dump(result.to_wire()))
        else:
            _print_who(_console(), result)
        if strict:
            _strict(len(result.warnings), "the answer", snapshot)

    @access.command("what")
    def what(
        snapshot: str = _SNAPSHOT,
        principal: str = typer.Option(
            ..., "--principal", help=_PRINCIPAL_HELP, metavar="ID|EMAIL|NAME"
        ),
        scope: str | None = typer.Option(
            None, "--scope", help="Only what applies at this scope.", metavar="SCOPE"
        ),
        output_format: str = _FORMAT,
        strict: bool = _STRICT,
        _no_cache: NoCache = False,
        _cache_dir: CacheDir = None,
    ) -> None:
        """Every role and operation pattern a principal holds, per scope, after denies."""
        fmt = _check_format(output_format)
        if scope is not None and not scope.startswith("/"):
            raise InputError(
                f'expected a scope starting with "/", found {scope!r}', source="--scope"
            )
        engine = _engine(snapshot)
        resolved = _resolve(engine, principal)
        result = engine.what(resolved.id, scope, warn=True)
        if fmt == "json":
            typer.echo(_dump(result.to_wire()))
        else:
            _print_what(_console(), result, resolved)
        if strict:
            _strict(len(result.warnings), "the answer", snapshot)

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
        principal: str | None = typer.Option(
            None, "--principal", help=_PRINCIPAL_HELP, metavar="ID|EMAIL|NAME"
        ),
        output: list[str] | None = _OUTPUT,
        _no_cache: NoCache = False,
        _cache_dir: CacheDir = None,
    ) -> None:
        """Every record of the snapshot that names one data subject."""
        from auditor.access import gdpr_export
        from auditor.cli._estate import read_estate
        from auditor.estate import write_atomic

        if sum(v is not None for v in (principal_id, email, principal)) != 1:
            raise InputError("give exactly one of --principal-id, --email and --principal")
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
        loaded = read_estate(snapshot)
        directory = None
        if principal is not None:
            principal_id, directory = _gdpr_subject(loaded, principal)
        document = gdpr_export(loaded, principal_id=principal_id, email=email, directory=directory)
        text = inert_json(json.dumps(document, indent=2, ensure_ascii=False)) + "\n"
        for fmt, path in targets:
            if fmt == "pdf" and path is not None:
                from auditor.report.pdf import render_gdpr_pdf

                render_gdpr_pdf(document, path)
            elif path is None:
                typer.echo(text, nl=False)
            else:
                write_atomic(Path(path), text.encode("utf-8"), overwrite=True, what="export file")

    _register_diff(access)
    app.add_typer(access)
    app.add_typer(gdpr)


def _gdpr_subject(snapshot: Snapshot, principal: str) -> tuple[str, Directory]:
    """``gdpr export --principal``: the subject's id (a name or address resolved through the
    directory and the deny assignments' principals), and the directory built for it."""
    from auditor.access import resolve_principal
    from auditor.access.directory import Directory
    from auditor.inert import inert_message

    directory = Directory(snapshot.principals)
    resolved = resolve_principal(snapshot, principal, directory=directory)
    if not resolved.known:
        sys.stderr.write(
            f"auditor: warning: {inert_message(resolved.describe())}: no record of the "
            "snapshot names this id\n"
        )
    elif resolved.matchedBy != "id":
        sys.stderr.write(f"auditor: note: {inert_message(resolved.describe())}\n")
    return resolved.id, directory


def _print_who(console: _Out, result: WhoResult) -> None:
    kind = "data action" if result.dataAction else "action"
    console.print(
        f"Who can perform {kind} {console.value(result.action)} at {console.value(result.scope)}"
    )
    _print_warnings(console, result.warnings)
    for entry in result.entries:
        style = _STYLE.get(entry.decision, "bold")
        name = entry.displayName or entry.principalId
        console.print(
            f"{console.styled(style, f'{entry.decision.upper():11}')} {console.value(name)}  "
            f"({console.value(entry.type or 'unknown type')}, {console.value(entry.principalId)})"
        )
        for path in entry.paths:
            via = " directly"
            if len(path.via) > 1:
                via = f" through {' → '.join(console.value(n) for n in path.viaNames[1:])}"
            cond = " (conditioned)" if path.condition else ""
            console.print(
                f"    {console.value(path.roleName)} at {console.value(path.scope)}{via}{cond}"
            )
        for deny in entry.deniedBy:
            console.print(f"    blocked by {console.value(deny)}")
    console.print(
        f"{len(result.allowed)} allowed, {len(result.conditional)} conditional, "
        f"{len(result.denied)} denied"
    )


def _print_what(
    console: _Out, result: WhatResult, resolved: ResolvedPrincipal | None = None
) -> None:
    where = f" at {console.value(result.scope)}" if result.scope else ""
    console.print(f"What {console.value(result.principalId)} holds{where}")
    if resolved is not None and resolved.matchedBy not in ("id", "unknownId"):
        console.print(f"  principal: {console.value(resolved.describe())}")
    _print_warnings(console, result.warnings)
    groups = result.by_scope()
    if not groups:
        console.print("  no role assignments")
    for scope, holdings in groups.items():
        console.print(console.styled("bold", console.value(scope)))
        for holding in holdings:
            via = ""
            if len(holding.via) > 1:
                via = f" through {' → '.join(console.value(n) for n in holding.viaNames[1:])}"
            cond = " (conditioned)" if holding.condition else ""
            console.print(f"  {console.value(holding.roleName)}{via}{cond}")
            for perm in holding.permissions:
                for pattern in perm.patterns:
                    plane = "data" if pattern.dataAction else "control"
                    denied = ""
                    if pattern.deniedBy:
                        denied = f" by {', '.join(console.value(d) for d in pattern.deniedBy)}"
                    console.print(
                        f"    {plane:7} {console.value(pattern.pattern)}  {pattern.status}{denied}"
                    )
                excluded = perm.notActions + perm.notDataActions
                if excluded:
                    console.print(f"    except  {', '.join(console.value(x) for x in excluded)}")


_DIFF_FORMATS = ("text", "json")
_DIFF_OUTPUT = typer.Option(
    None,
    "-o",
    "--output",
    help="text or json, to the terminal or to FORMAT=PATH; repeatable.",
    metavar="FORMAT[=PATH]",
)


def _register_diff(access: typer.Typer) -> None:
    """Add ``access diff BEFORE AFTER`` (contracts §5, §9) to the ``access`` group."""

    @access.command("diff")
    def diff(
        before: str = typer.Argument(..., help="Snapshot before the change.", metavar="BEFORE"),
        after: str = typer.Argument(..., help="Snapshot after the change.", metavar="AFTER"),
        all_actions: bool = typer.Option(
            False,
            "--all-actions",
            help="Compare every action and data action a role names, not only the privileged "
            "operations.",
        ),
        output: list[str] | None = _DIFF_OUTPUT,
        _no_cache: NoCache = False,
        _cache_dir: CacheDir = None,
    ) -> None:
        """What the change from BEFORE to AFTER grants and takes away: every principal, privileged
        operation and scope whose decision differs, with the membership path and assignment behind
        it (exit 0: the delta is information)."""
        from auditor.access import access_delta
        from auditor.estate import write_atomic
        from auditor.report.access_delta import delta_json, delta_text

        targets: list[tuple[str, str | None]] = []
        for item in output or ["text"]:
            fmt, sep, target = item.partition("=")
            fmt = fmt.strip().lower()
            if fmt not in _DIFF_FORMATS:
                raise InputError(
                    f"the access delta is available as text or json, found {fmt!r}", source="-o"
                )
            if sep and not target.strip():
                raise InputError(f"expected a path after {fmt}=", source="-o")
            targets.append((fmt, target.strip() if sep else None))
        delta = access_delta(_engine(before), _engine(after), all_actions=all_actions)
        for fmt, path in targets:
            text = delta_json(delta) if fmt == "json" else delta_text(delta)
            if path is None:
                sys.stdout.write(text)
                sys.stdout.flush()
            else:
                write_atomic(Path(path), text.encode("utf-8"), overwrite=True, what=f"{fmt} file")
                sys.stderr.write(f"wrote {fmt} access delta to {inert(path)}\n")
