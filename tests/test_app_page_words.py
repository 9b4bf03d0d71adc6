"""The page's words through Streamlit's AppTest: no `None`, `nan`, "Traceback" or issue number in
any tab of any shipped scenario; help texts that say what a setting does in the game; the glossary;
the card-flow sentence wherever the sides are compared; the scenario box and the "Setting to vary"
list in the order a designer looks for them."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("streamlit", reason="Streamlit is not installed (pip install -e \".[app]\")")

from streamlit.testing.v1 import AppTest  # noqa: E402
from support.apppage import compile_kernels, open_page  # noqa: E402

from napsim.app import form  # noqa: E402
from napsim.model.glossary import CARD_FLOW, GLOSSARY, field_help  # noqa: E402
from napsim.model.scenarios import builtin_scenarios  # noqa: E402

GAMES = 400
# Python's None and nan as they print (a rule option's value "none" is a word of the game)
NOISE = re.compile(r"\bNone\b|\bnan\b|\bNaN\b|Traceback|\b[Ii]ssues?\s+#?\d+")


@pytest.fixture(scope="module", autouse=True)
def compiled():
    compile_kernels()


def page(scenario: str) -> AppTest:
    return open_page(scenario, GAMES, timeout=300)


def page_text(at: AppTest) -> str:
    """Every word the page shows: text elements, metrics, tables, widget labels and help, expanders."""
    parts = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "info", "warning", "error",
                 "success", "code", "text", "exception"):
        parts += [str(e.value) for e in getattr(at, kind)]
    parts += [f"{m.label} {m.value} {m.help or ''}" for m in at.metric]
    parts += [e.label for e in at.expander]
    for df in at.dataframe:
        parts.append(df.value.astype(str).to_csv(index=False))
    for kind in ("number_input", "selectbox", "text_input", "button"):
        parts += [f"{w.label} {w.help or ''}" for w in getattr(at, kind)]
    parts += [" ".join(map(str, s.options)) for s in at.selectbox]
    return "\n".join(parts)


@pytest.mark.parametrize("scenario", builtin_scenarios())
def test_no_tab_of_any_scenario_shows_none_nan_a_traceback_or_an_issue_number(scenario):
    at = page(scenario)
    at.button(key="keep_a").click().run()
    at.number_input(key="games").set_value(GAMES + 100).run()  # B: more games, same settings ...
    hand = next(w for w in at.number_input if w.key.endswith(".hand"))
    hand.set_value(int(hand.value) + 1).run()                  # ... and one card more in hand
    at.number_input(key="games").set_value(GAMES).run()
    at.number_input(key="bal_games").set_value(GAMES)
    at.button(key="bal_go").click().run()
    assert not at.exception, at.exception
    text = page_text(at)
    assert "B - A" in text and "turn 1.1" in text      # compare and one game were shown
    found = sorted({m.group(0) for m in NOISE.finditer(text)})
    assert found == [], [text[max(0, m.start() - 80):m.end() + 80] for m in NOISE.finditer(text)][:5]


def test_help_texts_say_what_a_setting_does_in_the_game_and_the_glossary_is_on_the_page():
    at = page("tamames")
    hand = at.number_input(key="tamames|sides.S.hand")
    assert hand.help == field_help("sides.S.hand") and "draws back up" in hand.help
    units = at.number_input(key="tamames|sides.S.sections.L.infantry")
    assert "effective" in units.help and units.help != units.label
    metric = at.metric[0]
    assert metric.help == dict(GLOSSARY)["Effective orders a turn"]
    glossary = next(m.value for m in at.markdown if "**Card flow**" in m.value)
    assert all(f"**{term}**" in glossary for term, _ in GLOSSARY)


def test_the_answer_compare_and_balance_say_card_flow_not_the_chance_of_winning():
    at = page("tamames")
    captions = [c.value for c in at.caption]
    assert CARD_FLOW in captions  # under the findings
    findings = next(m.value for m in at.markdown if "card flow is" in m.value)
    assert findings.startswith("- The Spanish side gets ")
    assert "more effective orders a turn than the French" in findings


def test_typing_tamames_offers_tamames_first_and_settings_to_vary_are_grouped():
    names = [n for n, _ in form.scenario_choices()]
    assert [n for n in names if "tamames" in n][0] == "tamames"
    at = page("tamames")
    options = at.selectbox(key="bal_path").options
    labels = list(options)
    assert labels[0].startswith("Scenario · ")
    french = [i for i, o in enumerate(labels) if o.startswith("French · ")]
    spanish = [i for i, o in enumerate(labels) if o.startswith("Spanish · ")]
    assert french and spanish and max(french) < min(spanish)
    kinds = [o.split(" · ")[1] for o in labels if o.startswith("Spanish · ")]
    assert kinds == sorted(kinds, key=lambda k: k != "cards and counters")  # cards, then units
    assert "Spanish · cards and counters · Command hand size" in labels
