"""`napsim balance`: the setting of one parameter at which a metric is equal for the two sides, or
reaches a target for one side.

The parameter is any numeric override path of a `Variant` (``sides.S.guerrilla``, ``sides.B.hand``,
``sides.A.square_form``, ``policy.A.march_prob``), searched over a stated range ``LO..HI``: an
integer range when both ends are integers and the scenario's value is not a real number, else a
real range. Every setting plays the same games (same seed and game indices), so the function
searched, f(v) = metric(second side) - metric(first side) or metric(side) - target, is paired
across settings as well as between the sides.

The search is a bisection on the sign of f: both ends first (no sign change: an error), then the
midpoint of the bracket, until the bracket is two neighbouring integers, or (real ranges) narrower
than the crossing's own 95% interval or `MAX_STEPS` midpoints. The crossing is interpolated
linearly in the last bracket, with a delta-method interval (`napsim.sim.paired.crossing`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pandas as pd

from napsim.model.cards import Deck
from napsim.model.defaults import SEED, SIM_CHUNK
from napsim.model.errors import NapsimInputError
from napsim.model.policies import PARAMS
from napsim.model.scenarios import RULE_OPTIONS
from napsim.sim import paired
from napsim.study.variants import PlayedGames, Variant, base_value, check_counts, check_metrics, check_seed

MAX_STEPS = 40
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_RANGE = re.compile(rf"^\s*({_NUMBER})\s*\.\.\s*({_NUMBER})\s*$")


@dataclass(frozen=True)
class Vary:
    """The parameter searched: a path and a numeric range; `integer` for integer settings."""

    path: str
    low: float
    high: float
    integer: bool

    def label(self, v: float) -> str:
        return f"{int(v)}" if self.integer else f"{v:g}"


def parse_vary(text: str, base: Variant) -> Vary:
    """'sides.S.guerrilla=0..9' -> Vary; a one-line error for anything that is not a numeric range
    of a numeric parameter."""
    path, eq, rng = text.partition("=")
    path = path.strip()
    if not eq or not path:
        raise NapsimInputError("--vary", "vary", f"cannot read '{text}'", "path.to.key=LOW..HIGH")
    m = _RANGE.match(rng)
    if not m:
        raise NapsimInputError("--vary", path, f"'{rng}' is not a numeric range",
                               "LOW..HIGH with numbers, e.g. 0..9 or 0.0..1.0")
    lo_text, hi_text = m.groups()
    lo, hi = float(lo_text), float(hi_text)
    if not lo < hi:
        raise NapsimInputError("--vary", path, f"empty range {lo_text}..{hi_text}", "LOW < HIGH")
    current = _current(base, path)
    if current is not None and (isinstance(current, bool) or not isinstance(current, int | float)):
        raise NapsimInputError("--vary", path, f"not a numeric parameter (its value is {current!r})",
                               "a path whose value is a number, e.g. sides.<side>.hand")
    real = isinstance(current, float) or any(c in s for s in (lo_text, hi_text) for c in ".eE")
    return Vary(path, lo, hi, not real)


def _current(base: Variant, path: str):
    head, _, rest = path.partition(".")
    if path == "deck":
        return "deck"
    if head == "rules":
        return RULE_OPTIONS.get(rest, ("a reading",))[0]
    if head == "policy":
        side, _, param = rest.partition(".")
        if not param:
            return "policy name"
        return 0.0 if param in PARAMS else None
    return base_value(base, path)


@dataclass
class Setting:
    """One evaluated setting: the metric per side and f with its per-game influences."""

    value: float
    metric: list[paired.Estimate | None]
    f: paired.Estimate


@dataclass
class Balance:
    """What `find_balance` returns: every setting played, the bracket and the crossing."""

    vary: Vary
    metric: str
    sides: tuple[int, ...]            # (first, second) for equalize; (side,) for a target
    side_keys: tuple[str, str]
    side_names: tuple[str, str]
    target: float | None
    games: int
    seed: int
    settings: list[Setting] = field(default_factory=list)
    bracket: tuple[float, float] = (math.nan, math.nan)
    crossing: tuple[float, float, float] = (math.nan, math.nan, math.nan)
    deck_warning: str | None = None  # the deck's note on estimated card counts, if any
    deck: Deck | None = None  # the deck played (for the findings: which counts are estimated)
    sentence: str = ""  # the finding in words (`napsim.output.decisions.balance_sentence`)

    def frame(self) -> pd.DataFrame:
        """One row per setting played (in parameter order): the metric per side, f and its interval,
        and which settings bracket the crossing."""
        rows = []
        for st in sorted(self.settings, key=lambda s: s.value):
            row = dict(parameter=self.vary.path, value=st.value if not self.vary.integer else int(st.value))
            for s, key in enumerate(self.side_keys):
                row[f"{self.metric}[{key}]"] = st.metric[s].value if st.metric[s] is not None else math.nan
            half = st.f.half_width
            row.update(difference=st.f.value, ci_low=st.f.value - half, ci_high=st.f.value + half,
                       n=st.f.n, bracket="below" if st.value == self.bracket[0] else
                       "above" if st.value == self.bracket[1] else "")
            rows.append(row)
        return pd.DataFrame(rows)


def find_balance(base: Variant, vary: str, metric: str = "effective_per_turn",
                 equalize: Sequence[str] | None = None, target: float | None = None,
                 side: str | None = None, games: int = 10_000, seed: int = SEED, chunk: int = SIM_CHUNK,
                 progress: Callable[[str], None] | None = None) -> Balance:
    """Search `vary` ('path=LO..HI') for the setting where `metric` is equal for the two sides of
    `equalize` (f = second - first) or reaches `target` for `side` (f = metric - target)."""
    check_seed(seed)
    check_counts(games, chunk)
    (metric,) = check_metrics([metric])
    rng = parse_vary(vary, base)
    sc, _, _ = base.with_override(rng.path, _cast(rng, rng.low)).inputs()
    keys = tuple(s.key for s in sc.sides)
    sides = _sides(keys, equalize, target, side)
    result = Balance(rng, metric, sides, keys, tuple(s.name for s in sc.sides), target, games, seed)
    cache: dict[float, Setting] = {}

    def evaluate(v: float) -> Setting:
        if v not in cache:
            p = PlayedGames(base.with_override(rng.path, _cast(rng, v)).build(), seed, chunk)
            result.deck_warning = p.sim.deck.estimated_warning()
            result.deck = p.sim.deck
            p.play_to(games)
            est = p.estimates(metric)
            for s in sides:
                if est[s] is None:
                    raise NapsimInputError("--metric", metric, f"counts nothing for side {keys[s]} "
                                           f"at {rng.path}={rng.label(v)}", "a metric of that side")
            f = est[sides[1]].minus(est[sides[0]]) if len(sides) == 2 else est[sides[0]].shift(target)
            cache[v] = Setting(v, est, f)
            result.settings.append(cache[v])
            if progress:
                progress(f"{rng.path}={rng.label(v)}: difference {f.value:+.4g}")
        return cache[v]

    a, b = rng.low, rng.high
    fa, fb = evaluate(a).f, evaluate(b).f
    if _positive(fa) == _positive(fb):
        raise NapsimInputError("--vary", rng.path, f"no crossing in {rng.label(a)}..{rng.label(b)}: "
                               f"the difference is {fa.value:+.4g} at {rng.label(a)} and {fb.value:+.4g} "
                               f"at {rng.label(b)}", "a wider range, or another metric or target")
    for _ in range(MAX_STEPS):
        if rng.integer and b - a <= 1:
            break
        if not rng.integer:
            _, lo, hi = paired.crossing(a, cache[a].f, b, cache[b].f)
            if b - a <= max(hi - lo, 1e-9 * (rng.high - rng.low)):
                break
        m = (a + b) // 2 if rng.integer else (a + b) / 2
        if _positive(evaluate(m).f) == _positive(cache[a].f):
            a = m
        else:
            b = m
    result.bracket = (a, b)
    result.crossing = paired.crossing(a, cache[a].f, b, cache[b].f)
    return result


def _positive(f: paired.Estimate) -> bool:
    return f.value >= 0


def _cast(rng: Vary, v: float):
    return int(v) if rng.integer else float(v)


def _sides(keys: tuple[str, ...], equalize, target, side) -> tuple[int, ...]:
    if (equalize is None) == (target is None):
        raise NapsimInputError("--equalize", "equalize", "give either --equalize or --target",
                               f"--equalize {','.join(keys)}, or --target VALUE --side KEY")
    if equalize is not None:
        if side is not None:
            raise NapsimInputError("--side", "side", "--side goes with --target, not --equalize",
                                   f"--equalize {','.join(keys)}")
        eq = list(equalize)
        if len(eq) != 2 or set(eq) != set(keys):
            raise NapsimInputError("--equalize", "equalize", f"'{','.join(eq)}' are not the two side keys",
                                   f"{keys[0]},{keys[1]} or {keys[1]},{keys[0]}")
        return (keys.index(eq[0]), keys.index(eq[1]))
    if not math.isfinite(target):
        raise NapsimInputError("--target", "target", f"{target} is not a number", "a finite number")
    if side not in keys:
        problem = f"unknown side '{side}'" if side else "missing with --target"
        raise NapsimInputError("--side", "side", problem, ", ".join(keys))
    return (keys.index(side),)
