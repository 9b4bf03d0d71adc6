"""napsim simulate / trace and scenario validation from the command line (issue 3 items 1 and 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from support.cli import napsim_main, run_napsim

from napsim.model.errors import NapsimInputError
from napsim.model.scenarios import SCENARIO_DIR, builtin_scenarios, load_scenario


def test_shipped_scenarios_load_and_say_which_numbers_are_examples():  # rule S1
    names = builtin_scenarios()
    assert {"symmetric", "tamames", "talavera-epic"} <= set(names)
    tam = load_scenario("tamames")
    assert [s.hand for s in tam.sides] == [6, 6]
    assert tam.sides[tam.first].name == "French"
    tal = load_scenario("talavera-epic")
    assert sorted((s.name, s.hand) for s in tal.sides) == [("Allies", 11), ("French", 10)]
    for n in names:
        assert load_scenario(n).examples, f"{n} must say which numbers are examples"


def _edited(tmp_path: Path, old: str, new: str) -> Path:
    text = (SCENARIO_DIR / "tamames.toml").read_text()
    assert old in text
    p = tmp_path / "bad.toml"
    p.write_text(text.replace(old, new, 1))
    return p


@pytest.mark.parametrize("old,new,field", [
    ("hand = 6", "hand = -1", "hand"),
    ("spanish = 6", "spanish = 60", "spanish"),
    ("turns = 30", "turnz = 30", "turnz"),
    ('format = "epic1"', 'format = "epic9"', "format"),
    ("guerrilla = 3", "guerrilla = -2", "guerrilla"),
])
def test_bad_scenario_values_name_file_and_field(tmp_path, old, new, field, monkeypatch):
    p = _edited(tmp_path, old, new)
    with pytest.raises(NapsimInputError) as e:
        load_scenario(p)
    assert str(p) in str(e.value) and field in str(e.value)
    code, _, err = napsim_main(monkeypatch, "trace", "--scenario", str(p), "--game", "0")
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("napsim: error:")
    assert "Traceback" not in err and str(p) in err and field in err


def test_guerrilla_counters_need_spanish_units(tmp_path):
    p = _edited(tmp_path, "tactician = 3\nfrench = true", "tactician = 3\nguerrilla = 2\nfrench = true")
    with pytest.raises(NapsimInputError, match="without Spanish units"):
        load_scenario(p)


def test_simulate_writes_parquet_summary_manifest_and_refuses_to_overwrite(tmp_path, monkeypatch):
    out = tmp_path / "run"
    args = ["simulate", "--scenario", "symmetric", "--games", "600", "--seed", "5",
            "--policy", "greedy,random", "--out", str(out)]
    r = run_napsim(*args)
    assert r.returncode == 0, r.stderr
    games = pd.read_parquet(out / "games.parquet")
    assert len(games) == 2 * 600 and set(games["side"]) == {"Blue", "Red"}
    assert (games["turns"] == 30).all()
    summary = pd.read_csv(out / "summary.csv")
    rates = summary[summary["kind"] == "rate"]
    assert rates[["ci_low", "ci_high", "n"]].notna().all().all()
    assert ((rates["ci_low"] <= rates["value"]) & (rates["value"] <= rates["ci_high"])).all()
    man = json.loads((out / "manifest.json").read_text())
    assert man["seed"] == 5 and man["games"] == 600 and len(man["deck_sha256"]) == 64
    assert man["policies"] == ["greedy", "random"]
    # again in this process (the console entry point; the first run was a fresh interpreter's)
    code, _, err = napsim_main(monkeypatch, *args)
    assert code == 2 and "--force" in err
    assert pd.read_parquet(out / "games.parquet").equals(games)
    code, _, err = napsim_main(monkeypatch, *args, "--force")
    assert code == 0, err
    assert pd.read_parquet(out / "games.parquet").equals(games)  # same seed, same bits


def test_trace_replays_the_same_game_as_the_run(tmp_path, monkeypatch):
    from napsim.engine import layout
    from napsim.sim.packing import Simulation

    sim = Simulation.build("tamames")
    res = sim.run(40, 9, chunk=7, per_game=True)
    met, events = sim.trace(9, 23)
    assert (met == res.per_game[23]).all()
    assert events[0, 0] in (layout.EV_TURN, layout.EV_TACTICIAN)
    text = run_napsim("trace", "--scenario", "tamames", "--seed", "9", "--game", "23").stdout
    assert "turn 1.1  French to play" in text
    assert text.count("\nturn ") == 2 * sim.scenario.turns
    # the same text from this process as from a fresh interpreter
    here = napsim_main(monkeypatch, "trace", "--scenario", "tamames", "--seed", "9", "--game", "23")
    assert here == (0, text, "")


def test_epic_guerrilla_rule_needs_an_epic_format():  # rule G4
    with pytest.raises(NapsimInputError, match="need an EPIC format"):
        load_scenario("tamames", {"scenario.format": "standard"})
    base = load_scenario("tamames", {"scenario.format": "standard", "sides.S.guerrilla_rule": "base"})
    assert base.sides[1].guerrilla_rule == "base"


def test_a_bad_input_on_a_cold_cache_is_one_line_without_the_compile_notice(tmp_path, monkeypatch):
    # a first run compiles for a while and says so first; a run that its inputs refuse compiles
    # nothing, so it says only the one-line error, whatever the cache holds (here: as if cold)
    import napsim.api

    cold = "compiling the kernels first (about 15 to 35 s on two cores)"
    monkeypatch.setattr(napsim.api, "compile_notice", lambda kind: cold)
    deck = tmp_path / "one.csv"
    deck.write_text("name,kind,count\nScout Left,section,1\n")
    code, out, err = napsim_main(monkeypatch, "simulate", "--scenario", "symmetric", "--deck", str(deck),
                                 "--games", "2", "--out", str(tmp_path / "bad"))
    assert code == 2 and out == "", (out, err)
    (line,) = err.strip().splitlines()
    assert line.startswith("napsim: error:") and cold not in err
    code, out, err = napsim_main(monkeypatch, "simulate", "--scenario", "symmetric", "--games", "2",
                                 "--out", str(tmp_path / "good"))
    assert code == 0 and cold in err, err
