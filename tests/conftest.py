"""Shared helpers for the deck, exact-odds, simulation and CLI tests (issue 2)."""

from __future__ import annotations

import csv
import io
import itertools
import os
import subprocess
import sys
from collections import defaultdict
from fractions import Fraction
from math import comb
from pathlib import Path

import pytest
from scipy import stats

from napsim.model.cards import DECK_DIR

C_AND_C_DECKS = ("gmt90", "ccn70", "cca60")
ALL_DECKS = (*C_AND_C_DECKS, "epic-tcg-sealed30")


def read_deck_csv(path: Path) -> tuple[list[str], list[str], list[dict[str, str]], list[int]]:
    """A deck file read with nothing but the csv module: (comment lines, columns, rows, row lines).

    Row lines are 1-based line numbers in the file, for checking that errors name the right line.
    """
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    n_comment = 0
    while lines[n_comment].startswith("#"):
        n_comment += 1
    table = list(csv.reader(io.StringIO("\n".join(lines[n_comment:]))))
    columns = table[0]
    rows = [dict(zip(columns, r, strict=True)) for r in table[1:] if r]
    row_lines = [n_comment + 2 + i for i, r in enumerate(table[1:]) if r]
    return lines[:n_comment], columns, rows, row_lines


def write_deck_csv(path: Path, comments: list[str], columns: list[str],
                   rows: list[dict[str, str]]) -> Path:
    buf = io.StringIO()
    buf.write("".join(c + "\n" for c in comments))
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow([r[c] for c in columns])
    path.write_text(buf.getvalue(), encoding="utf-8")
    return path


@pytest.fixture
def builtin_path():
    def get(name: str) -> Path:
        return DECK_DIR / f"{name}.csv"

    return get


def run_napsim(*args: str, env: dict[str, str] | None = None, timeout: float = 300
               ) -> subprocess.CompletedProcess:
    """`python -m napsim ARGS` in a fresh interpreter (the real console entry point)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "napsim", *args], capture_output=True, text=True, env=full_env,
        timeout=timeout,
    )


def mvhg_sum_law(counts, value, hand: int) -> dict[int, float]:
    """Law of a hand's summed value: scipy.stats.multivariate_hypergeom over value groups."""
    groups: dict[int, int] = defaultdict(int)
    for c, v in zip(counts, value, strict=True):
        groups[int(v)] += int(c)
    vals, m = list(groups), [groups[v] for v in groups]
    law: dict[int, float] = defaultdict(float)
    for x in itertools.product(*[range(min(mi, hand) + 1) for mi in m]):
        if sum(x) != hand:
            continue
        p = stats.multivariate_hypergeom.pmf(x=list(x), m=m, n=hand)
        law[sum(v * xi for v, xi in zip(vals, x, strict=True))] += p
    return dict(law)


def e4_closed_form(cards, n_cards: int, n_seen: int):
    """Rule E4: P(n_seen cards are all section cards of one section) = sum_s C(n_s, h)/C(N, h)."""
    n_s = [int(cards.loc[(cards["kind"] == "section") & (cards["section"] == s), "count"].sum())
           for s in ("L", "C", "R")]
    return Fraction(sum(comb(k, n_seen) for k in n_s), comb(n_cards, n_seen))
