"""Start-up of the command line (issue: instant start-up): wall clock from the shell of the light
commands, each beside ``python -c pass`` (the interpreter alone) measured in the same run.

    .venv/bin/python benchmarks/bench_startup.py [--quick] [--runs N]

Every figure is a fresh process of the installed console script, its output thrown away: the
median and range of ``--runs`` runs (after one warm-up run that writes the bytecode caches), wall
clock and CPU time (the second is steadier when the machine is shared), beside the wall medians
measured before the start-up work (:data:`BEFORE_MS`). ``auditor access check``
answers one question about the built-in sample estate (a snapshot file written to a temporary
folder; ``--no-cache``); ``auditor audit`` audits it with every rule and writes the HTML report
(not a light command: no goal; its row shows what an audit's imports cost). The bytecode of
auditor goes to a temporary ``PYTHONPYCACHEPREFIX`` so that a ``PYTHONDONTWRITEBYTECODE``
environment does not make every run compile it again. Then the slowest imports of one question
and of the audit, from ``python -X importtime``.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _common import child_env  # noqa: E402

BIN = Path(sys.executable).parent
AUDITOR = BIN / "auditor"
GOAL_S = 0.1
BEFORE_MS = {
    "python -c pass (baseline)": 10,
    "auditor --version": 61,
    "auditor --help": 94,
    "auditor access --help": 136,
    "auditor access check (json)": 223,
    "auditor access check (text)": 260,
}
"""Wall medians before issue 23's start-up work (2026-11-26, 5 runs, the same machine): typer 0.29
(pydantic for every option), the snapshot's small sections through the pydantic wire models."""
OWNER = "cd18c18a-775c-5776-a857-fb9fc1e4af11"  # the sample estate's break-glass account
ROOT_MG = "/providers/Cloud.Management/managementGroups/mg-sample-root"


def _environment(tmp: Path) -> dict[str, str]:
    env = child_env(tmp / "pycache", AUDITOR_CACHE_DIR=str(tmp / "cache"))
    env.pop("AUDITOR_DEBUG", None)
    return env


def measure(
    cmd: list[str], runs: int, env: dict[str, str], cwd: Path
) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU seconds of ``runs`` runs of ``cmd`` (after one warm-up run)."""
    subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    walls: list[float] = []
    cpus: list[float] = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(
            cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr.decode(errors='replace')}")
    return walls, cpus


def spread(values: list[float]) -> str:
    return (
        f"{statistics.median(values) * 1000:6.0f} ms "
        f"({min(values) * 1000:.0f}-{max(values) * 1000:.0f})"
    )


def slowest_imports(cmd: list[str], env: dict[str, str], cwd: Path, count: int) -> list[str]:
    """The top-level imports of ``cmd`` that took longest (cumulative, one run)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *cmd], env=env, cwd=cwd,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    rows = []
    for line in done.stderr.splitlines():
        parts = line.split("|")
        if len(parts) != 3 or not parts[1].strip().isdigit():
            continue
        name = parts[2]
        if name.startswith("  "):  # nested: counted in its parent
            continue
        rows.append((int(parts[1]), name.strip()))
    total = sum(us for us, _ in rows)
    top = sorted(rows, reverse=True)[:count]
    return [f"all top-level imports {total / 1000:.0f} ms"] + [
        f"  {us / 1000:5.1f} ms  {name}" for us, name in top
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs, a smoke run")
    parser.add_argument("--runs", type=int, default=15, help="runs of each command")
    args = parser.parse_args()
    runs = 3 if args.quick else args.runs
    from auditor.estate.sample import sample_snapshot_bytes

    with tempfile.TemporaryDirectory(prefix="bench-startup-") as name:
        tmp = Path(name)
        env = _environment(tmp)
        sample = tmp / "sample.json"
        sample.write_bytes(sample_snapshot_bytes())
        question = [
            "access", "check", "--snapshot", str(sample), "--principal", OWNER,
            "--action", "Cloud.Compute/virtualMachines/write", "--scope", ROOT_MG,
        ]  # fmt: skip
        helped = subprocess.run(
            [str(AUDITOR), "access", "check", "--help"], env=env, capture_output=True, text=True
        )
        if "--no-cache" in helped.stdout:
            question.append("--no-cache")
        audit = [
            "audit", "--snapshot", str(sample), "-o", f"html={tmp / 'report.html'}",
            "--fail-on", "none", "--no-cache",
        ]  # fmt: skip
        cases = [
            ("python -c pass (baseline)", [sys.executable, "-c", "pass"]),
            ("auditor --version", [str(AUDITOR), "--version"]),
            ("auditor --help", [str(AUDITOR), "--help"]),
            ("auditor access --help", [str(AUDITOR), "access", "--help"]),
            ("auditor access check (json)", [str(AUDITOR), *question, "--format", "json"]),
            ("auditor access check (text)", [str(AUDITOR), *question]),
            ("auditor audit (html)", [str(AUDITOR), *audit]),
        ]
        print(f"{runs} runs each; median (range); goal <= {GOAL_S * 1000:.0f} ms wall", flush=True)
        print(
            f"{'command':32s} {'wall':>22s} {'CPU':>22s} {'minus baseline':>16s} "
            f"{'before (wall)':>14s} {'goal':>6s}"
        )
        base: float | None = None
        for label, cmd in cases:
            walls, cpus = measure(cmd, runs, env, tmp)
            median = statistics.median(walls)
            extra = "" if base is None else f"+{(median - base) * 1000:.0f} ms"
            light = label in BEFORE_MS
            goal = "" if base is None or not light else ("met" if median <= GOAL_S else "missed")
            base = median if base is None else base
            before = f"{BEFORE_MS[label]} ms" if light else "-"
            print(
                f"{label:32s} {spread(walls):>22s} {spread(cpus):>22s} {extra:>16s} "
                f"{before:>14s} {goal:>6s}",
                flush=True,
            )
        print()
        for row in slowest_imports(["-m", "auditor", *question, "--format", "json"], env, tmp, 8):
            print(row)
        print("\nauditor audit (html):")
        for row in slowest_imports(["-m", "auditor", *audit], env, tmp, 8):
            print(row)


if __name__ == "__main__":
    main()
