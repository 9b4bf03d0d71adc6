"""The page of `napsim app` under Streamlit's AppTest, shared by the page's test files."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

import napsim

PAGE = Path(napsim.__file__).parent / "app" / "page.py"


def compile_kernels(*scenarios: str) -> None:
    """The kernels compiled before the first page run (AppTest runs time out otherwise)."""
    for scenario in scenarios or ("symmetric", "lgb-symmetric"):
        napsim.simulate(scenario, games=1, seed=0)


def open_page(scenario: str, games: int, timeout: int = 120) -> AppTest:
    """The page on `scenario` with `games` a run, after its first run, which raised nothing."""
    at = AppTest.from_file(str(PAGE), default_timeout=timeout)
    at.session_state["games"] = games
    at.session_state["scenario"] = scenario
    at.run()
    assert not at.exception, at.exception
    return at
