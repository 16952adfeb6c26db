"""Every file input given as something that is not a regular file: a directory, an empty device,
an endless one, a named pipe (with a writer, as process substitution gives one), a missing path, a
symlink loop. Each ends within the contract (a message and exit 2 or 3, or a result)."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.fuzz._bases import (
    AS_OF,
    config,
    plans,
    requests,
    requests_bytes,
    snapshot_bytes,
    to_toml,
)
from tests.fuzz._harness import check, run_cli, workdir
from tests.fuzz._hostile import to_json

ESTATE, PLAN = "estate.json", "plan.json"


def _valid(kind: str) -> bytes:
    return {
        "snapshot": snapshot_bytes(),
        "plan": to_json(plans()[0]),
        "requests": requests_bytes(requests()),
        "waivers": b"version: 1\nwaivers: []\n",
        "config": to_toml(config()).encode(),
    }[kind]


ARGV: dict[str, Callable[[str], list[str]]] = {
    "snapshot": lambda p: ["audit", "--snapshot", p, "--as-of", AS_OF, "-o", "json=out.json"],
    "plan": lambda p: ["gate", p, "--as-of", AS_OF, "-o", "json=out.json"],
    "requests": lambda p: ["access", "check", "--snapshot", ESTATE, "--requests", p],
    "waivers": lambda p: ["audit", "--snapshot", ESTATE, "--as-of", AS_OF, "--waivers", p],
    "config": lambda p: ["rules", "list", "--config", p],
}


@contextlib.contextmanager
def _fifo_with_writer(path: Path, data: bytes) -> Iterator[None]:
    """A named pipe that a thread fills with ``data`` once a reader opens it."""
    os.mkfifo(path)

    def write() -> None:
        with contextlib.suppress(OSError), open(path, "wb") as f:
            f.write(data)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    try:
        yield
    finally:
        if thread.is_alive():  # nobody opened the pipe: open it so that the writer ends
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            thread.join(5)
            os.close(fd)
        thread.join(5)


EMPTY_IS_VALID = {"config", "requests"}  # no settings; no requests to answer
SPECIALS = ["directory", "/dev/null", "/dev/zero", "fifo", "missing", "symlink-loop", "empty"]


@pytest.mark.parametrize("special", SPECIALS)
@pytest.mark.parametrize("kind", sorted(ARGV))
def test_special_files_as_inputs(kind: str, special: str) -> None:
    with workdir() as root:
        path = "input"
        fifo: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
        if special == "directory":
            (root / path).mkdir()
        elif special.startswith("/dev/"):
            path = special
        elif special == "fifo":
            fifo = _fifo_with_writer(root / path, _valid(kind))
        elif special == "symlink-loop":
            (root / path).symlink_to(root / path)
        elif special == "empty":
            (root / path).write_bytes(b"")
        with fifo:
            o = run_cli(ARGV[kind](path), root, inputs={ESTATE: snapshot_bytes()})
    check(o, input_name=path)
    empty = special in ("/dev/null", "empty")
    if special != "fifo" and not (empty and kind in EMPTY_IS_VALID):
        assert o.code in (2, 3), f"{kind} from {special}: exit {o.code}"
