"""A policy ladder: several policies of one side against a reference policy, each on the same games,
optionally at every value of one setting (``sides.*.hand`` 4..10): how much skill is worth.

A ladder entry of a variants file (`napsim.study.variants_file`, ``[[ladder]]``) names a scenario, the side
whose policy changes (``*``: both sides play it), the base policy pair (its side's policy is the
reference, greedy by default) and the policies to rank. At each value of `over` the reference and
every policy play the games [0, n) of one seed (`PlayedGames`): common random numbers, so every
difference from the reference, between two policies, and between the same gap at two values of the
setting, is a paired estimate with per-game influences (`napsim.sim.summary`), not two independent
intervals. `Ladder.gap` and `Ladder.contrast` give them; `frame` has one row per value, policy,
metric and side.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pandas as pd

from napsim.model.defaults import SEED, SIM_CHUNK
from napsim.model.errors import NapsimInputError, check_seed
from napsim.model.policies import parse_policy_option
from napsim.model.scenarios import load_scenario, parse_overrides
from napsim.sim.summary import Estimate
from napsim.study.variants import PlayedGames, Variant, base_value, check_counts, check_metrics

DEFAULT_METRICS = ("effective_per_turn",)
REF = re.compile(r"@([a-z0-9][a-z0-9_-]*)")  # a variants file's tune answer, resolved before play
MAX_RUNGS = 64  # values x (policies + 1) a ladder may play


@dataclass
class Ladder:
    """What `run_ladder` returns: the estimates of every (value, policy) per metric and side.

    `estimates[(vi, pi)][metric]` is the per-side list of `Estimate` (None where the metric
    counts nothing for a side); pi = 0 is the reference, 1.. the policies in order."""

    scenario: str
    side: str                      # the side key whose policy changes, or '*'
    side_keys: tuple[str, ...]
    side_names: tuple[str, ...]
    policy: str                    # the base pair: the reference
    policies: tuple[str, ...]      # the pairs played, reference first
    side_policies: tuple[str, ...]  # the changed side's policy text, reference first
    over: str | None
    values: tuple
    base: object                   # the scenario's own value of `over` (None when not there)
    metrics: tuple[str, ...]
    games: int
    seed: int
    estimates: dict = field(default_factory=dict)
    deck_warning: str | None = None

    def estimate(self, vi: int, pi: int, metric: str, s: int) -> Estimate | None:
        return self.estimates[(vi, pi)][metric][s]

    def gap(self, vi: int, pi: int, metric: str, s: int, against: int = 0) -> Estimate | None:
        """Policy pi minus policy `against` (the reference) at value vi, paired game by game."""
        a, b = self.estimate(vi, against, metric, s), self.estimate(vi, pi, metric, s)
        return None if a is None or b is None else b.minus(a)

    def contrast(self, pi: int, metric: str, s: int, first: int = 0,
                 last: int = -1) -> Estimate | None:
        """The gap at value `last` minus the gap at value `first`: the same games at both values,
        so paired too (does the gap grow with the setting?)."""
        n = len(self.values)
        g0, g1 = self.gap(first % n, pi, metric, s), self.gap(last % n, pi, metric, s)
        return None if g0 is None or g1 is None else g1.minus(g0)

    def all_zero(self, metric: str, s: int) -> bool:
        """True when the metric is exactly zero in every game of every policy and value for side s
        (a Guerrilla metric of a side without counters): such rows say nothing."""
        ests = [r[metric][s] for r in self.estimates.values()]
        return all(e is None or (e.value == 0 and not e.influence.any()) for e in ests)

    @property
    def base_index(self) -> int:
        """The value the headline sentences read: the scenario's own, else the middle one."""
        if self.base in self.values:
            return self.values.index(self.base)
        return (len(self.values) - 1) // 2

    def frame(self) -> pd.DataFrame:
        """One row per value, policy (the reference too), metric and side: the policy's value, the
        reference's, the paired difference with its 95% interval, and n."""
        rows = []
        for vi, v in enumerate(self.values):
            for pi, text in enumerate(self.side_policies):
                for m in self.metrics:
                    for s, key in enumerate(self.side_keys):
                        ref, est = self.estimate(vi, 0, m, s), self.estimate(vi, pi, m, s)
                        if est is None or ref is None or self.all_zero(m, s):
                            continue
                        d = est.minus(ref)
                        half = d.half_width if pi else 0.0
                        rows.append(dict(value=v, policy=text, reference=pi == 0, metric=m, side_key=key,
                                         side=self.side_names[s], level=est.value, level_half=est.half_width,
                                         reference_level=ref.value, difference=d.value,
                                         ci_low=d.value - half, ci_high=d.value + half, n=d.n))
        return pd.DataFrame(rows)


def _pair(policy: str, side: str, keys: tuple[str, ...], text: str) -> str:
    """The base pair with `side`'s policy (every side's, for '*') replaced by `text`."""
    parts = [p.strip() for p in policy.split(",")]
    return ",".join(text if side in ("*", k) else p for k, p in zip(keys, parts, strict=True))


def expand(path: str, keys: tuple[str, ...]) -> list[str]:
    """'sides.*.hand' -> ['sides.A.hand', 'sides.B.hand']; 'policy.*.x' likewise; else [path]."""
    parts = path.split(".")
    if len(parts) >= 2 and parts[1] == "*" and parts[0] in ("sides", "policy"):
        return [".".join([parts[0], k, *parts[2:]]) for k in keys]
    return [path]


def run_ladder(scenario: str, side: str, policies: Sequence[str], policy: str = "greedy,greedy",
               over: str | None = None, values: Sequence = (), metrics: Sequence[str] = DEFAULT_METRICS,
               deck: str | None = None, sets: Sequence[str] | dict = (), games: int = 3_000,
               seed: int = SEED, chunk: int = SIM_CHUNK,
               progress: Callable[[str], None] | None = None) -> Ladder:
    """Play the reference (`policy`) and every policy of `side` on the same games at every value of
    `over` (module docstring); bad input is one line naming the option, before any game."""
    lad, cells = plan_ladder(scenario, side, policies, policy, over, values, metrics, deck, sets, games,
                             seed, chunk)
    for vi, pi, variant in cells:
        sim = variant.build()
        lad.deck_warning = sim.deck.estimated_warning()
        played = PlayedGames(sim, seed, chunk, metrics=list(lad.metrics))
        played.play_to(games)
        lad.estimates[(vi, pi)] = {m: played.estimates(m) for m in lad.metrics}
        if progress:
            where = f"{over}={lad.values[vi]}: " if over else ""
            progress(f"{where}{lad.side_policies[pi]} ({games:,} games)")
    for m in lad.metrics:
        if all(e is None for r in lad.estimates.values() for e in r[m]):
            raise NapsimInputError("metrics", m, "counts nothing for either side in these games",
                                   "a metric of this scenario's summary")
    return lad


def plan_ladder(scenario: str, side: str, policies: Sequence[str], policy: str = "greedy,greedy",
                over: str | None = None, values: Sequence = (), metrics: Sequence[str] = DEFAULT_METRICS,
                deck: str | None = None, sets: Sequence[str] | dict = (), games: int = 3_000,
                seed: int = SEED, chunk: int = SIM_CHUNK) -> tuple[Ladder, list[tuple[int, int, Variant]]]:
    """The ladder (no games yet) and its cells (value index, policy index, variant), every input
    checked: a one-line NapsimInputError naming the option otherwise."""
    check_seed(seed)
    check_counts(games, chunk)
    metrics = tuple(check_metrics(list(metrics) or list(DEFAULT_METRICS)))
    fixed = tuple((sets if isinstance(sets, dict) else parse_overrides(sets)).items())
    sc, _, pairs = Variant(scenario, fixed, deck, policy).inputs()
    keys = tuple(sc.side_names)
    if len(pairs) != 2:
        raise NapsimInputError("policy", "policy", f"{len(pairs)} policies given",
                               "one per side, e.g. greedy,greedy")
    if side not in (*keys, "*"):
        raise NapsimInputError("side", "side", f"unknown side {side!r}", ", ".join([*keys, "*"]))
    if isinstance(policies, str) or not policies:
        raise NapsimInputError("policies", "policies", f"{policies!r} is not a list of policies",
                               'a list, e.g. ["random", "lookahead"]')
    for p in policies:
        if not isinstance(p, str) or "," in p or len(parse_policy_option(p, "policies")) != 1:
            raise NapsimInputError("policies", "policies", f"{p!r} is not one policy",
                                   'one policy each: "random", "greedy:keep_weight=0.5"')
    vals = _values(over, values)
    ref_text = pairs[0][0] if side == "*" else [p.strip() for p in policy.split(",")][keys.index(side)]
    texts = (ref_text, *policies)
    if len(vals) * len(texts) > MAX_RUNGS:
        raise NapsimInputError("values", "values", f"{len(vals)} values x {len(texts)} policies",
                               f"at most {MAX_RUNGS} sets of games")
    pair_texts = tuple(_pair(policy, side, keys, t) for t in texts)
    base = base_value(Variant(scenario, fixed, deck, policy), expand(over, keys)[0]) if over else None
    lad = Ladder(scenario, side, keys, tuple(sc.side_names.values()), policy, pair_texts, texts, over,
                 vals, base, metrics, games, seed)
    cells = []
    for vi, v in enumerate(vals):
        point = fixed + tuple((p, v) for p in (expand(over, keys) if over else ()))
        for pi, pair in enumerate(pair_texts):
            variant = Variant(scenario, point, deck, pair)
            variant.inputs()  # every scenario value and policy checked before any game is played
            cells.append((vi, pi, variant))
    return lad, cells


def _values(over: str | None, values) -> tuple:
    if over is None:
        if values:
            raise NapsimInputError("values", "values", "values without a setting to vary", "over = PATH")
        return (None,)
    if not isinstance(over, str):
        raise NapsimInputError("over", "over", f"{over!r} is not a parameter path", "e.g. sides.*.hand")
    if isinstance(values, str) or not values or any(isinstance(v, list | dict) for v in values):
        raise NapsimInputError("values", "values", f"{values!r} is not a list of values",
                               "a list, e.g. [4, 5, 6]")
    return tuple(values)


def check_ladder(options: dict, where: str) -> None:
    """A variants file's ladder entry checked when the file is read ('@name' policies stand in as
    greedy: the tune that answers them runs later); errors name the file and entry."""
    def stand_in(v):
        return REF.sub("greedy", v) if isinstance(v, str) else v

    o = {k: ([stand_in(p) for p in v] if isinstance(v, list) else stand_in(v))
         if k in ("policy", "policies") else v for k, v in options.items()}
    try:
        plan_ladder(**o)
    except NapsimInputError as e:
        raise NapsimInputError(where, e.field, e.problem, e.allowed) from None
    except TypeError as e:  # a value of the wrong kind
        raise NapsimInputError(where, None, f"cannot read the entry: {e}") from None


def ladder_command(o: dict) -> str:
    """One cell of a ladder entry as `napsim compare` (POLICY and VALUE stand for its policies and
    values): the reference is A, the policy B, on the same games."""
    keys = tuple(load_scenario(o["scenario"]).side_names)
    pair = str(o.get("policy", "greedy,greedy"))
    cmd = ["napsim compare", f"--scenario {o['scenario']}", f"--policy-a {pair}",
           f"--policy-b {_pair(pair, o['side'], keys, 'POLICY')}"]
    fixed = [f"{k}={v}" for k, v in parse_overrides(o.get("sets", [])).items()]
    if o.get("over"):
        fixed += [f"{p}=VALUE" for p in expand(o["over"], keys)]
    cmd += [f"{flag} {item}" for flag in ("--a", "--b") for item in fixed]
    cmd += [f"--deck {o['deck']}"] if "deck" in o else []
    cmd += [f"--metric {m}" for m in o.get("metrics") or DEFAULT_METRICS]
    cmd += [f"--{k} {o[k]}" for k in ("games", "seed", "chunk") if k in o]
    return " ".join(cmd)
