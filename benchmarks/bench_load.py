"""Loading a generated snapshot of 1,000,000 role assignments (issue: foundation).

Prints wall time and peak memory of ``auditor.estate.load_snapshot`` beside plain ``json.loads`` of the
same bytes, and beside the two pydantic ways (``TypeAdapter.validate_json`` and dict-then-validate),
each in its own process, measured in the same run. Goal: at most 3x json.loads, peak under 2 GB.

    .venv/bin/python benchmarks/bench_load.py [--role-assignments N] [--skip-pydantic]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import PEAK, cached_estate, run_child

READ = "import sys, time, json; data = open(sys.argv[1], 'rb').read(); size = len(data); t = time.perf_counter()\n"
FROM_PATH = (
    "import os, sys, time, json; size = os.path.getsize(sys.argv[1]); t = time.perf_counter()\n"
)
DONE = "el = time.perf_counter() - t; print(json.dumps({'seconds': el, 'peak_mb': peak_mb(), 'file_mb': size / 2**20}))\n"

_PYDANTIC_MODEL = (
    "from pydantic import BaseModel, ConfigDict\n"
    "from auditor.model.access import RoleAssignment, DenyAssignment\n"
    "class S(BaseModel):\n"
    "    model_config = ConfigDict(extra='allow')\n"
    "    roleAssignments: list[RoleAssignment] = []\n"
    "    denyAssignments: list[DenyAssignment] = []\n"
)

CASES = {
    "json.loads (baseline)": READ + "obj = json.loads(data)\n",
    # From the path, reading included: large files are memory-mapped and their pages given back
    # as the sections are decoded, so the file's bytes never sit beside the records.
    "auditor load_snapshot": (
        FROM_PATH + "from auditor.estate.snapshot import load_snapshot\n"
        "obj = load_snapshot(sys.argv[1])\n"
    ),
    "pydantic validate_json": READ + _PYDANTIC_MODEL + "obj = S.model_validate_json(data)\n",
    "pydantic dict-then-validate": READ
    + _PYDANTIC_MODEL
    + "obj = S.model_validate(json.loads(data))\n",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--role-assignments", type=int, default=1_000_000)
    parser.add_argument("--skip-pydantic", action="store_true")
    args = parser.parse_args()
    path = cached_estate(args.role_assignments)
    print(f"snapshot: {path.name} ({path.stat().st_size / 2**20:.0f} MB)")
    rows = {}
    for name, body in CASES.items():
        if args.skip_pydantic and name.startswith("pydantic"):
            continue
        rows[name] = run_child(PEAK + "\n" + body + DONE, str(path))
    base = rows["json.loads (baseline)"]["seconds"]
    print(f"{'case':30s} {'seconds':>8s} {'x json':>7s} {'peak MB':>8s}")
    for name, r in rows.items():
        print(f"{name:30s} {r['seconds']:8.2f} {r['seconds'] / base:7.2f} {r['peak_mb']:8.0f}")
    ours = rows["auditor load_snapshot"]
    print(
        f"goal: load_snapshot at most 3x json.loads -> {ours['seconds'] / base:.2f}x "
        f"({'met' if ours['seconds'] <= 3 * base else 'NOT met'}); peak under 2048 MB -> "
        f"{ours['peak_mb']:.0f} MB ({'met' if ours['peak_mb'] < 2048 else 'NOT met'})"
    )


if __name__ == "__main__":
    main()
