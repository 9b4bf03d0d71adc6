"""Which open readings of the rules matter? Every alternative reading against the default one.

A readings file (``studies/readings.toml``) names, per rule option of the scenario's [rules]
table, the scenarios where it applies. For each (option, scenario) both readings play the same
games (same seed and game indices), so the per-game differences are paired; the report gives the
headline numbers under each reading, the difference with its paired 95% interval and n, and a
sentence per row saying whether the reading measurably changes the result. This module reads the
file and plays the games (`run_readings`); `napsim.output.readings` writes the report.
"""

from __future__ import annotations

import math
import time
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from napsim.engine import layout
from napsim.model.errors import NapsimInputError, check_keys, get_int, get_str, read_toml_file
from napsim.model.house_rules import HOUSE_OPTIONS
from napsim.model.scenarios import RULE_OPTIONS, load_scenario
from napsim.sim.packing import FORMAT_PLAYERS, Simulation
from napsim.sim.result import SimResult
from napsim.sim.summary import Z95

# a difference "matters" when its interval excludes zero and it moves the value by at least this
MATTERS_RELATIVE = 0.01


@dataclass(frozen=True)
class ReadingsSpec:
    """A validated readings file: options x scenarios, games and seed."""

    path: Path
    name: str
    description: str
    games: int
    seed: int
    cases: tuple[tuple[str, str, tuple], ...]  # (option, scenario, ((path, value), ...))


def load_readings_spec(path: str | Path) -> ReadingsSpec:
    """Read and check a readings file; one-line NapsimInputError on anything wrong."""
    p = Path(path)
    where = str(p)
    data = read_toml_file(p)
    check_keys(where, data, ("readings", "options"), ("readings", "options"))
    head = data["readings"]
    w = f"{where}: [readings]"
    check_keys(w, head, ("name", "description", "games", "seed"), ("name", "games", "seed"))
    opts = data["options"]
    check_keys(f"{where}: [options]", opts, tuple(RULE_OPTIONS))
    cases = []
    for option, scenarios in opts.items():
        wo = f"{where}: [options]"
        if not isinstance(scenarios, list) or not scenarios:
            raise NapsimInputError(wo, option, f"{scenarios!r} is not a list of scenarios",
                                   'scenario names or { scenario = "...", set = { path = value } }')
        for s in scenarios:
            name, sets = _case(wo, option, s)
            load_scenario(name, dict(sets))  # a bad case is an error now, not after the games
            cases.append((option, name, sets))
    return ReadingsSpec(p, get_str(w, head, "name"), get_str(w, head, "description", ""),
                        get_int(w, head, "games", 2, 10_000_000), get_int(w, head, "seed", 0, 2**63 - 1),
                        tuple(cases))


def _case(where: str, option: str, entry) -> tuple[str, tuple]:
    """A scenario name, or an inline table {scenario, set} of a scenario with overrides."""
    if isinstance(entry, str):
        return entry, ()
    if isinstance(entry, dict):
        check_keys(f"{where} {option}", entry, ("scenario", "set"), ("scenario",))
        sets = entry.get("set", {})
        if isinstance(entry["scenario"], str) and isinstance(sets, dict):
            return entry["scenario"], tuple(sorted(sets.items()))
    raise NapsimInputError(where, option, f"{entry!r} is not a scenario",
                           'a scenario name or { scenario = "...", set = { path = value } }')


def case_label(scenario: str, sets: tuple) -> str:
    """How a case is named in the report: the scenario and any values it changes."""
    if not sets:
        return scenario
    return f"{scenario} with " + ", ".join(f"{k} = {v}" for k, v in sets)


def is_readings_file(path: str | Path) -> bool:
    """True for a readings file (a [readings] table), as opposed to a study file."""
    try:
        return "readings" in tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False


# ---- per-game headline numbers


@dataclass(frozen=True)
class Headline:
    """One headline number, computed per game and side from a run with per-game rows."""

    key: str
    title: str
    unit: str
    value: Callable[[SimResult], np.ndarray]  # [games, 2]
    applies: Callable[[Simulation, int], bool]  # (simulation, side) -> shown?
    options: tuple[str, ...] = ()  # shown for these options only (none: for every option)


def _card_orders_per_turn(res: SimResult) -> np.ndarray:
    rows = res.per_game
    eff = rows[:, :, layout.M_EFF:layout.M_EFF + 3].sum(axis=2)
    return eff / rows[:, :, layout.M_TURNS]


def _card_orders_per_card(res: SimResult) -> np.ndarray:
    """Effective orders from cards per Command card played (hand and rack), game by game."""
    rows = res.per_game
    eff = rows[:, :, layout.M_EFF:layout.M_EFF + 3].sum(axis=2)
    cards = (rows[:, :, layout.M_HAND_KIND:layout.M_HAND_KIND + 4].sum(axis=2)
             + rows[:, :, layout.M_RACK_KIND:layout.M_RACK_KIND + 4].sum(axis=2))
    return eff / np.maximum(cards, 1)


def _all_orders_per_turn(res: SimResult) -> np.ndarray:
    rows = res.per_game
    eff = rows[:, :, layout.M_EFF:layout.M_EFF + 3].sum(axis=2) + rows[:, :, layout.M_INIT_ORDERS]
    return eff / rows[:, :, layout.M_TURNS]


def _initiative_share(res: SimResult) -> np.ndarray:
    c = res.commander_rows
    if c is None:  # one commander a side (no commander rows): nobody rolls for initiative
        return np.zeros((res.games, 2))
    return c[:, :, :, layout.CM_INIT].sum(axis=2) / np.maximum(c[:, :, :, layout.CM_TURNS].sum(axis=2), 1)


def _nullified(res: SimResult) -> np.ndarray:
    return res.per_game[:, :, layout.M_G_NULLIFIED].astype(float)


def _multi(sim: Simulation, side: int) -> bool:
    return FORMAT_PLAYERS.get(sim.scenario.format, 1) >= 3


def _spanish(sim: Simulation, side: int) -> bool:
    return sim.scenario.sides[side].guerrilla_rule != "off"


HEADLINES = (
    Headline("card_orders_per_turn", "Effective orders from cards per turn", "units ordered a turn",
             _card_orders_per_turn, lambda sim, side: True),
    Headline("card_orders_per_card", "Effective orders per Command card played",
             "units ordered a card", _card_orders_per_card, lambda sim, side: True, tuple(HOUSE_OPTIONS)),
    Headline("all_orders_per_turn", "All units ordered per turn (cards and initiative rolls)",
             "units ordered a turn", _all_orders_per_turn, _multi),
    Headline("initiative_share", "Initiative rolls per commander-turn", "rolls per commander-turn",
             _initiative_share, _multi),
    Headline("french_cards_nullified", "French cards nullified by Guerrilla counters per game",
             "cards a game", _nullified, _spanish),
)


def paired_rows(option: str, scenario: str, base: SimResult, alt: SimResult) -> list[dict]:
    """One row per headline and side: both readings, the paired difference and its interval."""
    sc = base.sim.scenario
    default, alternative = sc.rule(option), alt.sim.scenario.rule(option)
    out = []
    for h in HEADLINES:
        a, b = h.value(base), h.value(alt)
        for side in range(2):
            if (h.options and option not in h.options) or not h.applies(base.sim, side):
                continue
            d = b[:, side] - a[:, side]
            n = len(d)
            mean = float(d.mean())
            half = Z95 * float(d.std(ddof=1)) / math.sqrt(n) if n > 1 else math.nan
            va, vb = float(a[:, side].mean()), float(b[:, side].mean())
            ha, hb = (Z95 * float(x[:, side].std(ddof=1)) / math.sqrt(n) if n > 1 else math.nan
                      for x in (a, b))
            rel = mean / va if va else math.nan
            lo, hi = mean - half, mean + half
            matters = (lo > 0 or hi < 0) and abs(rel) >= MATTERS_RELATIVE
            out.append(dict(
                option=option, default=default, alternative=alternative, scenario=scenario,
                format=sc.format, headline=h.key, title=h.title, unit=h.unit,
                side=sc.sides[side].name, value_default=va, value_alternative=vb,
                half_width_default=ha, half_width_alternative=hb, difference=mean,
                ci_low=lo, ci_high=hi, n=n, relative_change=rel, matters=bool(matters)))
    return out


def run_readings(spec: ReadingsSpec, games: int | None = None) -> Iterator[tuple[str, list[dict]]]:
    """Play every (option, scenario) case both ways; yields (progress line, rows) per case."""
    n = games or spec.games
    for option, scenario, sets in spec.cases:
        t0 = time.perf_counter()
        default, alternative = RULE_OPTIONS[option]
        res = []
        for value in (default, alternative):
            sim = Simulation.build(load_scenario(scenario, {**dict(sets), f"rules.{option}": value}))
            res.append(sim.run(n, spec.seed, per_game=True))
        label = case_label(scenario, sets)
        yield (f"{option} on {label}: {n:,} games each way in {time.perf_counter() - t0:.1f} s",
               paired_rows(option, label, res[0], res[1]))
