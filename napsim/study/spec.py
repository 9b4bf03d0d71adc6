"""Studies: a TOML file that names a scenario, deck, policies and a sweep grid, run chunk by chunk.

A study file has a ``[study]`` table, an optional ``[set]`` table (fixed parameter values) and an
optional ``[sweep]`` table (a list of values per parameter path; the sweep points are the cartesian
product, first key slowest). Paths joined by ``+`` move together: ``"scenario.format+deck" =
[["standard", "ccn70"], ["epic1", "gmt90"]]`` is two points, not four. Two kinds:

``kind = "engine"`` (default) plays whole games with `napsim.sim.packing.Simulation`::

    [study]
    name = "courier_rack"
    scenario = "symmetric"          # built-in name or a .toml path (relative to the study file)
    deck = "gmt90"                  # optional: the scenario's deck otherwise
    policies = ["greedy", "greedy"] # one per side: "greedy", "greedy:w_c=2" or {name="greedy", w_c=2}
    games = 20000                   # or: target_error = 0.002 and max_games = 200000
    seed = 20261130
    chunk = 5000                    # games per chunk file (and per kernel call)
    main_metric = "effective_per_turn"   # any summary metric; `main_side` picks the side (key)
    metrics = ["effective_per_turn", "share_picks_from_5"]   # shown in the report (all go to CSV)
    distribution = ["effective_total"]   # per-game distributions to chart
    per_game = false                # keep per-game rows in the chunk files
    [set]
    "scenario.turns" = 30
    [sweep]
    "sides.*.hand" = [4, 5, 6, 7, 8, 9, 10]
    "policy.*" = ["greedy", "random"]

Parameter paths: every scenario value (``scenario.turns``, ``scenario.format``, ``sides.A.hand``,
``sides.A.sections.L.infantry``), ``deck``, ``policy.<side>`` (policy name) and
``policy.<side>.<param>``. A ``*`` in place of a side key (or of a section) sets every side (every
section) to the same value: a symmetric sweep. Unknown paths are rejected naming the valid ones.

``kind = "odds"`` answers `napsim.sim.odds` questions (``[[questions]]`` tables with ``ask = "rack" |
"at_least" | "same_section" | "first" | "orders" | "mulligan"`` and their arguments) for every
sweep point over ``deck`` and ``hand``.

Common random numbers: every sweep point plays the same global game indices [0, n) with the same
seed, so game g meets the same random stream at every point and differences between points are not
drowned in game-to-game noise.

Storage and resume (`execute`): engine results go to ``DIR/points/<point>/chunk-<k>.npz``, one
file per chunk of ``chunk`` games (games [k * chunk, (k + 1) * chunk)), each written to a temporary
file and moved into place with `os.replace`, so a chunk file is either complete or absent whatever
moment a run is killed. A chunk is a pure function of (inputs, seed, game range), so rerunning the
same command skips the chunks on disk and ends with exactly the numbers of an uninterrupted run.
``DIR/study.json`` records the normalized study and a hash of everything a chunk depends on
(scenario and deck file contents, policies, overrides, sweep, seed, chunk size, the engine's source
files). A later run refuses a folder whose hash differs unless ``force``. Changes that cannot alter a
stored chunk (``games``, ``target_error``, ``max_games``, the reported metrics, names) are accepted
and the chunks reused: raising ``games`` from 20,000 to 50,000 plays only the 30,000 new games.
That is deliberately more useful than refusing every edit, and never mixes incompatible numbers.

`target_error` stops a point at the first chunk boundary where the half-width of the main metric's
95% interval (Wilson for a rate, normal for a mean) is below the target. The rule reads only the
chunks in order, so a resumed run stops at the same n.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import itertools
import json
import math
import os
import shutil
import time
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from napsim.model.defaults import SEED, STUDY_CHUNK
from napsim.model.errors import NapsimInputError
from napsim.model.version import __version__
from napsim.sim.summary import (
    DERIVED,
    extend_rows,
    per_game_columns,
    study_summary,
    summary_metric_names,
)

STUDY_KINDS = ("engine", "odds")
CHUNK_FORMAT = 1  # bump when the content of a chunk file changes
HIST_MAX = 4095  # per-game values above this land in the last histogram bin
ENGINE_KEYS = (
    "name", "kind", "description", "scenario", "deck", "policies", "games", "target_error", "max_games",
    "seed", "chunk", "main_metric", "main_side", "metrics", "distribution", "per_game",
)
ODDS_KEYS = ("name", "kind", "description", "deck", "hand", "games", "seed", "chunk")
TOP_KEYS = ("study", "set", "sweep", "questions")
ODDS_ASKS = {
    "at_least": ("filter", "k"), "rack": ("section",), "same_section": (), "first": ("filter",),
    "orders": (), "mulligan": ("keep", "mulligan_below", "target"),
}
DEFAULT_METRICS = ("effective_per_turn", "effective_per_turn_L", "effective_per_turn_C",
                   "effective_per_turn_R", "effective_share_of_nominal", "share_picks_from_5",
                   "share_picks_from_4", "share_picks_from_3", "same_section_turn_rate",
                   "scout_turn_rate")
CODE_FILES = ("engine/*.py", "sim/*.py", "model/cards.py", "model/scenarios.py", "model/policies.py",
              "model/filters.py")


# --------------------------------------------------------------------------------------------
# the study spec


@dataclass(frozen=True)
class Point:
    """One sweep point: its id (folder name), the swept values and a readable label."""

    index: int
    id: str
    params: dict
    label: str


@dataclass
class Study:
    """A validated study file."""

    path: Path
    name: str
    kind: str
    description: str
    seed: int
    chunk: int
    games: int | None
    target_error: float | None
    max_games: int | None
    sweep: dict
    fixed: dict
    points: list[Point]
    # engine
    scenario: str | None = None
    deck: str | None = None
    policies: list = field(default_factory=list)
    main_metric: str | None = None
    main_side: str | None = None
    metrics: list = field(default_factory=list)
    distribution: list = field(default_factory=list)
    per_game: bool = False
    side_keys: tuple = ()
    # odds
    hand: int | None = None
    questions: list = field(default_factory=list)
    sha256: str = ""

    @property
    def cap(self) -> int:
        """Games a point plays at most: `games`, or `max_games` under a target error."""
        return int(self.max_games if self.target_error is not None else self.games)

    def cap_for(self, target_error: float | None) -> int:
        """The cap under a command-line target error: a study with fixed `games` stops there."""
        if target_error is not None and self.target_error is None:
            return int(self.games)
        return self.cap

    def where(self, table: str | None = None) -> str:
        return f"{self.path}: [{table}]" if table else str(self.path)

    # ---- engine points -> inputs
    def point_inputs(self, point: Point) -> tuple[dict, str | None, list]:
        """(scenario overrides, deck, [(policy name, overrides)] per side) of one point."""
        overrides: dict = {}
        deck = self.deck
        policies = [(n, dict(o)) for n, o in self.policies]
        for path, value in itertools.chain(self.fixed.items(), point.params.items()):
            head, _, rest = path.partition(".")
            if path == "deck":
                deck = _resolve_file(value, self.path, ".csv")
            elif head == "policy":
                side, _, param = rest.partition(".")
                for i, key in enumerate(self.side_keys):
                    if side in ("*", key):
                        if param:
                            policies[i][1][param] = value
                        else:
                            policies[i] = (value, policies[i][1])
            else:
                for p in _expand(path, self.side_keys):
                    overrides[p] = _resolve_file(value, self.path, ".csv") if p == "scenario.deck" \
                        else value
        return overrides, deck, policies

    def load_point(self, point: Point):
        """(Scenario, Deck, policies) of a point, validated; errors name the study and point."""
        from napsim.engine import epic
        from napsim.model.cards import load_deck
        from napsim.model.policies import policy_vector
        from napsim.model.scenarios import load_scenario

        overrides, deck, policies = self.point_inputs(point)
        try:
            sc = load_scenario(self.scenario, overrides)
            dk = load_deck(deck or sc.deck)
            for key, (name, o) in zip(self.side_keys, policies, strict=True):
                policy_vector(name, o, where=f"policy.{key}")
            hand = max(s.hand for s in sc.sides)
            if hand + 1 > epic.MAX_HAND:
                raise NapsimInputError("sides", "hand", f"{hand} is too large", f"1-{epic.MAX_HAND - 1}")
        except NapsimInputError as e:
            raise NapsimInputError(self.where("sweep" if point.params else "study"), None,
                                   f"point {point.id} ({point.label or 'no sweep'}): {e}") from None
        return sc, dk, policies

    def build(self, point: Point):
        """The `Simulation` of one engine point."""
        from napsim.sim.packing import Simulation

        sc, dk, policies = self.load_point(point)
        return Simulation.build(sc, policies, dk)

    def chunk_ranges(self, games: int | None = None) -> list[tuple[int, int]]:
        """(first game, games) of each chunk: a pure function of the game count and chunk size."""
        n = self.cap if games is None else games
        return [(f, min(self.chunk, n - f)) for f in range(0, n, self.chunk)]

    # ---- identity
    def identity(self) -> dict:
        """Everything a stored result depends on; its hash keys the output folder."""
        ident = dict(format=CHUNK_FORMAT, kind=self.kind, seed=self.seed, chunk=self.chunk,
                     code=code_sha256(), sweep=self.sweep, set=self.fixed)
        points = []
        if self.kind == "engine":
            from napsim.engine import epic

            ident.update(per_game=self.per_game, metric_names=list(epic.METRIC_NAMES),
                         derived=DERIVED)
            for p in self.points:
                sc, dk, policies = self.load_point(p)
                points.append(dict(id=p.id, params=p.params, scenario_sha256=sc.sha256,
                                   deck_sha256=dk.sha256, policies=[[n, o] for n, o in policies]))
        else:
            from napsim.model.cards import load_deck

            ident.update(games=self.games, questions=self.questions)
            for p in self.points:
                deck, hand = self.odds_inputs(p)
                points.append(dict(id=p.id, params=p.params, hand=hand,
                                   deck_sha256=load_deck(deck).sha256))
        ident["points"] = points
        return ident

    def odds_inputs(self, point: Point) -> tuple[str, int]:
        deck, hand = self.deck, self.hand
        for path, value in itertools.chain(self.fixed.items(), point.params.items()):
            if path == "deck":
                deck = _resolve_file(value, self.path, ".csv")
            else:
                hand = value
        return deck, hand

    def spec(self) -> dict:
        """The normalized study, as recorded in study.json."""
        return dict(name=self.name, kind=self.kind, description=self.description,
                    scenario=self.scenario, deck=self.deck,
                    policies=[[n, o] for n, o in self.policies], games=self.games,
                    target_error=self.target_error, max_games=self.max_games, seed=self.seed,
                    chunk=self.chunk, main_metric=self.main_metric, main_side=self.main_side,
                    metrics=self.metrics, distribution=self.distribution, per_game=self.per_game,
                    hand=self.hand, questions=self.questions, set=self.fixed, sweep=self.sweep)


def _expand(path: str, side_keys) -> list[str]:
    """'sides.*.hand' -> ['sides.A.hand', 'sides.B.hand']; '*' for a section too."""
    parts = path.split(".")
    out = [[]]
    for i, part in enumerate(parts):
        if part == "*" and i == 1 and parts[0] == "sides":
            out = [o + [k] for o in out for k in side_keys]
        elif part == "*" and i == 3 and parts[2] == "sections":
            out = [o + [s] for o in out for s in ("L", "C", "R")]
        else:
            out = [o + [part] for o in out]
    return [".".join(o) for o in out]


def _resolve_file(value, study_path: Path, suffix: str):
    """A file reference in a study: relative paths are read from the study file's folder."""
    if not isinstance(value, str) or not (value.endswith(suffix) or "/" in value):
        return value
    p = Path(value)
    if not p.is_absolute() and (study_path.parent / p).exists():
        return str(study_path.parent / p)
    return value


def code_sha256() -> str:
    """Hash of the source files that decide what a chunk holds (engine, tables, policies...)."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for pattern in CODE_FILES:
        for f in sorted(root.glob(pattern)):
            h.update(f.relative_to(root).as_posix().encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def _sha(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()


def load_study(path: str | Path) -> Study:
    """Read and validate a study file; every problem is one NapsimInputError line."""
    from napsim.model.validate import check_keys, get_choice, get_float, get_int, get_str

    path = Path(path)
    if not path.is_file():
        raise NapsimInputError(str(path), None, "study file not found")
    raw = path.read_bytes()
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise NapsimInputError(str(path), None, f"not valid TOML: {e}") from None
    where = str(path)
    check_keys(where, data, TOP_KEYS, ("study",))
    head = data["study"]
    w = f"{where}: [study]"
    if not isinstance(head, dict):
        raise NapsimInputError(where, "study", "expected a table", "[study]")
    kind = get_choice(w, head, "kind", STUDY_KINDS, "engine")
    check_keys(w, head, ENGINE_KEYS if kind == "engine" else ODDS_KEYS, ("name",))
    name = get_str(w, head, "name")
    if not name or any(c in name for c in "/\\") or name.startswith("."):
        raise NapsimInputError(w, "name", f"{name!r} cannot name a folder", "a plain name")
    seed = get_int(w, head, "seed", 0, 2**63 - 1, SEED)
    chunk = get_int(w, head, "chunk", 1, 10_000_000, STUDY_CHUNK)
    games = get_int(w, head, "games", 1, 10**11, None)
    target = get_float(w, head, "target_error", 1e-9, 0.5, None) if "target_error" in head else None
    max_games = get_int(w, head, "max_games", 1, 10**11, None)
    if kind == "odds":
        if games is None:
            raise NapsimInputError(w, "games", "missing required key", "integers >= 1")
    elif games is not None and target is not None:
        raise NapsimInputError(w, "target_error", "give either games or target_error (+ max_games)",
                               "games, or target_error with max_games")
    elif target is not None and max_games is None:
        raise NapsimInputError(w, "max_games", "target_error needs a cap on the games per point",
                               "integers >= 1")
    elif games is None and target is None:
        raise NapsimInputError(w, "games", "missing required key", "games, or target_error with max_games")
    if max_games is not None and target is None:
        raise NapsimInputError(w, "max_games", "only used with target_error",
                               "remove it, or set target_error")

    fixed = data.get("set", {})
    check_keys(f"{where}: [set]", fixed, tuple(fixed))
    sweep = data.get("sweep", {})
    check_keys(f"{where}: [sweep]", sweep, tuple(sweep))
    for key, values in sweep.items():
        if not isinstance(values, list) or not values:
            raise NapsimInputError(f"{where}: [sweep]", key, f"{values!r} is not a non-empty list",
                                   "a list of values, e.g. [4, 5, 6]")
        paths = key.split("+")
        for v in values:
            if len(paths) > 1:  # joined paths: each value is one list with a value per path
                if not isinstance(v, list) or len(v) != len(paths) or any(
                        isinstance(x, dict | list) for x in v):
                    raise NapsimInputError(f"{where}: [sweep]", key, f"{v!r} is not {len(paths)} values",
                                           f"lists of {len(paths)} values, one per path joined by +")
            elif isinstance(v, dict | list):
                raise NapsimInputError(f"{where}: [sweep]", key, f"{v!r} is not a single value",
                                       "numbers, strings or booleans")
    combos = list(itertools.product(*sweep.values())) if sweep else [()]
    points = []
    for i, combo in enumerate(combos):
        params = {}
        for key, value in zip(sweep, combo, strict=True):
            paths = key.split("+")
            params.update(zip(paths, value if len(paths) > 1 else [value], strict=True))
        label = ", ".join(f"{k}={v}" for k, v in params.items())
        points.append(Point(i, f"p{i:03d}", params, label))
    if len(points) > 10_000:
        raise NapsimInputError(f"{where}: [sweep]", None, f"{len(points)} sweep points", "at most 10000")

    st = Study(path=path, name=name, kind=kind, description=get_str(w, head, "description", ""),
               seed=seed, chunk=chunk, games=games, target_error=target, max_games=max_games,
               sweep=sweep, fixed=fixed, points=points, sha256=hashlib.sha256(raw).hexdigest())
    if kind == "engine":
        _engine_fields(st, head, w)
        if "questions" in data:
            raise NapsimInputError(where, "questions", "only odds studies ask questions",
                                   'kind = "odds"')
    else:
        _odds_fields(st, head, data, w)
    return st


def _engine_fields(st: Study, head: dict, w: str) -> None:
    from napsim.model.policies import parse_policy_option
    from napsim.model.scenarios import resolve_scenario_path
    from napsim.model.validate import get_bool, get_str

    st.scenario = _resolve_file(get_str(w, head, "scenario"), st.path, ".toml")
    resolve_scenario_path(st.scenario)
    if "deck" in head:
        st.deck = _resolve_file(get_str(w, head, "deck"), st.path, ".csv")
    raw = head.get("policies", ["greedy", "greedy"])
    if not isinstance(raw, list) or len(raw) != 2:
        raise NapsimInputError(w, "policies", f"{raw!r} is not two policies",
                               'one per side, e.g. ["greedy", "random"]')
    policies = []
    for entry in raw:
        if isinstance(entry, str):
            parsed = parse_policy_option(entry, where=f"{w}: policies")
            if len(parsed) != 1:
                raise NapsimInputError(w, "policies", f"{entry!r} names more than one policy",
                                       "one entry per side")
            policies.append((parsed[0][0], {k: _num(v) for k, v in parsed[0][1].items()}))
        elif isinstance(entry, dict) and isinstance(entry.get("name"), str):
            policies.append((entry["name"], {k: v for k, v in entry.items() if k != "name"}))
        else:
            raise NapsimInputError(w, "policies", f"cannot read {entry!r}",
                                   '"greedy", "greedy:w_c=2" or {name = "greedy", w_c = 2}')
    st.policies = policies
    sc_raw = tomllib.loads(resolve_scenario_path(st.scenario).read_text(encoding="utf-8"))
    st.side_keys = tuple(sc_raw.get("sides", {}))
    for table, paths in (("set", st.fixed), ("sweep", st.sweep)):
        for p in paths:
            for q in p.split("+") if table == "sweep" else [p]:
                _check_engine_path(st, f"{st.path}: [{table}]", q)
    st.per_game = get_bool(w, head, "per_game", False)
    valid = summary_metric_names()
    st.main_metric = _metric_choice(w, head, "main_metric", valid, "effective_per_turn")
    st.main_side = head.get("main_side", st.side_keys[0] if st.side_keys else "A")
    if st.main_side not in st.side_keys:
        raise NapsimInputError(w, "main_side", f"{st.main_side!r} is not a side of the scenario",
                               ", ".join(st.side_keys))
    st.metrics = _metric_list(w, head, "metrics", valid, list(DEFAULT_METRICS))
    st.distribution = _metric_list(w, head, "distribution", per_game_columns(), ["effective_total"])
    for p in st.points:  # every point must load before anything runs
        st.load_point(p)


def _num(v):
    try:
        return float(v)
    except ValueError:
        return v


def _metric_choice(w, head, key, valid, default):
    v = head.get(key, default)
    if v not in valid:
        raise NapsimInputError(w, key, f"{v!r} is not a summary metric", ", ".join(valid))
    return v


def _metric_list(w, head, key, valid, default):
    v = head.get(key, default)
    if not isinstance(v, list) or not v:
        raise NapsimInputError(w, key, f"{v!r} is not a non-empty list of metric names", ", ".join(valid))
    for m in v:
        if m not in valid:
            raise NapsimInputError(w, key, f"{m!r} is not a metric", ", ".join(valid))
    return list(v)


def engine_path_patterns(side_keys) -> list[str]:
    """The parameter paths a study may set or sweep, as compact patterns."""
    from napsim.model.policies import PARAMS
    from napsim.model.scenarios import RULE_OPTIONS, SECTION_KEYS, SIDE_KEYS

    sides = "|".join([*side_keys, "*"])
    side_fields = "|".join(k for k in SIDE_KEYS if k not in ("sections", "name"))
    params = "|".join(k for k in PARAMS if k != "kind")
    return [f"scenario.<{'|'.join(scenario_fields())}>", f"sides.<{sides}>.<{side_fields}>",
            f"sides.<{sides}>.sections.<L|C|R|*>.<{'|'.join(SECTION_KEYS)}>", "deck",
            f"rules.<{'|'.join(RULE_OPTIONS)}>", f"policy.<{sides}>", f"policy.<{sides}>.<{params}>"]


def scenario_fields() -> list[str]:
    """The [scenario] values a study may set: every key but the descriptive ones."""
    from napsim.model.scenarios import SCENARIO_KEYS

    return [k for k in SCENARIO_KEYS if k not in ("name", "description", "examples")]


def _check_engine_path(st: Study, where: str, path: str) -> None:
    from napsim.model.policies import PARAMS
    from napsim.model.scenarios import RULE_OPTIONS, SECTION_KEYS, SIDE_KEYS

    parts = path.split(".")
    sides = (*st.side_keys, "*")
    ok = (
        path == "deck"
        or (len(parts) == 2 and parts[0] == "scenario" and parts[1] in scenario_fields())
        or (len(parts) == 3 and parts[0] == "sides" and parts[1] in sides
            and parts[2] in SIDE_KEYS and parts[2] not in ("sections", "name"))
        or (len(parts) == 5 and parts[0] == "sides" and parts[1] in sides and parts[2] == "sections"
            and parts[3] in ("L", "C", "R", "*") and parts[4] in SECTION_KEYS)
        or (len(parts) == 2 and parts[0] == "rules" and parts[1] in RULE_OPTIONS)
        or (len(parts) == 2 and parts[0] == "policy" and parts[1] in sides)
        or (len(parts) == 3 and parts[0] == "policy" and parts[1] in sides
            and parts[2] in PARAMS and parts[2] != "kind")
    )
    if not ok:
        raise NapsimInputError(where, path, "unknown parameter path",
                               "; ".join(engine_path_patterns(st.side_keys)))


def _odds_fields(st: Study, head: dict, data: dict, w: str) -> None:
    from napsim.model.cards import load_deck
    from napsim.model.validate import check_keys, get_choice, get_int, get_str

    st.deck = _resolve_file(get_str(w, head, "deck", "gmt90"), st.path, ".csv")
    st.hand = get_int(w, head, "hand", 1, 60, 6)
    for table, paths in (("set", st.fixed), ("sweep", st.sweep)):
        for p in paths:
            if p not in ("deck", "hand"):
                raise NapsimInputError(f"{st.path}: [{table}]", p, "unknown parameter path",
                                       "deck, hand")
    qs = data.get("questions")
    if not isinstance(qs, list) or not qs:
        raise NapsimInputError(str(st.path), "questions", "an odds study needs [[questions]]",
                               'tables with ask = "' + '" | "'.join(ODDS_ASKS) + '"')
    questions = []
    for i, q in enumerate(qs):
        wq = f"{st.path}: [[questions]] #{i + 1}"
        if not isinstance(q, dict):
            raise NapsimInputError(wq, None, "expected a table", "ask, label and its arguments")
        ask = get_choice(wq, q, "ask", tuple(ODDS_ASKS))
        check_keys(wq, q, ("ask", "label", *ODDS_ASKS[ask]), ("ask", *ODDS_ASKS[ask]))
        args = {}
        for a in ODDS_ASKS[ask]:
            args[a] = get_str(wq, q, a) if a in ("filter", "keep", "section") else get_int(wq, q, a, 0, 100)
        label = get_str(wq, q, "label", ask + "".join(f" {k}={v}" for k, v in args.items()))
        questions.append(dict(ask=ask, label=label, **args))
    st.questions = questions
    for p in st.points:
        deck, hand = st.odds_inputs(p)
        try:
            load_deck(deck)
            if isinstance(hand, bool) or not isinstance(hand, int) or not 1 <= hand <= 60:
                raise NapsimInputError("hand", None, f"{hand!r} is not a hand size", "integers 1-60")
        except NapsimInputError as e:
            raise NapsimInputError(f"{st.path}: [sweep]", None, f"point {p.id} ({p.label}): {e}") from None


# --------------------------------------------------------------------------------------------
# chunk arrays and their sums


def chunk_arrays(rows: np.ndarray, totals: np.ndarray, waits: np.ndarray, first: int,
                 keep_rows: bool, extra: dict | None = None) -> dict:
    """What a chunk file holds: sums, sums of squares and of products with turns per metric,
    per-game value histograms (for distributions), rack waits, the rows when asked, and any
    further histogram the kernel returns (`extra`, e.g. guerrilla_turns), summed over chunks."""
    from napsim.engine import epic

    x = extend_rows(rows)
    n, _, c = x.shape
    turns = x[:, :, epic.M_TURNS][:, :, None]
    sums = x.sum(axis=0)
    if not np.array_equal(sums[:, : epic.N_METRICS], totals):
        raise RuntimeError("per-game rows do not add up to the chunk totals")
    v = np.clip(x, 0, HIST_MAX)
    width = int(v.max()) + 1 if n else 1
    idx = (np.arange(2)[None, :, None] * c + np.arange(c)[None, None, :]) * width + v
    hist = np.bincount(idx.ravel(), minlength=2 * c * width).reshape(2, c, width)
    out = dict(format=np.int64(CHUNK_FORMAT), first=np.int64(first), n=np.int64(n),
               totals=totals.astype(np.int64), sums=sums, sumsq=(x * x).sum(axis=0),
               sumxt=(x * turns).sum(axis=0), hist=hist.astype(np.int64),
               rack_wait=waits.astype(np.int64))
    if keep_rows:
        out["rows"] = rows.astype(np.int32)
    for k, v in (extra or {}).items():
        out[k] = np.asarray(v, np.int64)
    return out


KERNEL_GAMES = 16_384  # most games per kernel call: bounds the per-game arrays a chunk needs


def compute_chunk(args: tuple, seed: int, first: int, n: int, keep_rows: bool) -> dict:
    """Play games [first, first + n) with the packed kernel arguments `args` (`Simulation.kernel_args()`)
    and return the chunk file's arrays. The games are played `KERNEL_GAMES` at a time and the
    parts' sums merged (integers: the same arrays as one call), so a chunk of any size holds at
    most `KERNEL_GAMES` games' per-game rows in memory (all of them only when `keep_rows`)."""
    from napsim.engine.rng import seed_key
    from napsim.sim.runner import play_chunk

    key = seed_key(seed)
    out = None
    for lo in range(first, first + max(n, 1), KERNEL_GAMES):
        m = min(KERNEL_GAMES, first + n - lo)
        res = play_chunk(args, key, lo, m, False, True)
        rows = res.rows
        extra = {k: getattr(res, k) for k in EXTRA_ARRAYS}
        part = chunk_arrays(rows, res.totals, res.rack_wait, lo, keep_rows, extra)
        del res, rows
        out = part if out is None else merge_chunks([out, part])
    return out


def merge_chunks(parts: list[dict]) -> dict:
    """The arrays of consecutive chunk parts as one chunk (sums added, histograms padded)."""
    out = dict(parts[0])
    for ch in parts[1:]:
        out["n"] = np.int64(out["n"] + ch["n"])
        for k in ("totals", "sums", "sumsq", "sumxt", "rack_wait", *EXTRA_ARRAYS):
            if k in ch:
                out[k] = out[k] + ch[k]
        out["hist"] = _pad_add(out["hist"], ch["hist"])
        if "rows" in ch:
            out["rows"] = np.concatenate([out["rows"], ch["rows"]])
    return out


def _pad_add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    w = max(a.shape[-1], b.shape[-1])
    out = np.zeros((*a.shape[:-1], w), np.int64)
    out[..., : a.shape[-1]] += a
    out[..., : b.shape[-1]] += b
    return out


# further kernel arrays, summed like the totals: guerrilla per turn, per-commander totals (M, L)
# and Tactician cards held per turn
EXTRA_ARRAYS = ("guerrilla_turns", "commander_totals", "tactician_turns")


class Acc:
    """Running sums of a point's chunks."""

    def __init__(self):
        self.games = 0
        self.chunks = 0
        self.totals = self.sums = self.sumsq = self.sumxt = self.hist = self.rack_wait = None
        self.extra: dict = {}

    def add(self, ch: dict) -> None:
        for k in EXTRA_ARRAYS:
            if k in ch:
                self.extra[k] = self.extra[k] + ch[k] if k in self.extra else ch[k].astype(np.int64).copy()
        if self.chunks == 0:
            for k in ("totals", "sums", "sumsq", "sumxt", "hist", "rack_wait"):
                setattr(self, k, ch[k].astype(np.int64).copy())
        else:
            self.totals = self.totals + ch["totals"]
            self.sums = self.sums + ch["sums"]
            self.sumsq = self.sumsq + ch["sumsq"]
            self.sumxt = self.sumxt + ch["sumxt"]
            self.hist = _pad_add(self.hist, ch["hist"])
            self.rack_wait = self.rack_wait + ch["rack_wait"]
        self.games += int(ch["n"])
        self.chunks += 1


def engine_summary(acc: Acc, side_keys, side_names) -> pd.DataFrame:
    """The summary of a point's chunk sums (`napsim.sim.summary.study_summary`)."""
    return study_summary(acc.games, acc.totals, acc.sums, acc.sumsq, acc.sumxt,
                         acc.extra.get("commander_totals"), side_keys, side_names)


def half_width(summary: pd.DataFrame, metric: str, side_key: str) -> float:
    """Half the width of the 95% interval of one summary row (NaN when not yet defined)."""
    row = summary[(summary["metric"] == metric) & (summary["side_key"] == side_key)]
    if row.empty:
        return math.nan
    return float((row["ci_high"].iloc[0] - row["ci_low"].iloc[0]) / 2)


# --------------------------------------------------------------------------------------------
# files


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write to a temporary file in the same folder, then rename it into place."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def atomic_write_npz(path: Path, arrays: dict) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        np.savez_compressed(fh, **arrays)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def chunk_path(pdir: Path, k: int) -> Path:
    return pdir / f"chunk-{k:05d}.npz"


def read_chunk(path: Path, first: int, n: int) -> dict | None:
    """A stored chunk if it holds exactly games [first, first + n), else None."""
    if not path.is_file():
        return None
    try:
        with np.load(path) as z:
            ch = {k: z[k] for k in z.files}
    except (OSError, ValueError, EOFError, KeyError):
        return None
    if int(ch.get("format", -1)) != CHUNK_FORMAT or int(ch["first"]) != first or int(ch["n"]) != n:
        return None
    return ch


def point_chunks(meta: dict, point_id: str, out: Path,
                 compute: Callable[[int, int], dict] | None = None,
                 on_chunk: Callable[[int, dict, Acc, bool], None] | None = None) -> tuple[Acc, bool]:
    """Walk a point's chunks in order, reading each from disk or (with `compute`) playing it, and
    stop at the first boundary where the target error is met. Returns (sums, complete).

    Used by the runner and by the report, so both stop at the same chunk.
    """
    cap, chunk = meta["run"]["cap"], meta["spec"]["chunk"]
    pdir = out / "points" / point_id
    acc = Acc()
    for k, first in enumerate(range(0, cap, chunk)):
        n = min(chunk, cap - first)
        path = chunk_path(pdir, k)
        ch = read_chunk(path, first, n)
        fresh = False
        if ch is None:
            if compute is None:
                return acc, False
            ch = compute(first, n)
            atomic_write_npz(path, ch)
            fresh = True
        acc.add(ch)
        if on_chunk:
            on_chunk(k, ch, acc, fresh)
        if _target_met(meta, point_id, acc):
            break
    return acc, True


def _target_met(meta: dict, point_id: str, acc: Acc) -> bool:
    """Has the point's main metric reached the run's target error (False without a target)?"""
    target, spec = meta["run"]["target_error"], meta["spec"]
    if target is None:
        return False
    summ = engine_summary(acc, meta["side_keys"], _side_names(meta, point_id))
    return half_width(summ, spec["main_metric"], spec["main_side"]) < target  # NaN never is


def fill_point(runner, job: dict, meta: dict, point_id: str, out: Path,
               on_chunk: Callable[[int, dict], None] | None = None) -> set[int]:
    """Play a point's missing chunks on a parallel runner (`napsim.backends.DaskRunner`), writing
    each chunk file (atomically) as its result arrives, in whatever order. Without a target error
    every missing chunk up to the cap is played; with one, the chunks are taken in order and the
    runner is stopped at the chunk boundary where `point_chunks` stops (chunks already in flight
    may land beyond it: they are stored and harmless). `on_chunk(k, chunk)` is called for each
    chunk counted, in arrival order without a target, in chunk order with one. Returns the k's
    reported, so the in-order walk that follows does not report them twice."""
    from napsim.study.backends import run_chunk

    spec, run = meta["spec"], meta["run"]
    cap, chunk = run["cap"], spec["chunk"]
    pdir = out / "points" / point_id
    ranges = [(k, f, min(chunk, cap - f)) for k, f in enumerate(range(0, cap, chunk))]
    stored = {k for k, f, n in ranges if read_chunk(chunk_path(pdir, k), f, n) is not None}
    todo = [r for r in ranges if r[0] not in stored]
    reported: set[int] = set()
    ordered = run["target_error"] is not None
    acc, nxt = Acc(), 0
    fresh: set[int] = set()  # chunks played by this call

    def advance() -> bool:  # walk the stored prefix in order; True when the target is met
        nonlocal nxt
        while nxt < len(ranges) and nxt in stored:
            k, f, n = ranges[nxt]
            ch = read_chunk(chunk_path(pdir, k), f, n)
            acc.add(ch)
            nxt += 1
            if k in fresh and on_chunk:
                on_chunk(k, ch)
                reported.add(k)
            if _target_met(meta, point_id, acc):
                return True
        return False

    if ordered and advance():
        return reported
    stream = runner.stream(run_chunk, todo, lambda r: (job, r[1], r[2]), tag=f"napsim-{point_id}")
    try:
        for (k, _, _), ch in stream:
            atomic_write_npz(chunk_path(pdir, k), ch)
            stored.add(k)
            fresh.add(k)
            if not ordered:
                if on_chunk:
                    on_chunk(k, ch)
                reported.add(k)
            elif advance():
                break
    finally:
        stream.close()
    return reported


def _side_names(meta: dict, point_id: str) -> list[str]:
    for p in meta["points"]:
        if p["id"] == point_id:
            return p["side_names"]
    raise KeyError(point_id)


OWN_ENTRIES = ("points", "study.json", "report.md", "report.html", "charts", "summary.csv",
               "points.csv", "convergence.csv", "rack_wait.csv", "distribution.csv", "chunks.csv",
               "odds.csv", "manifest.json", ".lock")


def _clear(out: Path) -> None:
    """Remove what napsim wrote in `out` (only its own entries, never anything else)."""
    for name in OWN_ENTRIES:
        p = out / name
        if p.is_dir():
            shutil.rmtree(p)
        elif p.exists():
            p.unlink()


def _changed_keys(old: dict, new: dict) -> list[str]:
    keys = sorted(set(old) | set(new))
    out = [k for k in keys if old.get(k) != new.get(k)]
    if "code" in out:
        out[out.index("code")] = "engine source code"
    return out


def check_out(study: Study, out: str | Path, force: bool) -> tuple[dict, str, bool]:
    """May `out` hold this study? Returns (identity, its hash, whether old results must be cleared);
    raises when the folder holds another study's results (or foreign files) and not `force`."""
    out = Path(out)
    ident = json.loads(json.dumps(study.identity(), default=str))  # as study.json will hold it
    digest = _sha(ident)
    meta_path = out / "study.json"
    if out.exists() and not out.is_dir():
        raise NapsimInputError(str(out), "--out", "is a file, not a folder")
    if meta_path.exists():
        try:
            old = json.loads(meta_path.read_text())
        except (OSError, ValueError):
            old = {}
        if old.get("identity_sha256") != digest:
            if not force:
                changed = _changed_keys(old.get("identity", {}), ident)
                raise NapsimInputError(
                    str(out), "--out", "holds results of a different study "
                    f"(changed: {', '.join(changed) or 'unknown'}); its chunks cannot be reused",
                    "--force to discard them, or another --out")
            return ident, digest, True
    elif out.exists() and any(p.name != ".lock" for p in out.iterdir()):
        if not force:
            raise NapsimInputError(str(out), "--out", "folder holds files that are not a napsim study",
                                   "an empty or new folder, or --force")
        return ident, digest, True
    return ident, digest, False


def prepare_dir(study: Study, out: Path, force: bool, target_error: float | None) -> dict:
    """Check that `out` may hold this study (same identity, or --force) and write study.json."""
    ident, digest, clear = check_out(study, out, force)
    meta_path = out / "study.json"
    if clear:
        _clear(out)
    out.mkdir(parents=True, exist_ok=True)
    target = study.target_error if target_error is None else target_error
    cap = study.cap_for(target_error)
    sides = []
    if study.kind == "engine":
        for p in study.points:
            sc, _, _ = study.load_point(p)
            sides.append([s.name for s in sc.sides])
    meta = dict(
        napsim=__version__, study_file=str(study.path), study_sha256=study.sha256,
        identity_sha256=digest, identity=ident, spec=study.spec(), side_keys=list(study.side_keys),
        points=[dict(id=p.id, params=p.params, label=p.label,
                     side_names=sides[p.index] if sides else []) for p in study.points],
        columns=per_game_columns() if study.kind == "engine" else [],
        run=dict(target_error=target, cap=cap), status={},
    )
    if meta_path.exists():
        with contextlib.suppress(OSError, ValueError):
            meta["status"] = json.loads(meta_path.read_text()).get("status", {})
    write_meta(out, meta)
    return meta


def write_meta(out: Path, meta: dict) -> None:
    atomic_write_bytes(out / "study.json", (json.dumps(meta, indent=1, default=str) + "\n").encode())


def read_meta(out: str | Path) -> dict:
    p = Path(out) / "study.json"
    if not p.is_file():
        raise NapsimInputError(str(out), None, "no study.json: not a napsim run folder",
                               "a folder written by `napsim run`")
    try:
        return json.loads(p.read_text())
    except ValueError as e:
        raise NapsimInputError(str(p), None, f"not valid JSON: {e}") from None


@contextlib.contextmanager
def _locked(out: Path) -> Iterator[None]:
    """One run at a time per folder (released by the OS if the process dies)."""
    out.mkdir(parents=True, exist_ok=True)
    fh = open(out / ".lock", "w")  # noqa: SIM115
    try:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise NapsimInputError(str(out), "--out", "another napsim run is using this folder") from None
        yield
    finally:
        fh.close()


def _clean_temp(pdir: Path) -> None:
    """Leftovers of a run killed while writing (never complete files)."""
    for p in pdir.glob(".chunk-*.tmp"):
        with contextlib.suppress(OSError):
            p.unlink()


# --------------------------------------------------------------------------------------------
# running


ProgressFn = Callable[[int, int, int], None]  # (games advanced, point index, games in point)


def execute(study: Study | str | Path, out: str | Path, force: bool = False,
            target_error: float | None = None, progress: ProgressFn | None = None,
            threads: int | None = None, runner=None) -> dict:
    """Run (or resume) every point of a study into `out`; returns the study.json record.

    `threads`: numba threads of this process for the run (None: numba's setting). `runner`: a
    `napsim.backends` runner (`DaskRunner` sends the chunks to a Dask cluster); None plays here.
    The chunks, and so every number, are the same whichever runs them.
    """
    from napsim.study.backends import threads_set

    st = study if isinstance(study, Study) else load_study(study)
    with threads_set(threads):
        return _execute(st, out, force, target_error, progress, runner)


def _execute(st: Study, out: str | Path, force: bool, target_error: float | None,
             progress: ProgressFn | None, runner) -> dict:
    if target_error is not None:
        if st.kind == "odds":
            raise NapsimInputError("--target-error", "target_error", "odds studies run a fixed number "
                                   "of games", "leave it out")
        if not 0 < target_error <= 0.5:
            raise NapsimInputError("--target-error", "target_error", f"{target_error} is out of range",
                                   "numbers in (0, 0.5]")
    out = Path(out)
    with _locked(out):
        meta = prepare_dir(st, out, force, target_error)
        t0 = time.perf_counter()
        parallel = runner is not None and runner.parallel
        if st.kind == "odds" and parallel:
            _fill_odds_points(st, out, runner)
        for p in st.points:
            pdir = out / "points" / p.id
            pdir.mkdir(parents=True, exist_ok=True)
            _clean_temp(pdir)
            t1 = time.perf_counter()
            if st.kind == "engine":
                games, chunks = _run_engine_point(st, meta, p, out, progress, runner if parallel else None)
            else:
                games, chunks = _run_odds_point(st, p, pdir, progress)
            meta["status"][p.id] = dict(games=games, chunks=chunks, done=True,
                                        wall_seconds=round(time.perf_counter() - t1, 3))
            write_meta(out, meta)
        meta["wall_seconds"] = round(time.perf_counter() - t0, 3)
        write_meta(out, meta)
    return meta


def point_job(st: Study, meta: dict, p: Point) -> dict:
    """The plain-data job a Dask worker plays a point's chunks from (`napsim.backends.run_chunk`)."""
    from napsim.study.backends import engine_job

    sc, dk, policies = st.load_point(p)
    return engine_job(f"{meta['identity_sha256']}/{p.id}", sc, dk, policies, st.seed, st.per_game)


def _run_engine_point(st: Study, meta: dict, p: Point, out: Path, progress,
                      runner=None) -> tuple[int, int]:
    cap = meta["run"]["cap"]
    state = {}

    def compute(first: int, n: int) -> dict:
        if "args" not in state:
            state["args"] = st.build(p).kernel_args()
        return compute_chunk(state["args"], st.seed, first, n, st.per_game)

    reported: set[int] = set()
    done = [0]  # games reported so far (the progress bar's position in this point)
    if runner is not None:
        def on_fresh(k, ch):
            done[0] += int(ch["n"])
            if progress:
                progress(int(ch["n"]), p.index, done[0])

        reported = fill_point(runner, point_job(st, meta, p), meta, p.id, out, on_fresh)

    def on_chunk(k, ch, acc, fresh):
        if progress and k not in reported:
            done[0] += int(ch["n"])
            progress(int(ch["n"]), p.index, done[0])

    acc, _ = point_chunks(meta, p.id, out, compute, on_chunk)
    if progress and acc.games < cap:
        progress(cap - acc.games, p.index, acc.games)  # stopped early: the rest is not needed
    return acc.games, acc.chunks


def odds_point(st_questions: list, deck_ref: str, hand: int, games: int, seed: int,
               chunk: int) -> pd.DataFrame:
    """Answer every question of an odds study for one deck and hand size."""
    from napsim.model.cards import Deck, load_deck
    from napsim.sim import odds

    deck = deck_ref if isinstance(deck_ref, Deck) else load_deck(deck_ref)
    frames = []
    for q in st_questions:
        ask = q["ask"]
        try:
            if ask == "at_least":
                df = odds.at_least(deck, q["filter"], hand, q["k"], games, seed, chunk)
            elif ask == "rack":
                df = odds.rack_offers(deck, q["section"], games, seed, chunk)
            elif ask == "same_section":
                df = odds.same_section(deck, hand, games, seed, chunk)
            elif ask == "first":
                df = odds.first_draw(deck, q["filter"], games, seed, chunk)
            elif ask == "orders":
                df = odds.orders_distribution(deck, hand, games, seed, chunk)
            else:
                df = odds.mulligan(deck, q["keep"], q["mulligan_below"], q["target"], games, seed,
                                   hand, chunk)
            df["note"] = ""
        except NapsimInputError as e:  # e.g. a filter no card of this deck matches
            df = pd.DataFrame([dict(question=q["label"], outcome="", exact=np.nan, simulated=np.nan,
                                    ci_low=np.nan, ci_high=np.nan, n=0, interval="",
                                    note=f"not applicable: {e.problem}")])
        df.insert(0, "label", q["label"])
        frames.append(df)
    out = pd.concat(frames, ignore_index=True)
    out["deck_warning"] = deck.estimated_warning() or ""
    return out


def _fill_odds_points(st: Study, out: Path, runner) -> None:
    """Answer the odds points without an odds.csv on a parallel runner, one task per point
    (the validated deck travels with the task), writing each file as it arrives."""
    from napsim.model.cards import load_deck
    from napsim.study.backends import run_odds_point

    todo = [p for p in st.points if not (out / "points" / p.id / "odds.csv").is_file()]

    def args_of(p: Point) -> tuple:
        deck, hand = st.odds_inputs(p)
        return (st.questions, load_deck(deck), hand, st.games, st.seed, st.chunk)

    for p, data in runner.stream(run_odds_point, todo, args_of, tag="napsim-odds"):
        pdir = out / "points" / p.id
        pdir.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(pdir / "odds.csv", data)


def _run_odds_point(st: Study, p: Point, pdir: Path, progress) -> tuple[int, int]:
    path = pdir / "odds.csv"
    if not path.is_file():
        deck, hand = st.odds_inputs(p)
        df = odds_point(st.questions, deck, hand, st.games, st.seed, st.chunk)
        atomic_write_bytes(path, df.to_csv(index=False).encode())
    if progress:
        progress(st.games, p.index, st.games)
    return st.games, 1


# --------------------------------------------------------------------------------------------
# the Python API


class StudyResult:
    """A finished (or partial) study folder, for notebooks: frames, summaries and charts.

    `frame` is the per-game frame (one row per point, game and side) when the study keeps per-game
    rows, else the per-chunk frame (one row per point, chunk and side with each metric's sum over
    the chunk's games); odds studies give their answers, one row per point and outcome.
    """

    def __init__(self, out: str | Path):
        from napsim.output import report

        self.out = Path(out)
        self.data = report.load(self.out)

    @property
    def meta(self) -> dict:
        return self.data.meta

    @property
    def frame(self) -> pd.DataFrame:
        from napsim.output import report

        if self.data.kind == "odds":
            return report.odds_frame(self.data)
        if self.meta["spec"]["per_game"]:
            return report.per_game_frame(self.data)
        return report.chunk_frame(self.data)

    def summary(self, metrics: list[str] | None = None) -> pd.DataFrame:
        """Tidy summary: one row per point, side and metric (value, std, 95% interval, n)."""
        from napsim.output import report

        df = report.summary_frame(self.data)
        if metrics is not None:
            df = df[df["metric"].isin(metrics) if "metric" in df else df["label"].isin(metrics)]
        return df.reset_index(drop=True)

    def plot(self, kind: str = "main", metric: str | None = None, ax=None):
        """A matplotlib Figure: kind = main | sweep | convergence | distribution | rack_wait |
        heatmap (engine) or odds (odds studies); `metric` picks the metric where it applies."""
        from napsim.output import charts, report

        return charts.figure(report.chart_inputs(self.data), kind, metric=metric, ax=ax)

    def report(self, dest: str | Path | None = None) -> Path:
        """Write report.md / report.html / CSVs / charts into `dest` (default: the run folder)."""
        from napsim.output import report

        return report.write_report(self.out, dest)

    def __repr__(self) -> str:
        return f"StudyResult({self.meta['spec']['name']!r}, {len(self.meta['points'])} points, {self.out})"


def run_study(path: str | Path, out: str | Path | None = None, force: bool = False,
              target_error: float | None = None, progress: ProgressFn | None = None,
              report: bool = False, threads: int | None = None, runner=None) -> StudyResult:
    """Run (or resume) a study and return its `StudyResult`. Without `out` the results go to
    ``out/<study name>`` under the current folder, so a second call resumes instead of rerunning.
    `threads` and `runner` as in `execute` (e.g. ``runner=napsim.backends.DaskRunner(...)``)."""
    st = load_study(path)
    out = Path(out) if out is not None else Path("out") / st.name
    execute(st, out, force=force, target_error=target_error, progress=progress, threads=threads,
            runner=runner)
    res = StudyResult(out)
    if report:
        res.report()
    return res
