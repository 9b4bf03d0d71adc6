"""Summaries: the one place that turns summed metrics into means, rates and 95% intervals.

Both paths call it: a run of `napsim simulate` (`SimResult.summary()` -> `summary_frame`) and a
study (chunk sums -> `study_summary`, which adds per-game intervals to the same rows). Interval
formulas: Wilson for a rate (its n counts trials: turns, picks), normal for a mean per game (from
the per-game sums of squares), delta method for a mean per turn (a ratio of two per-game sums).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from napsim.engine import layout
from napsim.engine.layout import CM_NAMES, COMMANDER_KEYS, COMMANDER_ROLES, N_CM
from napsim.model import metrics
from napsim.model.cards import SECTIONS

Z95 = 1.959963984540054


def wilson(successes: int | np.ndarray, n: int | np.ndarray, z: float = Z95):
    """Wilson score interval (lo, hi) for a binomial proportion; (nan, nan) when n == 0."""
    k = np.asarray(successes, dtype=float)
    nn = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / nn
        denom = 1.0 + z * z / nn
        centre = (p + z * z / (2 * nn)) / denom
        half = z * np.sqrt(p * (1 - p) / nn + z * z / (4 * nn * nn)) / denom
        lo, hi = centre - half, centre + half
    # the bounds are exactly 0 and 1 at the edges; rounding would leave e.g. 1e-19 at k = 0
    lo = np.where(k <= 0, 0.0, lo)
    hi = np.where(k >= nn, 1.0, hi)
    lo = np.where(nn > 0, np.clip(lo, 0.0, 1.0), np.nan)
    hi = np.where(nn > 0, np.clip(hi, 0.0, 1.0), np.nan)
    if lo.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


def mean_interval(total: float, total_sq: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Normal-approximation 95% interval for a mean from its running sums."""
    if n < 2:
        return math.nan, math.nan
    mean = total / n
    var = max(total_sq / n - mean * mean, 0.0) * n / (n - 1)
    half = z * math.sqrt(var / n)
    return mean - half, mean + half


# --------------------------------------------------------------------------------------------
# per-game columns: the kernel's metrics and the totals derived from them


# per-game columns computed from the kernel's metrics: name -> metrics summed
DERIVED = {"nominal_total": ("nominal_L", "nominal_C", "nominal_R"),
           "effective_total": ("effective_L", "effective_C", "effective_R"),
           # card orders plus initiative orders (docs/rules.md M6.2, L6): every unit a side ordered
           "orders_total": ("effective_L", "effective_C", "effective_R", "initiative_orders")}
# summary rows a study adds to the kernel's rows: name -> (kind, per-game column)
EXTRA_ROWS = {"nominal_total": ("mean_per_game", "nominal_total"),
              "effective_total": ("mean_per_game", "effective_total"),
              "nominal_per_turn": ("mean_per_turn", "nominal_total"),
              "effective_per_turn": ("mean_per_turn", "effective_total"),
              "orders_total": ("mean_per_game", "orders_total"),
              "orders_per_turn": ("mean_per_turn", "orders_total"),
              "initiative_orders_per_turn": ("mean_per_turn", "initiative_orders")}


def per_game_columns() -> list[str]:
    """The per-game columns: the kernel's metrics, then the derived totals."""
    return [*layout.METRIC_NAMES, *DERIVED]


def extend_rows(rows: np.ndarray) -> np.ndarray:
    """Per-game kernel metrics [n, 2, M] -> [n, 2, M + derived] (int64)."""
    names = list(layout.METRIC_NAMES)
    extra = [rows[:, :, [names.index(m) for m in parts]].sum(axis=2) for parts in DERIVED.values()]
    return np.concatenate([rows.astype(np.int64), np.stack(extra, axis=2)], axis=2)


def row_moments(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sums, sums of squares, sums of products with the turns) [side, column] of per-game rows
    [n, 2, M] over `per_game_columns`: what the intervals of per-game and per-turn means need.
    Integers, so the moments of any split of the games add up to the same arrays."""
    return extended_moments(extend_rows(rows))


def extended_moments(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`row_moments` of rows already extended (`extend_rows`)."""
    turns = x[:, :, layout.M_TURNS]
    # einsum sums the products without holding them (the same integers as (x * x).sum(axis=0))
    return x.sum(axis=0), np.einsum("gsc,gsc->sc", x, x), np.einsum("gsc,gs->sc", x, turns)


# --------------------------------------------------------------------------------------------
# the rows of a summary, from the kernel's totals


def summary_frame(totals: np.ndarray, games: int, side_names, commanders: np.ndarray | None = None
                  ) -> pd.DataFrame:
    """Per side: means per game and per turn, and rates with Wilson intervals and n, from the
    kernel's totals [side, metric] over `games` games (and the per-commander totals, if any)."""
    rows = []
    for s, name in enumerate(side_names):
        rows += side_rows(totals, s, name, games, commanders)
    return pd.DataFrame(rows)


def side_rows(totals: np.ndarray, s: int, side: str, games: int,
              commanders: np.ndarray | None = None) -> list[dict]:
    """The summary rows of side `s` (see `summary_frame`)."""
    rows = []
    tot = totals[s]
    turns = int(tot[layout.M_TURNS])
    for i, name in enumerate(layout.METRIC_NAMES):
        rows.append(dict(side=side, metric=name, kind="mean_per_game",
                         value=tot[i] / games, ci_low=np.nan, ci_high=np.nan,
                         n=games))
    picks = tot[layout.M_PICK_FROM:layout.M_PICK_FROM + 6]
    n_picks = int(picks.sum())
    for size in (5, 4, 3):
        k = int(picks[size])
        lo, hi = wilson(k, n_picks)
        rows.append(dict(side=side, metric=f"share_picks_from_{size}",
                         kind="rate", value=k / max(n_picks, 1), ci_low=lo, ci_high=hi,
                         n=n_picks))
    for name, idx in (("same_section_turn_rate", layout.M_E4),
                      ("scout_turn_rate", layout.M_SCOUT)):
        k = int(tot[idx])
        lo, hi = wilson(k, turns)
        rows.append(dict(side=side, metric=name, kind="rate", value=k / max(turns, 1),
                         ci_low=lo, ci_high=hi, n=turns))
    nom = int(tot[layout.M_NOM:layout.M_NOM + 3].sum())
    eff = int(tot[layout.M_EFF:layout.M_EFF + 3].sum())
    lo, hi = wilson(eff, nom)
    rows.append(dict(side=side, metric="effective_share_of_nominal", kind="rate",
                     value=eff / max(nom, 1), ci_low=lo, ci_high=hi, n=nom))
    for x, sec in enumerate(SECTIONS):
        rows.append(dict(side=side, metric=f"effective_per_turn_{sec}",
                         kind="mean_per_turn", value=tot[layout.M_EFF + x] / max(turns, 1),
                         ci_low=np.nan, ci_high=np.nan, n=turns))
    if guerrilla_rows(totals):
        rows += _guerrilla_summary(side, tot, turns)
    if commanders is not None:
        rows += _commander_summary(side, commanders, s, games, turns)
    return rows


def guerrilla_rows(totals: np.ndarray) -> bool:
    """Whether a summary lists the guerrilla rates (rule G7): when a side plays the guerrilla
    rule, and in an empty result (no turns), which lists every metric a summary may hold."""
    t = totals
    return bool(t[:, layout.M_G_FRENCH_TURNS].sum() > 0 or t[:, layout.M_TURNS].sum() == 0)


GUERRILLA_RATES = {
    "g_nullification_rate": (layout.M_G_SPENT, layout.M_G_SABRE, layout.M_G_FRENCH_TURNS),
    "g_attempt_success_rate": (layout.M_G_SPENT, layout.M_G_SABRE, layout.M_G_SPENT),
    "g_offered_not_spent_rate": (layout.M_G_NOT_SPENT, None, layout.M_G_OFFERED),
    "g_offered_rate": (layout.M_G_OFFERED, None, layout.M_G_FRENCH_TURNS),
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
    for name, idx in (("g_cards_nullified_per_turn", layout.M_G_NULLIFIED),
                      ("g_denied_effective_per_turn", layout.M_G_DENIED_EFF)):
        rows.append(dict(side=side, metric=name, kind="mean_per_turn", value=tot[idx] / max(turns, 1),
                         ci_low=np.nan, ci_high=np.nan, n=turns))
    return rows


# per-commander rates (docs/rules.md M6.2, L6): name -> (events, trials); the dice give exact values
# for the last two (a double 2/9, two sabres 1/36), which the tests check
COMMANDER_RATES = {
    "initiative_share": (layout.CM_INIT, layout.CM_TURNS),
    "initiative_double_rate": (layout.CM_DOUBLES, layout.CM_INIT),
    "initiative_two_sabres_rate": (layout.CM_TWO_SABRES, layout.CM_INIT),
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
        n_t = int(x[layout.CM_TURNS])
        rows.append(dict(side=side, metric=f"{key}.tactician_held_mean", kind="mean_per_turn",
                         value=x[layout.CM_TAC_HELD_SUM] / n_t if n_t else np.nan, ci_low=np.nan,
                         ci_high=np.nan, n=n_t))
    if present:
        k, n = int(cmet[s, :, layout.CM_INIT].sum()), int(cmet[s, :, layout.CM_TURNS].sum())
        lo, hi = wilson(k, n)
        rows.append(dict(side=side, metric="initiative_share", kind="rate", value=k / n if n else np.nan,
                         ci_low=lo, ci_high=hi, n=n))
    return rows


# --------------------------------------------------------------------------------------------
# a study's summary: the same rows, with per-game intervals from the chunk sums


def study_summary(games: int, totals: np.ndarray, sums: np.ndarray, sumsq: np.ndarray,
                  sumxt: np.ndarray, commanders: np.ndarray | None, side_keys, side_names,
                  only: str | None = None) -> pd.DataFrame:
    """Per side: every row of `summary_frame` (so rates keep one definition) plus the derived
    totals, each with std, a 95% interval, n and the games behind it.

    `sums`, `sumsq` and `sumxt` [side, column] are the per-game sums of every per-game column
    (`per_game_columns`), of its square and of its product with the turns. Means per game get a
    normal interval from the per-game sums of squares; means per turn are ratios (metric / turns)
    and get a delta-method interval from the per-game sums of x^2, t^2 and x*t; rates keep their
    Wilson interval, whose n counts trials (turns, picks), not games. `only`: the rows of that
    one metric (the same numbers; `study_summary_rows` gives them without pandas).
    """
    out = pd.DataFrame(study_summary_rows(games, totals, sums, sumsq, sumxt, commanders, side_keys,
                                          side_names, only))
    # a mean with no per-game column behind it (per-commander means, orders with initiative) has
    # no interval: say so rather than label NaNs normal95
    out.loc[out["ci_low"].isna() & (out["kind"] != "rate"), "interval"] = "none"
    return out[["side_key", "side", "metric", "kind", "value", "std", "ci_low", "ci_high", "n", "games",
                "interval"]]


def study_summary_rows(games: int, totals: np.ndarray, sums: np.ndarray, sumsq: np.ndarray,
                       sumxt: np.ndarray, commanders: np.ndarray | None, side_keys, side_names,
                       only: str | None = None) -> list[dict]:
    """The rows of `study_summary` as dicts (keys side_key, side, metric, value, ci_low, ci_high,
    ...), without building a DataFrame: a report's convergence trace asks after every chunk, and
    pandas took about 10 ms of each ask."""
    columns = per_game_columns()
    out = []
    turns_col = columns.index("turns")
    n = games
    for s, key in enumerate(side_keys):
        with np.errstate(divide="ignore", invalid="ignore"):
            rows = side_rows(totals, s, side_names[s], games, commanders)
        rows += [dict(side=side_names[s], metric=m, kind=k, value=np.nan, ci_low=np.nan, ci_high=np.nan,
                      n=n, _col=c) for m, (k, c) in EXTRA_ROWS.items()]
        if only is not None:
            rows = [r for r in rows if r["metric"] == only]
        tt = float(sums[s, turns_col])
        tt2 = float(sumsq[s, turns_col])
        for r in rows:
            r["side_key"] = key
            r["games"] = n
            r["std"] = np.nan
            r["interval"] = "wilson95" if r["kind"] == "rate" else "normal95"
            col = r.pop("_col", None)
            if r["kind"] == "rate":
                p = r["value"]
                r["std"] = math.sqrt(p * (1 - p)) if r["n"] > 0 else np.nan
            elif r["kind"] == "mean_per_game":
                col = col or (r["metric"] if r["metric"] in columns else None)
                if col is None:
                    continue
                i = columns.index(col)
                x, x2 = float(sums[s, i]), float(sumsq[s, i])
                r["value"] = x / n if n else np.nan
                r["ci_low"], r["ci_high"] = mean_interval(x, x2, n)
                r["std"] = math.sqrt(max(x2 / n - (x / n) ** 2, 0.0) * n / (n - 1)) if n > 1 else np.nan
            elif r["kind"] == "mean_per_turn":
                col = col or _per_turn_column(r["metric"], columns)
                if col is None:
                    continue
                i = columns.index(col)
                x, x2, xt = float(sums[s, i]), float(sumsq[s, i]), float(sumxt[s, i])
                r["n"] = int(tt)
                if tt <= 0:
                    continue
                ratio = x / tt
                r["value"] = ratio
                if n > 1:
                    var = max(x2 - 2 * ratio * xt + ratio * ratio * tt2, 0.0) / (n - 1)
                    tbar = tt / n
                    r["std"] = math.sqrt(var) / tbar
                    half = Z95 * math.sqrt(var / n) / tbar
                    r["ci_low"], r["ci_high"] = ratio - half, ratio + half
        out += rows
    return out


def _per_turn_column(metric: str, columns: list[str]) -> str | None:
    base = metric.replace("_per_turn", "")
    for cand in (base, f"{base}_total"):
        if cand in columns:
            return cand
    return None


def commander_roles(fmt: str | None) -> dict[str, str]:
    """The commanders of a format by key, for the catalogue's words: {'cic': 'CIC', 'c1':
    'Corps left wing', ...}; empty for an unknown format (the catalogue's own words then)."""
    return dict(zip(COMMANDER_KEYS, COMMANDER_ROLES.get(fmt or "", ()), strict=False))


def with_words(df: pd.DataFrame, roles: dict[str, str] | None = None) -> pd.DataFrame:
    """The summary with `title` and `unit` columns after `metric`, from the metric catalogue
    (`napsim.model.metrics`): an OPPONENT metric's title says whose counters acted (rule G7)."""
    if "metric" not in df.columns or "title" in df.columns:
        return df
    infos = [metrics.describe(m, roles) for m in df["metric"]]
    sides = df["side"] if "side" in df.columns else [None] * len(df)
    out = df.copy()
    at = out.columns.get_loc("metric") + 1
    out.insert(at, "title", [i.row_title(s) for i, s in zip(infos, sides, strict=True)])
    out.insert(at + 1, "unit", [i.unit for i in infos])
    return out


def summary_metric_names() -> list[str]:
    """Every metric name `study_summary` reports (kernel means, rates, per-turn means, extras)."""
    c = len(per_game_columns())
    zeros = np.zeros((2, c), np.int64)
    frame = study_summary(1, np.zeros((2, layout.N_METRICS), np.int64), zeros, zeros, zeros,
                          np.ones((2, 4, N_CM), np.int64), ["A", "B"], ["A", "B"])
    return list(dict.fromkeys(frame["metric"]))
