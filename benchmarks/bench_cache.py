"""The persistent cache of loaded snapshots (issue 23, item 1) on a generated estate.

Measured in the same run, each in its own process (medians and ranges over ``--repeat`` runs):
today's path (the snapshot's JSON loaded and indexed), the first load that builds the cache, a load
and index from the warm cache, and from the shell `auditor access check` (one question) and
`auditor access who` with the cache warm beside the same commands with ``--no-cache``; and the
cache's size on disk against the snapshot's. Goals (1,000,000 role assignments): first load at most
6 s, load + index from the cache at most 0.8 s, check at most 0.3 s, who at most 0.5 s, cache at
most 0.8x the snapshot.

    flock /tmp/auditor-big.lock .venv/bin/python benchmarks/bench_cache.py [--role-assignments N]
    .venv/bin/python benchmarks/bench_cache.py --quick      # 20,000 role assignments, one run
"""

from __future__ import annotations

import argparse
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

from _common import PEAK, cached_estate, run_child

LOAD = """
import sys, time, json
from pathlib import Path
t0 = time.perf_counter()
from auditor.access import AccessEngine
from auditor.sources import load_estate
from auditor.estate.cache import EstateCache
path, directory, mode = sys.argv[1], sys.argv[2], sys.argv[3]
t = time.perf_counter()
if mode == "json":
    snap = load_estate(path)
else:
    snap = EstateCache(Path(directory), min_bytes=0).load(path, load_estate)
loaded = time.perf_counter()
engine = AccessEngine.from_snapshot(snap)
done = time.perf_counter()
print(json.dumps({"load": loaded - t, "index": done - loaded, "seconds": done - t,
                  "peak_mb": peak_mb(), "ras": len(snap.roleAssignments)}))
"""


def _first(key: bytes, path: Path) -> str:
    """The first value of the string field ``key`` in the file (found without parsing it)."""
    import mmap

    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        at = data.find(b'"' + key + b'"')
        m = re.match(rb'"[^"]+"\s*:\s*"([^"]+)"', data[at : at + 4096]) if at >= 0 else None
    if m is None:
        raise SystemExit(f"no {key!r} in {path}")
    return m.group(1).decode()


def _stats(values: list[float]) -> str:
    med = statistics.median(values)
    return f"{med:6.2f} s (range {min(values):.2f}-{max(values):.2f}, n={len(values)})"


def _shell(cmd: list[str], env: dict[str, str]) -> float:
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, env=env, check=False)
    elapsed = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(
            f"{' '.join(cmd[:3])} failed ({proc.returncode}):\n{proc.stderr[-2000:]!r}"
        )
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--role-assignments", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="20,000 role assignments, one run")
    args = parser.parse_args()
    count = 20_000 if args.quick else args.role_assignments
    repeat = 1 if args.quick else max(1, args.repeat)
    path = cached_estate(count)
    size = path.stat().st_size
    print(f"snapshot: {path.name} ({size / 2**20:.0f} MB), {count:,} role assignments")
    folder = Path(tempfile.mkdtemp(prefix="auditor-bench-cache-"))
    directory = folder / "cache"
    code = PEAK + "\n" + LOAD
    try:
        today, first, warm = [], [], []
        for _ in range(repeat):
            today.append(run_child(code, str(path), str(directory), "json"))
            shutil.rmtree(directory, ignore_errors=True)
            first.append(run_child(code, str(path), str(directory), "cache"))
            warm.append(run_child(code, str(path), str(directory), "cache"))
        entry = next(directory.glob("*.estate.msgpack"))
        cache_bytes = entry.stat().st_size

        exe = str(Path(sys.executable).with_name("auditor"))
        env = {**os.environ, "AUDITOR_CACHE_DIR": str(directory)}
        principal = _first(b"principalId", path)
        scope = _first(b"scope", path)
        action = "Cloud.Authorization/roleAssignments/write"
        check = [exe, "access", "check", "--snapshot", str(path), "--principal", principal]
        check += ["--action", action, "--scope", scope, "--format", "json"]
        who = [exe, "access", "who", "--snapshot", str(path), "--action", action]
        who += ["--scope", scope, "--format", "json"]
        _shell(check, env)  # warm: the entry exists already; this settles the page cache
        shell: dict[str, list[float]] = {}
        for _ in range(repeat):
            for name, cmd in (("check", check), ("who", who)):
                shell.setdefault(f"{name} cached", []).append(_shell(cmd, env))
                shell.setdefault(f"{name} --no-cache", []).append(_shell([*cmd, "--no-cache"], env))
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    def col(rows: list[dict[str, float]], key: str) -> list[float]:
        return [r[key] for r in rows]

    print(f"{'case':44s} {'median (range)':>34s} {'peak MB':>8s}")
    for name, rows in (
        ("today: load JSON + index", today),
        ("first load (JSON, building the cache) + index", first),
        ("load + index from the cache", warm),
    ):
        peak = statistics.median(col(rows, "peak_mb"))
        print(f"{name:44s} {_stats(col(rows, 'seconds')):>34s} {peak:8.0f}")
        print(
            f"  {'of which load':42s} {_stats(col(rows, 'load')):>34s}\n"
            f"  {'of which index':42s} {_stats(col(rows, 'index')):>34s}"
        )
    for name, values in shell.items():
        print(f"{'auditor access ' + name + ' (shell)':44s} {_stats(values):>34s}")
    base = statistics.median(col(today, "seconds"))
    got = {
        "first": statistics.median(col(first, "seconds")),
        "warm": statistics.median(col(warm, "seconds")),
        "check": statistics.median(shell["check cached"]),
        "who": statistics.median(shell["who cached"]),
    }
    ratio = cache_bytes / size
    print(f"cache on disk: {cache_bytes / 2**20:.0f} MB = {ratio:.2f}x the snapshot")
    print(
        f"ratios against today ({base:.2f} s): first load {got['first'] / base:.2f}x, "
        f"from the cache {got['warm'] / base:.2f}x; check cached vs --no-cache "
        f"{got['check'] / statistics.median(shell['check --no-cache']):.2f}x, who "
        f"{got['who'] / statistics.median(shell['who --no-cache']):.2f}x"
    )
    if count == 1_000_000:
        for label, value, goal in (
            ("first load <= 6 s", got["first"], 6.0),
            ("load + index from the cache <= 0.8 s", got["warm"], 0.8),
            ("access check cached <= 0.3 s", got["check"], 0.3),
            ("access who cached <= 0.5 s", got["who"], 0.5),
            ("cache size <= 0.8x the snapshot", ratio, 0.8),
        ):
            print(f"goal: {label}: {value:.2f} ({'met' if value <= goal else 'NOT met'})")


if __name__ == "__main__":
    main()
