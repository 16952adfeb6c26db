"""The audit history (SQLite): record an audit of a generated estate 20 times, diff the last two.

Runs in a fresh process: load the snapshot and audit it once with every rule (not timed), then
record that result 20 times in a new history file, each run perturbed (a few failing findings
dropped, a few new ones added, a few re-rated), so every run stores something new and the diff has
something to say; then ``history diff`` of the last two runs (the changed findings rendered as in
contracts section 6). Recording includes the SHA-256 of the whole snapshot file and counting
millions of passes. Wall and CPU time are both printed (the CPU time is the figure a busy machine does not
distort). The baseline, measured in the same run: writing
the same failing findings and pass counts as JSON Lines, one file a run.

Goals (1,000,000 role assignments, ~83,000 failing findings): recording a run in at most 3 s, the
diff in at most 1 s, the file under 100 MB after 20 runs.

    .venv/bin/python benchmarks/bench_history.py [--role-assignments N] [--runs 20] [--quick]

``--quick``: a smoke run on 20,000 role assignments and 5 runs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import PEAK, cached_estate, run_child

GOAL_RECORD_S = 3.0
GOAL_DIFF_S = 1.0
GOAL_FILE_MB = 100.0

CHILD = (
    PEAK
    + "\n"
    + """
import dataclasses, datetime as dt, hashlib, json, os, random, sys, tempfile, time
from auditor.audit.runner import AuditOptions, audit_snapshot
from auditor.estate.snapshot import load_snapshot
from auditor.history import History
from auditor.history.record import file_entry, scan

path, runs = sys.argv[1], int(sys.argv[2])
snapshot = load_snapshot(path)
options = AuditOptions(use_config=False, as_of=dt.date(2026, 11, 21))
result = audit_snapshot(snapshot, options, target=path)
found = scan(result.findings)
judged, passes = found.judged, [f for f in result.findings if f.status == "pass"]
rng = random.Random(7)
out = {"findings": len(result.findings), "judged": len(judged)}
out.update({k: [] for k in ("record", "record_cpu", "jsonl", "jsonl_cpu")})

def perturbed(i):
    keep = list(judged)
    for _ in range(min(10, len(keep) // 4)):  # fixed since the last run
        keep.pop(rng.randrange(len(keep)))
    for j in rng.sample(range(14), 10):  # new, or back again: 10 of a pool of 14
        f = judged[j * 7 % len(judged)]
        fp = hashlib.sha256(f"pool-{j}".encode()).hexdigest()[:32]
        keep.append(dataclasses.replace(f, fingerprint=fp, resourceId=f.resourceId + f"/new{j}"))
    for _ in range(3):  # re-rated
        k = rng.randrange(len(keep))
        keep[k] = dataclasses.replace(keep[k], severity="critical")
    return keep

with tempfile.TemporaryDirectory() as tmp:
    db = os.path.join(tmp, "history.db")
    t = time.perf_counter(); file_entry("snapshot", path); out["hash"] = time.perf_counter() - t
    with History(db, create=True) as history:
        for i in range(runs):
            variant = perturbed(i)
            result.findings = variant + passes
            t, c = time.perf_counter(), time.process_time()
            history.record(result, options=options, snapshot=snapshot)
            out["record"].append(time.perf_counter() - t)
            out["record_cpu"].append(time.process_time() - c)
            # the baseline: the same findings and pass counts as JSON Lines, one file a run
            t, c = time.perf_counter(), time.process_time()
            with open(os.path.join(tmp, f"run{i}.jsonl"), "w") as fh:
                for f in variant:
                    fh.write(json.dumps(f.to_json()) + "\\n")
                fh.write(json.dumps({"passes": [[r, k, n] for (r, k), n in scan(passes).passes.items()]}) + "\\n")
            out["jsonl"].append(time.perf_counter() - t)
            out["jsonl_cpu"].append(time.process_time() - c)
        t, c = time.perf_counter(), time.process_time()
        diff = history.diff().to_json()
        out["diff"], out["diff_cpu"] = time.perf_counter() - t, time.process_time() - c
        out["changes"] = {k: len(v) for k, v in diff.items() if isinstance(v, list)}
        t = time.perf_counter(); trend = history.trend(last=10); out["trend"] = time.perf_counter() - t
    out["file_mb"] = sum(os.path.getsize(os.path.join(tmp, n)) for n in os.listdir(tmp) if n.startswith("history.db")) / 2**20
    out["jsonl_mb"] = sum(os.path.getsize(os.path.join(tmp, n)) for n in os.listdir(tmp) if n.endswith(".jsonl")) / 2**20
out["peak_mb"] = peak_mb()
print(json.dumps(out))
"""
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--role-assignments", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="smoke run: 20,000, 5 runs")
    args = parser.parse_args()
    n = 20_000 if args.quick else args.role_assignments
    runs = 5 if args.quick else args.runs
    path = cached_estate(n)
    print(f"estate: {path.name} ({path.stat().st_size / 2**20:.0f} MB, {n:,} role assignments)")
    r = run_child(CHILD, str(path), str(runs))
    rec, jsonl = r["record"], r["jsonl"]
    later = rec[1:] or rec
    cpu = r["record_cpu"][1:] or r["record_cpu"]
    print(
        f"  findings        {r['findings']:,} ({r['judged']:,} failing, unknown or waived; the "
        "rest passes, stored as counts)"
    )
    print(f"  sha256 of the snapshot alone {r['hash']:6.2f} s (included in each record)")
    print(
        f"  record a run    first {rec[0]:.2f} s (CPU {r['record_cpu'][0]:.2f} s); then median "
        f"{statistics.median(later):.2f} s (min {min(later):.2f}, max {max(later):.2f}) over "
        f"{len(later)} runs; CPU median {statistics.median(cpu):.2f} s (min {min(cpu):.2f}, "
        f"max {max(cpu):.2f})"
    )
    jcpu = r["jsonl_cpu"]
    print(
        f"  baseline JSONL  median {statistics.median(jsonl):.2f} s a run "
        f"(min {min(jsonl):.2f}, max {max(jsonl):.2f}; CPU median "
        f"{statistics.median(jcpu):.2f} s); "
        f"record / JSONL = {statistics.median(later) / statistics.median(jsonl):.2f}x wall, "
        f"{statistics.median(cpu) / statistics.median(jcpu):.2f}x CPU"
    )
    print(f"  diff last two   {r['diff']:.2f} s (CPU {r['diff_cpu']:.2f} s)  {r['changes']}")
    print(f"  trend (10 runs) {r['trend']:.2f} s")
    print(
        f"  file after {runs} runs {r['file_mb']:.1f} MB (JSON Lines of the same: "
        f"{r['jsonl_mb']:.1f} MB, {r['file_mb'] / r['jsonl_mb']:.2f}x)"
    )
    print(f"  peak memory     {r['peak_mb']:.0f} MB (the audit's included)")
    scale = "" if n == 1_000_000 else f" (goals are for 1,000,000; this is {n:,})"
    size_ok = r["file_mb"] <= GOAL_FILE_MB
    for what, record, diff in (
        ("wall", statistics.median(later), r["diff"]),
        ("CPU", statistics.median(cpu), r["diff_cpu"]),
    ):
        ok = record <= GOAL_RECORD_S and diff <= GOAL_DIFF_S and size_ok
        print(
            f"  goals by {what} time: record (median) <= {GOAL_RECORD_S:.0f} s, diff <= "
            f"{GOAL_DIFF_S:.0f} s, file <= {GOAL_FILE_MB:.0f} MB: {'ok' if ok else 'OVER'}{scale}"
        )


if __name__ == "__main__":
    main()
