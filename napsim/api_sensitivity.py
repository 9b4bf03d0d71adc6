"""`napsim.sensitivity` (and `napsim sensitivity`, the page's Sensitivity tab): which unknown card
counts move an answer, per card type, on common random numbers (`napsim.study.sensitivity`),
with its words, table, tornado chart and result folder (`napsim.output.sensitivity`)."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from pathlib import Path

from napsim.model.defaults import SEED, SIM_CHUNK
from napsim.model.errors import NapsimInputError
from napsim.model.scenarios import load_scenario, override_text, parse_overrides
from napsim.output import sensitivity as words
from napsim.output.variants import check_chart_path
from napsim.study.sensitivity import Question, Sensitivity, card_sensitivity
from napsim.study.variants import Variant

SENSITIVITY_GAMES = 4000


def _keys(text: str | Sequence[str] | None) -> tuple[str, ...]:
    if text is None:
        return ()
    items = text.split(",") if isinstance(text, str) else list(text)
    return tuple(k.strip() for k in items if k.strip())


def question(scenario: str, metric: str, side: str | None, gap: str | Sequence[str] | None,
             vary: str | None, equalize: str | Sequence[str] | None, sets: dict) -> Question:
    """The question from the options: a crossing (--vary with --equalize), a gap (--gap) or one side's
    metric (--side; the scenario's first side when none is given)."""
    asked = [n for n, v in (("--side", side), ("--gap", gap), ("--vary", vary)) if v]
    if len(asked) > 1:
        raise NapsimInputError(asked[1], "question", f"{' and '.join(asked)} ask different questions",
                               "one of --side KEY, --gap KEY,KEY, --vary PATH=LO..HI --equalize KEY,KEY")
    if vary:
        if not equalize:
            raise NapsimInputError("--equalize", "equalize", "missing with --vary", "--equalize KEY,KEY")
        return Question("crossing", metric, _keys(equalize), vary)
    if equalize:
        raise NapsimInputError("--equalize", "equalize", "goes with --vary", "--vary PATH=LO..HI")
    if gap:
        return Question("gap", metric, _keys(gap))
    first = load_scenario(scenario, sets).sides[0].key
    return Question("side", metric, _keys(side) or (first,))


def sensitivity(scenario: str, metric: str = "effective_per_turn", side: str | None = None,
                gap: str | Sequence[str] | None = None, vary: str | None = None,
                equalize: str | Sequence[str] | None = None, sets: Sequence[str] | dict = (),
                deck: str | None = None, policy: str = "greedy,greedy", games: int = SENSITIVITY_GAMES,
                seed: int = SEED, chunk: int = SIM_CHUNK, all_types: bool = False,
                deck_ensemble: int | None = None, chart: str | Path | None = None,
                out: str | Path | None = None, force: bool = False,
                progress: Callable[[str], None] | None = None) -> Sensitivity:
    """For every card type with a plausible range in the deck file (every type with `all_types`):
    the paired change of the answer when its count moves one card down and one up, per step, with
    95% intervals, ranked (`.frame`); the answer is `metric` of `side`, the `gap` between two sides
    (second - first) or the crossing of `vary` where the `equalize` sides are even. `deck_ensemble`
    (N): the effects added up against N plausible decks on the same games (`.check`). `chart`: the
    tornado chart (.png/.svg); `out`: a result folder (report.md, sensitivity.csv, the chart)."""
    chart_path = check_chart_path(chart)
    dest = words.check_dest(out, force) if out is not None else None
    overrides = parse_overrides(sets) if not isinstance(sets, dict) else dict(sets)
    q = question(scenario, metric, side, gap, vary, equalize, overrides)
    base = Variant(scenario, tuple(overrides.items()), deck, policy)
    res = card_sensitivity(base, q, games, seed, chunk, all_types, deck_ensemble, progress)
    if chart_path is not None:
        from napsim.output.chartkit import write_chart  # lazy: matplotlib is heavy, and only charts need it

        write_chart(words.tornado_figure(res), chart_path, "tornado")
    if dest is not None:
        words.write_folder(res, dest, sensitivity_command(res, deck_ensemble, out), force)
    return res


def sensitivity_command(r: Sensitivity, deck_ensemble: int | None = None,
                        out: str | Path | None = None) -> str:
    """The `napsim sensitivity` command line that plays this answer again."""
    q, b = r.question, r.base
    parts = ["napsim", "sensitivity", "--scenario", b.scenario, "--metric", q.metric]
    parts += {"side": ["--side", *q.sides], "gap": ["--gap", ",".join(q.sides)],
              "crossing": ["--vary", q.vary or "", "--equalize", ",".join(q.sides)]}[q.kind]
    for k, v in b.overrides:
        parts += ["--set", f"{k}={override_text(v)}"]
    parts += ["--deck", b.deck] if b.deck else []
    parts += ["--policy", b.policy] if b.policy != "greedy,greedy" else []
    parts += ["--all-types"] if r.all_types else []
    parts += ["--deck-ensemble", deck_ensemble] if deck_ensemble else []
    parts += ["--games", r.games, "--seed", r.seed]
    parts += ["--out", out, "--force"] if out is not None else []
    return " ".join(shlex.quote(str(p)) for p in parts)
