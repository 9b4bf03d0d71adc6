"""The variants commands of the command line, each playing variants of one question on the same
games: `napsim compare` (two variants), `napsim balance` (the setting that evens out a metric) and
`napsim tune` (a racing search over the knobs of a scripted policy, `napsim.api.tune`,
docs/tune.md). `napsim.cli` adds them to its group; bad input ends there in one `napsim: error:
...` line and exit code 2."""

from __future__ import annotations

import math
import sys

import click

from napsim import api
from napsim.api_balance_across import balance_across
from napsim.model.defaults import SEED, SIM_CHUNK
from napsim.model.errors import NapsimInputError
from napsim.model.glossary import CARD_FLOW, OPTION_HELP
from napsim.output import variants
from napsim.output.balance_across import across_text
from napsim.output.deck_ensemble import balance_ensemble_text, compare_ensemble_text
from napsim.output.formatting import TABLE_FORMATS
from napsim.study import backends
from napsim.study.deck_ensemble import check_ensemble, check_one_deck, compare_ensemble
from napsim.study.tune import GOALS, MAX_CANDIDATES, ROUNDS, WHOSE
from napsim.study.variants import variant_pair


def _common_options(f):
    f = click.option("--threads", type=int, default=None,
                     help="Numba threads for the kernels (results do not depend on it).")(f)
    f = click.option("--chart", type=click.Path(dir_okay=False), default=None,
                     help="Write a chart here (.png or .svg).")(f)
    f = click.option("--format", "table_format", type=click.Choice(TABLE_FORMATS), default="table",
                     show_default=True, help="Output format.")(f)
    f = click.option("--chunk", type=int, default=SIM_CHUNK, show_default=True,
                     help="Games per kernel call (results do not depend on it).")(f)
    f = click.option("--seed", type=int, default=SEED, show_default=True, help=OPTION_HELP["seed"])(f)
    f = click.option("--games", type=int, default=10_000, show_default=True,
                     help="Games per variant or setting (the cap under --target-error); more games, "
                          "narrower 95% intervals.")(f)
    return f


def _echo(text: str) -> None:
    click.echo(text, nl=not text.endswith("\n"))


def _progress(line: str) -> None:
    """A search's line per setting or round, on a terminal only (stdout keeps the answer alone)."""
    if sys.stderr.isatty():
        click.echo(line, err=True)


@click.command("compare")
@click.option("--scenario", required=True, help="Scenario name or TOML path (variant A, and B too).")
@click.option("--scenario-b", default=None, help="A second scenario file for variant B.")
@click.option("--a", "sets_a", multiple=True, metavar="PATH=VALUE",
              help="Override for variant A (repeatable), e.g. --a sides.S.guerrilla=3.")
@click.option("--b", "sets_b", multiple=True, metavar="PATH=VALUE",
              help="Override for variant B (repeatable), e.g. --b sides.S.guerrilla=0.")
@click.option("--deck", default=None, help="Deck of both variants (default: the scenario's).")
@click.option("--deck-a", default=None, help="Deck of variant A.")
@click.option("--deck-b", default=None, help="Deck of variant B.")
@click.option("--policy", default="greedy,greedy", show_default=True, help="Policies of both variants.")
@click.option("--policy-a", default=None, help="Policies of variant A.")
@click.option("--policy-b", default=None, help="Policies of variant B.")
@click.option("--metric", "metrics", multiple=True,
              help="Summary metric to compare (repeatable; default: effective and nominal orders per "
                   "turn, and more where the scenario has them). The first is the main metric.")
@click.option("--target-error", type=float, default=None,
              help="Play chunk by chunk until the main metric's paired 95% half-width is below this.")
@click.option("--deck-ensemble", type=int, default=None, metavar="N",
              help="Also answer on N plausible decks drawn inside the deck file's count ranges (seeded "
                   "by --seed), with the same games: the spread across decks and whether B - A keeps "
                   "its sign in every deck.")
@_common_options
def compare_cmd(scenario, scenario_b, sets_a, sets_b, deck, deck_a, deck_b, policy, policy_a, policy_b,
                metrics, target_error, deck_ensemble, games, seed, chunk, table_format, chart, threads):
    """Compare two variants of one question, played on the same games: A, B, the paired difference
    B - A with its 95% interval, the relative change and a sentence per metric and side. napsim
    measures card flow, not the chance of winning."""
    backends.use_threads(threads)
    if deck_ensemble is not None:  # checked before anything is played or written
        check_ensemble(deck_ensemble)
        check_one_deck(*variant_pair(scenario, sets_a, sets_b, scenario_b, deck, deck_a, deck_b, policy,
                                    policy_a, policy_b))
    cmp = api.compare_run(scenario, sets_a, sets_b, scenario_b, deck, deck_a, deck_b, policy, policy_a,
                          policy_b, metrics, games, seed, chunk, target_error, chart)
    warnings = [w for w in dict.fromkeys(s.deck.estimated_warning() for s in cmp.sims) if w]
    if deck_ensemble is None:
        _echo(variants.compare_text(cmp, table_format, warnings))
    else:
        ens = compare_ensemble(cmp, deck_ensemble, seed, chunk)
        _echo(compare_ensemble_text(cmp, ens, table_format, warnings))
    if table_format == "table":
        click.echo(CARD_FLOW)
    if chart:
        click.echo(f"wrote {chart}", err=True)


@click.command("balance")
@click.option("--scenario", required=True, help=OPTION_HELP["scenario"])
@click.option("--vary", required=True, metavar="PATH=LOW..HIGH",
              help="The setting searched and its range, e.g. sides.S.hand=4..8 (the Spanish hand, 4 "
                   "to 8 Command cards) or sides.S.guerrilla=0..6 (Guerrilla counters at the start).")
@click.option("--across", default=None, metavar="PATH=LOW..HIGH",
              help="A second setting and its whole values, e.g. sides.S.guerrilla=0..6: the balance of "
                   "--vary at each of them, on the same games (the curve of even settings).")
@click.option("--metric", default="effective_per_turn", show_default=True, help=OPTION_HELP["metric"])
@click.option("--equalize", default=None, metavar="KEY,KEY",
              help="Find where these two sides (side keys, e.g. F,S) get the same metric; the "
                   "difference is the second minus the first.")
@click.option("--target", type=float, default=None, help="Find where the metric reaches this for --side.")
@click.option("--side", default=None, help="The side of --target.")
@click.option("--set", "sets", multiple=True, help=OPTION_HELP["set"])
@click.option("--deck", default=None, help=OPTION_HELP["deck"])
@click.option("--policy", default="greedy,greedy", show_default=True, help=OPTION_HELP["policy"])
@click.option("--target-error", type=float, default=None, metavar="E",
              help="Play more games (the same ones extended) until the crossing's 95% half-width is at "
                   "most E, --games per setting at most.")
@click.option("--deck-ensemble", type=int, default=None, metavar="N",
              help="Also search on N plausible decks drawn inside the deck file's count ranges (seeded "
                   "by --seed), with the same games: the range of the crossings across decks; decks "
                   "without a crossing in the range are counted.")
@_common_options
def balance_cmd(scenario, vary, across, metric, equalize, target, side, sets, deck, policy, target_error,
                deck_ensemble, games, seed, chunk, table_format, chart, threads):
    """Find the setting at which both sides get the same metric (--equalize), by default effective
    orders a turn, or at which one side's reaches a target (--target, --side); every setting plays
    the same games. With --across, the same search at every whole value of a second setting.
    napsim measures card flow, not the chance of winning."""
    backends.use_threads(threads)
    if target is not None and not math.isfinite(target):
        target = math.nan  # refused by the search, naming --target
    if target_error is not None and not math.isfinite(target_error):
        target_error = math.nan  # refused by the search, naming --target-error
    if across is not None:
        if deck_ensemble is not None:
            raise NapsimInputError("--deck-ensemble", "deck_ensemble", "does not go with --across",
                                   "one of --across and --deck-ensemble")
        grid = balance_across(scenario, vary, across, metric, equalize, target, side, sets, deck, policy,
                              games, seed, chunk, chart, progress=_progress, target_error=target_error)
        warning = grid.first.deck_warning
        _echo(across_text(grid, table_format, [warning] if warning else []))
        if table_format == "table":
            click.echo(CARD_FLOW)
        if chart:
            click.echo(f"wrote {chart}", err=True)
        return
    res = api.balance(scenario, vary, metric, equalize, target, side, sets, deck, policy, games, seed,
                      chunk, chart, progress=_progress, target_error=target_error,
                      deck_ensemble=deck_ensemble)
    warnings = [res.deck_warning] if res.deck_warning else []
    if res.ensemble is None:
        _echo(variants.balance_text(res, table_format, warnings))
    else:
        _echo(balance_ensemble_text(res, res.ensemble, table_format, warnings))
    if table_format == "table":
        click.echo(CARD_FLOW)
    if chart:
        click.echo(f"wrote {chart}", err=True)


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
@click.option("--format", "table_format", type=click.Choice(TABLE_FORMATS), default="table",
              show_default=True, help="Output format.")
def tune_cmd(scenario, side, knobs, metric, of, goal, policy, deck, sets, games, rounds, max_candidates,
             seed, chunk, threads, table_format):
    """Race the settings of one side's policy knobs on the same games and print the best, with its
    paired interval against the default policy and the [policy] table to paste into SCENARIO."""
    backends.use_threads(threads)
    res = api.tune(scenario, side, knobs, metric, of, goal, policy, deck, sets, games, seed, chunk, rounds,
                   max_candidates, _progress)
    _echo(res.text(table_format))
