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

The vendor's namespace (``collect --namespace vendor`` against ``sandbox serve --namespace both``,
one sandbox serving both, loopback): the concurrent collection of the seed's paths and of the
vendor's (``Microsoft.*``, every record mapped to the seed's names on the way in; the sandbox maps
its answers to the vendor's on the way out), alternated ``--repeats`` times, median and range of
each and the ratio of the medians; both must give the same snapshot. The client's mapping alone
(``auditor.sources.exports.collected.SeedNames`` over the estate's role assignments in the vendor's
names, pages of 200) is timed too, per record.

    .venv/bin/python benchmarks/bench_collect.py [--quick] [--role-assignments N]
        [--subscriptions N] [--concurrency N] [--latency S] [--repeats N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import statistics
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
    url: str,
    token: str,
    subs: list[str],
    concurrency: int,
    mode: str,
    out: list[Any],
    namespace: str = "seed",
) -> None:
    from auditor.api import ClientSettings, ResourceManagerClient
    from auditor.api.collect import collect

    settings = ClientSettings(concurrency=concurrency, timeout=120)
    async with ResourceManagerClient(url, token, settings, namespace=namespace) as api:  # type: ignore[arg-type]
        # handed over in a list: asyncio.run() on Python 3.11 builds a repr of a returned value
        out.append(
            await collect(api, subs, role_assignments=mode, collected_at="2000-01-01T00:00:00Z")  # type: ignore[arg-type]
        )


def measure(
    url: str,
    token: str,
    subs: list[str],
    concurrency: int,
    mode: str = "subscription",
    namespace: str = "seed",
) -> dict[str, Any]:
    out: list[Any] = []
    started = time.perf_counter()
    asyncio.run(_collect(url, token, subs, concurrency, mode, out, namespace))
    seconds = time.perf_counter() - started
    result = out[0]
    if not result.complete:
        raise SystemExit(f"collection incomplete: {result.incomplete[:3]}")
    return {
        "seconds": seconds,
        "requests": result.requests,
        "rps": result.requests / seconds,
        "counts": result.counts(),
        "snapshot": result.snapshot,
    }


def _spread(values: list[float]) -> str:
    return f"median {statistics.median(values):.2f} s (range {min(values):.2f}-{max(values):.2f})"


def mapping_cost(path: Path) -> float:
    """Microseconds per role assignment of the client's mapping to the seed's names."""
    import msgspec

    from auditor.estate.snapshot import load_snapshot
    from auditor.sandbox.vendor import to_vendor_json
    from auditor.sources.exports.collected import SeedNames

    records = [msgspec.to_builtins(r) for r in load_snapshot(path).roleAssignments]
    raw = [msgspec.Raw(msgspec.json.encode(to_vendor_json(r))) for r in records]
    pages = [raw[i : i + 200] for i in range(0, len(raw), 200)]
    names = SeedNames()
    started = time.perf_counter()
    for page in pages:
        names.items("roleAssignments", page)
    return (time.perf_counter() - started) / max(1, len(raw)) * 1e6


def compare_namespaces(path: Path, subs: list[str], concurrency: int, repeats: int) -> None:
    from auditor.estate.snapshot import dumps_snapshot

    times: dict[str, list[float]] = {"seed": [], "vendor": []}
    dumps: dict[str, bytes] = {}
    with sandbox_process(path, "--namespace", "both") as (url, token):
        for namespace in times:  # warm up both paths of both sides
            measure(url, token, subs[:2], concurrency, namespace=namespace)
        for _ in range(repeats):
            for namespace, seconds in times.items():
                row = measure(url, token, subs, concurrency, namespace=namespace)
                seconds.append(row["seconds"])
                dumps.setdefault(namespace, dumps_snapshot(row["snapshot"]))
    if dumps["seed"] != dumps["vendor"]:
        raise SystemExit("the vendor's namespace gave another snapshot than the seed's")
    for namespace, seconds in times.items():
        print(f"{'loopback':<10} {namespace + ' namespace':<24} {_spread(seconds)}")
    ratio = statistics.median(times["vendor"]) / statistics.median(times["seed"])
    print(f"{'loopback':<10} {'vendor / seed':<24} {ratio:>8.2f}x (same snapshot)")
    print(
        f"{'client':<10} {'mapping to seed names':<24} {mapping_cost(path):>8.1f} us per assignment"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--role-assignments", type=int, default=100_000)
    parser.add_argument("--subscriptions", type=int, default=50)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--repeats", type=int, default=3, help="runs of each namespace")
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
    compare_namespaces(path, subs, args.concurrency, args.repeats)


if __name__ == "__main__":
    main()
