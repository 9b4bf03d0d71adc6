"""The kernels' contract over every format (issue 3, item 6; DESIGN.md, Tests), one test
parametrised as pgx does: the standard game, EPIC with 1, 2, 3 and 4 players a side and La Grande
Battles, on every shipped scenario, 2,000 games (10,000 under -m slow) of random legal play (and
greedy play on three of them) with the kernel's own recount of every card after every turn
(check=True): cards conserved across draw pile, discards, hands, rack and Square Track; the rack
cycle; hand sizes and turn counts; no negative counter; Tactician cards per game and per commander
where the format has several. Then identical results for any chunk size and thread count, and the
first turn's E4 frequency against its exact law (napsim.sim.odds).
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
from support.decks import write_deck
from support.sizes import quick_and_full
from support.threads import thread_counts
from support.tracetools import M

from napsim.engine import layout
from napsim.model.cards import load_deck
from napsim.model.scenarios import builtin_scenarios, load_scenario
from napsim.sim import odds
from napsim.sim.odds import section_flags
from napsim.sim.packing import FORMAT_PLAYERS, Simulation, commander_config

GAMES = 10_000
RANDOM = (("random", {}), ("random", {}))
GREEDY = (("greedy", {}), ("random", {}))


# every shipped scenario, the standard game, and the formats study's armies in every EPIC format
# ("scenario:format" overrides its format), under random play; three of them under greedy play too
CONTRACT = ["symmetric", "tamames", "talavera-epic", "standard", "epic2-talavera", "epic3-tamames",
            "epic4-symmetric", "formats-armies", "formats-armies:epic2", "formats-armies:epic3",
            "formats-armies:epic4", "lgb-symmetric"]
CASES = [(n, "random") for n in CONTRACT] + [(n, "greedy") for n in ("tamames", "talavera-epic",
                                                                      "lgb-symmetric")]


def _scenario(name: str):
    if name == "standard":
        sc = load_scenario("symmetric", overrides={"scenario.format": "standard",
                                                   "scenario.deck": "ccn70"})
        return sc, "ccn70"
    name, _, game_format = name.partition(":")
    sc = load_scenario(name, overrides={"scenario.format": game_format} if game_format else None)
    return sc, sc.deck


def _cols(rows: np.ndarray, first: str, last: str) -> np.ndarray:
    return rows[:, :, M[first]:M[last] + 1]


def expected_picks(sc) -> np.ndarray:
    """[side, rack size] picks per game of the 5-4-3-2-refill cycle with two sides alternating."""
    out = np.zeros((2, 6), np.int64)
    for ply in range(2 * sc.turns):
        out[(sc.first + ply) % 2, 5 - ply % 3] += 1
    return out


def test_every_shipped_scenario_is_covered():
    shipped = ["epic2-talavera", "epic3-tamames", "epic4-symmetric", "formats-armies",
               "lgb-symmetric", "symmetric", "talavera-epic", "tamames"]
    assert builtin_scenarios() == shipped
    covered = {n.partition(":")[0] for n in CONTRACT if n != "standard"}
    assert covered == set(shipped)
    formats = {_scenario(n)[0].format for n, _ in CASES}
    assert formats == set(FORMAT_PLAYERS) == {"standard", "epic1", "epic2", "epic3", "epic4",
                                              "lgb"}


@pytest.mark.parametrize("games", quick_and_full(2000, GAMES))
@pytest.mark.parametrize("name, policy", CASES, ids=[f"{n}-{p}" for n, p in CASES])
def test_random_play_contract(name, policy, games):
    # rule D6, rule D7, rule E2, rule E9.6, rule E10, rule E11, rule E12, rule M4, rule M6.3,
    # rule M8.2, rule L1, rule L2, rule L9, rule D4: invariants over many games of legal play
    sc, deck = _scenario(name)
    sim = Simulation.build(sc, RANDOM if policy == "random" else GREEDY, deck=deck)
    assert sim.deck.name == deck
    res = sim.run(games, seed=31, check=True, per_game=True)
    rows = res.per_game  # [game, side, metric]
    assert rows.shape == (games, 2, layout.N_METRICS)
    assert (rows >= 0).all()  # every count, Tactician counts included, is never negative
    # every card in exactly one place after every turn; hand + squares = starting hand
    assert rows[:, :, M["invariant_violations"]].sum() == 0
    turns = rows[:, :, M["turns"]]
    assert (turns == sc.turns).all()
    starved = rows[:, :, M["starved_draws"]].sum(axis=1)
    assert starved.sum() == 0  # shipped decks are large enough
    hand = _cols(rows, "hand_section", "hand_other").sum(axis=2)
    rack = _cols(rows, "rack_section", "rack_other").sum(axis=2)
    picks = _cols(rows, "pick_from_0", "pick_from_5")
    assert (hand == turns).all()
    if sc.format == "standard":
        assert (rack == 0).all() and (picks == 0).all()
        assert rows[:, :, M["refills"]].sum() == 0
        assert rows[:, :, M["same_section_turns"]].sum() == 0
    else:
        # E2/E3: a rack card every turn, unless no legal pair exists (rare: a Counter-Attack
        # whose copied tactic card must go to the one section every other card names, D8)
        assert (rack <= turns).all() and (turns - rack).sum() <= 1e-4 * turns.sum()
        ok = (starved == 0) & (rack == turns).all(axis=1)  # every turn took a rack card
        assert (picks[ok][:, :, :3] == 0).all()  # never a pick from 2, 1 or 0
        assert (picks[ok] == expected_picks(sc)).all()  # 5-4-3-refill, sides alternating
        assert (rows[ok][:, :, M["refills"]].sum(axis=1) == (2 * sc.turns) // 3).all()
    # Tactician cards: start + drawn - played = held at the end, and never below zero
    tac0 = np.array([s.tactician for s in sc.sides])
    if sc.format == "lgb":
        tac0 = np.array([sum(s.corps_tactician) for s in sc.sides])
        _lgb_commander_contract(sc, rows, res.commander_rows)
    elif FORMAT_PLAYERS[sc.format] >= 2:
        tac0 = commander_config(sc)[1].sum(axis=1)  # M6.3 / M8.2: one more for each holder
        _commander_contract(sc, rows, res.commander_rows)
    if res.sim.deck.tactician_deck == 0:  # rule D4: no Tactician deck, none dealt or drawn
        tac0 = tac0 * 0
        assert rows[:, :, M["tactician_drawn"]].sum() == rows[:, :, M["tactician_starved"]].sum() == 0
    held = rows[:, :, M["tactician_held_end"]]
    assert (held == tac0 + rows[:, :, M["tactician_drawn"]]
            - rows[:, :, M["tactician_played"]]).all()
    assert (held >= 0).all() and (held.sum(axis=1) <= 50).all()
    # orders: effective never above nominal in total; wasted is the difference
    nom = _cols(rows, "nominal_L", "nominal_R").sum(axis=2)
    eff = _cols(rows, "effective_L", "effective_R").sum(axis=2)
    assert (rows[:, :, M["wasted"]] == nom - eff).all() and (eff <= nom).all()
    assert (rows[:, :, M["scout_draws"]] <= turns).all()
    assert (rows[:, :, M["same_section_used"]] <= rows[:, :, M["same_section_turns"]]).all()
    if any(s.square_form > 0 for s in sc.sides):
        assert rows[:, :, M["squares_formed"]].sum() > 0
    assert res.rack_wait.sum() == (0 if sc.format == "standard" else rack.sum())


def _commander_contract(sc, rows: np.ndarray, crows: np.ndarray):
    """Per-commander rows of EPIC with 2-4 players a side agree with the side's rows."""
    n = FORMAT_PLAYERS[sc.format]
    assert crows.shape == (rows.shape[0], 2, 4, layout.N_CM) and (crows >= 0).all()
    turns = rows[:, :, M["turns"]]
    in_play = [0, 1] if n == 2 else ([0, 1, 2] if n == 3 else [1, 2, 3])
    holders = [0] if n == 2 else in_play  # M4: the epic2 CIC holds every Tactician card
    for c in range(4):
        x = crows[:, :, c]
        assert (x[:, :, layout.CM_TURNS] == (turns if c in in_play else 0)).all(), c
        if c not in holders:
            assert (x[:, :, layout.CM_TAC_DRAWN] == 0).all() and (x[:, :, layout.CM_TAC_HELD_END] == 0).all()
    tac_start = commander_config(sc)[1]
    held = crows[:, :, :, layout.CM_TAC_HELD_END]
    drawn, played = crows[:, :, :, layout.CM_TAC_DRAWN], crows[:, :, :, layout.CM_TAC_PLAYED]
    assert (held == tac_start + drawn - played).all()
    for slot, metric in ((layout.CM_TAC_DRAWN, "tactician_drawn"),
                         (layout.CM_TAC_PLAYED, "tactician_played"),
                         (layout.CM_TAC_HELD_END, "tactician_held_end")):
        assert (crows[:, :, :, slot].sum(axis=2) == rows[:, :, M[metric]]).all(), metric
    # every order of the turn's cards is some commander's (initiative orders come on top)
    nom = _cols(rows, "nominal_L", "nominal_R").sum(axis=2)
    eff = _cols(rows, "effective_L", "effective_R").sum(axis=2)
    assert (crows[:, :, :, layout.CM_NOM].sum(axis=2) == nom).all()
    assert (crows[:, :, :, layout.CM_EFF].sum(axis=2) == eff).all()
    # M6.2 / M8.2: dice only for a commander without a card; a double draws a Tactician card
    x = crows.sum(axis=(0, 1, 2))
    assert (crows[..., layout.CM_INIT] <= crows[..., layout.CM_NO_CARD]).all()
    assert (crows[..., layout.CM_NO_CARD] <= crows[..., layout.CM_TURNS]).all()
    assert x[layout.CM_FACE:layout.CM_FACE + 5].sum() == 2 * x[layout.CM_INIT]
    assert x[layout.CM_INIT_TAC] == x[layout.CM_DOUBLES] and x[layout.CM_TWO_SABRES] <= x[layout.CM_DOUBLES]
    init_out = x[layout.CM_INIT_ORDERED] + x[layout.CM_INIT_MARCH] + x[layout.CM_INIT_MELEE]
    assert init_out <= 2 * x[layout.CM_INIT]
    if n == 2:
        assert x[layout.CM_INIT] == 0  # M4: the sub-commander never rolls
        assert (crows[:, :, 0, layout.CM_PASSED] == crows[:, :, 1, layout.CM_RECEIVED]).all()
    else:
        assert x[layout.CM_INIT] > 0 and x[layout.CM_PASSED] == 0
        # M6.1 / M8.1: the two cards of a turn reach at most two commanders
        assert (crows[:, :, :, layout.CM_RECEIVED].sum(axis=2) <= 2 * turns).all()
    if n == 3:
        assert (crows[:, :, 0, layout.CM_KEEP] + crows[:, :, 0, layout.CM_GIVE_BOTH] <= turns).all()


def _lgb_commander_contract(sc, rows: np.ndarray, crows: np.ndarray):
    """La Grande Battles: every Corps commander plays every turn; his Tactician cards are dealt +
    drawn - played; his effective orders are those of his two sections."""
    assert crows.shape == (rows.shape[0], 2, 4, layout.N_CM) and (crows >= 0).all()
    assert (crows[:, :, 1:, layout.CM_TURNS] == sc.turns).all()
    tac0 = np.array([s.corps_tactician for s in sc.sides])[None]
    held = crows[:, :, 1:, layout.CM_TAC_HELD_END]
    assert (held == tac0 + crows[:, :, 1:, layout.CM_TAC_DRAWN]
            - crows[:, :, 1:, layout.CM_TAC_PLAYED]).all()
    assert (held.sum(axis=(1, 2)) <= layout.TACTICIAN_DECK).all()
    assert (crows[:, :, 1:, layout.CM_EFF] == crows[:, :, 1:, layout.CM_EFF_A]
            + crows[:, :, 1:, layout.CM_EFF_A + 1]).all()


@pytest.mark.parametrize("games", quick_and_full(4000, GAMES))
def test_same_totals_for_any_chunk_size_and_thread_count(restore_threads, games):
    sim = Simulation.build("tamames", (("greedy", {}), ("random", {})))
    results = {}
    threads = thread_counts()
    for t in threads:
        numba.set_num_threads(t)
        for chunk in (1000, 3333, games):
            results[t, chunk] = sim.run(games, seed=33, chunk=chunk, per_game=True, check=True)
    ref = results[threads[0], games]
    assert ref.metric("turns").tolist() == [games * 30] * 2
    for key, r in results.items():
        assert np.array_equal(r.totals, ref.totals), key
        assert np.array_equal(r.per_game, ref.per_game), key
        assert np.array_equal(r.rack_wait, ref.rack_wait), key
    other = sim.run(2000, seed=34)
    assert not np.array_equal(other.totals, sim.run(2000, seed=33).totals)


@pytest.mark.parametrize("games", quick_and_full(4000, GAMES))
def test_epic3_same_results_for_any_chunk_size_and_thread_count(restore_threads, games):
    # rule D6 (determinism) for the commander layer: epic3-tamames, greedy against random, with
    # Guerrilla counters by section commander, initiative rolls and Tactician cards per commander
    sim = Simulation.build("epic3-tamames", (("greedy", {}), ("random", {})))
    threads = thread_counts()
    out = {}
    for t in threads:
        numba.set_num_threads(t)
        for chunk in (1000, 3333, games):
            if t == threads[0] or chunk == games:
                out[t, chunk] = sim.run(games, seed=37, chunk=chunk, per_game=True, check=True)
    ref = out[threads[-1], games]
    assert len(out) == 2 + len(threads)
    assert ref.metric("invariant_violations").tolist() == [0, 0]
    assert ref.commanders[:, :3, layout.CM_INIT].min() > 0 and ref.metric("g_spent")[1] > 0
    for key, r in out.items():
        for name in ("totals", "per_game", "commanders", "commander_rows", "rack_wait",
                     "guerrilla_turns", "tactician_turns"):
            assert np.array_equal(getattr(r, name), getattr(ref, name)), (key, name)
    other = sim.run(2000, seed=38)
    assert not np.array_equal(other.commanders, sim.run(2000, seed=37).commanders)


def test_epic2_turns_ended_by_the_guerrillas_are_counted():
    # rule M4, rule G1: under the base rule a nullified French turn ends at once; it is still a
    # turn of both French commanders
    sc = load_scenario("epic2-talavera", overrides={"sides.A.guerrilla_rule": "base"})
    res = Simulation.build(sc).run(1000, seed=39, check=True, per_game=True)
    assert res.metric("g_cards_nullified")[1] > 1000
    assert res.metric("invariant_violations").tolist() == [0, 0]
    assert (res.commander_rows[:, :, :2, layout.CM_TURNS] == sc.turns).all()


def test_one_and_two_threads_identical(restore_threads):
    sim = Simulation.build("talavera-epic", RANDOM)
    out = []
    for t in thread_counts():
        numba.set_num_threads(t)
        out.append(sim.run(GAMES, seed=35, check=True))
    assert np.array_equal(out[0].totals, out[1].totals)
    assert np.array_equal(out[0].rack_wait, out[1].rack_wait)


def test_first_turn_e4_rate_equals_exact(tmp_path):
    # rule E4: the first mover's first turn sees a 2-card hand and a 5-card rack from a fresh deck
    left = {"Probe Left": 10, "Attack Left": 6, "Scout Left": 2, "Assault Left": 2}
    other = {"Probe Center": 3, "Attack Right": 3, "Flank Attack": 2, "Bayonet Charge": 2}
    path = write_deck(tmp_path / "e4.csv", {**left, **other})
    deck = load_deck(path)
    assert deck.n_cards == 30
    hand = 2
    dist = odds.hand_value_distribution(deck.counts, section_flags(deck), hand + 5,
                                         odds.COMBINE_OR)
    p = float(sum(dist.get(f, 0) for f in (1, 2, 4)))
    assert 0.03 < p < 0.05
    sc = load_scenario("symmetric", overrides={"scenario.turns": 1, "sides.A.hand": hand,
                                               "sides.B.hand": hand})
    sim = Simulation.build(sc, RANDOM, deck=deck)
    n = 80_000
    res = sim.run(n, seed=36, per_game=True)
    first = res.per_game[:, sc.first, M["same_section_turns"]]
    assert set(np.unique(first).tolist()) <= {0, 1}
    assert (res.per_game[:, :, M["turns"]] == 1).all()
    rate = first.mean()
    se = np.sqrt(p * (1 - p) / n)
    assert abs(rate - p) <= 4 * se, (rate, p, se)
