"""`napsim tune` (added to the `napsim` group by `napsim.cli`): a racing search over the knobs of
a scripted policy on the same games (`napsim.api.tune`, docs/tune.md); bad input ends in one
`napsim: error: ...` line and exit code 2."""

from __future__ import annotations

import sys

import click

from napsim import api
from napsim.model.defaults import SEED, SIM_CHUNK
from napsim.output.formatting import FORMATS
from napsim.study import backends
from napsim.study.tune import GOALS, MAX_CANDIDATES, ROUNDS, WHOSE


@click.command("tune")
@click.argument("scenario")
@click.option("--side", required=True, help="The side whose policy is tuned (a side key).")
@click.option("--knob", "knobs", multiple=True, required=True, metavar="NAME=V1,V2,...|NAME=LO:HI:STEP",
              help="A policy parameter and its values (repeatable: the candidates are the product), "
                   "e.g. --knob g_spend_mode=always,threshold --knob g_threshold=2:5:1.")
@click.option("--metric", default="effective_per_turn", show_default=True, help="Summary metric.")
@click.option("--of", "of", type=click.Choice(WHOSE), default="own", show_default=True,
              help="Whose row of the metric: the tuned side's (raised) or the opponent's (lowered).")
@click.option("--goal", type=click.Choice(GOALS), default=None,
              help="Raise (max) or lower (min) the metric (default: max for own, min for opponent).")
@click.option("--policy", default="greedy,greedy", show_default=True,
              help="One policy per side: the default candidate, and the opponent's policy.")
@click.option("--deck", default=None, help="Deck name or CSV (default: the scenario's).")
@click.option("--set", "sets", multiple=True, help="Scenario overrides, e.g. --set sides.S.hand=7.")
@click.option("--games", type=int, default=20_000, show_default=True,
              help="Games of the last round (every candidate left plays the same games).")
@click.option("--rounds", type=int, default=ROUNDS, show_default=True,
              help="Rounds of doubling size (looks at the intervals).")
@click.option("--max-candidates", type=int, default=MAX_CANDIDATES, show_default=True,
              help="Refuse a grid with more candidates than this.")
@click.option("--seed", type=int, default=SEED, show_default=True)
@click.option("--chunk", type=int, default=SIM_CHUNK, show_default=True,
              help="Games per kernel call (results do not depend on it).")
@click.option("--threads", type=int, default=None,
              help="Numba threads for the kernels (results do not depend on it).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="Output format.")
def tune_cmd(scenario, side, knobs, metric, of, goal, policy, deck, sets, games, rounds, max_candidates,
             seed, chunk, threads, fmt):
    """Race the settings of one side's policy knobs on the same games and print the best, with its
    paired interval against the default policy and the [policy] table to paste into SCENARIO."""
    backends.use_threads(threads)

    def progress(line: str) -> None:  # a line per round, on a terminal only
        if sys.stderr.isatty():
            click.echo(line, err=True)

    res = api.tune(scenario, side, knobs, metric, of, goal, policy, deck, sets, games, seed, chunk, rounds,
                   max_candidates, progress)
    text = res.text(fmt)
    click.echo(text, nl=not text.endswith("\n"))
