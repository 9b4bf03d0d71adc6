"""The words of napsim's refusals as a user reads them: a `--set` value is named as the user gave it
(`--set` and the path), "(allowed: ...)" lists values only, a mistyped name gets "did you mean ...",
a refused `--out` says the true reason, and Ctrl-C exits 130 saying how to go on. None of these
plays a game: every refusal comes before the first one."""

from __future__ import annotations

import pytest

import napsim.cli as cli_mod
from napsim.cli import main
from napsim.model.cards import ranked_names
from napsim.model.errors import NapsimInputError, did_you_mean, unknown_name
from napsim.model.glossary import CARD_FLOW
from napsim.model.scenarios import builtin_scenarios


def napsim(capsys, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as e:
        main(list(args))
    out, err = capsys.readouterr()
    return e.value.code, out, err


def one_line_error(capsys, *args: str) -> str:
    code, out, err = napsim(capsys, *args)
    assert code == 2 and out == "", (code, out, err)
    assert err.count("\n") == 1 and err.startswith("napsim: error: "), err
    return err.strip()


SIM = ("simulate", "--scenario", "tamames", "--games", "10")


def test_a_wrong_set_value_names_set_and_the_path_not_the_shipped_file(capsys, tmp_path):
    err = one_line_error(capsys, *SIM, "--set", "sides.S.hand=abc", "--out", str(tmp_path / "x"))
    assert err == ("napsim: error: --set: field 'sides.S.hand': 'abc' is not an integer "
                   "(allowed: integers 1-20)")
    err = one_line_error(capsys, *SIM, "--set", "sides.S.hand=40", "--out", str(tmp_path / "x"))
    assert "--set: field 'sides.S.hand': 40 is out of range" in err and "tamames.toml" not in err


def test_a_mistyped_set_key_or_path_gets_did_you_mean(capsys, tmp_path):
    err = one_line_error(capsys, *SIM, "--set", "sides.S.hnd=5", "--out", str(tmp_path / "x"))
    assert "--set: field 'sides.S.hnd': unknown key: did you mean 'hand'?" in err
    err = one_line_error(capsys, *SIM, "--set", "sids.S.hand=5", "--out", str(tmp_path / "x"))
    assert ("--set: field 'sids': unknown parameter path: did you mean 'sides'? "
            "(allowed: scenario, sides)") in err


def test_a_set_value_wrong_only_with_the_rest_of_the_file_names_what_was_given(capsys, tmp_path):
    err = one_line_error(capsys, *SIM, "--set", "sides.S.guerrilla_rule=off", "--out", str(tmp_path / "x"))
    assert "--set: field 'sides.S.guerrilla_rule': 3 counters but the guerrilla rule is off" in err


def test_compare_names_a_and_b(capsys):
    err = one_line_error(capsys, "compare", "--scenario", "tamames", "--b", "sides.S.hand=0")
    assert err.startswith("napsim: error: --b: field 'sides.S.hand': 0 is out of range")


def test_a_mistyped_scenario_policy_and_metric_get_did_you_mean(capsys, tmp_path):
    err = one_line_error(capsys, "simulate", "--scenario", "tamamez", "--out", str(tmp_path / "x"))
    assert "unknown scenario name: did you mean 'tamames' or 'epic3-tamames'?" in err
    err = one_line_error(capsys, *SIM, "--policy", "greedy,randm", "--out", str(tmp_path / "x"))
    assert "unknown policy 'randm': did you mean 'random'? (allowed: greedy, random, lookahead)" in err
    err = one_line_error(capsys, *SIM, "--policy", "greedy:w_cc=2,random", "--out", str(tmp_path / "x"))
    assert "unknown policy parameter: did you mean 'w_c'?" in err


def test_a_mistyped_metric_is_answered_with_the_close_names_not_all_of_them(capsys):
    err = one_line_error(capsys, "balance", "--scenario", "tamames", "--vary", "sides.S.hand=4..6",
                         "--equalize", "F,S", "--metric", "effective_per_trun")
    assert "unknown metric 'effective_per_trun': did you mean 'effective_per_turn'" in err
    assert "(allowed:" not in err and "g_nullified_in_french_L" not in err and len(err) < 400, err


def test_did_you_mean_finds_close_names_and_says_nothing_for_none():
    assert did_you_mean("Tamames", ["symmetric", "tamames"]) == "did you mean 'tamames'?"
    assert did_you_mean("zzzz", ["symmetric", "tamames"]) == ""
    e = unknown_name("--x", "x", "unknown thing 'q'", "q", [f"n{i}" for i in range(40)])
    assert "(allowed:" not in str(e) and "one of 40 names" in str(e)


def test_allowed_lists_values_and_a_hint_says_what_to_do():
    e = NapsimInputError("where", "field", "is wrong", allowed="1, 2", hint="try again")
    assert str(e) == "where: field 'field': is wrong (allowed: 1, 2); try again"


def test_typing_tamames_offers_tamames_first():
    assert ranked_names("tamames", builtin_scenarios())[:2] == ["tamames", "epic3-tamames"]
    assert ranked_names("sym", builtin_scenarios())[0] == "symmetric"
    assert ranked_names("", ["b", "a"]) == ["b", "a"]


def test_a_folder_of_the_users_own_is_not_said_to_hold_results(capsys, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("my notes")
    err = one_line_error(capsys, *SIM, "--out", str(mine))
    assert "holds files napsim did not write (notes.txt)" in err and "already holds results" not in err
    assert "(allowed:" not in err and err.endswith("choose another --out")
    assert (mine / "notes.txt").read_text() == "my notes"


def test_a_run_folder_is_named_by_napsims_own_lock_file(capsys, tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / ".lock").write_text("")
    err = one_line_error(capsys, *SIM, "--out", str(run))
    assert "run folder of `napsim run`" in err and "napsim's own lock file .lock" in err


def test_a_napsim_result_folder_is_said_to_hold_napsim_results(capsys, tmp_path):
    out = tmp_path / "res"
    out.mkdir()
    (out / "manifest.json").write_text('{"napsim": "0"}')
    err = one_line_error(capsys, *SIM, "--out", str(out))
    assert "is taken: it already holds napsim results; --force replaces them, or choose another --out" in err


def interrupt(*_a, **_k):
    raise KeyboardInterrupt


def test_ctrl_c_exits_130_and_says_a_run_resumes(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(cli_mod, "load_study", interrupt)
    study = tmp_path / "s.toml"
    study.write_text("")
    code, out, err = napsim(capsys, "run", str(study), "--out", str(tmp_path / "o"))
    assert code == 130 and "interrupted: run the same command again to resume" in err
    assert "error" not in err and "Traceback" not in err


def test_ctrl_c_in_simulate_says_nothing_was_written(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(cli_mod.api, "simulation", interrupt)
    code, out, err = napsim(capsys, *SIM, "--out", str(tmp_path / "o"))
    assert code == 130 and "interrupted: nothing was written" in err and "error" not in err
    assert not (tmp_path / "o").exists()


def test_help_texts_say_what_an_option_does_in_the_game(capsys):
    for command in ("simulate", "balance", "compare", "trace"):
        code, out, _ = napsim_help(capsys, command)
        words = " ".join(out.split())
        assert code == 0 and "the same seed plays the same games" in words, command
    _, out, _ = napsim_help(capsys, "balance")
    words = " ".join(out.split())
    assert "the units a side's cards order in a turn" in words
    assert "card flow, not the chance of winning" in words


def napsim_help(capsys, command: str) -> tuple[int, str, str]:
    try:
        main([command, "--help"])
        code = 0
    except SystemExit as e:
        code = e.code or 0
    out, err = capsys.readouterr()
    return code, out, err


def test_simulate_opens_with_the_answer_and_says_it_is_card_flow(capsys, tmp_path):
    main([*SIM, "--games", "300", "--out", str(tmp_path / "o")])
    out, _ = capsys.readouterr()
    lines = out.splitlines()
    answer = next(i for i, line in enumerate(lines) if line.startswith("The Spanish side gets "))
    assert "the card flow is not balanced" in lines[answer] and lines[answer + 1] == CARD_FLOW
    assert answer < next(i for i, line in enumerate(lines) if line.startswith("Rates, per side"))


def test_balance_and_compare_say_card_flow_not_the_chance_of_winning(capsys):
    main(["balance", "--scenario", "tamames", "--vary", "sides.S.hand=4..5", "--equalize", "F,S",
          "--games", "300"])
    out, _ = capsys.readouterr()
    assert out.rstrip().endswith(CARD_FLOW)
    main(["compare", "--scenario", "tamames", "--b", "sides.S.hand=5", "--games", "300"])
    out, _ = capsys.readouterr()
    assert out.rstrip().endswith(CARD_FLOW)
    main(["compare", "--scenario", "tamames", "--b", "sides.S.hand=5", "--games", "300", "--format", "csv"])
    out, _ = capsys.readouterr()
    assert CARD_FLOW not in out  # a CSV stays a table


def test_a_mistyped_or_impossible_vary_path_names_vary(capsys):
    base = ("balance", "--scenario", "tamames", "--equalize", "F,S", "--games", "100")
    err = one_line_error(capsys, *base, "--vary", "sides.S.hnd=4..6")
    assert "--vary: field 'sides.S.hnd': unknown key: did you mean 'hand'?" in err
    err = one_line_error(capsys, *base, "--vary", "sides.S.hand=0..6")
    assert "--vary: field 'sides.S.hand': 0 is out of range (allowed: integers 1-20)" in err
