"""Loading a snapshot and building the access index, CPU time, against a baseline commit (issue 23).

Each run is a fresh process that loads the generated snapshot (``load_snapshot``, from the path: the
file is memory-mapped) and builds :class:`auditor.access.Indexes` on it, and prints the CPU time
(user + system) of each step, the wall clock and the peak memory. The index is held until the
figures are taken, as a command holds it (until 2026-11-26 the child dropped it at once, so the
index's figure also counted the teardown of its million entries: 0.3-0.5 s of CPU at a million
role assignments). The working tree and a copy of the baseline commit (``git archive``, nothing in
the repository changes) run alternately, so that both see the same machine; medians with ranges are
printed, and the ratio of the medians.

    .venv/bin/python benchmarks/bench_load_index.py [--role-assignments N] [--runs 3]
        [--baseline-rev 67735f1] [--quick]

At 500,000 role assignments or more, wrap the command in ``flock /tmp/auditor-big.lock``.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import PEAK, cached_estate, child_env

ROOT = Path(__file__).resolve().parent.parent
BASELINE_REV = "67735f1"  # issue 23's fifth session started here

CHILD = (
    PEAK
    + "\n"
    + """import json, os, sys, time
import auditor
from auditor.estate.snapshot import load_snapshot
from auditor.access import Indexes
cpu = lambda: sum(os.times()[:2])
c0, w0 = cpu(), time.perf_counter()
snapshot = load_snapshot(sys.argv[1])
c1 = cpu()
indexes = Indexes(snapshot)  # kept: its teardown (0.3-0.5 s at a million) is not the build
c2, w2 = cpu(), time.perf_counter()
print(json.dumps({"load": c1 - c0, "index": c2 - c1, "wall": w2 - w0, "peak_mb": peak_mb(),
                  "code": auditor.__file__}))
os._exit(0)
"""
)


def _baseline(rev: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev, "auditor"],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def _run(tree: Path, estate: Path) -> dict[str, float]:
    env = child_env(PYTHONPATH=str(tree))
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(estate)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        cwd=tree,
    )
    if proc.returncode != 0:
        raise SystemExit(f"benchmark child failed:\n{proc.stderr}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    if not str(result.pop("code")).startswith(str(tree)):
        raise SystemExit(f"the child did not run the code of {tree}")
    return dict(result)


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):6.2f} ({min(values):.2f}-{max(values):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--role-assignments", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline-rev", default=BASELINE_REV)
    parser.add_argument("--quick", action="store_true", help="20,000 assignments, one run")
    args = parser.parse_args()
    if args.quick:
        args.role_assignments, args.runs = 20_000, 1
    estate = cached_estate(args.role_assignments)
    print(
        f"snapshot: {estate.name} ({estate.stat().st_size / 2**20:.0f} MB); baseline {args.baseline_rev}"
    )
    rows: dict[str, list[dict[str, float]]] = {"baseline": [], "now": []}
    with tempfile.TemporaryDirectory(prefix="bench-load-index-") as tmp:
        trees = {"baseline": _baseline(args.baseline_rev, Path(tmp)), "now": ROOT}
        for tree in trees.values():  # an uncounted first run compiles the bytecode
            _run(tree, estate)
        for _ in range(args.runs):
            for name, tree in trees.items():
                rows[name].append(_run(tree, estate))
    print(f"{'tree':9s} {'load CPU s':>18s} {'index CPU s':>18s} {'wall s':>18s} {'peak MB':>8s}")
    for name, runs in rows.items():
        print(
            f"{name:9s} {_spread([r['load'] for r in runs]):>18s} "
            f"{_spread([r['index'] for r in runs]):>18s} {_spread([r['wall'] for r in runs]):>18s} "
            f"{max(r['peak_mb'] for r in runs):8.0f}"
        )
    for step in ("load", "index"):
        base = statistics.median(r[step] for r in rows["baseline"])
        now = statistics.median(r[step] for r in rows["now"])
        print(f"{step}: now / baseline (CPU medians) = {now / base:.2f}")


if __name__ == "__main__":
    main()
