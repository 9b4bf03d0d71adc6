"""The trace's one table of event fields (layout.TRACE_EVENTS, TRACE_EVENTS_LGB) against the kernels
that write the events and the games they play: every `_trace(...)` call in napsim/engine writes a
code of its family's table, nothing past the fields the table names, and in traced games of every
format and policy kind each named field holds what its name says (a card, a section, a die face, a
count, the side's policy kind, ...). napsim.output.tracefmt and tests/support/tracetools.py read
the fields by these names, so a writer and its reader cannot drift apart unnoticed."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
from support.tracetools import col, field

from napsim.engine import layout
from napsim.model.scenarios import load_scenario
from napsim.sim.packing import Simulation

ENGINE = Path(layout.__file__).parent
TABLES = {"epic": layout.TRACE_EVENTS, "lgb": layout.TRACE_EVENTS_LGB}


def _families(module: str) -> tuple[str, ...]:
    """The kernel families whose events a kernel module writes."""
    if module == "cardflow":
        return ("epic", "lgb")  # the card flow both share
    return ("lgb",) if module.startswith(("lgb", "lookahead_lgb")) else ("epic",)


def trace_calls() -> list[tuple[str, int, str, list[ast.expr]]]:
    """(module, line, event code name, the fields a..h) of every `_trace(...)` call of the engine."""
    out = []
    for path in sorted(ENGINE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "_trace":
                code = node.args[2]
                assert isinstance(code, ast.Name), f"{path.name}:{node.lineno}: code not an EV_ name"
                out.append((path.stem, node.lineno, code.id, node.args[5:]))
    return out


def writer_problems(tables: dict[str, dict]) -> list[str]:
    """What in the kernels' `_trace` calls disagrees with `tables` (family -> events table)."""
    bad = []
    for module, line, name, args in trace_calls():
        where = f"{module}.py:{line} {name}"
        if len(args) != layout.TRACE_FIELDS:
            bad.append(f"{where}: {len(args)} fields, not {layout.TRACE_FIELDS}")
            continue
        for family in _families(module):
            code = getattr(layout, name)
            if code not in tables[family]:
                bad.append(f"{where}: not an event of the {family} table")
                continue
            fields = tables[family][code][1]
            for i, arg in enumerate(args):
                unnamed = i >= len(fields) or fields[i] == "_"
                if unnamed and not (isinstance(arg, ast.Constant) and arg.value == 0):
                    bad.append(f"{where}: field {'abcdefgh'[i]} written, but the {family} table names "
                               f"only {fields}")
    return bad


def test_the_kernels_write_each_event_as_its_table_names_it():
    calls = trace_calls()
    assert len(calls) >= 40  # every writer of the two kernels is seen
    assert writer_problems(TABLES) == []
    # every event of a table has a writer of its family, and every EV_ code is in a table
    written = {(f, getattr(layout, name)) for module, _, name, _ in calls for f in _families(module)}
    for family, table in TABLES.items():
        assert sorted(c for c in table if (family, c) not in written) == [], family
    codes = {v for k, v in vars(layout).items() if k.startswith("EV_")}
    assert codes == set(layout.TRACE_EVENTS) | set(layout.TRACE_EVENTS_LGB)
    for table in TABLES.values():
        for name, fields in table.values():
            named = [f for f in fields if f != "_"]
            assert len(fields) <= layout.TRACE_FIELDS and len(set(named)) == len(named), name


def test_the_writer_check_fails_on_a_table_that_names_too_few_fields():
    short = {f: dict(t) for f, t in TABLES.items()}
    name, fields = short["epic"][layout.EV_CHOICE]
    short["epic"][layout.EV_CHOICE] = (name, fields[:-1])  # policy_kind left out
    assert any("EV_CHOICE" in p for p in writer_problems(short))


# what each field may hold, by name; a field of one event only as (code, name)
CARD = ("card", "hand_card", "rack_card", "kept", "discarded", "given", "plays_as", "hand_plays_as",
        "rack_plays_as")
RANGES = {
    "section": (0, 2), "wing": (0, 2), "corps": (0, 2), "commander": (0, 3), "owner": (0, 3),
    "holder": (0, 3), "die_1": (0, 5), "die_2": (0, 5), "roll": (-1, 5), "outcome": (0, 2),
    "target": (0, 2), "second": (0, 1), "e4": (0, 1), "policy_kind": (0, 2), "rack_cards": (0, 5),
    "hand_cards": (0, layout.MAX_HAND), "hand_size": (0, 99), "option": (-1, 1), "source": (-1, 3),
    "hand_to": (-1, 2), "rack_to": (-1, 2), "hand_place": (-1, 2), "rack_place": (-1, 2),
    "nominal": (-1, 99), "effective_a": (-1, 99), "effective_b": (-1, 99), "score": (-10**9, 10**9),
    (layout.EV_G_ATTEMPT, "section"): (-1, 2), (layout.EV_G_GAIN, "section"): (0, 3),
}
COUNT = (0, 10**6)  # every other field counts something


def event_problems(sim: Simulation, events: np.ndarray, tables: dict[str, dict]) -> list[str]:
    """What in a traced game disagrees with the meaning `tables` gives each field."""
    game_format = sim.scenario.format
    table = tables["lgb" if game_format == "lgb" else "epic"]
    n_cards = len(sim.cards.names)
    bad = []
    for k, row in enumerate(events):
        code, side = int(row[layout.TR_CODE]), int(row[layout.TR_SIDE])
        if code not in table:
            bad.append(f"event {k}: code {code} not in the table")
            continue
        name, fields = table[code]
        past = row[layout.TR_A + len(fields):layout.TR_HAND]
        unnamed = [row[layout.TR_A + i] for i, f in enumerate(fields) if f == "_"]
        if past.any() or any(unnamed):
            bad.append(f"event {k} ({name}): a field the table does not name is written")
        got = {f: int(row[layout.TR_A + i]) for i, f in enumerate(fields) if f != "_"}
        for f, v in got.items():
            lo, hi = ((0, n_cards - 1) if f in CARD or f.startswith("rack_") and f[-1].isdigit() else
                      RANGES.get((code, f), RANGES.get(f, COUNT)))
            if not lo <= v <= hi:
                bad.append(f"event {k} ({name}): {f} = {v}, outside {lo}..{hi}")
        if "policy_kind" in got and got["policy_kind"] != int(sim.policies[side, layout.P_KIND]):
            bad.append(f"event {k} ({name}): policy_kind {got['policy_kind']} is not the side's")
        if code == layout.EV_G_ATTEMPT and (got["roll"] < 0) != (got["outcome"] == layout.G_OUT_DECLINED):
            bad.append(f"event {k} ({name}): a die rolled for a counter kept, or none for one spent")
    return bad


GREEDY, RANDOM = ("greedy", {}), ("random", {})
PLANNED = ("lookahead", {"lookahead_k": 2, "lookahead_d": 1})
# every format, the Guerrilla rules (tamames, epic3-tamames), every policy kind
CASES = [("symmetric", {"scenario.format": "standard"}, (GREEDY, RANDOM)),
         ("tamames", {}, (RANDOM, GREEDY)), ("epic2-talavera", {}, (GREEDY, GREEDY)),
         ("epic3-tamames", {}, (GREEDY, RANDOM)), ("epic4-symmetric", {}, (RANDOM, GREEDY)),
         ("lgb-symmetric", {}, (GREEDY, RANDOM)), ("tamames", {}, (PLANNED, GREEDY)),
         ("formats-armies", {"scenario.format": "lgb"}, (RANDOM, PLANNED))]


@pytest.fixture(scope="module")
def traced() -> list[tuple[Simulation, np.ndarray]]:
    out = []
    for name, changes, policies in CASES:
        sim = Simulation.build(load_scenario(name, changes), policies)
        for game in range(2 if policies[0] is PLANNED or policies[1] is PLANNED else 4):
            out.append((sim, sim.trace(3, game)[1]))
    return out


def test_every_traced_event_holds_what_its_fields_are_named(traced):
    seen = {}
    for sim, events in traced:
        assert event_problems(sim, events, TABLES) == [], sim.scenario.name
        for row in events:
            seen.setdefault(sim.scenario.format == "lgb", set()).add(int(row[layout.TR_CODE]))
    # the games reach the events that carry the checkable fields
    for code in (layout.EV_CHOICE, layout.EV_INITIATIVE, layout.EV_G_ATTEMPT, layout.EV_PASS):
        assert code in seen[False], code
    for code in (layout.EV_GIVE, layout.EV_CORPS_PLAY, layout.EV_INITIATIVE, layout.EV_SCOUT):
        assert code in seen[True], code


def test_the_event_check_fails_on_a_table_with_fields_out_of_order(traced):
    for family, code, i, j in (("epic", layout.EV_CHOICE, 6, 7), ("epic", layout.EV_INITIATIVE, 1, 6),
                               ("lgb", layout.EV_GIVE, 6, 7), ("lgb", layout.EV_SCOUT, 0, 2)):
        swapped = {f: dict(t) for f, t in TABLES.items()}
        name, fields = swapped[family][code]
        f = list(fields)
        f[i], f[j] = f[j], f[i]
        swapped[family][code] = (name, tuple(f))
        assert any(f"({name})" in p for sim, ev in traced for p in event_problems(sim, ev, swapped)), name


def test_tracetools_reads_fields_by_name(traced):
    sim, events = next((s, e) for s, e in traced if s.scenario.format == "lgb")
    play = next(r for r in events if r[layout.TR_CODE] == layout.EV_CORPS_PLAY)
    assert col("lgb", layout.EV_CORPS_PLAY, "source") == layout.TR_A + 1
    assert field(play, "lgb", "corps") == play[layout.TR_A]
    turn = next(r for r in events if r[layout.TR_CODE] == layout.EV_TURN)
    assert field(turn, "lgb", "rack_cards") == turn[layout.TR_A + 1]
