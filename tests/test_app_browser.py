"""The page of `napsim app` in a real browser (issue 29): Playwright drives Debian's Chromium
(/usr/bin/chromium; never a downloaded browser) against `napsim app --no-browser`: open the page,
change a hand size and read the updated headline, upload a broken scenario and read the error.

It takes the README's screenshot: `NAPSIM_SCREENSHOT=docs/app.png python -m pytest -m slow
tests/test_app_browser.py` writes it there (otherwise into the test's temporary folder).
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
HEADLINE = re.compile(r"effective orders a turn")

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path):
    pytest.importorskip("streamlit", reason="Streamlit is not installed (pip install -e \".[app]\")")
    port = _free_port()
    log = (tmp_path / "server.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "napsim", "app", "--no-browser", "--port", str(port)],
                            stdout=log, stderr=subprocess.STDOUT, cwd=tmp_path)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=1).read() == b"ok":
                    break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("the napsim app server did not start: " + (tmp_path / "server.log").read_text())
        yield url
    finally:
        proc.terminate()
        proc.wait(20)
        log.close()


def _headline(page) -> list[str]:
    """The headline numbers: each side's effective orders a turn, as the page shows them."""
    metrics = page.locator('[data-testid="stMetricValue"]')
    metrics.first.wait_for(timeout=240_000)
    return metrics.all_inner_texts()


def test_change_a_hand_size_and_upload_a_broken_scenario_in_chromium(server, tmp_path):
    if not CHROMIUM.exists():
        pytest.skip("Chromium not installed at /usr/bin/chromium (apt-get install chromium; .ci/run does)")
    playwright = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
    shot = Path(os.environ.get("NAPSIM_SCREENSHOT") or tmp_path / "app.png")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1150})
            page.goto(server)
            before = _headline(page)
            assert len(before) == 2 and all(re.fullmatch(r"\d+\.\d{3}", v) for v in before), before
            hand = page.locator('input[aria-label="Command hand size"]').first
            hand.fill("9")
            hand.press("Enter")
            page.wait_for_function(
                "old => { const v = [...document.querySelectorAll('[data-testid=\"stMetricValue\"]')]"
                ".map(e => e.innerText); return v.length == 2 && v.join() != old.join(); }",
                arg=before, timeout=60_000)
            page.get_by_text("20,000 games; seed").first.wait_for(timeout=60_000)  # the full count
            time.sleep(1.5)  # the charts finish drawing
            after = _headline(page)
            assert after != before and all(re.fullmatch(r"\d+\.\d{3}", v) for v in after), after
            shot.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(shot), full_page=False)
            # a broken scenario upload: napsim's one-line error, the page still there
            page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').first.click()
            page.get_by_role("option", name="(upload a file)").click()
            broken = {"name": "broken.toml", "mimeType": "application/toml", "buffer": b"[scenario\nname=1"}
            page.locator('input[type="file"]').first.set_input_files(files=[broken])
            error = page.locator('[data-testid="stAlertContentError"]').first
            error.wait_for(timeout=60_000)
            assert error.inner_text().startswith("broken.toml: not valid TOML")
        finally:
            browser.close()
    assert shot.stat().st_size > 10_000
