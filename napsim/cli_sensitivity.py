"""`napsim sensitivity`: which unknown card counts move an answer (`napsim.api_sensitivity`).
`napsim.cli` adds it to its group; bad input ends there in one `napsim: error: ...` line, exit 2."""

from __future__ import annotations

import sys

import click

from napsim import api_sensitivity
from napsim.model.defaults import SEED, SIM_CHUNK
from napsim.output.formatting import TABLE_FORMATS
from napsim.output.sensitivity import sensitivity_text
from napsim.study import backends


def _progress(line: str) -> None:
    if sys.stderr.isatty():
        click.echo(line, err=True)


@click.command("sensitivity")
@click.option("--scenario", required=True, help="Scenario name or TOML path.")
@click.option("--metric", default="effective_per_turn", show_default=True, help="Summary metric.")
@click.option("--side", default=None, metavar="KEY",
              help="The answer is this side's metric (default: the scenario's first side).")
@click.option("--gap", default=None, metavar="KEY,KEY",
              help="The answer is the gap between two sides' metric (second - first).")
@click.option("--vary", default=None, metavar="PATH=LOW..HIGH",
              help="The answer is the setting where the --equalize sides are even (as napsim balance "
                   "finds it), e.g. sides.S.hand=3..9.")
@click.option("--equalize", default=None, metavar="KEY,KEY", help="The two sides of a --vary crossing.")
@click.option("--set", "sets", multiple=True, help="Scenario overrides, e.g. --set sides.A.hand=7.")
@click.option("--deck", default=None, help="Deck name or CSV (default: the scenario's).")
@click.option("--policy", default="greedy,greedy", show_default=True, help="One policy per side.")
@click.option("--all-types", is_flag=True,
              help="Move every card type one down and one up, not only those with a plausible range.")
@click.option("--deck-ensemble", type=int, default=None, metavar="N",
              help="Check the per-card effects, added up over the ranges, against N plausible decks "
                   "(the same games).")
@click.option("--games", type=int, default=api_sensitivity.SENSITIVITY_GAMES, show_default=True,
              help="Games on every deck (the same games on each).")
@click.option("--seed", type=int, default=SEED, show_default=True)
@click.option("--chunk", type=int, default=SIM_CHUNK, show_default=True,
              help="Games per kernel call (results do not depend on it).")
@click.option("--format", "table_format", type=click.Choice(TABLE_FORMATS), default="table",
              show_default=True, help="Output format.")
@click.option("--chart", type=click.Path(dir_okay=False), default=None,
              help="Write the tornado chart here (.png or .svg).")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Also write a result folder: report.md, sensitivity.csv, the tornado chart.")
@click.option("--force", is_flag=True, help="Replace a result folder napsim wrote before.")
@click.option("--threads", type=int, default=None,
              help="Numba threads for the kernels (results do not depend on it).")
def sensitivity_cmd(scenario, metric, side, gap, vary, equalize, sets, deck, policy, all_types, deck_ensemble,
                    games, seed, chunk, table_format, chart, out, force, threads):
    """Which unknown card counts matter: for every card type with a plausible range in the deck
    file, the change of the answer (a side's metric, the gap between the sides, or the balancing
    setting) when its count moves one card down and one up, on the same games, with 95% intervals,
    ranked; findings in words and a tornado chart."""
    backends.use_threads(threads)
    res = api_sensitivity.sensitivity(scenario, metric, side, gap, vary, equalize, sets, deck, policy, games,
                                      seed, chunk, all_types, deck_ensemble, chart, out, force, _progress)
    click.echo(sensitivity_text(res, table_format))
    for path in (chart, out):
        if path:
            click.echo(f"wrote {path}", err=True)
