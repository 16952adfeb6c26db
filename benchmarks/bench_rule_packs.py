"""Rule packs with their examples (issue 21): what the examples cost an audit, and ``rules test``.

Every shipped rule carries examples, which make the packs about twice as large. An audit does not
need them: the loader blanks the ``examples:`` blocks before parsing (``packs.without_examples``).
Measured, each in a fresh process in the same run (import of the package excluded):

- ``load_catalogue()``: the catalogue as ``auditor audit`` and ``auditor gate`` load it;
- the baseline, ``load_catalogue(examples=True)``: the same packs parsed whole, examples and their
  lines included (what every audit would pay if the examples were read);
- ``auditor rules test`` as a library call: every example of every shipped rule run.

Goal: the audit's load no slower than the baseline (ratio at most 1.0).

    .venv/bin/python benchmarks/bench_rule_packs.py [--repeat R] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import run_child

_LOAD = """
import json, sys, time
from auditor.audit import packs
import auditor.audit.checks, auditor.expr.filter
examples = sys.argv[1] == "examples"
started = time.perf_counter()
catalogue = packs.load_catalogue(examples=examples)
seconds = time.perf_counter() - started
print(json.dumps({"seconds": seconds, "rules": len(catalogue.rules),
                  "examples": sum(len(r.examples) for r in catalogue.rules)}))
"""

_TEST = """
import json, time
from auditor.audit import packs
from auditor.audit.examples import run_examples
catalogue = packs.load_catalogue(examples=True)
import auditor.audit.runner
started = time.perf_counter()
results = run_examples(catalogue)
seconds = time.perf_counter() - started
print(json.dumps({"seconds": seconds, "examples": len(results),
                  "missed": sum(not r.ok for r in results)}))
"""


def _spread(values: list[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    return f"median {statistics.median(ms):7.1f} ms (range {ms[0]:.1f}-{ms[-1]:.1f})"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="2 runs of each")
    args = parser.parse_args(argv)
    repeat = 2 if args.quick else max(1, args.repeat)
    audit, full = [], []
    for _ in range(repeat):  # interleaved: both see the same machine load
        audit.append(run_child(_LOAD, "plain"))
        full.append(run_child(_LOAD, "examples"))
    test = [run_child(_TEST) for _ in range(repeat)]
    rules, examples = int(full[0]["rules"]), int(full[0]["examples"])
    a = [r["seconds"] for r in audit]
    b = [r["seconds"] for r in full]
    print(f"shipped catalogue: {rules} rules, {examples} examples; {repeat} runs of each")
    print(f"  load for an audit (examples skipped)     {_spread(a)}")
    print(f"  baseline: load with the examples parsed  {_spread(b)}")
    ratio = statistics.median(a) / statistics.median(b)
    print(f"  ratio audit load / baseline: {ratio:.2f} (goal: at most 1.00)")
    t = [r["seconds"] for r in test]
    missed = int(max(r["missed"] for r in test))
    print(f"  rules test (every example run)           {_spread(t)}; missed {missed}")
    return 0 if ratio <= 1.0 and missed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
