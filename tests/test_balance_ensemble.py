"""Issue 18, the rest: `napsim balance --deck-ensemble N` and `--target-error E`, `napsim run
--deck-ensemble N` (and a study's `deck_ensemble`), and variants files rebuilt by `napsim regen`."""

from __future__ import annotations

import hashlib
import io
import json
import math

import pandas as pd
import pytest
from click.testing import CliRunner
from support.cli import napsim_main, refused_with_studies
from support.decks import read_deck_csv, write_deck_csv
from support.studies import study_text

import napsim
from napsim.api import regenerate
from napsim.cli import cli
from napsim.model.cards import load_deck
from napsim.model.deck_ranges import RANGE_COLUMNS
from napsim.model.defaults import SEED
from napsim.study.balance import find_balance
from napsim.study.deck_ensemble import ENSEMBLE_CSV, ENSEMBLE_JSON, balance_summary, load_study_ensemble
from napsim.study.store import read_meta
from napsim.study.variants import Variant
from napsim.study.variants_file import is_variants_file, load_variants_file

HAND = dict(scenario="tamames", vary="sides.S.hand=3..9", equalize="F,S")


def _plain_gmt90(tmp_path, builtin_path) -> str:
    """gmt90 without its range columns: every count fixed."""
    comments, columns, rows, _ = read_deck_csv(builtin_path("gmt90"))
    plain = [c for c in columns if c not in RANGE_COLUMNS]
    return str(write_deck_csv(tmp_path / "plain.csv", comments, plain, rows))


# --------------------------------------------------------------------------------------------
# balance --deck-ensemble


def test_balance_ensemble_answers_on_each_plausible_deck():
    res = napsim.balance(**HAND, games=300, chunk=300, deck_ensemble=3)
    ens = res.ensemble.frame
    assert list(ens["deck_index"]) == [-1, 0, 1, 2] and ens["crossed"].all()
    assert ens.iloc[0]["crossing"] == res.crossing[0]  # the file's deck first
    assert ((ens["below"] < ens["crossing"]) & (ens["crossing"] < ens["above"])).all()
    assert ((ens["above"] - ens["below"]) == 1).all() and (ens["games"] == 300).all()
    # deck k is the k-th plausible deck (inside every range: tests/test_deck_ensemble.py), same games
    deck = load_deck("gmt90").plausible(3, SEED)[1]
    direct = find_balance(Variant("tamames"), "sides.S.hand=3..9", equalize=["F", "S"], games=300, chunk=300,
                          deck=deck)
    assert direct.crossing[0] == ens.iloc[2]["crossing"]
    s = balance_summary(res.ensemble)
    assert s["crossed"] == 3 and s["crossing_sd"] > 0 and s["crossing_min"] < s["crossing_max"]
    assert (f"balance at Command hand size (Spanish) = {s['crossing_min']:.3f} to "
            f"{s['crossing_max']:.3f} in 3 of 3 decks" in res.ensemble_sentence)


def test_balance_ensemble_of_a_deck_without_ranges_has_zero_spread(tmp_path, builtin_path):
    res = napsim.balance(**HAND, deck=_plain_gmt90(tmp_path, builtin_path), games=300, chunk=300,
                         deck_ensemble=3)
    s = balance_summary(res.ensemble)
    assert s["crossed"] == 3 and s["crossing_sd"] == 0
    assert s["crossing_min"] == s["crossing_max"] == res.crossing[0]
    out = CliRunner().invoke(cli, ["balance", "--scenario", "tamames", "--vary", "sides.S.hand=3..9",
                                   "--equalize", "F,S", "--games", "300", "--deck",
                                   _plain_gmt90(tmp_path, builtin_path), "--deck-ensemble", "2"],
                             catch_exceptions=False).stdout
    assert "no count ranges" in out


def test_balance_ensemble_is_reproducible_from_its_seed():
    first = napsim.balance(**HAND, games=200, chunk=200, deck_ensemble=2, seed=5).ensemble.frame
    again = napsim.balance(**HAND, games=200, chunk=200, deck_ensemble=2, seed=5).ensemble.frame
    other = napsim.balance(**HAND, games=200, chunk=200, deck_ensemble=2, seed=6).ensemble.frame
    pd.testing.assert_frame_equal(first, again)
    assert not first["crossing"].equals(other["crossing"])


def test_balance_ensemble_counts_decks_without_a_crossing():
    # rule G4: Guerrilla counters nullify French cards only, so more counters widen the Spanish lead
    res = napsim.balance("tamames", "sides.S.guerrilla=0..9", equalize="F,S", games=300, chunk=300,
                         deck_ensemble=2)
    assert not res.crossed and math.isnan(res.crossing[0])
    ens = res.ensemble.frame
    assert not ens["crossed"].any() and (ens["difference_at_high"] > ens["difference_at_low"]).all()
    s = balance_summary(res.ensemble)
    assert (s["no_crossing"], s["no_crossing_above"], s["crossed"]) == (2, 2, 0)
    assert "no crossing in 0..9 in any of them" in res.ensemble_sentence
    assert res.sentence.startswith("No number of Spanish Guerrilla counters at the start from 0 to 9 evens "
                                   "tamames: the Spanish lead at every setting")
    out = CliRunner().invoke(cli, ["balance", "--scenario", "tamames", "--vary", "sides.S.guerrilla=0..9",
                                   "--equalize", "F,S", "--games", "300", "--deck-ensemble", "2", "--format",
                                   "csv"], catch_exceptions=False).stdout
    df = pd.read_csv(io.StringIO(out), comment="#")
    assert list(df["deck_index"]) == [-1, 0, 1] and not df["crossed"].any()
    assert "# crossing: none in 0..9" in out


def test_balance_ensemble_json():
    out = CliRunner().invoke(cli, ["balance", "--scenario", "tamames", "--vary", "sides.S.hand=3..9",
                                   "--equalize", "F,S", "--games", "200", "--deck-ensemble", "2", "--format",
                                   "json"], catch_exceptions=False).stdout
    doc = json.loads(out)
    assert doc["crossing"]["crossed"] and len(doc["ensemble"]["decks"]) == 3
    assert doc["ensemble"]["summary"]["decks"] == 2 and "of 2 decks" in doc["ensemble"]["sentence"]


# --------------------------------------------------------------------------------------------
# balance --target-error


def test_target_error_stops_at_the_target_with_the_same_games_extended():
    res = napsim.balance(**HAND, games=40_000, chunk=2000, target_error=0.04)
    assert res.stopped == "target" and res.half_width <= 0.04 and 1000 < res.games < 40_000
    assert all(s.f.n == res.games for s in res.settings)
    fixed = napsim.balance(**HAND, games=res.games, chunk=2000)  # the same games, played at once
    assert fixed.crossing == pytest.approx(res.crossing, rel=1e-12)


def test_target_error_says_when_the_cap_stopped_it():
    res = napsim.balance(**HAND, games=1500, chunk=500, target_error=0.001)
    assert res.stopped == "cap" and res.games == 1500 and res.half_width > 0.001
    out = CliRunner().invoke(cli, ["balance", "--scenario", "tamames", "--vary", "sides.S.hand=3..9",
                                   "--equalize", "F,S", "--games", "1500", "--target-error", "0.001"],
                             catch_exceptions=False).stdout
    assert "target error ±0.001 on the crossing: not reached" in out and "cap of 1,500 games" in out


# --------------------------------------------------------------------------------------------
# run --deck-ensemble

def _study(**extra) -> str:
    """The tamames study these tests run (support/studies.py), with extra [study] fields."""
    return study_text(name="ens", scenario="tamames", games=400, chunk=200, main_side="F",
                      policies=None, seed=None, main_metric=None, set=None,
                      sweep={"sides.S.guerrilla": [0, 3]}, **extra)


def _chunk_bytes(out) -> dict:
    return {p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((out / "points").rglob("*")) if p.is_file()}


@pytest.mark.slow  # two study runs with reports and charts
def test_run_deck_ensemble_leaves_chunks_and_identity_alone(tmp_path):
    study = tmp_path / "s.toml"
    study.write_text(_study())
    plain, ens = tmp_path / "plain", tmp_path / "ens"
    for out, extra in ((plain, []), (ens, ["--deck-ensemble", "3"])):
        r = CliRunner().invoke(cli, ["run", str(study), "--out", str(out), *extra], catch_exceptions=False)
        assert r.exit_code == 0, r.output
    assert _chunk_bytes(plain) == _chunk_bytes(ens)
    assert read_meta(plain)["identity_sha256"] == read_meta(ens)["identity_sha256"]
    rows = pd.read_csv(ens / ENSEMBLE_CSV)
    assert len(rows) == 6 and set(rows["games"]) == {400} and rows["value"].std() > 0
    summary = pd.read_csv(ens / "deck_ensemble_summary.csv")
    base = pd.read_csv(ens / "summary.csv")
    base = base[(base["metric"] == "effective_per_turn") & (base["side_key"] == "F")]
    assert list(summary["value"]) == pytest.approx(list(base["value"]))
    report = (ens / "report.md").read_text()
    assert "## Deck ensemble: Effective orders a turn on plausible decks" in report
    assert "Across 3 plausible decks" in report and "Deck ensemble" not in (plain / "report.md").read_text()
    # a record of another run is not shown
    record = json.loads((ens / ENSEMBLE_JSON).read_text())
    (ens / ENSEMBLE_JSON).write_text(json.dumps({**record, "games": {"p000": 1, "p001": 1}}))
    assert load_study_ensemble(ens, read_meta(ens)) is None


def test_study_key_deck_ensemble_is_the_flag(tmp_path):
    study = tmp_path / "s.toml"
    study.write_text(_study(deck_ensemble=2))
    r = CliRunner().invoke(cli, ["run", str(study), "--out", str(tmp_path / "o"), "--no-report"],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert len(pd.read_csv(tmp_path / "o" / ENSEMBLE_CSV)) == 4


# --------------------------------------------------------------------------------------------
# variants files (napsim regen)

VARIANTS = """[variants]
name = "tiny_variants"
description = "a test"
[[balance]]
name = "hand"
title = "Hand"
scenario = "tamames"
vary = "sides.S.hand=3..9"
equalize = "F,S"
games = 200
deck_ensemble = 2
[[compare]]
name = "rule"
title = "Rule"
scenario = "tamames"
a = ["sides.S.guerrilla_rule=base"]
b = ["sides.S.guerrilla_rule=epic"]
metrics = ["effective_per_turn"]
games = 200
deck_ensemble = 2
"""


def test_variants_file_regenerates_its_report(tmp_path):
    studies = tmp_path / "studies"
    studies.mkdir()
    (studies / "tiny_variants.toml").write_text(VARIANTS)
    (line,) = list(regenerate(["tiny_variants"], studies, tmp_path / "results"))
    assert "2 answer(s)" in line
    out = tmp_path / "results" / "tiny_variants"
    spec = load_variants_file(studies / "tiny_variants.toml")
    assert sorted(p.name for p in out.iterdir()) == sorted(spec.files())
    hand = json.loads((out / "hand.json").read_text())
    rule = json.loads((out / "rule.json").read_text())
    assert hand["command"] == ("napsim balance --scenario tamames --vary sides.S.hand=3..9 --equalize F,S "
                               "--games 200 --deck-ensemble 2")
    report = (out / "report.md").read_text()
    assert hand["sentence"] in report and hand["ensemble"]["sentence"] in report
    assert all(r["sentence"] in report for r in rule["rows"])
    assert (out / "hand.png").read_bytes().startswith(b"\x89PNG")


def test_a_variants_file_of_the_old_name_loads_the_same(tmp_path):
    # files written before the head table had its name call it [design]: they load as they are
    new, old = tmp_path / "new.toml", tmp_path / "old.toml"
    new.write_text(VARIANTS)
    old.write_text(VARIANTS.replace("[variants]", "[design]", 1))
    assert is_variants_file(new) and is_variants_file(old)
    a, b = load_variants_file(new), load_variants_file(old)
    assert (a.name, a.description, a.entries) == (b.name, b.description, b.entries)


NO_ENTRY = "has no [[tune]], [[ladder]], [[balance]] or [[compare]] entry"


@pytest.mark.parametrize("body,needle", [
    (VARIANTS.replace('games = 200\ndeck_ensemble = 2\n[[compare]]', 'gmaes = 200\n[[compare]]'),
     "field 'gmaes': unknown key"),
    (VARIANTS.replace('name = "rule"', 'name = "hand"'), "field 'name': 'hand' is not a new file name"),
    ("[variants]\nname = \"x\"\n", f"field 'variants': {NO_ENTRY}"),
    ("[design]\nname = \"x\"\n", f"field 'design': {NO_ENTRY}"),
    (VARIANTS.replace("[variants]", "[design]\nname = \"y\"\n[variants]", 1), "field 'design': unknown key"),
])
def test_bad_variants_file_is_one_line(body, needle, tmp_path, monkeypatch):
    err = refused_with_studies(monkeypatch, tmp_path, body, "regen", "x")
    assert needle in err, err


# --------------------------------------------------------------------------------------------
# bad input to the new flags: one line, exit 2, nothing written

BALANCE = ["balance", "--scenario", "tamames", "--vary", "sides.S.hand=3..9", "--equalize", "F,S", "--games",
           "200", "--chart", "out.png"]
BAD = [
    (BALANCE + ["--deck-ensemble", "0"], "field 'deck-ensemble': 0 is out of range (allowed: 1..1000"),
    (BALANCE + ["--deck-ensemble", "1001"], "field 'deck-ensemble': 1001 is out of range"),
    (BALANCE + ["--deck-ensemble", "two"], "'two' is not a valid integer"),
    (BALANCE + ["--target-error", "0"], "field 'target-error': 0.0 is not positive"),
    (BALANCE + ["--target-error", "-0.1"], "field 'target-error': -0.1 is not positive"),
    (BALANCE + ["--target-error", "nan"], "field 'target-error': nan is not positive"),
    (BALANCE + ["--target-error", "inf"], "field 'target-error': nan is not positive"),
    (["run", "STUDY", "--out", "run", "--deck-ensemble", "0"], "field 'deck-ensemble': 0 is out of range"),
    (["run", "STUDY", "--out", "run", "--deck-ensemble", "-3"], "field 'deck-ensemble': -3 is out of range"),
    (["run", "ODDS", "--out", "run", "--deck-ensemble", "2"], "odds studies answer exactly"),
    (["run", "BADKEY", "--out", "run"], "'deck_ensemble': 0 is out of range (allowed: integers 1-1000)"),
]


@pytest.mark.parametrize(("args", "needle"), BAD, ids=[f"{a[0]}-{i}" for i, (a, _) in enumerate(BAD)])
def test_bad_new_flags_are_one_line_exit_2_nothing_written(args, needle, tmp_path, monkeypatch):
    files = tmp_path / "in"
    files.mkdir()
    (files / "s.toml").write_text(_study())
    (files / "bad.toml").write_text(_study(deck_ensemble=0))
    (files / "odds.toml").write_text('[study]\nname = "o"\nkind = "odds"\ngames = 10\n[[questions]]\n'
                                     'ask = "at_least"\nfilter = "kind=multi"\nk = 1\n')
    paths = {"STUDY": str(files / "s.toml"), "ODDS": str(files / "odds.toml"),
             "BADKEY": str(files / "bad.toml")}
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    code, out, err = napsim_main(monkeypatch, *[paths.get(a, a) for a in args])
    assert code == 2, (out, err)
    (line,) = err.strip().splitlines()
    assert line.startswith("napsim: error:") and needle in line, err
    assert out == "" and list(work.iterdir()) == []
