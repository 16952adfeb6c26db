"""``auditor access check --requests FILE.jsonl`` end to end (issue: the command line's batch path
at the engine's speed): JSON Lines in, JSON Lines out, on a cold estate of 200,000 role
assignments with 200,000 requests (``--quick``: 20,000 and 20,000).

    .venv/bin/python benchmarks/bench_requests.py [--quick] [--runs N]

The command line's rate is the requests over the time the batch adds to the same command given one
request (start-up, load and index: ``--runs`` fresh processes each, the two commands alternating
after a first run that compiles the bytecode, ``--no-cache``, the output to a file, as
``> decisions.jsonl``), by wall clock and by CPU time (steadier on a shared machine): the rate of
the medians, and the range of the rates run by run. Beside it, measured in the same run, each in a
fresh process that loads and indexes the estate first (cold) and writes to the same file: the
engine alone (``check_many`` over requests decoded beforehand, with warnings, as the command asks),
the batch path before the block encoding (each decision encoded, made inert and written by itself)
and the batch path now.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import cached_estate, child_env, run_child

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
    from auditor.cli._access import _write_windows
    windows = engine.check_windows(stream, window=BATCH_WINDOW, warn=True)
    _write_windows(windows, each=False, window=BATCH_WINDOW)
    count = -1
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
sys.stdout = saved
print(json.dumps({"wall": wall, "cpu": cpu, "count": count}))
"""


def _command(estate: Path, requests: Path, no_cache: bool) -> list[str]:
    cmd = [str(AUDITOR), "access", "check", "--snapshot", str(estate), "--requests", str(requests)]
    return [*cmd, "--format", "json", *(["--no-cache"] if no_cache else [])]


def measure(
    commands: list[list[str]], runs: int, env: dict[str, str], out: Path
) -> list[tuple[list[float], list[float]]]:
    """Wall-clock and CPU seconds of ``runs`` fresh runs of each of ``commands`` (alternating),
    writing to ``out``."""
    times: list[tuple[list[float], list[float]]] = [([], []) for _ in commands]
    for _ in range(runs):
        for cmd, (walls, cpus) in zip(commands, times, strict=True):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            with out.open("wb") as sink:
                done = subprocess.run(cmd, env=env, stdout=sink, stderr=subprocess.PIPE)
            walls.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
            if done.returncode != 0:
                raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr.decode(errors='replace')}")
    return times


def _spread(values: list[float], fmt: str) -> str:
    """The median of ``values``, and their range when there are several."""
    mid = fmt.format(statistics.median(values))
    if len(values) < 2:
        return mid
    return f"{mid} ({fmt.format(min(values))}-{fmt.format(max(values))})"


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
        env = child_env(tmp / "pycache", AUDITOR_CACHE_DIR=str(tmp / "cache"))
        helped = subprocess.run(
            [str(AUDITOR), "access", "check", "--help"], env=env, capture_output=True, text=True
        )
        no_cache = "--no-cache" in helped.stdout
        print(f"estate: {estate.name}; {count:,} requests; {runs} run(s) each", flush=True)
        out = tmp / "decisions.jsonl"
        one_cmd, all_cmd = _command(estate, one, no_cache), _command(estate, many, no_cache)
        measure([one_cmd], 1, env, out)  # (a first run compiles the bytecode)
        (walls_one, cpus_one), (walls_all, cpus_all) = measure([one_cmd, all_cmd], runs, env, out)
        median = statistics.median
        rates_wall = [count / max(a - o, 1e-9) for a, o in zip(walls_all, walls_one, strict=True)]
        rates_cpu = [count / max(a - o, 1e-9) for a, o in zip(cpus_all, cpus_one, strict=True)]
        rows = [
            ("auditor access check, 1 request (s)", _spread(walls_one, "{:.2f}"),
             _spread(cpus_one, "{:.2f}"), ""),
            (f"  {count:,} requests (s)", _spread(walls_all, "{:.2f}"),
             _spread(cpus_all, "{:.2f}"), ""),
            (
                "  the batch's rate, end to end (/s)",
                f"{count / max(median(walls_all) - median(walls_one), 1e-9):,.0f}",
                f"{count / max(median(cpus_all) - median(cpus_one), 1e-9):,.0f}",
                f">= {GOAL:,}",
            ),
            ("    run by run (/s)", _spread(rates_wall, "{:,.0f}"), _spread(rates_cpu, "{:,.0f}"),
             ""),
        ]  # fmt: skip
        for variant, label in (
            ("engine", "engine alone, in process (/s)"),
            ("before", "batch path before, in process (/s)"),
            ("after", "batch path now, in process (/s)"),
        ):
            got = run_child(CHILD, variant, str(estate), str(many), str(out))
            rows.append(
                (f"  {label}", f"{count / got['wall']:,.0f}", f"{count / got['cpu']:,.0f}", "")
            )
    print(f"{'figure':38s} {'wall':>24s} {'CPU':>24s} {'goal':>12s}")
    for label, wall, cpu, goal in rows:
        print(f"{label:38s} {wall:>24s} {cpu:>24s} {goal:>12s}")


if __name__ == "__main__":
    main()
