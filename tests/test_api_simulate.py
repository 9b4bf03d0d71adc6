"""`napsim.simulate` (issue 29): the numbers of `napsim simulate` bit for bit, and the take-away of
`napsim app` (the scenario as TOML, the command lines) reproducing them."""

from __future__ import annotations

import shlex
import tomllib

import pytest

import napsim
from napsim import api
from napsim.cli import main
from napsim.model.errors import NapsimInputError
from napsim.model.scenarios import (
    builtin_scenarios,
    override_text,
    parse_overrides,
    read_toml,
    resolve_scenario_path,
    toml_text,
)

SETS = ["sides.A.hand=9", "rules.initiative=no_card_no_orders"]


def _cli(argv: list[str], capsys) -> str:
    main(argv)
    return capsys.readouterr().out


def test_simulate_gives_the_cli_summary_byte_for_byte(tmp_path, capsys):
    run = napsim.simulate("talavera-epic", SETS, games=600, seed=11, chunk=250)
    out = _cli(["simulate", "--scenario", "talavera-epic", "--set", SETS[0], "--set", SETS[1],
                "--games", "600", "--seed", "11", "--out", str(tmp_path / "r")], capsys)
    assert run.summary_csv() == (tmp_path / "r" / "summary.csv").read_text()
    for line in run.lines():  # what the command prints is the result's lines
        assert line in out
    assert run.summary.loc[run.summary["metric"] == "effective_per_turn", "n"].tolist() == [600 * 40] * 2


def test_simulate_writes_the_folder_the_cli_writes(tmp_path):
    run = napsim.simulate("symmetric", games=300, seed=3, out=tmp_path / "o")
    assert run.path == tmp_path / "o"
    assert (run.path / "games.parquet").is_file()
    assert (run.path / "summary.csv").read_text() == run.summary_csv()
    with pytest.raises(NapsimInputError, match="holds"):
        napsim.simulate("symmetric", games=300, seed=3, out=tmp_path / "o")


def test_simulate_refuses_bad_input_as_one_line():
    with pytest.raises(NapsimInputError, match="hand"):
        napsim.simulate("symmetric", {"sides.A.hand": 50}, games=10)
    sim = api.simulation("symmetric")
    with pytest.raises(NapsimInputError, match="Simulation"):
        napsim.simulate(sim, ["sides.A.hand=5"], games=10)


def test_a_progress_exception_stops_the_run():
    class Stop(Exception):
        pass

    def progress(done, games):
        raise Stop

    with pytest.raises(Stop):
        napsim.simulate("symmetric", games=400, seed=1, chunk=100, progress=progress)


def test_the_shown_command_and_the_downloaded_toml_reproduce_the_numbers(tmp_path, capsys):
    run = napsim.simulate("tamames", {"sides.S.guerrilla": 2, "sides.F.hand": 6}, games=500, seed=4)
    cmd = api.simulate_command("tamames", {"sides.S.guerrilla": 2, "sides.F.hand": 6}, games=500, seed=4,
                               out=str(tmp_path / "cmd"))
    argv = shlex.split(cmd)
    assert argv[:2] == ["napsim", "simulate"]
    _cli(argv[1:], capsys)
    assert (tmp_path / "cmd" / "summary.csv").read_text() == run.summary_csv()
    toml = tmp_path / "mine.toml"
    toml.write_text(api.scenario_toml("tamames", {"sides.S.guerrilla": 2, "sides.F.hand": 6}))
    _cli(shlex.split(api.simulate_command(str(toml), games=500, seed=4, out=str(tmp_path / "t")))[1:], capsys)
    assert (tmp_path / "t" / "summary.csv").read_text() == run.summary_csv()


@pytest.mark.parametrize("name", builtin_scenarios())
def test_toml_text_reads_back_to_the_same_document(name):
    doc, _ = read_toml(resolve_scenario_path(name))
    assert tomllib.loads(toml_text(doc, ["a comment"])) == doc


@pytest.mark.parametrize("value", ["epic", "no_card_no_orders", "My side", "true", "7", "", " x", 7, 0.25,
                                   True, [4, 4, 4]])
def test_override_text_reads_back(value):
    assert parse_overrides([f"p={override_text(value)}"]) == {"p": value}


def test_scenario_toml_refuses_what_cannot_load():
    with pytest.raises(NapsimInputError, match="hand"):
        api.scenario_toml("symmetric", {"sides.A.hand": 0})


def test_trace_text_is_what_napsim_trace_prints(capsys):
    text = api.trace_text("symmetric", ["sides.A.hand=5"], seed=9, game=2)
    out = _cli(["trace", "--scenario", "symmetric", "--set", "sides.A.hand=5", "--seed", "9", "--game", "2"],
               capsys)
    assert out == text + "\n"
    assert "turn" in text.lower()


def test_compare_and_balance_commands_name_their_options():
    assert api.compare_command("tamames", {"sides.S.guerrilla": 3}, {"sides.S.guerrilla": 0}, games=100,
                               seed=2) == ("napsim compare --scenario tamames --a sides.S.guerrilla=3 "
                                           "--b sides.S.guerrilla=0 --games 100 --seed 2")
    got = api.balance_command("symmetric", "sides.B.hand=4..8", "A,B", games=50, seed=1, deck_ensemble=3)
    assert got == ("napsim balance --scenario symmetric --vary sides.B.hand=4..8 --equalize A,B "
                   "--deck-ensemble 3 --games 50 --seed 1")


def test_the_section_chart_speaks_words_and_is_deterministic():
    import xml.etree.ElementTree as ET

    run = napsim.simulate("symmetric", games=300)
    svg = run.section_chart_svg()
    assert ET.fromstring(svg).tag.endswith("svg")
    text = svg.decode()
    for words in ("left", "centre", "right", "effective orders a turn", "Blue", "Red"):
        assert words in text, words
    assert napsim.simulate("symmetric", games=300).section_chart_svg() == svg
