"""The table of every summary metric: how it is computed from the sums, its kind and its words.

Every metric a summary reports is a ratio of two sums over games, sum(x) / sum(t): a mean per
game has t = 1, a mean per turn t = turns, a rate t = its trials. A `Metric` names x and t as
columns: the per-game columns (`COLUMNS`: the kernel's metrics, then the derived totals) or, for a
commander metric, that commander's columns (`napsim.engine.layout.CM_NAMES`). Both paths read the
one table: a summary (`napsim.sim.summary`) adds x and t from a run's sums (`counts`), paired
differences (`napsim.sim.summary.estimate`) take them game by game from the per-game rows
(`parts`); the words (title, unit, what it counts) come from the metric catalogue (`napsim.model.metrics`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from napsim.engine import layout
from napsim.engine.layout import CM_NAMES, COMMANDER_KEYS
from napsim.model import metrics as catalogue
from napsim.model.cards import SECTIONS

MEAN_PER_GAME, MEAN_PER_TURN, RATE = "mean_per_game", "mean_per_turn", "rate"
ALL = -1  # a commander metric summed over the side's commanders

# per-game columns computed from the kernel's metrics: name -> metrics summed (the kernels add
# their moments, napsim.engine.layout.DERIVED_PARTS); orders_total is card orders plus initiative
# orders (docs/rules.md M6.2, L6): every unit a side ordered
DERIVED = {name: tuple(layout.METRIC_NAMES[j] for j in parts if j >= 0)
           for name, parts in zip(layout.DERIVED_NAMES, layout.DERIVED_PARTS, strict=True)}
COLUMNS = (*layout.METRIC_NAMES, *DERIVED)  # the per-game columns: kernel metrics, derived totals
TURNS = COLUMNS.index("turns")


def per_game_columns() -> list[str]:
    """The per-game columns: the kernel's metrics, then the derived totals."""
    return list(COLUMNS)


def extend_rows(rows: np.ndarray) -> np.ndarray:
    """Per-game kernel metrics [n, 2, M] -> [n, 2, M + derived] (int64)."""
    names = list(layout.METRIC_NAMES)
    extra = [rows[:, :, [names.index(m) for m in parts]].sum(axis=2) for parts in DERIVED.values()]
    return np.concatenate([rows.astype(np.int64), np.stack(extra, axis=2)], axis=2)


@dataclass(frozen=True)
class Metric:
    """One summary metric: sum(x) / sum(t) over a side's games.

    `x` are (column, sign) pairs summed for the numerator, `t` the columns summed for the
    denominator (() = one a game); columns of `COLUMNS`, or of `CM_NAMES` when `commander` is a
    commander's index (or ALL, summed over the side's commanders). `group` says when a summary
    lists it: "game" always, "guerrilla" when a side plays the Guerrilla rule, "commander" when a
    commander acted. `empty`: the value when the denominator is 0."""

    name: str
    kind: str
    x: tuple[tuple[int, int], ...]
    t: tuple[int, ...] = ()
    commander: int | None = None
    group: str = "game"
    empty: float = math.nan

    @property
    def column(self) -> int | None:
        """The one per-game column whose moments give the interval of a mean (None: no interval)."""
        per_turn_or_game = self.t == () if self.kind == MEAN_PER_GAME else self.t == (TURNS,)
        if self.commander is None and len(self.x) == 1 and self.x[0][1] == 1 and per_turn_or_game:
            return self.x[0][0]
        return None

    def words(self, roles: dict[str, str] | None = None) -> catalogue.MetricInfo:
        """Title, unit and what it counts, from the metric catalogue."""
        return catalogue.describe(self.name, roles)

    def counts(self, sums: np.ndarray, commanders: np.ndarray | None, games: int) -> tuple[int, int]:
        """(sum of x, sum of t) of one side from its column sums [column] and commander totals
        [commander, CM] (integers: what the value and a Wilson interval need)."""
        src = sums if self.commander is None else _commander_columns(commanders, self.commander)
        k = sum(sign * int(src[c]) for c, sign in self.x)
        return k, (sum(int(src[c]) for c in self.t) if self.t else games)

    def parts(self, rows: np.ndarray, crows: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """(x, t), float [games, 2], from extended per-game rows [game, side, column]
        (`extend_rows`) and commander rows [game, side, commander, CM] (None: all zero)."""
        games = rows.shape[0]
        if self.commander is None:
            src = rows
        elif crows is None:
            src = np.zeros((games, 2, len(CM_NAMES)))
        else:
            src = crows[:, :, self.commander] if self.commander != ALL else crows.sum(axis=2)
        x = sum(sign * src[:, :, c].astype(float) for c, sign in self.x)
        t = sum(src[:, :, c].astype(float) for c in self.t) if self.t else np.ones((games, 2))
        return x, t

    def listed(self, totals: np.ndarray, commanders: np.ndarray | None) -> bool:
        """Whether a summary of these sums [side, column] lists the metric."""
        if self.group == "guerrilla":
            return guerrilla_rows(totals)
        if self.group == "commander":
            return self.present(commanders)
        return True

    def present(self, commanders: np.ndarray | None) -> bool:
        """Whether the metric's commander acted in these sums or rows [..., side, commander, CM]
        (True for a metric that is no commander's)."""
        if self.commander is None:
            return True
        if commanders is None:
            return False
        return bool(commanders.any() if self.commander == ALL else commanders[..., self.commander, :].any())


def _commander_columns(commanders: np.ndarray | None, c: int) -> np.ndarray:
    """One side's commander totals [CM]: commander c's, or summed over all (ALL)."""
    if commanders is None:
        return np.zeros(len(CM_NAMES), np.int64)
    return commanders.sum(axis=0) if c == ALL else commanders[c]


def guerrilla_rows(totals: np.ndarray) -> bool:
    """Whether a summary lists the guerrilla rates (rule G7): when a side plays the guerrilla
    rule, and in an empty result (no turns), which lists every metric a summary may hold."""
    t = totals
    return bool(t[:, layout.M_G_FRENCH_TURNS].sum() > 0 or t[:, layout.M_TURNS].sum() == 0)


# ------------------------------------------------------------------------------ the table

def _c(*names: str) -> tuple[int, ...]:
    return tuple(COLUMNS.index(n) for n in names)


def _x(*names: str) -> tuple[tuple[int, int], ...]:
    """Numerator columns; a name starting with '-' is subtracted."""
    return tuple((COLUMNS.index(n.lstrip("-")), -1 if n.startswith("-") else 1) for n in names)


def _cm(*names: str) -> tuple[int, ...]:
    return tuple(CM_NAMES.index(n) for n in names)


# per-commander rates (docs/rules.md M6.2, L6): name -> (events, trials); the dice give exact values
# for the last two (a double 2/9, two sabres 1/36), which the tests check
COMMANDER_RATES = {
    "initiative_share": ("initiative_rolls", "commander_turns"),
    "initiative_double_rate": ("initiative_doubles", "initiative_rolls"),
    "initiative_two_sabres_rate": ("initiative_two_sabres", "initiative_rolls"),
}
COMMANDER_MEANS = ("cards_received", "own_cards_played", "cic_cards_rejected", "initiative_rolls",
                   "initiative_ordered", "initiative_march", "initiative_melee", "blocks_lost",
                   "initiative_command_draws", "initiative_tactician", "card_effective",
                   "tactician_drawn", "tactician_held_end", "cic_keep_one", "cic_give_both",
                   "scout_gifts", "hand_end", "cards_passed", "g_spent", "g_nullified", "g_acquired")


def _guerrilla_metrics() -> list[Metric]:
    """Spanish Guerrilla Action (rule G7): rates per French turn, per counter spent and per chance
    to spend, and cards nullified and effective orders denied per turn; listed where a side plays
    the rule."""
    g = dict(group="guerrilla")
    stopped = _x("g_spent", "-g_stopped_by_sabre")  # counters spent that nullified
    return [Metric("g_nullification_rate", RATE, stopped, _c("g_french_turns"), **g),
            Metric("g_attempt_success_rate", RATE, stopped, _c("g_spent"), **g),
            Metric("g_offered_not_spent_rate", RATE, _x("g_available_not_spent"), _c("g_offered"), **g),
            Metric("g_offered_rate", RATE, _x("g_offered"), _c("g_french_turns"), **g),
            Metric("g_cards_nullified_per_turn", MEAN_PER_TURN, _x("g_cards_nullified"), (TURNS,),
                   empty=0.0, **g),
            Metric("g_denied_effective_per_turn", MEAN_PER_TURN, _x("g_denied_effective"), (TURNS,),
                   empty=0.0, **g)]


def _table() -> list[Metric]:
    """Every summary metric, in the order a summary lists them."""
    out = [Metric(m, MEAN_PER_GAME, _x(m)) for m in layout.METRIC_NAMES]
    picks = _c(*(f"pick_from_{n}" for n in range(6)))
    out += [Metric(f"share_picks_from_{n}", RATE, _x(f"pick_from_{n}"), picks, empty=0.0) for n in (5, 4, 3)]
    out += [Metric("same_section_turn_rate", RATE, _x("same_section_turns"), (TURNS,), empty=0.0),
            Metric("scout_turn_rate", RATE, _x("scout_draws"), (TURNS,), empty=0.0),
            Metric("effective_share_of_nominal", RATE, _x("effective_total"), _c("nominal_total"),
                   empty=0.0)]
    out += [Metric(f"effective_per_turn_{s}", MEAN_PER_TURN, _x(f"effective_{s}"), (TURNS,), empty=0.0)
            for s in SECTIONS]
    out += _guerrilla_metrics()
    for c, key in enumerate(COMMANDER_KEYS):
        cm = dict(commander=c, group="commander")
        out += [Metric(f"{key}.{name}", RATE, ((CM_NAMES.index(num), 1),), _cm(den), **cm)
                for name, (num, den) in COMMANDER_RATES.items()]
        out += [Metric(f"{key}.{name}", MEAN_PER_GAME, ((CM_NAMES.index(name), 1),), **cm)
                for name in COMMANDER_MEANS]
        out.append(Metric(f"{key}.tactician_held_mean", MEAN_PER_TURN,
                          ((layout.CM_TAC_HELD_SUM, 1),), (layout.CM_TURNS,), **cm))
    out.append(Metric("initiative_share", RATE, ((layout.CM_INIT, 1),), (layout.CM_TURNS,), ALL,
                      "commander"))
    out += [Metric("nominal_total", MEAN_PER_GAME, _x("nominal_total")),
            Metric("effective_total", MEAN_PER_GAME, _x("effective_total")),
            Metric("nominal_per_turn", MEAN_PER_TURN, _x("nominal_total"), (TURNS,)),
            Metric("effective_per_turn", MEAN_PER_TURN, _x("effective_total"), (TURNS,)),
            Metric("orders_total", MEAN_PER_GAME, _x("orders_total")),
            Metric("orders_per_turn", MEAN_PER_TURN, _x("orders_total"), (TURNS,)),
            Metric("initiative_orders_per_turn", MEAN_PER_TURN, _x("initiative_orders"), (TURNS,))]
    return out


METRICS: dict[str, Metric] = {m.name: m for m in _table()}


def metric_names() -> list[str]:
    """Every metric a summary may report, in its order."""
    return list(METRICS)


def listed_metrics(totals: np.ndarray, commanders: np.ndarray | None) -> list[Metric]:
    """The metrics a summary of these sums [side, column] and commander totals lists."""
    return [m for m in METRICS.values() if m.listed(totals, commanders)]
