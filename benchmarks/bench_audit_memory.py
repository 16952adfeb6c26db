"""A full audit from the command line with text, JSON, HTML or SARIF output: wall time and peak
memory, beside the code before passes were held compactly and the JSON streamed (issue 23, item 2).

Each run is ``auditor audit --snapshot ESTATE -o FORMAT=FILE --no-cache`` in a fresh process (its
peak resident memory and CPU time read with ``os.wait4``; the audit runs in that one process), on
the working tree and, as the baseline, on the commit before the change (``--baseline-rev``, checked out into a temporary ``git worktree`` and
run with ``PYTHONPATH``; removed afterwards). Runs alternate ``--repeat`` times (baseline then now,
then now then baseline: a run writing gigabytes just after another is slower, whichever it is; each
report is removed once read);
the medians and ranges are printed, with the goals (1,000,000 role assignments: text, HTML and
SARIF at most 10 s and 1.2 GB, JSON at most 20 s and 1.2 GB) and whether the JSON files are the
same document (the same bytes once ``startedAt`` and ``finishedAt`` are set aside).

    .venv/bin/python benchmarks/bench_audit_memory.py [--role-assignments N] [--repeat K]
        [--formats text,json,html,sarif] [--no-baseline-json] [--quick]

``--quick``: 20,000 role assignments, once. Wrap runs of 500,000 or more in
``flock /tmp/auditor-big.lock``: they take GBs.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import cached_estate, child_env

ROOT = Path(__file__).resolve().parent.parent
BASELINE_REV = "0cc0cb2"
"""The last commit whose audit held every pass as a finding and wrote the JSON at once."""
GOALS = {
    "text": (10.0, 1200.0),
    "html": (10.0, 1200.0),
    "sarif": (10.0, 1200.0),
    "json": (20.0, 1200.0),
}
"""Seconds and MB at 1,000,000 role assignments."""
_STAMPS = re.compile(rb'"(startedAt|finishedAt)": "[^"]*"')


def _environment(tree: Path, pycache: Path) -> dict[str, str]:
    """The audit's environment: ``tree`` on the path, and Python's bytecode cache on in
    ``pycache`` (as an installed tool has it): under ``PYTHONDONTWRITEBYTECODE`` every run would
    compile each module changed since its ``.pyc`` was written (0.06 s and more)."""
    return child_env(pycache, PYTHONPATH=str(tree), AUDITOR_DEBUG="")


def _run(
    tree: Path, estate: Path, fmt: str, out: Path, no_cache: bool, pycache: Path
) -> tuple[float, float, float]:
    """Wall seconds, peak MB and CPU seconds (user and system) of one audit by the CLI of
    ``tree`` (one process: the audit forks none)."""
    env = _environment(tree, pycache)
    cmd = [sys.executable, "-m", "auditor", "audit", "--snapshot", str(estate), "-o"]
    cmd += [f"{fmt}={out}", *(["--no-cache"] if no_cache else [])]
    started = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"audit failed ({proc.returncode}) in {tree}:\n{err.decode()[-2000:]}")
    return seconds, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def _digest(path: Path) -> str:
    """The SHA-256 of a JSON report but for its start and finish times (read a megabyte at a
    time), so that two reports compare without both being on disk at once."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        first = True
        while chunk := fh.read(1 << 20):
            if first:
                chunk, first = _STAMPS.sub(b"", chunk), False
                # the stamps differ in nothing but their digits: same length, so the rest aligns
            digest.update(chunk)
    return digest.hexdigest()


def _figures(values: list[float], unit: str, width: int = 7) -> str:
    med = statistics.median(values)
    if len(values) == 1:
        return f"{med:{width}.{1 if unit == 's' else 0}f} {unit}"
    lo, hi = min(values), max(values)
    digits = 1 if unit == "s" else 0
    return f"{med:{width}.{digits}f} {unit} ({lo:.{digits}f}-{hi:.{digits}f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--role-assignments", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline-rev", default=BASELINE_REV)
    parser.add_argument("--quick", action="store_true", help="smoke run: 20,000, once")
    parser.add_argument(
        "--formats", default="text,json", help="comma-separated: text, json, html, sarif"
    )
    parser.add_argument(
        "--no-baseline-json",
        action="store_true",
        help="skip the baseline's -o json (at 1,000,000 it peaks near 20 GB)",
    )
    args = parser.parse_args()
    n = 20_000 if args.quick else args.role_assignments
    repeat = 1 if args.quick else max(1, args.repeat)
    estate = cached_estate(n)
    print(f"estate: {estate.name} ({estate.stat().st_size / 2**20:.0f} MB, {n:,} role assignments)")
    work = Path(tempfile.mkdtemp(prefix="bench-audit-memory-"))
    base = work / "baseline"
    try:
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), args.baseline_rev],
            check=True,
            capture_output=True,
        )
        trees = {"baseline": base, "now": ROOT}
        # a baseline that has ``--no-cache`` gets it too (else an audit of a large snapshot could
        # leave a cache writer running beside the next run)
        audit_cli = (base / "auditor" / "cli" / "_audit.py").read_text()
        base_no_cache = "NoCache" in audit_cli or "--no-cache" in audit_cli
        for tree in trees.values():  # the bytecode written before any run is timed
            compile_all = [sys.executable, "-m", "compileall", "-q", str(tree / "auditor")]
            subprocess.run(compile_all, env=_environment(tree, work / "pycache"), check=True)
        figures: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
        same = True
        for fmt in args.formats.split(","):
            labels = ["now"] if fmt == "json" and args.no_baseline_json else list(trees)
            for turn in range(repeat):
                digests = set()
                # the order alternates, and each report is removed once read: a run writing 3 GB
                # just after another did is slower (the disk is still busy), whichever tree it is
                for label in labels if turn % 2 == 0 else labels[::-1]:
                    tree = trees[label]
                    out = work / f"{label}.{fmt}"
                    no_cache = label == "now" or base_no_cache
                    fig = _run(tree, estate, fmt, out, no_cache, work / "pycache")
                    figures.setdefault((fmt, label), []).append(fig)
                    if fmt == "json":
                        digests.add(_digest(out))
                    if label == "now":
                        size = out.stat().st_size / 2**20
                    out.unlink()
                if fmt == "json" and len(labels) == 2:
                    same = same and len(digests) == 1
            print(f"  -o {fmt} ({size:,.0f} MB written)")
            for label in labels:
                runs = figures[(fmt, label)]
                print(
                    f"    {label:9s} {_figures([s for s, _, _ in runs], 's')}   "
                    f"CPU {_figures([c for _, _, c in runs], 's')}   "
                    f"peak {_figures([m for _, m, _ in runs], 'MB')}"
                )
            now = figures[(fmt, "now")]
            before = figures.get((fmt, "baseline"))
            ratios = "baseline not run"
            if before is not None:
                ratio_t = statistics.median(s for s, _, _ in before) / statistics.median(
                    s for s, _, _ in now
                )
                ratio_c = statistics.median(c for _, _, c in before) / statistics.median(
                    c for _, _, c in now
                )
                ratio_m = statistics.median(m for _, m, _ in before) / statistics.median(
                    m for _, m, _ in now
                )
                ratios = (
                    f"baseline/now: time {ratio_t:.2f}x, CPU {ratio_c:.2f}x, "
                    f"peak memory {ratio_m:.2f}x"
                )
            goal_s, goal_mb = GOALS[fmt]
            verdict = "(the goals are for 1,000,000)"
            if n >= 1_000_000:
                ok_s = statistics.median(s for s, _, _ in now) <= goal_s
                ok_m = statistics.median(m for _, m, _ in now) <= goal_mb
                verdict = f"time {'ok' if ok_s else 'OVER'}, memory {'ok' if ok_m else 'OVER'}"
            print(f"    {ratios}; goal: <= {goal_s:.0f} s and <= {goal_mb:,.0f} MB {verdict}")
        if args.no_baseline_json:
            return
        print(
            "  JSON the same document as the baseline's (times aside; a rule changed since shows as"
            f" a difference): {'yes' if same else 'no'}"
        )
    finally:
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)],
            check=False,
            capture_output=True,
        )
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
