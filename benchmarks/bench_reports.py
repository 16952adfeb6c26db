"""Report rendering speed and size.

    .venv/bin/python benchmarks/bench_reports.py [--quick] [--html N] [--pdf N]

HTML for 10,000 findings (time, file size) and PDF for 1,000 findings (time, the layout child's
peak memory, pages), plus the other formats for the HTML's findings. The findings are synthetic
(tests/report_fixtures.py: every rule, every status, waivers, an access section). Times are wall
clock (best of three for the fast formats, one PDF run) with the process CPU time beside them, since
the machine may be busy with other work.

Goals (the issue): HTML under 3 s and 15 MB; PDF under 60 s.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from auditor.report import RenderOptions, render  # noqa: E402 - after the path set-up above
from auditor.report.pdf import build_html, html_to_pdf  # noqa: E402
from tests.report_fixtures import synthetic_result  # noqa: E402

HTML_GOAL_S, HTML_GOAL_MB, PDF_GOAL_S = 3.0, 15.0, 60.0


def _best_of(
    fmt: str, result: object, options: RenderOptions, runs: int
) -> tuple[float, float, int]:
    wall, cpu, size = float("inf"), float("inf"), 0
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        data = render(result, fmt, None, options)  # type: ignore[arg-type]
        wall = min(wall, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)
        size = len(data)
    return wall, cpu, size


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--html", type=int, default=None, help="findings in the HTML (10000)")
    parser.add_argument("--pdf", type=int, default=None, help="findings in the PDF (1000)")
    args = parser.parse_args(argv)
    n_html = args.html or (1_000 if args.quick else 10_000)
    n_pdf = args.pdf or (100 if args.quick else 1_000)
    ok = True
    with tempfile.TemporaryDirectory(prefix="bench-reports-") as tmp:
        options = RenderOptions(source_root=tmp)
        result = synthetic_result(n_html, Path(tmp))
        render(result, "html", None, options)  # warm up: templates compiled, modules imported
        print(f"findings: {n_html} (HTML and the other formats), {n_pdf} (PDF)")
        print(f"{'format':<10}{'wall s':>9}{'cpu s':>9}{'size MB':>10}   goal")
        for fmt in ("html", "sarif", "junit", "csv", "markdown"):
            wall, cpu, size = _best_of(fmt, result, options, 3)
            goal = ""
            if fmt == "html":
                met = wall < HTML_GOAL_S and size / 1e6 < HTML_GOAL_MB
                ok = ok and met
                goal = f"< {HTML_GOAL_S:g} s, < {HTML_GOAL_MB:g} MB: {'met' if met else 'MISSED'}"
            print(f"{fmt:<10}{wall:>9.2f}{cpu:>9.2f}{size / 1e6:>10.2f}   {goal}")

        pdf_result = synthetic_result(n_pdf, Path(tmp))
        t0, c0 = time.perf_counter(), time.process_time()
        html = build_html(pdf_result, options)
        prep = time.perf_counter() - t0
        data, stats = html_to_pdf(html, timeout=options.pdf_timeout, what=f"{n_pdf} findings")
        wall = time.perf_counter() - t0
        met = wall < PDF_GOAL_S
        ok = ok and met
        print(
            f"{'pdf':<10}{wall:>9.2f}{time.process_time() - c0:>9.2f}{len(data) / 1e6:>10.2f}   "
            f"< {PDF_GOAL_S:g} s: {'met' if met else 'MISSED'}"
        )
        print(
            f"  pdf: {stats.get('pages')} pages, layout child peak memory "
            f"{stats.get('peakMemoryMiB', 0):.0f} MiB, template {prep:.2f} s, child "
            f"{stats['seconds']:.2f} s wall, {stats.get('cpuSeconds', 0):.2f} s cpu (parent cpu column excludes it)"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
