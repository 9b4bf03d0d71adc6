"""`napsim tune` (issue 30, part 2): the racing search over policy knobs on common random numbers,
its answer where the truth is known, its determinism, the [policy.<side>] table it prints (loaded
and played as written), and its one-line errors."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest
from click.testing import CliRunner
from support.cli import napsim_main

import napsim
from napsim.cli import cli
from napsim.model.scenarios import SCENARIO_DIR, load_scenario
from napsim.study import backends
from napsim.study.tune import schedule, tune_policy
from napsim.study.variants import PlayedGames, Variant


def invoke(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_truth_the_centre_weight_that_scores_every_section_wins():
    # rule P1: greedy scores effective orders weighted by section; a default that ignores the centre
    # (w_c = 0) is clearly worse than equal weights, and the race finds w_c = 1
    r = tune_policy("symmetric", "A", ["w_c=0,0.5,1,2"], policy="greedy:w_c=0,greedy", games=1600,
                    seed=3, rounds=3)
    assert r.significant and r.best.settings == {"w_c": 1.0}
    v = r.versus_default
    assert v["ci_low"] > 0.3 and v["difference"] == pytest.approx(v["best"] - v["default"])
    assert r.default.dropped_round == 1  # the default itself is dropped, but plays on as reference
    assert r.default.games == r.games


def test_truth_a_knob_without_effect_keeps_the_default():
    # rule P6: corps_own_min decides only a La Grande Battles Corps commander's own card, so in a
    # one-a-side EPIC game every candidate plays the very same games: zero differences, no drop
    t = napsim.tune("symmetric", "A", ["corps_own_min=0,5"], games=600)
    r = t.race
    assert not t.significant and t.best == {"corps_own_min": 2.0} and r.best is r.default
    assert all(c.dropped_round is None and c.games == 600 for c in r.candidates)
    assert t.versus_default["difference"] == 0 and t.versus_default["half_width"] == 0
    assert "keep it" in t.sentence and "corps_own_min" not in t.sentence  # words, not names
    assert "score for a Corps commander's own card" in t.sentence


def test_racing_drops_a_clearly_worse_candidate_in_the_first_round():
    # rule P4: spending counters on Assault cards only nullifies far fewer French cards than
    # spending at every chance; the race drops it after its first round's games
    r = tune_policy("tamames", "S", ["g_spend_mode=always,assault"], metric="g_cards_nullified_per_turn",
                    games=4000, rounds=4)
    assault = r.candidates[1]
    assert assault.settings == {"g_spend_mode": "assault"}
    assert assault.dropped_round == 1 and assault.games == r.schedule[0] == 500
    assert r.best is r.default and not r.significant and len(r.rounds) == 1  # one left: stop
    assert list(r.frame()["status"]) == ["best", "dropped"]
    from napsim.output.tune import tune_sentence
    assert "every other setting tried was clearly worse" in tune_sentence(r)


def test_opponent_metric_is_lowered_and_worded():
    t = napsim.tune("tamames", "S", ["g_spend_mode=always,threshold", "g_threshold=4,5"], of="opponent",
                    games=2000, rounds=3)
    r = t.race
    assert r.goal == "min" and r.metric_side == "F"
    assert t.significant and t.best["g_spend_mode"] == "threshold"
    assert t.versus_default["ci_high"] < 0  # fewer French effective orders
    assert "fewer effective orders a turn (French)" in t.sentence
    assert "spend on cards of many orders" in t.sentence


def test_same_seed_same_answer_whatever_the_chunk_and_threads():
    args = dict(scenario="tamames", side="S", knobs=["g_spend_mode=always,threshold", "g_threshold=3:5:1"],
                of="opponent", games=1500, seed=11, rounds=3)
    a = tune_policy(**args).frame()
    b = tune_policy(**args, chunk=97).frame()
    with backends.threads_set(1):
        c = tune_policy(**args, chunk=1000).frame()
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(a, c)
    d = tune_policy(**{**args, "seed": 12}).frame()
    assert not a["value"].equals(d["value"])


def test_schedule_doubles_to_the_budget():
    assert schedule(20_000, 5) == [1250, 2500, 5000, 10_000, 20_000]
    assert schedule(5, 5) == [2, 3, 5]
    assert schedule(100, 1) == [100]


def test_pasted_policy_table_loads_and_plays_as_written(tmp_path):
    # the table napsim tune prints goes into the scenario file and plays the best candidate's games
    t = napsim.tune("tamames", "S", ["g_spend_mode=always,threshold", "g_threshold=4,5"], of="opponent",
                    games=1200, rounds=2)
    text = t.policy_toml()
    assert "[policy.S]" in text and 'g_spend_mode = "threshold"' in text
    path = tmp_path / "tamames-tuned.toml"
    shutil.copy(SCENARIO_DIR / "tamames.toml", path)
    path.write_text(path.read_text(encoding="utf-8") + "\n" + text, encoding="utf-8")
    sc = load_scenario(path)
    assert sc.policies == {"S": ("greedy", t.best)}
    race = t.race
    played = PlayedGames(Variant(str(path)).build(), race.seed, metrics=["effective_per_turn"])
    played.play_to(race.games)
    assert played.estimates("effective_per_turn")[0].value == race.best.estimate.value
    # --policy parameters still win over the table (the default candidate's games again)
    back = PlayedGames(Variant(str(path), policy="greedy,greedy:g_spend_mode=always;g_threshold=3").build(),
                       race.seed, metrics=["effective_per_turn"])
    back.play_to(race.games)
    assert back.estimates("effective_per_turn")[0].value == race.default.estimate.value
    # and tuning the tuned scenario starts from the table: its default is the old best
    again = tune_policy(str(path), "S", ["g_threshold=4,5"], of="opponent", games=300, rounds=1)
    assert again.default_values == {"g_threshold": t.best["g_threshold"]}


def test_cli_formats():
    args = ["tune", "symmetric", "--side", "A", "--knob", "march_prob=0,1", "--games", "400", "--rounds", "2"]
    table = invoke(*args)
    assert "Paste into the scenario file:" in table and "[policy.A]" in table
    assert "Effective orders a turn (Blue)" in table and "Bonferroni" in table
    doc = json.loads(invoke(*args, "--format", "json"))
    assert doc["sentence"] and doc["policy_toml"].count("\n[policy.A]\n") == 1
    assert len(doc["rows"]) == 2 and doc["rows"][0]["label"] == "default"
    assert {"confidence", "comparisons", "rounds", "versus_default", "best"} <= set(doc)
    csv = invoke(*args, "--format", "csv")
    lines = csv.splitlines()
    assert lines[0].startswith("# Tuning") and any(x.startswith("candidate,label,metric,title,unit,side")
                                                   for x in lines)


def _bad_scenario(tmp_path, table: str) -> str:
    path = tmp_path / "bad.toml"
    path.write_text((SCENARIO_DIR / "tamames.toml").read_text(encoding="utf-8") + "\n" + table,
                    encoding="utf-8")
    return str(path)


TUNE = ["tune", "tamames", "--side", "S", "--games", "200"]
BAD = [
    (TUNE + ["--knob", "speed=1,2"], "--knob: field 'speed': unknown policy parameter"),
    (TUNE + ["--knob", "kind=0,1"], "unknown policy parameter"),
    (TUNE + ["--knob", "march_prob"], "cannot read 'march_prob'"),
    (TUNE + ["--knob", "march_prob=0:1:0"], "step 0 is not positive"),
    (TUNE + ["--knob", "march_prob=1:0:0.1"], "empty range 1:0"),
    (TUNE + ["--knob", "march_prob=a:b:c"], "is not a range"),
    (TUNE + ["--knob", "march_prob=0:1:0.001"], "at most --max-candidates (64)"),
    (TUNE + ["--knob", "march_prob=0.5,1.5"], "1.5 is out of range"),
    (TUNE + ["--knob", "march_prob=0.5,,1"], "empty value"),
    (TUNE + ["--knob", "march_prob=half"], "is not a number"),
    (TUNE + ["--knob", "g_spend_mode=sometimes"], "'sometimes' is not a mode (allowed: always, threshold, "),
    (TUNE + ["--knob", "march_prob=0,1", "--knob", "march_prob=0.5"], "given twice"),
    (TUNE + ["--knob", "march_prob=0:1:0.25", "--knob", "g_threshold=1:9:1", "--max-candidates", "20"],
     "45 candidates (5 x 9)"),
    (TUNE + ["--knob", "march_prob=1"], "every value is the default policy's"),
    (TUNE + ["--knob", "march_prob=0", "--metric", "orders_a_turn"],
     "--metric: field 'metric': unknown metric"),
    (TUNE + ["--knob", "march_prob=0:nan:0.5"], "is not a range"),
    (TUNE + ["--knob", "march_prob=nan"], "out of range"),
    (TUNE + ["--knob", "march_prob=0", "--metric", "g_nullification_rate", "--of", "opponent"],
     "counts nothing for side F"),
    (["tune", "tamames", "--side", "X", "--knob", "march_prob=0"], "--side: field 'side': unknown side 'X' "
     "(allowed: F, S)"),
    (TUNE + ["--knob", "march_prob=0", "--of", "theirs"], "'theirs' is not one of 'own', 'opponent'"),
    (TUNE + ["--knob", "march_prob=0", "--goal", "up"], "'up' is not one of 'max', 'min'"),
    (TUNE + ["--knob", "march_prob=0", "--games", "1"], "--games"),
    (TUNE + ["--knob", "march_prob=0", "--rounds", "0"], "--rounds"),
    (TUNE + ["--knob", "march_prob=0", "--seed", "-1"], "--seed"),
    (TUNE + ["--knob", "march_prob=0", "--policy", "greedy"], "1 policies given"),
    (TUNE + ["--knob", "march_prob=0", "--policy", "clever,greedy"], "unknown policy 'clever'"),
    (TUNE + ["--knob", "march_prob=0", "--format", "xml"], "xml"),
    (["tune", "nowhere", "--side", "S", "--knob", "march_prob=0"], "nowhere"),
]


@pytest.mark.parametrize(("args", "needle"), BAD, ids=[f"tune-{i}" for i in range(len(BAD))])
def test_bad_input_is_one_line_and_exit_2(args, needle, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    code, out, err = napsim_main(monkeypatch, *args)
    assert code == 2, (out, err)
    (line,) = err.strip().splitlines()
    assert line.startswith("napsim: error:") and needle in line, line
    assert out == ""


BAD_TABLES = [
    ("[policy.X]\nmarch_prob = 0.5\n", "[policy]: field 'X': unknown side (allowed: F, S)"),
    ("[policy.S]\nspeed = 2\n", "[policy.S]: field 'speed': unknown policy parameter"),
    ("[policy.S]\nname = \"clever\"\n", "[policy.S]: field 'name': unknown policy 'clever'"),
    ("[policy.S]\ng_spend_mode = \"sometimes\"\n", "'sometimes' is not a mode"),
    ("[policy.S]\nmarch_prob = 2.0\n", "2.0 is out of range"),
    ("[policy.S]\nmarch_prob = true\n", "is not a number or a mode name"),
    ("[policy]\nS = 3\n", "[policy.S]: expected a table"),
    ("policy = 3\n", "field 'policy': not a table"),
]


@pytest.mark.parametrize(("table", "needle"), BAD_TABLES, ids=[f"table-{i}" for i in range(len(BAD_TABLES))])
def test_bad_scenario_policy_table_is_one_line_and_exit_2(table, needle, monkeypatch, tmp_path):
    path = _bad_scenario(tmp_path, table)
    if table.startswith("policy ="):  # a plain key must come before the first table
        text = (SCENARIO_DIR / "tamames.toml").read_text(encoding="utf-8")
        (tmp_path / "bad.toml").write_text(table + text, encoding="utf-8")
    code, out, err = napsim_main(monkeypatch, "tune", path, "--side", "S", "--knob", "march_prob=0",
                                 "--games", "100")
    assert code == 2, (out, err)
    (line,) = err.strip().splitlines()
    assert line.startswith("napsim: error:") and needle in line, line
