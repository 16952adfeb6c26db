"""The fuzz harness' own checks are not vacuous: a leak, an exit 70, a traceback, a stall and a
runaway allocation are each caught."""

from __future__ import annotations

import pytest

from tests.fuzz._harness import Outcome, problems, run_and_check
from tests.fuzz._limits import Stalled, memory_limit, time_limit
from tests.fuzz._secrets import MARKERS, SECRETS, leaked


def _outcome(
    code: int = 0, out: str = "", err: str = "", files: dict[str, bytes] | None = None
) -> Outcome:
    return Outcome(["x"], code, out, err, "", files or {}, 0.0, 0)


def test_every_secret_has_a_marker_and_is_found_in_text_and_bytes() -> None:
    for secret in SECRETS:
        assert leaked(secret) and leaked(secret.encode())
    assert leaked(f'expected an object, found a string ("{SECRETS[0][:8]}...")')
    assert len(set(MARKERS)) == len(MARKERS)


def test_leaks_in_outputs_and_files_are_problems() -> None:
    assert problems(_outcome(out=f"token {SECRETS[1]}"))
    assert problems(_outcome(files={"report.html": SECRETS[2].encode()}))
    assert not problems(_outcome(out="all fine"))


def test_exit_70_tracebacks_and_unnamed_files_are_problems() -> None:
    assert problems(_outcome(70, err="auditor: error: internal error (ValueError)"))
    assert problems(_outcome(0, err="Traceback (most recent call last):\n"))
    assert problems(_outcome(2, err="auditor: error: bad"), input_name="estate.json")
    assert not problems(
        _outcome(2, err="auditor: error: estate.json: $.x: bad"), input_name="estate.json"
    )
    assert problems(
        _outcome(2, err="auditor: error: \x1b[2J estate.json"), input_name="estate.json"
    )


def test_a_stall_is_stopped() -> None:
    with pytest.raises(Stalled), time_limit(0.2):
        while True:
            pass


def test_a_runaway_allocation_fails_instead_of_exhausting_the_machine() -> None:
    with pytest.raises(MemoryError), memory_limit(256 * 2**20):
        bytearray(2 * 2**30)


def test_a_real_run_passes_the_checks() -> None:
    o = run_and_check(["filter", "check", "--", "name eq 'x'"])
    assert o.code == 0 and "name eq 'x'" in o.out
