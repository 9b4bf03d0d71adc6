"""The lookahead policy (rule P8) in La Grande Battles: the CIC's gifts planned by rollouts. Its
equality with greedy where it must equal it, its reproducibility and trace, its truth on a toy deck
where the best two-turn gift is known, and the paired gain over greedy on lgb-symmetric.

All slow: the planned LGB kernel is a compile of its own (about 20 s); the default run checks P8 on
EPIC's planned kernel (tests/test_lookahead.py), and the app's LGB lookahead offer without playing."""

from __future__ import annotations

import dataclasses

import numba
import numpy as np
import pytest
from support.cli import napsim_main
from support.decks import write_deck
from support.lgbtools import both, corps_card, units6
from support.tracetools import CODE, PLY, SIDE, A, C, D, E, H, M

from napsim.engine import layout
from napsim.engine.lgb import _open_game_lgb, _scratch, lgb_game
from napsim.engine.lgb_gifts import gift_records, gift_table
from napsim.engine.lookahead_lgb import _copy_state_lgb, _turn_lgb, work_scratch_lgb
from napsim.engine.rng import seed_key
from napsim.model.scenarios import load_scenario
from napsim.sim.packing import Simulation
from napsim.sim.runner import play_chunk
from napsim.sim.summary import estimate, paired_difference
from napsim.sim.tables_lgb import SRC_CIC

pytestmark = pytest.mark.slow

EFF = slice(M["effective_L"], M["effective_R"] + 1)
QUIET = {"first_strike_prob": 0.0, "tactician_use_prob": 0.0}
# G4-G6 in LGB: Spanish side A against French B (tests/test_lgb_flow.py), so the rollouts copy
# and play the Corps commanders' counters and the pool too
GUERRILLA = {
    "sides.B.french": True, "sides.A.guerrilla_rule": "epic", "sides.A.corps_guerrilla": [1, 1, 1],
    "scenario.guerrilla_pool": 6, "sides.A.sections.L1.spanish": 3, "sides.A.sections.L2.spanish": 2,
    "sides.A.sections.C1.spanish": 2, "sides.A.sections.C2.spanish": 2,
    "sides.A.sections.R1.spanish": 2, "sides.A.sections.R2.spanish": 1,
}


def _outputs(sim: Simulation, games: int = 40) -> list[bytes]:
    """Every chunk output of games [0, games), with the D6 checks on: totals, per-game rows, rack
    waits, Guerrilla and Tactician histograms, commander metrics."""
    out = play_chunk(sim.kernel_args(), seed_key(11), 0, games, True, True)
    assert out.totals[:, M["invariant_violations"]].sum() == 0
    return [np.asarray(getattr(out, f.name)).tobytes() for f in dataclasses.fields(out)]


@pytest.mark.parametrize("over", [{}, GUERRILLA], ids=["lgb-symmetric", "guerrillas"])
def test_p8_lgb_horizon_zero_and_one_candidate_equal_greedy_bit_for_bit(over):
    # rule P8, rule L2: D = 0 is the greedy choice; so is a lookahead that examines the greedy
    # choice alone (its probe of the choice point on the copied state then replays the real turn)
    sc = load_scenario("lgb-symmetric", over)
    greedy = _outputs(Simulation.build(sc))
    for params in ({"lookahead_d": 0}, {"lookahead_top": 1}):
        sim = Simulation.build(sc, policies=(("lookahead", params), ("lookahead", params)))
        assert sim.kernel_args()[0] == "lookahead_lgb"
        assert _outputs(sim) == greedy, params
    planned = Simulation.build(sc, policies=(("lookahead", {"lookahead_k": 2}), ("greedy", {})))
    assert _outputs(planned) != greedy  # it did plan


def _digest(sim: Simulation, games: int, chunk: int):
    r = sim.run(games, 11, chunk=chunk, per_game=True)
    return r.totals.tolist(), r.per_game.tobytes(), r.commander_rows.tobytes()


def test_p8_lgb_same_results_whatever_threads_and_chunks(restore_threads):
    # rule P8: rollout streams are keyed on (seed, game, ply, rollout), never on a block
    sim = Simulation.build(load_scenario("lgb-symmetric", GUERRILLA),
                           policies=(("lookahead", {"lookahead_k": 2}), ("greedy", {})))
    numba.set_num_threads(1)
    one = _digest(sim, 12, 12)
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    assert _digest(sim, 12, 5) == one


def test_p8_lgb_trace_replays_a_lookahead_game():
    # rule P8: a lookahead game is a function of (seed, game index), its event log too; the log
    # names the lookahead's gifts as its own
    sim = Simulation.build("lgb-symmetric", policies=(("lookahead", {"lookahead_k": 2}), ("greedy", {})))
    met, ev = sim.trace(5, 3)
    r = sim.run(4, 5, chunk=4, per_game=True)
    assert (r.per_game[3] == met).all()
    gifts = ev[ev[:, CODE] == layout.EV_GIVE]
    assert len(gifts) == 2 * sim.scenario.turns
    kinds = {s: set(gifts[gifts[:, SIDE] == s, H].tolist()) for s in (0, 1)}
    assert kinds == {0: {2}, 1: {0}}  # the policy kind: 2 lookahead, 0 greedy


# rule P8, rule L2: the trap of tests/test_lookahead.py on the LGB turn. Units only in the centre
# wing (4 infantry in C1 and in C2), CIC hands of 4, no Corps hands: an Assault Center from the CIC
# orders 4 (E6: the CIC's hand), an Attack Center 3, a Probe Left nothing (the left wing has no
# units), a Counter-Attack the opponent CIC's last hand card (D3). With the opponent's Attack
# Center just played and {Counter-Attack, Assault Center} in hand, greedy gives the Assault and
# its Counter-Attack then copies a Probe; the two-turn optimum gives the Counter-Attack now (3)
# and the Assault next turn (4).
TRAP = {"Attack Center": 1, "Assault Center": 1, "Counter-Attack": 1, "Probe Left": 17}
TRAP_GAMES = 400


@pytest.fixture(scope="module")
def trap(tmp_path_factory):
    deck = write_deck(tmp_path_factory.mktemp("trap_lgb") / "trap.csv", TRAP)
    over = {"scenario.deck": str(deck), "scenario.turns": 60,
            **both(hand=4, tactician=0, corps_hand=[0, 0, 0], corps_tactician=[0, 0, 0],
                   square_form=0.0)}
    for s in "AB":
        for sec in ("L1", "L2", "C1", "C2", "R1", "R2"):
            for unit in ("infantry", "cavalry", "artillery", "leaders"):
                centre = sec in ("C1", "C2") and unit == "infantry"
                over[f"sides.{s}.sections.{sec}.{unit}"] = 4 if centre else 0
    return load_scenario("lgb-symmetric", over)


def _two_turn_best(names: list[str], hand: list[int]) -> dict[int, int]:
    """Brute force: each hand card given to the centre wing now, plus the best gift of the next own
    turn, when the opponent's next card and the Command draw are Probe Lefts (all the other cards
    are in this hand or played): effective orders of the centre wing, the only one with units."""
    u = units6(C1=(4, 0, 0, 0), C2=(4, 0, 0, 0))

    def eff(name: str) -> int:
        played = [corps_card(name, SRC_CIC, q, 4, u, 1) for q in (0, 1)]
        return max((p[1] + p[2] for p in played if p is not None), default=0)

    now = {"Counter-Attack": eff("Attack Center")}  # it copies the opponent's Attack Center
    later = {"Counter-Attack": eff("Probe Right")}  # ... next turn a Probe Left, mirrored
    probe = names.index("Probe Left")
    out = {}
    for i, t in enumerate(hand):
        rest = hand[:i] + hand[i + 1:] + [probe]
        out[t] = now.get(names[t], eff(names[t])) + max(later.get(names[r], eff(names[r]))
                                                       for r in rest)
    return out


def _trap_turns(sim: Simulation, games: int):
    """(hand, card given) of side A's turns in the trap, without a reshuffle before its next turn
    (a reshuffle could bring the Attack Center back) and not in the last turn."""
    ct = sim.cards
    specials = {ct.names.index(n) for n in ("Assault Center", "Counter-Attack")}
    attack = ct.names.index("Attack Center")
    for g in range(games):
        _, ev = sim.trace(3, g)
        shuffled = set(ev[ev[:, CODE] == layout.EV_RESHUFFLE, PLY].tolist())
        last, hand = ct.void, []
        for row in ev:
            if row[CODE] == layout.EV_TURN and row[SIDE] == 0:
                hand = row[layout.TR_HAND:layout.TR_HAND + row[D]].tolist()
                if row[PLY] + 2 >= 2 * sim.scenario.turns or {row[PLY], row[PLY] + 1} & shuffled:
                    hand = []
            if row[CODE] == layout.EV_GIVE:
                if row[SIDE] == 0 and last == attack and specials <= set(hand):
                    assert row[C] == 1  # the hand card goes to the centre wing
                    yield hand, int(row[A])
                if row[SIDE] == 1:
                    last = int(row[E])


def test_p8_lgb_lookahead_finds_the_two_turn_gift_that_greedy_misses(trap):
    # rules P1, P6, P8, L2: greedy's myopic gift, the lookahead's two-turn optimum of its own
    # orders (lookahead_value own, what the brute force counts: under margin the planner may
    # rather take the rack's Attack Center from the opponent and keep both cards), on the planner
    # that sees the hands as the brute force does (lookahead_info open)
    found = {}
    for name, pol in (("greedy", ("greedy", QUIET)),
                      ("lookahead", ("lookahead", dict(QUIET, lookahead_d=1, lookahead_value="own",
                                                       lookahead_info="open")))):
        sim = Simulation.build(trap, policies=(pol, ("greedy", QUIET)))
        hits = list(_trap_turns(sim, TRAP_GAMES))
        assert len(hits) >= 5, name
        found[name] = [(_two_turn_best(sim.cards.names, hand), given) for hand, given in hits]
    for best, given in found["lookahead"]:
        assert best[given] == max(best.values()) == 7
    assert all(best[given] == 4 < max(best.values()) for best, given in found["greedy"])


def test_p8_lgb_command_line_plays_traces_and_compares_lookahead(monkeypatch, tmp_path):
    # rule P8: La Grande Battles takes the policy on simulate, trace and compare like EPIC
    code, out, _ = napsim_main(monkeypatch, "simulate", "--scenario", "lgb-symmetric", "--games",
                               "6", "--policy", "lookahead:lookahead_k=2,greedy", "--out",
                               str(tmp_path / "run"))
    assert code == 0 and "effective orders a turn" in out
    code, out, _ = napsim_main(monkeypatch, "trace", "--scenario", "lgb-symmetric", "--game", "1",
                               "--policy", "lookahead:lookahead_k=2,greedy")
    assert code == 0 and "the most orders in rollouts (lookahead, P8; greedy's gain" in out
    code, out, _ = napsim_main(monkeypatch, "compare", "--scenario", "lgb-symmetric", "--games",
                               "12", "--policy-a", "greedy,greedy", "--policy-b",
                               "lookahead:lookahead_k=2,greedy")
    assert code == 0 and "lookahead" in out


PAIRED_GAMES = 800  # about +0.135 orders a turn, 0.011 standard error at 2,000 games


def test_p8_lgb_lookahead_orders_at_least_greedys_on_lgb_symmetric():
    # rule P8: the same games (seed, game index) played by greedy and by lookahead (default K = 8,
    # D = 2) for side A; the paired difference of A's effective orders a turn is not below zero
    # (4 standard errors), and on these games above it
    n = PAIRED_GAMES
    g = Simulation.build("lgb-symmetric").run(n, 2, chunk=n, per_game=True).per_game
    sim = Simulation.build("lgb-symmetric", policies=(("lookahead", {}), ("greedy", {})))
    la = sim.run(n, 2, chunk=n, per_game=True).per_game
    diff = (la[:, 0, EFF].sum(1) - g[:, 0, EFF].sum(1)) / la[:, 0, M["turns"]]
    se = diff.std(ddof=1) / np.sqrt(n)
    assert diff.mean() + 4 * se >= 0.0
    assert diff.mean() - 4 * se > 0.0, (diff.mean(), se)


@numba.njit
def _fork(run_key, game, at, tab, gift_t, grec):
    """A greedy game, and from ply `at` on its continuation on the rollout scratch: the state copied
    there by the lookahead's copy (_copy_state_lgb), the game's own stream copied with it. Returns
    (the game's metrics, the continuation's: the metrics up to `at` copied over)."""
    pile, disc, hand, chand, rack, rack_t, sq, sq_own, scratch, pl, gsc, res, st, cn, tac, gst = \
        _scratch(tab.deck.shape[0], tab.counts.shape[0])
    _, wstate, _, wrec, _, _, _, _ = work_scratch_lgb(tab.deck.shape[0], tab.counts.shape[0],
                                                      tab.turns, tab.pol, 8)
    work = lgb_game(wstate, wrec)
    rs = np.empty(2, np.uint64)
    met = np.zeros(work.met.shape, np.int64)
    records = (np.zeros(work.wait_hist.shape, np.int64), np.zeros(work.g_turn.shape, np.int64),
               np.zeros(work.tac_turn.shape, np.int64), work.trace, work.tn)
    gm = lgb_game((rs, met, np.zeros(work.cmet.shape, np.int64), pile, disc, hand, chand, rack, rack_t,
                   sq, sq_own, scratch, pl, gsc, res, st, cn, tac, gst), records)
    no = np.bool_(False)
    # the policy chooses, P4 spends, P2 keeps; a real game: no hidden hand dealt again
    choose = layout.Decisions(np.int64(-1), np.int64(-1), np.int64(-1), np.int64(-1),
                              np.int64(layout.G_POLICY), np.int64(layout.K_POLICY),
                              np.int64(layout.RD_NONE))
    g_total = _open_game_lgb(game, run_key, tab, gm)
    for ply in range(2 * tab.turns):
        if ply == at:
            _copy_state_lgb(gm, work)
            work.met[:, :] = met
            for t in range(at, 2 * tab.turns):
                _turn_lgb(t, (work.rs, work.rs, work.rs, work.rs), choose, tab, no, g_total, work,
                          gift_t, grec, False)
        _turn_lgb(ply, (rs, rs, rs, rs), choose, tab, no, g_total, gm, gift_t, grec, False)
    return met, work.met


# compiles the LGB turn once more (the planned kernel's, napsim.engine.lookahead_lgb._turn_lgb: its
# code in numba's cache is the kernel's, not its own)
def test_p8_lgb_rollouts_copy_the_whole_game_state():
    # rule P8: a rollout starts from a copy of everything the game goes on with (cards, Corps
    # hands, squares, Tactician cards, Guerrilla counters and pool): played on from the copy with
    # the game's own stream, a greedy game ends exactly as the game itself
    sc = load_scenario("lgb-symmetric", {**GUERRILLA, **both(square_form=0.3, square_leave=0.4)})
    a = Simulation.build(sc).kernel_args()[1]
    forks = 0
    for game in range(6):
        for at in (1, 14, 33, 58):
            met, wmet = _fork(seed_key(7), np.int64(game), np.int64(at), a, gift_table(a.best_t),
                              gift_records(a.best_t, a.pol))
            assert (met == wmet).all(), (game, at)
            forks += met[:, M["squares_formed"]].sum() > 0 and met[0, M["g_spent"]] > 0
    assert forks > 0  # squares and counters were there to copy


def test_p8_lgb_the_value_reading_is_read_margin_takes_orders_from_the_opponent():
    # rule P8: the CIC's gifts valued by his side's effective orders less the opponent's (margin)
    # or by his own alone (own), on the same games: under margin the opponent gets fewer orders
    # (paired interval). Measured on the planner that sees the hands (open), where the reading's
    # effect is largest at this size; what fair knows: tests/test_lookahead_info.py
    n = 200
    runs = {}
    for value in ("own", "margin"):
        sim = Simulation.build("lgb-symmetric", policies=(
            ("lookahead", {"lookahead_k": "4", "lookahead_d": "1", "lookahead_value": value,
                           "lookahead_info": "open"}),
            ("greedy", {})))
        runs[value] = sim.run(n, 11, chunk=n, per_game=True).per_game
    red = {v: estimate(r[:, 1, EFF].sum(1).astype(float), r[:, 1, M["turns"]].astype(float))
           for v, r in runs.items()}
    d = paired_difference(red["own"], red["margin"])
    assert d["n"] == n and d["ci_high"] < 0.0, d


# rules P8, P4 in La Grande Battles: the Spanish (side A of GUERRILLA) plan their spend as in EPIC
# (tests/test_lookahead_value.py); P4 with a threshold of 99 never spends, nor do the rollouts
SPANISH, FRENCH = 0, 1
NEVER = {"g_spend_mode": "threshold", "g_threshold": "99"}


def _spanish(policy: tuple[str, dict]) -> Simulation:
    return Simulation.build(load_scenario("lgb-symmetric", GUERRILLA), policies=(policy, ("greedy", {})))


def _planning_spanish(value: str = "margin", **extra) -> Simulation:
    return _spanish(("lookahead", {"lookahead_k": "4", "lookahead_d": "1", "lookahead_value": value,
                                   **extra}))


def _spent(per_game: np.ndarray) -> float:
    """Counters the Spanish spent a French turn."""
    return per_game[:, SPANISH, M["g_spent"]].sum() / per_game[:, FRENCH, M["turns"]].sum()


def test_p8_p4_lgb_the_planner_spends_where_the_margin_pays():
    # rules P8, P4, G5: greedy with g_threshold 99 never spends; the planner under `margin` spends
    # on French cards that order something (a counter takes the card's orders off this turn 5 times
    # in 6 and costs nothing the window sees), always on the card P4 targets: the facing Corps
    # commander's best card of the turn
    n, seed = 40, 3
    assert _spent(_spanish(("greedy", NEVER)).run(n, seed, chunk=n, per_game=True).per_game) == 0
    sim = _planning_spanish(**NEVER)
    assert _spent(sim.run(n, seed, chunk=n, per_game=True).per_game) > 0.1
    attempts = 0
    for g in range(4):
        _, ev = sim.trace(seed, g)
        rows = ev[(ev[:, CODE] == layout.EV_G_ATTEMPT) & (ev[:, SIDE] == SPANISH)]
        spent = rows[rows[:, E] != layout.G_OUT_DECLINED]
        attempts += len(spent)
        assert (spent[:, C] > 0).all()  # the target's effective orders
    assert attempts > 0


def test_p8_p4_lgb_a_planning_spanish_side_denies_the_french_more_orders_than_p4_always():
    # rules P8, P4: P4's greedy rule spends at every chance; the planner keeps a counter where the
    # window values it more and spends it where the margin pays (2,000 games: +0.105 [0.091, 0.119]
    # French effective orders denied a French turn, 0.781 under greedy; the French -0.146 [-0.171,
    # -0.122] orders a turn). The same games, paired, fewer of them here
    n, seed = 120, 7
    greedy = _spanish(("greedy", {})).run(n, seed, chunk=n, per_game=True).per_game
    planned = _planning_spanish().run(n, seed, chunk=n, per_game=True).per_game
    per_french_turn = [r[:, FRENCH, M["turns"]].astype(float) for r in (greedy, planned)]
    denied = [estimate(r[:, SPANISH, M["g_denied_effective"]].astype(float), t)
              for r, t in zip((greedy, planned), per_french_turn, strict=True)]
    d = paired_difference(denied[0], denied[1])
    assert d["n"] == n and d["ci_low"] > 0.0, d  # the counters take more orders from the French
    french = [estimate(r[:, FRENCH, EFF].sum(1).astype(float), t)
              for r, t in zip((greedy, planned), per_french_turn, strict=True)]
    assert paired_difference(french[0], french[1])["ci_high"] < 0.0  # the French get fewer orders
    assert planned[:, SPANISH, M["invariant_violations"]].sum() == 0


def test_p8_p4_lgb_a_trace_replays_a_planned_spend():
    # rule P8: a game with planned spend decisions is a function of (seed, game index): the trace
    # plays it again, its metrics those of the run's game
    sim = _planning_spanish(**NEVER)
    r = sim.run(3, 9, chunk=3, per_game=True)
    for g in range(3):
        met, _ = sim.trace(9, g)
        assert (r.per_game[g] == met).all()
    assert r.per_game[:, SPANISH, M["g_spent"]].sum() > 0  # spent where greedy never spends: planned
