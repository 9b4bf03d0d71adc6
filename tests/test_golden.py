"""Golden digests: one pinned fingerprint per format and rule variant.

Each case plays a fixed number of games from a fixed seed and hashes everything a kernel call
returns (totals, per-game rows, rack waits, Guerrilla and Tactician per-turn counts, commander
metrics). A refactoring must leave every digest as it is; a deliberate rule change refreshes them
with one command, and its commit says why:

    NAPSIM_UPDATE_GOLDEN=1 python -m pytest -q tests/test_golden.py

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

# name: (scenario, overrides, policies, deck or None)
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
    scenario, overrides, policies, deck = CASES[name]
    sim = Simulation.build(load_scenario(scenario, overrides), tuple((p, {}) for p in policies), deck)
    out = play_chunk(sim.kernel_args(), seed_key(SEED), 0, GAMES, True, True)
    h = hashlib.sha256()
    for a in (out.totals, out.rows, out.rack_wait, out.guerrilla_turns, out.commander_totals,
              out.commander_rows, out.tactician_turns):
        h.update(np.ascontiguousarray(a, dtype=np.int64).tobytes())
        h.update(repr(a.shape).encode())
    return h.hexdigest()


def _stored() -> dict[str, str]:
    return json.loads(GOLDEN_FILE.read_text()) if GOLDEN_FILE.is_file() else {}


@pytest.fixture(scope="module")
def digests() -> dict[str, str]:
    got = {name: case_digest(name) for name in CASES}
    if UPDATE:
        GOLDEN_FILE.parent.mkdir(exist_ok=True)
        GOLDEN_FILE.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
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

