"""Variants of one question, played on the same games: `napsim compare` (and `napsim balance`).

A `Variant` is a scenario with overrides, a deck and a policy pair. Overrides take the paths of a
study's `[set]` table: scenario paths (``sides.S.guerrilla``, ``rules.initiative``), ``deck`` and
``policy.<side>`` / ``policy.<side>.<param>``. `PlayedGames` plays a variant's games [0, n) chunk
by chunk (`napsim.sim.runner.play_chunks`) and keeps the per-game rows, so that two variants with
the same seed play the same games (common random numbers) and every difference between them is
paired (`napsim.sim.summary.paired_difference`).
`compare_variants` plays A and B, optionally until the main metric's paired half-width is below
a target, and returns one row per metric and side.

A variants file (``studies/tamames_balance.toml``, `napsim.study.variants_file`) writes such
questions down once, so that `napsim regen` rebuilds their report in results/.
"""

from __future__ import annotations

import html
import math
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from napsim.engine.rng import seed_key
from napsim.model.defaults import SEED, SIM_CHUNK
from napsim.model.errors import NapsimInputError, check_seed
from napsim.model.metrics import unknown_metric
from napsim.model.policies import PARAMS, parse_policy_option, policy_vector
from napsim.model.scenarios import load_scenario, parse_overrides, resolve_scenario_path
from napsim.sim.metric_table import metric_names
from napsim.sim.packing import FORMAT_PLAYERS, Simulation
from napsim.sim.runner import play_chunks
from napsim.sim.summary import Estimate, estimate, paired_difference
from napsim.sim.sums import GameSums

DEFAULT_METRICS = ("effective_per_turn", "nominal_per_turn")
MULTI_METRICS = ("orders_per_turn", "initiative_share")   # 3-4 commanders a side: initiative rolls
GUERRILLA_METRICS = ("g_cards_nullified_per_turn",)       # a side plays the guerrilla rule
MIN_GAMES_FOR_TARGET = 1000


@dataclass(frozen=True)
class Variant:
    """One side of a comparison: scenario, overrides (paths as in a study's [set]), deck, policies."""

    scenario: str
    overrides: tuple = ()   # ((path, value), ...)
    deck: str | None = None
    policy: str = "greedy,greedy"

    def with_override(self, path: str, value) -> Variant:
        rest = tuple((k, v) for k, v in self.overrides if k != path)
        return Variant(self.scenario, (*rest, (path, value)), self.deck, self.policy)

    def inputs(self) -> tuple:
        """(Scenario, deck, [(policy name, overrides)] per side), validated."""
        scenario_sets, deck, policy_sets = {}, self.deck, []
        for path, value in self.overrides:
            head, _, rest = path.partition(".")
            if path == "deck":
                deck = str(value)
            elif head == "policy":
                policy_sets.append((rest, value))
            else:
                scenario_sets[path] = value
        sc = load_scenario(self.scenario, scenario_sets)
        policies = parse_policy_option(self.policy)
        keys = [s.key for s in sc.sides]
        for rest, value in policy_sets:
            side, _, param = rest.partition(".")
            if side not in (*keys, "*") or (param and (param not in PARAMS or param == "kind")):
                raise NapsimInputError(f"policy.{rest}", "policy", "unknown policy path",
                                       f"policy.<{'|'.join(keys)}|*> or policy.<side>.<parameter>")
            for i, key in enumerate(keys):
                if side in ("*", key) and i < len(policies):
                    name, o = policies[i]
                    policies[i] = (name, {**o, param: value}) if param else (str(value), o)
        for name, o in policies:
            policy_vector(name, o)
        return sc, deck, policies

    def build(self) -> Simulation:
        sc, deck, policies = self.inputs()
        return Simulation.build(sc, policies, deck)


def check_counts(games: int, chunk: int, target_error: float | None = None) -> None:
    if games < 2:
        raise NapsimInputError("--games", "games", f"{games} is too few for an interval", ">= 2")
    if chunk < 1:
        raise NapsimInputError("--chunk", "chunk", f"{chunk} is not positive", ">= 1")
    if target_error is not None and not (math.isfinite(target_error) and target_error > 0):
        raise NapsimInputError("--target-error", "target-error", f"{target_error} is not positive",
                               "a positive number")


class PlayedGames:
    """One variant's games [0, n) of a seed, added up with their per-game rows (`GameSums`);
    `play_to` plays more, the same games whatever the steps.

    With `metrics`, only those metrics' per-game parts (x, t) are kept, not the rows: what a
    long search over many settings (`napsim balance --target-error`) can afford to hold."""

    def __init__(self, sim: Simulation, seed: int, chunk: int = SIM_CHUNK,
                 metrics: Sequence[str] | None = None):
        self.sim = sim
        self.key = seed_key(seed)
        self.chunk = chunk
        self.args = sim.kernel_args()
        rows = metrics is None
        self.sums = GameSums(rows=rows, commander_rows=rows, parts=metrics or ())

    @property
    def games(self) -> int:
        return self.sums.games

    def play_to(self, games: int) -> None:
        if games <= self.games:
            return
        for _, out in play_chunks(self.args, self.key, self.games, games - self.games, self.chunk):
            self.sums.add_chunk(out)

    def estimates(self, metric: str) -> list[Estimate | None]:
        """The metric's estimate per side (None where it counts nothing for that side)."""
        x, t, present = self.sums.parts(metric)
        if not present:
            return [None, None]
        return [estimate(x[:, s], t[:, s]) for s in range(2)]


def check_metrics(metrics: Sequence[str]) -> list[str]:
    known = metric_names()
    for m in metrics:
        if m not in known:
            raise unknown_metric(m, list(known))
    return list(dict.fromkeys(metrics))


def default_metrics(sims: Sequence[Simulation]) -> list[str]:
    """Effective and nominal orders per turn, plus initiative with 3-4 commanders a side and cards
    nullified when a side plays the guerrilla rule."""
    out = list(DEFAULT_METRICS)
    if any(FORMAT_PLAYERS.get(s.scenario.format, 1) >= 3 for s in sims):
        out += MULTI_METRICS
    if any(side.guerrilla_rule != "off" for s in sims for side in s.scenario.sides):
        out += GUERRILLA_METRICS
    return out


@dataclass
class Comparison:
    """What `compare_variants` returns: one row per metric and side, and how it was played."""

    frame: pd.DataFrame
    a: Variant
    b: Variant
    sims: tuple[Simulation, Simulation]
    games: int
    seed: int
    target_error: float | None
    target_reached: bool | None
    gap: dict | None = None   # the main metric's gap between the sides in A and B (`gap_change`)

    @property
    def side_names(self) -> dict[str, str]:
        """{side key: side name} of variant A's scenario (B's has the same keys)."""
        return self.sims[0].scenario.side_names

    def __repr__(self) -> str:  # a notebook's short text, not the simulations' arrays
        return (f"Comparison of B with A on {self.games:,} games (seed {self.seed}), "
                f"{self.frame['metric'].nunique()} metrics, paired")

    def _repr_html_(self) -> str:
        return f"<p>{html.escape(repr(self))}</p>" + self.frame.to_html(index=False)


def compare_variants(a: Variant, b: Variant, metrics: Sequence[str] = (), games: int = 10_000,
                     seed: int = SEED, chunk: int = SIM_CHUNK, target_error: float | None = None,
                     progress: Callable[[int, int], None] | None = None) -> Comparison:
    """Play A and B on the same games and compare them metric by metric (B - A, paired).

    With `target_error`, games are played chunk by chunk until the paired 95% half-width of the
    first metric's difference is below it for every side (after at least 1,000 games), at most
    `games`; otherwise exactly `games`."""
    check_seed(seed)
    check_counts(games, chunk, target_error)
    metrics = check_metrics(metrics) if metrics else []
    sims = (a.build(), b.build())
    keys = [[s.key for s in sim.scenario.sides] for sim in sims]
    if keys[0] != keys[1]:
        raise NapsimInputError("--scenario-b", "sides", f"side keys {keys[1]} differ from A's {keys[0]}",
                               "two scenarios with the same side keys")
    metrics = metrics or default_metrics(sims)
    played = [PlayedGames(sim, seed, chunk) for sim in sims]
    step = games if target_error is None else min(chunk, games)
    reached = None
    while True:
        n = min(games, played[0].games + step)
        for p in played:
            p.play_to(n)
        if progress:
            progress(n, games)
        if target_error is None or n >= games:
            break
        if n >= min(MIN_GAMES_FOR_TARGET, games) and _main_half(played, metrics[0]) < target_error:
            break
    frame = compare_frame(played, metrics)
    if target_error is not None:
        reached = bool(_main_half(played, metrics[0]) < target_error)
    return Comparison(frame, a, b, sims, played[0].games, seed, target_error, reached,
                      gap_change(played, metrics[0]))


def gap_change(played: Sequence[PlayedGames], metric: str) -> dict | None:
    """The gap between the sides in one metric (second side minus first) in A and in B, and its
    change B - A, paired game by game: the question a designer asks of a change ("does it even the
    sides?"). None where a side counts nothing in either variant."""
    ea, eb = played[0].estimates(metric), played[1].estimates(metric)
    if any(e is None for e in (*ea, *eb)):
        return None
    ga, gb = ea[1].minus(ea[0]), eb[1].minus(eb[0])
    sides = played[0].sim.scenario.sides
    return dict(metric=metric, first=sides[0].name, second=sides[1].name, a_half_width=ga.half_width,
                b_half_width=gb.half_width, **paired_difference(ga, gb))


def _main_half(played: Sequence[PlayedGames], metric: str) -> float:
    ea, eb = played[0].estimates(metric), played[1].estimates(metric)
    halves = [y.minus(x).half_width for x, y in zip(ea, eb, strict=True) if x is not None and y is not None]
    return max(halves) if halves else 0.0


def compare_frame(played: Sequence[PlayedGames], metrics: Sequence[str]) -> pd.DataFrame:
    """One row per metric and side: A, B, B - A with its paired interval, n, the relative change,
    and the paired and unpaired half-widths. A metric that counts nothing for a side in both
    variants has no row for it; one that counts nothing for any side is an error."""
    sides = played[0].sim.scenario.sides
    rows = []
    for m in metrics:
        ea, eb = played[0].estimates(m), played[1].estimates(m)
        found = False
        for s, side in enumerate(sides):
            x, y = ea[s], eb[s]
            if (x is None and y is None) or _all_zero(m, x, y):
                continue
            if x is None or y is None:  # counted in one variant only: show it without a difference
                x = x or Estimate(math.nan, np.zeros(played[0].games))
                y = y or Estimate(math.nan, np.zeros(played[0].games))
            found = True
            rows.append(dict(metric=m, side_key=side.key, side=side.name, **paired_difference(x, y)))
        if not found:
            raise NapsimInputError("--metric", m, "counts nothing for either side in these games",
                                   "a metric of this scenario's summary")
    return pd.DataFrame(rows, columns=COMPARE_COLUMNS)


def _all_zero(metric: str, x, y) -> bool:
    """A Guerrilla metric that is zero in every game of both variants (a side without the rule)."""
    return (metric.startswith("g_") and x is not None and y is not None and x.value == y.value == 0
            and not x.influence.any() and not y.influence.any())


def variant_pair(scenario: str, a: Sequence[str] | dict = (), b: Sequence[str] | dict = (),
             scenario_b: str | None = None, deck: str | None = None, deck_a: str | None = None,
             deck_b: str | None = None, policy: str = "greedy,greedy", policy_a: str | None = None,
             policy_b: str | None = None) -> tuple[Variant, Variant]:
    """Variants A and B from the options of `napsim compare`: overrides as 'path=value' items (or a
    dict), a second scenario, decks and policies (each shared unless given for A or B)."""
    sets = [tuple((a if isinstance(a, dict) else parse_overrides(a, "--a")).items()),
            tuple((b if isinstance(b, dict) else parse_overrides(b, "--b")).items())]
    for given_as, name, over in (("--a", scenario, sets[0]), ("--b", scenario_b or scenario, sets[1])):
        scenario_sets = {k: v for k, v in over if k != "deck" and not k.startswith("policy.")}
        if scenario_sets:  # a wrong value named as the user gave it (--a or --b), before anything plays
            load_scenario(name, scenario_sets, given_as)
    return (Variant(scenario, sets[0], deck_a or deck, policy_a or policy),
            Variant(scenario_b or scenario, sets[1], deck_b or deck, policy_b or policy))


COMPARE_COLUMNS = ["metric", "side_key", "side", "a", "b", "difference", "ci_low", "ci_high", "half_width",
                   "half_width_unpaired", "n", "relative_change"]


def base_value(v: Variant, path: str):
    """The value a scenario path has in the variant's scenario file (None when not there)."""
    for k, val in v.overrides:
        if k == path:
            return val
    if path == "deck":
        return v.deck
    try:
        node = tomllib.loads(resolve_scenario_path(v.scenario).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError, NapsimInputError):
        return None
    for k in path.split("."):
        if not isinstance(node, dict) or k not in node:
            return None
        node = node[k]
    return node

