"""The lookahead policy (rule P8): its truth on a toy deck where the two-turn optimum is known, its
equality with greedy where it must equal it, its reproducibility, its errors."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from support.cli import napsim_main
from support.decks import write_deck
from support.enginerules import orders, write_scenario
from support.tracetools import CODE, PLY, SIDE, A, D, E, G, M

from napsim.engine import layout
from napsim.model.cards import load_deck
from napsim.model.errors import NapsimInputError
from napsim.model.policies import policy_vector
from napsim.model.scenarios import load_scenario
from napsim.sim.packing import Simulation
from napsim.sim.tables import card_table

EFF = slice(M["effective_L"], M["effective_R"] + 1)

# rule P8: the trap. Units only in the centre, hands of 4: Assault Center orders 4 (E6, equal to
# command), Attack Center 3, Probe Left nothing, a Counter-Attack the opponent's last card (D3).
# With the opponent's Attack Center just played and {Counter-Attack, Assault Center} in hand,
# greedy takes the Assault (4 > 3) and its Counter-Attack then copies a Probe (nothing); the
# two-turn optimum plays the Counter-Attack now (3) and the Assault next turn (4).
GAMES = 2000
TRAP = {"Attack Center": 1, "Assault Center": 1, "Counter-Attack": 1, "Probe Left": 13}


@pytest.fixture(scope="module")
def trap(tmp_path_factory):
    folder = tmp_path_factory.mktemp("trap")
    deck = write_deck(folder / "trap.csv", TRAP)
    sc = write_scenario(folder / "trap.toml", {
        "scenario.format": "standard", "scenario.turns": 8, "scenario.deck": str(deck),
        "sides.*.hand": 4, "sides.*.tactician": 0,
        "sides.*.sections.L": {"infantry": 0, "cavalry": 0, "artillery": 0, "leaders": 0},
        "sides.*.sections.R": {"infantry": 0, "cavalry": 0, "artillery": 0, "leaders": 0},
        "sides.*.sections.C": {"infantry": 8, "cavalry": 0, "artillery": 0, "leaders": 0}})
    return sc, load_deck(str(deck))


def _two_turn_best(ct, u, hand: list[int], last: int) -> dict[int, int]:
    """Brute force: each hand card's orders now plus the best of the next own turn, when every
    card the opponent can play next is a Probe Left (all the others are in this hand or played)."""
    def eff(t: int, copied: int) -> int:
        card = ct.mirror[copied] if ct.counter[t] else t  # D3: a copy, mirrored
        return sum(orders(ct, ct.names[card], None, u, cmd=4, standard=True)[1])

    probe = ct.names.index("Probe Left")
    out = {}
    for i, t in enumerate(hand):
        rest = hand[:i] + hand[i + 1:] + [probe]  # the Command draw is a Probe Left
        out[t] = eff(t, last) + max(eff(r, probe) for r in rest)
    return out


def _trap_turns(sim: Simulation, games: int):
    """(hand, opponent's last card as played, card played) of side A's turns in the trap."""
    ct = sim.cards
    specials = {ct.names.index(n) for n in ("Assault Center", "Counter-Attack")}
    attack = ct.names.index("Attack Center")
    for g in range(games):
        _, ev = sim.trace(3, g)
        last = ct.void
        hand = None
        for row in ev:
            if row[CODE] == layout.EV_TURN and row[SIDE] == 0:
                hand = row[layout.TR_HAND:layout.TR_HAND + row[D]].tolist()
                if row[G] < 2 or row[PLY] + 2 >= 2 * sim.scenario.turns:
                    hand = []  # a reshuffle could bring a card back; the last turn has no next
            if row[CODE] == layout.EV_CHOICE:
                if row[SIDE] == 0 and last == attack and specials <= set(hand):
                    yield hand, last, int(row[A])
                if row[SIDE] == 1:
                    last = int(row[E])


def test_p8_lookahead_finds_the_two_turn_optimum_that_greedy_misses(trap):
    # rules P1, P8: greedy's myopic choice, the lookahead's two-turn optimum
    sc, deck = trap
    ct = card_table(deck)
    u = np.zeros((4, 3), np.int64)
    u[0, 1] = 8
    found = {}
    for name, pol in (("greedy", ("greedy", {})), ("lookahead", ("lookahead", {"lookahead_d": 1}))):
        sim = Simulation.build(sc, policies=(pol, ("greedy", {})), deck=deck)
        hits = list(_trap_turns(sim, GAMES))
        assert len(hits) >= 5, name
        found[name] = [(_two_turn_best(ct, u, hand, last), played) for hand, last, played in hits]
    for best, played in found["lookahead"]:
        assert best[played] == max(best.values()) == 7
    assert all(best[played] == 4 < max(best.values()) for best, played in found["greedy"])


def _digest(sim: Simulation, games: int = 60, chunk: int = 60):
    r = sim.run(games, 11, chunk=chunk, per_game=True)
    return r.totals.tolist(), r.per_game.tobytes(), r.rack_wait.tolist()


# the commanders' kernel (epic3-tamames) compiles a planned copy of its own (about 20 s): slow
FULL = pytest.param("epic3-tamames", marks=pytest.mark.slow)


@pytest.mark.parametrize("scenario", ["symmetric", pytest.param("tamames", marks=pytest.mark.slow), FULL,
                                      "standard"])
def test_p8_horizon_zero_and_one_candidate_equal_greedy_bit_for_bit(scenario):
    # rule P8: D = 0 is the greedy choice; so is a lookahead that examines the greedy choice alone
    # (its probe of the choice point then replays the real turn exactly; its Guerrilla spend, P4,
    # one candidate too, is greedy's)
    sc = (load_scenario("symmetric", overrides={"scenario.format": "standard"})
          if scenario == "standard" else load_scenario(scenario))
    greedy = _digest(Simulation.build(sc))
    for params in ({"lookahead_d": 0}, {"lookahead_top": 1}):
        sim = Simulation.build(sc, policies=(("lookahead", params), ("lookahead", params)))
        assert sim.kernel_args()[0] == "lookahead"
        assert _digest(sim) == greedy, params


@pytest.mark.parametrize("scenario", ["symmetric", pytest.param("tamames", marks=pytest.mark.slow)])
def test_p8_same_results_whatever_threads_and_chunks(scenario, restore_threads):
    # rule P8: rollout streams are keyed on (seed, game, ply, rollout), never on a block
    sim = Simulation.build(scenario, policies=(("lookahead", {"lookahead_k": 2}), ("greedy", {})))
    numba.set_num_threads(1)
    one = _digest(sim, 24, 24)
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    assert _digest(sim, 24, 5) == one
    assert _digest(Simulation.build(scenario), 24, 24) != one  # it did plan


def test_p8_trace_replays_a_lookahead_game():
    # rule P8: a lookahead game is a function of (seed, game index), its event log too
    sim = Simulation.build("symmetric", policies=(("lookahead", {"lookahead_k": 2}), ("greedy", {})))
    met, ev = sim.trace(5, 3)
    r = sim.run(4, 5, chunk=4, per_game=True)
    assert (r.per_game[3] == met).all()
    assert (ev[:, CODE] == layout.EV_CHOICE).sum() == 2 * sim.scenario.turns


def test_p8_bad_values_are_one_line_errors():
    # rule P8: parameters in range, whole counts, lookahead's own
    with pytest.raises(NapsimInputError, match="lookahead_k"):
        policy_vector("lookahead", {"lookahead_k": "0"})
    with pytest.raises(NapsimInputError, match="whole number"):
        policy_vector("lookahead", {"lookahead_d": "1.5"})
    with pytest.raises(NapsimInputError, match="lookahead_discount"):
        policy_vector("lookahead", {"lookahead_discount": "2"})
    with pytest.raises(NapsimInputError, match="not of 'greedy'"):
        policy_vector("greedy", {"lookahead_k": "4"})
    assert policy_vector("lookahead")[layout.P_KIND] == layout.KIND_LOOKAHEAD


@pytest.mark.slow
def test_p8_lookahead_orders_at_least_greedys_on_symmetric():
    # rule P8: the same games (seed, game index) played by greedy and by lookahead for side A;
    # the paired difference of A's effective orders a turn is not below zero
    n = 600
    g = Simulation.build("symmetric").run(n, 2, chunk=n, per_game=True).per_game
    sim = Simulation.build("symmetric", policies=(("lookahead", {"lookahead_k": 16}), ("greedy", {})))
    la = sim.run(n, 2, chunk=n, per_game=True).per_game
    diff = (la[:, 0, EFF].sum(1) - g[:, 0, EFF].sum(1)) / la[:, 0, M["turns"]]
    assert diff.mean() + 1.96 * diff.std(ddof=1) / np.sqrt(n) >= 0.0


def test_p8_command_line_plays_traces_and_compares_lookahead(monkeypatch, tmp_path):
    # rule P8: the policy is a name like the others on simulate, trace and compare (La Grande
    # Battles: tests/test_lookahead_lgb.py)
    code, out, _ = napsim_main(monkeypatch, "simulate", "--scenario", "symmetric", "--games", "20",
                               "--policy", "lookahead:lookahead_k=2,greedy", "--out",
                               str(tmp_path / "run"))
    assert code == 0 and "effective orders a turn" in out
    code, out, _ = napsim_main(monkeypatch, "trace", "--scenario", "symmetric", "--game", "1",
                               "--policy", "lookahead:lookahead_k=2,greedy")
    assert code == 0 and "(lookahead)" in out
    code, out, _ = napsim_main(monkeypatch, "compare", "--scenario", "symmetric", "--games", "40",
                               "--policy-a", "greedy,greedy", "--policy-b",
                               "lookahead:lookahead_k=2,greedy")
    assert code == 0 and "lookahead" in out


def test_p8_p3_a_stars_two_uses_leave_every_effective_order_alike():
    # rules P8, P3: why the planner leaves the stars to greedy. A March Move and a Tactician card
    # give no effective orders and change none later (a Tactician card is only counted), so always
    # marching and never marching give both sides the same effective orders a turn: the paired
    # difference over 4,000 games is within 4 standard errors of 0, while the star uses did change
    n = 4000
    out = {}
    for prob in (0.0, 1.0):
        pol = ("greedy", {"march_prob": str(prob)})
        sim = Simulation.build("symmetric", policies=(pol, pol))
        out[prob] = sim.run(n, 8, chunk=n, per_game=True).per_game
    assert out[1.0][:, :, M["stars_march"]].sum() > 0 == out[0.0][:, :, M["stars_march"]].sum()
    for side in (0, 1):
        d = (out[1.0][:, side, EFF].sum(1) - out[0.0][:, side, EFF].sum(1)) / out[1.0][:, side, M["turns"]]
        assert abs(d.mean()) < 4 * d.std(ddof=1) / np.sqrt(n), (side, d.mean())
