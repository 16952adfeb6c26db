"""What a CI job sees of ``audit`` and ``gate``: the one-line summary on standard error and the
exit code under ``--soft-fail``, ``--fail-on none`` and ``--quiet`` (docs/ci.md)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from auditor.audit.findings import AuditResult

SoftFailOpt = Annotated[
    bool,
    typer.Option(
        "--soft-fail",
        help="Report, then exit 0 even when the gate fails (input errors stay 2, an incomplete "
        "evaluation stays 3).",
    ),
]
QuietOpt = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        help="Print nothing but errors and the one-line summary on standard error (no text "
        "report unless -o text asks for it, no warnings, no progress).",
    ),
]
NoColorOpt = Annotated[
    bool,
    typer.Option("--no-color", help="No colour in terminal output (also: NO_COLOR set)."),
]


@dataclass
class CiMode:
    """The run's CI options (one command a process; set by the command, read at its end)."""

    soft_fail: bool = False
    fail_on_none: bool = False
    quiet: bool = False
    no_color: bool = False
    text_on_terminal: bool = False
    """A text report went to standard output: the summary line is only printed on a non-zero
    exit (the report says the rest)."""


mode = CiMode()


def configure(*, soft_fail: bool, fail_on_none: bool, quiet: bool, no_color: bool) -> CiMode:
    """Set the run's CI options (returns them)."""
    global mode
    mode = CiMode(
        soft_fail=soft_fail,
        fail_on_none=fail_on_none,
        quiet=quiet,
        no_color=no_color or bool(os.environ.get("NO_COLOR")),
    )
    return mode


def exit_code(result: AuditResult, ci: CiMode | None = None) -> tuple[int, str]:
    """The exit code under the CI options, and why, in a phrase."""
    ci = ci or mode
    code = result.exit_code
    if code in (0, 1) and ci.fail_on_none:
        reasons = []  # what blocks besides a finding's severity
        if result.expiredWaivers:
            reasons.append(f"{len(result.expiredWaivers)} expired waiver(s)")
        unknown = len(result.unknowns) if result.failOnUnknown else 0
        if unknown:
            reasons.append(f"{unknown} unknown finding(s) with --fail-on-unknown")
        if not reasons:
            return 0, "exit 0: --fail-on none: no failing finding blocks"
        return _soften(1, "exit 1, the gate failed: " + " and ".join(reasons), ci)
    return _soften(code, result.exit_reason(), ci)


def _soften(code: int, reason: str, ci: CiMode) -> tuple[int, str]:
    if code == 1 and ci.soft_fail:
        return 0, "exit 0 (--soft-fail): " + reason.removeprefix("exit 1, ")
    return code, reason


def summary_line(result: AuditResult, reason: str) -> str:
    """``auditor: exit 1, the gate failed: 3 failing finding(s) at or above high; findings: 3
    failing (1 critical, 2 high), 2 unknown, 1 waived, 40 passed`` (inert, one line)."""
    from auditor.audit.findings import SEVERITIES
    from auditor.inert import inert_message

    s = result.summary()
    failing = sum(s[sev] for sev in SEVERITIES)
    per = ", ".join(f"{s[sev]} {sev}" for sev in SEVERITIES if s[sev])
    counts = f"{failing} failing" + (f" ({per})" if per else "")
    for name in ("unknown", "waived", "baselined", "passed"):
        if s.get(name) or name in ("unknown", "passed"):
            counts += f", {s.get(name, 0)} {name}"
    line = f"auditor: {inert_message(reason)}; findings: {counts}"
    return line.replace("\n", " ")


def finish(result: AuditResult) -> None:
    """Print the summary line (always, unless a text report on standard output already said it
    and the gate passed) and exit with the code the CI options give."""
    code, reason = exit_code(result)
    if not mode.text_on_terminal or code or result.exit_code:
        sys.stderr.write(summary_line(result, reason) + "\n")
    if code:
        raise SystemExit(code)
