"""`python -m napsim.bench app`: how long the page of `napsim app` makes a designer wait.

Fifty scripted setting changes (each one a setting not seen before, across EPIC 1 and 3 a side and
La Grande Battles), warm (the kernels compiled first): for each, the time from the change to the
first numbers (the first batch played and its summary and findings ready to draw) and to the full
count (20,000 games by default), through the page's own path (`napsim.app.jobs.answer` on a
`KernelWorker`); then the same changes once more through Streamlit's AppTest, the whole page
script rerun to the full count. p50 and p95 of each; tests never assert timings.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from napsim import api
from napsim.app import jobs
from napsim.app.jobs import Settings
from napsim.app.worker import KernelWorker
from napsim.model.defaults import SEED
from napsim.model.scenarios import load_scenario

SCENARIOS = ("talavera-epic", "tamames", "symmetric", "epic3-tamames", "lgb-symmetric")


def changes(n: int) -> list[Settings]:
    """n different settings: a scenario and one side's hand size, then the other's."""
    out = []
    for i in range(n):
        name = SCENARIOS[i % len(SCENARIOS)]
        sc = load_scenario(name)
        a, b = (s.key for s in sc.sides)
        out.append(Settings(name, ((f"sides.{a}.hand", 4 + (i // len(SCENARIOS)) % 7),
                                   (f"sides.{b}.hand", 5 + (i // 35) % 3))))
    return out


def _pct(xs: list[float]) -> dict:
    xs = sorted(xs)
    p95 = xs[min(len(xs) - 1, int(0.95 * len(xs)))]
    return {"p50": round(statistics.median(xs), 3), "p95": round(p95, 3), "max": round(xs[-1], 3)}


def bench_worker(settings: list[Settings], games: int) -> tuple[dict, dict]:
    """(time to first numbers, time to the full count) over the changes, through the page's jobs."""
    w = KernelWorker("bench-app")
    first, full = [], []
    try:
        for s in settings:
            t0 = time.perf_counter()
            job = w.submit(("bench", "answer"), jobs.answer, s, games, SEED)
            while job.partial is None and not job.wait(0.002):
                pass
            quick = job.partial or job.result()
            quick.summary  # noqa: B018 - what the page draws first: the summary and its findings
            quick.findings()
            first.append(time.perf_counter() - t0)
            run = job.result()
            run.findings()
            full.append(time.perf_counter() - t0)
    finally:
        w.close()
    return _pct(first), _pct(full)


def bench_page(settings: list[Settings], games: int) -> dict:
    """The whole page script rerun to the full count (Streamlit's AppTest), per change."""
    from streamlit.testing.v1 import AppTest  # lazy: Streamlit is the optional app extra

    page = str(Path(__file__).parent / "app" / "page.py")
    times = []
    at = AppTest.from_file(page, default_timeout=300)
    at.session_state["games"] = games
    for s in settings:
        at.session_state["scenario"] = s.scenario
        for path, value in s.overrides:
            at.session_state[f"{s.scenario}|{path}"] = value
        jobs.ANSWERS.put((s, games, SEED), None)  # not from the cache: played again
        t0 = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - t0)
        assert not at.exception and at.metric, at.exception
    return _pct(times)


def bench_app(n: int = 50, games: int = jobs.GAMES) -> dict:
    """p50/p95 (seconds) of time to first numbers and to the full count over n setting changes."""
    settings = changes(n)
    for name in dict.fromkeys(s.scenario for s in settings):  # warm: compile (or load) each format
        api.simulate(name, games=1, seed=0)
    first, full = bench_worker(settings, games)
    out = {"bench": "app", "changes": n, "games": games, "first_batch": jobs.QUICK_GAMES,
           "first_numbers_s": first, "full_count_s": full}
    try:
        out["page_rerun_full_s"] = bench_page(changes(n), games)
    except ImportError:
        out["page_rerun_full_s"] = "streamlit not installed"
    return out
