"""The feedback page and the class dashboard in real headless Chromium, driven by Playwright.

Playwright drives the system Chromium (`executable_path`; no browser download). Each page is
opened from file://, screenshotted, and checked: not blank, every <img> decoded, no console errors
or exceptions, no request but the page itself and data: URIs, no <script> elements (student output
stays text), and Chinese text drawn with a real CJK font (read over a DevTools session).
Set ATTNKIT_SCREENSHOT_DIR to keep the screenshots.
"""
from __future__ import annotations

import io
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from autograder.feedback.report import write_report
from sample_results import SCRIPT, write_sample_out

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = os.environ.get("ATTNKIT_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking", "--disable-component-update"]
CJK_FONT_WORDS = ("CJK", "WenQuanYi", "Source Han", "Droid Sans Fallback", "PingFang", "YaHei", "Hei")
VIEWPORT = {"width": 1200, "height": 900}
MAX_SHOT_HEIGHT = 6000

if not Path(CHROMIUM).exists():
    pytest.skip(f"headless Chromium not found at {CHROMIUM}: apt-get install chromium", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is needed: pip install -e '.[test]'")


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
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            yield chromium
        finally:
            chromium.close()


def visit(browser: Any, page_path: Path, *, font_selector: str | None = None) -> PageVisit:
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1)
    try:
        page = context.new_page()
        requests: list[str] = []
        errors: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        page.on("requestfailed", lambda request: errors.append(f"request failed: {request.url}"))
        page.on("pageerror", lambda error: errors.append(f"exception: {error}"))
        page.on("console", lambda message: errors.append(f"console {message.type}: {message.text}"[:500]) if message.type in ("error", "assert", "warning") else None)
        page.goto(page_path.as_uri(), wait_until="load")
        images = page.evaluate(
            "Array.from(document.images).map(i => ({complete: i.complete, w: i.naturalWidth, h: i.naturalHeight}))"
        )
        scripts = page.evaluate("document.querySelectorAll('script').length")
        pre_text = page.evaluate("Array.from(document.querySelectorAll('pre')).map(p => p.textContent).join('\\n')")
        fonts: list[dict[str, Any]] = []
        if font_selector:
            cdp = context.new_cdp_session(page)
            cdp.send("DOM.enable")
            cdp.send("CSS.enable")
            root = cdp.send("DOM.getDocument")["root"]["nodeId"]
            node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": font_selector})["nodeId"]
            fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
        width, height = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
        shot = page.screenshot(full_page=True, clip={"x": 0, "y": 0, "width": width, "height": min(height, MAX_SHOT_HEIGHT)})
    finally:
        context.close()
    return PageVisit(shot, images, requests, errors, scripts, pre_text, fonts)


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


def test_feedback_page_renders_heatmaps_cleanly(browser: Any, report: tuple[str, Path], tmp_path: Path) -> None:
    lang, out = report
    page = out / "bob" / "feedback.html"
    result = visit(browser, page, font_selector="h1")
    keep(result.screenshot, f"feedback-{lang}.png", tmp_path)
    assert_clean(result, page, expected_images=3)  # student, reference, difference
    assert all(i["w"] >= 400 for i in result.images), result.images
    assert SCRIPT in result.pre_text  # the student's <script> is shown as text, never run


def test_dashboard_renders_cleanly(browser: Any, report: tuple[str, Path], tmp_path: Path) -> None:
    lang, out = report
    page = out / "index.html"
    result = visit(browser, page, font_selector="h1")
    keep(result.screenshot, f"dashboard-{lang}.png", tmp_path)
    assert_clean(result, page, expected_images=1)  # the score histogram


def test_chinese_text_uses_a_cjk_font(browser: Any, reports: dict[str, Path]) -> None:
    fonts = visit(browser, reports["zh"] / "bob" / "feedback.html", font_selector="h1").fonts
    cjk = [f for f in fonts if any(word in f["familyName"] for word in CJK_FONT_WORDS) and f["glyphCount"] > 0]
    assert cjk, f"Chinese title drawn without a CJK font ({fonts}): apt-get install fonts-noto-cjk or fonts-wqy-zenhei"


def test_errored_submission_page_renders(browser: Any, report: tuple[str, Path], tmp_path: Path) -> None:
    lang, out = report
    page = out / "carol" / "feedback.html"
    result = visit(browser, page)
    keep(result.screenshot, f"feedback-error-{lang}.png", tmp_path)
    assert_clean(result, page, expected_images=0)
