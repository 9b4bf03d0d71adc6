"""Words and tables of `napsim tune` (`napsim.study.tune`): the sentence from the numbers, the
candidates and when each left the race, the three output formats, and the [policy.<side>] table to
paste into the scenario file (it loads and plays as written: `napsim.model.policies.policy_tables`).
Every metric, side and parameter is named in words from the catalogue (`napsim.model.metrics`)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import pandas as pd

from napsim.model.metrics import describe, policy_param_words, value_words
from napsim.model.scenarios import toml_text
from napsim.output.formatting import _json_value, render
from napsim.output.variants import decimals, interval_text
from napsim.study.tune import Candidate, Race


def who(r: Race, key: str) -> str:
    """'Spanish (side S)'."""
    return f"{r.name_of(key)} (side {key})"


def objective_words(r: Race) -> str:
    """'raise effective orders a turn (French)' / 'lower French cards nullified ... (Spanish counters)'."""
    info = describe(r.metric)
    verb = "raise" if r.goal == "max" else "lower"
    return f"{verb} {info.phrase} ({_row_side(r)})"


def _row_side(r: Race) -> str:
    """Whose row the metric is read on, as the catalogue words it: an OPPONENT metric (counters
    acting on French cards) says whose counters."""
    name = r.name_of(r.metric_side)
    return f"{name} counters" if describe(r.metric).viewpoint == "opponent" else name


def setting_words(r: Race, settings: dict) -> str:
    """'when to spend counters: spend on cards of many orders, orders that make a counter worth
    spending: 5'."""
    return ", ".join(f"{policy_param_words(k)}: {value_words(f'policy.{r.side}.{k}', v)}"
                     for k, v in settings.items())


def candidate_words(r: Race, c: Candidate) -> str:
    text = setting_words(r, r.settings(c))
    return f"the default policy ({text})" if c.default else text


def confidence_words(r: Race) -> str:
    return (f"{_percent(r.confidence)} confidence (Bonferroni: 0.05 shared by the race's "
            f"{r.comparisons} comparisons)")


def _percent(p: float) -> str:
    digits = max(0, math.ceil(-math.log10(1 - p)) - 2 + 1) if p < 1 else 0
    return f"{100 * p:.{digits}f}%"


def tune_sentence(r: Race) -> str:
    """The answer in one sentence, computed from the numbers."""
    info = describe(r.metric)
    v = r.versus_default
    inter = interval_text(v["difference"], v["ci_low"], v["ci_high"])
    d = decimals(v["half_width"])
    games = f"the same {v['n']:,} games"
    lead = f"For {who(r, r.side)} in {r.scenario}"
    if r.significant:
        more = ("more" if v["difference"] > 0 else "fewer") if info.countable else (
            "higher" if v["difference"] > 0 else "lower")
        return (f"{lead}, {candidate_words(r, r.best)} gives {abs(v['difference']):.{d}f} {more} "
                f"{info.phrase} ({_row_side(r)}) than {candidate_words(r, r.default)}: {inter} "
                f"{info.unit} at {confidence_words(r)}, on {games}; use it.")
    if r.leader.default:
        beaten = all(c.dropped_round is not None for c in r.candidates[1:])
        rest = ("every other setting tried was clearly worse and left the race" if beaten
                else "it led the race to the end")
        return (f"{lead}, no setting tried does better than {candidate_words(r, r.default)} at "
                f"the aim to {objective_words(r)}: {rest} ({games}); keep it.")
    return (f"{lead}, no setting tried is clearly better than {candidate_words(r, r.default)} at "
            f"the aim to {objective_words(r)}: the race's leader, {candidate_words(r, r.leader)}, "
            f"differs by {inter} {info.unit} at {confidence_words(r)}, on {games}, an interval "
            "that holds zero; keep the default.")


def policy_toml(r: Race) -> str:
    """The [policy.<side>] table of the answer, to paste into the scenario file (in place of any
    [policy.<side>] table already there): it loads and plays as written."""
    table = {"name": r.policy_name, **r.best_table()}
    what = "best setting found" if r.significant else "default kept (no setting was clearly better)"
    comments = [f"napsim tune: the policy of {who(r, r.side)} for {r.scenario}, aim: {objective_words(r)}",
                f"{what}; seed {r.seed}, {r.games:,} games; replaces any [policy.{r.side}] table"]
    if r.given:
        comments.append("play it without this run's --policy parameters for this side: those win over "
                        "the table")
    return toml_text({"policy": {r.side: table}}, comments)


def tune_frame(r: Race) -> pd.DataFrame:
    """One row per candidate with the metric's words (title, unit, side)."""
    df = r.frame()
    info = describe(r.metric)
    df.insert(2, "metric", r.metric)
    df.insert(3, "title", info.row_title(r.name_of(r.metric_side)))
    df.insert(4, "unit", info.unit)
    df.insert(5, "side", r.name_of(r.metric_side))
    df.attrs.update(r.frame().attrs)
    return df


def notes(r: Race) -> list[str]:
    knobs = " x ".join(f"{len(k.values)} {k.name}" for k in r.knobs)
    rounds = ", ".join(f"{n:,}" for n in r.schedule)
    return [f"Tuning the {r.policy_name} policy of {who(r, r.side)} in {r.scenario}: "
            f"{objective_words(r)}",
            f"{len(r.candidates)} candidates (the default and the grid {knobs}), rounds of {rounds} "
            f"games (seed {r.seed}), the same games for every candidate",
            f"intervals: paired, each at {confidence_words(r)}; a candidate leaves the race once its "
            "interval against the leader excludes it",
            f"played: {len(r.rounds)} round(s), {r.games:,} games; "
            f"{sum(c.dropped_round is not None for c in r.candidates)} candidate(s) dropped; the "
            "default plays every round as the reference (dropped, it cannot win)",
            f"vs leader: candidate - leader after its last round ({'+' if r.goal == 'min' else '-'} "
            f"is worse: the aim is to {'lower' if r.goal == 'min' else 'raise'} it)"]


def edge_notes(r: Race) -> list[str]:
    """A best value at the end of a numeric knob's grid (three values or more): the best may lie
    beyond it."""
    out = []
    if not r.significant:
        return out
    for k in r.knobs:
        nums = [v for v in k.values if not isinstance(v, str)]
        v = r.best.settings.get(k.name)
        if len(nums) >= 3 and v in (min(nums), max(nums)):
            end = "highest" if v == max(nums) else "lowest"
            out.append(f"the best {policy_param_words(k.name)} ({k.name} = {v}) is the grid's {end}: "
                       "values beyond it may do better")
    return out


def tune_text(r: Race, table_format: str = "table", warnings: list[str] = ()) -> str:
    """The race as a table (notes, the candidates, the sentence, the [policy] table), CSV or JSON."""
    df = tune_frame(r)
    head = [*warnings, *notes(r), *edge_notes(r)]
    if table_format == "json":
        rows = [{k: _json_value(v) for k, v in row.items()} for row in df.to_dict("records")]
        doc = {"warnings": list(warnings), "notes": head[len(warnings):], "sentence": tune_sentence(r),
               "best": {"label": r.best.label, "settings": r.settings(r.best), "significant": r.significant},
               "versus_default": {k: _json_value(v) for k, v in r.versus_default.items()},
               "confidence": r.confidence, "comparisons": r.comparisons, "rounds": r.rounds,
               "policy_toml": policy_toml(r), "rows": rows}
        return json.dumps(doc, indent=2, default=str)
    if table_format == "csv":
        return render(df, "csv", [*head, tune_sentence(r)])
    d = decimals(max([c.vs_leader[2] - c.vs_leader[1] for c in r.candidates if c.estimate] + [0.0]) / 2)
    view = pd.DataFrame({"#": df["candidate"], "setting": [c.label for c in r.candidates],
        describe(r.metric).label(r.name_of(r.metric_side)): [
            f"{v:.{d}f}" if math.isfinite(v) else "-" for v in df["value"]],
        "vs leader [interval]": [interval_text(*c.vs_leader) if c.estimate else "-" for c in r.candidates],
        "left the race": [f"round {c.dropped_round} ({c.dropped_games:,} games)"
                          if c.dropped_round is not None else "-" for c in r.candidates],
        "games": df["games"], "": df["status"]})
    return "\n".join([*head, "", render(view, "table"), "", tune_sentence(r), "",
                      "Paste into the scenario file:", "", policy_toml(r)])


@dataclass
class Tuned:
    """What `napsim.tune` returns: `.best` (the knobs' values of the answer), `.versus_default`
    (its paired difference from the default policy, with the corrected interval), `.frame()` (one
    row per candidate), `.policy_toml()` (the [policy.<side>] table), `.text(table_format)`, and
    `.race` (every number of the race, `napsim.study.tune.Race`)."""

    race: Race

    @property
    def best(self) -> dict:
        return self.race.settings(self.race.best)

    @property
    def significant(self) -> bool:
        return self.race.significant

    @property
    def versus_default(self) -> dict:
        return dict(self.race.versus_default)

    @property
    def sentence(self) -> str:
        return tune_sentence(self.race)

    def frame(self) -> pd.DataFrame:
        return tune_frame(self.race)

    def policy_toml(self) -> str:
        return policy_toml(self.race)

    def text(self, table_format: str = "table", *, fmt: str | None = None) -> str:
        """The answer as a table ("table", "csv" or "json"); `fmt`, the old name, still works."""
        return tune_text(self.race, fmt or table_format)
