"""``auditor access check --requests FILE.jsonl`` end to end (issue: the command line's batch path
at the engine's speed): JSON Lines in, JSON Lines out, on a cold estate of 200,000 role
assignments with 200,000 requests (``--quick``: 20,000 and 20,000).

    .venv/bin/python benchmarks/bench_requests.py [--quick] [--runs N]

The command line's rate is the requests over the time the batch adds to the same command given one
request (start-up, load and index: the medians of ``--runs`` fresh processes each, ``--no-cache``,
the output to a file, as ``> decisions.jsonl``), by wall clock and by CPU time (steadier on a shared
machine). Beside it, measured in the same run, each in a fresh process that loads and indexes the
estate first (cold) and writes to the same file: the engine alone (``check_many`` over requests
decoded beforehand, with warnings, as the command asks), the batch path before this change (each
decision encoded, made inert and written by itself) and the batch path now.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import cached_estate, run_child

AUDITOR = Path(sys.executable).parent / "auditor"
GOAL = 100_000

CHILD = r"""
import json, os, sys, time
from auditor.access import AccessEngine, BATCH_WINDOW, read_request_lines, request_lines
from auditor.estate.snapshot import load_snapshot
variant, estate, requests, output = sys.argv[1:5]
engine = AccessEngine.from_snapshot(load_snapshot(estate))
sink = open(output, "w", encoding="utf-8")
saved, sys.stdout = sys.stdout, sink
stream = read_request_lines(request_lines(requests), source=requests)
if variant == "engine":  # the requests decoded first: the engine's time alone
    stream = list(stream)
wall, cpu = time.perf_counter(), time.process_time()
if variant == "engine":
    count = sum(1 for _ in engine.check_many(stream, window=BATCH_WINDOW, warn=True))
elif variant == "before":
    from auditor.inert import inert_json
    write, count = sys.stdout.write, 0
    for decision in engine.check_many(stream, window=BATCH_WINDOW, warn=True):
        write(inert_json(decision.to_json().decode()))
        write("\n")
        count += 1
    sys.stdout.flush()
else:
    from auditor.cli._access import _write_json_lines
    _write_json_lines(engine.check_many(stream, window=BATCH_WINDOW, warn=True), each=False)
    count = -1
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
sys.stdout = saved
print(json.dumps({"wall": wall, "cpu": cpu, "count": count}))
"""


def _command(estate: Path, requests: Path, no_cache: bool) -> list[str]:
    cmd = [str(AUDITOR), "access", "check", "--snapshot", str(estate), "--requests", str(requests)]
    return [*cmd, "--format", "json", *(["--no-cache"] if no_cache else [])]


def measure(cmd: list[str], runs: int, env: dict[str, str], out: Path) -> tuple[float, float]:
    """Median wall-clock and CPU seconds of ``runs`` fresh runs of ``cmd``, writing to ``out``."""
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        with out.open("wb") as sink:
            done = subprocess.run(cmd, env=env, stdout=sink, stderr=subprocess.PIPE)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr.decode(errors='replace')}")
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20,000 assignments and requests")
    parser.add_argument("--runs", type=int, default=3, help="runs of each command")
    args = parser.parse_args()
    size, count = (20_000, 20_000) if args.quick else (200_000, 200_000)
    runs = 1 if args.quick else args.runs
    estate = cached_estate(size, principals=size // 10, deny_assignments=size // 100)

    from bench_access import make_requests

    from auditor.estate.snapshot import load_snapshot

    requests = make_requests(load_snapshot(estate), count, seed=1)
    with tempfile.TemporaryDirectory(prefix="bench-requests-") as name:
        tmp = Path(name)
        many, one = tmp / "requests.jsonl", tmp / "one.jsonl"
        lines = [json.dumps(r.to_wire()) + "\n" for r in requests]
        many.write_text("".join(lines), encoding="utf-8")
        one.write_text(lines[0], encoding="utf-8")
        del requests, lines
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
        env["AUDITOR_CACHE_DIR"] = str(tmp / "cache")
        helped = subprocess.run(
            [str(AUDITOR), "access", "check", "--help"], env=env, capture_output=True, text=True
        )
        no_cache = "--no-cache" in helped.stdout
        print(f"estate: {estate.name}; {count:,} requests; {runs} run(s) each", flush=True)
        out = tmp / "decisions.jsonl"
        wall_one, cpu_one = measure(_command(estate, one, no_cache), runs, env, out)
        wall_all, cpu_all = measure(_command(estate, many, no_cache), runs, env, out)
        rows = [
            ("auditor access check, 1 request (s)", f"{wall_one:.2f}", f"{cpu_one:.2f}", ""),
            (f"  {count:,} requests (s)", f"{wall_all:.2f}", f"{cpu_all:.2f}", ""),
            (
                "  the batch's rate, end to end (/s)",
                f"{count / max(wall_all - wall_one, 1e-9):,.0f}",
                f"{count / max(cpu_all - cpu_one, 1e-9):,.0f}",
                f">= {GOAL:,}",
            ),
        ]
        for variant, label in (
            ("engine", "engine alone, in process (/s)"),
            ("before", "batch path before, in process (/s)"),
            ("after", "batch path now, in process (/s)"),
        ):
            got = run_child(CHILD, variant, str(estate), str(many), str(out))
            rows.append(
                (f"  {label}", f"{count / got['wall']:,.0f}", f"{count / got['cpu']:,.0f}", "")
            )
    print(f"{'figure':42s} {'wall':>12s} {'CPU':>12s} {'goal':>12s}")
    for label, wall, cpu, goal in rows:
        print(f"{label:42s} {wall:>12s} {cpu:>12s} {goal:>12s}")


if __name__ == "__main__":
    main()
