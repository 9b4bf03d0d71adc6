"""What `napsim simulate` prints: the headline first (orders a turn per side, with 95% intervals
and n), then only the rates that mean something for the format and the side, each with its
Wilson interval and n. Everything else is in summary.csv."""

from __future__ import annotations

import math

import pandas as pd

# rates about the Courier Rack: the standard one-card game has no rack
RACK_RATES = ("share_picks_from_5", "share_picks_from_4", "share_picks_from_3", "same_section_turn_rate")
HEADLINE = (("effective_per_turn", "effective orders a turn"),
            ("nominal_per_turn", "nominal orders a turn (as the cards say)"),
            ("orders_per_turn", "all orders a turn (cards and initiative rolls)"))


def _interval(r) -> str:
    if r.ci_low == r.ci_high:
        return f"{r.value:.3f} (exact: the same in every game)"
    return f"{r.value:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]"


def headline(summary: pd.DataFrame, multi: bool) -> list[str]:
    """Orders a turn per side: effective, nominal and (2-4 a side) with initiative orders."""
    lines = ["Orders a turn, per side (mean, 95% interval, n = turns played):"]
    for metric, words in HEADLINE:
        if metric == "orders_per_turn" and not multi:
            continue
        for r in summary[summary["metric"] == metric].itertuples():
            lines.append(f"  {r.side}: {_interval(r)} {words}, n = {int(r.n):,}")
    return lines


# rates whose trials and successes are the same in every game when their per-game count is:
# the Courier Rack cycle (E10) makes every side pick from 5, 4 and 3 cards equally often
COUNTED_BY = {"share_picks_from_5": "pick_from_5", "share_picks_from_4": "pick_from_4",
              "share_picks_from_3": "pick_from_3"}


def _exact(summary: pd.DataFrame, side: str, metric: str) -> bool:
    """Is this rate the same in every game (its per-game count has no spread at all)?"""
    col = COUNTED_BY.get(metric)
    row = summary[(summary["side"] == side) & (summary["metric"] == col)]
    return bool(col) and not row.empty and row["ci_low"].iloc[0] == row["ci_high"].iloc[0]


def meaningful_rates(summary: pd.DataFrame, fmt: str) -> pd.DataFrame:
    """The rates that mean something here: none without trials, none of the rack in the standard
    game, none a side cannot have (NaN)."""
    rates = summary[(summary["kind"] == "rate") & (summary["n"] > 0)]
    rates = rates[rates["value"].map(lambda v: not (isinstance(v, float) and math.isnan(v)))]
    if fmt == "standard":
        rates = rates[~rates["metric"].isin(RACK_RATES)]
    return rates


def simulate_lines(summary: pd.DataFrame, fmt: str, multi: bool) -> list[str]:
    """The console report of a run: headline, exact quantities, then the rates (Wilson 95%
    intervals, n trials)."""
    rates = meaningful_rates(summary, fmt)
    exact = rates.apply(lambda r: _exact(summary, r["side"], r["metric"]), axis=1) if len(rates) else []
    lines = [*headline(summary, multi)]
    if len(rates) and exact.any():
        lines += ["", "Exact (the same in every game, so no interval):"]
        lines += [f"  {r.side}: {r.metric} = {r.value:.4f}" for r in rates[exact].itertuples()]
        rates = rates[~exact]
    view = rates[["side", "metric", "value", "ci_low", "ci_high", "n"]]
    return [*lines, "", "Rates, per side (Wilson 95% interval, n = trials; per-game means with their "
            "intervals: summary.csv):", view.to_string(index=False, float_format=lambda v: f"{v:.4f}")]
