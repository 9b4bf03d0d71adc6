"""The readings report: every rule option against its default on the same games (paired)."""

from __future__ import annotations

import pandas as pd
import pytest

from napsim import NapsimInputError
from napsim.api import write_readings
from napsim.model.scenarios import load_scenario
from napsim.sim.packing import Simulation
from napsim.study.readings import load_readings_spec, paired_rows


def test_paired_difference_of_identical_readings_is_exactly_zero():
    # rule E9.4: the same reading played twice on the same games gives the same games, so every
    # paired difference is exactly 0 with a zero-width interval
    runs = [Simulation.build(load_scenario("symmetric", {"rules.elan_order": "draw_first"}))
            .run(300, 5, per_game=True) for _ in range(2)]
    rows = paired_rows("elan_order", "symmetric", *runs)
    assert rows and all(r["difference"] == 0 and r["ci_low"] == r["ci_high"] == 0 for r in rows)
    assert all(not r["matters"] and r["n"] == 300 for r in rows)


def test_readings_file_runs_and_writes_a_report(tmp_path):
    # rules M6.2, M8.2: the initiative reading moves the initiative share; the report says so
    # (no_card, the alternative since issue 26, rolls more often)
    spec_file = tmp_path / "r.toml"
    spec_file.write_text('[readings]\nname = "r"\ngames = 400\nseed = 3\n'
                         '[options]\ninitiative = ["epic4-symmetric"]\n'
                         'guerrilla_share = [{ scenario = "epic3-tamames", set = '
                         '{ "sides.S.sections.R.spanish" = 2 } }]\n')
    out = write_readings(load_readings_spec(spec_file), tmp_path / "out")
    df = pd.read_csv(out / "readings.csv")
    share = df[(df.option == "initiative") & (df.headline == "initiative_share")]
    assert len(share) == 2 and (share.ci_low > 0).all() and share.matters.all()
    g = df[(df.option == "guerrilla_share") & (df.headline == "french_cards_nullified")]
    assert len(g) == 1 and g.iloc[0].difference > 0  # "shared" hands out the lost counters
    assert "with sides.S.sections.R.spanish = 2" in g.iloc[0].scenario
    text = (out / "report.md").read_text()
    assert "## Findings" in text and "`initiative = \"no_card\"` instead of" in text
    with pytest.raises(NapsimInputError):
        write_readings(load_readings_spec(spec_file), out)  # never overwritten without force


@pytest.mark.parametrize("body,says", [
    ('[readings]\nname = "r"\ngames = 10\nseed = 1\n[options]\ndragons = ["symmetric"]\n', "unknown key"),
    ('[readings]\nname = "r"\ngames = 10\nseed = 1\n[options]\ninitiative = "epic3"\n',
     "not a list of scenarios"),
    ('[readings]\nname = "r"\ngames = 10\nseed = 1\n[options]\ninitiative = ["nowhere"]\n',
     "unknown scenario name"),
    ('[readings]\nname = "r"\ngames = 1\nseed = 1\n[options]\n', "out of range"),
])
def test_bad_readings_files_are_one_line_errors(tmp_path, body, says):
    p = tmp_path / "bad.toml"
    p.write_text(body)
    with pytest.raises(NapsimInputError) as e:
        load_readings_spec(p)
    assert says in str(e.value) and "\n" not in str(e.value)
