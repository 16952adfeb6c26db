"""The HTML report opened in a real headless browser (Debian's chromium, driven over the Chrome
DevTools Protocol): no console error, no CSP violation, filters clicked and the visible rows
counted, the URL hash keeping the filter state, a screenshot that is not blank, and the injection
attempt in a health event inert.

Chromium is part of the test set-up (``apt-get install -y chromium``): when it is missing this test
FAILS rather than skips, so a machine without it cannot pass silently.
"""

from __future__ import annotations

import base64
import io
import itertools
import json
import os
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from auditor.report import RenderOptions, render
from tests.report_fixtures import make_result

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--hide-scrollbars",
    "--remote-debugging-port=0",
    "--remote-allow-origins=*",
    "--window-size=1400,1000",
]
SCREENSHOT_COPY = os.environ.get("AUDITOR_SCREENSHOT")
"""Where to keep a copy of the screenshot (for looking at it), when set."""


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    pytest.fail(
        "chromium is missing: the browser test needs Debian's chromium "
        "(apt-get update && apt-get install -y chromium)"
    )


class Cdp:
    """A minimal Chrome DevTools Protocol client over one page's websocket."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.ids = itertools.count(1)
        self.events: list[dict[str, Any]] = []

    def call(self, method: str, timeout: float = 30.0, **params: Any) -> dict[str, Any]:
        msg_id = next(self.ids)
        self.ws.send(json.dumps({"id": msg_id, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            raw = self.ws.recv(timeout=max(0.1, deadline - time.monotonic()))
            msg = json.loads(raw)
            if msg.get("id") == msg_id:
                if "error" in msg:
                    raise AssertionError(f"{method} failed: {msg['error']}")
                result: dict[str, Any] = msg.get("result", {})
                return result
            if "method" in msg:
                self.events.append(msg)

    def wait_event(self, method: str, timeout: float = 30.0) -> dict[str, Any]:
        for i, ev in enumerate(self.events):
            if ev["method"] == method:
                return self.events.pop(i)
        deadline = time.monotonic() + timeout
        while True:
            msg = json.loads(self.ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            if msg.get("method") == method:
                return msg
            if "method" in msg:
                self.events.append(msg)

    def drain(self, seconds: float = 0.2) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                msg = json.loads(self.ws.recv(timeout=max(0.01, end - time.monotonic())))
            except TimeoutError:
                break
            if "method" in msg:
                self.events.append(msg)

    def js(self, expression: str) -> Any:
        res = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                        awaitPromise=True)  # fmt: skip
        if "exceptionDetails" in res:
            raise AssertionError(f"{expression!r} threw: {res['exceptionDetails']}")
        return res["result"].get("value")

    def goto(self, url: str) -> None:
        """Load ``url`` afresh (a URL with a fragment too, as when a bookmark is opened)."""
        if "#" in url:
            self.call("Page.navigate", url="about:blank")
            self.wait_event("Page.loadEventFired")
        self.call("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired")
        self.ready()
        self.drain(0.3)

    def ready(self, timeout: float = 30.0) -> None:
        """Wait until the page's script has read its findings data block and drawn the rows
        (``data-ready`` on the root element; a page without the block is ready when loaded)."""
        state = self.js(
            "new Promise((done) => { const t0 = Date.now(); const check = () => {"
            " const s = document.documentElement.getAttribute('data-ready');"
            " if (s || !document.getElementById('report-data')) { done(s || 'none'); }"
            f" else if (Date.now() - t0 > {timeout * 1000:.0f}) {{ done('timeout'); }}"
            " else { setTimeout(check, 10); } }; check(); })"
        )
        assert state in ("1", "none"), f"the page's script did not get ready: {state}"

    def click(self, selector: str) -> None:
        box = self.js(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        x, y = box
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left",
                      clickCount=1)  # fmt: skip
        self.drain(0.2)

    def problems(self) -> list[str]:
        out = []
        for ev in self.events:
            m, p = ev["method"], ev.get("params", {})
            if m == "Runtime.exceptionThrown":
                out.append(f"exception: {p['exceptionDetails']}")
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append(f"console.{p['type']}: {p.get('args')}")
            elif m == "Log.entryAdded" and p["entry"]["level"] == "error":
                out.append(f"log: {p['entry'].get('text')} {p['entry'].get('url', '')}")
            elif m == "Page.javascriptDialogOpening":
                out.append(f"dialog: {p.get('message')}")
        return out


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cdp]:
    exe = _chromium()
    profile = tmp_path_factory.mktemp("chromium-profile")
    proc = subprocess.Popen(
        [exe, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not (port_file.is_file() and port_file.read_text().strip()):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"chromium did not start (exit code {proc.poll()})")
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        pages: list[dict[str, Any]] = []
        while not pages and time.monotonic() < deadline:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
                pages = [t for t in json.load(r) if t.get("type") == "page"]
            time.sleep(0.1)
        assert pages, "chromium opened no page"
        from websockets.sync.client import connect

        url = pages[0]["webSocketDebuggerUrl"]
        with connect(url, max_size=None, proxy=None, open_timeout=20) as ws:
            cdp = Cdp(ws)
            for domain in ("Page", "Runtime", "Log"):
                cdp.call(f"{domain}.enable")
            # a dialog (alert/confirm/prompt) would mean script from the data ran: record it
            cdp.call(
                "Page.addScriptToEvaluateOnNewDocument",
                source="window.__dialogs = []; for (const n of ['alert', 'confirm', 'prompt']) "
                "{ window[n] = (m) => { window.__dialogs.push(String(m)); }; }",
            )
            yield cdp
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    folder = tmp_path_factory.mktemp("html-browser")
    result = make_result(folder)
    path = folder / "report.html"
    render(result, "html", path, RenderOptions(source_root=str(folder), include_passed=True))
    return path, result


def _visible(cdp: Cdp) -> int:
    """Finding rows drawn and visible (a page of rows per rule at most)."""
    return int(
        cdp.js(
            "Array.from(document.querySelectorAll('tr.finding'))"
            ".filter((r) => r.closest('[hidden]') === null).length"
        )
    )


def _shown(cdp: Cdp) -> int:
    """Findings that pass the filters, as the page counts them."""
    return int(cdp.js("document.getElementById('f-count').dataset.shown"))


def test_html_report_in_a_real_browser(browser: Cdp, report: tuple[Path, Any]) -> None:
    path, result = report
    cdp = browser
    cdp.events.clear()
    cdp.goto(path.as_uri())

    # the one inline script ran (the CSP hash matches) and nothing from the data did
    assert cdp.js("document.documentElement.classList.contains('js')"), cdp.problems()
    assert cdp.js("document.scripts.length") == 1
    assert cdp.js("document.querySelectorAll('[onerror], [onload], [onclick]').length") == 0
    assert cdp.js("document.querySelectorAll('img, iframe, object, embed').length") == 0
    assert cdp.js("window.__dialogs.length") == 0
    # the findings came from the compressed data block; details are built when opened
    assert cdp.js("document.querySelector('dd.rich') === null")
    hlt = next(i for i, f in enumerate(result.findings) if f.ruleId == "HLT-001")
    cdp.click(f"#f-{hlt} details summary")
    assert cdp.js(f"document.querySelector('#f-{hlt} details').open") is True
    assert cdp.js("document.querySelector('dd.rich b') !== null"), "safe markup is kept"
    assert cdp.js("document.querySelectorAll('dd.rich script, dd.rich style').length") == 0
    assert cdp.js("window.__dialogs.length") == 0

    total = len(result.findings)
    not_pass = sum(1 for f in result.findings if f.status != "pass")
    assert _shown(cdp) == not_pass == _visible(cdp), "passes are hidden by default"
    assert cdp.js("document.querySelectorAll('tr.finding').length") == not_pass

    # click 'pass' on: every finding shows, and the state goes into the hash
    cdp.click("input[name=status][value=pass]")
    assert _visible(cdp) == total == _shown(cdp)
    assert "status=" in cdp.js("location.hash")

    # click 'high' off: no high finding is visible
    cdp.click("input[name=sev][value=high]")
    high = sum(1 for f in result.findings if f.severity == "high")
    assert _visible(cdp) == total - high
    assert (
        cdp.js("document.querySelectorAll('tr.finding[data-sev=high]:not([hidden])').length") == 0
    )
    assert "sev=" in cdp.js("location.hash")
    shown = cdp.js("document.getElementById('f-count').dataset.shown")
    assert int(shown) == total - high

    assert _visible(cdp) == total - high
    # the rule filter
    cdp.js(
        "(() => { const s = document.getElementById('f-rule'); s.value = 'DOM-001';"
        " s.dispatchEvent(new Event('change', {bubbles: true})); })()"
    )
    dom1 = sum(1 for f in result.findings if f.ruleId == "DOM-001" and f.severity != "high")
    assert _visible(cdp) == dom1 == 0  # DOM-001 is high, and high is off
    cdp.click("input[name=sev][value=high]")
    assert _visible(cdp) == sum(1 for f in result.findings if f.ruleId == "DOM-001")
    assert "rule=DOM-001" in cdp.js("location.hash")
    assert cdp.js("document.querySelectorAll('section.rule:not([hidden])').length") == 1

    # a filtered view from the URL alone (a bookmark): critical failures only
    cdp.goto(path.as_uri() + "#sev=critical&status=fail")
    critical = sum(1 for f in result.findings if f.severity == "critical" and f.status == "fail")
    assert critical > 0
    assert _visible(cdp) == critical
    assert cdp.js("document.querySelector('input[name=sev][value=high]').checked") is False
    # rule sections with nothing visible are hidden
    hidden_sections = cdp.js("document.querySelectorAll('section.rule[hidden]').length")
    assert hidden_sections > 0

    # search: typed into the box
    cdp.click("#f-reset")
    cdp.click("#f-q")
    cdp.call("Input.insertText", text="sandbox-events")
    cdp.drain(0.6)
    expected = sum(
        1 for f in result.findings if f.status != "pass" and "sandbox-events" in f.resourceId
    )
    assert _visible(cdp) == expected
    assert "q=sandbox-events" in cdp.js("location.hash")
    cdp.click("#f-reset")
    assert _visible(cdp) == not_pass

    # a link from the resource index reveals and opens its finding
    cdp.goto(path.as_uri() + "#f-3")
    assert cdp.js("document.getElementById('f-3').hidden") is False
    assert cdp.js("document.querySelector('#f-3 details').open") is True

    assert cdp.js("window.__dialogs.length") == 0
    problems = cdp.problems()
    assert not problems, problems


def test_screenshot_is_not_blank(browser: Cdp, report: tuple[Path, Any], tmp_path: Path) -> None:
    from PIL import Image

    path, _ = report
    browser.goto(path.as_uri())
    shot = browser.call("Page.captureScreenshot", format="png", captureBeyondViewport=False)
    data = base64.b64decode(shot["data"])
    target = tmp_path / "report.png"
    target.write_bytes(data)
    if SCREENSHOT_COPY:
        Path(SCREENSHOT_COPY).write_bytes(data)
    image = Image.open(io.BytesIO(data)).convert("RGB")
    assert image.width >= 1000 and image.height >= 600
    small = image.resize((200, 140))
    colours = small.getcolors(maxcolors=200 * 140)
    assert colours is not None and len(colours) > 40, "the page looks blank"
    # most common colour (the background) covers less than 90% of the picture
    top = max(count for count, _ in colours)
    assert top < 0.9 * 200 * 140
    # the dark masthead and the red 'Gate failed' badge are drawn
    raw = small.tobytes()
    pixels = [(raw[i], raw[i + 1], raw[i + 2]) for i in range(0, len(raw), 3)]
    assert any(r < 40 and g < 50 and b < 80 for r, g, b in pixels)
    assert any(r > 150 and g < 60 and b < 60 for r, g, b in pixels)


def test_evidence_in_a_real_browser(browser: Cdp, report: tuple[Path, Any]) -> None:
    """Every finding's evidence as the page shows it once opened (the block's format 2, read by
    the script): each key in order, texts as they are (made inert), lists and objects as their
    JSON, markup as a tree; no evidence lost, none moved to another finding."""
    from auditor.report._html_data import _inert_json, _scalar
    from auditor.report._sanitize import looks_like_html, xml_text
    from auditor.report.html import STATUSES

    path, result = report
    browser.goto(path.as_uri() + "#status=" + ",".join(STATUSES))
    shown = browser.js(
        "(() => { const rows = Array.from(document.querySelectorAll('tr.finding'));"
        " rows.forEach((r) => { const d = r.querySelector('details'); d.open = true;"
        " d.dispatchEvent(new Event('toggle')); });"
        " return rows.map((r) => [r.id, Array.from(r.querySelectorAll('dl.ev > *')).map("
        "(e) => [e.tagName, e.className, e.textContent])]); })()"
    )
    by_id = dict(shown)
    assert len(by_id) == len(result.findings)
    with_evidence = 0
    for n, f in enumerate(result.findings):
        items = by_id[f"f-{n}"]
        if not f.evidence:
            assert items == []
            continue
        with_evidence += 1
        assert [tag for tag, _, _ in items] == ["DT", "DD"] * len(f.evidence)
        for (key, value), (_, _, dt), (_, cls, dd) in zip(
            f.evidence.items(), items[::2], items[1::2], strict=True
        ):
            assert dt == xml_text(str(key))
            if isinstance(value, str) and looks_like_html(value):
                assert cls == "rich"
            elif isinstance(value, dict | list | tuple):
                assert json.loads(dd) == json.loads(json.dumps(_inert_json(value)))
            elif isinstance(value, str):
                assert dd == xml_text(value)
            else:
                assert dd == xml_text(_scalar(value))
    assert with_evidence > 10
    assert not browser.problems()
