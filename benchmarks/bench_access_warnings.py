"""What the warnings of the access commands cost (issue: no silent answers).

``auditor access check`` asks the engine for decisions with warnings (an unknown principal, a scope
outside the estate, an unknown action, an attribute no condition reads). They are computed apart
from the decision function and remembered per distinct principal, scope and action; this measures
a batch with them against the same batch without them, in the same run, interleaved, on the estate
of ``bench_access.py``: decisions alone, and JSON Lines in and out as the command line does it.
A tenth of the second request mix names unknown principals, scopes and actions (warned answers).

    .venv/bin/python benchmarks/bench_access_warnings.py [--quick] [--size N] [--requests N]
        [--repeats N]

``--size N`` takes a generated estate of N role assignments (the generator's defaults for the rest)
instead of ``bench_access.py``'s 1,000,000.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import cached_estate
from bench_access import make_requests

from auditor.access import BATCH_WINDOW, AccessEngine, AccessRequest, read_request_lines
from auditor.estate.snapshot import load_snapshot


def _mixed(requests: list[AccessRequest], seed: int) -> list[AccessRequest]:
    """A tenth of the requests made unknown: a principal, a subscription or an action."""
    rng = random.Random(seed)
    out = []
    for request in requests:
        roll = rng.random()
        if roll < 0.033:
            request = AccessRequest(
                f"{rng.randrange(16**8):08x}-0000-4000-8000-000000000000",
                request.action,
                request.scope,
                request.dataAction,
            )
        elif roll < 0.066:
            request = AccessRequest(
                request.principalId,
                request.action,
                f"/subscriptions/unknown-{rng.randrange(50)}",
                request.dataAction,
            )
        elif roll < 0.1:
            request = AccessRequest(
                request.principalId, request.action + "x", request.scope, request.dataAction
            )
        out.append(request)
    return out


def _cpu_rate(engine: AccessEngine, requests: list[AccessRequest], warn: bool) -> float:
    c0 = time.process_time()
    for _decision in engine.check_many(requests, warn=warn):
        pass
    return len(requests) / max(time.process_time() - c0, 1e-9)


def _jsonl_rate(engine: AccessEngine, lines: list[bytes], warn: bool) -> float:
    with open(os.devnull, "w", encoding="utf-8") as sink:
        c0 = time.process_time()
        stream = read_request_lines(lines, source="<bench>")
        for decision in engine.check_many(stream, window=BATCH_WINDOW, warn=warn):
            sink.write(decision.to_json().decode())
            sink.write("\n")
        return len(lines) / max(time.process_time() - c0, 1e-9)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small estate, a smoke run")
    parser.add_argument("--requests", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--size", type=int, default=None, help="role assignments of the estate")
    args = parser.parse_args()
    if args.quick:
        path = cached_estate(20_000, principals=2_000, deny_assignments=200)
        args.requests = min(args.requests, 20_000)
    elif args.size:
        path = cached_estate(args.size)
    else:
        path = cached_estate(1_000_000, principals=100_000, deny_assignments=10_000)
    print(f"estate: {path.name} ({path.stat().st_size / 2**20:.0f} MB)", flush=True)
    snapshot = load_snapshot(path)
    engine = AccessEngine.from_snapshot(snapshot)
    known = make_requests(snapshot, args.requests, seed=1)
    mixed = _mixed(known, seed=5)
    t0 = time.process_time()
    warned = sum(bool(engine.warnings(r)) for r in mixed)
    first = time.process_time() - t0
    print(
        f"warnings of {len(mixed):,} requests, first time (tables built): {first:.2f} s CPU; "
        f"{warned:,} requests warned",
        flush=True,
    )
    engine.warnings(known[0])
    list(engine.check_many(known))  # warm the engine's caches alike for both
    rows: dict[str, list[float]] = {}
    for label, batch in (("known", known), ("a tenth unknown", mixed)):
        lines = [json.dumps(r.to_wire()).encode() for r in batch[:50_000]]
        for repeat in range(args.repeats):
            gc.collect()
            for warn in (False, True) if repeat % 2 == 0 else (True, False):  # no order bias
                key = f"{label}, decisions, warn={warn}"
                rows.setdefault(key, []).append(_cpu_rate(engine, batch, warn))
                key = f"{label}, JSON Lines, warn={warn}"
                rows.setdefault(key, []).append(_jsonl_rate(engine, lines, warn))
    print(f"\n{'figure (checks/s of CPU time, ' + str(args.repeats) + ' runs)':52}"
          f"{'median':>10}{'best':>10}{'range':>22}")  # fmt: skip
    for key, values in rows.items():
        low, high = min(values), max(values)
        shown = f"{low:,.0f}-{high:,.0f}"
        print(f"{key:52}{statistics.median(values):>10,.0f}{high:>10,.0f}{shown:>22}")
    print("\nwith warnings / without (best runs: the least disturbed on a shared machine; medians)")
    for label in ("known", "a tenth unknown"):
        for kind in ("decisions", "JSON Lines"):
            off, on = rows[f"{label}, {kind}, warn=False"], rows[f"{label}, {kind}, warn=True"]
            best = max(on) / max(off)
            middle = statistics.median(on) / statistics.median(off)
            # warned answers are longer and each new unknown principal is judged once: the goal
            # is for requests the estate knows
            goal = "   goal >= 0.95" if label == "known" else ""
            print(f"  {label + ', ' + kind:34}{best:>8.3f}{middle:>8.3f}{goal}")


if __name__ == "__main__":
    main()
