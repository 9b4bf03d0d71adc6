"""Words and tables of a deck ensemble (`napsim compare --deck-ensemble N`): how many plausible decks
agree on the sign of B - A, its range across decks, and the spread across decks beside the Monte
Carlo half-width of one deck; for `napsim simulate --deck-ensemble N`, each rate's range across
decks beside its interval on the file's deck."""

from __future__ import annotations

import math

import pandas as pd

from napsim.output.decisions import compare_text, decimals, metric_title, with_sentences
from napsim.output.formatting import render
from napsim.study.ensemble import DeckEnsemble, simulate_summary
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


def compare_ensemble_text(cmp: Comparison, ens: DeckEnsemble, fmt: str, warnings: list[str]) -> str:
    """The comparison on the file's deck, then the ensemble: one sentence per metric and side."""
    if fmt != "table":
        return render(ensemble_frame(cmp, ens), fmt, [*warnings, heading(ens)])
    s = ens.summary()
    lines = [compare_text(cmp, fmt, warnings), "", heading(ens)]
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
