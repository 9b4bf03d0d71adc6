"""`napsim trace` in plain words: plurals, named play options, one-sentence Guerrilla rolls and the
end-of-game summary per side, which must match the game's metrics row (issue 19)."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from napsim.cli import cli
from napsim.engine import layout
from napsim.model.scenarios import load_scenario
from napsim.output.tracefmt import format_trace, plural
from napsim.sim.packing import Simulation

# one scenario of every format; tamames and epic3-tamames play the Guerrilla rules
SCENARIOS = {
    "standard": ("symmetric", {"scenario.format": "standard"}),
    "epic1": ("tamames", {}),
    "epic2": ("epic2-talavera", {}),
    "epic3": ("epic3-tamames", {}),
    "epic4": ("epic4-symmetric", {}),
    "lgb": ("lgb-symmetric", {}),
}
SEED = 1
GAMES = (0, 1, 2)


@pytest.fixture(scope="module")
def traces():
    """format -> (sim, [(game, metrics row, text)])."""
    out = {}
    for game_format, (name, changes) in SCENARIOS.items():
        sim = Simulation.build(load_scenario(name, changes))
        rows = []
        for g in GAMES:
            met, ev = sim.trace(SEED, g)
            rows.append((g, met, format_trace(sim, ev, SEED, g, met)))
        out[game_format] = (sim, rows)
    return out


def test_plural():
    assert plural(1, "unit") == "1 unit"
    assert plural(0, "unit") == "0 units"
    assert plural(2, "effective order") == "2 effective orders"
    assert plural(3, "man", "men") == "3 men"


SINGULAR_WRONG = re.compile(r"(?<![\d.])1 (units|orders|cards|counters|rolls|turns|effective orders"
                            r"|French effective orders)\b")


@pytest.mark.parametrize("game_format", list(SCENARIOS))
def test_counts_take_singular_and_plural(traces, game_format):
    _, rows = traces[game_format]
    seen_one = 0
    for _g, _met, text in rows:
        assert SINGULAR_WRONG.search(text) is None, SINGULAR_WRONG.search(text).group(0)
        seen_one += len(re.findall(r"(?<![\d.])1 (unit|order|card|counter|roll) ", text))
    if game_format in ("epic3", "epic4", "lgb"):
        assert seen_one > 0  # initiative rolls ordering one unit, orders of a Scout...


@pytest.mark.parametrize("game_format", list(SCENARIOS))
def test_no_raw_option_numbers(traces, game_format):
    _, rows = traces[game_format]
    for _g, _met, text in rows:
        assert re.search(r"option \d", text) is None
        assert "(none)" not in text  # a First Strike given in LGB says it gives no orders


def test_lgb_options_are_named(traces):
    _, rows = traces["lgb"]
    text = "\n".join(t for _g, _m, t in rows)
    assert re.search(r"its Center orders go to his (left|right) section [LCR][12] \(L4\)", text)
    assert re.search(r"the Center card orders in his (left|right) section [LCR][12]", text)
    # effective orders are named by section: "effective 3 in C1 + 1 in C2"
    assert re.search(r"effective \d+ in (?P<w>[LCR])1 \+ \d+ in (?P=w)2", text)


def test_guerrilla_roll_is_one_sentence(traces):
    for game_format in ("epic1", "epic3"):
        _, rows = traces[game_format]
        lines = [ln for _g, _m, t in rows for ln in t.splitlines() if "spends a counter" in ln]
        assert lines
        for ln in lines:
            assert ln.count("sabre") == 1 and ln.count(":") == 1  # "Guerrilla:" only
            assert ln.endswith(("the card is nullified", "the card is carried out"))
            assert re.search(r", worth \d+ effective orders?;", ln)


def _summary(text: str, side: str) -> str:
    tail = text.split("\nend of game: what each side did (from the game's metrics)\n", 1)[1]
    blocks = re.split(r"\n(?=  \S)", tail)
    return next(b for b in blocks if b.startswith(f"  {side} ("))


def _num(pattern: str, block: str) -> int:
    m = re.search(pattern, block)
    assert m, (pattern, block)
    return int(m.group(1))


@pytest.mark.parametrize("game_format", list(SCENARIOS))
def test_summary_matches_the_metrics_row(traces, game_format):
    sim, rows = traces[game_format]
    sc = sim.scenario
    M = {n: i for i, n in enumerate(layout.METRIC_NAMES)}
    for _g, met, text in rows:
        assert text.count("\nend of game:") == 1
        for s, side in enumerate(sc.sides):
            m = met[s]
            b = _summary(text, side.name)
            turns = int(m[M["turns"]])
            assert _num(r"\((\d+) turns?\)", b) == turns == sc.turns
            nom = int(m[layout.M_NOM:layout.M_NOM + 3].sum())
            eff = int(m[layout.M_EFF:layout.M_EFF + 3].sum())
            assert f"{nom} nominal ({nom / turns:.2f} a turn)" in b
            assert f"{eff} effective ({eff / turns:.2f} a turn)" in b
            assert "L/C/R " + "/".join(str(int(x)) for x in m[layout.M_EFF:layout.M_EFF + 3]) in b
            hand = int(m[M["hand_section"]:M["hand_other"] + 1].sum())
            rack = int(m[M["rack_section"]:M["rack_other"] + 1].sum())
            assert _num(r"(\d+) cards? from (?:the|his) hand", b) == hand
            if game_format == "standard":
                assert rack == 0 and "no Courier Rack" in b
            else:
                assert _num(r"(\d+) from the Courier Rack", b) == rack
            assert _num(r"Tactician cards: (\d+) drawn", b) == m[M["tactician_drawn"]]
            assert _num(r"(\d+) played, \d+ held", b) == m[M["tactician_played"]]
            assert _num(r"(\d+) held at the end\n", b + "\n") == m[M["tactician_held_end"]]
            if game_format in ("epic3", "epic4", "lgb"):
                assert _num(r"(\d+) units? ordered", b) == m[M["initiative_orders"]]
                assert _num(r"initiative: (\d+) rolls?", b) > 0
            else:
                assert "initiative" not in b
            if side.guerrilla_rule != "off":
                assert _num(r"(\d+) counters? spent", b) == m[M["g_spent"]]
                assert _num(r"(\d+) cards? nullified", b) == m[M["g_cards_nullified"]]
                assert _num(r"(\d+) French effective orders? denied", b) == m[M["g_denied_effective"]]
                assert _num(r"(\d+) stopped by a sabre", b) == m[M["g_stopped_by_sabre"]]
            foe = sc.sides[1 - s]
            if foe.guerrilla_rule != "off":
                assert _num(r"nullified (\d+) cards?", b) == met[1 - s, M["g_cards_nullified"]]


def test_cli_trace_ends_with_the_summary():
    r = CliRunner().invoke(cli, ["trace", "--scenario", "epic3-tamames", "--seed", "1", "--game", "0"])
    assert r.exit_code == 0, r.output
    tail = r.output.rstrip("\n").splitlines()[-13:]
    assert tail[0] == "end of game: what each side did (from the game's metrics)"
    assert tail[1] == "  French (30 turns):" and tail[7] == "  Spanish (30 turns):"
    assert sum(ln.startswith("    initiative: ") for ln in tail) == 2


@pytest.mark.parametrize("game_format", ["standard", "epic1", "epic2"])
def test_every_tactician_card_played_is_a_line_where_it_is_played(traces, game_format):
    """The count of Tactician cards never drops without a line saying a side played them, and the
    lines add up to the game's Tactician cards played (metrics row)."""
    sim, rows = traces[game_format]
    for _g, met, text in rows:
        for s, side in enumerate(sim.scenario.sides):
            said = re.findall(rf"  {side.name} plays (\d+) Tactician cards? as the turn begins", text)
            assert sum(map(int, said)) == int(met[s, layout.M_TAC_PLAYED])
