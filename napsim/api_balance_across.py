"""`napsim.balance_across` (`napsim balance --across`): which combinations of two settings even a
scenario. The balance of one setting at every whole value of a second, on the same games, its
curve of even settings in words, and its chart; the command line that plays it again."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from napsim.api import _cli, _deck_policy_flags, _flags
from napsim.model.defaults import SEED, SIM_CHUNK
from napsim.model.scenarios import parse_overrides
from napsim.output import balance_across as words
from napsim.output import variants
from napsim.study.balance_across import BalanceAcross, find_balance_across
from napsim.study.variants import Variant


def balance_across(scenario: str, vary: str, across: str, metric: str = "effective_per_turn",
                   equalize: Sequence[str] | str | None = None, target: float | None = None,
                   side: str | None = None, sets: Sequence[str] | dict = (), deck: str | None = None,
                   policy: str = "greedy,greedy", games: int = 10_000, seed: int = SEED,
                   chunk: int = SIM_CHUNK, chart: str | Path | None = None,
                   progress: Callable[[str], None] | None = None,
                   target_error: float | None = None) -> BalanceAcross:
    """The balance of `vary` ('sides.S.hand=3..7') at every whole value of `across`
    ('sides.S.guerrilla=0..6'), each row as `napsim.balance` answers it, on the same games. The
    result has `.rows` ((value, Balance) per value of `across`), `.frame()` (one row per value:
    the crossing with its 95% interval, the whole settings either side, or no crossing),
    `.crossing_shift(v0, v1)` (how far the crossing moves, paired) and `.sentence` (the curve in words)."""
    chart_path = variants.check_chart_path(chart)
    if isinstance(equalize, str):
        equalize = [k.strip() for k in equalize.split(",")]
    overrides = tuple((sets if isinstance(sets, dict) else parse_overrides(sets)).items())
    grid = find_balance_across(Variant(scenario, overrides, deck, policy), vary, across, metric, equalize,
                               target, side, games, seed, chunk, progress, target_error)
    for _, b in grid.rows:
        b.sentence = variants.balance_sentence(b)
    grid.sentence = words.curve_sentence(grid)
    if chart_path is not None:
        from napsim.output.chartkit import write_chart  # lazy: matplotlib is heavy, and only charts need it

        write_chart(words.across_figure(grid), chart_path, "balance_across")
    return grid


def balance_across_command(scenario: str | Path, vary: str, across: str, equalize: str | None,
                           sets: dict | Sequence[str] = (), deck: str | None = None,
                           policy: str = "greedy,greedy", games: int = 10_000, seed: int = SEED,
                           target: float | None = None, side: str | None = None) -> str:
    """The `napsim balance --across` command line of this grid (the numbers of `balance_across`)."""
    goal = ["--equalize", equalize] if equalize else ["--target", f"{target:g}", "--side", side]
    return _cli("napsim", "balance", "--scenario", scenario, "--vary", vary, "--across", across, *goal,
                *_flags("--set", sets), *_deck_policy_flags(deck, policy), "--games", games, "--seed", seed)
