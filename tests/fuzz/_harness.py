"""One example through the command line, in-process, held to the contract (issue 16, contracts 5):

- the exit code is 0, 1, 2 or 3 (never 70 or anything else);
- no traceback and no "internal error" in standard output, standard error or the log;
- no seeded secret in standard output, standard error, the log or any file written;
- exit 2 and 3 come with a message, exit 2 names the input file, and the message is bounded and
  inert (no raw escape sequence, no bidi override or isolate);
- bounded time: a hard stop (SIGALRM) after :data:`HARD_TIMEOUT` seconds, on top of hypothesis'
  ``deadline``;
- bounded memory: the address space is limited to the current size plus
  :data:`ADDRESS_SPACE_MARGIN` while the example runs (so a runaway allocation is a MemoryError,
  not the kernel killing the machine's other work), and the peak resident size may grow by at most
  :func:`memory_bound` over the example (a fixed allowance plus a multiple of the input's size).
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import re
import shutil
import sys
import tempfile
import traceback
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import settings

from tests.fuzz._limits import Stalled, guarded, memory_limit, time_limit
from tests.fuzz._secrets import leaks_in

MEMORY_GROWTH = 300 * 2**20
"""How much the peak resident size may grow during one example, besides :data:`MEMORY_PER_BYTE`."""
MEMORY_PER_BYTE = 8
"""Bytes of peak growth allowed per byte of input (a JSON document decodes to a few times its
size; the amplification issue 16 found was 3,000 times)."""


def memory_bound(input_bytes: int) -> int:
    """The peak growth allowed for an example whose inputs hold ``input_bytes`` bytes."""
    return MEMORY_GROWTH + MEMORY_PER_BYTE * input_bytes


ERROR_MESSAGE_MAX = 16_384
"""Characters an error message may have."""

CONTRACT_EXITS = frozenset({0, 1, 2, 3})
FORBIDDEN_TEXT = ("Traceback (most recent call last)", "internal error")
_NOT_INERT = re.compile("[\x1b\x9b\u202a-\u202e\u2066-\u2069]")


def budget(quick: int | None = None) -> settings:
    """The hypothesis settings of a fuzz test: profile ``fuzz`` under ``AUDITOR_FUZZ=1`` (10,000
    examples), else ``fuzz-quick`` with ``quick`` examples (the fixed budget of ``make test``)."""
    if os.environ.get("AUDITOR_FUZZ"):
        return settings(settings.get_profile("fuzz"))
    profile = settings.get_profile("fuzz-quick")
    return settings(profile, max_examples=quick or profile.max_examples)


# --- running ------------------------------------------------------------------------------------


@dataclass
class Outcome:
    argv: list[str]
    code: int | None
    """The exit code; None when the example was stopped (see ``stalled``)."""
    out: str
    err: str
    log: str
    files: dict[str, bytes]
    seconds: float
    rss_growth: int
    stalled: str | None = None
    detail: str = ""
    """The traceback of an internal error (the run repeated with AUDITOR_DEBUG=1)."""
    inputs: dict[str, bytes] = field(default_factory=dict)


class _Capture(io.TextIOWrapper):
    """A text stream like a terminal's: UTF-8, strict, not a tty."""

    def __init__(self) -> None:
        super().__init__(io.BytesIO(), encoding="utf-8", errors="strict", write_through=True)

    def text(self) -> str:
        self.flush()
        raw = self.buffer
        assert isinstance(raw, io.BytesIO)
        return raw.getvalue().decode("utf-8", "replace")


class _LogBuffer(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.lines.append(f"{record.levelname} {record.name}: {record.getMessage()}")
        except Exception as exc:  # a record that cannot be formatted is itself a finding
            self.lines.append(f"unformattable log record ({exc!r})")


@contextlib.contextmanager
def _environment(env: Mapping[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in [*env, "AUDITOR_DEBUG"]}
    os.environ.pop("AUDITOR_DEBUG", None)
    os.environ.update(env)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _written(root: Path, inputs: set[str]) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder, name)
            rel = str(path.relative_to(root))
            if rel in inputs or not path.is_file() or path.is_symlink():
                continue
            with open(path, "rb") as f:
                out[rel] = f.read(64 * 2**20)
    return out


@contextlib.contextmanager
def workdir() -> Iterator[Path]:
    """A fresh directory, the current one while the example runs (no configuration file above)."""
    root = Path(tempfile.mkdtemp(prefix="auditor-fuzz-"))
    here = os.getcwd()
    os.chdir(root)
    try:
        yield root
    finally:
        os.chdir(here)
        shutil.rmtree(root, ignore_errors=True)


def run_cli(
    argv: Sequence[str],
    root: Path,
    *,
    inputs: Mapping[str, bytes] | None = None,
    env: Mapping[str, str] | None = None,
) -> Outcome:
    """Write ``inputs`` (file name -> bytes) into ``root`` and run ``auditor.cli.main(argv)``
    there, capturing everything it writes."""
    from auditor.cli import main

    inputs = dict(inputs or {})
    for name, data in inputs.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    out, err, log = _Capture(), _Capture(), _LogBuffer()
    root_logger, auditor_logger = logging.getLogger(), logging.getLogger("auditor")
    level = auditor_logger.level
    saved = sys.stdout, sys.stderr, sys.stdin
    sys.stdout, sys.stderr, sys.stdin = out, err, io.TextIOWrapper(io.BytesIO(b""))
    root_logger.addHandler(log)
    auditor_logger.setLevel(logging.DEBUG)
    try:
        with _environment(env or {}), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            code, stalled, seconds, growth = guarded(lambda: main(list(argv)))
    finally:
        sys.stdout, sys.stderr, sys.stdin = saved
        root_logger.removeHandler(log)
        auditor_logger.setLevel(level)
    log.lines.extend(f"warning: {w.message}" for w in caught)
    outcome = Outcome(
        argv=list(argv),
        code=code,
        out=out.text(),
        err=err.text(),
        log="\n".join(log.lines),
        files=_written(root, set(inputs)),
        seconds=seconds,
        rss_growth=growth,
        stalled=stalled,
        inputs=inputs,
    )
    if code == 70:
        outcome.detail = _debug_traceback(argv, env or {})
    return outcome


def _debug_traceback(argv: Sequence[str], env: Mapping[str, str]) -> str:
    """The internal error's traceback: the same run with AUDITOR_DEBUG=1 (output discarded)."""
    from auditor.cli import main

    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Capture(), _Capture()
    try:
        with _environment({**env, "AUDITOR_DEBUG": "1"}), time_limit(), memory_limit():
            main(list(argv))
    except Stalled:
        return "(the debug run stalled)"
    except BaseException:
        lines = traceback.format_exc().splitlines()
        return "\n".join(lines[-12:])
    finally:
        sys.stdout, sys.stderr = saved
    return "(the debug run did not fail)"


# --- checking -----------------------------------------------------------------------------------


def _error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("auditor: error:")]


def problems(
    o: Outcome,
    *,
    input_name: str | tuple[str, ...] | None = None,
    allowed: frozenset[int] = CONTRACT_EXITS,
    secrets_in: str = "all",
    input_bytes: int = 0,
) -> list[str]:
    """What is wrong with ``o`` (empty: it keeps the contract)."""
    found: list[str] = []
    if o.stalled:
        found.append(o.stalled)
    elif o.code not in allowed:
        found.append(f"exit code {o.code} (expected one of {sorted(allowed)})")
    texts = {"stdout": o.out, "stderr": o.err, "log": o.log}
    for name, text in texts.items():
        for bad in FORBIDDEN_TEXT:
            if bad in text:
                found.append(f"{bad!r} in {name}")
    if secrets_in == "all":
        named: list[tuple[str, str | bytes]] = list(texts.items())
        named += [(f"file {name}", data) for name, data in o.files.items()]
    else:  # "messages": error messages and the log only (a damaged document can move a secret
        # into an ordinary field, where showing it is no leak)
        named = [("error message", "\n".join(_error_lines(o.err))), ("log", o.log)]
    found += [f"secret leaked in {leak}" for leak in leaks_in(named)]
    errors = _error_lines(o.err)
    if o.code in (2, 3) and not errors and not o.err.strip():
        found.append(f"exit {o.code} without a message")
    names = (input_name,) if isinstance(input_name, str) else input_name or ()
    if o.code == 2 and names and errors and not any(n in e for e in errors for n in names):
        found.append(f"the error message does not name the input file ({' or '.join(names)})")
    for line in errors:
        if len(line) > ERROR_MESSAGE_MAX:
            found.append(f"an error message of {len(line):,} characters")
        if _NOT_INERT.search(line):
            found.append(f"raw escape or bidi control in an error message: {line[:200]!r}")
    size = sum(len(data) for data in o.inputs.values()) + input_bytes
    if o.rss_growth > memory_bound(size):
        found.append(
            f"peak memory grew by {o.rss_growth / 2**20:,.0f} MB ({size:,} bytes of input)"
        )
    return found


def describe(o: Outcome, found: list[str]) -> str:
    def cut(text: str, n: int = 1_500) -> str:
        return text if len(text) <= n else text[:n] + f"... ({len(text):,} characters)"

    lines = [
        "the contract was broken:",
        *(f"  - {p}" for p in found),
        f"argv: {o.argv}",
        f"exit: {o.code}, {o.seconds:.2f} s, peak resident +{o.rss_growth / 2**20:.0f} MB",
        f"stderr: {cut(o.err)!r}",
        f"stdout: {cut(o.out, 500)!r}",
        f"files written: {sorted(o.files)}",
    ]
    if o.detail:
        lines.append("traceback (AUDITOR_DEBUG=1):\n" + o.detail)
    for name, data in o.inputs.items():
        lines.append(f"input {name} ({len(data):,} bytes): {cut(repr(data), 800)}")
    if o.inputs:
        lines.append(f"inputs kept in {keep_inputs(o.inputs)}")
    return "\n".join(lines)


def keep_inputs(inputs: Mapping[str, bytes]) -> str:
    """Save the inputs of a failing example in a new temporary folder (to reproduce it: run the
    argv there); return the folder."""
    folder = tempfile.mkdtemp(prefix="auditor-fuzz-failure-")
    for name, data in inputs.items():
        path = Path(folder, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return folder


_FAILURE_KINDS: dict[str, type[AssertionError]] = {}


def _kind(o: Outcome, first: str) -> str:
    """A short name for what went wrong, so that hypothesis reports distinct failures apart."""
    if o.stalled:
        return "Stalled"
    if o.code == 70:
        m = re.search(r"internal error[^(\n]*\((\w+)\)", o.err)
        return f"InternalError_{m.group(1) if m else 'unknown'}"
    if first.startswith("exit code"):
        return f"Exit{o.code}"
    for word, name in (
        ("secret leaked", "SecretLeaked"),
        ("Traceback", "Traceback"),
        ("without a message", "NoMessage"),
        ("does not name", "FileNotNamed"),
        ("characters", "LongMessage"),
        ("raw escape", "NotInert"),
        ("memory", "Memory"),
    ):
        if word in first:
            return name
    return "ContractBroken"


def failure_type(kind: str) -> type[AssertionError]:
    """One AssertionError subclass per kind of failure (hypothesis tells bugs apart by type)."""
    if kind not in _FAILURE_KINDS:
        _FAILURE_KINDS[kind] = type(kind, (AssertionError,), {"__module__": __name__})
    return _FAILURE_KINDS[kind]


def check(
    o: Outcome,
    *,
    input_name: str | tuple[str, ...] | None = None,
    allowed: frozenset[int] = CONTRACT_EXITS,
    secrets_in: str = "all",
    input_bytes: int = 0,
) -> None:
    """Fail with a description when ``o`` breaks the contract (``secrets_in``: "all" outputs, or
    error "messages" only)."""
    found = problems(
        o, input_name=input_name, allowed=allowed, secrets_in=secrets_in, input_bytes=input_bytes
    )
    if found:
        raise failure_type(_kind(o, found[0]))(describe(o, found))


def run_and_check(
    argv: Sequence[str],
    *,
    inputs: Mapping[str, bytes] | None = None,
    env: Mapping[str, str] | None = None,
    input_name: str | tuple[str, ...] | None = None,
    allowed: frozenset[int] = CONTRACT_EXITS,
    secrets_in: str = "all",
    input_bytes: int = 0,
) -> Outcome:
    """:func:`run_cli` in a fresh :func:`workdir`, then :func:`check`."""
    with workdir() as root:
        o = run_cli(argv, root, inputs=inputs, env=env)
    check(o, input_name=input_name, allowed=allowed, secrets_in=secrets_in, input_bytes=input_bytes)
    return o
