"""Shared helpers for the benchmark scripts: cached generated estates and measured child runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
PYCACHE = CACHE / "pycache"


def child_env(pycache: Path = PYCACHE, **extra: str) -> dict[str, str]:
    """A benchmark child's environment: Python's bytecode cache on, in ``pycache`` (never beside
    the sources; the path of each tree's sources is kept under it, so trees do not mix), as an
    installed tool runs. Under ``PYTHONDONTWRITEBYTECODE``, which this machine sets, every run
    would compile each module changed since its ``.pyc`` was written (0.06 s and more), and a
    fresh baseline tree every module; ``extra`` is added (``PYTHONPATH=...``)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    env.update(extra)
    return env


def cached_estate(
    role_assignments: int,
    *,
    seed: int = 7,
    principals: int | None = None,
    deny_assignments: int | None = None,
) -> Path:
    """A generated snapshot file, made once and reused across runs (benchmarks/.cache/)."""
    CACHE.mkdir(exist_ok=True)
    name = f"estate-ra{role_assignments}-s{seed}-p{principals}-d{deny_assignments}.json"
    path = CACHE / name
    if not path.exists():
        from auditor.estate.generate import generate_estate

        tmp = path.with_suffix(".partial")
        generate_estate(
            role_assignments,
            seed=seed,
            principals=principals,
            deny_assignments=deny_assignments,
            out=tmp,
        )
        os.replace(tmp, path)
    return path


def run_child(code: str, *args: str) -> dict[str, float]:
    """Run ``code`` in a fresh interpreter; it prints one JSON object of figures on its last line.

    Each measurement gets its own process so that peak memory (ru_maxrss) belongs to it alone;
    its modules' bytecode is cached (:func:`child_env`).
    """
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        check=False,
        env=child_env(),
    )
    if proc.returncode != 0:
        raise SystemExit(f"benchmark child failed:\n{proc.stderr}")
    result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


PEAK = (
    "import resource; peak_mb = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024"
)
