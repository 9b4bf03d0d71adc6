"""What the page's kernel worker plays, each job a call of the Python API (`napsim.api`).

A `Settings` is what the page shows: a scenario (a shipped name or an uploaded file), its
overrides (`--set` paths), a deck and a policy per side. `answer` plays a small first batch of the
games, publishes its summary, then plays the full count (checking between chunks whether a newer
change superseded it); the full answer is `napsim.simulate` for the same settings, bit for bit.
Finished answers and packed simulations are cached by settings, so a setting changed back is
shown at once and a change never recompiles (the settings are tables, not code).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from napsim import api, api_balance_across, api_sensitivity
from napsim.app.worker import Job, ResultCache
from napsim.model.defaults import SEED

GAMES = 20_000        # the page's game count
QUICK_GAMES = 2_000   # the first batch: numbers on screen while the rest plays
CHUNK = 4_000         # games between two checks for a newer change (results do not depend on it)
BALANCE_GAMES = 4_000
SENSITIVITY_GAMES = 2_000  # on every moved deck: about 40 decks for GM&T's estimated counts

ANSWERS = ResultCache(64)    # (settings, games, seed) -> api.Simulated
SIMS = ResultCache(16)       # settings -> the packed Simulation
OTHERS = ResultCache(64)     # compare, balance and trace answers by their inputs


@dataclass(frozen=True)
class Settings:
    """The settings on screen: hashable, so that they key the caches."""

    scenario: str
    overrides: tuple = ()          # ((path, value), ...), in the order the page lists its fields
    deck: str | None = None
    policy: str = "greedy,greedy"
    label: str = field(default="", compare=False)  # the scenario as the user knows it (file name)

    @property
    def sets(self) -> dict:
        return dict(self.overrides)


def _quiet(line: str) -> None:
    """The compile notice, unsaid: the page shows its own (`panels.answer_panel`)."""


def simulation(s: Settings):
    """The settings' packed Simulation, built once (the first build of a format compiles it, on
    both cores: a notice, here silent as the page says so itself, asks for the kernel ready)."""
    sim = SIMS.get(s)
    if sim is None:
        sim = api.simulation(s.scenario, s.sets, s.deck, s.policy, notice=_quiet)
        SIMS.put(s, sim)
    return sim


def answer(job: Job, s: Settings, games: int = GAMES, seed: int = SEED, quick: int = QUICK_GAMES):
    """The answer for the settings: a first batch published, then `games` games (`api.Simulated`)."""
    key = (s, games, seed)
    done = ANSWERS.get(key)
    if done is not None:
        return done
    sim = simulation(s)
    if quick < games:
        job.publish(api.simulate(sim, games=quick, seed=seed, chunk=quick), quick / games)
    full = api.simulate(sim, games=games, seed=seed, chunk=CHUNK,
                        progress=lambda k, n: job.set_progress(k / n))
    full.summary  # noqa: B018 - computed here, on the worker, not on the page's thread
    ANSWERS.put(key, full)
    return full


def warm_up(job: Job, settings: Settings):
    """Compile (or load) the kernel of the settings' format by playing one game."""
    api.simulate(simulation(settings), games=1, seed=0, chunk=1)
    return True


def compare(job: Job, a: Settings, b: Settings, games: int = GAMES, seed: int = SEED):
    """B - A on the same games: `napsim.compare`'s frame (with its sentences)."""
    key = ("compare", a, b, games, seed)
    got = OTHERS.get(key)
    if got is None:
        got = api.compare(a.scenario, a.sets, b.sets, scenario_b=b.scenario, deck_a=a.deck, deck_b=b.deck,
                          policy_a=a.policy, policy_b=b.policy, games=games, seed=seed,
                          progress=lambda k, n: job.set_progress(k / n))
        OTHERS.put(key, got)
    return got


def balance(job: Job, s: Settings, vary: str, equalize: tuple[str, str] | None, games: int = BALANCE_GAMES,
            seed: int = SEED, decks: int | None = None, side: str | None = None, target: float | None = None):
    """The setting where the sides are even (`equalize`), or where `side` reaches `target`
    (`napsim.balance`), optionally over plausible decks."""
    key = ("balance", s, vary, equalize, games, seed, decks, side, target)
    got = OTHERS.get(key)
    if got is None:
        path = vary.partition("=")[0]
        sets = {k: v for k, v in s.overrides if k != path}
        got = api.balance(s.scenario, vary, equalize=list(equalize) if equalize else None, target=target,
                          side=side, sets=sets, deck=s.deck, policy=s.policy, games=games, seed=seed,
                          deck_ensemble=decks, progress=lambda line: job.check())
        OTHERS.put(key, got)
    return got


def trace(job: Job, s: Settings, seed: int, game: int) -> str:
    """One game in words, turn by turn (`napsim trace`)."""
    key = ("trace", s, seed, game)
    got = OTHERS.get(key)
    if got is None:
        got = api.trace_text(simulation(s), seed=seed, game=game)
        OTHERS.put(key, got)
    return got


def sensitivity(job: Job, s: Settings, metric: str, sides: tuple[str, ...], games: int = SENSITIVITY_GAMES,
                seed: int = SEED):
    """Which card counts move the answer (`napsim.sensitivity`): one side's metric, or the gap
    between two sides (second - first), per card type with a plausible range."""
    key = ("sensitivity", s, metric, sides, games, seed)
    got = OTHERS.get(key)
    if got is None:
        side, gap = (sides[0], None) if len(sides) == 1 else (None, ",".join(sides))
        got = api_sensitivity.sensitivity(s.scenario, metric, side, gap, sets=s.sets, deck=s.deck,
                                          policy=s.policy, games=games, seed=seed,
                                          progress=lambda line: job.check())
        OTHERS.put(key, got)
    return got


def balance_across(job: Job, s: Settings, vary: str, across: str, equalize: tuple[str, str] | None,
                   games: int = BALANCE_GAMES, seed: int = SEED, side: str | None = None,
                   target: float | None = None):
    """The balance of `vary` at every whole value of `across` (`napsim.balance_across`): the curve
    of even settings."""
    key = ("balance_across", s, vary, across, equalize, games, seed, side, target)
    got = OTHERS.get(key)
    if got is None:
        paths = {vary.partition("=")[0], across.partition("=")[0]}
        sets = {k: v for k, v in s.overrides if k not in paths}
        got = api_balance_across.balance_across(
            s.scenario, vary, across, equalize=list(equalize) if equalize else None, target=target,
            side=side, sets=sets, deck=s.deck, policy=s.policy, games=games, seed=seed,
            progress=lambda line: job.check())
        OTHERS.put(key, got)
    return got
