"""In a notebook, napsim's answers show a short text and an HTML table (`_repr_html_`), never every
setting's per-game arrays or the simulations behind them."""

from __future__ import annotations

import napsim
from napsim.api import compare_run


def short_and_tabled(obj, *words: str) -> None:
    text = repr(obj)
    assert len(text) < 700 and "array(" not in text and "\n" not in text, text
    assert all(w in text for w in words), text
    page = obj._repr_html_()
    assert page.startswith("<p>") and "<table" in page and "array(" not in page


def test_simulated_shows_the_answer_and_the_headline_table():
    run = napsim.simulate("tamames", games=200)
    short_and_tabled(run, "Simulated tamames: 200 games", "the card flow is not balanced")
    assert "Effective orders a turn" in run._repr_html_()


def test_balance_shows_its_sentence_and_the_settings_played():
    res = napsim.balance("tamames", "sides.S.hand=4..6", equalize="F,S", games=200)
    short_and_tabled(res, "Balance of sides.S.hand (3 settings, 200 games each)",
                     "the even point lies between")


def test_a_comparison_shows_what_was_compared():
    cmp = compare_run("tamames", {}, {"sides.S.hand": 5}, games=200)
    short_and_tabled(cmp, "Comparison of B with A on 200 games", "paired")
