"""Words and tables of a deck ensemble (`--deck-ensemble N`, napsim.study.deck_ensemble).

`napsim compare`: how many plausible decks agree on the sign of B - A, its range across decks, and
the spread across decks beside the Monte Carlo half-width of one deck; `napsim simulate`: each
rate's range across decks beside its interval on the file's deck; `napsim balance`: the crossings'
range across decks. A study report (`napsim run --deck-ensemble N`, the `study_ensemble_*`
functions): per point the main metric on the file's deck with its 95% interval and games, beside its
range and standard deviation across the plausible decks and the largest Monte Carlo half-width of
one deck; and a sentence that compares the two spreads, computed from them.
"""

from __future__ import annotations

import json
import math

import pandas as pd

from napsim.model.metrics import describe, metric_title
from napsim.output.findings import setting_title
from napsim.output.formatting import _json_value, render
from napsim.output.variants import (
    balance_doc,
    balance_head,
    balance_text,
    compare_text,
    crossing_decimals,
    decimals,
    f_words,
    with_sentences,
)
from napsim.study.balance import Balance
from napsim.study.deck_ensemble import DeckEnsemble, balance_summary, load_study_ensemble, simulate_summary
from napsim.study.variants import Comparison


def _fmt(v: float, d: int) -> str:
    text = f"{v:+.{d}f}"
    return f"{0.0:+.{d}f}" if math.isfinite(v) and float(text) == 0 else text


def heading(ens: DeckEnsemble) -> str:
    line = (f"Deck ensemble: {ens.n} plausible '{ens.deck.name}' decks (deck seed {ens.seed}), each "
            f"playing the same {ens.games:,} games")
    if not ens.deck.has_ranges:
        line += "; the deck gives no count ranges, so every deck is the file's and the spread is zero"
    return line


def ensemble_sentence(r, n: int) -> str:
    """'Effective orders a turn, French: B - A is negative in 20 of 20 plausible decks, range [-0.52,
    -0.33]; its 95% interval excludes 0 in 20 of them; spread across decks (sd) 0.05, Monte Carlo
    ±0.010 within one deck (the largest).'"""
    d = decimals(r.mc_half_width) if r.mc_half_width > 0 else decimals(r.ensemble_sd)
    counts = {"negative": r.negative, "positive": r.positive, "zero": r.zero}
    whole = [k for k, c in counts.items() if c == n]
    if whole:
        sign = f"{whole[0]} in {n} of {n} plausible decks"
    else:
        sign = ", ".join(f"{k} in {c}" for k, c in counts.items() if c) + f" of {n} plausible decks"
    clear = r.clear_negative + r.clear_positive
    if clear == 0:
        clear_text = "no deck's 95% interval excludes 0"
    elif r.clear_negative and r.clear_positive:
        clear_text = (f"its 95% interval lies below 0 in {r.clear_negative} and above 0 in "
                      f"{r.clear_positive} (the conclusion depends on the unknown counts)")
    else:
        clear_text = f"its 95% interval excludes 0 in {clear} of them"
    return (f"{metric_title(r.metric, r.side)}, {r.side}: B - A is {sign}, range [{_fmt(r.ensemble_min, d)}, "
            f"{_fmt(r.ensemble_max, d)}]; {clear_text}; spread across decks (sd) {r.ensemble_sd:.{d}f}, "
            f"Monte Carlo ±{r.mc_half_width:.{d}f} within one deck (the largest).")


def ensemble_frame(cmp: Comparison, ens: DeckEnsemble) -> pd.DataFrame:
    """The comparison's rows (file's deck) with the ensemble's columns and sentence beside them."""
    s = ens.summary()
    s["ensemble_sentence"] = [ensemble_sentence(r, ens.n) for r in s.itertuples()]
    return with_sentences(cmp).merge(s.drop(columns="side"), on=["metric", "side_key"], how="left")


def compare_ensemble_text(cmp: Comparison, ens: DeckEnsemble, table_format: str, warnings: list[str]) -> str:
    """The comparison on the file's deck, then the ensemble: one sentence per metric and side."""
    if table_format != "table":
        return render(ensemble_frame(cmp, ens), table_format, [*warnings, heading(ens)])
    s = ens.summary()
    lines = [compare_text(cmp, table_format, warnings, spread=s), "", heading(ens)]
    lines += [ensemble_sentence(r, ens.n) for r in s.itertuples()]
    return "\n".join(lines)


def simulate_ensemble_text(ens: DeckEnsemble) -> str:
    """The file deck's metrics beside their range across the plausible decks."""
    s = simulate_summary(ens)
    view = pd.DataFrame({
        "side": s["side"],
        "measure": [metric_title(m, x) for m, x in zip(s["metric"], s["side"], strict=True)],
        "file deck [95% CI]": [f"{v:.4f} [{lo:.4f}, {hi:.4f}]"
                               for v, lo, hi in zip(s["value"], s["ci_low"], s["ci_high"], strict=True)],
        "across decks [min, max]": [f"[{lo:.4f}, {hi:.4f}]"
                                    for lo, hi in zip(s["ensemble_min"], s["ensemble_max"], strict=True)],
        "sd across decks": [f"{v:.4f}" for v in s["ensemble_sd"]],
        "±Monte Carlo": [f"{v:.4f}" for v in s["mc_half_width"]],
    })
    return "\n".join([heading(ens), view.to_string(index=False)])


def balance_ensemble_sentence(b: Balance, ens: DeckEnsemble) -> str:
    """'Across 20 plausible 'gmt90' decks (the same 4,000 games on each), balance at sides.S.hand =
    4.41 to 4.63 in 20 of 20 decks (sd 0.060 across decks; Monte Carlo ±0.030 within one deck, the
    largest); on the file's deck 4.520 [4.490, 4.549].' Decks without a crossing are counted."""
    s = balance_summary(ens)
    n, rng = s["decks"], b.vary
    span = f"{rng.label(rng.low)}..{rng.label(rng.high)}"
    head = f"Across {n} plausible '{ens.deck.name}' decks (the same {ens.games:,} games on each)"
    if b.crossed:
        d = crossing_decimals(b, b.half_width)
        base = f"on the file's deck {b.crossing[0]:.{d}f} [{b.crossing[1]:.{d}f}, {b.crossing[2]:.{d}f}]"
    else:
        base = f"on the file's deck there is none in {span}"
    stays = " and ".join(f"{where} 0 at both ends of the range in {s[f'no_crossing_{where}']}"
                         for where in ("above", "below") if s[f"no_crossing_{where}"])
    if not s["crossed"]:
        d = decimals(max(s["difference_at_low_max"] - s["difference_at_low_min"], 1e-3) / 2)
        ends = (f"{s['difference_at_low_min']:+.{d}f} to {s['difference_at_low_max']:+.{d}f} at "
                f"{rng.label(rng.low)}, {s['difference_at_high_min']:+.{d}f} to "
                f"{s['difference_at_high_max']:+.{d}f} at {rng.label(rng.high)}")
        return (f"{head}: no crossing in {span} in any of them ({f_words(b, True)} is {stays}; {ends}); "
                f"{base}.")
    none = (f"; no crossing in {span} in {s['no_crossing']} of {n} ({f_words(b, True)} is {stays})"
            if s["no_crossing"] else "")
    d = crossing_decimals(b, s["mc_half_width"]) if math.isfinite(s["mc_half_width"]) else 3
    where = setting_title(b.vary.path, dict(zip(b.side_keys, b.side_names, strict=True)))
    return (f"{head}: balance at {where} = {s['crossing_min']:.{d}f} to {s['crossing_max']:.{d}f} in "
            f"{s['crossed']} of {n} decks (sd {s['crossing_sd']:.{d}f} across decks; Monte Carlo "
            f"±{s['mc_half_width']:.{d}f} within one deck, the largest){none}; {base}.")


def balance_ensemble_doc(b: Balance, ens: DeckEnsemble, warnings: list[str]) -> dict:
    """The balance's JSON document with the ensemble: its sentence, summary and one row per deck."""
    doc = balance_doc(b, warnings)
    doc["ensemble"] = {"heading": heading(ens), "sentence": balance_ensemble_sentence(b, ens),
                       "summary": {k: _json_value(v) for k, v in balance_summary(ens).items()},
                       "decks": [{k: _json_value(v) for k, v in r.items()}
                                 for r in ens.frame.to_dict("records")]}
    return doc


def balance_ensemble_text(b: Balance, ens: DeckEnsemble, table_format: str, warnings: list[str]) -> str:
    """The balance on the file's deck, then the ensemble's sentence; CSV: one row per deck (the
    file's deck first, deck_index -1), the sentences above it."""
    if table_format == "json":
        return json.dumps(balance_ensemble_doc(b, ens, warnings), indent=2, default=str)
    sentence = balance_ensemble_sentence(b, ens)
    if table_format == "csv":
        return render(ens.frame, "csv", [*balance_head(b, warnings), heading(ens), sentence])
    return "\n".join([balance_text(b, table_format, warnings), "", heading(ens), sentence])


SUMMARY_COLUMNS = ["point", "side_key", "metric", "value", "ci_low", "ci_high", "games", "decks",
                   "ensemble_min", "ensemble_max", "ensemble_sd", "mc_half_width"]


def study_ensemble_summary(data, summ: pd.DataFrame) -> tuple[pd.DataFrame, dict] | None:
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


def study_ensemble_sentence(s: pd.DataFrame, record: dict, deck_names: str,
                            side_name: str | None = None) -> str:
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


def study_ensemble_table(s: pd.DataFrame, sweep_paths: list[str], titles: dict[str, str] | None = None
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
