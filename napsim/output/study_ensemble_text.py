"""The deck-ensemble part of a study report (`napsim run --deck-ensemble N`,
`napsim.study.study_ensemble`): per point the main metric on the file's deck with its 95% interval
and games, beside its range and standard deviation across the plausible decks and the largest Monte
Carlo half-width of one deck; and a sentence that compares the two spreads, computed from them."""

from __future__ import annotations

import pandas as pd

from napsim.model.metrics import describe
from napsim.study.study_ensemble import load_study_ensemble

SUMMARY_COLUMNS = ["point", "side_key", "metric", "value", "ci_low", "ci_high", "games", "decks",
                   "ensemble_min", "ensemble_max", "ensemble_sd", "mc_half_width"]


def ensemble_summary(data, summ: pd.DataFrame) -> tuple[pd.DataFrame, dict] | None:
    """One row per point (its sweep parameters, the main metric and side), or None when the run
    folder has no current deck ensemble."""
    found = load_study_ensemble(data.out, data.meta)
    if found is None:
        return None
    df, record = found
    rows = []
    for pid, g in df.groupby("point", sort=False):
        base = summ[(summ["point"] == pid) & (summ["metric"] == record["metric"])
                    & (summ["side_key"] == record["side_key"])]
        if base.empty:
            continue
        b = base.iloc[0]
        v = g["value"].to_numpy(float)
        rows.append(dict(point=pid, **{p: b[p] for p in data.sweep_paths}, side_key=record["side_key"],
                         metric=record["metric"], value=b["value"],
                         ci_low=b["ci_low"], ci_high=b["ci_high"], games=record["games"][pid], decks=len(v),
                         ensemble_min=float(v.min()), ensemble_max=float(v.max()),
                         ensemble_sd=float(v.std(ddof=1)) if len(v) > 1 else 0.0,
                         mc_half_width=float(g["half_width"].max())))
    return pd.DataFrame(rows, columns=["point", *data.sweep_paths, *SUMMARY_COLUMNS[1:]]), record


def ensemble_sentence(s: pd.DataFrame, record: dict, deck_names: str, side_name: str | None = None) -> str:
    """'Across 20 plausible decks (gmt90; deck seed 1, each point's own games), effective orders a
    turn (Blue) have a spread (sd) of 0.041 to 0.090 over the 14 points, against Monte Carlo
    half-widths of 0.010 to 0.015 within one deck: the unknown counts move it more than chance.'"""
    sd_lo, sd_hi = s["ensemble_sd"].min(), s["ensemble_sd"].max()
    mc_lo, mc_hi = s["mc_half_width"].min(), s["mc_half_width"].max()
    verdict = ("the unknown counts move it more than the games' chance does" if sd_lo > mc_hi else
               "the games' chance moves it more than the unknown counts do" if sd_hi < mc_lo else
               "the two are of the same order")
    who = side_name or f"side {record['side_key']}"
    return (f"Across {record['decks']} plausible decks ({deck_names}; deck seed {record['deck_seed']}, "
            f"each point's own games), {describe(record['metric']).phrase} ({who}) have a spread (sd) of "
            f"{sd_lo:.4f} to {sd_hi:.4f} over the {len(s)} point(s), against 95% Monte Carlo half-widths "
            f"of {mc_lo:.4f} to {mc_hi:.4f} within one deck: {verdict}.")


def ensemble_table(s: pd.DataFrame, sweep_paths: list[str], titles: dict[str, str] | None = None
                   ) -> pd.DataFrame:
    """The report's table: the point's parameters (headed by `titles`, path -> words), the file
    deck's value [95% CI] and its games, the range and sd across decks, the largest Monte Carlo
    half-width."""
    titles = titles or {}
    return pd.DataFrame({
        "point": s["point"], **{titles.get(p, p): s[p].astype(str) for p in sweep_paths},
        "file deck [95% CI]": [f"{v:.4f} [{lo:.4f}, {hi:.4f}]"
                               for v, lo, hi in zip(s["value"], s["ci_low"], s["ci_high"], strict=True)],
        "games": s["games"],
        "across decks [min, max]": [f"[{lo:.4f}, {hi:.4f}]"
                                    for lo, hi in zip(s["ensemble_min"], s["ensemble_max"], strict=True)],
        "sd across decks": [f"{v:.4f}" for v in s["ensemble_sd"]],
        "±Monte Carlo": [f"{v:.4f}" for v in s["mc_half_width"]],
    })
