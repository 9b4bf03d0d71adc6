"""`napsim decks` and `napsim odds ...`: listing, composition, warnings, the three output formats,
and one-line input errors with exit code 2 (issue 2 items 4-6)."""

from __future__ import annotations

import io
import json
import sys
from collections import defaultdict

import pandas as pd
import pytest
from click.testing import CliRunner
from scipy import stats
from support.cli import run_napsim
from support.decks import ALL_DECKS, read_deck_csv
from support.laws import e4_closed_form

from napsim import load_deck
from napsim.cli import cli, main

ROW_KEYS = {"question", "outcome", "exact", "simulated", "ci_low", "ci_high", "n", "interval"}


def invoke(*args: str):
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


# ---------------------------------------------------------------------------------------------
# napsim decks


def test_decks_lists_every_builtin_deck(builtin_path):
    out = invoke("decks")
    for name in ALL_DECKS:
        _, _, rows, _ = read_deck_csv(builtin_path(name))
        total = sum(int(r["count"]) for r in rows)
        (line,) = [ln for ln in out.splitlines() if ln.split() and ln.split()[0] == name]
        assert f"{total} cards" in line
        assert ("estimated" in line) == any(r["confidence"] == "estimated" for r in rows)


@pytest.mark.parametrize("name", ALL_DECKS)
def test_decks_show_grouped_composition(name, builtin_path):
    out = invoke("decks", "show", name)
    lines = out.splitlines()
    _, _, rows, _ = read_deck_csv(builtin_path(name))
    by_kind: dict[str, int] = defaultdict(int)
    by_section: dict[tuple[str, str], int] = defaultdict(int)
    for r in rows:
        by_kind[r["kind"]] += int(r["count"])
        by_section[(r["kind"], r["section"])] += int(r["count"])
    for kind, n in by_kind.items():
        i = lines.index(f"{kind} cards: {n}")
        # the kind's block runs to the next blank line; its section sub-totals are inside it
        block = lines[i + 1: lines.index("", i) if "" in lines[i:] else len(lines)]
        for (k, s), m in by_section.items():
            if k == kind:
                label = "no section" if s == "-" else f"section {s}"
                assert f"  {label}: {m}" in block
        names_in_block = {r["name"] for r in rows if r["kind"] == kind}
        assert all(any(nm in b for b in block) for nm in names_in_block)
    total = sum(by_kind.values())
    assert f"total: {total} cards in {len(rows)} types" in lines
    warnings = [ln for ln in lines if ln.startswith("warning:")]
    estimated = [r for r in rows if r["confidence"] == "estimated"]
    if estimated:  # rule D1: every report from a deck with estimated rows says so
        assert len(warnings) == 1
        n_est = sum(int(r["count"]) for r in estimated)
        assert f"{n_est} of {total} cards" in warnings[0]
    else:
        assert warnings == []


def test_decks_show_gmt90_warns_and_cca60_does_not():
    def warned(name):
        return any(ln.startswith("warning:") for ln in invoke("decks", "show", name).splitlines())

    assert warned("gmt90")
    assert not warned("cca60")


def test_decks_show_user_file(tmp_path, builtin_path):
    p = tmp_path / "mine.csv"
    p.write_bytes(builtin_path("cca60").read_bytes())
    out = invoke("decks", "show", str(p))
    assert str(p) in out.splitlines()[0]
    assert "total: 60 cards" in out


# ---------------------------------------------------------------------------------------------
# napsim odds: formats


def _json(*args: str) -> dict:
    doc = json.loads(invoke(*args, "--format", "json"))
    assert set(doc) == {"warnings", "rows"}
    assert doc["rows"]
    for r in doc["rows"]:
        assert set(r) == ROW_KEYS
        assert r["ci_low"] <= r["simulated"] <= r["ci_high"]
        assert isinstance(r["n"], int)
    return doc


def _n_cards(deck, mask) -> int:
    return int(deck.cards.loc[mask(deck.cards), "count"].sum())


def test_odds_at_least_json():
    deck = load_deck("ccn70")
    doc = _json("odds", "at-least", "--deck", "ccn70", "--hand", "5", "--filter",
                "kind=section&section=C", "-k", "2", "--games", "20000", "--seed", "3")
    (row,) = doc["rows"]
    k_c = _n_cards(deck, lambda c: (c["kind"] == "section") & (c["section"] == "C"))
    assert row["exact"] == pytest.approx(stats.hypergeom.sf(1, 70, k_c, 5), rel=1e-12)
    assert row["n"] == 20000
    assert row["interval"] == "wilson95"
    assert len(doc["warnings"]) == 1 and doc["warnings"][0].startswith("warning:")


def test_odds_rack_json_and_no_warning_for_cca60():
    deck = load_deck("cca60")
    doc = _json("odds", "rack", "--deck", "cca60", "--section", "L", "--games", "10000")
    (row,) = doc["rows"]
    free = ["tactic", "troop", "leadership"]  # placed in a section of the player's choice (E3)
    k = _n_cards(deck, lambda c: ((c["kind"] == "section") & (c["section"] == "L"))
                 | ((c["kind"] == "multi") & (c["orders_l"] > 0))
                 | (c["kind"].isin(free) & c["section"].isin(["-", "L"])))
    assert row["exact"] == pytest.approx(1 - stats.hypergeom.pmf(0, 60, k, 5), rel=1e-12)
    assert doc["warnings"] == []


def test_odds_same_section_json_keeps_tiny_probabilities():  # rule E4
    deck = load_deck("gmt90")
    doc = _json("odds", "same-section", "--hand", "10", "--games", "1000")
    (row,) = doc["rows"]
    p = float(e4_closed_form(deck.cards, 90, 15))
    assert 0 < p < 1e-10
    assert row["exact"] == pytest.approx(p, rel=1e-9)


def test_odds_orders_json_sums_to_one():  # rule E6
    doc = _json("odds", "orders", "--deck", "gmt90", "--hand", "4", "--games", "5000")
    by_q: dict[str, list] = defaultdict(list)
    for r in doc["rows"]:
        by_q[r["question"]].append(r)
    assert len(by_q) == 3
    for rows in by_q.values():
        assert sum(r["exact"] for r in rows) == pytest.approx(1.0, abs=1e-9)
        assert sum(r["simulated"] for r in rows) == pytest.approx(1.0, abs=1e-9)
        # one Assault card gives orders equal to the hand size (E6)
        assert any(r["outcome"] == "= 4" and r["exact"] > 0 for r in rows)


def test_odds_first_and_mulligan_json():
    # rule T1: the Epic card game's one mulligan, computed by `napsim odds mulligan`
    doc = _json("odds", "first", "--deck", "cca60", "--filter", "kind=troop", "--games", "5000")
    (row,) = doc["rows"]
    assert row["interval"] == "normal95"
    assert row["exact"] == pytest.approx(61 / 11, rel=1e-12)  # (N + 1) / (K + 1), K = 10 troop
    doc = _json("odds", "mulligan", "--deck", "epic-tcg-sealed30", "--keep", "category=early",
                "--mulligan-below", "2", "--target", "2", "--games", "5000")
    assert len(doc["rows"]) == 3
    p_mull = sum(stats.hypergeom.pmf(i, 30, 12, 5) for i in range(2))
    assert doc["rows"][1]["exact"] == pytest.approx(p_mull, rel=1e-9)


def test_odds_report_csv_matches_json():
    args = ("odds", "report", "--deck", "gmt90", "--hand", "6", "--games", "5000", "--seed", "9")
    text = invoke(*args, "--format", "csv")
    assert text.startswith("# warning:")
    df = pd.read_csv(io.StringIO(text), comment="#")
    doc = _json(*args)
    assert list(df.columns) == ["question", "outcome", "exact", "simulated", "ci_low", "ci_high",
                                "n", "interval"]
    assert len(df) == len(doc["rows"]) >= 7
    for (_, r), j in zip(df.iterrows(), doc["rows"], strict=True):
        assert r["question"] == j["question"]
        assert r["n"] == j["n"] == 5000
        for col in ("exact", "simulated", "ci_low", "ci_high"):
            assert r[col] == pytest.approx(j[col], rel=1e-5, abs=1e-300)


def test_odds_table_format():
    out = invoke("odds", "at-least", "--filter", "kind=multi", "--games", "2000")
    lines = out.splitlines()
    assert lines[0].startswith("warning:")
    assert "95% CI" in lines[1] and "exact" in lines[1] and "simulated" in lines[1]
    assert lines[-1].rstrip().endswith("2000")
    out = invoke("odds", "at-least", "--deck", "cca60", "--filter", "kind=troop", "--games", "100")
    assert not out.splitlines()[0].startswith("warning:")


# ---------------------------------------------------------------------------------------------
# Input errors: one line, exit code 2, no traceback

BAD_ARGS = [
    ("odds", "at-least", "--filter", "foo=1"),
    ("odds", "at-least", "--filter", "kind=multi", "--hand", "0"),
    ("odds", "at-least", "--filter", "kind=multi", "--hand", "91"),
    ("odds", "at-least", "--filter", "kind=multi", "--games", "-5"),
    ("odds", "at-least", "--filter", "kind=multi", "--seed", "-1"),
    ("odds", "at-least", "--filter", "kind=multi", "--chunk", "0"),
    ("odds", "at-least", "--filter", "kind=multi", "--hand", "abc"),
    ("odds", "at-least", "--filter", "stars>=x"),
    ("odds", "at-least", "--bogus"),
    ("odds", "at-least", "--filter", "kind=multi", "--deck", "no-such-deck"),
    ("odds", "at-least", "--filter", "kind=multi", "--deck", "missing.csv"),
    ("odds", "rack", "--section", "X"),
    ("odds", "first", "--filter", "kind=champion"),
    ("odds", "same-section", "--hand", "86"),
    ("odds", "mulligan", "--deck", "epic-tcg-sealed30", "--keep", "category=early",
     "--mulligan-below", "9", "--target", "2"),
    ("decks", "show", "no-such-deck"),
]


@pytest.mark.parametrize("args", BAD_ARGS, ids=[" ".join(a[1:]) for a in BAD_ARGS])
def test_input_error_one_line_exit_2(args, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["napsim", *args])
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("napsim: error: ")


def test_input_error_subprocess_no_traceback():
    proc = run_napsim("odds", "at-least", "--filter", "kind=multi&stars>=", "--games", "10")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1
    assert proc.stderr.startswith("napsim: error: --filter")
    assert "Traceback" not in proc.stderr


def test_success_exit_code_zero_subprocess():
    proc = run_napsim("odds", "rack", "--section", "C", "--games", "1000", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["rows"][0]["n"] == 1000
    assert proc.stderr == ""
