"""Spanish Guerrilla Action (docs/rules.md G1-G7, P4, P5; issue 4): one test or more per rule ID.

Whole games of the tamames scenario (Spanish side S with the guerrilla rule, French side F) and
variants of it (dotted scenario overrides, custom decks written to tmp_path) are checked through
their summed and per-game metrics and through the event log of `Simulation.trace`: EV_G_ATTEMPT
(side = the Spanish; target 0 hand card, 1 rack card, 2 the whole turn; target section; the
target's own effective orders; the die; the outcome) and EV_G_GAIN (section, pool left).
"""

from __future__ import annotations

import csv
import io
import math
import tomllib
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from support.cli import napsim_main, run_napsim
from support.tomlwrite import dump_toml
from support.tracetools import CODE, PLY, SIDE, A, B, C, D, E, F, G, H, M, by_ply, one, rows_of  # noqa: F401

from napsim.engine import layout
from napsim.model.cards import DECK_DIR
from napsim.model.deck_ranges import RANGE_COLUMNS
from napsim.model.scenarios import SCENARIO_DIR, load_scenario
from napsim.output.tracefmt import DIE_FACES, format_trace
from napsim.sim.metric_table import METRICS
from napsim.sim.packing import Simulation
from napsim.sim.tables import KIND_PLACED, KIND_SECTION

FRENCH, SPANISH = 0, 1  # tamames: [sides.F] then [sides.S]; the French move first
SEED = 4242
REPO = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------------------------------------
# helpers


def _key(d: dict | None) -> tuple:
    return tuple(sorted((d or {}).items()))


@cache
def _sim(overrides: tuple, spanish_policy: tuple, french_policy: tuple, deck: str | None,
         spanish_kind: str) -> Simulation:
    sc = load_scenario("tamames", dict(overrides))
    assert [s.key for s in sc.sides] == ["F", "S"] and sc.sides[FRENCH].french
    return Simulation.build(sc, (("greedy", dict(french_policy)), (spanish_kind, dict(spanish_policy))),
                            deck)


def sim_for(overrides: dict | None = None, spanish: dict | None = None, french: dict | None = None,
            deck: str | None = None, spanish_kind: str = "greedy") -> Simulation:
    """tamames with dotted scenario overrides and policy parameters per side (cached builds)."""
    return _sim(_key(overrides), _key(spanish), _key(french), deck, spanish_kind)


def write_deck(path, counts: dict[str, int]) -> str:
    """A deck file in the gmt90.csv format whose rows are gmt90 rows with new counts."""
    text = (DECK_DIR / "gmt90.csv").read_text(encoding="utf-8")
    reader = csv.DictReader(io.StringIO("\n".join(ln for ln in text.splitlines()
                                                  if not ln.startswith("#"))))
    rows = {r["name"]: r for r in reader}
    buf = io.StringIO()
    buf.write(f"# title: test deck {path.stem}\n# total: {sum(counts.values())}\n")
    w = csv.DictWriter(buf, fieldnames=reader.fieldnames, lineterminator="\n")
    w.writeheader()
    for name, n in counts.items():
        w.writerow(dict(rows[name], count=str(n), **{c: "" for c in RANGE_COLUMNS if c in rows[name]}))
    path.write_text(buf.getvalue(), encoding="utf-8")
    return str(path)




def write_scenario(path, changes: dict) -> str:
    """tamames.toml with dotted changes, written to `path` (not validated)."""
    data = tomllib.loads((SCENARIO_DIR / "tamames.toml").read_text(encoding="utf-8"))
    for dotted, value in changes.items():
        *head, last = dotted.split(".")
        node = data
        for k in head:
            node = node[k]
        node[last] = value
    path.write_text(dump_toml(data), encoding="utf-8")
    return str(path)


def traces(sim: Simulation, games: int, seed: int = SEED):
    for g in range(games):
        yield sim.trace(seed, g)[1]





def attempts(sim: Simulation, games: int, seed: int = SEED):
    """(attempt row, choice row, turn row) of every EV_G_ATTEMPT in `games` traced games."""
    out = []
    for ev in traces(sim, games, seed):
        for rows in by_ply(ev).values():
            for att in rows_of(rows, layout.EV_G_ATTEMPT):
                out.append((att, one(rows, layout.EV_CHOICE), one(rows, layout.EV_TURN)))
    return out


def target_card(att: np.ndarray, choice: np.ndarray) -> tuple[int, int]:
    """(card type as played, placement) the attempt targeted (EV_CHOICE a-f: ta tb pa pb ra rb)."""
    return (int(choice[E]), int(choice[C])) if att[A] == 0 else (int(choice[F]), int(choice[D]))


def own_effective(sim: Simulation, att, choice, turn) -> int:
    """Effective orders the targeted card gives (the pair's minus those of the other card alone)."""
    t = sim.tables
    s = int(choice[SIDE])
    c = min(int(turn[A]), t.eff.shape[1] - 1)
    ra, rb, pa, pb = int(choice[E]), int(choice[F]), int(choice[C]), int(choice[D])
    void = sim.cards.void
    full = int(t.eff[s, c, ra, rb, 3 * pa + pb].sum())
    rest = t.eff[s, c, void, rb, pb] if att[A] == 0 else t.eff[s, c, ra, void, 3 * pa]
    return full - int(rest.sum())


def placed_section(sim: Simulation, card: int, p: int) -> int:
    k = sim.cards.kind[card]
    return int(sim.cards.sec[card]) if k == KIND_SECTION else (p if k == KIND_PLACED else -1)


# ---------------------------------------------------------------------------------------------
# G1: the die, the pool, conservation


def test_g1_attempt_success_rate_is_five_sixths():
    # rule G1: a sabre (1 face in 6) stops the guerrillas; otherwise the card is nullified
    sim = sim_for({"sides.S.guerrilla": 9, "scenario.guerrilla_pool": 0})
    games = 4000
    res = sim.run(games, SEED)
    spent = int(res.metric("g_spent")[SPANISH])
    sabre = int(res.metric("g_stopped_by_sabre")[SPANISH])
    assert spent > 20_000
    p = 5 / 6
    success = (spent - sabre) / spent
    assert abs(success - p) < 4 * math.sqrt(p * (1 - p) / spent), (success, spent)
    # rule G7: under the EPIC rule one card per successful attempt; the per-turn histogram adds up
    assert res.metric("g_cards_nullified")[SPANISH] == spent - sabre
    gt = res.guerrilla_turns
    assert gt.shape == (3, sim.scenario.turns)
    assert gt[0].sum() == res.metric("g_offered")[SPANISH]
    assert gt[1].sum() == spent and gt[2].sum() == spent - sabre
    assert res.metric("g_french_turns").tolist() == [0, games * sim.scenario.turns]
    # in the event log the outcome is read off the die: face 5 (sabre) stops, any other nullifies
    seen = set()
    for att, _, _ in attempts(sim, 10):
        if att[E] != layout.G_OUT_DECLINED:
            assert (att[D] == 5) == (att[E] == layout.G_OUT_SABRE)
            seen.add(int(att[E]))
    assert seen == {layout.G_OUT_SABRE, layout.G_OUT_NULLIFIED}


@pytest.mark.parametrize("config", [
    {},
    {"sides.S.guerrilla": 9, "scenario.guerrilla_pool": 0},
    {"sides.S.guerrilla": 0, "scenario.guerrilla_pool": 0},
    {"sides.S.guerrilla": 1, "scenario.guerrilla_pool": 1, "sides.S.guerrilla_rule": "base"},
    {"sides.S.guerrilla": 0, "scenario.guerrilla_pool": 9, "sides.S.sections.C.spanish": 3},
])
@pytest.mark.parametrize("spent_counters", ["sabre_returns", "all_return"])
def test_g1_g3_g4_pool_never_negative_and_counters_conserved(config, spent_counters):
    # rules G1, G3, G4: a counter a sabre stopped goes back to the finite unacquired pool, one
    # that nullified a card is out of play (option spent_counters: all_return sends it back too);
    # gains come out of the pool; check=True counts a violation whenever the pool is negative or
    # the total (out of play included) changes
    sim = sim_for({**config, "rules.spent_counters": spent_counters})
    sc = sim.scenario
    res = sim.run(600, SEED, per_game=True, check=True)
    assert res.metric("invariant_violations").tolist() == [0, 0]
    rows = res.per_game[:, SPANISH, :]
    start, pool = sc.sides[SPANISH].guerrilla, sc.guerrilla_pool
    held, left = rows[:, M["g_held_end"]], rows[:, M["g_pool_end"]]
    acquired, spent = rows[:, M["g_acquired"]], rows[:, M["g_spent"]]
    back = rows[:, M["g_stopped_by_sabre"]] if spent_counters == "sabre_returns" else spent
    assert (held + left + spent - back == start + pool).all()
    assert (held - start == acquired - spent).all()
    assert (left == pool - acquired + back).all()
    assert (left >= 0).all() and (held >= 0).all()
    if spent_counters == "sabre_returns" and start + pool > 0:
        assert (spent > back).any()  # some counters did leave play
    if start + pool == 0:
        assert not acquired.any() and not spent.any()
    assert not res.per_game[:, FRENCH, M["g_held_end"]:M["g_pool_end"] + 1].any()


# ---------------------------------------------------------------------------------------------
# G2 / G5: what a counter may stop


@pytest.mark.parametrize("cards", ["multi", "multi_first_strike"])
def test_g2_g5_multi_section_cards_first_strike_and_void_never_stopped(tmp_path, cards):
    # rules G2, G5: with only multi-section cards, First Strikes (played in the Allied turn, or
    # played as nothing in the French turn) and Counter-Attacks copying them, nothing is offered
    counts = {"Recon in Force": 8, "Coordinated Advance": 8, "Flank Attack": 8, "Forward": 8}
    if cards == "multi_first_strike":
        counts.update({"First Strike": 8, "Counter-Attack": 4})
    deck = write_deck(tmp_path / f"{cards}.csv", counts)
    french = {"first_strike_prob": 1.0}
    sim = sim_for({"sides.S.guerrilla": 9, "scenario.guerrilla_pool": 0}, french=french, deck=deck)
    res = sim.run(400, SEED, check=True)
    assert res.metric("invariant_violations").tolist() == [0, 0]
    assert res.metric("g_french_turns")[SPANISH] == 400 * sim.scenario.turns
    for name in ("g_offered", "g_spent", "g_cards_nullified", "g_denied_nominal", "g_acquired"):
        assert res.metric(name)[SPANISH] == 0, name
    assert res.metric("g_held_end")[SPANISH] == 400 * 9
    if cards == "multi_first_strike":
        assert res.metric("first_strikes")[FRENCH] > 100
    # the same games with the rule off: the French orders are exactly the same
    off = sim_for({"sides.S.guerrilla": 0, "scenario.guerrilla_pool": 0,
                   "sides.S.guerrilla_rule": "off"}, french=french, deck=deck).run(400, SEED)
    assert np.array_equal(off.totals[FRENCH], res.totals[FRENCH])


def test_g2_g5_only_section_and_tactic_cards_of_the_french_turn_are_targeted():
    # rules G2, G5: every attempt is made in a French turn against a section or tactic card the
    # French play in that turn (never a multi-section card, VOID or a First Strike of theirs)
    sim = sim_for({"sides.S.guerrilla": 9, "scenario.guerrilla_pool": 0},
                  french={"first_strike_prob": 1.0})
    found = attempts(sim, 40)
    assert len(found) > 100
    kinds = set()
    for att, choice, turn in found:
        assert att[SIDE] == SPANISH and choice[SIDE] == FRENCH and turn[SIDE] == FRENCH
        assert att[A] in (0, 1)  # EPIC rule: one card, never the whole turn
        card, p = target_card(att, choice)
        assert card != sim.cards.void
        assert sim.cards.kind[card] in (KIND_SECTION, KIND_PLACED)
        assert sim.cards.first_strike[card] == 0
        assert att[B] == placed_section(sim, card, p)
        assert att[C] == own_effective(sim, att, choice, turn)
        kinds.add(int(sim.cards.kind[card]))
    assert kinds == {KIND_SECTION, KIND_PLACED}
    # French First Strikes were played in Spanish turns, where no attempt is ever made
    fs_plies = set()
    for ev in traces(sim, 40):
        fs = rows_of(ev, layout.EV_FIRST_STRIKE)
        fs_plies |= {int(r[PLY]) for r in fs if r[SIDE] == FRENCH}
        spanish_plies = {int(r[PLY]) for r in rows_of(ev, layout.EV_TURN) if r[SIDE] == SPANISH}
        assert not {int(r[PLY]) for r in rows_of(ev, layout.EV_G_ATTEMPT)} & spanish_plies
    assert fs_plies


def test_g5_target_is_the_card_with_more_own_effective_orders():
    # rule G5 (target choice, as the engine plays it): among the cards a held counter may reach,
    # the one with the larger own effective orders; a tie goes to the hand card (no gains here,
    # so every counter is the CIC's, good in any section: rule G6)
    sim = sim_for({"sides.S.guerrilla": 9, "scenario.guerrilla_pool": 0}, spanish={"g_gain_mode": "never"})
    void = sim.cards.void
    ties = 0
    for att, choice, turn in attempts(sim, 30):
        other = att.copy()
        other[A] = 1 - att[A]
        card, p = target_card(other, choice)
        if card == void or sim.cards.kind[card] not in (KIND_SECTION, KIND_PLACED):
            continue  # not a card a counter may stop
        mine, theirs = att[C], own_effective(sim, other, choice, turn)
        assert mine >= theirs
        if mine == theirs:
            ties += 1
            assert att[A] == 0
    assert ties > 0


def test_s4_g4_g5_g6_a_counter_only_targets_a_card_in_the_section_it_faces():
    # rules S4, G4, G5, G6: no starting counters; four or more Spanish units only in the Spanish
    # Left, so every counter is gained (by a Scout) for the Spanish Left, held there, and spent only
    # on a French card placed in the section facing it: the French Right (sections are named from
    # each side's own seat)
    only_left = {"sides.S.guerrilla": 0, "sides.S.sections.L.spanish": 6,
                 "sides.S.sections.C.spanish": 3, "sides.S.sections.R.spanish": 2}
    sim = sim_for(only_left)
    res = sim.run(2000, SEED, check=True)
    assert res.metric("invariant_violations").tolist() == [0, 0]
    m = res.totals[SPANISH]
    assert m[M["g_acquired"]] > 500 and m[M["g_nullified_in_french_R"]] > 200
    assert m[M["g_nullified_in_french_L"]] == 0 and m[M["g_nullified_in_french_C"]] == 0
    assert m[M["g_denied_effective_in_french_R"]] > 0
    n_gain = n_att = 0
    for ev in traces(sim, 40):
        for _, rows in by_ply(ev).items():
            for gain in rows_of(rows, layout.EV_G_GAIN):
                assert gain[SIDE] == SPANISH and gain[A] == 0  # held in the Spanish Left
                n_gain += 1
            for att in rows_of(rows, layout.EV_G_ATTEMPT):
                card, p = target_card(att, one(rows, layout.EV_CHOICE))
                # the French card sits in the French Right (French seat), facing the Spanish Left
                assert att[B] == 2 and placed_section(sim, card, p) == 2
                n_att += 1
    assert n_gain > 10 and n_att > 10
    # the trace names the section from the French seat and the Spanish section facing it
    lines = [ln for g in range(40) for ln in format_trace(sim, sim.trace(SEED, g)[1], SEED, g).splitlines()
             if "spends a counter" in ln]
    assert lines and all("in the French Right (facing the Spanish Left)" in ln for ln in lines)
    # rule G6: starting counters are the CIC's, good in any section
    res = sim_for({**only_left, "sides.S.guerrilla": 3}).run(2000, SEED)
    assert all(res.metric(f"g_nullified_in_french_{x}")[SPANISH] > 100 for x in "LCR")


def test_g5_never_two_counters_in_one_french_turn():
    # rule G5: at most one counter per French turn, even with nine counters in hand
    sim = sim_for({"sides.S.guerrilla": 9, "scenario.guerrilla_pool": 0})
    res = sim.run(1000, SEED, per_game=True)
    rows = res.per_game[:, SPANISH, :]
    assert (rows[:, M["g_offered"]] <= rows[:, M["g_french_turns"]]).all()
    assert (res.guerrilla_turns[0] <= 1000).all() and res.guerrilla_turns[1].max() > 500
    n = 0
    for ev in traces(sim, 40):
        for _, rows_ in by_ply(ev).items():
            att = rows_of(rows_, layout.EV_G_ATTEMPT)
            assert len(att) <= 1
            n += len(att[att[:, E] != layout.G_OUT_DECLINED])
    assert n > 100


# ---------------------------------------------------------------------------------------------
# G3 / G4: gaining counters


@pytest.mark.parametrize("rule,spanish,gains", [("epic", 3, False), ("epic", 4, True),
                                                ("base", 3, True)])
def test_g3_g4_no_gain_with_fewer_than_four_spanish_units(rule, spanish, gains):
    # rule G4: a Scout gains a counter only in a section with at least four Spanish units; the
    # base rule (G3) asks for no such number
    sim = sim_for({"sides.S.guerrilla_rule": rule, "sides.S.guerrilla": 0,
                   **{f"sides.S.sections.{x}.spanish": spanish for x in "LCR"}})
    res = sim.run(1000, SEED, check=True)
    assert res.metric("invariant_violations").tolist() == [0, 0]
    acquired = res.metric("g_acquired")[SPANISH]
    assert (acquired > 300) if gains else (acquired == 0)
    if not gains:  # Scouts were played, and drew two cards as usual
        assert res.metric("scout_draws")[SPANISH] > 300


def test_g4_no_gain_when_the_stars_are_used(tmp_path):
    # rule G4: the counter is gained only with the Scout's stars unused (no March Move, no
    # Tactician draw for them), the Scout's own Tactician draw kept and one Command card drawn
    plain = {"Probe Left": 4, "Probe Center": 6, "Probe Right": 4, "Attack Left": 4,
             "Attack Center": 6, "Attack Right": 4, "Assault Left": 2, "Assault Center": 2,
             "Assault Right": 2, "Bayonet Charge": 3, "Cavalry Charge": 3,
             "Scout Left": 6, "Scout Center": 6, "Scout Right": 6}
    deck = write_deck(tmp_path / "scouts.csv", plain)
    # two counters in the pool, never spent: the first Scouts gain them, the later ones cannot
    sim = sim_for({"sides.S.guerrilla": 0, "scenario.guerrilla_pool": 2}, deck=deck,
                  spanish={"g_spend_mode": "threshold", "g_threshold": 99})
    cd = sim.cards
    gained = scouted_with_stars = 0
    for ev in traces(sim, 30):
        for ply, rows in by_ply(ev).items():
            if ply < 0 or one(rows, layout.EV_TURN)[SIDE] != SPANISH:
                continue
            choice = one(rows, layout.EV_CHOICE)
            played = [int(choice[E]), int(choice[F])]
            scouts = [t for t in played if cd.scout[t] == 1]
            orders = one(rows, layout.EV_ORDERS)
            tdraw = int(cd.tdraw[played].sum())
            gain = rows_of(rows, layout.EV_G_GAIN)
            if len(gain) and len(scouts) == 1:
                gained += 1
                assert gain[0][A] == cd.sec[scouts[0]]
                assert orders[G] == 0 and orders[H] == tdraw  # stars unused, Scout's draw kept
                assert len(rows_of(rows, layout.EV_SCOUT)) == 0
                assert len([r for r in rows_of(rows, layout.EV_DRAW) if r[SIDE] == SPANISH]) == 1
            elif scouts and not len(gain):
                scouted_with_stars += 1
                assert orders[G] > 0 or orders[H] > tdraw  # without a gain the stars are used
    assert gained > 10 and scouted_with_stars > 10


# ---------------------------------------------------------------------------------------------
# P4 / P5: the Spanish policies


def test_p4_threshold_spends_only_on_cards_with_k_effective_orders():
    # rule P4 (threshold mode): spend on a French card ordering at least k effective units
    k = 4
    sim = sim_for({"sides.S.guerrilla": 9, "scenario.guerrilla_pool": 0},
                  spanish={"g_spend_mode": "threshold", "g_threshold": k})
    spent = declined = 0
    for att, choice, turn in attempts(sim, 40):
        assert att[C] == own_effective(sim, att, choice, turn)
        if att[E] == layout.G_OUT_DECLINED:
            declined += 1
            assert att[C] < k
        else:
            spent += 1
            assert att[C] >= k
    assert spent > 20 and declined > 20
    m = sim.run(1000, SEED).totals[SPANISH]
    assert m[M["g_offered"]] == m[M["g_spent"]] + m[M["g_available_not_spent"]]
    assert m[M["g_available_not_spent"]] > 0


def test_p4_assault_mode_saves_counters_for_assault_cards():
    # rule P4 (assault mode): spend only on an Assault ("equal to command") card, and on every
    # Assault a counter can reach, even when the other French card orders more units (no gains:
    # every counter is the CIC's, good in any section)
    sim = sim_for({"sides.S.guerrilla": 9, "scenario.guerrilla_pool": 0},
                  spanish={"g_spend_mode": "assault", "g_gain_mode": "never"})
    void = sim.cards.void
    spent = declined = over_stronger = 0
    for att, choice, turn in attempts(sim, 60):
        card, _ = target_card(att, choice)
        other = att.copy()
        other[A] = 1 - att[A]
        other_card, _ = target_card(other, choice)
        if att[E] == layout.G_OUT_DECLINED:
            declined += 1
            assert sim.cards.eq_cmd[card] == 0
            assert other_card == void or sim.cards.eq_cmd[other_card] == 0
        else:
            spent += 1
            assert sim.cards.eq_cmd[card] == 1
            if other_card != void and sim.cards.kind[other_card] in (KIND_SECTION, KIND_PLACED):
                over_stronger += att[C] < own_effective(sim, other, choice, turn)
    assert spent > 10 and declined > 20 and over_stronger > 0


def test_p4_always_spends_at_the_first_chance():
    # rule P4 (always): every offer is taken
    m = sim_for().run(1000, SEED).totals[SPANISH]
    assert m[M["g_offered"]] == m[M["g_spent"]] > 0 and m[M["g_available_not_spent"]] == 0


def test_p5_never_gains_and_below_n_stops_at_n():
    # rule P5: never trade a Scout draw for a counter; or only while fewer than n are held
    sim = sim_for(spanish={"g_gain_mode": "never"})
    res = sim.run(1000, SEED)
    assert res.metric("g_acquired")[SPANISH] == 0
    assert res.metric("scout_draws")[SPANISH] > 1000
    assert not any(len(rows_of(ev, layout.EV_G_GAIN)) for ev in traces(sim, 10))
    n = 2
    sim = sim_for({"sides.S.guerrilla": 0}, spanish={"g_gain_mode": "below", "g_gain_below": n})
    gains = 0
    for ev in traces(sim, 40):
        held = 0
        for row in ev:
            if row[CODE] == layout.EV_G_GAIN:
                assert held < n
                held += 1
                gains += 1
            elif row[CODE] == layout.EV_G_ATTEMPT and row[E] != layout.G_OUT_DECLINED:
                held -= 1
            assert 0 <= held <= n
    assert gains > 20
    assert sim.run(1000, SEED).metric("g_acquired")[SPANISH] > 0


# ---------------------------------------------------------------------------------------------
# G1-G3: the base rule


STANDARD_BASE = {"scenario.format": "standard", "scenario.deck": "ccn70",
                 "sides.S.guerrilla_rule": "base"}


@pytest.mark.parametrize("game_format", ["standard", "epic1"])
def test_g1_g3_base_rule_nullifies_the_whole_french_turn(game_format):
    # rules G1, G3: under the base rule a counter not stopped by a sabre discards the French card
    # (EPIC card flow: both cards), no orders are issued, no Tactician card is drawn, the French
    # draw one card and their turn ends; a Spanish Scout may draw one card and take a counter
    over = STANDARD_BASE if game_format == "standard" else {"sides.S.guerrilla_rule": "base"}
    sim = sim_for({**over, "sides.S.guerrilla": 9, "scenario.guerrilla_pool": 0})
    assert sim.scenario.format == game_format
    n_null = n_sabre = 0
    for ev in traces(sim, 40):
        for rows in by_ply(ev).values():
            att = rows_of(rows, layout.EV_G_ATTEMPT)
            if not len(att):
                continue
            att = att[0]
            assert att[A] == 2 and att[B] == -1  # the whole turn, no section
            choice, orders = one(rows, layout.EV_CHOICE), one(rows, layout.EV_ORDERS)
            if game_format == "standard":
                assert choice[F] == sim.cards.void  # one card, no rack
            french_draws = [r for r in rows_of(rows, layout.EV_DRAW) if r[SIDE] == FRENCH]
            if att[E] == layout.G_OUT_NULLIFIED:
                n_null += 1
                assert orders[A:G].tolist() == [0] * 6 and orders[G] == 0 and orders[H] == 0
                assert len(french_draws) == 1
                assert not len(rows_of(rows, layout.EV_TACTICIAN))
                assert not len(rows_of(rows, layout.EV_SCOUT)) and not len(rows_of(rows, layout.EV_ELAN))
            elif att[E] == layout.G_OUT_SABRE:
                n_sabre += 1  # the cards are carried out as chosen
                c = min(int(one(rows, layout.EV_TURN)[A]), sim.tables.nominal.shape[1] - 1)
                p = 3 * int(choice[C]) + int(choice[D])
                assert orders[A:D].tolist() == \
                    sim.tables.nominal[FRENCH, c, choice[E], choice[F], p].tolist()
    assert n_null > 50 and n_sabre > 5
    res = sim.run(2000, SEED, check=True)
    m = res.totals[SPANISH]
    assert res.metric("invariant_violations").tolist() == [0, 0]
    assert m[M["g_offered"]] == m[M["g_spent"]]
    if game_format == "standard":
        assert m[M["g_cards_nullified"]] == m[M["g_spent"]] - m[M["g_stopped_by_sabre"]]
    else:  # both cards of a turn (fewer only when a card played as nothing)
        assert m[M["g_cards_nullified"]] > 1.9 * (m[M["g_spent"]] - m[M["g_stopped_by_sabre"]])
    assert m[M["g_nullified_in_french_L"]] == m[M["g_nullified_in_french_C"]] \
        == m[M["g_nullified_in_french_R"]] == 0
    assert m[M["g_denied_effective"]] == sum(m[M[f"g_denied_effective_in_french_{x}"]] for x in "LCR")


def test_g3_base_rule_gain_is_the_commanders_in_the_standard_game():
    # rule G3: a Spanish Scout draws one card instead of two and takes a counter from the pool
    sim = sim_for({**STANDARD_BASE, "sides.S.guerrilla": 0, "scenario.guerrilla_pool": 9,
                   **{f"sides.S.sections.{x}.spanish": 1 for x in "LCR"}},
                  spanish_kind="random")
    found = 0
    for ev in traces(sim, 40):
        for _, rows in by_ply(ev).items():
            for gain in rows_of(rows, layout.EV_G_GAIN):
                found += 1
                assert gain[A] == 3  # held by the commander, good against any card
                assert not len(rows_of(rows, layout.EV_SCOUT))
    assert found > 0


# ---------------------------------------------------------------------------------------------
# G7 and the trace


def test_g7_metrics_add_up_and_the_trace_shows_every_decision():
    # rule G7: acquired, offered, spent, stopped, nullified, denied (nominal and effective), per
    # section and per turn; the trace prints every decision and roll in words
    sim = sim_for(spanish={"g_spend_mode": "threshold", "g_threshold": 3})
    res = sim.run(2000, SEED)
    m = res.totals[SPANISH]
    assert m[M["g_offered"]] == m[M["g_spent"]] + m[M["g_available_not_spent"]]
    assert m[M["g_cards_nullified"]] == m[M["g_spent"]] - m[M["g_stopped_by_sabre"]]
    assert m[M["g_cards_nullified"]] == sum(m[M[f"g_nullified_in_french_{x}"]] for x in "LCR")
    assert m[M["g_denied_effective"]] == sum(m[M[f"g_denied_effective_in_french_{x}"]] for x in "LCR")
    assert m[M["g_denied_nominal"]] >= m[M["g_denied_effective"]] > m[M["g_cards_nullified"]]
    assert not res.totals[FRENCH, M["g_french_turns"]:M["g_pool_end"] + 1].any()
    seen = 0
    for g, ev in enumerate(traces(sim, 5)):
        text = format_trace(sim, ev, SEED, g)
        lines = [ln for ln in text.splitlines() if ln.strip().startswith("Guerrilla:")]
        att = rows_of(ev, layout.EV_G_ATTEMPT)
        assert len(lines) == len(att) + len(rows_of(ev, layout.EV_G_GAIN))
        for row in att:
            if row[E] != layout.G_OUT_DECLINED:
                roll = "a sabre" if row[D] == 5 else f"{DIE_FACES[row[D]]}, not a sabre"
                assert any(f"the French roll {roll}" in ln for ln in lines)
        seen += len(att)
        declined = int((att[:, E] == layout.G_OUT_DECLINED).sum()) if len(att) else 0
        assert sum("keeps it (policy P4)" in ln for ln in lines) == declined
    assert seen > 0


# ---------------------------------------------------------------------------------------------
# bad input: one line, exit 2


BAD = {
    "negative_counters": ({"sides.S.guerrilla": -1}, "'guerrilla': -1 is out of range"),
    "negative_pool": ({"scenario.guerrilla_pool": -2}, "'guerrilla_pool': -2 is out of range"),
    "spanish_above_units": ({"sides.S.sections.L.spanish": 8}, "8 Spanish units but only 7 units"),
    "rule_without_spanish": ({"sides.S.guerrilla": 0,
                              **{f"sides.S.sections.{x}.spanish": 0 for x in "LCR"}},
                             "guerrilla rule on for a side without Spanish units"),
    "counters_without_spanish": ({**{f"sides.S.sections.{x}.spanish": 0 for x in "LCR"}},
                                 "guerrilla counters for a side without Spanish units"),
    "opponent_not_french": ({"sides.F.french": False}, "the other side is not French"),
    "counters_with_rule_off": ({"sides.S.guerrilla_rule": "off"},
                               "3 counters but the guerrilla rule is off"),
    "unknown_rule": ({"sides.S.guerrilla_rule": "sometimes"}, "'sometimes' is not allowed"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_g_bad_scenarios_give_one_line_errors(tmp_path, case, monkeypatch):
    # rules S1, G1-G6: bad guerrilla input is refused with one line naming file and field, exit 2
    # (the console entry point in this process; tests/support/cli.py)
    changes, message = BAD[case]
    path = write_scenario(tmp_path / f"{case}.toml", changes)
    code, out, err = napsim_main(monkeypatch, "trace", "--scenario", path, "--game", "0")
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("napsim: error: "), err
    assert path in lines[0] and message in lines[0], lines[0]
    assert "Traceback" not in err and out == ""


def test_p4_p5_bad_policy_modes_give_one_line_errors():
    # rules P4, P5: unknown modes are refused, naming the modes (the real command line, in a fresh
    # interpreter)
    r = run_napsim("trace", "--scenario", "tamames", "--game", "0",
                   "--policy", "greedy,greedy:g_spend_mode=sometimes")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "g_spend_mode" in r.stderr and "always" in r.stderr and "assault" in r.stderr


# ---------------------------------------------------------------------------------------------
# G7 in summaries, studies and charts


def test_g7_summary_rates_with_wilson_intervals():
    # rule G7: nullification rate per French turn, attempt success rate, offered-but-not-spent
    # rate (Wilson intervals and n), and means per turn, next to the per-game means of every metric
    res = sim_for(spanish={"g_spend_mode": "threshold", "g_threshold": 4}).run(1000, SEED)
    s = res.summary().set_index(["side", "metric"])
    m = res.totals[SPANISH]
    sabre, spent = m[M["g_stopped_by_sabre"]], m[M["g_spent"]]
    for metric, k, n in (("g_nullification_rate", spent - sabre, m[M["g_french_turns"]]),
                         ("g_attempt_success_rate", spent - sabre, spent),
                         ("g_offered_not_spent_rate", m[M["g_available_not_spent"]], m[M["g_offered"]]),
                         ("g_offered_rate", m[M["g_offered"]], m[M["g_french_turns"]])):
        row = s.loc[("Spanish", metric)]
        assert row["kind"] == "rate" and row["n"] == n and row["value"] == pytest.approx(k / n)
        assert 0 <= row["ci_low"] < row["value"] < row["ci_high"] <= 1
        assert np.isnan(s.loc[("French", metric), "value"])  # no guerrillas against the Spanish
    assert s.loc[("Spanish", "g_cards_nullified_per_turn"), "value"] == \
        pytest.approx(m[M["g_cards_nullified"]] / (1000 * 30))
    denied = s.loc[("Spanish", "g_denied_effective"), "value"]
    assert denied == pytest.approx(m[M["g_denied_effective"]] / 1000)
    assert s.loc[("Spanish", "g_acquired"), "kind"] == "mean_per_game"
    plain = Simulation.build("symmetric").run(50, SEED).summary()  # no guerrillas: no such rows
    assert not plain["metric"].isin([m for m, d in METRICS.items() if d.group == "guerrilla"]).any()


def test_g7_guerrilla_study_summary_and_chart(tmp_path, study_toml):
    # rule G7 and P4 through a study: the guerrilla rates carry Wilson intervals in the study
    # summary, and the chart of orders denied against starting counters has a line per policy
    import napsim
    from napsim.study.spec import load_study

    st = load_study(REPO / "studies" / "guerrilla.toml")  # the shipped study: 2 x 6 x 3 x 5 points
    assert len(st.points) == 180 and st.main_side == "S"
    path = study_toml(name="g_small", scenario="tamames", games=300, chunk=150, policies=None,
                      seed=None, main_metric="g_denied_effective", main_side="S",
                      metrics=["g_nullification_rate", "g_denied_effective", "g_acquired"],
                      set={"policy.S.g_threshold": 4},
                      sweep={"sides.S.guerrilla": [1, 4],
                             "policy.S.g_spend_mode": ["always", "assault"]})
    res = napsim.run_study(path, out=tmp_path / "out")
    summ = res.summary(["g_nullification_rate", "g_denied_effective"])
    rate = summ[(summ["metric"] == "g_nullification_rate") & (summ["side_key"] == "S")]
    assert len(rate) == 4 and (rate["interval"] == "wilson95").all() and (rate["n"] == 300 * 30).all()
    assert ((rate["ci_low"] < rate["value"]) & (rate["value"] < rate["ci_high"])).all()
    denied = summ[(summ["metric"] == "g_denied_effective") & (summ["side_key"] == "S")]
    by = denied.set_index(["sides.S.guerrilla", "policy.S.g_spend_mode"])["value"]
    assert by[(4, "always")] > by[(1, "always")]  # more counters, more orders denied
    st = load_study(path)
    ref = st.build(st.points[3]).run(300, st.seed)
    row = ref.summary().set_index(["side", "metric"]).loc[("Spanish", "g_nullification_rate")]
    mine = rate[rate["point"] == "p003"].iloc[0]
    assert mine["value"] == pytest.approx(row["value"]) and mine["ci_low"] == pytest.approx(row["ci_low"])
    fig = res.plot("guerrilla")
    ax = fig.axes[0]
    assert [ln.get_label() for ln in ax.get_lines()] == ["spend at every chance",
                                                         "spend on Assault cards only"]
    assert list(ax.get_lines()[0].get_xdata()) == [1, 4]
