"""A designer's visit to the page of `napsim app` in a real browser: Playwright drives Debian's
Chromium (/usr/bin/chromium; never a downloaded browser) against `napsim app --no-browser` on
tamames: balance the Spanish hand (the answer in whole settings first), balance the Guerrilla
counters 0..6 (no setting evens the sides: an answer with its chart, no error box), compare the
Spanish hand 6 -> 5 (the change of the gap between the sides first) and one game. No page text
at any step says `None`, `nan`, "Traceback" or names an issue number.

Its screenshots are the docs': `NAPSIM_VISIT_SHOTS=docs python -m pytest -m slow
tests/test_app_visit.py` writes docs/visit-*.png (otherwise into the test's temporary folder).
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
from test_app_browser import ARGS, CHROMIUM, server  # noqa: F401 - the napsim app server fixture

pytestmark = pytest.mark.slow

NOISE = re.compile(r"\bNone\b|\bnan\b|Traceback|\bissue\s+#?\d+", re.IGNORECASE)
LONG = 300_000  # ms: the first answer compiles the engine


def _clean(page, where: str) -> None:
    """No page text says None, nan, Traceback or an issue number; no error box anywhere."""
    text = page.locator("body").inner_text()
    bad = NOISE.findall(text)
    assert not bad, f"{where}: {bad}"
    assert page.locator('[data-testid="stAlertContentError"]').count() == 0, where
    assert page.locator('[data-testid="stException"]').count() == 0, where


def _pick(page, label: str, option: str) -> None:
    """Choose `option` in the select box labelled `label`."""
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text=label).first
    box.click()
    page.keyboard.type(option)  # a long list shows only the options in view: filter it first
    page.get_by_role("option", name=option, exact=True).first.click()
    time.sleep(0.8)


def _number(page, label: str, value) -> None:
    field = page.locator(f'input[aria-label="{label}"]').first
    field.fill(str(value))
    field.press("Enter")
    time.sleep(0.8)


def _tab(page, name: str):
    page.get_by_role("tab", name=name).click()
    return page.locator('[role="tabpanel"]:visible').first


def _shot(page, folder: Path, name: str) -> Path:
    path = folder / f"visit-{name}.png"
    time.sleep(1.5)  # the charts finish drawing
    page.screenshot(path=str(path), full_page=False)
    return path


def test_a_designers_visit_to_tamames(server, tmp_path):  # noqa: F811
    if not CHROMIUM.exists():
        pytest.skip("Chromium not installed at /usr/bin/chromium (apt-get install chromium; .ci/run does)")
    playwright = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
    folder = Path(os.environ.get("NAPSIM_VISIT_SHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    shots = []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1150})
            page.goto(server)
            page.locator('[data-testid="stMetricValue"]').first.wait_for(timeout=LONG)
            page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').first.click()
            page.get_by_role("option", name=re.compile(r"^tamames:")).click()
            page.get_by_text("Spanish: effective orders a turn").first.wait_for(timeout=LONG)
            page.get_by_text("20,000 games; seed").first.wait_for(timeout=LONG)
            _clean(page, "the answer")

            # balance the Spanish hand: the answer in whole settings comes first
            tab = _tab(page, "Balance")
            _pick(page, "Setting to vary", "Spanish · cards and counters · Command hand size")
            tab.get_by_role("button", name="Find the setting").click()
            answer = tab.get_by_text(re.compile(r"^With \d Spanish cards in hand the French lead by ")).first
            answer.wait_for(timeout=LONG)
            assert "the even point lies between, at 4." in answer.inner_text()
            tab.locator('[data-testid="stVegaLiteChart"], .vega-embed').first.wait_for(timeout=60_000)
            _clean(page, "balance the Spanish hand")
            shots.append(_shot(page, folder, "balance-hand"))

            # balance the counters 0..6: no setting evens the sides, an answer with its chart
            _pick(page, "Setting to vary", "Spanish · cards and counters · Guerrilla counters at the start")
            _number(page, "from", 0)
            _number(page, "to", 6)
            tab.get_by_role("button", name="Find the setting").click()
            none = tab.get_by_text(re.compile(r"^No number of Spanish Guerrilla counters at the start from 0 "
                                              r"to 6 evens tamames: the Spanish lead at every setting")).first
            none.wait_for(timeout=LONG)
            tab.locator('[data-testid="stVegaLiteChart"], .vega-embed').first.wait_for(timeout=60_000)
            _clean(page, "balance the counters")
            shots.append(_shot(page, folder, "balance-counters"))

            # compare the Spanish hand 6 -> 5: the change of the gap first
            tab = _tab(page, "Compare")
            tab.get_by_role("button", name="Keep as A").click()
            tab.get_by_text("A is the settings on screen").first.wait_for(timeout=60_000)
            page.locator('[data-testid="stSidebar"]').get_by_text("Spanish (sides.S)").click()
            spanish_hand = page.locator('input[aria-label="Command hand size"]').nth(1)
            spanish_hand.fill("5")
            spanish_hand.press("Enter")
            tab = _tab(page, "Compare")
            gap_text = re.compile(r"^The gap in effective orders a turn, Spanish minus French, goes from "
                                  r"\+0\.\d+ with A to \+0\.\d+ with B: a change of -0\.")
            gap = tab.get_by_text(gap_text).first
            gap.wait_for(timeout=LONG)
            text = tab.inner_text()
            assert text.index("The gap in effective orders a turn") < text.index("Each side's own change") \
                < text.index("instead of"), text
            _clean(page, "compare")
            shots.append(_shot(page, folder, "compare"))

            # one game: the trace in words, each turn folded; the jump opens turn 10
            tab = _tab(page, "One game")
            tab.get_by_text(re.compile(r"^turn 1\.1 ")).first.wait_for(timeout=LONG)
            box = page.locator('[data-testid="stSelectbox"]').filter(has_text="Jump to turn").first
            box.click()
            page.keyboard.type("turn 10.1")
            page.get_by_role("option", name=re.compile(r"^turn 10\.1")).first.click()
            top = tab.locator('[data-testid="stMarkdown"]').filter(has_text="turn 10.1")
            top.first.wait_for(timeout=60_000)
            time.sleep(1.0)
            text = tab.inner_text()  # the turn jumped to, at the top, before the folded turns
            assert text.index("turn 10.1") < text.index("turn 1.1") and "hand:" in text
            _clean(page, "one game")
            shots.append(_shot(page, folder, "one-game"))
        finally:
            browser.close()
    assert all(s.stat().st_size > 10_000 for s in shots)
