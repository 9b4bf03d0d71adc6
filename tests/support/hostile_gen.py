"""Hypothesis strategies for hostile inputs (issue 16): broken deck CSVs, scenario TOMLs, study TOMLs
and command lines. Every case is broken on purpose by one mutation that napsim must refuse (a wrong
type, an out-of-range or huge number, a missing or unknown key or column, binary content, a bad
encoding), dressed in harmless variations (line endings, a byte-order mark) that must not matter.

Each strategy draws a `Case`: `files` to write into a fresh work folder and `argv`, in which the
placeholder `{work}` stands for that folder. `support.hostile.run_cli` runs it; the case passes when
the outcome is a clean refusal.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import strategies as st

from napsim.model.cards import COLUMNS, HEADER_KEYS
from napsim.model.policies import PARAMS as POLICY_PARAMS
from napsim.model.scenarios import SCENARIO_KEYS, SECTION_KEYS, SIDE_KEYS
from support.hostile import GMT90, OUT, SYMMETRIC
from support.tomlwrite import dump_toml

WORK = "{work}"
# generated cases per file kind: 50 in the default run (NAPSIM_HOSTILE_EXAMPLES=N for another
# number), 1,000 each in the full sweeps that `pytest -m slow` runs
EXAMPLES = int(os.environ.get("NAPSIM_HOSTILE_EXAMPLES") or 50)
FULL_EXAMPLES = 1000


@dataclass
class Case:
    kind: str
    argv: list[str]
    files: dict[str, bytes] = field(default_factory=dict)
    what: str = ""

    def materialize(self, work: Path) -> list[str]:
        for name, data in self.files.items():
            (work / name).write_bytes(data)
        return [a.replace(WORK, str(work)) for a in self.argv]


# ---------------------------------------------------------------------------------------------
# harmless variations

def _dress(draw, text: str) -> bytes:
    """Line endings LF or CRLF and an optional UTF-8 byte-order mark: neither may change a verdict."""
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    bom = draw(st.booleans())
    return (b"\xef\xbb\xbf" if bom else b"") + text.replace("\n", ending).encode("utf-8", "surrogatepass")


_JUNK_TEXT = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1, max_size=12)
_CONTROL = st.sampled_from([chr(c) for c in (*range(0, 9), 11, 12, *range(14, 32), 127, 0x85, 0x9b)])
_BAD_UTF8 = st.sampled_from([b"\xff", b"\xfe\xff", b"\xc3", b"\xed\xa0\x80", b"\x80abc", b"\xf8\x88"])
_HUGE = st.one_of(st.integers(10**12, 10**40), st.integers(-(10**40), -1))


# ---------------------------------------------------------------------------------------------
# deck CSV

_DECK_TEXT = GMT90.decode()
_DECK_HEAD = [ln for ln in _DECK_TEXT.splitlines() if ln.startswith("#")]
_DECK_COLS = next(csv.reader([next(ln for ln in _DECK_TEXT.splitlines() if not ln.startswith("#"))]))
_DECK_ROWS = [r for r in csv.DictReader(io.StringIO("\n".join(
    ln for ln in _DECK_TEXT.splitlines() if not ln.startswith("#"))))]
_INT_COLS = {"count": (0, 999), "orders_l": (0, 9), "orders_c": (0, 9), "orders_r": (0, 9),
             "equal_to_command": (0, 1), "stars": (0, 3), "tactician_draw": (0, 1), "scout": (0, 1),
             "elan": (0, 1), "first_strike": (0, 1), "counter_attack": (0, 1), "force_march": (0, 1),
             "take_command": (0, 1), "fallback": (0, 1)}
_CHOICE_COLS = ("kind", "section", "unit_filter", "confidence", "cap")


def _csv_text(head: list[str], cols: list[str], rows: list[list[str]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    w.writerows(rows)
    return "".join(h + "\n" for h in head) + buf.getvalue()


@st.composite
def broken_deck(draw) -> tuple[bytes, str]:
    """(file bytes, what was broken) of a deck file that napsim must refuse."""
    head = list(_DECK_HEAD)
    cols = list(_DECK_COLS)
    rows = [[r[c] for c in cols] for r in _DECK_ROWS]
    i = draw(st.integers(0, len(rows) - 1))
    how = draw(st.sampled_from(["int", "huge", "choice", "drop_col", "add_col", "dup_col", "dup_name",
                                "width", "header", "total", "tactician", "control", "utf8", "empty_name",
                                "cr_in_field", "no_table", "binary"]))
    if how == "int":
        col = draw(st.sampled_from(sorted(_INT_COLS)))
        lo, hi = _INT_COLS[col]
        bad = draw(st.one_of(st.integers(hi + 1, 10**6).map(str), st.integers(-(10**6), lo - 1).map(str),
                             st.sampled_from(["1.5", "x", "1e3", "+1", "1_0", "٣", "0x1", "--1"])))
        rows[i][cols.index(col)] = bad
    elif how == "huge":
        rows[i][cols.index(draw(st.sampled_from(sorted(_INT_COLS))))] = str(draw(_HUGE))
    elif how == "choice":
        col = draw(st.sampled_from(_CHOICE_COLS))
        rows[i][cols.index(col)] = draw(st.sampled_from(["dragon", "LL", "sec tion", "100", "-1", "=",
                                                         "ALL", "Section", "x" * 200]))
    elif how == "drop_col":
        j = cols.index(draw(st.sampled_from(COLUMNS)))
        cols.pop(j)
        for r in rows:
            r.pop(j)
    elif how == "add_col":
        name = draw(_JUNK_TEXT.filter(lambda s: s.strip() not in (*COLUMNS, "unit_class")
                                      and "," not in s and '"' not in s and s.strip()))
        cols.append(name)
        for r in rows:
            r.append("1")
    elif how == "dup_col":
        j = draw(st.integers(0, len(cols) - 1))
        cols.append(cols[j])
        for r in rows:
            r.append(r[j])
    elif how == "dup_name":
        j = draw(st.integers(0, len(rows) - 1).filter(lambda j: j != i))
        rows[j][0] = rows[i][0]
    elif how == "width":
        rows[i] = rows[i][:-1] if draw(st.booleans()) else [*rows[i], "extra"]
    elif how == "header":
        key = draw(st.text("abcdefghijklmnopqrstuvwxyz_ ", min_size=1, max_size=15).filter(
            lambda k: k.strip().lower() not in HEADER_KEYS))
        head.insert(draw(st.integers(0, len(head))), f"# {key}: {draw(_JUNK_TEXT)}")
    elif how == "total":
        head = [h for h in head if not h.startswith("# total")]
        head.append(f"# total: {draw(st.sampled_from(['89', '91', '0', '-1', 'ninety', '10001']))}")
    elif how == "tactician":
        head = [h for h in head if not h.startswith("# tactician_deck")]
        head.append(f"# tactician_deck: {draw(st.sampled_from(['-1', '1000', 'x', '', '2.5']))}")
    elif how == "control":
        col = draw(st.integers(0, len(cols) - 1))
        v = rows[i][col]
        k = draw(st.integers(0, len(v)))
        rows[i][col] = v[:k] + draw(_CONTROL) + v[k:]
    elif how == "empty_name":
        rows[i][0] = draw(st.sampled_from(["", " ", "  \t"]))
    elif how == "cr_in_field":
        name = rows[i][0]
        k = draw(st.integers(1, len(name) - 1))
        rows[i][0] = name[:k] + "\r" + name[k:]  # a bare CR ends the line: the row splits
    elif how == "no_table":
        cols, rows = [], []
    text = _csv_text(head, cols, rows) if cols else "\n".join(head) + "\n"
    if how == "cr_in_field":
        text = text.replace('"', "")  # the csv module quoted the field; a stray CR is unquoted
    data = _dress(draw, text)
    if how == "utf8":
        k = draw(st.integers(0, len(data)))
        data = data[:k] + draw(_BAD_UTF8) + data[k:]
    elif how == "binary":
        data = draw(st.binary(min_size=1, max_size=400).filter(lambda b: b"\x00" in b or not _utf8(b)))
    return data, how


def _utf8(b: bytes) -> bool:
    try:
        b.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@st.composite
def deck_cases(draw) -> Case:
    data, how = draw(broken_deck())
    cmd = draw(st.sampled_from(["show", "show", "odds", "simulate"]))
    path = f"{WORK}/deck.csv"
    argv = {"show": ["decks", "show", path],
            "odds": ["odds", "at-least", "--deck", path, "--filter", "kind=multi", "--games", "10"],
            "simulate": ["simulate", "--scenario", "symmetric", "--deck", path, "--games", "2", "--out",
                         f"{WORK}/{OUT}"]}[cmd]
    return Case(f"deck CSV ({cmd})", argv, {"deck.csv": data}, how)


# ---------------------------------------------------------------------------------------------
# TOML documents: the mutations every file kind shares

def _tables(doc: dict, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    for k, v in doc.items():
        if isinstance(v, dict):
            out += _tables(v, (*prefix, k))
    return out


def _leaves(doc: dict, prefix: tuple = ()) -> list[tuple]:
    out = []
    for k, v in doc.items():
        out += _leaves(v, (*prefix, k)) if isinstance(v, dict) else [(*prefix, k)]
    return out


def _node(doc: dict, path: tuple) -> dict:
    for k in path:
        doc = doc[k]
    return doc


def _wrong_type(draw, value):
    """A value of another TOML type than `value` (never a valid stand-in for it)."""
    if isinstance(value, bool):
        options = [st.integers(0, 1), st.text(max_size=5), st.just([True])]
    elif isinstance(value, int):
        options = [st.text(max_size=8), st.just(1.5), st.booleans(), st.just([value]), st.just({"x": 1})]
    elif isinstance(value, float):
        options = [st.text(max_size=8), st.booleans(), st.just([value]), st.just({"x": 1.0})]
    elif isinstance(value, str):
        options = [st.integers(), st.booleans(), st.just(1.5), st.just({"x": value})]
    else:
        options = [st.integers(), st.text(max_size=5), st.just({"x": 1})]
    return draw(st.one_of(*options))


def _out_of_range(draw, value):
    """Below every lower bound (all are >= 0) or above every upper bound (all are < 2**64)."""
    if isinstance(value, float):
        return draw(st.sampled_from([-0.5, 1.5, 1e300, -1e300]))
    return draw(st.one_of(st.integers(-(10**40), -1), st.integers(2**64, 10**40)))


def _syntax(draw, text: str) -> str:
    """TOML that does not parse: a broken line inserted at a line start."""
    lines = text.split("\n")
    k = draw(st.integers(0, len(lines)))
    bad = draw(st.sampled_from(["= 1", "[unclosed", "key = ", 'k = "open', "k = 1 2", "[[]]",
                                "a.b = [1, 2", "x = {", "]", "k = 0x", "k = 1e", "k = tru"]))
    return "\n".join([*lines[:k], bad, *lines[k:]])


@st.composite
def broken_toml(draw, base: dict, required: list[tuple], numeric: list[tuple],
                allowed_keys: dict[tuple, tuple]) -> tuple[bytes, str]:
    """A document built from `base` with one mutation that must be refused: `required` key paths
    may be deleted, the `numeric` leaves set out of range, a table of `allowed_keys` given an
    unknown key, any leaf a value of the wrong type; or the text made unparseable or not UTF-8."""
    doc = copy.deepcopy(base)
    how = draw(st.sampled_from(["missing", "wrong_type", "range", "unknown", "syntax", "utf8",
                                "utf16", "control"]))
    if how == "missing":
        path = draw(st.sampled_from(required))
        del _node(doc, path[:-1])[path[-1]]
    elif how == "wrong_type":
        path = draw(st.sampled_from(_leaves(doc)))
        parent = _node(doc, path[:-1])
        parent[path[-1]] = _wrong_type(draw, parent[path[-1]])
    elif how == "range":
        path = draw(st.sampled_from(numeric))
        parent = _node(doc, path[:-1])
        parent[path[-1]] = _out_of_range(draw, parent[path[-1]])
    elif how == "unknown":
        table = draw(st.sampled_from(sorted(allowed_keys)))
        key = draw(st.text("abcdefghijklmnopqrstuvwxyz_0123456789", min_size=1, max_size=12).filter(
            lambda k, t=table: k not in allowed_keys[t]))
        _node(doc, table)[key] = draw(st.one_of(st.integers(0, 5), st.text(max_size=5)))
    elif how == "control":
        strings = [p for p in _leaves(doc) if isinstance(_node(doc, p[:-1])[p[-1]], str)]
        path = draw(st.sampled_from(strings))
        parent = _node(doc, path[:-1])
        parent[path[-1]] = parent[path[-1]] + draw(_CONTROL.filter(lambda c: c not in "\t\n\r"))
    text = dump_toml(doc)
    if how == "syntax":
        text = _syntax(draw, text)
    data = _dress(draw, text)
    if how == "utf8":
        k = draw(st.integers(0, len(data)))
        data = data[:k] + draw(_BAD_UTF8) + data[k:]
    elif how == "utf16":
        data = text.encode("utf-16")
    return data, how


# ---------------------------------------------------------------------------------------------
# scenario TOML

_SCENARIO = tomllib.loads(SYMMETRIC.decode())
# a [policy.<side>] table (what `napsim tune` prints): its fields are mutated like the others
_SCENARIO["policy"] = {"A": {"name": "lookahead", "lookahead_k": 4, "march_prob": 0.5}}
_SCEN_REQUIRED = ([("scenario", k) for k in ("name", "format", "deck", "turns", "first")]
                  + [("sides", s, k) for s in "AB" for k in ("name", "hand", "tactician", "sections")]
                  + [("sides", s, "sections", x, u) for s in "AB" for x in "LCR"
                     for u in ("infantry", "cavalry", "artillery", "leaders")]
                  + [("scenario",), ("sides",), ("sides", "A")])
_SCEN_NUMERIC = ([("scenario", "turns")] + [("sides", s, k) for s in "AB" for k in ("hand", "tactician")]
                 + [("sides", s, "sections", x, u) for s in "AB" for x in "LCR"
                    for u in ("infantry", "cavalry", "artillery", "leaders")]
                 + [("sides", "A", "square_form"), ("policy", "A", "lookahead_k"),
                    ("policy", "A", "march_prob")])
_SCEN_ALLOWED = {(): ("scenario", "sides", "rules", "policy"), ("scenario",): SCENARIO_KEYS,
                 ("policy",): ("A", "B"), ("policy", "A"): ("name", *POLICY_PARAMS),
                 ("sides", "A"): SIDE_KEYS, ("sides", "B"): SIDE_KEYS,
                 **{("sides", s, "sections", x): SECTION_KEYS for s in "AB" for x in "LCR"}}


@st.composite
def scenario_cases(draw) -> Case:
    data, how = draw(broken_toml(_SCENARIO, _SCEN_REQUIRED, _SCEN_NUMERIC, _SCEN_ALLOWED))
    path = f"{WORK}/scenario.toml"
    if draw(st.booleans()):
        argv = ["simulate", "--scenario", path, "--games", "2", "--out", f"{WORK}/{OUT}"]
    else:
        argv = ["trace", "--scenario", path, "--game", "0"]
    return Case(f"scenario TOML ({argv[0]})", argv, {"scenario.toml": data}, how)


# ---------------------------------------------------------------------------------------------
# study TOML

_ENGINE_STUDY = {"study": {"name": "hostile", "scenario": "symmetric", "games": 4, "chunk": 2, "seed": 7,
                           "policies": ["greedy", "random"], "main_metric": "effective_per_turn",
                           "per_game": False},
                 "set": {"scenario.turns": 5}, "sweep": {"sides.*.hand": [5, 6]}}
_ODDS_STUDY = {"study": {"name": "hostile", "kind": "odds", "games": 10, "deck": "gmt90", "hand": 6,
                         "chunk": 5, "seed": 3},
               "sweep": {"hand": [5, 6]},
               "questions": [{"ask": "at_least", "filter": "kind=multi", "k": 1, "label": "multi"}]}
_STUDY_NUMERIC = [("study", "games"), ("study", "chunk"), ("study", "seed")]
_ENGINE_KEYS = ("name", "kind", "description", "scenario", "deck", "policies", "games", "target_error",
                "max_games", "seed", "chunk", "main_metric", "main_side", "metrics", "distribution",
                "per_game")
_ODDS_KEYS = ("name", "kind", "description", "deck", "hand", "games", "seed", "chunk")


@st.composite
def _study_special(draw, kind: str) -> tuple[bytes, str]:
    """Mutations of the sweep and the questions."""
    doc = copy.deepcopy(_ENGINE_STUDY if kind == "engine" else _ODDS_STUDY)
    how = draw(st.sampled_from(["sweep_path", "sweep_empty", "sweep_value", "huge_grid", "name"]
                               + (["question"] * 3 if kind == "odds" else ["policy"])))
    if how == "sweep_path":
        doc["sweep"] = {draw(st.sampled_from(["sides.C.hand", "scenario.nope", "policy.Z", "sides",
                                              "x.y.z", "", "hand.deck", "sides.*.sections.Q.infantry"])): [1]}
    elif how == "sweep_empty":
        doc["sweep"] = {next(iter(doc["sweep"])): draw(st.sampled_from([[], 5, "x", [[1, 2]]]))}
    elif how == "sweep_value":
        doc["sweep"] = {next(iter(doc["sweep"])): [5, draw(st.sampled_from([0, -1, 61, 10**9, "six", 6.5]))]}
    elif how == "huge_grid":
        n = draw(st.integers(101, 3000))
        doc["sweep"] = {"sides.*.hand" if kind == "engine" else "hand": list(range(n)),
                        "deck": [f"d{i}" for i in range(n)]}
    elif how == "name":
        doc["study"]["name"] = draw(st.sampled_from(["", "../x", "a/b", ".hidden", "x\\y"]))
    elif how == "policy":
        doc["study"]["policies"] = draw(st.sampled_from([["greedy"], ["nope", "greedy"], "greedy",
                                                         ["greedy:w_c=x", "greedy"], [1, 2],
                                                         ["greedy,random", "greedy"]]))
    else:
        q = doc["questions"][0]
        q.update(draw(st.sampled_from([
            {"k": 0}, {"k": -1}, {"k": 7}, {"k": 10**6}, {"filter": "kind=dragon"},
            {"filter": "kind==section"}, {"filter": "category=nothing"}, {"filter": ""},
            {"filter": "stars>=x"}, {"filter": "nofield=1"}, {"ask": "nope"}, {"ask": "rack"},
            {"ask": "mulligan"}, {"filter": 5}])))
    return _dress(draw, dump_toml(doc)), how


@st.composite
def study_cases(draw) -> Case:
    kind = draw(st.sampled_from(["engine", "odds"]))
    base = _ENGINE_STUDY if kind == "engine" else _ODDS_STUDY
    required = [("study", "name"), ("study",), ("study", "games")]
    required.append(("study", "scenario") if kind == "engine" else ("questions",))
    allowed = {(): ("study", "set", "sweep", "questions"),
               ("study",): _ENGINE_KEYS if kind == "engine" else _ODDS_KEYS}
    data, how = draw(st.one_of(broken_toml(base, required, _STUDY_NUMERIC, allowed), _study_special(kind)))
    argv = ["run", f"{WORK}/study.toml", "--out", f"{WORK}/{OUT}", "--no-report"]
    return Case(f"study TOML ({kind})", argv, {"study.toml": data}, how)


# ---------------------------------------------------------------------------------------------
# command lines

_BAD_INT = st.one_of(st.integers(-(10**30), -1).map(str), st.integers(2**63, 2**80).map(str),
                     st.sampled_from(["", "x", "1.5", "1e6", "0x10", "--", " "]))
_BAD_FILTER = st.one_of(
    st.sampled_from(["", "kind==section", "kind=dragon", "section=X", "kind=section&", "|", "stars>=x",
                     "nofield=1", "orders_in=Q", "orders_in>=1", "name>=x", "stars>=10000000",
                     "category=nothing-at-all", "unit_filter=tank", "kind", "=multi", "kind=multi|"]),
    st.text("abcxyz=<>!&|, ", min_size=1, max_size=20),  # no field name is made of these letters
)


def _opt(name: str, values) -> st.SearchStrategy:
    """(option, one bad value) with the values a list or a strategy."""
    values = values if isinstance(values, st.SearchStrategy) else st.sampled_from(values)
    return st.tuples(st.just(name), values)


@st.composite
def cli_cases(draw) -> Case:
    """One command with one bad option value (or a missing or unknown option)."""
    out = ["--out", f"{WORK}/{OUT}"]
    cmd = draw(st.sampled_from(["simulate", "trace", "odds at-least", "odds first", "odds orders",
                                "odds rack", "odds mulligan", "odds report", "odds same-section",
                                "decks show", "report", "run"]))
    if cmd == "simulate":
        base = ["simulate", "--scenario", "symmetric", "--games", "2", *out]
        bad = draw(st.one_of(
            _opt("--games", st.one_of(_BAD_INT, st.just("0"), st.integers(10**11 + 1, 10**20).map(str))),
            _opt("--seed", _BAD_INT), _opt("--chunk", ["0", "-5"]),
            _opt("--policy", ["greedy", "nope,greedy", "greedy,greedy,greedy", "greedy:w_c=x,greedy", ",",
                              "greedy:zz=1,random"]),
            _opt("--set", ["=5", "nokey", "sides.Z.hand=3", "sides.A.hand=99", 'scenario.turns="x"', ".=1",
                           "a..b=1", "sides.A.hand=0", "rules.nope=1"]),
            _opt("--deck", ["nope", "../decks/gmt90", "missing.csv", "/", "."]),
            _opt("--threads", ["0", "-1", "100000"]),
        ))
    elif cmd == "trace":
        base = ["trace", "--scenario", "symmetric", "--game", "0"]
        bad = draw(st.one_of(_opt("--game", _BAD_INT), _opt("--seed", _BAD_INT),
                             _opt("--scenario", ["nope", "../x", "x.toml", "/"])))
    elif cmd == "decks show":
        base = ["decks", "show"]
        bad = (draw(st.sampled_from(["nope", "../decks/gmt90", "../../../../etc/passwd", "/", "x.csv",
                                     "/dev/null", "..", "gmt90/"])),)
    elif cmd == "report":
        base = ["report", "--dest", f"{WORK}/{OUT}"]
        bad = (draw(st.sampled_from([f"{WORK}/nothing", f"{WORK}", "/"])),)
    elif cmd == "run":
        base = ["run", f"{WORK}/study.toml", *out]
        bad = draw(st.sampled_from([("--threads", "0"), ("--dask-local", "0"), ("--target-error", "-1"),
                                    ("--scheduler", "nope"), ("--threads", "1", "--dask-local", "2")]))
        base[1] = draw(st.sampled_from([f"{WORK}/missing.toml", "studies/deck_odds.toml"]))
        if base[1].startswith("studies"):
            base[1] = str(Path(__file__).parents[2] / base[1])
    else:
        sub = cmd.split()[1]
        base = ["odds", sub, "--games", "10"]
        if sub in ("at-least", "first"):
            base += ["--filter", "kind=multi"]
        if sub == "rack":
            base += ["--section", "C"]
        if sub == "mulligan":
            base += ["--deck", "epic-tcg-sealed30", "--keep", "category=early", "--mulligan-below", "1",
                     "--target", "1"]
        options = [_opt("--games", st.one_of(_BAD_INT, st.just("0"))), _opt("--seed", _BAD_INT),
                   _opt("--chunk", ["0", "-1"]), _opt("--deck", ["nope", "../decks/gmt90", "/dev/null"]),
                   _opt("--format", ["xml"]), st.just(("--bogus",))]
        if sub not in ("rack", "first"):
            # same-section takes --hand 0 (the rack alone)
            zero = [] if sub == "same-section" else ["0"]
            options.append(_opt("--hand", ["-1", "91", "1000", "x", *zero]))
        if sub == "at-least":
            options += [_opt("-k", ["-1", "0", "7", "1000", "x"]), _opt("--filter", _BAD_FILTER)]
        if sub == "first":
            options.append(_opt("--filter", _BAD_FILTER))
        if sub == "mulligan":
            options += [_opt("--keep", _BAD_FILTER), _opt("--mulligan-below", ["-1", "7", "x"]),
                        _opt("--target", ["-1", "6", "x"])]
        if sub == "rack":
            options.append(_opt("--section", ["X", "", "l", "LC"]))
        bad = draw(st.one_of(*options))
    return Case(f"CLI {cmd.split()[0]}", [*base, *bad], {}, " ".join(bad)[:60])


# ---------------------------------------------------------------------------------------------
# study.json of a run folder (read by `napsim report` and `napsim run`)

def _json_paths(node, prefix: tuple = ()) -> list[tuple]:
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _json_paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _json_paths(v, (*prefix, i))
    return out


_JSON_JUNK = st.one_of(st.none(), st.booleans(), st.integers(-(10**30), 10**30), st.floats(allow_nan=False),
                       st.text(max_size=10), st.just([]), st.just({}), st.just([1]), st.just({"a": 1}),
                       st.just("../../x"))


@st.composite
def broken_meta(draw, meta: dict) -> tuple[bytes, str]:
    """study.json text with one value replaced or deleted (anywhere but the identity record), or
    not JSON at all. napsim may accept a harmless change (a label) but must never crash."""
    how = draw(st.sampled_from(["replace", "replace", "delete", "truncate"]))
    doc = copy.deepcopy(meta)
    text = None
    if how == "truncate":
        full = json.dumps(meta)
        text = full[: draw(st.integers(0, len(full) - 1))]
    else:
        path = draw(st.sampled_from([p for p in _json_paths(doc) if p[0] != "identity"]))
        parent = _node(doc, path[:-1])
        if how == "delete" and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(_JSON_JUNK)
        how = f"{how} {'.'.join(map(str, path))}"
    if text is None:
        text = json.dumps(doc)
    return text.encode(), how
