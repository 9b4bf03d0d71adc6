"""A study's identity: everything its stored chunks depend on, and the hash that keys its folder.

The identity holds the chunk file format, the seed and chunk size, the sweep and fixed values, per
point the scenario and deck file hashes and the policies, and `code_sha256()`: a hash of the source
files that decide what a chunk holds. A run folder whose recorded identity differs is refused
(`napsim.study.storage.check_out`); a Dask worker whose code hash differs is refused too.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from napsim.engine import layout
from napsim.model.cards import load_deck
from napsim.sim.metric_table import DERIVED
from napsim.study.chunks import CHUNK_FORMAT

# the source files (relative to the package) whose content decides what a chunk holds
CODE_FILES = ("engine/*.py", "sim/*.py", "model/cards.py", "model/scenarios.py", "model/policies.py",
              "model/filters.py", "study/chunks.py")
PACKAGE_DIR = Path(__file__).resolve().parents[1]


def code_sha256() -> str:
    """Hash of the source files that decide what a chunk holds (engine, tables, policies...)."""
    h = hashlib.sha256()
    for pattern in CODE_FILES:
        for f in sorted(PACKAGE_DIR.glob(pattern)):
            h.update(f.relative_to(PACKAGE_DIR).as_posix().encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def sha(obj) -> str:
    """sha256 of a JSON-able value (keys sorted)."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()


def study_identity(st) -> dict:
    """Everything a stored result of the study `st` (a `napsim.study.spec.Study`) depends on; its
    hash keys the output folder."""
    ident = dict(format=CHUNK_FORMAT, kind=st.kind, seed=st.seed, chunk=st.chunk,
                 code=code_sha256(), sweep=st.sweep, set=st.fixed)
    points = []
    if st.kind == "engine":
        ident.update(per_game=st.per_game, metric_names=list(layout.METRIC_NAMES),
                     derived=DERIVED)
        for p in st.points:
            sc, dk, policies = st.load_point(p)
            points.append(dict(id=p.id, params=p.params, scenario_sha256=sc.sha256,
                               deck_sha256=dk.sha256, policies=[[n, o] for n, o in policies]))
    else:
        ident.update(games=st.games, questions=st.questions)
        for p in st.points:
            deck, hand = st.odds_inputs(p)
            points.append(dict(id=p.id, params=p.params, hand=hand,
                               deck_sha256=load_deck(deck).sha256))
    ident["points"] = points
    return ident
