"""The answer to a designer's first question about a run, in one sentence: which side gets more
effective orders a turn, by how much (with the difference's 95% interval and in percent), and
whether the card flow is balanced; then what that does not say (`CARD_FLOW`: card flow, not the
chance of winning). `napsim simulate` prints it, the page and `napsim.simulate(...).findings()` open
with it; a notebook shows it with a short table (`run_text`, `notebook_html`)."""

from __future__ import annotations

import html
import math

import pandas as pd

from napsim.model.glossary import CARD_FLOW
from napsim.model.metrics import describe


def side_gap(summary: pd.DataFrame, metric: str = "effective_per_turn") -> dict | None:
    """The two sides' values of `metric` and the difference leader - other with its 95% half-width
    (from the two sides' intervals, as if their games were independent); None without two sides."""
    rows = summary[(summary["metric"] == metric) & summary["value"].notna()]
    if len(rows) != 2 or rows["side"].nunique() != 2:
        return None
    a, b = (r for r in rows.itertuples())
    lead, other = (b, a) if b.value > a.value else (a, b)
    half = math.hypot((lead.ci_high - lead.ci_low) / 2, (other.ci_high - other.ci_low) / 2)
    return dict(lead=lead.side, other=other.side, lead_value=lead.value, other_value=other.value,
                difference=lead.value - other.value, half=half)


def card_flow_answer(summary: pd.DataFrame, metric: str = "effective_per_turn") -> str | None:
    """'The Spanish side gets 0.755 more effective orders a turn than the French side (7.585 against
    6.830, +11.1%; 95% interval of the difference [0.730, 0.781]): the card flow is not balanced.'"""
    g = side_gap(summary, metric)
    if g is None:
        return None
    phrase = describe(metric).phrase
    d, half = g["difference"], g["half"]
    interval = f"[{d - half:.3f}, {d + half:.3f}]"
    if d - half <= 0:
        return (f"The {g['other']} and {g['lead']} sides get the same {phrase} within the 95% interval "
                f"({g['other_value']:.3f} and {g['lead_value']:.3f}; {g['lead']} minus {g['other']} "
                f"{d:+.3f}, 95% interval [{d - half:+.3f}, {d + half:+.3f}]): the card flow is balanced.")
    pct = f", {d / g['other_value']:+.1%}" if g["other_value"] else ""
    return (f"The {g['lead']} side gets {d:.3f} more {phrase} than the {g['other']} side "
            f"({g['lead_value']:.3f} against {g['other_value']:.3f}{pct}; 95% interval of the difference "
            f"{interval}): the card flow is not balanced.")


def run_text(summary: pd.DataFrame, name: str, games: int, seed: int) -> str:
    """A run in one line for a notebook: what was played and the answer."""
    answer = card_flow_answer(summary)
    return f"Simulated {name}: {games:,} games (seed {seed})" + (f". {answer}" if answer else "")


def notebook_html(text: str, summary: pd.DataFrame, metrics: list[str] | None) -> str:
    """A notebook's view: the text, then the summary rows of `metrics` (all when None) as a table of
    who, what, value, 95% interval and n, never the per-game arrays behind them."""
    rows = summary if metrics is None else summary[summary["metric"].isin(metrics)]
    keep = [c for c in ("point", "side", "label", "title", "value", "ci_low", "ci_high", "n") if c in rows]
    return f"<p>{html.escape(text)}</p>" + rows[keep].to_html(index=False)


def answer_lines(summary: pd.DataFrame) -> list[str]:
    """The answer and what it does not say, for the console."""
    answer = card_flow_answer(summary)
    return [answer, CARD_FLOW] if answer else []
