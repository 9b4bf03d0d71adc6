"""What `napsim simulate` prints: the headline first (orders a turn per side, with 95% intervals
and n), then only the rates that mean something for the format and the side, each with its
Wilson interval and n. Everything else is in summary.csv."""

from __future__ import annotations

import math

import pandas as pd

from napsim.model.metrics import describe

# rates about the Courier Rack: the standard one-card game has no rack
RACK_RATES = ("share_picks_from_5", "share_picks_from_4", "share_picks_from_3", "same_section_turn_rate")
HEADLINE = ("effective_per_turn", "nominal_per_turn", "orders_per_turn")


def _interval(r) -> str:
    if r.ci_low == r.ci_high:
        return f"{r.value:.3f} (exact: the same in every game)"
    return f"{r.value:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]"


def headline(summary: pd.DataFrame, multi: bool) -> list[str]:
    """Orders a turn per side: effective, nominal and (2-4 a side) with initiative orders."""
    lines = ["Orders a turn, per side (mean, 95% interval, n = turns played):"]
    for metric in HEADLINE:
        if metric == "orders_per_turn" and not multi:
            continue
        words = describe(metric).phrase
        for r in summary[summary["metric"] == metric].itertuples():
            lines.append(f"  {r.side}: {_interval(r)} {words}, n = {int(r.n):,}")
    return lines


def _title(r) -> str:
    """A row's title in words: the summary's `title` column, else the catalogue's."""
    return getattr(r, "title", None) or describe(r.metric).row_title(r.side)


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
        lines += [f"  {r.side}: {_title(r)} = {r.value:.4f}" for r in rates[exact].itertuples()]
        rates = rates[~exact]
    return [*lines, "", "Rates, per side (Wilson 95% interval, n = trials; per-game means with their "
            "intervals: summary.csv):", *rate_table(rates)]


def rate_table(rates: pd.DataFrame) -> list[str]:
    """The rates as a plain table: side, what the rate counts (in words), value, interval, n."""
    rows = [("side", "rate", "value", "95% interval", "n")]
    rows += [(r.side, _title(r), f"{r.value:.4f}", f"[{r.ci_low:.4f}, {r.ci_high:.4f}]", f"{int(r.n):,}")
             for r in rates.itertuples()]
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    out = []
    for row in rows:
        left = [c.ljust(w) for c, w in zip(row[:2], widths[:2], strict=True)]
        right = [c.rjust(w) for c, w in zip(row[2:], widths[2:], strict=True)]
        out.append(("  " + "  ".join([*left, *right])).rstrip())
    return out
