"""The `napsim` command line. Bad input ends in one `napsim: error: ...` line and exit code 2.

Every command is here but the variants commands (`napsim.cli_variants`: compare, balance, tune);
`napsim app` runs the page (`napsim/app/page.py`) in a Streamlit server, which it never leaves
behind.
"""

from __future__ import annotations

import contextlib
import importlib.util
import signal
import subprocess
import sys
from pathlib import Path

import click
import numpy as np
from click.exceptions import NoArgsIsHelpError

from napsim import api
from napsim.cli_sensitivity import sensitivity_cmd
from napsim.cli_variants import balance_cmd, compare_cmd, tune_cmd
from napsim.model.cards import SECTIONS, load_deck
from napsim.model.defaults import ODDS_CHUNK, SEED, SIM_CHUNK
from napsim.model.errors import NapsimInputError, check_run
from napsim.model.glossary import OPTION_HELP
from napsim.model.metrics import setting_words
from napsim.model.policies import parse_policy_option
from napsim.model.scenarios import GAME_FORMATS, load_scenario
from napsim.output import frames as frames_mod
from napsim.output import report as report_mod
from napsim.output import views
from napsim.output.deck_ensemble import simulate_ensemble_text
from napsim.output.formatting import TABLE_FORMATS, render
from napsim.output.readings import check_dest
from napsim.output.simulated import check_results_dest
from napsim.sim import odds as odds_mod
from napsim.study import backends
from napsim.study import runloop as runloop_mod
from napsim.study.deck_ensemble import ENSEMBLE_CSV, check_ensemble, simulate_ensemble
from napsim.study.readings import load_readings_spec
from napsim.study.spec import load_study

EXIT_INPUT = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a program stopped by Ctrl-C
RESUMING = ("run", "regen")  # the commands whose chunk files a second run reuses


def _notice(line: str) -> None:
    click.echo(f"napsim: {line}", err=True)


def _interrupted(argv: list[str]) -> None:
    """Ctrl-C: say what is kept and how to go on, exit 130 (no traceback, no 'error')."""
    command = next((a for a in argv if not a.startswith("-")), "")
    if command in RESUMING:
        click.echo("napsim: interrupted: run the same command again to resume", err=True)
    else:
        click.echo("napsim: interrupted: nothing was written; run the same command again to start "
                   "over", err=True)
    sys.exit(EXIT_INTERRUPTED)


def _fail(msg: str) -> None:
    click.echo(f"napsim: error: {msg}", err=True)
    sys.exit(EXIT_INPUT)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="napsim")
def cli() -> None:
    """Monte Carlo analysis of the Commands & Colors: Napoleonics command-card system."""


@cli.group("decks", invoke_without_command=True)
@click.pass_context
def decks(ctx: click.Context) -> None:
    """List the built-in Command decks (or `show` one)."""
    if ctx.invoked_subcommand is None:
        click.echo(views.deck_list_text())


@decks.command("show")
@click.argument("deck")
def decks_show(deck: str) -> None:
    """Print a deck's composition grouped by kind and section."""
    click.echo(views.deck_text(deck))


def _threads_option(f):
    return click.option("--threads", type=int, default=None,
                        help="Numba threads for the kernels (1..NUMBA_NUM_THREADS; default: all). "
                             "Results do not depend on it.")(f)


def _odds_options(f):
    f = _threads_option(f)
    f = click.option("--format", "table_format", type=click.Choice(TABLE_FORMATS), default="table",
                     show_default=True, help="Output format.")(f)
    f = click.option("--chunk", type=int, default=ODDS_CHUNK, show_default=True,
                     help="Games per kernel call (results do not depend on it).")(f)
    f = click.option("--seed", type=int, default=SEED, show_default=True)(f)
    f = click.option("--games", type=int, default=1_000_000, show_default=True,
                     help="Simulated games (hands).")(f)
    f = click.option("--deck", default="gmt90", show_default=True,
                     help="Built-in deck name or path to a deck CSV.")(f)
    return f


def _use_threads(threads: int | None) -> None:
    backends.use_threads(threads)


def _emit(df, deck, table_format) -> None:
    text = render(df, table_format, [deck.estimated_warning()])
    click.echo(text, nl=not text.endswith("\n"))  # CSV already ends its last line


@cli.group("odds")
def odds() -> None:
    """Card-deck odds, exact and simulated side by side (Wilson 95% interval and n)."""


@odds.command("report")
@_odds_options
@click.option("--hand", type=int, default=6, show_default=True, help="Command hand size.")
def odds_report(deck, games, seed, chunk, table_format, threads, hand) -> None:
    """The standard battery of questions for one deck and hand size."""
    _use_threads(threads)
    d = load_deck(deck)
    _emit(odds_mod.deck_report(d, hand, games, seed, chunk), d, table_format)


@odds.command("at-least")
@_odds_options
@click.option("--hand", type=int, default=6, show_default=True)
@click.option("--filter", "filter_expr", required=True,
              help="Card filter, e.g. 'kind=section&section=L | kind=multi'.")
@click.option("-k", "k", type=int, default=1, show_default=True, help="At least this many.")
def odds_at_least(deck, games, seed, chunk, table_format, threads, hand, filter_expr, k) -> None:
    """P(at least k cards matching a filter in a hand)."""
    _use_threads(threads)
    d = load_deck(deck)
    _emit(odds_mod.at_least(d, filter_expr, hand, k, games, seed, chunk), d, table_format)


@odds.command("rack")
@_odds_options
@click.option("--section", type=click.Choice(SECTIONS), required=True)
def odds_rack(deck, games, seed, chunk, table_format, threads, section) -> None:
    """P(a fresh 5-card rack offers at least one card that can order in a section)."""
    _use_threads(threads)
    d = load_deck(deck)
    _emit(odds_mod.rack_offers(d, section, games, seed, chunk), d, table_format)


@odds.command("orders")
@_odds_options
@click.option("--hand", type=int, default=6, show_default=True)
def odds_orders(deck, games, seed, chunk, table_format, threads, hand) -> None:
    """Distribution of the fixed orders per section held in a hand."""
    _use_threads(threads)
    d = load_deck(deck)
    _emit(odds_mod.orders_distribution(d, hand, games, seed, chunk), d, table_format)


@odds.command("same-section")
@_odds_options
@click.option("--hand", type=int, default=6, show_default=True)
def odds_same_section(deck, games, seed, chunk, table_format, threads, hand) -> None:
    """P(hand and rack are all section cards of one section): rule E4."""
    _use_threads(threads)
    d = load_deck(deck)
    _emit(odds_mod.same_section(d, hand, games, seed, chunk), d, table_format)


@odds.command("first")
@_odds_options
@click.option("--filter", "filter_expr", required=True, help="Card filter, e.g. 'kind=multi'.")
def odds_first(deck, games, seed, chunk, table_format, threads, filter_expr) -> None:
    """Expected draws from a fresh shuffle until a matching card appears."""
    _use_threads(threads)
    d = load_deck(deck)
    _emit(odds_mod.first_draw(d, filter_expr, games, seed, chunk), d, table_format)


@odds.command("mulligan")
@_odds_options
@click.option("--keep", "keep_expr", required=True,
              help="Cards worth keeping, e.g. 'category=early'.")
@click.option("--mulligan-below", type=int, required=True,
              help="Mulligan every other card when fewer than this many keepers are held.")
@click.option("--target", type=int, required=True, help="Keepers wanted in the final hand.")
@click.option("--hand", type=int, default=5, show_default=True, help="Opening hand size.")
def odds_mulligan(deck, games, seed, chunk, table_format, threads, keep_expr, mulligan_below, target,
                  hand) -> None:
    """Epic TCG opening hand with its one mulligan (1 Mojo a card) under a stated keep rule."""
    _use_threads(threads)
    d = load_deck(deck)
    df = odds_mod.mulligan(d, keep_expr, mulligan_below, target, games, seed, hand, chunk)
    _emit(df, d, table_format)


def _sim_options(f):
    f = click.option("--set", "sets", multiple=True, help=OPTION_HELP["set"])(f)
    f = click.option("--deck", default=None, help=OPTION_HELP["deck"])(f)
    f = click.option("--policy", default="greedy,greedy", show_default=True, help=OPTION_HELP["policy"])(f)
    f = click.option("--seed", type=int, default=SEED, show_default=True, help=OPTION_HELP["seed"])(f)
    f = click.option("--scenario", required=True, help=OPTION_HELP["scenario"])(f)
    return f


@cli.command("simulate")
@_sim_options
@click.option("--games", type=int, default=10_000, show_default=True, help=OPTION_HELP["games"])
@click.option("--chunk", type=int, default=SIM_CHUNK, show_default=True,
              help="Games per kernel call (results do not depend on it).")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Result folder (refused if it holds results, unless --force).")
@click.option("--force", is_flag=True, help="Replace an existing result folder.")
@click.option("--no-per-game", is_flag=True, help="Keep aggregates only (no games.parquet).")
@click.option("--deck-ensemble", type=int, default=None, metavar="N",
              help="Also play the same games on N plausible decks drawn inside the deck file's count "
                   "ranges (seeded by --seed) and print each metric's spread across them.")
@_threads_option
def simulate_cmd(scenario, seed, policy, deck, sets, games, chunk, out_dir, force, no_per_game,
                 deck_ensemble, threads):
    """Play complete games of a scenario and say which side's cards give it more effective orders a
    turn (the units the cards order, counting only units that are there); writes per-game
    Parquet, a summary CSV and a manifest. napsim measures card flow, not the chance of winning."""
    _use_threads(threads)
    check_run(games, seed, chunk)
    if deck_ensemble is not None:
        check_ensemble(deck_ensemble)
    check_results_dest(out_dir, force)  # refuse before playing
    sim = api.simulation(scenario, sets, deck, policy, notice=_notice)  # compiled before the bar starts
    with click.progressbar(length=games, label="playing games", file=sys.stderr) as bar:
        done = [0]

        def progress(k, _n):
            bar.update(k - done[0])
            done[0] = k

        run = api.simulate(sim, games=games, seed=seed, chunk=chunk, out=out_dir, force=force,
                           per_game=not no_per_game, progress=progress, notice=_notice)
    for line in run.lines():
        click.echo(line)
    click.echo(f"wrote {run.path} ({games} games in {run.result.wall_seconds:.1f} s)")
    if deck_ensemble is not None:
        ens = simulate_ensemble(sim, parse_policy_option(policy), deck_ensemble, seed, games,
                                         seed, chunk)
        click.echo(simulate_ensemble_text(ens))


@cli.group("scenarios", invoke_without_command=True)
@click.pass_context
def scenarios(ctx: click.Context) -> None:
    """List the built-in scenarios (or `show` one, or write a `new` one)."""
    if ctx.invoked_subcommand is None:
        click.echo(views.scenario_list_text())


@scenarios.command("show")
@click.argument("scenario", metavar="NAME")
def scenarios_show(scenario: str) -> None:
    """A scenario in words: sides, hands, counters, units per section, rule options, examples."""
    click.echo(views.scenario_text(scenario))


@scenarios.command("new")
@click.argument("name")
@click.option("--format", "game_format", type=click.Choice(GAME_FORMATS), default="epic1",
              show_default=True, help="The game format of the template.")
@click.option("--out", "out_path", type=click.Path(dir_okay=False), default=None,
              help="Where to write it (default NAME.toml here; never overwritten).")
def scenarios_new(name: str, game_format: str, out_path: str | None) -> None:
    """Write a commented scenario template that validates and plays as written."""
    path = views.write_template(name, game_format, out_path)
    click.echo(f"wrote {path}: fill in the example numbers, then `napsim scenarios show {path}`")


@cli.command("trace")
@_sim_options
@click.option("--game", type=int, required=True, help="Global game index to replay.")
def trace_cmd(scenario, seed, policy, deck, sets, game):
    """Replay one game from (seed, game index) and print it turn by turn."""
    click.echo(api.trace_text(scenario, sets, deck, policy, seed, game))


@cli.command("run")
@click.argument("study_file", metavar="STUDY", type=click.Path(dir_okay=False))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Run folder: chunks, study.json and the report (rerun the command to resume).")
@click.option("--force", is_flag=True, help="Discard results of a different study in --out.")
@click.option("--target-error", type=float, default=None,
              help="Stop each point when the main metric's 95% half-width is below this.")
@click.option("--no-report", is_flag=True, help="Skip writing report.md / report.html at the end.")
@click.option("--png", is_flag=True, help="Charts as PNG too (default: SVG only, drawn once).")
@_threads_option
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
              help="Play the chunks on a running Dask cluster (dask scheduler + dask workers).")
@click.option("--dask-local", type=int, default=None, metavar="N",
              help="Play the chunks on a local Dask cluster of N single-threaded worker processes.")
@click.option("--deck-ensemble", type=int, default=None, metavar="N",
              help="Then play each point's games on N plausible decks (the deck's count ranges, seeded "
                   "by the study's seed) for the main metric's spread across decks (deck_ensemble.csv; "
                   "the chunks are unchanged). Default: the study's deck_ensemble.")
def run_cmd(study_file, out_dir, force, target_error, no_report, png, threads, scheduler, dask_local,
            deck_ensemble):
    """Run a study file (every sweep point, common random numbers); resumes where it stopped.

    The chunks, and so the results, are the same with any --threads, --scheduler or --dask-local."""
    backends.check_options(threads, scheduler, dask_local)
    backends.use_threads(threads)
    st = load_study(study_file)
    n_decks = api.check_study_run(st, out_dir, force, target_error, deck_ensemble)  # before the bar
    with backends.make_runner(threads, scheduler, dask_local) as runner:
        if runner.parallel:
            click.echo(f"running on {runner.describe()}", err=True)
        else:  # a cluster's workers compile their own kernels
            runloop_mod.warm_up(st, _notice)
        if not no_report:
            report_mod.preload_charts()  # matplotlib loads while the games play (without the GIL)
        with _study_bar(st, target_error) as progress:
            res = api.run_study(st, out_dir, force, target_error, progress, runner=runner,
                                deck_ensemble=deck_ensemble, notice=_notice)
    meta = res.meta
    games, played = runloop_mod.games_played_now(meta)
    if played == games:
        done = f"{games:,} games in {meta['wall_seconds']:.1f} s"
    else:
        done = (f"{games:,} games: {games - played:,} from earlier chunks, {played:,} played now "
                f"in {meta['wall_seconds']:.1f} s")
    click.echo(f"ran {len(st.points)} point(s), {done} -> {out_dir}")
    if n_decks is not None:
        click.echo(f"deck ensemble: {len(st.points)} point(s) on {n_decks} plausible decks -> "
                   f"{Path(out_dir) / ENSEMBLE_CSV}")
    if not no_report:
        path = res.report(png=png)
        click.echo(f"wrote {path / 'report.md'} and {path / 'report.html'}")


def _study_side_names(st) -> dict[str, str]:
    """{side key: name} of a study's scenario, for its progress line (none for odds studies)."""
    if not st.scenario:
        return {}
    try:
        return load_scenario(st.scenario).side_names
    except NapsimInputError:  # a scenario named by a path relative to the study: keys will do
        return {}


@contextlib.contextmanager
def _study_bar(st, target_error):
    """A progress bar with an ETA (chunk granularity) over a study's games: yields the progress
    function of `napsim.study.runloop.execute`."""
    cap = st.cap_for(target_error)
    n_points = len(st.points)
    names = _study_side_names(st)
    labels = {p.index: "; ".join(setting_words(k, v, names) for k, v in p.params.items())
              for p in st.points}

    def show(item):
        if item is None:
            return None
        i, games = item
        label = labels[i]
        return f"point {i + 1}/{n_points}" + (f" ({label})" if label else "") + f" {games:,} games"

    with click.progressbar(length=n_points * cap, label=f"{st.name}: games", file=sys.stderr,
                           show_eta=True, show_percent=True, item_show_func=show) as bar:
        yield lambda advance, point_index, games_in_point: bar.update(advance, (point_index, games_in_point))


@cli.command("report")
@click.argument("run_dir", metavar="DIR", type=click.Path(file_okay=False))
@click.option("--dest", type=click.Path(file_okay=False), default=None,
              help="Write the report here instead of into DIR.")
@click.option("--no-charts", is_flag=True, help="Tables only (much faster).")
@click.option("--png", is_flag=True, help="Charts as PNG too (default: SVG only, drawn once).")
def report_cmd(run_dir, dest, no_charts, png):
    """Summary tables (CSV), charts (SVG; PNG too with --png), report.md and a self-contained
    report.html for DIR."""
    data = frames_mod.load(run_dir)
    path = report_mod.write_report(run_dir, dest, with_charts=not no_charts, data=data, png=png)
    unfinished = sum(not v for v in data.complete.values())
    if unfinished:
        click.echo(f"note: {unfinished} point(s) not finished; the report shows what is on disk", err=True)
    click.echo(f"wrote {path / 'report.md'} and {path / 'report.html'}")


@cli.command("readings")
@click.argument("readings_file", metavar="READINGS", type=click.Path(dir_okay=False))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Folder for readings.csv, report.md and manifest.json.")
@click.option("--games", type=click.IntRange(2, 10_000_000), default=None,
              help="Games per reading and scenario (default: the file's).")
@click.option("--force", is_flag=True, help="Replace the results already in --out.")
def readings_cmd(readings_file, out_dir, games, force):
    """Play every open reading of the rules against its default on the same games (paired)."""
    spec = load_readings_spec(readings_file)
    check_dest(out_dir, force)
    dest = api.write_readings(spec, out_dir, games, force, progress=lambda line: click.echo(line, err=True))
    click.echo(f"wrote {dest / 'report.md'} and {dest / 'readings.csv'}")


@cli.command("regen")
@click.argument("names", nargs=-1)
@click.option("--studies", "studies_dir", default="studies", show_default=True,
              type=click.Path(file_okay=False), help="Folder of study files.")
@click.option("--results", "results_dir", default="results", show_default=True,
              type=click.Path(file_okay=False), help="Where each study's report goes (results/<name>/).")
@click.option("--work", "work_dir", default="out/studies", show_default=True,
              type=click.Path(file_okay=False), help="Run folders (chunks; resumable, not committed).")
@click.option("--force", is_flag=True, help="Discard run folders of changed studies or engine code.")
def regen_cmd(names, studies_dir, results_dir, work_dir, force):
    """Rerun the committed studies, readings and variants files (studies/*.toml) and rewrite their
    reports in results/."""
    for line in api.regenerate(names, studies_dir, results_dir, work_dir, force):
        click.echo(line)


@cli.command("rules")
@click.argument("rule_id", metavar="[ID]", required=False)
def rules_cmd(rule_id):
    """The rule catalogue (docs/rules.md): every rule, or one rule in full (G5; a group: E9, M6)."""
    click.echo(views.catalogue_text() if rule_id is None else views.rules_text(rule_id))


@cli.command("app")
@click.option("--port", type=click.IntRange(1, 65535), default=8501, show_default=True,
              help="Port of the page.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (anything but 127.0.0.1 makes the page reachable from the network).")
@click.option("--no-browser", is_flag=True, help="Do not open the page in the browser.")
def app_cmd(port: int, host: str, no_browser: bool) -> None:
    """A what-if page in the browser: change a scenario, see the card-flow answer in under a second."""
    # Streamlit is an optional extra (`pip install -e ".[app]"`): without it, one line and exit 2
    if importlib.util.find_spec("streamlit") is None:
        raise click.ClickException('Streamlit is not installed; install the app extra: '
                                   'pip install -e ".[app]"')
    if host not in LOCAL_HOSTS:
        click.echo(f"napsim: warning: listening on {host}: the page is reachable from the network, by anyone "
                   "who can reach this machine", err=True)
    click.echo(f"napsim app: http://{'localhost' if host in LOCAL_HOSTS else host}:{port} (Ctrl+C stops it)",
               err=True)
    sys.exit(run_page(streamlit_command(port, host, not no_browser)))


PAGE = Path(__file__).with_name("app") / "page.py"  # the Streamlit script of `napsim app`
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def streamlit_command(port: int, host: str, browser: bool) -> list[str]:
    """The `streamlit run` command line of the page."""
    return [sys.executable, "-m", "streamlit", "run", str(PAGE), "--server.port", str(port),
            "--server.address", host, "--server.headless", "false" if browser else "true",
            "--browser.gatherUsageStats", "false", "--server.maxUploadSize", "1",
            "--client.toolbarMode", "viewer", "--global.developmentMode", "false",
            "--global.disableWidgetStateDuplicationWarning", "true"]  # a shared link sets the widgets


def run_page(command: list[str]) -> int:
    """Run the Streamlit server until it ends, or until Ctrl+C or SIGTERM stop this process (the
    server is stopped with it, never left behind)."""
    proc = subprocess.Popen(command)
    previous = signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        return proc.wait()
    except KeyboardInterrupt:
        return 0
    finally:
        signal.signal(signal.SIGTERM, previous)
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()


cli.add_command(compare_cmd)
cli.add_command(balance_cmd)
cli.add_command(tune_cmd)
cli.add_command(sensitivity_cmd)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: run the click group, turning input errors into one line and exit 2.

    `argv` (default: sys.argv[1:]) lets tests and tools run the command line in-process."""
    try:
        cli.main(args=argv, prog_name="napsim", standalone_mode=False)
    except NoArgsIsHelpError as e:  # `napsim` or `napsim odds` alone: show the help, not an error
        click.echo(e.ctx.get_help() if e.ctx else e.format_message())
    except NapsimInputError as e:
        _fail(str(e))
    except (click.exceptions.Abort, KeyboardInterrupt):
        _interrupted(argv if argv is not None else sys.argv[1:])
    except click.ClickException as e:
        _fail(e.format_message())
    except OSError as e:  # never an empty path (`: No space left on device`)
        name = getattr(e, "filename", None)
        _fail(f"{name}: {e.strerror or e}" if name else str(e.strerror or e))


if __name__ == "__main__":
    np.seterr(over="ignore")
    main()
