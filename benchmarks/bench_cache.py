"""The persistent index of loaded snapshots (issue 23, item 1) on a generated estate.

Measured in the same run, each in its own process (medians and ranges over ``--repeat`` runs),
beside today's path (the snapshot's JSON loaded and indexed whole):

- the first load: the JSON loaded while the entry is written by a background process (what the
  command waits for), the time until that entry is ready, and the entry written in-process;
- load + index from the cache for one question: the entry opened, the few blocks a check (or a
  who-can) needs decoded and indexed;
- from the shell, `auditor access check` (one question) and `auditor access who` with the cache
  warm, beside the same commands with ``--no-cache``; `access who` twice: at the scope of the
  first role assignment, and at the estate's scope with the largest answer (see :data:`WORST`:
  the scope whose chain's holders reach the most principals through groups), asked with a read
  action that most of them are allowed;
- the entry's size on disk against the snapshot's.

Goals (1,000,000 role assignments): first load at most 6 s, load + index from the cache at most
0.8 s, check at most 0.3 s, who at most 0.5 s, cache at most 0.8x the snapshot.

    .venv/bin/python benchmarks/bench_cache.py [--role-assignments N] [--repeat N]
    .venv/bin/python benchmarks/bench_cache.py --quick      # 20,000 role assignments, one run

Runs of 500,000 role assignments or more take ``/tmp/auditor-big.lock`` (through ``flock``)
so that only one large run uses the machine at a time.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import PEAK, cached_estate, child_env, run_child

BIG = 500_000
READ = "Cloud.Compute/virtualMachines/read"
"""The action of the largest who-can: Reader and most roles allow it, so the answer is long."""
LOCK = "/tmp/auditor-big.lock"

TODAY = """
import sys, time, json
from auditor.access import AccessEngine
from auditor.sources import load_estate
path = sys.argv[1]
t = time.perf_counter()
snap = load_estate(path)
loaded = time.perf_counter()
engine = AccessEngine.from_snapshot(snap)
done = time.perf_counter()
print(json.dumps({"load": loaded - t, "seconds": done - t, "peak_mb": peak_mb()}))
"""

FIRST = """
import os, sys, time, json
from pathlib import Path
from auditor.access.partial import cache_tables
from auditor.estate.cache import EstateCache
from auditor.sources import load_estate
path, directory, mode = sys.argv[1:4]
store = EstateCache(Path(directory), min_bytes=0, indexer=cache_tables,
                    background=mode == "background")
r, w = os.pipe()  # the background writer holds w until it is done
t = time.perf_counter()
snap = store.load(path, load_estate)
loaded = time.perf_counter()
os.close(w)
os.read(r, 1)
ready = time.perf_counter()
assert store.open(path) is not None
print(json.dumps({"load": loaded - t, "ready": ready - t, "peak_mb": peak_mb()}))
"""

WORST = """
import sys, json
from collections import defaultdict
from auditor.access.scopes import ScopeTree
from auditor.sources import load_estate
snap = load_estate(sys.argv[1])
members = defaultdict(list)
for p in snap.principals:
    for g in p.memberOf:
        members[g.lower()].append(p.id.lower())
def down(starts):
    seen = set(starts)
    todo = list(seen)
    while todo:
        for m in members.get(todo.pop(), ()):
            if m not in seen:
                seen.add(m)
                todo.append(m)
    return seen
reach = {}
def size(key):
    if key not in reach:
        reach[key] = len(down([key]))
    return reach[key]
tree = ScopeTree(snap.hierarchy)
held = defaultdict(set)
for ra in snap.roleAssignments:
    held[tree.add(ra.properties.scope or "/")].add(ra.properties.principalId.lower())
level = {key: sum(size(h) for h in holders) for key, holders in held.items()}
score = {key: sum(level.get(c, 0) for c in tree.chain(key)) for key in held}
# the scores count a principal once per group it is reached through: the 20 best by score,
# then the one whose chain's holders reach the most distinct principals
top = sorted(score, key=lambda k: (-score[k], k))[:20]
exact = {k: len(down({h for c in tree.chain(k) for h in held.get(c, ())})) for k in top}
best = min(top, key=lambda k: (-exact[k], k))
print(json.dumps({"scope": tree.display(best), "reached": exact[best]}))
"""

PARTIAL = """
import sys, time, json
from pathlib import Path
from auditor.access.partial import PartialEstate, cache_tables
from auditor.estate.cache import EstateCache
path, directory, principal, scope = sys.argv[1:5]
t = time.perf_counter()
part = PartialEstate(EstateCache(Path(directory), min_bytes=0, indexer=cache_tables).open(path))
engine = part.engine_for_check(principal, scope)
checked = time.perf_counter()
part = PartialEstate(EstateCache(Path(directory), min_bytes=0, indexer=cache_tables).open(path))
who = part.engine_for_who(scope)
done = time.perf_counter()
print(json.dumps({"check": checked - t, "who": done - checked, "peak_mb": peak_mb()}))
"""


def _first(key: bytes, path: Path, after: bytes = b'"roleAssignments"') -> str:
    """The first value of the string field ``key`` after ``after`` (found without parsing)."""
    import mmap

    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        start = max(0, data.find(after))
        at = data.find(b'"' + key + b'"', start)
        m = re.match(rb'"[^"]+"\s*:\s*"([^"]+)"', data[at : at + 4096]) if at >= 0 else None
    if m is None:
        raise SystemExit(f"no {key!r} in {path}")
    return m.group(1).decode()


def _stats(values: list[float]) -> str:
    med = statistics.median(values)
    return f"{med:6.2f} s (range {min(values):.2f}-{max(values):.2f}, n={len(values)})"


def _shell(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall clock and CPU time (user + system) of ``cmd`` in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, env=env, check=False)
    elapsed = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if proc.returncode != 0:
        raise SystemExit(
            f"{' '.join(cmd[:3])} failed ({proc.returncode}):\n{proc.stderr[-2000:]!r}"
        )
    return elapsed, cpu


def _locked(count: int) -> None:
    """Run again under ``flock`` when the estate is large and the lock is not held yet."""
    if count >= BIG and os.environ.get("AUDITOR_BIG_LOCK_HELD") != "1" and shutil.which("flock"):
        env = {**os.environ, "AUDITOR_BIG_LOCK_HELD": "1"}
        cmd = ["flock", LOCK, sys.executable, *sys.argv]
        raise SystemExit(subprocess.run(cmd, env=env, check=False).returncode)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--role-assignments", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="20,000 role assignments, one run")
    args = parser.parse_args()
    count = 20_000 if args.quick else args.role_assignments
    repeat = 1 if args.quick else max(1, args.repeat)
    _locked(count)
    path = cached_estate(count)
    size = path.stat().st_size
    print(f"snapshot: {path.name} ({size / 2**20:.0f} MB), {count:,} role assignments")
    folder = Path(tempfile.mkdtemp(prefix="auditor-bench-cache-"))
    directory = folder / "cache"
    principal = _first(b"principalId", path)
    scope = _first(b"scope", path)
    worst = run_child(WORST, str(path))
    large_scope = str(worst["scope"])
    print(f"largest who-can: {large_scope} ({int(worst['reached']):,} principals reached)")
    try:
        today, first, inline, warm, large = [], [], [], [], []
        for _ in range(repeat):
            today.append(run_child(PEAK + TODAY, str(path)))
            shutil.rmtree(directory, ignore_errors=True)
            inline.append(run_child(PEAK + FIRST, str(path), str(directory), "inline"))
            shutil.rmtree(directory, ignore_errors=True)
            first.append(run_child(PEAK + FIRST, str(path), str(directory), "background"))
            warm.append(run_child(PEAK + PARTIAL, str(path), str(directory), principal, scope))
            large.append(
                run_child(PEAK + PARTIAL, str(path), str(directory), principal, large_scope)
            )
        entry = next(directory.glob("*.estate.msgpack"))
        cache_bytes = entry.stat().st_size

        exe = str(Path(sys.executable).with_name("auditor"))
        env = child_env(AUDITOR_CACHE_DIR=str(directory))
        action = "Cloud.Authorization/roleAssignments/write"
        check = [exe, "access", "check", "--snapshot", str(path), "--principal", principal]
        check += ["--action", action, "--scope", scope, "--format", "json"]
        who = [exe, "access", "who", "--snapshot", str(path), "--action", action]
        who += ["--scope", scope, "--format", "json"]
        big = [exe, "access", "who", "--snapshot", str(path), "--action", READ]
        big += ["--scope", large_scope, "--format", "json"]
        commands = (("check", check), ("who", who), ("who largest", big))
        for name, cmd in commands:  # the same answers either way
            cached = subprocess.run(cmd, capture_output=True, env=env, check=True).stdout
            plain = subprocess.run(
                [*cmd, "--no-cache"], capture_output=True, env=child_env(), check=True
            ).stdout
            if cached != plain:
                raise SystemExit(f"access {name}: the cached answer differs from the JSON's")
        shell: dict[str, list[float]] = {}
        cpu: dict[str, list[float]] = {}
        for _ in range(repeat):
            for name, cmd in commands:
                for how, args in (("cached", cmd), ("--no-cache", [*cmd, "--no-cache"])):
                    wall, used = _shell(args, env)
                    shell.setdefault(f"{name} {how}", []).append(wall)
                    cpu.setdefault(f"{name} {how}", []).append(used)
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    def col(rows: list[dict[str, float]], key: str) -> list[float]:
        return [r[key] for r in rows]

    def peak(rows: list[dict[str, float]]) -> str:
        return f"{statistics.median(col(rows, 'peak_mb')):8.0f}"

    print(f"{'case':56s} {'median (range)':>34s} {'peak MB':>8s}")
    rows = [
        ("today: load JSON + index (the whole estate)", today, "seconds"),
        ("  of which load", today, "load"),
        ("first load: JSON, entry written in the background", first, "load"),
        ("  until the background entry is ready", first, "ready"),
        ("first load: JSON, entry written in-process", inline, "ready"),
        ("load + index from the cache, one check", warm, "check"),
        ("load + index from the cache, one who-can", warm, "who"),
        ("  the same, at the scope with the largest answer", large, "who"),
    ]
    for name, values, key in rows:
        print(f"{name:56s} {_stats(col(values, key)):>34s} {peak(values)}")
    for name, values_ in shell.items():
        print(f"{'auditor access ' + name + ' (shell, wall)':56s} {_stats(values_):>34s}")
        print(f"{'  CPU time':56s} {_stats(cpu[name]):>34s}")
    base = statistics.median(col(today, "seconds"))
    got = {
        "first": statistics.median(col(first, "load")),
        "warm": max(
            statistics.median(col(warm, "check")),
            statistics.median(col(warm, "who")),
            statistics.median(col(large, "who")),
        ),
        "check": statistics.median(shell["check cached"]),
        "who": statistics.median(shell["who cached"]),
        "large": statistics.median(shell["who largest cached"]),
    }
    ratio = cache_bytes / size
    print(f"cache on disk: {cache_bytes / 2**20:.0f} MB = {ratio:.2f}x the snapshot")
    print(
        f"ratios against today ({base:.2f} s): first load {got['first'] / base:.2f}x, "
        f"load + index from the cache {got['warm'] / base:.3f}x; check cached vs --no-cache "
        f"{got['check'] / statistics.median(shell['check --no-cache']):.2f}x, who "
        f"{got['who'] / statistics.median(shell['who --no-cache']):.2f}x, who at the largest "
        f"answer {got['large'] / statistics.median(shell['who largest --no-cache']):.2f}x"
    )
    if count == 1_000_000:
        for label, value, goal in (
            ("first load <= 6 s", got["first"], 6.0),
            ("load + index from the cache <= 0.8 s", got["warm"], 0.8),
            ("access check cached <= 0.3 s", got["check"], 0.3),
            ("access who cached <= 0.5 s", got["who"], 0.5),
            ("access who cached, largest answer, <= 0.5 s", got["large"], 0.5),
            ("cache size <= 0.8x the snapshot", ratio, 0.8),
        ):
            print(f"goal: {label}: {value:.2f} ({'met' if value <= goal else 'NOT met'})")


if __name__ == "__main__":
    main()
