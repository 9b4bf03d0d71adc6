"""Deck-data uncertainty (issue 18 part 3): count ranges in deck files, plausible decks drawn inside
them, and `napsim compare --deck-ensemble N`."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner
from support.cli import napsim_main
from support.decks import read_deck_csv, write_deck_csv

from napsim import NapsimInputError, load_deck
from napsim.cli import cli
from napsim.model.deck_ranges import RANGE_COLUMNS

RANGED = ("gmt90", "ccn70")
TAMAMES = ("compare", "--scenario", "tamames", "--a", "sides.S.guerrilla=3", "--b", "sides.S.guerrilla=0",
           "--metric", "effective_per_turn", "--games", "200", "--chunk", "200")


# --------------------------------------------------------------------------------------------
# the shipped ranges


@pytest.mark.parametrize("name", RANGED)
def test_shipped_ranges_hold_the_file_counts_and_say_where_they_come_from(name):
    deck = load_deck(name)
    c = deck.cards
    assert deck.has_ranges
    assert ((c["count_min"] <= c["count"]) & (c["count"] <= c["count_max"])).all()
    confirmed = c["confidence"] == "confirmed"
    assert (c.loc[confirmed, "count_min"] == c.loc[confirmed, "count_max"]).all()
    ranged = c["count_min"] < c["count_max"]
    assert ranged.any() and all("range " in s for s in c.loc[ranged, "source"])


@pytest.mark.parametrize("name", RANGED)
def test_ensemble_respects_every_range_tie_and_total(name):
    deck = load_deck(name)
    c = deck.cards
    decks = deck.plausible(60, seed=7)
    counts = np.array([d.counts for d in decks])
    assert (counts >= c["count_min"].to_numpy()).all() and (counts <= c["count_max"].to_numpy()).all()
    assert (counts.sum(axis=1) == deck.n_cards).all()
    for kind, n in deck.kind_totals:
        assert (counts[:, (c["kind"] == kind).to_numpy()].sum(axis=1) == n).all()
    for tie, rows in c.groupby("count_tie").groups.items():
        if tie:
            tied = counts[:, list(rows)]
            assert (tied == tied[:, :1]).all()
    fixed = (c["count_min"] == c["count_max"]).to_numpy()
    assert (counts[:, fixed] == deck.counts[fixed]).all()
    assert counts[:, ~fixed].std(axis=0).min() > 0  # every ranged count moves
    assert len({d.sha256 for d in decks}) == len({tuple(x) for x in counts.tolist()})


def test_ensemble_is_reproducible_from_its_seed():
    deck = load_deck("gmt90")
    first = [d.counts.tolist() for d in deck.plausible(20, seed=3)]
    assert first == [d.counts.tolist() for d in deck.plausible(20, seed=3)]
    assert first[:5] == [d.counts.tolist() for d in deck.plausible(5, seed=3)]  # a prefix
    assert first != [d.counts.tolist() for d in deck.plausible(20, seed=4)]


def test_deck_without_ranges_gives_copies():
    deck = load_deck("cca60")
    assert not deck.has_ranges
    decks = deck.plausible(4, seed=1)
    assert len(decks) == 4 and all(d.counts.tolist() == deck.counts.tolist() for d in decks)
    out = CliRunner().invoke(cli, ["decks", "show", "cca60"]).stdout
    assert "plausible ranges: none, every count is fixed (a deck ensemble has zero spread)" in out


def test_decks_show_lists_the_ranges():
    out = CliRunner().invoke(cli, ["decks", "show", "ccn70"]).stdout
    assert any("Short Supply" in ln and ln.endswith("range 1-4") for ln in out.splitlines())
    assert "every plausible deck keeps the total 70, section 40, multi 8, tactic 22" in out
    out = CliRunner().invoke(cli, ["decks", "show", "gmt90"]).stdout
    assert "range 4-7, equal to the other 'probe-lr' rows" in out


# --------------------------------------------------------------------------------------------
# bad range columns: one line naming file, line and field


def _edit(row: str, **values):
    def edit(rows):
        for r in rows:
            if r["name"] == row:
                r.update(values)
    return edit


BAD = [
    ("min-above-count", _edit("Elan", count_min="2"), "Elan", "count_min", "above the count"),
    ("max-below-count", _edit("Elan", count_max="0"), "Elan", "count_max", "below the count"),
    ("not-integer", _edit("Rally", count_max="2.5"), "Rally", "count_max", "not an integer"),
    ("negative", _edit("Rally", count_min="-1"), "Rally", "count_min", "out of range"),
    ("confirmed-row", _edit("La Grande Manoeuvre", count_max="2"), "La Grande Manoeuvre", "count_max",
     "a confirmed count is fixed"),
    ("confirmed-tie", _edit("Scout Left", count_tie="x"), "Scout Left", "count_tie",
     "a confirmed count is fixed"),
    ("tie-mismatch", lambda rows: [_edit(n, count_tie="t")(rows) for n in ("Elan", "Force March")],
     "Force March", "count_tie", "rows tied by 't' differ in count (first row on line"),
]


@pytest.mark.parametrize("edit,row,field,needle", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_range_is_a_one_line_error(edit, row, field, needle, tmp_path, builtin_path, monkeypatch):
    comments, columns, rows, lines = read_deck_csv(builtin_path("ccn70"))
    edit(rows)
    path = write_deck_csv(tmp_path / "bad.csv", comments, columns, rows)
    with pytest.raises(NapsimInputError) as err:
        load_deck(path)
    line = lines[[r["name"] for r in rows].index(row)]
    assert str(err.value).startswith(f"{path}:{line}: field '{field}': ") and needle in str(err.value)
    code, out, err_text = napsim_main(monkeypatch, "decks", "show", str(path))
    assert code == 2 and not out and len(err_text.strip().splitlines()) == 1


@pytest.mark.parametrize("value,needle", [("tactic=21", "declared tactic total 21"),
                                          ("troop=1", "bad term 'troop=1'"),
                                          ("multi=8, multi=8", "bad term 'multi=8'"),
                                          ("tactic", "bad term 'tactic'")])
def test_bad_kind_totals_header(value, needle, tmp_path, builtin_path):
    comments, columns, rows, _ = read_deck_csv(builtin_path("ccn70"))
    comments = [c if not c.startswith("# kind_totals:") else f"# kind_totals: {value}" for c in comments]
    path = write_deck_csv(tmp_path / "bad.csv", comments, columns, rows)
    with pytest.raises(NapsimInputError, match=needle) as err:
        load_deck(path)
    line = 1 + next(i for i, c in enumerate(comments) if c.startswith("# kind_totals:"))
    assert err.value.field == "kind_totals" and str(err.value).startswith(f"{path}:{line}: ")


def test_range_columns_are_optional(tmp_path, builtin_path):
    comments, columns, rows, _ = read_deck_csv(builtin_path("gmt90"))
    plain = [c for c in columns if c not in RANGE_COLUMNS]
    deck = load_deck(write_deck_csv(tmp_path / "plain.csv", comments, plain, rows))
    assert not deck.has_ranges and deck.counts.tolist() == load_deck("gmt90").counts.tolist()


# --------------------------------------------------------------------------------------------
# napsim compare --deck-ensemble


def test_compare_deck_ensemble_says_whether_the_conclusion_holds_in_every_deck():
    result = CliRunner().invoke(cli, [*TAMAMES, "--deck-ensemble", "4"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "Deck ensemble: 4 plausible 'gmt90' decks (deck seed 20261130), each playing the same 200 " \
           "games" in lines
    french = next(ln for ln in lines if ln.startswith("Effective orders a turn, French: B - A is "))
    assert "is positive in 4 of 4 plausible decks, range [+" in french and "Monte Carlo ±" in french


def test_compare_deck_ensemble_of_a_deck_without_ranges_has_zero_spread(tmp_path, builtin_path):
    comments, columns, rows, _ = read_deck_csv(builtin_path("gmt90"))
    plain = write_deck_csv(tmp_path / "plain.csv", comments, [c for c in columns if c not in RANGE_COLUMNS],
                           rows)
    result = CliRunner().invoke(cli, [*TAMAMES, "--deck", str(plain), "--deck-ensemble", "2",
                                      "--format", "csv"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "spread is zero" in result.stdout
    import io

    import pandas as pd
    df = pd.read_csv(io.StringIO(result.stdout), comment="#")
    assert (df["ensemble_sd"] == 0).all() and (df["ensemble_min"] == df["ensemble_max"]).all()
    assert np.allclose(df["ensemble_min"], df["difference"])


@pytest.mark.parametrize("extra,needle", [
    (("--deck-ensemble", "0"), "field 'deck-ensemble': 0 is out of range"),
    (("--deck-ensemble", "1001"), "field 'deck-ensemble': 1001 is out of range"),
    (("--deck-ensemble", "2", "--deck-b", "ccn70"), "A and B play different decks (gmt90, ccn70)"),
])
def test_bad_deck_ensemble_is_one_line_and_exit_2(extra, needle, monkeypatch):
    code, out, err = napsim_main(monkeypatch, *TAMAMES, *extra)
    assert code == 2 and not out, (out, err)
    assert len(err.strip().splitlines()) == 1 and needle in err


# --------------------------------------------------------------------------------------------
# napsim simulate --deck-ensemble


def test_simulate_deck_ensemble_prints_the_spread_beside_the_interval(tmp_path):
    out = tmp_path / "run"
    result = CliRunner().invoke(cli, ["simulate", "--scenario", "tamames", "--games", "200", "--chunk", "200",
                                      "--no-per-game", "--out", str(out), "--deck-ensemble", "3"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    i = lines.index("Deck ensemble: 3 plausible 'gmt90' decks (deck seed 20261130), each playing the same "
                    "200 games")
    assert "across decks [min, max]" in lines[i + 1] and "±Monte Carlo" in lines[i + 1]
    french = next(ln.split() for ln in lines[i + 2:] if ln.split()[0] == "French"
                  and " Effective orders a turn " in ln)
    assert float(french[-2]) > 0  # the decks differ
    assert not any(ln.split()[0] == "French" and "French cards nullified a turn" in ln
                   for ln in lines[i + 2:])


def test_simulate_bad_deck_ensemble_writes_nothing(tmp_path, monkeypatch):
    out = tmp_path / "run"
    code, stdout, err = napsim_main(monkeypatch, "simulate", "--scenario", "tamames", "--games", "200",
                                    "--out", str(out), "--deck-ensemble", "0")
    assert code == 2 and not stdout and len(err.strip().splitlines()) == 1
    assert "field 'deck-ensemble': 0 is out of range" in err and not out.exists()


def test_api_compare_with_a_deck_ensemble():
    import napsim

    df = napsim.compare("tamames", {"sides.S.guerrilla": 3}, {"sides.S.guerrilla": 0},
                        metrics=["effective_per_turn"], games=200, chunk=200, deck_ensemble=3)
    french = df.set_index("side_key").loc["F"]
    assert french["decks"] == 3 and french["positive"] == 3 and french["ensemble_sd"] > 0
    assert french["ensemble_min"] <= french["ensemble_max"]
    assert "positive in 3 of 3 plausible decks" in french["ensemble_sentence"]
    with pytest.raises(NapsimInputError, match="different decks"):
        napsim.compare("tamames", {}, {}, deck_b="ccn70", deck_ensemble=2)
