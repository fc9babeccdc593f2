"""The feedback page and the class dashboard in real headless Chromium (DevTools protocol over a websocket).

Each page is opened from file://, screenshotted, and checked: not blank, every <img> decoded, no
console errors or exceptions, no request but the page itself and data: URIs, no <script> elements
(student output stays text), and Chinese text drawn with a real CJK font.
Set ATTNKIT_SCREENSHOT_DIR to keep the screenshots.
"""
from __future__ import annotations

import base64
import io
import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from autograder.report import write_report
from sample_results import SCRIPT, write_sample_out

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = os.environ.get("ATTNKIT_CHROMIUM", "/usr/bin/chromium")
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--disable-extensions", "--hide-scrollbars", "--mute-audio",
    "--remote-debugging-port=0",
)
CJK_FONT_WORDS = ("CJK", "WenQuanYi", "Source Han", "Droid Sans Fallback", "PingFang", "YaHei", "Hei")
VIEWPORT = {"width": 1200, "height": 900, "deviceScaleFactor": 1, "mobile": False}

if not Path(CHROMIUM).exists():
    pytest.skip(f"headless Chromium not found at {CHROMIUM}: apt-get install chromium", allow_module_level=True)
websocket = pytest.importorskip("websocket", reason="websocket-client is needed to talk to Chromium")


class Cdp:
    """A minimal DevTools-protocol client: one browser websocket, flat sessions, events buffered."""

    def __init__(self, url: str) -> None:
        self.ws = websocket.create_connection(url, timeout=30, suppress_origin=True)
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        self.ws.send(json.dumps(message))
        while True:
            reply = json.loads(self.ws.recv())
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method} failed: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str, session: str, timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for event in self.events:
                if event.get("method") == method and event.get("sessionId") == session:
                    return event
            self.events.append(json.loads(self.ws.recv()))
        raise TimeoutError(f"no {method} within {timeout} s")


@dataclass
class PageVisit:
    screenshot: bytes
    images: list[dict[str, Any]]
    requests: list[str]
    errors: list[str]
    scripts: int
    pre_text: str
    fonts: list[dict[str, Any]] = field(default_factory=list)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cdp]:
    profile = tmp_path_factory.mktemp("chromium-profile")
    process = subprocess.Popen(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )
    port_file = profile / "DevToolsActivePort"
    deadline = time.monotonic() + 60
    while not (port_file.exists() and len(port_file.read_text().splitlines()) >= 2):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            stderr = process.stderr.read().decode(errors="replace") if process.stderr else ""
            pytest.fail(f"Chromium did not start (exit {process.poll()}):\n{stderr[-2000:]}")
        time.sleep(0.1)
    port, path = port_file.read_text().splitlines()[:2]
    cdp = Cdp(f"ws://127.0.0.1:{port}{path}")
    try:
        yield cdp
    finally:
        try:
            cdp.call("Browser.close")
        except Exception:  # the browser may already be gone; the process group is ended below
            pass
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def visit(cdp: Cdp, page: Path, *, font_selector: str | None = None) -> PageVisit:
    target = cdp.call("Target.createTarget", url="about:blank")["targetId"]
    session = cdp.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
    try:
        for domain in ("Page", "Runtime", "Log", "Network", "DOM", "CSS"):
            cdp.call(f"{domain}.enable", session)
        cdp.call("Emulation.setDeviceMetricsOverride", session, **VIEWPORT)
        cdp.events.clear()
        cdp.call("Page.navigate", session, url=page.as_uri())
        cdp.wait_for("Page.loadEventFired", session)
        evaluate = lambda expression: cdp.call(  # noqa: E731
            "Runtime.evaluate", session, expression=expression, returnByValue=True)["result"]["value"]
        images = evaluate(
            "Array.from(document.images).map(i => ({complete: i.complete, w: i.naturalWidth, h: i.naturalHeight}))"
        )
        scripts = evaluate("document.querySelectorAll('script').length")
        pre_text = evaluate("Array.from(document.querySelectorAll('pre')).map(p => p.textContent).join('\\n')")
        fonts: list[dict[str, Any]] = []
        if font_selector:
            root = cdp.call("DOM.getDocument", session)["root"]["nodeId"]
            node = cdp.call("DOM.querySelector", session, nodeId=root, selector=font_selector)["nodeId"]
            fonts = cdp.call("CSS.getPlatformFontsForNode", session, nodeId=node)["fonts"]
        size = cdp.call("Page.getLayoutMetrics", session)["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 6000), "scale": 1}
        shot = cdp.call("Page.captureScreenshot", session, format="png", captureBeyondViewport=True, clip=clip)
        events = [e for e in cdp.events if e.get("sessionId") == session]
    finally:
        cdp.call("Target.closeTarget", targetId=target)
    requests = [e["params"]["request"]["url"] for e in events if e.get("method") == "Network.requestWillBeSent"]
    errors = [json.dumps(e["params"])[:500] for e in events if _is_error(e)]
    return PageVisit(base64.b64decode(shot["data"]), images, requests, errors, scripts, pre_text, fonts)


def _is_error(event: dict[str, Any]) -> bool:
    method, params = event.get("method"), event.get("params", {})
    if method == "Runtime.exceptionThrown":
        return True
    if method == "Runtime.consoleAPICalled":
        return params.get("type") in ("error", "assert", "warning")
    if method == "Log.entryAdded":
        return params.get("entry", {}).get("level") in ("error", "warning")
    return False


def keep(screenshot: bytes, name: str, tmp_path: Path) -> Path:
    path = tmp_path / name
    path.write_bytes(screenshot)
    keep_dir = os.environ.get("ATTNKIT_SCREENSHOT_DIR")
    if keep_dir:
        Path(keep_dir).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(keep_dir) / name)
    return path


def assert_clean(visit_result: PageVisit, page: Path, expected_images: int) -> None:
    from PIL import Image

    pixels = np.asarray(Image.open(io.BytesIO(visit_result.screenshot)).convert("L"), dtype=np.float64)
    assert pixels.shape[0] > 300 and pixels.shape[1] >= 1000, f"screenshot is only {pixels.shape}"
    assert pixels.std() > 10, f"the screenshot of {page.name} looks blank (pixel std {pixels.std():.2f})"
    assert len(visit_result.images) == expected_images, visit_result.images
    assert all(i["complete"] and i["w"] > 0 and i["h"] > 0 for i in visit_result.images), visit_result.images
    assert visit_result.errors == [], visit_result.errors
    foreign = [u for u in visit_result.requests if u != page.as_uri() and not u.startswith("data:")]
    assert foreign == [], f"the page made requests: {foreign}"
    assert page.as_uri() in visit_result.requests  # the network log really was recorded
    assert visit_result.scripts == 0


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """An OUT folder per language, laid out like the grader's, with the report written over it."""
    outs = {}
    for lang in ("en", "zh"):
        out = tmp_path_factory.mktemp(f"out-{lang}")
        write_sample_out(out, lang)
        write_report(out, lang)
        outs[lang] = out
    return outs


@pytest.fixture(params=["en", "zh"])
def report(request: pytest.FixtureRequest, reports: dict[str, Path]) -> tuple[str, Path]:
    return request.param, reports[request.param]


def test_feedback_page_renders_heatmaps_cleanly(browser: Cdp, report: tuple[str, Path], tmp_path: Path) -> None:
    lang, out = report
    page = out / "bob" / "feedback.html"
    result = visit(browser, page, font_selector="h1")
    keep(result.screenshot, f"feedback-{lang}.png", tmp_path)
    assert_clean(result, page, expected_images=3)  # student, reference, difference
    assert all(i["w"] >= 400 for i in result.images), result.images
    assert SCRIPT in result.pre_text  # the student's <script> is shown as text, never run


def test_dashboard_renders_cleanly(browser: Cdp, report: tuple[str, Path], tmp_path: Path) -> None:
    lang, out = report
    page = out / "index.html"
    result = visit(browser, page, font_selector="h1")
    keep(result.screenshot, f"dashboard-{lang}.png", tmp_path)
    assert_clean(result, page, expected_images=1)  # the score histogram


def test_chinese_text_uses_a_cjk_font(browser: Cdp, reports: dict[str, Path]) -> None:
    fonts = visit(browser, reports["zh"] / "bob" / "feedback.html", font_selector="h1").fonts
    cjk = [f for f in fonts if any(word in f["familyName"] for word in CJK_FONT_WORDS) and f["glyphCount"] > 0]
    assert cjk, f"Chinese title drawn without a CJK font ({fonts}): apt-get install fonts-noto-cjk or fonts-wqy-zenhei"


def test_errored_submission_page_renders(browser: Cdp, report: tuple[str, Path], tmp_path: Path) -> None:
    lang, out = report
    page = out / "carol" / "feedback.html"
    result = visit(browser, page)
    keep(result.screenshot, f"feedback-error-{lang}.png", tmp_path)
    assert_clean(result, page, expected_images=0)
