"""Every benchmark script imports: a name one of them takes from the package (a private writer,
say) that a later change renamed fails here, in the suite, and not only when the benchmarks are
next run (``bench_access`` and ``bench_requests`` once broke so, unnoticed for a session)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def test_every_benchmark_script_imports() -> None:
    names = sorted(p.stem for p in BENCHMARKS.glob("*.py"))
    assert "bench_access" in names and "run_all" in names
    code = (
        "import importlib, sys\n"
        f"sys.path.insert(0, {str(BENCHMARKS)!r})\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        "print('imported')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=BENCHMARKS.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("imported")
