"""Findings: the three to six sentences every report opens with, computed from its own numbers.

The pieces every report shares: a `Finding` (a sentence and the table rows it comes from, `Ref`),
its rendering as Markdown, HTML or plain text, numbers with 95% intervals, the verdict on where a
curve flattens (`curve`: the step after which the gain per step stays below a quarter of the first
clear step's, or inside its interval), and what the deck-data warning means for a result
(`deck_finding`). Study reports get their sentences from `napsim.output.findings.study`,
`napsim compare` and `napsim balance` from `napsim.output.findings.variants`; all are pure
functions of the result frames, by generic rules that hold for any study or question. The words
of metrics and settings come from the metric catalogue (`napsim.model.metrics`).
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

from napsim.model.metrics import MetricInfo, describe, parameter_title

FLAT_SHARE = 0.25   # a step gaining less than this share of the first step's gain has flattened
MAX_FINDINGS = 6

MAIN = ("Main result", "main-result")
EXACT = ("Exact answers", "exact-answers")
CHECK = ("Simulation against exact", "simulation-against-exact")
DECK = ("deck warning", "deck-warning")


@dataclass(frozen=True)
class Ref:
    """Where a finding's numbers stand: a section (its title and anchor) and the rows in it."""

    section: str
    anchor: str
    rows: str = ""

    def plain(self) -> str:
        """'(table: Main result, p000)'; a reference without an anchor names a place on the screen."""
        head = f"table: {self.section}" if self.anchor else self.section
        return f"({head}" + (f", {self.rows})" if self.rows else ")")

    def markdown(self) -> str:
        return f"([{self.section}](#{self.anchor})" + (f": {self.rows})" if self.rows else ")")


@dataclass(frozen=True)
class Finding:
    text: str              # a sentence, without its reference
    ref: Ref | None = None

    def plain(self) -> str:
        return _with_ref(self.text, self.ref.plain() if self.ref else "")

    def markdown(self) -> str:
        return _with_ref(self.text, self.ref.markdown() if self.ref else "")

    def html(self) -> str:
        if not self.ref:
            return html.escape(self.text)
        r = self.ref
        link = f'<a href="#{html.escape(r.anchor)}">{html.escape(r.section)}</a>'
        rows = f": {html.escape(r.rows)}" if r.rows else ""
        return _with_ref(html.escape(self.text), f"({link}{rows})")


def _with_ref(text: str, ref: str) -> str:
    body = text[:-1] if text.endswith(".") else text
    return f"{body} {ref}." if ref else f"{body}."


@dataclass(frozen=True)
class DeckNote:
    """What a report knows about one deck's data: estimated cards, and whether it gives ranges."""

    name: str
    estimated_cards: int
    total_cards: int
    estimated_types: int
    has_ranges: bool = False


def deck_note(deck) -> DeckNote:
    """A `napsim.model.cards.Deck` as a DeckNote."""
    est = deck.cards["confidence"] == "estimated"
    return DeckNote(deck.name, int(deck.cards.loc[est, "count"].sum()), int(deck.n_cards),
                    int(est.sum()), bool(deck.has_ranges))


def render_markdown(findings: list[Finding]) -> list[str]:
    return [f"- {f.markdown()}" for f in findings]


def render_html(findings: list[Finding]) -> str:
    items = "".join(f"<li>{f.html()}</li>" for f in findings)
    return f'<ul class="findings">{items}</ul>'


def render_plain(findings: list[Finding]) -> list[str]:
    return [f"- {f.plain()}" for f in findings]


# --------------------------------------------------------------------------------------------
# numbers


def digits(half: float) -> int:
    """Decimals that show a 95% half-width to one significant digit (0-6)."""
    if not math.isfinite(half) or half <= 0:
        return 3
    return int(min(6, max(0, -math.floor(math.log10(half) + 1e-9))))


def num(v: float, d: int, sign: bool = False) -> str:
    if not math.isfinite(v):
        return "–"
    text = f"{v:+,.{d}f}" if sign else f"{v:,.{d}f}"
    if float(text.replace(",", "")) == 0:  # never '-0.000'
        text = f"{0.0:+.{d}f}" if sign else f"{0.0:.{d}f}"
    return text


def with_ci(v: float, lo: float, hi: float, sign: bool = False, d: int | None = None) -> str:
    """'6.569 [6.564, 6.573]' (decimals from the half-width); an exact value (no width) alone."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return ("+0" if sign else "0") if v == 0 else num(v, 4 if d is None else d, sign)
    d = digits((hi - lo) / 2) if d is None else d
    return f"{num(v, d, sign)} [{num(lo, d, sign)}, {num(hi, d, sign)}]"


def diff_ci(d: float, half: float) -> str:
    return with_ci(d, d - half, d + half, sign=True)


def percent(change: float, base: float) -> str:
    if not math.isfinite(base) or base == 0:
        return ""
    return f" ({change / abs(base):+.1%})"


def phrase_of(info: MetricInfo, side: str | None) -> str:
    """'effective orders a turn (Blue)'."""
    label = info.label(side)
    return info.phrase + label[len(info.title):]


def info_of(metric: str) -> MetricInfo:
    try:
        return describe(metric)
    except KeyError:  # a name the catalogue lacks keeps its spelling rather than losing the finding
        return MetricInfo(metric, metric, "", metric)


def setting_title(path: str, side_names: dict[str, str]) -> str:
    """A parameter's title inside a sentence: 'Command hand size (both sides)' for the catalogue's
    'Command hand size, both sides'."""
    title = parameter_title(path, side_names)
    head, sep, who = title.rpartition(", ")
    return f"{head} ({who})" if sep else title


def more_word(info: MetricInfo, up: bool) -> str:
    if info.countable:
        return "more" if up else "fewer"
    return "higher" if up else "lower"


# --------------------------------------------------------------------------------------------
# curves: where a series over a numeric setting flattens


@dataclass(frozen=True)
class Curve:
    """The verdict on one series y(x) with 95% half-widths h: `flat` (no step is clear); else
    `start`, the first step whose change is clear (the reference), and `after`, the index of the
    step from which every gain stays under FLAT_SHARE of the reference's or inside its interval
    (None: it never flattens)."""

    flat: bool
    start: int
    after: int | None
    steps: tuple[float, ...]
    halves: tuple[float, ...]

    @property
    def first(self) -> float:
        return self.steps[self.start]


def curve(y: list[float], h: list[float]) -> Curve:
    steps = [b - a for a, b in zip(y, y[1:], strict=False)]
    halves = [math.hypot(a, b) for a, b in zip(h, h[1:], strict=False)]
    clear = [abs(s) > hw for s, hw in zip(steps, halves, strict=True)]
    if not any(clear):
        return Curve(True, 0, None, tuple(steps), tuple(halves))
    start = clear.index(True)
    first = steps[start]
    sign = 1.0 if first >= 0 else -1.0

    def small(i: int) -> bool:
        return not clear[i] or steps[i] * sign < FLAT_SHARE * abs(first)

    after = next((i for i in range(start + 1, len(steps)) if all(small(j) for j in range(i, len(steps)))),
                 None)
    return Curve(False, start, after, tuple(steps), tuple(halves))


def deck_finding(decks: list[DeckNote], spread: tuple[float, float] | None = None,
                 ref: Ref | None = None, exact: bool = False) -> Finding | None:
    """What the deck-data warning means: how many cards are estimated, and (where a deck-ensemble
    spread is known, as (sd across decks, Monte Carlo half-width)) which uncertainty is larger."""
    est = [d for d in decks if d.estimated_cards]
    if not est:
        return None
    what = "; ".join(f"{d.estimated_cards} of the {d.total_cards} cards of '{d.name}' "
                     f"({d.estimated_types} card types)" for d in est)
    text = f"{what} have estimated counts"
    if spread is not None:
        sd, mc = spread
        if sd > mc:
            text += (f": across plausible decks the result spreads by {sd:.3g} (sd), more than its Monte "
                     f"Carlo ±{mc:.3g}, so the unknown counts matter more than the number of games")
        else:
            text += (f": across plausible decks the result spreads by {sd:.3g} (sd), less than its Monte "
                     f"Carlo ±{mc:.3g}, so the unknown counts do not change the answer")
    elif exact:
        text += ": the exact values are exact for the counts as written, not for the real deck"
    else:
        text += (", and the 95% intervals count only Monte Carlo noise, not that uncertainty"
                 + ("; `napsim compare --deck-ensemble 20` replays a question on 20 plausible decks"
                    if any(d.has_ranges for d in est) else "; correct the deck file to remove it"))
    return Finding(text, ref or Ref(*DECK))


