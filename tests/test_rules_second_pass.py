"""The second pass over the rule texts (issue 26): two Scouts in one turn (G4 with E9.2/L9),
where a Counter-Attack puts a copied tactic card (D3, S4), what a Counter-Attack may copy, how the
starting Guerrilla counters are split (G6) and which spent counters return to the pool (G1, G5).

Each reading is played both ways where it is an option, on situations where the readings differ."""

from __future__ import annotations

from functools import cache

import pytest
from support.decks import write_deck
from support.tracetools import CODE, SIDE, A, B, C, D, E, F, G, M, by_ply, rows_of  # noqa: F401

from napsim.engine import layout
from napsim.model.scenarios import load_scenario
from napsim.sim.packing import Simulation

SEED = 2626
SCOUTS = {"Scout Left": 20, "Scout Center": 20, "Scout Right": 20,
          "Probe Left": 10, "Probe Center": 10, "Probe Right": 10}
LGB_GUERRILLA = {  # Spanish side A: every Corps commander's two sections hold 4+ Spanish units
    "sides.B.french": True, "sides.A.guerrilla_rule": "epic", "sides.A.corps_guerrilla": [0, 0, 0],
    "scenario.guerrilla_pool": 40,
    "sides.A.sections.L1.spanish": 2, "sides.A.sections.L2.spanish": 2,
    "sides.A.sections.C1.spanish": 2, "sides.A.sections.C2.spanish": 2,
    "sides.A.sections.R1.spanish": 2, "sides.A.sections.R2.spanish": 2,
}
EPIC_GUERRILLA = {  # Spanish side A of symmetric: every section 4 Spanish units, a large pool
    "sides.B.french": True, "sides.A.guerrilla_rule": "epic", "sides.A.guerrilla": 0,
    "scenario.guerrilla_pool": 40,
    "sides.A.sections.L.spanish": 4, "sides.A.sections.C.spanish": 4,
    "sides.A.sections.R.spanish": 4,
}


@cache
def _deck(tmp_root: str, name: str, counts: tuple) -> str:
    from pathlib import Path
    return str(write_deck(Path(tmp_root) / f"{name}.csv", dict(counts)))


@cache
def _sim(scenario: str, overrides: tuple, deck: str | None) -> Simulation:
    over = {k: list(v) if isinstance(v, tuple) else v for k, v in overrides}
    return Simulation.build(load_scenario(scenario, over), deck=deck)


def sim_for(scenario: str, overrides: dict, deck: str | None = None, **rules) -> Simulation:
    over = {**overrides, **{f"rules.{k}": v for k, v in rules.items()}}
    return _sim(scenario, tuple(sorted((k, tuple(v) if isinstance(v, list) else v)
                                       for k, v in over.items())), deck)


@pytest.fixture(scope="module")
def scout_deck(tmp_path_factory):
    return _deck(str(tmp_path_factory.mktemp("decks")), "scouts", tuple(SCOUTS.items()))


# ---------------------------------------------------------------------------------------------
# two Scouts in one turn (G4 with E9.2, L9)


def _scout_turns(sim: Simulation, games: int, lgb: bool):
    """Per Spanish (side 0) turn of traced games: (Scouts played, counters gained, two-card
    draws)."""
    ct = sim.cards
    out = []
    for g in range(games):
        for ply, rows in by_ply(sim.trace(SEED, g)[1]).items():
            turn = rows_of(rows, layout.EV_TURN)
            if ply < 0 or not len(turn) or turn[0, SIDE] != 0:
                continue
            if lgb:  # EV_CORPS_PLAY: d is the card as it plays
                cards = [int(r[D]) for r in rows_of(rows, layout.EV_CORPS_PLAY)]
            else:  # EV_CHOICE: e and f are the two cards as they play
                ch = rows_of(rows, layout.EV_CHOICE)
                cards = [int(ch[0, E]), int(ch[0, F])] if len(ch) else []
            n_scouts = sum(int(ct.scout[t]) for t in cards)
            side0 = rows[:, SIDE] == 0
            gains = int(((rows[:, CODE] == layout.EV_G_GAIN) & side0).sum())
            draws = int(((rows[:, CODE] == layout.EV_SCOUT) & side0).sum())
            out.append((n_scouts, gains, draws))
    return out


@pytest.mark.parametrize("lgb", [False, True], ids=["epic1", "lgb"])
def test_g4_e9_2_l9_two_scouts_gain_or_draw_two_never_both(lgb, scout_deck):
    # rules G4, E9.2, L9: the gain's own condition is that the CIC draws one card instead of two,
    # so a turn never has both; with two Scouts, two_scouts = gain trades the turn's one two-card
    # draw for a counter, draw_two keeps the draw and gains nothing
    scen, over = ("lgb-symmetric", LGB_GUERRILLA) if lgb else ("symmetric", EPIC_GUERRILLA)
    seen = {}
    for value in ("gain", "draw_two"):
        sim = sim_for(scen, over, scout_deck, two_scouts=value)
        res = sim.run(200, SEED, check=True)
        assert res.metric("invariant_violations").tolist() == [0, 0]
        turns = _scout_turns(sim, 40, lgb)
        assert all(not (gain and draw) for _, gain, draw in turns)  # never both
        assert all(gain <= 1 for _, gain, _ in turns)  # one counter a turn at most
        two = [(gain, draw) for n, gain, draw in turns if n >= 2]
        one = [(gain, draw) for n, gain, draw in turns if n == 1]
        assert len(two) > 20 and len(one) > 20
        assert all(gain + draw == 1 for gain, draw in one)  # one Scout: a counter or the draw
        seen[value] = sum(gain for gain, _ in two)
        if value == "draw_two":
            assert seen[value] == 0 and all(draw == 1 for _, draw in two)
    assert seen["gain"] > 10


# ---------------------------------------------------------------------------------------------
# the split of the starting counters (G6)


def _rule_g6(counters: int, spanish: list[int], share: str) -> dict[str, object]:
    """G6 stated directly: what every split must satisfy. Each commander's equal share is
    counters // n (n: all three under "lost", the eligible ones under "shared"); a commander with
    under four Spanish units holds none; every extra counter goes to an eligible commander, spread
    one each, most Spanish units first."""
    elig = [i for i in range(3) if spanish[i] >= 4]
    if not elig:
        return {"total": 0, "eligible": elig, "share": 0}
    n = 3 if share == "lost" else len(elig)
    q = counters // n
    return {"total": q * len(elig) + counters % n, "eligible": elig, "share": q}


@pytest.mark.parametrize("share", ["lost", "shared"])
def test_g6_every_count_and_eligibility_pattern(share):
    # rule G6: counters 0-9 and all eight patterns of who has four Spanish units (with distinct
    # and with equal Spanish counts): the split against the rule stated directly
    from itertools import product

    from napsim.sim.packing import guerrilla_split
    for counters, pattern, units in product(range(10), product([False, True], repeat=3),
                                            ([6, 5, 4], [4, 4, 4], [4, 5, 6])):
        spanish = [u if ok else 3 - i for i, (ok, u) in enumerate(zip(pattern, units, strict=True))]
        got = guerrilla_split(counters, spanish, share)
        want = _rule_g6(counters, spanish, share)
        where = (counters, spanish, share, got)
        assert sum(got) == want["total"], where  # only ineligible shares are lost
        assert all(got[i] == 0 for i in range(3) if i not in want["eligible"]), where
        mine = [got[i] for i in want["eligible"]]
        if mine:
            assert min(mine) >= want["share"] and max(mine) - min(mine) <= 1, where
            # more Spanish units, no fewer counters; on equal units the left one first
            for i in want["eligible"]:
                for j in want["eligible"]:
                    if (spanish[i], -i) > (spanish[j], -j):
                        assert got[i] >= got[j], where
    assert guerrilla_split(5, [6, 2, 1], "lost") == [3, 0, 0]  # issue 26: the extras are not lost
    assert guerrilla_split(5, [6, 2, 1], "shared") == [5, 0, 0]


# ---------------------------------------------------------------------------------------------
# Counter-Attack: where a copied tactic card goes (D3, S4), and what it may copy (D3, G1, G5)


def _copies(sim: Simulation, games: int):
    """Per Counter-Attack in traced EPIC games that copied a card: (the copy as it plays, its
    placement, the sections facing where the opponent put each card of his last turn that it may
    be a copy of, which of those cards (0 hand, 1 rack) it may copy, which of the opponent's last
    cards the Guerrillas nullified)."""
    ct = sim.cards
    out = []
    for g in range(games):
        last = {}  # side -> ((card, placement) of its hand and rack card, nullified slots)
        for ply, rows in sorted(by_ply(sim.trace(SEED, g)[1]).items()):
            ch = rows_of(rows, layout.EV_CHOICE)
            if ply < 0 or not len(ch):
                continue
            s = int(ch[0, SIDE])
            nullified = set()
            for a in rows_of(rows, layout.EV_G_ATTEMPT):
                if a[E] == layout.G_OUT_NULLIFIED:
                    nullified |= {0, 1} if a[A] == 2 else {int(a[A])}
            mine = ((int(ch[0, E]), int(ch[0, C])), (int(ch[0, F]), int(ch[0, D])))
            if 1 - s in last:
                theirs, gone = last[1 - s]
                for raw, (r, p) in zip((int(ch[0, A]), int(ch[0, B])), mine, strict=True):
                    if raw == ct.void or not ct.counter[raw] or r == ct.void:
                        continue
                    could = {k for k, (t, _) in enumerate(theirs)
                             if t != ct.void and ct.mirror[t] == r}
                    faces = {2 - theirs[k][1] for k in could}
                    out.append((r, p, faces, could, gone))
            last[s] = (mine, nullified)
    return out


@pytest.mark.parametrize("scenario", ["symmetric", "epic3-tamames"])
def test_d3_s4_counter_attack_section_facing_or_any(scenario):
    # rules D3, D8, S4: a copied tactic card is played in the section facing the one the opponent
    # chose (facing, the default: the Counter-Attack text puts the orders in the section the
    # opponent chose, seen from the other seat); under any the policy places it where it scores
    # best
    placed = {}
    for value in ("facing", "any"):
        sim = sim_for(scenario, {}, None, counter_attack_section=value)
        res = sim.run(200, SEED, check=True)
        assert res.metric("invariant_violations").tolist() == [0, 0]
        tactic = [(p, faces) for r, p, faces, _, _ in _copies(sim, 150)
                  if sim.cards.kind[r] == 2 and faces]
        assert len(tactic) > 30, len(tactic)
        placed[value] = sum(p in faces for p, faces in tactic) / len(tactic)
    assert placed["facing"] == 1.0
    assert placed["any"] < 0.9


@pytest.mark.parametrize("nullified", ["copy", "none"])
def test_d8_g5_a_counter_attack_on_a_card_the_guerrillas_nullified(tmp_path, nullified):
    # rules D3, D8, G5, G1: the designer's ruling (2015-07-16): the Spanish may Counter-Attack a
    # French card the Guerrillas cancelled and use it (counter_attack_nullified = copy, the
    # default); under none it gave no orders, so the Counter-Attack that follows has nothing of it
    # to copy (it may still copy the French player's other card)
    deck = str(write_deck(tmp_path / "counters.csv", {
        "Counter-Attack": 20, "Probe Left": 15, "Probe Center": 15, "Probe Right": 15,
        "Attack Left": 10, "Attack Center": 10, "Bayonet Charge": 5}))
    sim = sim_for("tamames", {"sides.S.guerrilla": 6, "scenario.guerrilla_pool": 30}, deck,
                  counter_attack_nullified=nullified)
    assert sim.scenario.rule("counter_attack_nullified") == nullified
    copies = _copies(sim, 150)
    only_nullified = sum(1 for *_, could, gone in copies if could and not could - gone)
    assert sum(1 for *_, could, gone in copies if gone) > 20  # copies after a nullified card
    if nullified == "none":
        assert only_nullified == 0
    else:
        assert only_nullified > 10  # the copy could only be of the cancelled card


def test_d3_p7_a_counter_attack_never_copies_a_first_strike(tmp_path):
    # rules D3, D8, P7: Counter-Attack's limit (the card text: not on a First Strike): a First Strike
    # played in the opponent's turn is not the card he played on his turn, and one played on his
    # own turn gave no orders, so no Counter-Attack ever plays as a First Strike
    deck = str(write_deck(tmp_path / "fs.csv", {
        "Counter-Attack": 20, "First Strike": 20, "Probe Left": 15, "Probe Center": 15,
        "Probe Right": 15, "Bayonet Charge": 5}))
    sc = load_scenario("symmetric")
    sim = Simulation.build(sc, (("greedy", {"first_strike_prob": 0.5}),
                                ("greedy", {"first_strike_prob": 0.5})), deck)
    copies = _copies(sim, 100)
    assert len(copies) > 100
    assert not any(sim.cards.first_strike[r] for r, *_ in copies)
    assert sim.run(200, SEED).metric("first_strikes").sum() > 50


def test_l6_the_lgb_trace_says_when_a_single_sabre_costs_a_block():
    # rule L6: one sabre removes a block from one of the Corps commander's units; the trace says
    # so on that roll, and two sabres say no block is lost
    from napsim.output.tracefmt import format_trace
    sim = sim_for("lgb-symmetric", {"sides.A.corps_hand": [0, 0, 0], "sides.B.corps_hand": [0, 0, 0]})
    said = rolls = 0
    for g in range(10):
        text = format_trace(sim, sim.trace(SEED, g)[1], SEED, g)
        for ln in text.splitlines():
            if "initiative roll" not in ln:
                continue
            roll = ln.split("initiative roll ")[1].split(",")[0]
            one_sabre = roll.count("sabre") == 1
            rolls += one_sabre
            said += "costs one of his units a block" in ln
            assert ("costs one of his units a block" in ln) == one_sabre, ln
    assert rolls > 20 and said == rolls


def _lgb_copies(sim: Simulation, games: int):
    """Per Counter-Attack a CIC gives in traced La Grande Battles games: (the card it plays as,
    the opponent CIC's hand card of his last turn as it played, whether his Corps commander
    discarded it unplayed, whether the Guerrillas nullified it)."""
    ct = sim.cards
    out = []
    for g in range(games):
        last = {}  # side -> (hand card as it plays, discarded unplayed, nullified)
        for _, rows in sorted(by_ply(sim.trace(SEED, g)[1]).items()):
            give = rows_of(rows, layout.EV_GIVE)
            if not len(give):
                continue
            s = int(give[0, SIDE])
            ta, tb, ka, kb, ra, rb = (int(x) for x in give[0, A:G])
            if 1 - s in last:
                for t, r in ((ta, ra), (tb, rb)):
                    if t != ct.void and ct.counter[t] and not ct.first_strike[t]:
                        out.append((r, *last[1 - s]))
            rejected = any(int(x[A]) == ka for x in rows_of(rows, layout.EV_REJECT)
                           if int(x[SIDE]) == s)
            nullified = any(int(x[SIDE]) == s and int(x[A]) == ka and int(x[B]) == layout.SRC_CIC
                            and int(x[D]) == ct.void and int(x[C]) == ta
                            for x in rows_of(rows, layout.EV_CORPS_PLAY))
            last[s] = (ra if ka >= 0 else ct.void, ka >= 0 and rejected, nullified)
    return out


@pytest.mark.parametrize("nullified", ["copy", "none"])
def test_d8_l5_lgb_counter_attack_copies_the_cic_hand_card_only_when_it_was_played(tmp_path,
                                                                                  nullified):
    # rules D8, L5, G5, D3: in La Grande Battles a Counter-Attack copies the opposing CIC's hand
    # card, mirrored; a card his Corps commander discarded unplayed for one of his own gave no
    # orders and leaves nothing to copy; a card the Guerrillas cancelled is still copied under
    # counter_attack_nullified = copy (the designer's ruling), not under none
    deck = str(write_deck(tmp_path / "lgb-counters.csv", {
        "Counter-Attack": 20, "Probe Left": 15, "Probe Center": 15, "Probe Right": 15,
        "Attack Left": 10, "Attack Center": 10, "Bayonet Charge": 5}))
    sim = sim_for("lgb-symmetric", {**LGB_GUERRILLA, "sides.A.corps_guerrilla": [9, 9, 9]}, deck,
                  counter_attack_nullified=nullified)
    ct = sim.cards
    copies = _lgb_copies(sim, 120)
    seen = {"rejected": 0, "nullified": 0, "played": 0}
    for r, opp, rejected, gone in copies:
        if rejected:
            seen["rejected"] += 1
            assert r == ct.void  # a discarded card gave no orders
        elif gone:
            seen["nullified"] += 1
            want = ct.mirror[opp] if nullified == "copy" and opp != ct.void else ct.void
            assert r == want, (ct.names[r], ct.names[opp])
        elif opp != ct.void:
            seen["played"] += 1
            assert r == ct.mirror[opp]
    assert seen["rejected"] > 5 and seen["played"] > 50 and seen["nullified"] > 3, seen
