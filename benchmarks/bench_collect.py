"""Collecting a generated estate (100,000 role assignments, 50 subscriptions) from the sandbox.

The sandbox runs in its own process (``auditor sandbox serve``, loopback only); this process collects
every subscription (role assignments per subscription, deny assignments, health events, clusters,
domains) once sequentially (one request in flight) and once concurrently (``--concurrency``, default
8), and prints wall time, requests per second and the ratio. Both collections must return the same
records.

Two network profiles are measured in the same run:

- ``loopback``: the sandbox answers as fast as it can; both processes compete for this machine's
  cores, so concurrency can only overlap client and server work;
- ``wan``: every answer is delayed ``--latency`` seconds (default 0.05, a typical round trip to a
  cloud API), which is what concurrent collection is for.

The provider-level call (paged, each page needing the previous one's nextLink) is timed too.

    .venv/bin/python benchmarks/bench_collect.py [--quick] [--role-assignments N]
        [--subscriptions N] [--concurrency N] [--latency S]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"


def generated_estate(role_assignments: int, subscriptions: int, seed: int = 11) -> Path:
    """A generated snapshot with about ``role_assignments / subscriptions`` assignments per
    subscription (cached in benchmarks/.cache/)."""
    CACHE.mkdir(exist_ok=True)
    path = CACHE / f"collect-ra{role_assignments}-subs{subscriptions}-s{seed}.json"
    if path.exists():
        return path
    from auditor.estate import generate

    # the generator sizes subscriptions at ~3,000 assignments each; ask for the count we want
    generate.TARGET_PER_SUBSCRIPTION = max(1, -(-role_assignments // subscriptions))  # type: ignore[misc]
    tmp = path.with_suffix(".partial")
    generate.generate_estate(role_assignments, seed=seed, out=tmp, overwrite=True, progress=False)
    os.replace(tmp, path)
    return path


@contextmanager
def sandbox_process(snapshot: Path, *extra: str) -> Iterator[tuple[str, str]]:
    """``auditor sandbox serve`` in a child process: yields (url, bearer token)."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "auditor",
            "sandbox",
            "serve",
            "--snapshot",
            str(snapshot),
            "--port",
            "0",
            *extra,
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        url = token = None
        assert process.stdout is not None
        for line in process.stdout:
            if m := re.match(r"Serving the sandbox at (\S+)", line):
                url = m.group(1)
            if m := re.match(r"Bearer token \(read access at /\): (\S+)", line):
                token = m.group(1)
            if line.startswith("Press Ctrl-C"):
                break
        if url is None or token is None:
            raise SystemExit("the sandbox did not start")
        yield url, token
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def subscriptions_of(snapshot_path: Path) -> list[str]:
    from auditor.estate.snapshot import load_snapshot

    snapshot = load_snapshot(snapshot_path)
    subs = sorted(
        {
            r.properties.scope.split("/")[2]
            for r in snapshot.roleAssignments
            if r.properties.scope and r.properties.scope.lower().startswith("/subscriptions/")
        }
    )
    return subs


async def _collect(
    url: str, token: str, subs: list[str], concurrency: int, mode: str, out: list[Any]
) -> None:
    from auditor.api import ClientSettings, ResourceManagerClient
    from auditor.api.collect import collect

    settings = ClientSettings(concurrency=concurrency, timeout=120)
    async with ResourceManagerClient(url, token, settings) as api:
        # handed over in a list: asyncio.run() on Python 3.11 builds a repr of a returned value
        out.append(await collect(api, subs, role_assignments=mode))  # type: ignore[arg-type]


def measure(
    url: str, token: str, subs: list[str], concurrency: int, mode: str = "subscription"
) -> dict[str, Any]:
    out: list[Any] = []
    started = time.perf_counter()
    asyncio.run(_collect(url, token, subs, concurrency, mode, out))
    seconds = time.perf_counter() - started
    result = out[0]
    if not result.complete:
        raise SystemExit(f"collection incomplete: {result.incomplete[:3]}")
    return {
        "seconds": seconds,
        "requests": result.requests,
        "rps": result.requests / seconds,
        "counts": result.counts(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--role-assignments", type=int, default=100_000)
    parser.add_argument("--subscriptions", type=int, default=50)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--quick", action="store_true", help="10,000 assignments, 10 subscriptions")
    args = parser.parse_args()
    if args.quick:
        args.role_assignments, args.subscriptions = 10_000, 10
    path = generated_estate(args.role_assignments, args.subscriptions)
    subs = subscriptions_of(path)
    print(f"estate: {path.name} ({path.stat().st_size / 2**20:.0f} MB), {len(subs)} subscriptions")
    print(f"{'profile':<10} {'mode':<24} {'seconds':>8} {'requests':>9} {'req/s':>8}  records")
    for profile, extra in (("loopback", []), ("wan", ["--latency", str(args.latency)])):
        with sandbox_process(path, *extra) as (url, token):
            measure(url, token, subs[:2], args.concurrency)  # warm up both sides
            rows = {}
            for label, concurrency in (
                ("sequential", 1),
                (f"concurrent ({args.concurrency})", args.concurrency),
            ):
                row = rows[label] = measure(url, token, subs, concurrency)
                counts = row["counts"]
                print(
                    f"{profile:<10} {label:<24} {row['seconds']:>8.2f} {row['requests']:>9} "
                    f"{row['rps']:>8.0f}  ra={counts['roleAssignments']} "
                    f"deny={counts['denyAssignments']} events={counts['healthEvents']}"
                )
            seq, conc = rows.values()
            if seq["counts"] != conc["counts"]:
                raise SystemExit("sequential and concurrent collections differ")
            print(f"{profile:<10} {'speed-up':<24} {seq['seconds'] / conc['seconds']:>8.1f}x")
            provider = measure(url, token, subs, 1, "provider")
            print(
                f"{profile:<10} {'provider-level (paged)':<24} {provider['seconds']:>8.2f} "
                f"{provider['requests']:>9} {provider['rps']:>8.0f}  "
                f"ra={provider['counts']['roleAssignments']}"
            )


if __name__ == "__main__":
    main()
