"""The HTML and PDF reports of a generated estate: size, write time, time to open in chromium.

Audits a generated estate once (in a child process), then writes the HTML report twice in the same
run: as reports are written now (the findings as one compressed data block the page's script
renders a page of rows at a time, passes counted per rule and resource type) and, as the baseline,
the previous page (every listed finding as markup: ``html.render(..., _legacy=True)``). Each page
is opened in headless chromium (Debian's ``chromium``, driven over the DevTools protocol) and timed
until its rows are drawn. Then the PDF report is written and timed. Prints the figures, the ratios
baseline/now and the goals scaled to the estate (the issue: at 1,000,000 role assignments the HTML
at most 25 MB, written in 10 s and opened in 10 s; the PDF in 60 s).

    .venv/bin/python benchmarks/bench_report_scale.py [--role-assignments N] [--quick] [--no-pdf]

``--quick``: 20,000 role assignments (default 100,000). Runs on 500,000 or more take GBs: wrap them
in ``flock /tmp/auditor-big.lock``. The estate is cached under ``benchmarks/.cache/``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import PEAK, cached_estate, run_child

GOAL_MB_PER_MILLION = 25.0
GOAL_S_PER_MILLION = 10.0
GOAL_PDF_S_PER_MILLION = 60.0
OPEN_TIMEOUT = 180.0

CHILD = (
    PEAK
    + "\n"
    + """
import json, sys, time
from pathlib import Path
from auditor.audit.runner import AuditOptions, audit_snapshot
from auditor.estate.snapshot import load_snapshot
from auditor.report import RenderOptions
from auditor.report import html, pdf

result = audit_snapshot(load_snapshot(sys.argv[1]), AuditOptions())
out = Path(sys.argv[2])
figures = {"findings": len(result.findings),
           "listed": sum(1 for f in result.findings if f.status != "pass")}
for label, legacy in (("now", False), ("base", True)):
    t0 = time.perf_counter()
    data = html.render(result, RenderOptions(), _legacy=legacy)
    (out / f"{label}.html").write_bytes(data)
    figures[f"{label}_s"] = time.perf_counter() - t0
    figures[f"{label}_mb"] = len(data) / 1e6
    del data
if sys.argv[3] == "1":
    t0 = time.perf_counter()
    data, stats = pdf.render_with_stats(result, RenderOptions(pdf_timeout=600))
    figures["pdf_s"] = time.perf_counter() - t0
    figures["pdf_mb"] = len(data) / 1e6
    figures["pdf_pages"] = stats.get("pages", 0)
figures["peak_mb"] = peak_mb()
print(json.dumps(figures))
"""
)

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--remote-debugging-port=0", "--remote-allow-origins=*", "--window-size=1400,1000",
]  # fmt: skip

READY = (
    "new Promise((done) => { const t0 = Date.now(); const check = () => {"
    " const s = document.documentElement.getAttribute('data-ready');"
    " if (s || !document.getElementById('report-data')) { done(s || 'none'); }"
    " else if (Date.now() - t0 > %d) { done('timeout'); } else { setTimeout(check, 10); } };"
    " check(); })"
)


class _Page:
    """One chromium tab over the DevTools protocol (the test suite's client, cut down)."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.next_id = 0

    def call(self, method: str, timeout: float, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            msg = json.loads(self.ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            if msg.get("id") == self.next_id:
                return dict(msg.get("result", {}))

    def wait(self, method: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while (
            json.loads(self.ws.recv(timeout=max(0.1, deadline - time.monotonic()))).get("method")
            != method
        ):
            pass


def open_seconds(pages: list[Path]) -> list[float | None]:
    """Seconds from navigation until each page's rows are drawn (None: not within the limit)."""
    exe = next((shutil.which(n) for n in ("chromium", "chromium-browser") if shutil.which(n)), None)
    if exe is None:
        return [None for _ in pages]
    from websockets.sync.client import connect

    out: list[float | None] = []
    with tempfile.TemporaryDirectory() as profile:
        proc = subprocess.Popen(
            [exe, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            port_file = Path(profile) / "DevToolsActivePort"
            deadline = time.monotonic() + 60
            while not (port_file.is_file() and port_file.read_text().strip()):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("chromium did not start")
                time.sleep(0.1)
            port = int(port_file.read_text().split()[0])
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
                target = next(t for t in json.load(r) if t.get("type") == "page")
            with connect(target["webSocketDebuggerUrl"], max_size=None, proxy=None) as ws:
                page = _Page(ws)
                page.call("Page.enable", 30)
                for path in pages:
                    page.call("Page.navigate", 30, url="about:blank")
                    page.wait("Page.loadEventFired", 30)
                    t0 = time.monotonic()
                    try:
                        page.call("Page.navigate", OPEN_TIMEOUT, url=path.as_uri())
                        page.wait("Page.loadEventFired", OPEN_TIMEOUT)
                        res = page.call(
                            "Runtime.evaluate",
                            OPEN_TIMEOUT,
                            expression=READY % (OPEN_TIMEOUT * 1000),
                            awaitPromise=True,
                            returnByValue=True,
                        )
                        ok = res.get("result", {}).get("value") in ("1", "none")
                        out.append(time.monotonic() - t0 if ok else None)
                    except TimeoutError:
                        out.append(None)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    return out


def _s(value: float | None) -> str:
    return f"{value:6.2f} s" if value is not None else f"> {OPEN_TIMEOUT:.0f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--role-assignments", type=int, default=100_000)
    parser.add_argument("--quick", action="store_true", help="smoke run: 20,000 role assignments")
    parser.add_argument("--no-pdf", action="store_true", help="skip the PDF")
    args = parser.parse_args()
    n = 20_000 if args.quick else args.role_assignments
    path = cached_estate(n)
    with tempfile.TemporaryDirectory(prefix="bench-report-scale-") as tmp:
        fig = run_child(CHILD, str(path), tmp, "0" if args.no_pdf else "1")
        now_open, base_open = open_seconds([Path(tmp) / "now.html", Path(tmp) / "base.html"])
    scale = n / 1_000_000
    print(
        f"role assignments: {n:,}; findings: {int(fig['findings']):,}; "
        f"listed (not passing): {int(fig['listed']):,}"
    )
    for label, key, opened in (
        ("data block (now)", "now", now_open),
        ("markup (baseline)", "base", base_open),
    ):
        print(
            f"  HTML {label:20s} {fig[key + '_mb']:8.1f} MB  written in {fig[key + '_s']:6.2f} s"
            f"  opened in chromium in {_s(opened)}"
        )
    print(
        f"  ratio baseline/now: size {fig['base_mb'] / fig['now_mb']:.1f}x, "
        f"write {fig['base_s'] / fig['now_s']:.1f}x"
        + (
            f", open {base_open / now_open:.1f}x"
            if now_open is not None and base_open is not None
            else ""
        )
    )
    per = fig["now_mb"] * 1e6 / max(1, fig["listed"])
    print(f"  HTML bytes per listed finding: {per:.0f}")
    if "pdf_s" in fig:
        print(
            f"  PDF {fig['pdf_mb']:.1f} MB, {int(fig['pdf_pages'])} pages, "
            f"written in {fig['pdf_s']:.2f} s"
        )
    print(f"  peak memory of the child (audit + reports): {fig['peak_mb']:.0f} MB")
    print(
        f"  goals: HTML at most {GOAL_MB_PER_MILLION * scale:.1f} MB at this size "
        f"({GOAL_MB_PER_MILLION:.0f} MB at 1,000,000), written in {GOAL_S_PER_MILLION:.0f} s and "
        f"opened in 10 s at 1,000,000; PDF {GOAL_PDF_S_PER_MILLION:.0f} s at 1,000,000 (capped "
        "per rule, so it barely grows with the estate)"
    )


if __name__ == "__main__":
    main()
