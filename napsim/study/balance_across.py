"""`napsim balance --across`: which combinations of two settings even a scenario.

The first setting (`--vary`) is balanced as `napsim balance` does it, once for every whole value
of the second (`--across PATH=LO..HI`, an integer range): each row is a full `Balance` (its
crossing with its interval and the whole settings either side, or "no crossing in the range"),
and together they are the curve of even settings over the grid, with its band. Every row plays the
same games (same seed, same game indices), so two rows' crossings differ with a paired interval
(`crossing_shift`, from the crossings' per-game influences, `crossing_estimate`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pandas as pd

from napsim.model.defaults import SEED, SIM_CHUNK
from napsim.model.errors import NapsimInputError
from napsim.sim.summary import Estimate, crossing_estimate, half_width
from napsim.study.balance import FILL_SETTINGS, Balance, Vary, find_balance, parse_vary
from napsim.study.variants import Variant

MAX_ACROSS = FILL_SETTINGS + 1  # values of the second setting: one balance search each


@dataclass
class BalanceAcross:
    """One balance of `vary` per whole value of `across` (`rows`: (value, Balance), in order)."""

    across: Vary
    rows: list[tuple[int, Balance]] = field(default_factory=list)
    sentence: str = ""        # the curve in words (`napsim.output.balance_across.curve_sentence`)

    @property
    def first(self) -> Balance:
        return self.rows[0][1]

    @property
    def crossed(self) -> list[tuple[int, Balance]]:
        return [(v, b) for v, b in self.rows if b.crossed]

    def frame(self) -> pd.DataFrame:
        """One row per value of the second setting: the crossing of the first with its 95% interval
        and the whole settings either side (nan without a crossing), settings played, games."""
        rows = []
        for v, b in self.rows:
            rows.append({"across": self.across.path, "across_value": v, "parameter": b.vary.path,
                         "crossed": b.crossed, "crossing": b.crossing[0], "ci_low": b.crossing[1],
                         "ci_high": b.crossing[2], "below": b.bracket[0], "above": b.bracket[1],
                         "settings_played": len(b.settings), "games": b.games})
        return pd.DataFrame(rows)

    def crossing_shift(self, v0: int, v1: int) -> tuple[float, float, float]:
        """How far the crossing moves from across value v0 to v1 (both crossed), with its paired
        95% interval: (value, low, high)."""
        e0, e1 = (_crossing_estimate(dict(self.rows)[v]) for v in (v0, v1))
        if e0.n != e1.n:  # rows of a --target-error search that stopped at different game counts
            return e1.value - e0.value, math.nan, math.nan
        d = e1.minus(e0)
        half = half_width(d.influence)
        return d.value, d.value - half, d.value + half


def _crossing_estimate(b: Balance) -> Estimate:
    lo, hi = b.bracket
    f0, f1 = (next(s.f for s in b.settings if s.value == v) for v in (lo, hi))
    if f0.value == f1.value:
        return Estimate((lo + hi) / 2, f0.influence * 0.0)
    return crossing_estimate(lo, f0, hi, f1)


def parse_across(text: str, base: Variant, vary: Vary) -> Vary:
    """'sides.S.guerrilla=0..6' -> Vary: a whole-number range of a numeric setting other than the
    one balanced, at most `MAX_ACROSS` values; a one-line error naming --across otherwise."""
    try:
        rng = parse_vary(text, base)
    except NapsimInputError as e:
        raise NapsimInputError("--across", e.field, e.problem, e.allowed) from None
    if not rng.integer:
        raise NapsimInputError("--across", rng.path, f"'{text.partition('=')[2].strip()}' is not a range of "
                               "whole settings", "LOW..HIGH with whole numbers, e.g. 0..6")
    if rng.path == vary.path:
        raise NapsimInputError("--across", rng.path, "is the setting balanced (--vary)",
                               "a second setting, e.g. sides.<side>.guerrilla=0..6")
    if rng.high - rng.low + 1 > MAX_ACROSS:
        raise NapsimInputError("--across", rng.path, f"{int(rng.high - rng.low + 1)} values",
                               f"at most {MAX_ACROSS} whole settings (one balance each)")
    return rng


def find_balance_across(base: Variant, vary: str, across: str, metric: str = "effective_per_turn",
                        equalize: Sequence[str] | None = None, target: float | None = None,
                        side: str | None = None, games: int = 10_000, seed: int = SEED,
                        chunk: int = SIM_CHUNK, progress: Callable[[str], None] | None = None,
                        target_error: float | None = None) -> BalanceAcross:
    """`find_balance` of `vary` at every whole value of `across`, on the same games."""
    rng = parse_vary(vary, base)
    grid = BalanceAcross(parse_across(across, base, rng))
    for v in range(int(grid.across.low), int(grid.across.high) + 1):
        if progress:
            progress(f"{grid.across.path}={v}:")
        b = find_balance(base.with_override(grid.across.path, v), rng, metric, equalize, target, side,
                         games, seed, chunk, progress, target_error)
        grid.rows.append((v, b))
    return grid

