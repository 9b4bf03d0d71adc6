"""The study file: a TOML file that names a scenario, deck, policies and a sweep grid.

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
``sides.A.sections.L.infantry``), ``deck``, ``policy.<side>`` (a policy name, or one policy with
parameters over the side's own: ``"greedy:keep_weight=0.75;scout_bonus=0.5"``) and
``policy.<side>.<param>``. A ``*`` in place of a side key (or of a section) sets every side (every
section) to the same value: a symmetric sweep. Unknown paths are rejected naming the valid ones.

``kind = "odds"`` answers `napsim.sim.odds` questions (``[[questions]]`` tables with ``ask = "rack" |
"at_least" | "same_section" | "first" | "orders" | "mulligan"`` and their arguments) for every
sweep point over ``deck`` and ``hand``.

How a study runs (chunks, common random numbers, resume, target error): `napsim.study.runloop`.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from dataclasses import dataclass, field
from pathlib import Path

from napsim.engine import layout
from napsim.model.cards import Deck, load_deck, resolve_deck_path
from napsim.model.defaults import MAX_CHUNKS, MAX_DECK_ENSEMBLE, MAX_GAMES, SEED, STUDY_CHUNK
from napsim.model.errors import (
    NapsimInputError,
    check_keys,
    excerpt,
    get_bool,
    get_choice,
    get_float,
    get_int,
    get_str,
)
from napsim.model.policies import PARAMS, parse_policy_option, policy_vector
from napsim.model.scenarios import (
    RULE_OPTIONS,
    SCENARIO_KEYS,
    SECTION_KEYS,
    SIDE_KEYS,
    load_scenario,
    read_toml,
    resolve_scenario_path,
)
from napsim.sim.metric_table import metric_names, per_game_columns
from napsim.sim.odds import check_question
from napsim.sim.packing import Simulation
from napsim.study.chunks import study_identity

STUDY_KINDS = ("engine", "odds")
ENGINE_KEYS = (
    "name", "kind", "description", "scenario", "deck", "policies", "games", "target_error", "max_games",
    "seed", "chunk", "main_metric", "main_side", "metrics", "distribution", "per_game", "deck_ensemble",
)
ODDS_KEYS = ("name", "kind", "description", "deck", "hand", "games", "seed", "chunk")
TOP_KEYS = ("study", "set", "sweep", "questions")
ODDS_ASKS = {
    "at_least": ("filter", "k"), "rack": ("section",), "same_section": (), "first": ("filter",),
    "orders": (), "mulligan": ("keep", "mulligan_below", "target"),
}
MAX_POINTS = 10_000  # sweep points a study may have
DEFAULT_METRICS = ("effective_per_turn", "effective_per_turn_L", "effective_per_turn_C",
                   "effective_per_turn_R", "effective_share_of_nominal", "share_picks_from_5",
                   "share_picks_from_4", "share_picks_from_3", "same_section_turn_rate",
                   "scout_turn_rate")


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
    deck_ensemble: int | None = None  # plausible decks for the main metric's spread (not in the identity)
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

    def check_target_error(self, target_error: float | None) -> None:
        """A command-line target error, refused before anything starts (an odds study plays a
        fixed number of games; an engine study takes (0, 0.5])."""
        if target_error is None:
            return
        problem = ("odds studies run a fixed number of games" if self.kind == "odds"
                   else None if 0 < target_error <= 0.5 else f"{target_error} is out of range")
        if problem:
            raise NapsimInputError("--target-error", "target_error", problem,
                                   "leave it out" if self.kind == "odds" else "numbers in (0, 0.5]")

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
                        else:  # a name, or 'name:param=value;...' over the side's parameters
                            name, params = _point_policy(value, path)
                            policies[i] = (name, {**policies[i][1], **params})
            else:
                for p in _expand(path, self.side_keys):
                    overrides[p] = _resolve_file(value, self.path, ".csv") if p == "scenario.deck" \
                        else value
        return overrides, deck, policies

    def load_point(self, point: Point):
        """(Scenario, Deck, policies) of a point, validated; errors name the study and point."""
        try:
            overrides, deck, policies = self.point_inputs(point)
            sc = load_scenario(self.scenario, overrides)
            dk = _load_deck(deck or sc.deck)
            for key, (name, o) in zip(self.side_keys, policies, strict=True):
                policy_vector(name, o, where=f"policy.{key}")
            hand = max(s.hand for s in sc.sides)
            if hand + 1 > layout.MAX_HAND:
                raise NapsimInputError("sides", "hand", f"{hand} is too large", f"1-{layout.MAX_HAND - 1}")
        except NapsimInputError as e:
            raise NapsimInputError(self.where("sweep" if point.params else "study"), None,
                                   f"point {point.id} ({point.label or 'no sweep'}): {e}") from None
        return sc, dk, policies

    def build(self, point: Point):
        """The `Simulation` of one engine point."""
        sc, dk, policies = self.load_point(point)
        return Simulation.build(sc, policies, dk)

    def chunk_ranges(self, games: int | None = None) -> list[tuple[int, int]]:
        """(first game, games) of each chunk: a pure function of the game count and chunk size."""
        n = self.cap if games is None else games
        return [(f, min(self.chunk, n - f)) for f in range(0, n, self.chunk)]

    def identity(self) -> dict:
        """Everything a stored result depends on; its hash keys the output folder
        (`napsim.study.chunks.study_identity`)."""
        return study_identity(self)

    # ---- odds points -> inputs

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


def _point_policy(value, path: str) -> tuple[str, dict]:
    """A value of `policy.<side>`: 'lookahead' or 'greedy:keep_weight=0.75;scout_bonus=0.5' (one
    policy: its name and parameters); the names and values are checked when the point loads."""
    if not isinstance(value, str) or ":" not in value:
        return value, {}
    parsed = parse_policy_option(value, where=path)
    if len(parsed) != 1:
        raise NapsimInputError(path, "policy", f"{excerpt(value)!r} names more than one policy",
                               "one policy a value: 'name' or 'name:param=value;param=value'")
    name, params = parsed[0]
    return name, {k: _num(v) for k, v in params.items()}


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


def load_study(path: str | Path) -> Study:
    """Read and validate a study file; every problem is one NapsimInputError line."""
    path = Path(path)
    if not path.is_file():
        raise NapsimInputError(str(path), None, "study file not found")
    data, raw = read_toml(path)
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
    games = get_int(w, head, "games", 1, MAX_GAMES, None)
    target = get_float(w, head, "target_error", 1e-9, 0.5, None) if "target_error" in head else None
    max_games = get_int(w, head, "max_games", 1, MAX_GAMES, None)
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
                               hint="remove it, or set target_error")
    cap = max_games if target is not None else games
    if cap is not None and -(-cap // chunk) > MAX_CHUNKS:
        raise NapsimInputError(w, "chunk", f"{cap:,} games in chunks of {chunk:,} make "
                               f"{-(-cap // chunk):,} chunk files per point",
                               f"at most {MAX_CHUNKS:,}: a larger chunk")

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
    n_points = math.prod(len(v) for v in sweep.values())  # before the product is built
    if n_points > MAX_POINTS:
        raise NapsimInputError(f"{where}: [sweep]", None, f"{n_points:,} sweep points",
                               f"at most {MAX_POINTS:,}")
    combos = itertools.product(*sweep.values()) if sweep else [()]
    points = []
    for i, combo in enumerate(combos):
        params = {}
        for key, value in zip(sweep, combo, strict=True):
            paths = key.split("+")
            params.update(zip(paths, value if len(paths) > 1 else [value], strict=True))
        label = ", ".join(f"{k}={v}" for k, v in params.items())
        points.append(Point(i, f"p{i:03d}", params, label))

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
    sc_raw, _ = read_toml(resolve_scenario_path(st.scenario))
    sides = sc_raw.get("sides")
    st.side_keys = tuple(sides) if isinstance(sides, dict) else ()
    for table, paths in (("set", st.fixed), ("sweep", st.sweep)):
        for p in paths:
            for q in p.split("+") if table == "sweep" else [p]:
                _check_engine_path(st, f"{st.path}: [{table}]", q)
    st.per_game = get_bool(w, head, "per_game", False)
    st.deck_ensemble = get_int(w, head, "deck_ensemble", 1, MAX_DECK_ENSEMBLE, None)
    valid = metric_names()
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
    sides = "|".join([*side_keys, "*"])
    side_fields = "|".join(k for k in SIDE_KEYS if k not in ("sections", "name"))
    params = "|".join(k for k in PARAMS if k != "kind")
    return [f"scenario.<{'|'.join(scenario_fields())}>", f"sides.<{sides}>.<{side_fields}>",
            f"sides.<{sides}>.sections.<L|C|R|*>.<{'|'.join(SECTION_KEYS)}>", "deck",
            f"rules.<{'|'.join(RULE_OPTIONS)}>", f"policy.<{sides}>", f"policy.<{sides}>.<{params}>"]


def scenario_fields() -> list[str]:
    """The [scenario] values a study may set: every key but the descriptive ones."""
    return [k for k in SCENARIO_KEYS if k not in ("name", "description", "examples")]


def _check_engine_path(st: Study, where: str, path: str) -> None:
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
    _check_odds_points(st)


def _check_odds_points(st: Study) -> None:
    """Every question must make sense at every point (filter, k, hand); a well-formed filter may
    match no card of one deck (that answer is "not applicable") but must match in some deck."""
    matched = [False] * len(st.questions)
    for p in st.points:
        deck, hand = st.odds_inputs(p)
        try:
            if isinstance(hand, bool) or not isinstance(hand, int) or not 1 <= hand <= 60:
                raise NapsimInputError("hand", None, f"{excerpt(repr(hand))} is not a hand size",
                                       "integers 1-60")
            dk = load_deck(deck)
            for i, q in enumerate(st.questions):
                try:
                    matched[i] |= check_question(q, dk, hand)
                except NapsimInputError as e:
                    raise NapsimInputError(f"[[questions]] #{i + 1} ({excerpt(q['label'])})", None,
                                           str(e)) from None
        except NapsimInputError as e:
            table = "sweep" if p.params else "study"
            raise NapsimInputError(f"{st.path}: [{table}]", None,
                                   f"point {p.id} ({p.label or 'no sweep'}): {e}") from None
    for i, q in enumerate(st.questions):
        if not matched[i]:
            key = "filter" if "filter" in q else "keep"
            raise NapsimInputError(f"{st.path}: [[questions]] #{i + 1}", key,
                                   f"'{excerpt(q.get('filter', q.get('keep')))}' matches no card in any "
                                   "deck of the study", "a filter that matches at least one card")


_DECKS: dict[tuple[str, bytes], Deck] = {}  # (deck file, its bytes) -> the Deck parsed from them
_DECKS_MAX = 32


def _load_deck(ref: str | Path) -> Deck:
    """`load_deck`, parsing each deck file once per content: a study loads its deck for every point,
    several times (courier_rack: 71 loads of 8.8 ms). The file is read on every call, so an edited
    file is parsed anew; a Deck is frozen, so sharing one is safe."""
    path = resolve_deck_path(ref)
    key = (str(path), path.read_bytes())
    deck = _DECKS.get(key)
    if deck is None:
        deck = load_deck(path)
        if len(_DECKS) >= _DECKS_MAX:
            _DECKS.pop(next(iter(_DECKS)))
        _DECKS[key] = deck
    return deck
