"""`napsim tune`: a racing search over the knobs of a scripted policy (docs/tune.md, rules P1-P7).

The candidates are the product of the values given per knob (``--knob march_prob=0:1:0.25``,
``--knob g_spend_mode=always,threshold``), always with the default policy (the side's policy as the
scenario and `--policy` give it) as candidate 0; a grid point that packs to the default's parameter
vector is the default. A knob is any parameter of `napsim.model.policies.PARAMS` but `kind`, so a
new policy kind's parameters (a lookahead's K and D) are knobs as soon as they are there.

The race plays common random numbers: every candidate still in the race plays the same games
[0, n) of the seed (`PlayedGames`, extended round by round: the same games whatever the chunk or
thread count), in rounds of doubling size ending at `--games`. After each round the leader is the
candidate with the best objective (the tuned side's metric up, or the opponent's down; ties to the
lower index, so the default first); every other candidate's paired difference against the leader
gets an interval at the Bonferroni-corrected confidence 1 - 0.05 / m, m = (candidates - 1) x rounds
+ 1 (every comparison the race can make, plus the final one against the default), and a candidate
whose interval lies wholly on the losing side is dropped. The race stops when one candidate is left
or the last round is played. The default always plays every round (the reference), but once dropped
it cannot win. The answer is the leader when its corrected interval against the default excludes
zero on the winning side; otherwise the default stays ("no significant difference").
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np
import pandas as pd

from napsim.model.defaults import SEED, SIM_CHUNK
from napsim.model.errors import NapsimInputError, check_seed
from napsim.model.policies import DEFAULTS, MODES, PARAMS, policy_vector, with_table
from napsim.model.scenarios import parse_overrides
from napsim.sim.summary import Z95, Estimate, half_width
from napsim.study.variants import PlayedGames, Variant, check_counts, check_metrics

ALPHA = 0.05            # the family-wise error rate of the race's intervals (Bonferroni)
MAX_CANDIDATES = 64
ROUNDS = 5
GOALS = ("max", "min")
WHOSE = ("own", "opponent")
MODE_NAMES = MODES  # the parameters that take a name (modes, the lookahead's value)


@dataclass(frozen=True)
class Knob:
    """One policy parameter searched and its values (numbers, or mode names for the modes)."""

    name: str
    values: tuple


def knob_names() -> list[str]:
    return [k for k in PARAMS if k != "kind"]


def parse_knob(text: str, policy: str = "greedy", cap: int = MAX_CANDIDATES) -> Knob:
    """'NAME=v1,v2,...' or 'NAME=lo:hi:step' -> Knob, every value checked as the policy would
    (range, mode names); a one-line error naming --knob otherwise."""
    name, eq, rest = text.partition("=")
    name = name.strip()
    if not eq or not name or not rest.strip():
        raise NapsimInputError("--knob", "knob", f"cannot read '{text}'", "NAME=v1,v2,... or NAME=lo:hi:step")
    if name not in knob_names():
        raise NapsimInputError("--knob", name, "unknown policy parameter", ", ".join(knob_names()))
    if ":" in rest:
        ends = [t.strip() for t in rest.split(":")]
        if len(ends) != 3 or not all(isinstance(_value(t), int | float) and math.isfinite(float(t))
                                     for t in ends):
            raise NapsimInputError("--knob", name, f"'{rest}' is not a range",
                                   "lo:hi:step with numbers, e.g. 0:1:0.25")
        values = _range_values(name, *ends, cap)
    else:
        values = [_value(v.strip()) for v in rest.split(",")]
        if any(v == "" for v in values):
            raise NapsimInputError("--knob", name, f"empty value in '{rest}'",
                                   "v1,v2,... separated by commas")
    out = []
    for v in values:
        policy_vector(policy, {name: v}, where="--knob")  # range and mode checks, naming the knob
        v = canonical(name, v)
        if v not in out:
            out.append(v)
    return Knob(name, tuple(out))


def _value(text: str):
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def _range_values(name: str, lo_t: str, hi_t: str, step_t: str, cap: int) -> list:
    lo, hi, step = float(lo_t), float(hi_t), float(step_t)
    if not step > 0:
        raise NapsimInputError("--knob", name, f"step {step_t} is not positive", "lo:hi:step with step > 0")
    if not lo <= hi:
        raise NapsimInputError("--knob", name, f"empty range {lo_t}:{hi_t}", "lo <= hi")
    n = math.floor((hi - lo) / step + 1e-9) + 1
    if n > cap:
        raise NapsimInputError("--knob", name, f"{lo_t}:{hi_t}:{step_t} has {n} values",
                               f"at most --max-candidates ({cap})")
    integer = not any(c in t for t in (lo_t, hi_t, step_t) for c in ".eE")
    return [int(lo) + i * int(step) if integer else float(f"{lo + i * step:.12g}") for i in range(n)]


def canonical(name: str, value):
    """A knob value as napsim prints it and a scenario's [policy] table takes it: a mode by its
    name, an integral number of an integer parameter as an int, other numbers as floats."""
    names = MODE_NAMES.get(name)
    if names is not None:
        if isinstance(value, str):
            return value
        return next(k for k, n in names.items() if n == int(value))
    v = float(value)
    return int(v) if v.is_integer() and isinstance(DEFAULTS["greedy"].get(name, 0.0), int) else v


def grid(knobs: Sequence[Knob], cap: int) -> list[dict]:
    """Every combination of the knobs' values (the first knob varies slowest)."""
    names = [k.name for k in knobs]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise NapsimInputError("--knob", dup, "given twice", "each knob once, with all its values")
    size = math.prod(len(k.values) for k in knobs)
    if size > cap:
        raise NapsimInputError("--knob", "knob", f"{size} candidates ("
                               + " x ".join(str(len(k.values)) for k in knobs) + ")",
                               f"at most --max-candidates ({cap})")
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*(k.values for k in knobs))]


@dataclass
class Candidate:
    """One setting in the race: its knob values, when it left the race and its last numbers."""

    index: int
    settings: dict
    default: bool
    variant: Variant
    played: PlayedGames | None = field(default=None, repr=False)
    dropped_round: int | None = None   # 1-based round after which it was dropped
    dropped_games: int | None = None   # games played by then
    estimate: Estimate | None = field(default=None, repr=False)  # the objective metric
    vs_leader: tuple[float, float, float] = (math.nan, math.nan, math.nan)  # at its last look

    @property
    def label(self) -> str:
        if self.default:
            return "default"
        return ", ".join(f"{k}={v}" for k, v in self.settings.items())

    @property
    def games(self) -> int:
        return self.played.games if self.played is not None else 0


@dataclass
class Race:
    """What `tune_policy` returns: the candidates, the rounds and the answer."""

    scenario: str
    side: str                    # the tuned side's key
    metric: str
    metric_side: str             # whose row of the metric is the objective
    goal: str                    # 'max' or 'min'
    policy: str                  # the policies of both sides (the default candidate)
    policy_name: str             # the tuned side's policy
    knobs: list[Knob]
    candidates: list[Candidate]
    side_keys: tuple[str, ...]
    side_names: tuple[str, ...]
    table: dict                  # the side's [policy.<side>] parameters: the scenario's and --policy's
    default_values: dict         # the knobs' values in the default policy
    given: dict                  # the tuned side's parameters given with --policy (or --set)
    seed: int
    budget: int                  # --games: the last round's games
    schedule: list[int]          # games of each round
    rounds: list[dict] = field(default_factory=list)  # per round played: games, left, leader
    comparisons: int = 1
    z: float = math.nan
    leader: Candidate | None = None
    best: Candidate | None = None
    versus_default: dict = field(default_factory=dict)   # leader - default at the end
    significant: bool = False

    @property
    def confidence(self) -> float:
        return 1 - ALPHA / self.comparisons

    @property
    def default(self) -> Candidate:
        return self.candidates[0]

    @property
    def games(self) -> int:
        return self.rounds[-1]["games"] if self.rounds else 0

    @property
    def sign(self) -> float:
        return 1.0 if self.goal == "max" else -1.0

    def name_of(self, key: str) -> str:
        return self.side_names[self.side_keys.index(key)]

    def settings(self, c: Candidate) -> dict:
        """The knobs' values of a candidate (the default's too)."""
        return dict(self.default_values) if c.default else dict(c.settings)

    def best_table(self) -> dict:
        """The [policy.<side>] parameters of the answer: the scenario's table and the tuned side's
        --policy parameters, with the knobs' values of the best candidate."""
        return {**{k: canonical(k, v) for k, v in self.table.items()}, **self.settings(self.best)}

    def frame(self) -> pd.DataFrame:
        """One row per candidate: its knob values, the objective metric, its difference from the
        leader at its last look (with the corrected interval), when it was dropped and games."""
        rows = []
        for c in self.candidates:
            lo_hi = c.vs_leader
            rows.append(dict(candidate=c.index, label=c.label, **self.settings(c),
                             value=c.estimate.value if c.estimate is not None else math.nan,
                             vs_leader=lo_hi[0], ci_low=lo_hi[1], ci_high=lo_hi[2],
                             dropped_round=c.dropped_round, dropped_games=c.dropped_games,
                             games=c.games, status=_status(self, c)))
        df = pd.DataFrame(rows)
        df.attrs.update(metric=self.metric, side=self.metric_side, goal=self.goal,
                        confidence=self.confidence, seed=self.seed)
        return df


def _status(r: Race, c: Candidate) -> str:
    if c is r.best:
        return "best"
    if c is r.leader:
        return "leader (not significant)"
    return "dropped" if c.dropped_round is not None else "survived"


def schedule(games: int, rounds: int) -> list[int]:
    """Games of each round: doubling up to `games` (at least 2 in the first)."""
    out = []
    for r in range(rounds):
        n = max(2, math.ceil(games / 2 ** (rounds - 1 - r)))
        if not out or n > out[-1]:
            out.append(n)
    return out


def tune_policy(scenario: str, side: str, knobs: Sequence[str | Knob], metric: str = "effective_per_turn",
                of: str = "own", goal: str | None = None, policy: str = "greedy,greedy",
                deck: str | None = None, sets: Sequence[str] | dict = (), games: int = 20_000,
                seed: int = SEED, chunk: int = SIM_CHUNK, rounds: int = ROUNDS,
                max_candidates: int = MAX_CANDIDATES,
                progress: Callable[[str], None] | None = None) -> Race:
    """Race the candidates of `knobs` for `side`'s policy on the same games (module docstring)."""
    check_seed(seed)
    check_counts(games, chunk)
    (metric,) = check_metrics([metric])
    if of not in WHOSE:
        raise NapsimInputError("--of", "of", f"unknown '{of}'", ", ".join(WHOSE))
    goal = goal or ("max" if of == "own" else "min")
    if goal not in GOALS:
        raise NapsimInputError("--goal", "goal", f"unknown goal '{goal}'", ", ".join(GOALS))
    if not (isinstance(rounds, int) and 1 <= rounds <= 20):
        raise NapsimInputError("--rounds", "rounds", f"{rounds} is out of range", "1..20")
    if not (isinstance(max_candidates, int) and max_candidates >= 2):
        raise NapsimInputError("--max-candidates", "max-candidates", f"{max_candidates} is too few", ">= 2")
    overrides = tuple((sets if isinstance(sets, dict) else parse_overrides(sets)).items())
    base = Variant(scenario, overrides, deck, policy)
    sc, _, policies = base.inputs()
    keys = tuple(s.key for s in sc.sides)
    if len(policies) != 2:
        raise NapsimInputError("--policy", "policy", f"{len(policies)} policies given",
                               "one per side, e.g. greedy,greedy")
    if side not in keys:
        raise NapsimInputError("--side", "side", f"unknown side '{side}'" if side else "missing",
                               ", ".join(keys))
    si = keys.index(side)
    name, given = policies[si]
    if not knobs:
        raise NapsimInputError("--knob", "knob", "no knob given", "NAME=v1,v2,... with NAME one of "
                               + ", ".join(knob_names()))
    parsed = [k if isinstance(k, Knob) else parse_knob(k, name, max_candidates) for k in knobs]
    table = with_table(sc.policies, side, name, given)
    merged = {**DEFAULTS[name], **table}
    race = Race(scenario, side, metric, keys[si] if of == "own" else keys[1 - si], goal, policy, name,
                parsed, [], keys, tuple(s.name for s in sc.sides), table,
                {k.name: canonical(k.name, merged[k.name]) for k in parsed}, dict(given), seed, games,
                schedule(games, rounds))
    race.candidates = _candidates(race, base, grid(parsed, max_candidates), chunk)
    if len(race.candidates) < 2:
        raise NapsimInputError("--knob", parsed[0].name, "every value is the default policy's",
                               "at least one value other than the default's")
    race.comparisons = (len(race.candidates) - 1) * len(race.schedule) + 1
    race.z = NormalDist().inv_cdf(1 - ALPHA / (2 * race.comparisons))
    _run(race, progress)
    return race


def _candidates(race: Race, base: Variant, points: list[dict], chunk: int) -> list[Candidate]:
    """The default first, then each grid point whose policy differs from every earlier one, each
    with its games (not played yet)."""
    si = race.side_keys.index(race.side)
    out: list[Candidate] = []
    for p in [None, *points]:
        v = base
        for k, val in (p or {}).items():
            v = v.with_override(f"policy.{race.side}.{k}", val)
        sim = v.build()
        if any(np.array_equal(sim.policies[si], c.played.sim.policies[si]) for c in out):
            continue
        c = Candidate(len(out), p or {}, p is None, v)
        c.played = PlayedGames(sim, race.seed, chunk, metrics=[race.metric])
        out.append(c)
    return out


def _run(race: Race, progress: Callable[[str], None] | None) -> None:
    mi = race.side_keys.index(race.metric_side)
    alive = list(race.candidates)
    for r, n in enumerate(race.schedule, start=1):
        for c in race.candidates:
            if c in alive or c.default:
                c.played.play_to(n)
                c.estimate = c.played.estimates(race.metric)[mi]
                if c.estimate is None:
                    raise NapsimInputError("--metric", race.metric, f"counts nothing for side "
                                           f"{race.metric_side} in these games", "a metric of that side")
        leader = max(alive, key=lambda c: (race.sign * c.estimate.value, -c.index))
        for c in race.candidates:
            if c in alive or c.default:
                c.vs_leader = _interval(c.estimate.minus(leader.estimate), race.z)
        out = [c for c in alive if c is not leader and race.sign * _bound(race, c) < 0]
        for c in out:
            c.dropped_round, c.dropped_games = r, n
        alive = [c for c in alive if c not in out]
        race.rounds.append(dict(round=r, games=n, left=len(alive), dropped=len(out), leader=leader.index))
        if progress:
            progress(f"round {r}: {n:,} games, {len(out)} dropped, {len(alive)} left, leader {leader.label}")
        if len(alive) == 1:
            break
    race.leader = leader
    d = leader.estimate.minus(race.default.estimate)
    lo_hi = _interval(d, race.z)
    race.versus_default = dict(difference=lo_hi[0], ci_low=lo_hi[1], ci_high=lo_hi[2],
                               half_width=(lo_hi[2] - lo_hi[1]) / 2, n=d.n,
                               default=race.default.estimate.value, best=leader.estimate.value)
    race.significant = (not leader.default) and race.sign * (lo_hi[1] if race.sign > 0 else lo_hi[2]) > 0
    race.best = leader if race.significant else race.default


def _interval(d: Estimate, z: float) -> tuple[float, float, float]:
    half = half_width(d.influence) * z / Z95
    return d.value, d.value - half, d.value + half


def _bound(race: Race, c: Candidate) -> float:
    """The end of c's interval against the leader nearest to winning: the upper end when the
    metric goes up, the lower when it goes down."""
    _, lo, hi = c.vs_leader
    return hi if race.sign > 0 else lo
