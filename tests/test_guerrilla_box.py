"""The Guerrilla box holds what it holds: a scenario's counters (starting plus unacquired) are a
total; a setting that moves the starting counters takes them from the unacquired pool (or puts
them back), setting the pool too moves the pool instead, and starting counters above the total
are refused in one line (`napsim.model.scenarios.guerrilla_box`)."""

from __future__ import annotations

import tomllib

import pytest
from support.cli import napsim_main

import napsim
from napsim import api
from napsim.engine import layout
from napsim.model.errors import NapsimInputError
from napsim.model.scenarios import SCENARIO_DIR, load_scenario, starting_counters
from napsim.sim.packing import guerrilla_config
from napsim.study.balance import parse_vary
from napsim.study.variants import Variant

TAMAMES_BOX = 9  # tamames.toml: 3 counters start with the Spanish, 6 unacquired


def box(sc) -> int:
    return starting_counters(sc) + sc.guerrilla_pool


@pytest.mark.parametrize("start", [0, 1, 3, 6, 9])
def test_starting_counters_come_from_the_pool_and_the_box_keeps_its_total(start):
    sc = load_scenario("tamames", {"sides.S.guerrilla": start})
    assert sc.sides[1].guerrilla == start and sc.guerrilla_pool == TAMAMES_BOX - start
    assert box(sc) == TAMAMES_BOX
    # the engine gets the pool the box leaves: the one Scouts gain counters from
    assert guerrilla_config(sc)[0, layout.G_POOL0] == TAMAMES_BOX - start


def test_setting_the_pool_too_moves_the_pool_instead():
    sc = load_scenario("tamames", {"sides.S.guerrilla": 5, "scenario.guerrilla_pool": 6})
    assert (sc.sides[1].guerrilla, sc.guerrilla_pool, box(sc)) == (5, 6, 11)
    assert load_scenario("tamames", {"scenario.guerrilla_pool": 2}).guerrilla_pool == 2
    assert load_scenario("tamames").guerrilla_pool == 6  # the file as it is


def _small_box(tmp_path) -> str:
    text = (SCENARIO_DIR / "tamames.toml").read_text(encoding="utf-8")
    text = text.replace("guerrilla_pool = 6", "guerrilla_pool = 2").replace("guerrilla = 3", "guerrilla = 1")
    path = tmp_path / "small-box.toml"
    path.write_text(text, encoding="utf-8")
    assert tomllib.loads(text)["scenario"]["guerrilla_pool"] == 2
    return str(path)


def test_starting_counters_above_the_box_are_refused_in_one_line(tmp_path, monkeypatch):
    scenario = _small_box(tmp_path)
    assert load_scenario(scenario, {"sides.S.guerrilla": 3}).guerrilla_pool == 0
    with pytest.raises(NapsimInputError) as e:
        load_scenario(scenario, {"sides.S.guerrilla": 4})
    msg = str(e.value)
    assert msg.startswith("--set: field 'sides.S.guerrilla': 4 starting Guerrilla counters, but the "
                          "Guerrilla box of tamames holds 3 (1 starting + 2 unacquired) (allowed: 0-3 "
                          "starting counters); or set scenario.guerrilla_pool"), msg
    assert "scenario.guerrilla_pool" in msg
    monkeypatch.chdir(tmp_path)
    code, out, err = napsim_main(monkeypatch, "simulate", "--scenario", scenario, "--set",
                                 "sides.S.guerrilla=4", "--games", "10", "--out", "out")
    assert code == 2 and out == "", (out, err)
    (line,) = err.strip().splitlines()
    assert "Guerrilla box of tamames holds 3" in line and not (tmp_path / "out").exists()
    # the explicit option: the pool set too, the box grows
    assert box(load_scenario(scenario, {"sides.S.guerrilla": 4, "scenario.guerrilla_pool": 2})) == 6


def test_a_balance_over_the_starting_counters_keeps_the_box_unless_the_pool_is_set():
    base = Variant("tamames")
    vary = parse_vary("sides.S.guerrilla=0..9", base)
    for v in range(10):
        sc, _, _ = base.with_override(vary.path, v).inputs()
        assert box(sc) == TAMAMES_BOX and sc.guerrilla_pool == 9 - v
    moved = Variant("tamames", (("scenario.guerrilla_pool", 6),))
    for v in (0, 9):
        sc, _, _ = moved.with_override(vary.path, v).inputs()
        assert sc.guerrilla_pool == 6 and box(sc) == 6 + v


def test_the_downloaded_scenario_file_holds_the_pool_the_box_leaves(tmp_path):
    text = api.scenario_toml("tamames", {"sides.S.guerrilla": 5})
    assert tomllib.loads(text)["scenario"]["guerrilla_pool"] == 4
    path = tmp_path / "whatif.toml"
    path.write_text(text, encoding="utf-8")
    assert load_scenario(path).guerrilla_pool == 4
    a = napsim.simulate(str(path), games=200, seed=3).summary
    b = napsim.simulate("tamames", {"sides.S.guerrilla": 5}, games=200, seed=3).summary
    assert a["value"].fillna(-1).tolist() == b["value"].fillna(-1).tolist()  # bit for bit
