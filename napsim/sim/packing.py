"""Packing: scenario + deck + policies -> the plain arrays a kernel call reads.

`Simulation.build` validates the inputs and packs them once (card table, pair tables, the
format's commander and Guerrilla configuration, the rule options); `kernel_args()` hands them to
`napsim.sim.runner`, which plays the games (`Simulation.run`, `Simulation.trace`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from napsim.engine import layout
from napsim.engine.kernel_pick import LGB, KernelPick, pick_kernel
from napsim.engine.layout import EpicArgs, LgbArgs
from napsim.engine.rng import seed_key
from napsim.model.cards import SECTIONS, Deck, load_deck
from napsim.model.defaults import SIM_CHUNK
from napsim.model.errors import NapsimInputError
from napsim.model.filters import orders_in
from napsim.model.house_rules import card_changes
from napsim.model.policies import policy_vector, with_table
from napsim.model.scenarios import Scenario, load_scenario
from napsim.sim.result import SimResult
from napsim.sim.runner import RowSink, play_chunk, run_games, trace_game
from napsim.sim.tables import (
    KIND_SECTION,
    CardTable,
    PairTables,
    card_table,
    pair_tables,
    units_array,
)
from napsim.sim.tables_lgb import LgbTables, lgb_tables, units6_array

GUERRILLA_RULE_CODES = {"off": layout.G_OFF, "base": layout.G_BASE, "epic": layout.G_EPIC}


def guerrilla_config(sc: Scenario) -> np.ndarray:
    """gcfg[side, column] for the kernel: rule, the CIC's starting counters, French flag, Spanish
    units per section, each section commander's starting counters (G6 with 3-4 players a side;
    counters no commander may hold stay in the pool) and (row 0) the unacquired pool."""
    g = np.zeros((2, layout.N_GCFG), np.int64)
    _, _, g_sec = commander_config(sc)
    pool = sc.guerrilla_pool
    for k, side in enumerate(sc.sides):
        g[k, layout.G_RULE] = GUERRILLA_RULE_CODES[side.guerrilla_rule]
        g[k, layout.G_FRENCH] = 1 if side.french else 0
        for x, sec in enumerate(side.sections):
            g[k, layout.G_SPAN + x] = sec.spanish
        if FORMAT_PLAYERS.get(sc.format, 1) >= 3:
            g[k, layout.G_START_L:layout.G_START_L + 3] = g_sec[k]
            pool += side.guerrilla - int(g_sec[k].sum())
        else:
            g[k, layout.G_START] = side.guerrilla
    g[0, layout.G_POOL0] = pool
    return g


def check_deck_plays(sc: Scenario, dk: Deck) -> None:
    """A deck a game can be played with: it deals both opening hands (later draws may starve, D6)
    and holds a card that can order units (else every metric is 0 or 0/0)."""
    lgb_format = sc.format == "lgb"
    opening = sum(s.hand + (sum(s.corps_hand) if lgb_format else 0) for s in sc.sides)
    where = f"deck '{dk.name}' ({dk.path})"
    if dk.n_cards < opening:
        raise NapsimInputError(where, "count", f"{dk.n_cards} cards cannot deal the opening hands of "
                               f"scenario '{sc.name}' ({opening} cards)",
                               f"a deck of {opening} cards or more")
    held = dk.counts > 0
    if not any((orders_in(dk.cards, s) & held).any() for s in SECTIONS):
        raise NapsimInputError(where, "kind", "no card can order units (a game would play nothing)",
                               "section, multi, tactic, troop or leadership cards")


def solo_major(best_val: np.ndarray) -> np.ndarray:
    """best_val [side, cmd, a, b] as the EPIC kernel reads it: [side, cmd, b, a], C order, so that
    the scores of single cards (b = VOID), read a few times every turn (Counter-Attack source,
    Scout draw, E4 receiver), lie in one run of a few cache lines instead of one line each."""
    return np.ascontiguousarray(best_val.swapaxes(2, 3))


def ca_sources(best_val: np.ndarray, ctab: np.ndarray, either: bool) -> np.ndarray:
    """[side, cmd, h, r]: the card a Counter-Attack copies this turn (D3, mirrored when played)
    when the opponent's last turn played hand card h and rack card r (VOID for none): h, or under
    counter_attack_copies = either r when there is no h or r's mirrored card scores more for
    this commander (`best_val[side, cmd, card, VOID]`, ties to h). A table, so that the kernel
    reads the choice in one load instead of comparing two scores on the turn's chain."""
    n = ctab.shape[0]
    void = n - 1
    h = np.arange(n)[:, None]
    r = np.arange(n)[None, :]
    src = np.broadcast_to(h, (*best_val.shape[:2], n, n))
    if either:
        score = best_val[:, :, :, void][:, :, ctab[:, layout.C_MIRROR]]  # [side, cmd, card]
        better = score[:, :, None, :] > score[:, :, :, None] + 1e-9  # [side, cmd, h, r]
        src = np.where((r != void) & ((h == void) | better), r, h)
    return np.ascontiguousarray(src, dtype=np.uint16)


@dataclass
class Simulation:
    """Everything a kernel call needs, packed once per (scenario, deck, policies)."""

    scenario: Scenario
    deck: Deck
    policy_names: tuple[str, str]
    policies: np.ndarray
    cards: CardTable
    tables: PairTables | None  # EPIC and the standard game (None for La Grande Battles)
    ctab: np.ndarray = field(repr=False)
    counts: np.ndarray = field(repr=False)
    lgb: LgbTables | None = field(default=None, repr=False)  # La Grande Battles tables
    _packed: tuple | None = field(default=None, init=False, repr=False, compare=False)

    @classmethod
    def build(cls, scenario: Scenario | str, policies=(("greedy", {}), ("greedy", {})),
              deck: Deck | str | None = None, checked: Callable[[], None] | None = None,
              dry: bool = False) -> Simulation:
        """Validate the scenario, deck and policies and pack them. `checked()` is called once every
        input is validated, before the tables are built (their builder is jitted: the first call
        compiles it), so that a caller's compile notice never comes before an input error. `dry`:
        the tables left empty, for `compile_kernel` only (napsim.sim.precompile); it plays no game."""
        sc = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
        if len(policies) != 2:
            raise NapsimInputError("--policy", "policy", f"{len(policies)} policies given",
                                   "one per side, e.g. greedy,random")
        dk = deck if isinstance(deck, Deck) else load_deck(deck or sc.deck)
        check_deck_plays(sc, dk)
        # a scenario's [policy.<side>] table tunes the policy it names (napsim tune)
        pol = np.stack([policy_vector(n, with_table(sc.policies, s.key, n, o))
                        for s, (n, o) in zip(sc.sides, policies, strict=True)])
        cmax = max(s.hand for s in sc.sides) + 1
        if cmax > layout.MAX_HAND:
            raise NapsimInputError(str(sc.path), "hand", "hand too large", f"1-{layout.MAX_HAND - 1}")
        lgb_cmax = _lgb_cmax(sc, dk) if sc.format == "lgb" else cmax
        # the house rules in force; a card that rolls its orders is rolled at up to the largest
        # command of the tables (D2)
        cards = card_table(dk, card_changes(sc.rules, sc.format), lgb_cmax)
        if checked is not None:
            checked()
        # the pair tables are EPIC's (and the standard game's); La Grande Battles has its own below
        family = pick_kernel(sc.format).family
        tables = None if family == LGB else pair_tables(
            cards, units_array(sc), cmax, pol, sc.format == "standard", cic_forbidden_sections(sc),
            dry)
        ctab = np.stack([cards.kind, cards.sec, cards.stars, cards.tdraw, cards.scout, cards.elan,
                         cards.first_strike, cards.counter, cards.mirror, cards.eq_cmd,
                         np.where(cards.kind == KIND_SECTION, 1 << np.maximum(cards.sec, 0), 8),
                         cards.dice, cards.dice_var],
                        axis=1).astype(np.int64)
        counts = np.bincount(cards.deck, minlength=len(cards.names)).astype(np.int64)
        lgb_t = None
        if family == LGB:
            fm = np.zeros(len(cards.names), np.int64)
            fm[:-1] = dk.cards["force_march"].to_numpy()[cards.base[:-1]]
            lgb_t = lgb_tables(cards, fm, units6_array(sc), lgb_cmax, pol, dry)
        return cls(sc, dk, (policies[0][0], policies[1][0]), pol, cards, tables, ctab, counts, lgb_t)

    def _args(self) -> EpicArgs:
        sc, t = self.scenario, self.tables
        return EpicArgs(
            sc.format == "standard", np.int64(sc.turns), np.int64(sc.first),
            np.array([s.hand for s in sc.sides], np.int64),
            np.array([s.tactician for s in sc.sides], np.int64),
            np.array([s.square_form for s in sc.sides], np.float64),
            np.array([s.square_leave for s in sc.sides], np.float64),
            self.policies, self.ctab, self.cards.deck, self.counts, solo_major(t.best_val),
            ca_sources(t.best_val, self.ctab, sc.rule("counter_attack_copies") == "either"),
            t.best_k, t.best_list,
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

    def _lgb_args(self) -> LgbArgs:
        sc, t = self.scenario, self.lgb
        scfg = np.zeros((2, layout.N_SCFG), np.int64)
        for k, side in enumerate(sc.sides):
            scfg[k, layout.S_HAND] = side.hand
            scfg[k, layout.S_CORPS_HAND:layout.S_CORPS_HAND + 3] = side.corps_hand
            scfg[k, layout.S_CORPS_TAC:layout.S_CORPS_TAC + 3] = side.corps_tactician
            scfg[k, layout.S_G_RULE] = GUERRILLA_RULE_CODES[side.guerrilla_rule]
            scfg[k, layout.S_FRENCH] = 1 if side.french else 0
            six = side.lgb_sections
            scfg[k, layout.S_SPAN:layout.S_SPAN + 3] = [six[2 * c].spanish + six[2 * c + 1].spanish
                                                   for c in range(3)]
            scfg[k, layout.S_G_START:layout.S_G_START + 3] = corps_guerrilla(side, sc.rule("guerrilla_share"))
        sqp = np.array([[s.square_form, s.square_leave] for s in sc.sides], np.float64)
        # G6: counters of a side's total that no Corps commander may receive stay in the pool
        pool = sc.guerrilla_pool + sum(
            side.guerrilla - int(scfg[k, layout.S_G_START:layout.S_G_START + 3].sum())
            for k, side in enumerate(sc.sides)
            if side.guerrilla_rule != "off" and not any(side.corps_guerrilla))
        return LgbArgs(np.int64(sc.turns), np.int64(sc.first), scfg, sqp, self.policies, self.ctab,
                       self.cards.deck, self.counts, t.nom, t.eff, t.rem, t.val, t.best, t.bopt,
                       t.units, np.int64(pool), rule_options(sc, self.deck))

    def kernel_pick(self) -> KernelPick:
        """The kernel these games need (napsim.engine.kernel_pick): its name, its family (EPIC or
        La Grande Battles), whether a side plans (P8)."""
        return pick_kernel(self.scenario.format, self.policies[:, layout.P_KIND])

    def kernel_args(self) -> tuple:
        """(kernel name, EpicArgs or LgbArgs): what `play_chunk` needs; plain, picklable arrays.
        With a side of the lookahead policy (P8) the kernel is the planned one, "lookahead"
        (napsim.engine.lookahead) or "lookahead_lgb" (napsim.engine.lookahead_lgb); "epic" and
        "lgb", the greedy ones, never compile it (`kernel_pick`). Packed on the first call and
        kept: the kernels only read them, and every `run` of a few thousand games would otherwise
        pack them again."""
        if self._packed is None:
            pick = self.kernel_pick()
            self._packed = (pick.kernel, self._lgb_args() if pick.family == LGB else self._args())
        return self._packed

    def compile_kernel(self) -> None:
        """Compile (or load from numba's cache) this scenario's chunk kernel for its argument
        types, playing no game: a call of zero games (safe on `dry` tables)."""
        play_chunk(self.kernel_args(), seed_key(0), 0, 0, False, False)

    def warm_up(self) -> None:
        """Compile (or load from numba's cache) this scenario's kernels by playing one game, so
        that timings and ETAs that follow count games only."""
        self.run(1, 0, chunk=1)

    def run(self, games: int, seed: int, chunk: int = SIM_CHUNK, per_game: bool = False,
            check: bool = False, progress: Callable[[int, int], None] | None = None,
            sink: RowSink | None = None) -> SimResult:
        """Play games [0, games) in chunks (`napsim.sim.runner.run_games`); identical results for
        any chunk size and threads. `sink` takes the per-game rows chunk by chunk instead."""
        return run_games(self, games, seed, chunk, per_game, check, progress, sink)

    def trace(self, seed: int, game: int) -> tuple[np.ndarray, np.ndarray]:
        """(metrics, event log) of one game, replayed from (seed, game index)."""
        return trace_game(self.kernel_args(), seed, game)

def _lgb_cmax(sc: Scenario, dk: Deck) -> int:
    """The largest command of the La Grande Battles tables: E6 orders beyond a Corps commander's
    units change nothing effective, so commands are clamped at the largest of hands and units
    (nominal counts clamp there too)."""
    u6 = units6_array(sc)
    pairs = u6[:, :, 0::2].sum(axis=1) + u6[:, :, 1::2].sum(axis=1)
    hands = max(max(s.hand, *s.corps_hand) for s in sc.sides)
    return min(max(hands, int(pairs.max())) + 1, layout.MAX_HAND + dk.n_cards - 1)


FORMAT_PLAYERS = {"standard": 1, "epic1": 1, "epic2": 2, "epic3": 3, "epic4": 4, "lgb": 4}


def rule_options(sc: Scenario, deck: Deck) -> np.ndarray:
    """ropt[R_*] for the kernels: the scenario's readings of the open points as flags, and the
    Tactician cards that come with the deck (docs/rules.md, "Rule options"). One line per flag:
    the option's value in force, and the format or deck where the reading applies only there."""
    r = np.zeros(layout.N_ROPT, np.int64)
    r[layout.R_INIT_NEEDS_NO_ORDERS] = sc.rule("initiative") == "no_card_no_orders"
    # the same-section pair goes to one commander: always with 1-2 a side, by option with 3-4
    r[layout.R_E4_PLAYABLE] = (FORMAT_PLAYERS.get(sc.format, 1) <= 2
                             or sc.rule("same_section_receiver") == "one_commander")
    # the Elan reshuffle before the Command draw: by option, or where the card text says so (D3)
    r[layout.R_SHUFFLE_FIRST] = sc.rule("elan_order") == "shuffle_first" or deck.elan_before_draw
    r[layout.R_CA_EITHER] = sc.rule("counter_attack_copies") == "either"
    r[layout.R_TAC_DECK] = deck.tactician_deck
    r[layout.R_CIC_KEEPS_ONE] = sc.format == "epic3" and sc.rule("cic_keeps") == "one"
    r[layout.R_TWO_SCOUTS_GAIN] = sc.rule("two_scouts") == "gain"
    r[layout.R_CA_FACING] = (sc.rule("counter_attack_section") == "facing"
                             and sc.format not in ("standard", "lgb"))  # EPIC places tactic cards
    r[layout.R_SPENT_RETURN_ALL] = sc.rule("spent_counters") == "all_return"
    r[layout.R_CA_NULLIFIED_NONE] = sc.rule("counter_attack_nullified") == "none"
    r[layout.R_FS_AT_ONCE] = sc.rule("first_strike_draw") == "cic_at_once"
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
    receive counters. The counters are divided evenly ("lost": among all the commanders, and the
    equal share of an ineligible one is not given out; "shared": among the eligible ones only);
    the CIC then assigns every extra counter (the remainder of the division) to a commander who
    may hold it: one each in turn to the eligible ones with the most Spanish units (the leftmost
    on ties: the policy napsim uses for the CIC's pick), again from the first when there are more
    extras than eligible commanders. Counters nobody receives stay in the unacquired pool."""
    eligible = sorted((i for i, n in enumerate(spanish) if n >= 4), key=lambda i: (-spanish[i], i))
    out = [0] * len(spanish)
    if not eligible:
        return out
    among = len(eligible) if share == "shared" else len(spanish)
    for i in eligible:
        out[i] = counters // among
    for k in range(counters % among):
        out[eligible[k % len(eligible)]] += 1
    return out
