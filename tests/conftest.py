"""Shared test configuration."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

import pytest
from hypothesis import HealthCheck, Phase, settings

# Caches (parser tables, estates) in a private folder of this test session, never the user's own
# (inherited by the commands the tests run in subprocesses).
os.environ["AUDITOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="auditor-test-cache-")
atexit.register(shutil.rmtree, os.environ["AUDITOR_CACHE_DIR"], True)

settings.register_profile(
    "default",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")

# The fuzz suite (tests/fuzz) applies one of these to its own tests: a small fixed budget in
# `make test`, 10,000 examples a test in `make fuzz` (AUDITOR_FUZZ=1; AUDITOR_FUZZ_EXAMPLES=N to
# choose). A 5 s deadline per example (typical runs take under 0.3 s; a loaded machine must not
# make them flaky); the suite's harness also stops a stalled example at 10 s. No
# "explain" phase: it reruns a failing example dozens of times for little news.
_FUZZ_PHASES = [Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink]
_FUZZ_CHECKS = [
    HealthCheck.too_slow,
    HealthCheck.data_too_large,
    HealthCheck.filter_too_much,
    HealthCheck.large_base_example,
]
settings.register_profile(
    "fuzz-quick",
    max_examples=12,
    deadline=5_000,
    derandomize=True,
    database=None,
    print_blob=True,
    phases=_FUZZ_PHASES,
    suppress_health_check=_FUZZ_CHECKS,
)
settings.register_profile(
    "fuzz",
    max_examples=int(os.environ.get("AUDITOR_FUZZ_EXAMPLES") or 10_000),
    deadline=5_000,
    print_blob=True,
    phases=_FUZZ_PHASES,
    suppress_health_check=_FUZZ_CHECKS,
)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> object:
    """No skipped tests: a skip (outside an expected failure) counts as a failure."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"skipped tests are not allowed here: {report.longrepr}"
    return None
