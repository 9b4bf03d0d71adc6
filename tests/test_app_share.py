"""A what-if shared by a link, in a real browser: Playwright drives Debian's Chromium
(/usr/bin/chromium; never a downloaded browser) against `napsim app --no-browser`: change three
settings of tamames, open the page's address in a new page, and read the same headline, bit for
bit; a stale link shows one line and the defaults.
"""

from __future__ import annotations

import re
import time
from urllib.parse import parse_qs, urlparse

import pytest
from test_app_browser import ARGS, CHROMIUM, server  # noqa: F401 - the napsim app server fixture

pytestmark = pytest.mark.slow

LONG = 300_000  # ms: the first answer compiles the engine


def _headline(page) -> list[str]:
    metrics = page.locator('[data-testid="stMetricValue"]')
    metrics.first.wait_for(timeout=LONG)
    return metrics.all_inner_texts()


def _number(page, label: str, value) -> None:
    field = page.locator(f'[data-testid="stSidebar"] input[aria-label="{label}"]').first
    field.fill(str(value))
    field.press("Enter")
    time.sleep(1.0)


def test_three_changed_settings_open_in_a_new_page_with_the_same_headline(server):  # noqa: F811
    if not CHROMIUM.exists():
        pytest.skip("Chromium not installed at /usr/bin/chromium (apt-get install chromium; .ci/run does)")
    playwright = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1150})
            page.goto(server)
            _headline(page)
            page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').first.click()
            page.get_by_role("option", name=re.compile(r"^tamames:")).click()
            page.get_by_text("Spanish: effective orders a turn").first.wait_for(timeout=LONG)
            _number(page, "Games", 4000)
            _number(page, "Turns a game, per side", 20)
            _number(page, "Command hand size", 5)   # the French hand (their box is open)
            page.get_by_text("4,000 games; seed").first.wait_for(timeout=LONG)
            time.sleep(2.0)
            before = _headline(page)
            url = page.url
            query = parse_qs(urlparse(url).query)
            assert query["scenario"] == ["tamames"] and query["games"] == ["4000"], url
            assert set(query["set"]) == {"scenario.turns=20", "sides.F.hand=5"}, url
            copied = page.locator('[data-testid="stSidebar"] [data-testid="stCode"]').filter(
                has_text="?v=1").first.inner_text()
            assert parse_qs(urlparse(copied.strip()).query) == query
            page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
            button = page.frame_locator('[data-testid="stSidebar"] iframe').first.get_by_role(
                "button", name="Copy link")
            button.click()
            button.page.wait_for_timeout(500)
            assert parse_qs(urlparse(page.evaluate("navigator.clipboard.readText()")).query) == query
            other = browser.new_page(viewport={"width": 1400, "height": 1150})
            other.goto(url)
            other.get_by_text("4,000 games; seed").first.wait_for(timeout=LONG)
            time.sleep(1.0)
            assert _headline(other) == before and all(re.fullmatch(r"\d+\.\d{3}", v) for v in before)
            assert other.locator('input[aria-label="Command hand size"]').first.input_value() == "5"
            # a stale link: one line, and the page's defaults
            stale = browser.new_page(viewport={"width": 1400, "height": 1150})
            stale.goto(f"{server}/?v=0&scenario=tamames")
            _headline(stale)
            warning = stale.get_by_text("This link cannot be opened").first
            warning.wait_for(timeout=60_000)
            assert "another version of napsim's page" in warning.inner_text()
        finally:
            browser.close()
