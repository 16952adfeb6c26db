"""What making text inert costs (auditor.inert, issue 16 item 6).

    .venv/bin/python benchmarks/bench_inert.py [--quick] [--findings N] [--runs N]

Renders the synthetic findings of tests/report_fixtures.py (10,000; 1,000 with --quick) in every
fast format twice in the same process: as shipped, and with the neutralising steps replaced by the
identity (the baseline: what the renderers cost without them). Prints the best wall time of
``--runs`` runs of each and the ratio. Then the per-call cost of the pieces on their own: one
JSON Lines access decision through ``inert_json`` (the ``access check --requests`` output loop),
an 800 KB hostile value cut to a terminal line, and a clean 100-character name.

Goal: all formats together within 1.15x of their baseline (the formats alone are printed too;
the smallest take milliseconds, so their ratios are noisy).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import auditor.report._sanitize as sanitize  # noqa: E402 - after the path set-up above
import auditor.report.html as html_report  # noqa: E402
import auditor.report.json as json_report  # noqa: E402
import auditor.report.sarif as sarif_report  # noqa: E402
import auditor.report.text as text_report  # noqa: E402
from auditor.inert import TERMINAL_LIMIT, inert, inert_json  # noqa: E402
from auditor.report import RenderOptions, render  # noqa: E402
from tests.report_fixtures import synthetic_result  # noqa: E402

FORMATS = ("text", "json", "sarif", "junit", "csv", "markdown", "html")
GOAL_RATIO = 1.15


def _identity(value: Any, *args: Any, **kwargs: Any) -> Any:
    return value if isinstance(value, str | bytes) else str(value)


@contextmanager
def _without_inert(baseline_env: object) -> Iterator[None]:
    """The renderers with every neutralising step replaced by the identity (and the HTML
    templates by ones compiled without the finalize step)."""
    saved = (
        sanitize.inert,
        text_report.inert,
        json_report.inert_json_bytes,
        sarif_report.inert_json,
        html_report.environment,
    )
    sanitize.inert = _identity  # type: ignore[assignment]
    text_report.inert = _identity  # type: ignore[assignment]
    json_report.inert_json_bytes = _identity  # type: ignore[assignment]
    sarif_report.inert_json = _identity  # type: ignore[assignment]
    html_report.environment = lambda: baseline_env  # type: ignore[assignment]
    try:
        yield
    finally:
        (
            sanitize.inert,
            text_report.inert,
            json_report.inert_json_bytes,
            sarif_report.inert_json,
            html_report.environment,
        ) = saved


def _baseline_environment() -> object:
    """The shipped Jinja2 environment's settings without the finalize step."""
    saved = html_report._finalize
    html_report._finalize = None  # type: ignore[assignment]
    html_report.environment.cache_clear()
    try:
        return html_report.environment()
    finally:
        html_report._finalize = saved
        html_report.environment.cache_clear()


def _time(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _per_call_us(fn: Callable[[], object], calls: int) -> float:
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t0) / calls * 1e6


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1,000 findings (a smoke run)")
    parser.add_argument("--findings", type=int, default=None, help="findings (10000)")
    parser.add_argument("--runs", type=int, default=None, help="runs per figure (5; 2 quick)")
    args = parser.parse_args(argv)
    n = args.findings or (1_000 if args.quick else 10_000)
    runs = args.runs or (2 if args.quick else 5)
    with tempfile.TemporaryDirectory(prefix="bench-inert-") as tmp:
        options = RenderOptions(source_root=tmp)
        result = synthetic_result(n, Path(tmp))
        baseline_env = _baseline_environment()
        for fmt in FORMATS:  # warm up: templates compiled, modules imported
            render(result, fmt, None, options)
            with _without_inert(baseline_env):
                render(result, fmt, None, options)
        print(
            f"findings: {n}; best of {runs} runs, the two alternating; "
            "baseline: the same renderers without inert"
        )
        print(f"{'format':<10}{'inert s':>10}{'baseline s':>12}{'ratio':>8}")
        totals = [0.0, 0.0]
        for fmt in FORMATS:
            shipped, baseline = float("inf"), float("inf")
            for _ in range(runs):
                shipped = min(shipped, _time(lambda f=fmt: render(result, f, None, options)))
                with _without_inert(baseline_env):
                    baseline = min(baseline, _time(lambda f=fmt: render(result, f, None, options)))
            totals[0] += shipped
            totals[1] += baseline
            print(f"{fmt:<10}{shipped:>10.3f}{baseline:>12.3f}{shipped / baseline:>7.2f}x")
        ratio = totals[0] / totals[1]
        ok = ratio <= GOAL_RATIO
        print(
            f"{'all':<10}{totals[0]:>10.3f}{totals[1]:>12.3f}{ratio:>7.2f}x   goal <= "
            f"{GOAL_RATIO}x: {'met' if ok else 'NOT MET'}"
        )

    decision = (
        '{"principalId":"2c6e3f0a-1b7d-4e8f-9a0b-1c2d3e4f5a6b","action":"Cloud.Compute/'
        'virtualMachines/write","scope":"/subscriptions/11111111-1111-1111-1111-111111111111/'
        'resourceGroups/rg-17/providers/Cloud.Compute/virtualMachines/vm-3","decision":"allowed",'
        '"reason":"granted by Contributor at the subscription","grantedBy":["/subscriptions/1111'
        '1111-1111-1111-1111-111111111111/providers/Cloud.Authorization/roleAssignments/ra-1"],'
        '"deniedBy":[],"conditions":[]}'
    )
    hostile = "A" * 400_000 + "\x1b]0;pwned\x07\u202e" + "B" * 400_000
    name = "Contoso Platform Engineering – Release Managers (Zoë, 名前) " * 2
    calls = 20_000 if args.quick else 200_000
    print(f"\nper call, mean of {calls:,} calls")
    print(f"  inert_json, one {len(decision)}-char decision line: "
          f"{_per_call_us(lambda: inert_json(decision), calls):.2f} us")  # fmt: skip
    print(f"  inert, a clean {len(name)}-char name: "
          f"{_per_call_us(lambda: inert(name, limit=TERMINAL_LIMIT), calls):.2f} us")  # fmt: skip
    print(f"  inert, an 800 KB hostile value cut to {TERMINAL_LIMIT}: "
          f"{_per_call_us(lambda: inert(hostile, limit=TERMINAL_LIMIT), calls // 10):.2f} us")  # fmt: skip
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
