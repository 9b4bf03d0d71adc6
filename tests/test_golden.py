"""Golden digests: one pinned fingerprint per format and rule variant.

Each case plays a fixed number of games from a fixed seed and hashes everything a kernel call
returns (totals, per-game rows, rack waits, Guerrilla and Tactician per-turn counts, commander
metrics). A refactoring must leave every digest as it is; a deliberate rule change refreshes them
with one command, and its commit says why:

    NAPSIM_UPDATE_GOLDEN=1 python -m pytest -q -m "slow or not slow" tests/test_golden.py

The digests are also compared against each other: two cases that play different rules must not
share a digest (a rule switch that changes nothing is a defect too).

Beside the hashes the file keeps each case's sums (under "sums": every metric per side, every
commander metric per side and commander, the per-turn histograms' totals), not hashed: when a
digest breaks, the failure lists the sums that moved, old -> new (none moved: only how they are
spread over the games, or the order of the per-game rows, changed).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest

from napsim.engine.layout import CM_NAMES, METRIC_NAMES
from napsim.engine.rng import seed_key
from napsim.model.scenarios import load_scenario
from napsim.sim.packing import Simulation
from napsim.sim.runner import play_chunk

GOLDEN_FILE = Path(__file__).parent / "golden" / "digests.json"
GAMES = 400
SEED = 20261201
UPDATE = os.environ.get("NAPSIM_UPDATE_GOLDEN") == "1"

# the planning player (P8) on a short budget: open rollouts see the opponent's hand (the planner as
# it was before fair became the default, pinned), fair ones deal it again; both on the full search
# (pinned whatever the default), the halving search's own cases beside them
PLANNED_GAMES = 40
_LA = {"lookahead_k": 4, "lookahead_d": 1, "lookahead_search": "full"}
OPEN = ("lookahead", dict(_LA, lookahead_info="open"))
FAIR = ("lookahead", dict(_LA, lookahead_info="fair"))
HALVING = ("lookahead", dict(_LA, lookahead_info="fair", lookahead_search="halving"))
RACE = ("lookahead", dict(_LA, lookahead_info="fair", lookahead_search="race"))
LGB_GUERRILLA = {  # lgb-symmetric with Spanish Corps commanders on side A against the French B
    "sides.B.french": True, "sides.A.guerrilla_rule": "epic", "sides.A.corps_guerrilla": [1, 1, 1],
    "scenario.guerrilla_pool": 6, "sides.A.sections.L1.spanish": 3, "sides.A.sections.L2.spanish": 2,
    "sides.A.sections.C1.spanish": 2, "sides.A.sections.C2.spanish": 2,
    "sides.A.sections.R1.spanish": 2, "sides.A.sections.R2.spanish": 1,
}
# name: (scenario, overrides, policies (a name, or a name and its parameters), deck or None)
PLANNED = {
    "epic1-lookahead-open": ("symmetric", {}, (OPEN, "greedy"), None),
    "epic1-lookahead-fair": ("symmetric", {}, (FAIR, "greedy"), None),
    "guerrilla-lookahead-open": ("tamames", {}, ("greedy", OPEN), None),
    "guerrilla-lookahead-fair": ("tamames", {}, ("greedy", FAIR), None),
    "epic3-lookahead-open": ("epic3-tamames", {}, (OPEN, "greedy"), None),
    "epic3-lookahead-fair": ("epic3-tamames", {}, (FAIR, "greedy"), None),
    "lgb-lookahead-open": ("lgb-symmetric", LGB_GUERRILLA, (OPEN, OPEN), None),
    "lgb-lookahead-fair": ("lgb-symmetric", LGB_GUERRILLA, (FAIR, FAIR), None),
    "lgb-lookahead-corps-hidden": ("lgb-symmetric", LGB_GUERRILLA,
                                   (("lookahead", dict(FAIR[1], lookahead_corps="hidden")), FAIR), None),
    "epic1-lookahead-halving": ("symmetric", {}, (HALVING, "greedy"), None),
    "guerrilla-lookahead-halving": ("tamames", {}, (HALVING, HALVING), None),
    "lgb-lookahead-halving": ("lgb-symmetric", LGB_GUERRILLA, (HALVING, HALVING), None),
    "epic1-lookahead-race": ("symmetric", {}, (RACE, "greedy"), None),
    "guerrilla-lookahead-race": ("tamames", {}, (RACE, RACE), None),
    "lgb-lookahead-race": ("lgb-symmetric", LGB_GUERRILLA, (RACE, RACE), None),
}
# the planned kernels the default run compiles anyway (EPIC one a side): the others, slow
PLANNED_FAST = ("epic1-lookahead-open", "epic1-lookahead-fair", "epic1-lookahead-halving",
                "epic1-lookahead-race")
CASES = {
    "standard-greedy": ("symmetric", {"scenario.format": "standard"}, ("greedy", "greedy"), "ccn70"),
    "epic1-greedy": ("symmetric", {}, ("greedy", "greedy"), None),
    "epic1-random": ("symmetric", {}, ("random", "random"), None),
    "epic2-greedy": ("epic2-talavera", {}, ("greedy", "greedy"), None),
    "epic3-greedy": ("epic3-tamames", {}, ("greedy", "greedy"), None),
    "epic3-random": ("epic3-tamames", {}, ("random", "random"), None),
    "epic4-greedy": ("epic4-symmetric", {}, ("greedy", "greedy"), None),
    "lgb-greedy": ("lgb-symmetric", {}, ("greedy", "greedy"), None),
    "lgb-random": ("lgb-symmetric", {}, ("random", "random"), None),
    "guerrilla-epic": ("tamames", {}, ("greedy", "greedy"), None),
    # the former defaults (issue 26) stay pinned as alternatives
    "epic3-initiative-no-card": ("epic3-tamames", {"rules.initiative": "no_card"},
                                 ("greedy", "greedy"), None),
    "epic1-counter-attack-any": ("symmetric", {"rules.counter_attack_section": "any"},
                                 ("greedy", "greedy"), None),
    "guerrilla-all-return": ("tamames", {"rules.spent_counters": "all_return"},
                             ("greedy", "greedy"), None),
    "guerrilla-base": ("tamames", {"sides.S.guerrilla_rule": "base"}, ("greedy", "greedy"), None),
    "guerrilla-base-standard": ("tamames", {"sides.S.guerrilla_rule": "base",
                                            "scenario.format": "standard"},
                                ("greedy", "greedy"), "ccn70"),
    # the readings the designer's ruling and the card texts replaced stay pinned as alternatives
    "guerrilla-counter-attack-nullified-none": ("tamames",
                                                {"rules.counter_attack_nullified": "none"},
                                                ("greedy", "greedy"), None),
    "lgb-first-strike-cic-at-once": ("lgb-symmetric", {"rules.first_strike_draw": "cic_at_once"},
                                     ("greedy", "greedy"), None),
}


SUMS = "sums"  # the key of the sums in the golden file (it sorts after every case name)


def case_outputs(name: str):
    """What one chunk of the case returns (napsim.sim.runner.play_chunk's outputs)."""
    scenario, overrides, policies, deck = {**CASES, **PLANNED}[name]
    pols = tuple((p, {}) if isinstance(p, str) else p for p in policies)
    sim = Simulation.build(load_scenario(scenario, overrides), pols, deck)
    games = PLANNED_GAMES if name in PLANNED else GAMES
    return play_chunk(sim.kernel_args(), seed_key(SEED), 0, games, True, True)


def digest_of(out) -> str:
    """sha256 over every array one chunk of the case returns (per-game rows included)."""
    h = hashlib.sha256()
    for a in (out.totals, out.rows, out.rack_wait, out.guerrilla_turns, out.commander_totals,
              out.commander_rows, out.tactician_turns):
        h.update(np.ascontiguousarray(a, dtype=np.int64).tobytes())
        h.update(repr(a.shape).encode())
    return h.hexdigest()


def sums_of(out) -> dict[str, list]:
    """The case's sums by name, the ones not zero: each metric [side A, side B], each commander
    metric [side][commander], and the totals of the rack waits, Guerrilla attempts and Tactician
    cards held per turn."""
    sums: dict[str, list] = {}
    for k, name in enumerate(METRIC_NAMES):
        sums[name] = [int(v) for v in out.totals[:, k]]
    for k, name in enumerate(CM_NAMES):
        sums["commander " + name] = [[int(v) for v in row] for row in out.commander_totals[:, :, k]]
    for k, name in enumerate(("offered", "spent", "nullified")):
        sums["guerrilla attempts " + name] = [int(out.guerrilla_turns[k].sum())]
    sums["rack waits"] = [int(out.rack_wait.sum())]
    sums["tactician held per turn"] = [int(v) for v in out.tactician_turns.sum(axis=1)]
    return {k: v for k, v in sums.items() if np.any(np.asarray(v) != 0)}


def case_digest(name: str) -> tuple[str, dict[str, list]]:
    """(the case's digest, its sums)."""
    out = case_outputs(name)
    return digest_of(out), sums_of(out)


def moved(old: dict[str, list], new: dict[str, list]) -> list[str]:
    """The sums that differ between two sums_of, one 'name: old -> new' line each (a sum
    missing on one side is zero there)."""
    lines = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a != b:
            lines.append(f"{key}: {a if a is not None else 0} -> {b if b is not None else 0}")
    return lines


def _file() -> dict:
    return json.loads(GOLDEN_FILE.read_text()) if GOLDEN_FILE.is_file() else {}


def _stored() -> dict[str, str]:
    """The stored digests by case name."""
    return {k: v for k, v in _file().items() if k != SUMS}


def _stored_sums() -> dict[str, dict[str, list]]:
    return _file().get(SUMS, {})


def _update(got: dict[str, tuple[str, dict]]) -> None:
    """NAPSIM_UPDATE_GOLDEN=1: these digests and sums written over the stored ones (the others
    kept)."""
    GOLDEN_FILE.parent.mkdir(exist_ok=True)
    data = _file()
    sums = data.pop(SUMS, {})
    data.update({name: digest for name, (digest, _) in got.items()})
    sums.update({name: s for name, (_, s) in got.items()})
    data[SUMS] = sums
    GOLDEN_FILE.write_text(_dump(data))


def _dump(data: dict) -> str:
    """The golden file's text: the digests one a line, as before the sums came, then the sums
    one case a block and one sum a line."""
    sums = data.get(SUMS, {})
    rows = [f" {json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(data.items()) if k != SUMS]
    blocks = []
    for name in sorted(sums):
        lines = ",\n".join(f"   {json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(sums[name].items()))
        blocks.append(f"  {json.dumps(name)}: {{\n{lines}\n  }}")
    if blocks:
        rows.append(f" {json.dumps(SUMS)}: {{\n" + ",\n".join(blocks) + "\n }")
    return "{\n" + ",\n".join(rows) + "\n}\n"


def check_digest(name: str, got: tuple[str, dict], refresh: str) -> None:
    """Assert the case's digest is the stored one; the failure lists the sums that moved."""
    stored = _stored()
    assert name in stored, f"no golden digest for {name}: run NAPSIM_UPDATE_GOLDEN=1 (see module doc)"
    digest, sums = got
    if digest == stored[name]:
        return
    old = _stored_sums().get(name)
    if old is None:
        what = "no sums stored for this case to compare"
    else:
        lines = moved(old, sums)
        what = ("sums that moved (old -> new):\n  " + "\n  ".join(lines) if lines else
                "no sum moved: only how they spread over the games (or the per-game rows' order)")
    raise AssertionError(f"{name}: results changed; {what}\nIf the change is deliberate, refresh "
                         f"with {refresh} and say why in the commit")


@pytest.fixture(scope="module")
def digests() -> dict[str, tuple[str, dict]]:
    got = {name: case_digest(name) for name in CASES}
    if UPDATE:
        _update(got)
    return got


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_digest_unchanged(digests, name):
    # rules V1 (fixed game length) and D6 (conservation is checked inside: check=True)
    check_digest(name, digests[name], "NAPSIM_UPDATE_GOLDEN=1 python -m pytest -q tests/test_golden.py")


def test_golden_cases_differ(digests):
    # every case plays a different rule variant, so no two may share a digest
    assert len({digest for digest, _ in digests.values()}) == len(digests)



@pytest.mark.parametrize("name", [n if n in PLANNED_FAST else pytest.param(n, marks=pytest.mark.slow)
                                  for n in sorted(PLANNED)])
def test_planned_digest_unchanged(name):
    # rule P8: the planning player's games, open (every hand seen) and fair (hidden hands dealt
    # again in each rollout) apart
    got = case_digest(name)
    if UPDATE:
        _update({name: got})
    check_digest(name, got, "NAPSIM_UPDATE_GOLDEN=1 python -m pytest -q -m 'slow or not slow' "
                 "tests/test_golden.py")


def test_a_broken_digest_names_the_sums_that_moved():
    # the failure of a changed digest says which sums moved, old -> new, and which did not
    name = "epic1-greedy"
    old = _stored_sums()[name]
    new = {**old, "nominal_L": [old["nominal_L"][0] + 3, old["nominal_L"][1]], "g_spent": [0, 2]}
    with pytest.raises(AssertionError) as err:
        check_digest(name, ("0" * 64, new), "the refresh command")
    text = str(err.value)
    assert f"nominal_L: {old['nominal_L']} -> {new['nominal_L']}" in text
    assert "g_spent: 0 -> [0, 2]" in text
    assert "nominal_C" not in text
    with pytest.raises(AssertionError, match="no sum moved"):
        check_digest(name, ("0" * 64, old), "the refresh command")
    check_digest(name, (_stored()[name], new), "the refresh command")  # the digest decides
