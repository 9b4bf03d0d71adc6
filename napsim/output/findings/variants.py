"""Findings of `napsim compare` and `napsim balance`: the sentences their table output opens with,
computed from the comparison frame (`napsim.study.variants.Comparison`, with the sentences of
`napsim.output.variants.with_sentences`) or the balance search (`napsim.study.balance.Balance`)
by generic rules: the largest clear change and how many rows change at all, what pairing bought,
where the balance lies and how steeply the difference moves near it, and what the deck-data
warning means (with a deck ensemble: whether the spread across plausible decks is larger than
the Monte Carlo interval)."""

from __future__ import annotations

import math

import pandas as pd

from napsim.output.balance_words import bracket_sentence, no_crossing_sentence
from napsim.output.findings import (
    MAX_FINDINGS,
    DeckNote,
    Finding,
    Ref,
    deck_finding,
    diff_ci,
    digits,
    info_of,
    num,
    phrase_of,
    setting_title,
    with_ci,
)

TABLE = "table below"


def _row_ref(r) -> Ref:
    return Ref(TABLE, "", f"row {info_of(r['metric']).title}, {r['side']}")


def _inside(sentence: str) -> str:
    """A row's sentence after a colon: 'With X...' -> 'with X...'."""
    return sentence[:1].lower() + sentence[1:] if sentence.startswith("With ") else sentence


def _clear(df: pd.DataFrame) -> pd.Series:
    return (df["ci_low"] > 0) | (df["ci_high"] < 0)


def compare_findings(df: pd.DataFrame, decks: list[DeckNote], spread: pd.DataFrame | None = None,
                     answer: tuple[str, ...] | list[str] = ()) -> list[Finding]:
    """`df`: the comparison frame with its `sentence` column; `spread`: the deck ensemble's
    summary (`napsim.study.deck_ensemble.ensemble_summary`), if one was played; `answer`: the
    headline sentences (the change of the gap between the sides, then each side's own change,
    `napsim.output.variants.gap_sentence` and `sides_sentence`). Changes rank within the main
    metric first, in its own unit; the other metrics after it, by kind (their unit), never one
    kind's percentage against another's."""
    ok = df[df["difference"].map(math.isfinite)]
    if ok.empty:
        return []
    main_metric = df["metric"].iloc[0]
    main_ref = Ref(TABLE, "", f"rows {info_of(main_metric).title}")
    out = [Finding(t, main_ref) for t in answer if t]
    clear = ok[_clear(ok)]
    main = clear[clear["metric"] == main_metric]
    if not out and len(main):  # no gap to lead with: the main metric's largest change, in its unit
        top = main.loc[main["difference"].abs().idxmax()]
        out.append(Finding(f"The largest clear change in {info_of(main_metric).phrase}: "
                           f"{_inside(top['sentence'])}", _row_ref(top)))
    vague = ok[~_clear(ok)]
    if len(vague):
        names = [f"{info_of(r['metric']).phrase} ({r['side']})" for r in vague.to_dict("records")]
        listed = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
        out.append(Finding(f"{len(clear)} of {len(ok)} rows change clearly (their 95% interval excludes "
                           f"0); no clear difference in {listed}", Ref(TABLE, "", "column B - A")))
    else:
        out.append(Finding(f"All {len(ok)} rows change clearly: every 95% interval of B - A excludes 0",
                           Ref(TABLE, "", "column B - A")))
    for r in _others_by_kind(clear, main_metric)[:2]:
        out.append(Finding(f"Of the other measures in {info_of(r['metric']).unit}: {_inside(r['sentence'])}",
                           _row_ref(r)))
    pairing = _pairing(ok)
    if pairing is not None:
        out.append(pairing)
    deck = _deck(df, decks, spread)
    return out[:MAX_FINDINGS - (deck is not None)] + ([deck] if deck else [])


def _others_by_kind(clear: pd.DataFrame, main_metric: str) -> list:
    """The clear changes of the metrics other than the main one, grouped by their unit (a count a
    game, a share, ...) in the order the question lists them: the largest change of each kind."""
    rest = clear[clear["metric"] != main_metric]
    if rest.empty:
        return []
    units = rest["metric"].map(lambda m: info_of(m).unit)
    return [rest[units == u].loc[lambda d: d["difference"].abs().idxmax()]
            for u in dict.fromkeys(units)]


def _pairing(ok: pd.DataFrame) -> Finding | None:
    main = ok[(ok["metric"] == ok["metric"].iloc[0]) & (ok["half_width"] > 0)] if len(ok) else ok
    if main.empty:
        return None
    ratio = float((main["half_width_unpaired"] / main["half_width"]).min())
    if not math.isfinite(ratio) or ratio <= 1.05:
        return None
    phrase = info_of(main["metric"].iloc[0]).phrase
    worth = ratio ** 2
    return Finding(f"Playing A and B on the same games made the 95% interval of the difference in {phrase} "
                   f"at least {ratio:.1f} times narrower than two independent runs would (worth "
                   f"{worth:.{0 if worth >= 10 else 1}f} times the games)",
                   Ref(TABLE, "", "columns ±paired, ±unpaired"))


def _deck(df: pd.DataFrame, decks: list[DeckNote], spread: pd.DataFrame | None) -> Finding | None:
    if spread is None or spread.empty:
        return deck_finding(decks, ref=Ref("deck warning above", ""))
    first = spread[spread["metric"] == df["metric"].iloc[0]]
    r = first.loc[first["ensemble_sd"].idxmax()]
    f = deck_finding(decks, (float(r["ensemble_sd"]), float(r["mc_half_width"])),
                     Ref("deck ensemble below", "", f"{info_of(r['metric']).title}, {r['side']}"))
    if f is None:
        return None
    keeps = max(r["negative"], r["positive"])
    return Finding(f"{f.text} (B - A of {info_of(r['metric']).phrase} for {r['side']} keeps one sign in "
                   f"{keeps} of {r['decks']} plausible decks)", f.ref)


# --------------------------------------------------------------------------------------------
# balance


def balance_findings(b, decks: list[DeckNote]) -> list[Finding]:
    """`b`: a `napsim.study.balance.Balance`: the answer in whole settings (who leads either side
    of the even point, or that no setting in the range evens the sides), the ends of the range,
    the slope near the balance, the deck data."""
    info = info_of(b.metric)
    title = setting_title(b.vary.path, dict(zip(b.side_keys, b.side_names, strict=True)))
    if len(b.sides) == 2:
        first, second = (b.side_names[s] for s in b.sides)
        f_words = f"{second} minus {first}"
    else:
        f_words = f"{phrase_of(info, b.side_names[b.sides[0]])} minus {b.target:g}"
    rows = sorted(b.settings, key=lambda s: s.value)
    ends = [rows[0], rows[-1]]
    if not b.crossed:  # an answer too: no setting in the range balances the sides
        out = [Finding(no_crossing_sentence(b)[:1].upper() + no_crossing_sentence(b)[1:],
                       Ref(TABLE, "", "every row"))]
    else:
        v, lo, hi = b.crossing
        half = (hi - lo) / 2
        d = digits(half) if b.vary.integer else max(digits(half), digits((b.vary.high - b.vary.low) / 1e3))
        below, above = b.bracket
        rows_ref = f"rows {b.vary.label(below)} and {b.vary.label(above)}"
        out = [Finding(bracket_sentence(b, with_ci(v, lo, hi, d=d)), Ref(TABLE, "", rows_ref))]
    if not b.crossed:  # the answer names the ends already
        deck = deck_finding(decks, ref=Ref("deck warning above", ""))
        return out + ([deck] if deck else [])
    texts = [f"{diff_ci(s.f.value, s.f.half_width)} at {b.vary.label(s.value)}" for s in ends]
    ends_ref = f"rows {b.vary.label(ends[0].value)} and {b.vary.label(ends[-1].value)}"
    out.append(Finding(f"Across the range searched, {f_words} runs from {texts[0]} to {texts[1]}",
                       Ref(TABLE, "", ends_ref)))
    s0, s1 = (next(s for s in rows if s.value == x) for x in (below, above))
    if s1.value != s0.value:
        unit = 1.0 if b.vary.integer or b.vary.high - b.vary.low > 2 else 0.1
        slope = (s1.f.value - s0.f.value) / (s1.value - s0.value) * unit
        out.append(Finding(f"Near the balance, each {num(unit, 0 if unit == 1 else 1, True)} in {title} "
                           f"moves {f_words} by about {num(slope, digits(abs(slope) / 20), True)} "
                           f"({b.vary.label(below)}: {num(s0.f.value, digits(s0.f.half_width), True)}; "
                           f"{b.vary.label(above)}: {num(s1.f.value, digits(s1.f.half_width), True)})",
                           Ref(TABLE, "", f"rows {b.vary.label(below)} and {b.vary.label(above)}")))
    deck = deck_finding(decks, ref=Ref("deck warning above", ""))
    return out + ([deck] if deck else [])
