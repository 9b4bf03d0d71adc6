"""`napsim scenarios` (issue 19): list the built-in scenarios, show one in words, write a commented
template that validates and plays as written; bad input is one line and exit 2."""

from __future__ import annotations

import re
import tomllib

import pytest
from support.faults import napsim_main as napsim

from napsim.model.rulebook import load_options
from napsim.model.scenario_template import template_text
from napsim.model.scenarios import (
    GAME_FORMATS,
    RULE_OPTIONS,
    SCENARIO_DIR,
    builtin_scenarios,
    load_scenario,
)
from napsim.output.views import scenario_list_text, scenario_text
from napsim.sim.packing import Simulation


def test_list_has_one_line_per_builtin_scenario(monkeypatch, capsys):
    code, text, err = napsim(monkeypatch, capsys, "scenarios")
    assert code == 0 and err == "" and text.rstrip("\n") == scenario_list_text()
    lines = text.splitlines()
    for name in builtin_scenarios():
        sc = load_scenario(name)
        row = [ln for ln in lines if ln.split(" ", 1)[0] == name]
        assert len(row) == 1, name
        assert re.search(rf"\s{sc.format}\s+\d players? a side\s+{sc.turns}\s+", row[0]), row[0]
        assert row[0].endswith(sc.description) and sc.description


@pytest.mark.parametrize("name", builtin_scenarios())
def test_show_every_builtin_scenario(name):
    sc = load_scenario(name)
    text = scenario_text(name)
    assert text.startswith(f"{sc.name}: {sc.description}")
    assert f"examples: {sc.examples}" in text and sc.examples
    assert f"{sc.turns} turns a side" in text
    for side in sc.sides:
        assert f"{side.name} (sides.{side.key})" in text
        sec = r"\s+(\S+\s+)?(Left|Centre|Right|[LCR][12])\s+\d"
        rows = [ln for ln in text.splitlines() if re.match(sec, ln)]
        assert len(rows) == 2 * (6 if sc.format == "lgb" else 3)
    read = [o for o in load_options() if not o.formats or sc.format in o.formats]
    assert read, "every format reads some rule option"
    for o in read:
        value = sc.rule(o.name)
        which = "the default reading" if value == o.default else "not the default"
        if o.house:  # a house rule says whether it is on, never that it is a reading
            which = "house rule off: the rule as written" if value == o.default else "HOUSE RULE on"
        assert f"  {o.name} = {value} ({which}" in text
    for o in load_options():
        assert o.name in text  # the others are named as not read in this format


def test_show_names_an_option_off_its_default(tmp_path):
    path = tmp_path / "shuffle.toml"
    path.write_text((SCENARIO_DIR / "symmetric.toml").read_text(encoding="utf-8")
                    + '\n[rules]\nelan_order = "shuffle_first"\n', encoding="utf-8")
    text = scenario_text(path)
    assert "elan_order = shuffle_first (not the default; the default reading is draw_first" in text
    assert "shuffle_first: The Elan reshuffle comes before the Command draw" in text


def test_show_cli_by_name_and_path(monkeypatch, capsys):
    code, text, _ = napsim(monkeypatch, capsys, "scenarios", "show", "epic3-tamames")
    assert code == 0 and "the CIC commands the Centre" in text and "EPIC clarifications (G4-G6)" in text
    # rule M6.3: the Tactician cards as dealt to the three commanders (2 + 2 + 2 of 3 + 3)
    assert "3 in the scenario; per commander, as dealt (M6.3, M8.2): CIC: 2, sub-commander 1: 2" in text
    code, by_path, _ = napsim(monkeypatch, capsys, "scenarios", "show",
                              str(SCENARIO_DIR / "epic3-tamames.toml"))
    assert code == 0 and by_path == text


@pytest.mark.parametrize("game_format", GAME_FORMATS)
def test_new_template_validates_and_plays(monkeypatch, capsys, tmp_path, game_format):
    path = tmp_path / f"my-{game_format}.toml"
    code, out, err = napsim(monkeypatch, capsys, "scenarios", "new", f"my-{game_format}", "--format",
                            game_format, "--out", str(path))
    assert code == 0 and err == "" and str(path) in out
    text = path.read_text(encoding="utf-8")
    assert text == template_text(f"my-{game_format}", game_format, str(path))
    sc = load_scenario(path)
    assert sc.format == game_format and sc.name == f"my-{game_format}"
    assert sc.rules == {k: v[0] for k, v in RULE_OPTIONS.items()}
    res = Simulation.build(sc).run(50, 7)
    assert res.totals[:, 7].tolist() == [50 * sc.turns] * 2  # turns: every game played out
    # every key is explained: each key line of [scenario] and of the first side follows a comment
    # (a pair such as square_form and square_leave shares one) or carries one
    lines = text.splitlines()
    data = tomllib.loads(text)
    for key in [*data["scenario"], *data["sides"]["A"]]:
        if key == "sections":
            continue
        at = next(i for i, ln in enumerate(lines) if ln.startswith(f"{key} = "))
        above = at - 1 if not lines[at - 1].startswith("#") else at
        assert lines[above - 1].startswith("#") or "#" in lines[at], key
    for name, allowed in RULE_OPTIONS.items():
        assert f'{name} = "{allowed[0]}"   # allowed: {", ".join(allowed)}' in text
    assert "EXAMPLE numbers" in text and "# Scenario my-" in text


def test_new_refuses_to_overwrite(monkeypatch, capsys, tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text("# mine\n", encoding="utf-8")
    code, out, err = napsim(monkeypatch, capsys, "scenarios", "new", "mine", "--out", str(path))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("napsim: error:") and "already exists" in err
    assert path.read_text(encoding="utf-8") == "# mine\n"


def test_new_default_path_is_name_toml(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    code, _, _ = napsim(monkeypatch, capsys, "scenarios", "new", "here")
    assert code == 0 and load_scenario(tmp_path / "here.toml").format == "epic1"


@pytest.mark.parametrize("args, words", [
    (("scenarios", "show", "no-such-battle"), "unknown scenario name"),
    (("scenarios", "show", "missing.toml"), "scenario file not found"),
    (("scenarios", "new", "bad name"), "not a usable scenario name"),
    (("scenarios", "new", "../up"), "not a usable scenario name"),
    (("scenarios", "new", "ok", "--format", "epic9"), "--format"),
    (("scenarios", "new", "ok", "--out", "no/such/folder/ok.toml"), "no such folder"),
    (("scenarios", "new", "ok", "--out", "ok.txt"), "must end in .toml"),
])
def test_bad_input_is_one_line_and_exit_2(monkeypatch, capsys, tmp_path, args, words):
    monkeypatch.chdir(tmp_path)
    code, out, err = napsim(monkeypatch, capsys, *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("napsim: error:") and words in err, err
    assert list(tmp_path.iterdir()) == []


def test_show_names_the_policy_table(tmp_path):
    path = tmp_path / "tuned.toml"
    path.write_text((SCENARIO_DIR / "tamames.toml").read_text(encoding="utf-8")
                    + '\n[policy.S]\nname = "greedy"\ng_spend_mode = "threshold"\ng_threshold = 5\n',
                    encoding="utf-8")
    text = scenario_text(path)
    spanish = text.index("(sides.S)")
    line = next(ln for ln in text.splitlines() if "policy table" in ln)
    assert text.index(line) > spanish  # under the Spanish side, not the French
    assert "whenever this side plays greedy, it plays it with g_spend_mode = threshold, " \
           "g_threshold = 5" in line
    assert "policy table" not in scenario_text(SCENARIO_DIR / "tamames.toml")


@pytest.mark.parametrize("game_format", ["epic1", "lgb"])
def test_template_policy_table_plays_when_uncommented(tmp_path, game_format):
    text = template_text("tuned", game_format)
    head, sep, tail = text.partition("# [policy.B]")
    assert sep, "the template shows a [policy.<side>] table"
    assert "`napsim tune` prints such a table" in head[-700:]  # the comment right above it
    uncommented = head + "[policy.B]" + "\n".join(
        ln[2:] if ln.startswith("# ") else ln for ln in tail.splitlines())
    path = tmp_path / "tuned.toml"
    path.write_text(uncommented + "\n", encoding="utf-8")
    sc = load_scenario(path)
    assert sc.policies == {"B": ("greedy", {"g_spend_mode": "threshold", "g_threshold": 5})}
