"""Run EPIC / standard games: scenario + deck + policies -> packed tables -> kernel chunks.

`Simulation` holds the packed inputs; `run()` plays games [0, n) in fixed chunks and returns a
`SimResult` with summed metrics, optional per-game rows and the rack waiting-time histogram.
Integer sums make the result identical for any chunk size or thread count.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from napsim.cards import SECTIONS, Deck, load_deck
from napsim.engine import commanders as cm
from napsim.engine import epic, lgb
from napsim.engine.commanders import CM_NAMES, COMMANDER_KEYS, COMMANDER_ROLES, N_CM
from napsim.engine.rng import seed_key
from napsim.errors import NapsimInputError
from napsim.policies import policy_vector
from napsim.scenarios import Scenario, load_scenario
from napsim.stats import wilson
from napsim.tables import (
    KIND_NAMES,
    KIND_SECTION,
    CardTable,
    PairTables,
    card_table,
    pair_tables,
    units_array,
)
from napsim.tables_lgb import LgbTables, lgb_tables, units6_array

DEFAULT_CHUNK = 20_000
GUERRILLA_RULE_CODES = {"off": epic.G_OFF, "base": epic.G_BASE, "epic": epic.G_EPIC}


def guerrilla_config(sc: Scenario) -> np.ndarray:
    """gcfg[side, column] for the kernel: rule, the CIC's starting counters, French flag, Spanish
    units per section, each section commander's starting counters (G6 with 3-4 players a side;
    counters no commander may hold stay in the pool) and (row 0) the unacquired pool."""
    g = np.zeros((2, epic.N_GCFG), np.int64)
    _, _, g_sec = commander_config(sc)
    pool = sc.guerrilla_pool
    for k, side in enumerate(sc.sides):
        g[k, epic.G_RULE] = GUERRILLA_RULE_CODES[side.guerrilla_rule]
        g[k, epic.G_FRENCH] = 1 if side.french else 0
        for x, sec in enumerate(side.sections):
            g[k, epic.G_SPAN + x] = sec.spanish
        if FORMAT_PLAYERS.get(sc.format, 1) >= 3:
            g[k, epic.G_START_L:epic.G_START_L + 3] = g_sec[k]
            pool += side.guerrilla - int(g_sec[k].sum())
        else:
            g[k, epic.G_START] = side.guerrilla
    g[0, epic.G_POOL0] = pool
    return g


@dataclass
class Simulation:
    """Everything a kernel call needs, packed once per (scenario, deck, policies)."""

    scenario: Scenario
    deck: Deck
    policy_names: tuple[str, str]
    policies: np.ndarray
    cards: CardTable
    tables: PairTables
    ctab: np.ndarray = field(repr=False)
    counts: np.ndarray = field(repr=False)
    lgb: LgbTables | None = field(default=None, repr=False)  # La Grande Battles tables

    @classmethod
    def build(cls, scenario: Scenario | str, policies=(("greedy", {}), ("greedy", {})),
              deck: Deck | str | None = None) -> Simulation:
        sc = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
        if len(policies) != 2:
            raise NapsimInputError("--policy", "policy", f"{len(policies)} policies given",
                                   "one per side, e.g. greedy,random")
        dk = deck if isinstance(deck, Deck) else load_deck(deck or sc.deck)
        pol = np.stack([policy_vector(n, o) for n, o in policies])
        cards = card_table(dk)
        cmax = max(s.hand for s in sc.sides) + 1
        if cmax > epic.MAX_HAND:
            raise NapsimInputError(str(sc.path), "hand", "hand too large", f"1-{epic.MAX_HAND - 1}")
        tables = pair_tables(cards, units_array(sc), cmax, pol, sc.format == "standard",
                             cic_forbidden_sections(sc))
        ctab = np.stack([cards.kind, cards.sec, cards.stars, cards.tdraw, cards.scout, cards.elan,
                         cards.first_strike, cards.counter, cards.mirror, cards.eq_cmd,
                         np.where(cards.kind == KIND_SECTION, 1 << np.maximum(cards.sec, 0), 8)],
                        axis=1).astype(np.int64)
        counts = np.bincount(cards.deck, minlength=len(cards.names)).astype(np.int64)
        lgb_t = None
        if sc.format == "lgb":
            u6 = units6_array(sc)
            pairs = u6[:, :, 0::2].sum(axis=1) + u6[:, :, 1::2].sum(axis=1)
            hands = max(max(s.hand, *s.corps_hand) for s in sc.sides)
            # E6 orders beyond a Corps commander's units change nothing effective, so commands are
            # clamped at the largest of hands and units (nominal counts clamp there too)
            lgb_cmax = min(max(hands, int(pairs.max())) + 1, epic.MAX_HAND + dk.n_cards - 1)
            fm = np.zeros(len(cards.names), np.int64)
            fm[:-1] = dk.cards["force_march"].to_numpy()
            lgb_t = lgb_tables(cards, fm, u6, lgb_cmax, pol)
        return cls(sc, dk, (policies[0][0], policies[1][0]), pol, cards, tables, ctab, counts, lgb_t)

    def _args(self):
        sc, t = self.scenario, self.tables
        return (
            sc.format == "standard", np.int64(sc.turns), np.int64(sc.first),
            np.array([s.hand for s in sc.sides], np.int64),
            np.array([s.tactician for s in sc.sides], np.int64),
            np.array([s.square_form for s in sc.sides], np.float64),
            np.array([s.square_leave for s in sc.sides], np.float64),
            self.policies, self.ctab, self.cards.deck, self.counts, t.best_val, t.best_k, t.best_list,
            t.nominal, t.eff, t.rem, t.n_place, t.place_list, t.e4_only, t.play_val, t.play_key,
            t.record,
            guerrilla_config(sc), *self._commander_args(), rule_options(sc, self.deck),
        )

    def _commander_args(self):
        """(players a side, commander of each section, starting Tactician cards per commander,
        units [side, type, section]) for the EPIC kernel's commander layer (docs/rules.md, M)."""
        cmd_sec, tac, _ = commander_config(self.scenario)
        return (np.int64(FORMAT_PLAYERS.get(self.scenario.format, 1)), cmd_sec, tac,
                units_array(self.scenario))

    def _lgb_args(self):
        sc, t = self.scenario, self.lgb
        scfg = np.zeros((2, lgb.N_SCFG), np.int64)
        for k, side in enumerate(sc.sides):
            scfg[k, lgb.S_HAND] = side.hand
            scfg[k, lgb.S_CORPS_HAND:lgb.S_CORPS_HAND + 3] = side.corps_hand
            scfg[k, lgb.S_CORPS_TAC:lgb.S_CORPS_TAC + 3] = side.corps_tactician
            scfg[k, lgb.S_G_RULE] = GUERRILLA_RULE_CODES[side.guerrilla_rule]
            scfg[k, lgb.S_FRENCH] = 1 if side.french else 0
            six = side.lgb_sections
            scfg[k, lgb.S_SPAN:lgb.S_SPAN + 3] = [six[2 * c].spanish + six[2 * c + 1].spanish
                                                   for c in range(3)]
            scfg[k, lgb.S_G_START:lgb.S_G_START + 3] = corps_guerrilla(side, sc.rule("guerrilla_share"))
        sqp = np.array([[s.square_form, s.square_leave] for s in sc.sides], np.float64)
        return (np.int64(sc.turns), np.int64(sc.first), scfg, sqp, self.policies, self.ctab,
                self.cards.deck, self.counts, t.nom, t.eff, t.rem, t.val, t.best, t.bopt, t.units,
                np.int64(sc.guerrilla_pool), rule_options(sc, self.deck))

    def kernel_args(self) -> tuple:
        """(kernel name, packed arguments): what `play_chunk` needs; plain, picklable arrays."""
        if self.scenario.format == "lgb":
            return ("lgb", self._lgb_args())
        return ("epic", self._args())

    def run(self, games: int, seed: int, chunk: int = DEFAULT_CHUNK, per_game: bool = False,
            check: bool = False, progress: Callable[[int, int], None] | None = None) -> SimResult:
        """Play games [0, games) in chunks; identical results for any chunk size and threads."""
        if games <= 0:
            raise NapsimInputError("--games", "games", f"{games} is not positive", ">= 1")
        if chunk <= 0:
            raise NapsimInputError("--chunk", "chunk", f"{chunk} is not positive", ">= 1")
        key = seed_key(seed)
        args = self.kernel_args()
        turns = self.scenario.turns
        totals = np.zeros((2, epic.N_METRICS), np.int64)
        waits = np.zeros((4, epic.WAIT_BINS), np.int64)
        g_turns = np.zeros((3, turns), np.int64)
        cmet = np.zeros((2, 4, N_CM), np.int64)
        tac_turns = np.zeros((2, turns), np.int64)
        rows = []
        crows = []
        t0 = time.perf_counter()
        for first in range(0, games, chunk):
            n = min(chunk, games - first)
            out = play_chunk(args, key, first, n, check, per_game)
            totals += out.totals
            waits += out.rack_wait
            g_turns += out.guerrilla_turns
            cmet += out.commander_totals
            tac_turns += out.tactician_turns
            if per_game:
                rows.append(out.rows)
                crows.append(out.commander_rows)
            if progress:
                progress(first + n, games)
        wall = time.perf_counter() - t0
        per = np.concatenate(rows) if per_game else None
        cper = np.concatenate(crows) if per_game else None
        return SimResult(self, games, seed, totals, per, waits, wall, g_turns, cmet, cper, tac_turns)

    def trace(self, seed: int, game: int) -> tuple[np.ndarray, np.ndarray]:
        """(metrics, event log) of one game, replayed from (seed, game index)."""
        kind, args = self.kernel_args()
        with np.errstate(over="ignore"):
            if kind == "lgb":
                return lgb.trace_game_lgb(seed_key(seed), np.int64(game), *args)
            return epic.trace_game(seed_key(seed), np.int64(game), *args)


FORMAT_PLAYERS = {"standard": 1, "epic1": 1, "epic2": 2, "epic3": 3, "epic4": 4, "lgb": 4}


def rule_options(sc: Scenario, deck: Deck) -> np.ndarray:
    """ropt[R_*] for the kernels: the scenario's readings of the open points as flags, and the
    Tactician cards that come with the deck (docs/rules.md, "Rule options")."""
    r = np.zeros(epic.N_ROPT, np.int64)
    r[epic.R_INIT_NEEDS_NO_ORDERS] = sc.rule("initiative") == "no_card_no_orders"
    # the same-section pair goes to one commander: always with 1-2 a side, by option with 3-4
    r[epic.R_E4_PLAYABLE] = (FORMAT_PLAYERS.get(sc.format, 1) <= 2
                             or sc.rule("same_section_receiver") == "one_commander")
    r[epic.R_SHUFFLE_FIRST] = sc.rule("elan_order") == "shuffle_first"
    r[epic.R_CA_EITHER] = sc.rule("counter_attack_copies") == "either"
    r[epic.R_TAC_DECK] = deck.tactician_deck
    return r


def cic_forbidden_sections(sc: Scenario) -> tuple[int, int]:
    """Per side, the section where no card may join a multi-section card (cic_keeps = one, EPIC
    with 3 a side: the CIC commands that section and plays at most one card); -1 elsewhere."""
    if sc.format != "epic3" or sc.rule("cic_keeps") == "both":
        return (-1, -1)
    return (sc.sides[0].cic_section, sc.sides[1].cic_section)


def commander_config(sc: Scenario) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """EPIC with 1-4 players a side (docs/rules.md, M): (commander of each section [side, 3]; starting
    Tactician cards per commander [side, 4]; Guerrilla counters per section [side, 3]).

    Commander 0 is the CIC. epic3: the CIC holds `cic_section`, sub-commanders 1 and 2 the other
    two (left to right); epic4: Corps commanders 1-3 hold L, C, R; epic1/epic2: the CIC gives every
    order (the epic2 sub-commander has no section of his own). Tactician cards (M6.3, M8.2): the
    CIC holds them all in epic1/epic2; in epic3 each player starts with one plus an even share of
    the scenario's cards, in epic4 each Corps commander does (the CIC none); the remainder goes
    one each to the holders from the CIC (epic3) or the left (epic4) on: the policy napsim uses
    for the CIC's pick. Guerrilla counters (G6): epic3/epic4 split them by section commander
    (`guerrilla_split`); otherwise they stay with the CIC (all zeros here)."""
    n = FORMAT_PLAYERS.get(sc.format, 1)
    cmd_sec = np.zeros((2, 3), np.int64)
    tac = np.zeros((2, 4), np.int64)
    g_sec = np.zeros((2, 3), np.int64)
    for k, side in enumerate(sc.sides):
        if n == 3:
            subs = [x for x in range(3) if x != side.cic_section]
            cmd_sec[k, subs] = (1, 2)
            holders = [0, 1, 2]
        elif n == 4:
            cmd_sec[k] = (1, 2, 3)
            holders = [1, 2, 3]
        else:
            tac[k, 0] = side.tactician
            holders = []
        if holders:
            for i, c in enumerate(holders):
                tac[k, c] = 1 + side.tactician // 3 + (1 if i < side.tactician % 3 else 0)
        if n >= 3 and side.guerrilla_rule != "off":
            g_sec[k] = guerrilla_split(side.guerrilla, [x.spanish for x in side.sections],
                                       sc.rule("guerrilla_share"))
    return cmd_sec, tac, g_sec


def corps_guerrilla(side, share: str = "lost") -> list[int]:
    """G6 in LGB: each Corps commander's starting counters (`corps_guerrilla`); a scenario that
    gives only `guerrilla` has it split as for 3-4 players a side (`guerrilla_split`)."""
    if any(side.corps_guerrilla) or side.guerrilla == 0:
        return list(side.corps_guerrilla)
    six = side.lgb_sections
    return guerrilla_split(side.guerrilla, [six[2 * c].spanish + six[2 * c + 1].spanish for c in range(3)],
                           share)


def guerrilla_split(counters: int, spanish: list[int], share: str = "lost") -> list[int]:
    """G6 for 3-4 players a side: only commanders whose sections hold at least four Spanish units
    receive counters. share = "lost" (the literal reading): the counters are divided evenly among
    all the commanders and the share of an ineligible one is not given out; "shared": they are
    divided among the eligible commanders only. The remainder goes one each to the eligible ones
    with the most Spanish units (the leftmost on ties: the policy napsim uses for the CIC's pick).
    Counters nobody receives stay in the unacquired pool."""
    eligible = [i for i, n in enumerate(spanish) if n >= 4]
    out = [0] * len(spanish)
    if not eligible:
        return out
    among = len(eligible) if share == "shared" else len(spanish)
    for i in eligible:
        out[i] = counters // among
    for i in sorted(eligible, key=lambda i: (-spanish[i], i))[: counters % among]:
        out[i] += 1
    return out


@dataclass
class ChunkOut:
    """What one kernel call returns, the same for every format."""

    totals: np.ndarray            # [side, metric]
    rows: np.ndarray              # [games or 0, side, metric]
    rack_wait: np.ndarray         # [kind, wait]
    guerrilla_turns: np.ndarray   # [offered/spent/nullified, turn]
    commander_totals: np.ndarray  # [side, commander, CM]
    commander_rows: np.ndarray    # [games or 0, side, commander, CM]
    tactician_turns: np.ndarray   # [side, turn]: Tactician cards held at the start of its turns


def play_chunk(args: tuple, key, first: int, n: int, check: bool, per_game: bool) -> ChunkOut:
    """Games [first, first + n) on the kernel that `Simulation.kernel_args()` names."""
    kind, kargs = args
    with np.errstate(over="ignore"):
        if kind == "lgb":
            m, r, w, gt, cm, cr, tt = lgb.play_chunk_lgb(key, np.int64(first), np.int64(n), *kargs,
                                                          check, per_game)
            return ChunkOut(m, r, w, gt, cm, cr, tt)
        m, r, w, gt, cm_, cr, tt = epic.play_chunk(key, np.int64(first), np.int64(n), *kargs, check,
                                                   per_game)
    if cr.shape[0] != r.shape[0]:  # one player a side: no commander rows are kept
        cr = np.zeros((r.shape[0], 2, 4, N_CM), np.int64)
    return ChunkOut(m, r, w, gt, cm_, cr, tt)


@dataclass
class SimResult:
    """Metrics of a run: totals [side, metric], optional per-game rows, rack waits [kind, turns]."""

    sim: Simulation
    games: int
    seed: int
    totals: np.ndarray
    per_game: np.ndarray | None
    rack_wait: np.ndarray
    wall_seconds: float
    guerrilla_turns: np.ndarray | None = None  # [offered, spent, nullified] x turn of a side
    commanders: np.ndarray | None = None       # [side, commander, CM] per-commander totals (M, L)
    commander_rows: np.ndarray | None = None   # [game, side, commander, CM] when per_game
    tactician_turns: np.ndarray | None = None  # [side, turn] Tactician cards held, summed over games

    def metric(self, name: str) -> np.ndarray:
        """Total of one metric per side."""
        return self.totals[:, epic.METRIC_NAMES.index(name)]

    def per_game_frame(self) -> pd.DataFrame:
        """Tidy per-game frame: one row per game and side."""
        if self.per_game is None:
            raise ValueError("run with per_game=True to keep per-game rows")
        n = self.per_game.shape[0]
        frames = []
        for s, side in enumerate(self.sim.scenario.sides):
            df = pd.DataFrame(self.per_game[:, s, :], columns=list(epic.METRIC_NAMES))
            df.insert(0, "side", side.name)
            df.insert(0, "game", np.arange(n))
            frames.append(df)
        return pd.concat(frames, ignore_index=True)

    def summary(self) -> pd.DataFrame:
        """Per side: means per game and per turn, and rates with Wilson intervals and n."""
        rows = []
        for s, side in enumerate(self.sim.scenario.sides):
            tot = self.totals[s]
            turns = int(tot[epic.M_TURNS])
            for i, name in enumerate(epic.METRIC_NAMES):
                rows.append(dict(side=side.name, metric=name, kind="mean_per_game",
                                 value=tot[i] / self.games, ci_low=np.nan, ci_high=np.nan,
                                 n=self.games))
            picks = tot[epic.M_PICK_FROM:epic.M_PICK_FROM + 6]
            n_picks = int(picks.sum())
            for size in (5, 4, 3):
                k = int(picks[size])
                lo, hi = wilson(k, n_picks)
                rows.append(dict(side=side.name, metric=f"share_picks_from_{size}",
                                 kind="rate", value=k / max(n_picks, 1), ci_low=lo, ci_high=hi,
                                 n=n_picks))
            for name, idx in (("same_section_turn_rate", epic.M_E4),
                              ("scout_turn_rate", epic.M_SCOUT)):
                k = int(tot[idx])
                lo, hi = wilson(k, turns)
                rows.append(dict(side=side.name, metric=name, kind="rate", value=k / max(turns, 1),
                                 ci_low=lo, ci_high=hi, n=turns))
            nom = int(tot[epic.M_NOM:epic.M_NOM + 3].sum())
            eff = int(tot[epic.M_EFF:epic.M_EFF + 3].sum())
            lo, hi = wilson(eff, nom)
            rows.append(dict(side=side.name, metric="effective_share_of_nominal", kind="rate",
                             value=eff / max(nom, 1), ci_low=lo, ci_high=hi, n=nom))
            for x, sec in enumerate(SECTIONS):
                rows.append(dict(side=side.name, metric=f"effective_per_turn_{sec}",
                                 kind="mean_per_turn", value=tot[epic.M_EFF + x] / max(turns, 1),
                                 ci_low=np.nan, ci_high=np.nan, n=turns))
            if self._guerrilla_rows():
                rows += _guerrilla_summary(side.name, tot, turns)
            if self.commanders is not None:
                rows += _commander_summary(side.name, self.commanders, s, self.games, turns)
        return pd.DataFrame(rows)

    def commander_games_frame(self) -> pd.DataFrame:
        """Tidy per-game commander frame: one row per game, side and commander of the format."""
        if self.commander_rows is None:
            raise ValueError("run with per_game=True to keep per-game rows")
        n = self.commander_rows.shape[0]
        roles = COMMANDER_ROLES.get(self.sim.scenario.format, ("CIC",))
        frames = []
        for s, side in enumerate(self.sim.scenario.sides):
            for c in range(len(roles)):
                df = pd.DataFrame(self.commander_rows[:, s, c, :], columns=list(CM_NAMES))
                df.insert(0, "commander", COMMANDER_KEYS[c])
                df.insert(0, "side", side.name)
                df.insert(0, "game", np.arange(n))
                frames.append(df)
        return pd.concat(frames, ignore_index=True)

    def commander_frame(self) -> pd.DataFrame:
        """Per-commander totals (docs/rules.md, M, L): one row per side and commander, a column per
        metric, with the commander's role in this format."""
        if self.commanders is None:
            raise ValueError("no per-commander metrics in this result")
        roles = COMMANDER_ROLES.get(self.sim.scenario.format, ("CIC",))
        rows = []
        for s, side in enumerate(self.sim.scenario.sides):
            for c, role in enumerate(roles):
                row = dict(side=side.name, commander=COMMANDER_KEYS[c], role=role, games=self.games)
                row.update({n: int(self.commanders[s, c, i]) for i, n in enumerate(CM_NAMES)})
                rows.append(row)
        return pd.DataFrame(rows)

    def _guerrilla_rows(self) -> bool:
        """Whether summary() lists the guerrilla rates (rule G7): when a side plays the guerrilla
        rule, and in an empty result (no turns), which lists every metric a summary may hold."""
        t = self.totals
        return bool(t[:, epic.M_G_FRENCH_TURNS].sum() > 0 or t[:, epic.M_TURNS].sum() == 0)

    def rack_wait_frame(self) -> pd.DataFrame:
        """Histogram of turns a card waited on the rack before it was taken, by card kind."""
        rows = []
        for k, kind in enumerate(KIND_NAMES):
            for w in range(self.rack_wait.shape[1]):
                if self.rack_wait[k, w]:
                    rows.append(dict(kind=kind, wait_turns=w, cards=int(self.rack_wait[k, w])))
        return pd.DataFrame(rows, columns=["kind", "wait_turns", "cards"])


# Spanish Guerrilla Action rates (rule G7): name -> (metrics added, metric subtracted, trials). A
# nullification is a French turn with a counter spent and not stopped by a sabre: one card under
# the EPIC rule (so the rate is also cards nullified per French turn), the whole turn under the
# base rule (one card in the standard game, both cards in the EPIC card flow)
GUERRILLA_RATES = {
    "g_nullification_rate": (epic.M_G_SPENT, epic.M_G_SABRE, epic.M_G_FRENCH_TURNS),
    "g_attempt_success_rate": (epic.M_G_SPENT, epic.M_G_SABRE, epic.M_G_SPENT),
    "g_offered_not_spent_rate": (epic.M_G_NOT_SPENT, None, epic.M_G_OFFERED),
    "g_offered_rate": (epic.M_G_OFFERED, None, epic.M_G_FRENCH_TURNS),
}


def _guerrilla_summary(side: str, tot: np.ndarray, turns: int) -> list[dict]:
    """Guerrilla rows of one side: rates per French turn, per counter spent and per offer, with
    Wilson intervals (NaN where there was nothing to count: a side without the rule), and cards
    nullified and effective orders denied per turn (the Spanish play as many turns as the French)."""
    rows = []
    for name, (plus, minus, trials) in GUERRILLA_RATES.items():
        k = int(tot[plus] - (tot[minus] if minus is not None else 0))
        n = int(tot[trials])
        lo, hi = wilson(k, n)
        rows.append(dict(side=side, metric=name, kind="rate", value=k / n if n else np.nan,
                         ci_low=lo, ci_high=hi, n=n))
    for name, idx in (("g_cards_nullified_per_turn", epic.M_G_NULLIFIED),
                      ("g_denied_effective_per_turn", epic.M_G_DENIED_EFF)):
        rows.append(dict(side=side, metric=name, kind="mean_per_turn", value=tot[idx] / max(turns, 1),
                         ci_low=np.nan, ci_high=np.nan, n=turns))
    return rows


# per-commander rates (docs/rules.md M6.2, L6): name -> (events, trials); the dice give exact values
# for the last two (a double 2/9, two sabres 1/36), which the tests check
COMMANDER_RATES = {
    "initiative_share": (cm.CM_INIT, cm.CM_TURNS),
    "initiative_double_rate": (cm.CM_DOUBLES, cm.CM_INIT),
    "initiative_two_sabres_rate": (cm.CM_TWO_SABRES, cm.CM_INIT),
}
COMMANDER_MEANS = ("cards_received", "own_cards_played", "cic_cards_rejected", "initiative_rolls",
                   "initiative_ordered", "initiative_march", "initiative_melee", "blocks_lost",
                   "initiative_command_draws", "initiative_tactician", "card_effective",
                   "tactician_drawn", "tactician_held_end", "cic_keep_one", "cic_give_both",
                   "scout_gifts", "hand_end", "cards_passed", "g_spent", "g_nullified", "g_acquired")


def _commander_summary(side: str, cmet: np.ndarray, s: int, games: int, turns: int) -> list[dict]:
    """Rows for every commander with any activity in either side (so both sides list the same
    rows): `<commander>.<metric>`, e.g. `c1.initiative_share`, plus the side's overall share of
    commander-turns that fall back on initiative."""
    rows = []
    present = [c for c in range(cmet.shape[1]) if cmet[:, c, :].any()]
    for c in present:
        x = cmet[s, c]
        key = COMMANDER_KEYS[c]
        for name, (num, den) in COMMANDER_RATES.items():
            k, n = int(x[num]), int(x[den])
            lo, hi = wilson(k, n)
            rows.append(dict(side=side, metric=f"{key}.{name}", kind="rate",
                             value=k / n if n else np.nan, ci_low=lo, ci_high=hi, n=n))
        for name in COMMANDER_MEANS:
            rows.append(dict(side=side, metric=f"{key}.{name}", kind="mean_per_game",
                             value=x[CM_NAMES.index(name)] / max(games, 1), ci_low=np.nan,
                             ci_high=np.nan, n=games))
        n_t = int(x[cm.CM_TURNS])
        rows.append(dict(side=side, metric=f"{key}.tactician_held_mean", kind="mean_per_turn",
                         value=x[cm.CM_TAC_HELD_SUM] / n_t if n_t else np.nan, ci_low=np.nan,
                         ci_high=np.nan, n=n_t))
    if present:
        k, n = int(cmet[s, :, cm.CM_INIT].sum()), int(cmet[s, :, cm.CM_TURNS].sum())
        lo, hi = wilson(k, n)
        rows.append(dict(side=side, metric="initiative_share", kind="rate", value=k / n if n else np.nan,
                         ci_low=lo, ci_high=hi, n=n))
    return rows
