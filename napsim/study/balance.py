"""`napsim balance`: the setting of one parameter at which a metric is equal for the two sides, or
reaches a target for one side.

The parameter is any numeric override path of a `Variant` (``sides.S.guerrilla``, ``sides.B.hand``,
``sides.A.square_form``, ``policy.A.march_prob``), searched over a stated range ``LO..HI``: an
integer range when both ends are integers and the scenario's value is not a real number, else a
real range. Every setting plays the same games (same seed and game indices), so the function
searched, f(v) = metric(second side) - metric(first side) or metric(side) - target, is paired
across settings as well as between the sides.

The search is a bisection on the sign of f: both ends first, then the midpoint of the bracket,
until the bracket is two neighbouring integers, or (real ranges) narrower than the crossing's own
95% interval or `MAX_STEPS` midpoints. The crossing is interpolated linearly in the last bracket,
with a delta-method interval (`napsim.sim.summary.crossing`). When both ends have the same sign,
an integer range of at most `FILL_SETTINGS` settings is played at every setting between them (a
sign change there is bracketed as above); a range where no setting evens the sides is an answer
(`crossed` False, one side ahead at every setting played), not an error.

With a target error the search runs on 1,000 games per setting, then every setting played is
extended with the next games of the same seed (still paired) and the bisection redone from the
ends over the settings already played, until the crossing's half-width is at most the target or
the --games cap is reached. Each setting keeps only the metric's per-game parts.
A plausible deck (`deck`) replaces the variant's deck for a deck ensemble, whose searches play the
ends only when they agree (`every_setting` False).
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pandas as pd

from napsim.model.cards import Deck
from napsim.model.defaults import SEED, SIM_CHUNK
from napsim.model.errors import NapsimInputError, check_seed
from napsim.model.policies import PARAMS
from napsim.model.scenarios import RULE_OPTIONS, load_scenario
from napsim.sim.packing import Simulation
from napsim.sim.summary import Estimate, crossing
from napsim.study.variants import PlayedGames, Variant, base_value, check_counts, check_metrics

MAX_STEPS = 40
FILL_SETTINGS = 30  # an integer range this short is played at every setting when its ends agree
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
    if path.split(".")[0] in ("sides", "scenario", "rules") and "*" not in path:  # named as --vary
        first = lo if any(c in lo_text + hi_text for c in ".eE") else int(lo)
        load_scenario(base.scenario, {**dict(base.overrides), path: first}, "--vary")
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
    metric: list[Estimate | None]
    f: Estimate


@dataclass
class Balance:
    """What `find_balance` returns: every setting played, the bracket and the crossing.

    Without a crossing in the range `crossed` is False and the bracket and crossing are nan
    (`every_setting`: whether every setting of the range was played); `stopped` says what ended a
    `target_error` search: 'target' (the crossing's half-width reached it) or 'cap' (--games
    played first)."""

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
    sentence: str = ""  # the finding in words (`napsim.output.variants.balance_sentence`)
    crossed: bool = True
    target_error: float | None = None
    stopped: str = ""
    base: Variant | None = None       # what was searched, for a replay on other decks
    deck: Deck | None = None          # the deck played
    chunk: int = SIM_CHUNK
    ensemble: object = None           # a `napsim.study.deck_ensemble.DeckEnsemble` (--deck-ensemble)
    ensemble_sentence: str = ""
    scenario_name: str = ""           # the scenario's own name, for the sentences

    @property
    def every_setting(self) -> bool:
        """Whether every setting of an integer range was played."""
        return self.vary.integer and len(self.settings) == int(self.vary.high - self.vary.low) + 1

    def __repr__(self) -> str:  # a notebook's short text, not every setting's per-game arrays
        return (f"Balance of {self.vary.path} ({len(self.settings)} settings, {self.games:,} games each): "
                f"{self.sentence}")

    def _repr_html_(self) -> str:
        return f"<p>{html.escape(repr(self))}</p>" + self.frame().to_html(index=False)

    @property
    def half_width(self) -> float:
        return (self.crossing[2] - self.crossing[1]) / 2

    def setting(self, value: float) -> Setting:
        return next(s for s in self.settings if s.value == value)

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


TARGET_START = 1000  # games per setting before a --target-error search first looks at the interval


def find_balance(base: Variant, vary: str | Vary, metric: str = "effective_per_turn",
                 equalize: Sequence[str] | None = None, target: float | None = None,
                 side: str | None = None, games: int = 10_000, seed: int = SEED, chunk: int = SIM_CHUNK,
                 progress: Callable[[str], None] | None = None, target_error: float | None = None,
                 deck: Deck | None = None, every_setting: bool = True) -> Balance:
    """Search `vary` ('path=LO..HI') for the setting where `metric` is equal for the two sides of
    `equalize` (f = second - first) or reaches `target` for `side` (f = metric - target).

    With `target_error`, every setting plays 1,000 games, then more (the same games extended,
    so still paired) until the crossing's 95% half-width is at most `target_error` or `games`
    are played. `deck` replaces the variant's deck (a plausible deck of a deck ensemble). No
    setting in the range that evens the sides is an answer: `crossed` False; with `every_setting`
    a short integer range is then played at every setting, so the answer holds for each of them."""
    check_seed(seed)
    check_counts(games, chunk, target_error)
    (metric,) = check_metrics([metric])
    rng = vary if isinstance(vary, Vary) else parse_vary(vary, base)
    sc, _, _ = base.with_override(rng.path, _cast(rng, rng.low)).inputs()
    keys = tuple(s.key for s in sc.sides)
    sides = _sides(keys, equalize, target, side)
    result = Balance(rng, metric, sides, keys, tuple(s.name for s in sc.sides), target, games, seed,
                     target_error=target_error, base=base, chunk=chunk, scenario_name=sc.name)
    search = _Search(result, deck, progress, every_setting)
    n = games if target_error is None else min(games, TARGET_START)
    while True:
        search.play_to(n)
        if not search.bisect():
            result.crossed = False
            result.bracket, result.crossing = (math.nan, math.nan), (math.nan, math.nan, math.nan)
            break
        if target_error is None:
            break
        if result.half_width <= target_error or n >= games:
            result.stopped = "target" if result.half_width <= target_error else "cap"
            break
        n = _next_games(n, result.half_width, target_error, games)
    result.games = n
    result.settings = [search.cache[v] for v in sorted(search.cache)]
    return result


def _next_games(n: int, half: float, target_error: float, cap: int) -> int:
    """Games for the next round: the half-width shrinks as 1/sqrt(games); aim 10% past the
    projection (whole thousands), at least half as many again, at most the cap."""
    projected = math.ceil(n * (half / target_error) ** 2 * 1.1 / 1000) * 1000
    return min(cap, max(n + n // 2, projected))


class _Search:
    """The settings of one balance search, each a `PlayedGames` of the metric alone, and the
    bisection over them (`bisect`), which reuses every setting already played."""

    def __init__(self, result: Balance, deck: Deck | None, progress: Callable[[str], None] | None,
                 fill: bool = True):
        self.r = result
        self.deck = deck
        self.fill = fill
        self.progress = progress
        self.games = 0
        self.played: dict[float, PlayedGames] = {}
        self.cache: dict[float, Setting] = {}

    def play_to(self, n: int) -> None:
        """Every setting played so far, extended to n games (the same games, so still paired)."""
        self.games = n
        for v in list(self.played):
            self._evaluate(v)

    def setting(self, v: float) -> Setting:
        if v not in self.cache:
            self._evaluate(v)
        return self.cache[v]

    def _evaluate(self, v: float) -> None:
        r, rng = self.r, self.r.vary
        if v not in self.played:
            sc, deck, policies = r.base.with_override(rng.path, _cast(rng, v)).inputs()
            sim = Simulation.build(sc, policies, self.deck if self.deck is not None else deck)
            r.deck_warning, r.deck = sim.deck.estimated_warning(), sim.deck
            self.played[v] = PlayedGames(sim, r.seed, r.chunk, metrics=[r.metric])
        p = self.played[v]
        if p.games == self.games and v in self.cache:
            return
        p.play_to(self.games)
        est = p.estimates(r.metric)
        for s in r.sides:
            if est[s] is None:
                raise NapsimInputError("--metric", r.metric, f"counts nothing for side {r.side_keys[s]} "
                                       f"at {rng.path}={rng.label(v)}", "a metric of that side")
        f = est[r.sides[1]].minus(est[r.sides[0]]) if len(r.sides) == 2 else est[r.sides[0]].shift(r.target)
        self.cache[v] = Setting(v, est, f)
        if self.progress:
            self.progress(f"{rng.path}={rng.label(v)}: difference {f.value:+.4g} ({self.games:,} games)")

    def _fill(self) -> float | None:
        """Every setting of a short integer range, in order: the first whose sign differs from the
        low end's (None: no such setting, or a range too long or not integer to fill)."""
        rng = self.r.vary
        if not (self.fill and rng.integer and rng.high - rng.low <= FILL_SETTINGS):
            return None
        sign = _positive(self.setting(rng.low).f)
        for v in range(int(rng.low) + 1, int(rng.high)):
            if _positive(self.setting(float(v)).f) != sign:
                return float(v)
        return None

    def bisect(self) -> bool:
        """Bisect the range on the sign of f; False when no setting played changes sign (both ends
        agree, and so does every setting between them where a short integer range is filled)."""
        rng = self.r.vary
        a, b = rng.low, rng.high
        if _positive(self.setting(a).f) == _positive(self.setting(b).f):
            other = self._fill()
            if other is None:
                return False
            b = other
        for _ in range(MAX_STEPS):
            if rng.integer and b - a <= 1:
                break
            if not rng.integer:
                _, lo, hi = crossing(a, self.cache[a].f, b, self.cache[b].f)
                if b - a <= max(hi - lo, 1e-9 * (rng.high - rng.low)):
                    break
            m = (a + b) // 2 if rng.integer else (a + b) / 2
            if _positive(self.setting(m).f) == _positive(self.cache[a].f):
                a = m
            else:
                b = m
        self.r.bracket = (a, b)
        self.r.crossing = crossing(a, self.cache[a].f, b, self.cache[b].f)
        return True


def _positive(f: Estimate) -> bool:
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
