"""Golden digests: one pinned fingerprint per format and rule variant.

Each case plays a fixed number of games from a fixed seed and hashes everything a kernel call
returns (totals, per-game rows, rack waits, Guerrilla and Tactician per-turn counts, commander
metrics). A refactoring must leave every digest as it is; a deliberate rule change refreshes them
with one command, and its commit says why:

    NAPSIM_UPDATE_GOLDEN=1 python -m pytest -q -m "slow or not slow" tests/test_golden.py

The digests are also compared against each other: two cases that play different rules must not
share a digest (a rule switch that changes nothing is a defect too).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest

from napsim.engine.rng import seed_key
from napsim.model.scenarios import load_scenario
from napsim.sim.packing import Simulation
from napsim.sim.runner import play_chunk

GOLDEN_FILE = Path(__file__).parent / "golden" / "digests.json"
GAMES = 400
SEED = 20261201
UPDATE = os.environ.get("NAPSIM_UPDATE_GOLDEN") == "1"

# the planning player (P8) on a short budget: open rollouts see the opponent's hand (the planner as
# it was before fair became the default, pinned), fair ones deal it again
PLANNED_GAMES = 40
_LA = {"lookahead_k": 4, "lookahead_d": 1}
OPEN = ("lookahead", dict(_LA, lookahead_info="open"))
FAIR = ("lookahead", dict(_LA, lookahead_info="fair"))
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
}
# the planned kernels the default run compiles anyway (EPIC one a side): the others, slow
PLANNED_FAST = ("epic1-lookahead-open", "epic1-lookahead-fair")
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


def case_digest(name: str) -> str:
    """sha256 over every array one chunk of the case returns (per-game rows included)."""
    scenario, overrides, policies, deck = {**CASES, **PLANNED}[name]
    pols = tuple((p, {}) if isinstance(p, str) else p for p in policies)
    sim = Simulation.build(load_scenario(scenario, overrides), pols, deck)
    games = PLANNED_GAMES if name in PLANNED else GAMES
    out = play_chunk(sim.kernel_args(), seed_key(SEED), 0, games, True, True)
    h = hashlib.sha256()
    for a in (out.totals, out.rows, out.rack_wait, out.guerrilla_turns, out.commander_totals,
              out.commander_rows, out.tactician_turns):
        h.update(np.ascontiguousarray(a, dtype=np.int64).tobytes())
        h.update(repr(a.shape).encode())
    return h.hexdigest()


def _stored() -> dict[str, str]:
    return json.loads(GOLDEN_FILE.read_text()) if GOLDEN_FILE.is_file() else {}


def _update(got: dict[str, str]) -> None:
    """NAPSIM_UPDATE_GOLDEN=1: these digests written over the stored ones (the others kept)."""
    GOLDEN_FILE.parent.mkdir(exist_ok=True)
    GOLDEN_FILE.write_text(json.dumps({**_stored(), **got}, indent=1, sort_keys=True) + "\n")


@pytest.fixture(scope="module")
def digests() -> dict[str, str]:
    got = {name: case_digest(name) for name in CASES}
    if UPDATE:
        _update(got)
    return got


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_digest_unchanged(digests, name):
    # rules V1 (fixed game length) and D6 (conservation is checked inside: check=True)
    stored = _stored()
    assert name in stored, f"no golden digest for {name}: run NAPSIM_UPDATE_GOLDEN=1 (see module doc)"
    assert digests[name] == stored[name], (
        f"{name}: results changed. If the change is deliberate, refresh with "
        "NAPSIM_UPDATE_GOLDEN=1 python -m pytest -q tests/test_golden.py and say why in the commit")


def test_golden_cases_differ(digests):
    # every case plays a different rule variant, so no two may share a digest
    assert len(set(digests.values())) == len(digests)



@pytest.mark.parametrize("name", [n if n in PLANNED_FAST else pytest.param(n, marks=pytest.mark.slow)
                                  for n in sorted(PLANNED)])
def test_planned_digest_unchanged(name):
    # rule P8: the planning player's games, open (every hand seen) and fair (hidden hands dealt
    # again in each rollout) apart
    got = case_digest(name)
    if UPDATE:
        _update({name: got})
    stored = _stored()
    assert name in stored, f"no golden digest for {name}: run NAPSIM_UPDATE_GOLDEN=1 (see module doc)"
    assert got == stored[name], (
        f"{name}: results changed. If the change is deliberate, refresh with "
        "NAPSIM_UPDATE_GOLDEN=1 python -m pytest -q -m 'slow or not slow' tests/test_golden.py "
        "and say why in the commit")
