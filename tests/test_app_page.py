"""The page of `napsim app` (issue 29) through Streamlit's AppTest: every panel, its numbers,
sentences and errors, and the same numbers as `napsim.simulate` and the CLI, bit for bit."""

from __future__ import annotations

import shlex
import time
from pathlib import Path

import pytest

pytest.importorskip("streamlit", reason="Streamlit is not installed (pip install -e \".[app]\")")

from streamlit.testing.v1 import AppTest  # noqa: E402
from support.apppage import PAGE, compile_kernels, open_page  # noqa: E402

import napsim  # noqa: E402
from napsim.app import form  # noqa: E402
from napsim.cli import main  # noqa: E402
from napsim.model.defaults import SEED  # noqa: E402
from napsim.output.sensitivity import findings  # noqa: E402
from napsim.output.tracefmt import trace_parts  # noqa: E402

GAMES = 1500


@pytest.fixture(scope="module", autouse=True)
def compiled():
    compile_kernels()


def page(scenario: str = "symmetric") -> AppTest:
    return open_page(scenario, GAMES)


def headline(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def errors(at: AppTest) -> list[str]:
    return [e.value for e in at.error]


def effective(run) -> dict[str, str]:
    rows = run.summary[run.summary["metric"] == "effective_per_turn"]
    return {f"{r.side}: effective orders a turn": f"{r.value:.3f}" for r in rows.itertuples()}


def test_the_answer_is_napsim_simulate_and_the_cli_bit_for_bit(tmp_path, capsys):
    at = page()
    at.number_input(key="symmetric|sides.A.hand").set_value(7).run()
    run = napsim.simulate("symmetric", {"sides.A.hand": 7}, games=GAMES, seed=SEED)
    assert headline(at) == effective(run)
    csv = at.session_state["downloads"]["summary.csv"]
    assert csv == run.summary_csv()
    main(["simulate", "--scenario", "symmetric", "--set", "sides.A.hand=7", "--games", str(GAMES),
          "--out", str(tmp_path / "cli")])
    assert (tmp_path / "cli" / "summary.csv").read_text() == csv
    # the shown commands reproduce it: with --set, and with the downloaded scenario file
    cmds = [c.value for c in at.code if c.value.startswith("napsim simulate")]
    assert len(cmds) == 2
    (tmp_path / "symmetric-whatif.toml").write_text(at.session_state["downloads"]["symmetric-whatif.toml"])
    for i, cmd in enumerate(cmds):
        argv = shlex.split(cmd)[1:]
        argv[argv.index("--out") + 1] = str(tmp_path / f"o{i}")
        if i == 1:
            argv[argv.index("--scenario") + 1] = str(tmp_path / "symmetric-whatif.toml")
        main(argv)
        assert (tmp_path / f"o{i}" / "summary.csv").read_text() == csv, cmd
    capsys.readouterr()


def test_the_answer_panel_shows_intervals_findings_and_sections():
    at = page("tamames")
    assert set(headline(at)) == {"French: effective orders a turn", "Spanish: effective orders a turn"}
    captions = " ".join(c.value for c in at.caption)
    assert "95% interval [" in captions and f"n = {GAMES * 30:,} turns played" in captions
    assert f"{GAMES:,} games; seed {SEED}" in captions
    findings = next(m.value for m in at.markdown if "card flow is" in m.value)
    assert findings.startswith("- The Spanish side gets ") and "the card flow is not balanced" in findings
    assert "estimated counts" in findings
    table = at.dataframe[0].value
    assert "Effective orders a turn, left section" in " ".join(table["measure"]) or len(table) >= 8
    assert any("Guerrilla" in m or "nullified" in m for m in table["measure"])  # the Spanish counters
    assert "Orders a turn, per side" in at.text[0].value  # what `napsim simulate` prints


def test_an_out_of_range_value_is_napsims_error_beside_the_field_and_the_page_keeps_working():
    at = page()
    before = headline(at)
    at.number_input(key="symmetric|sides.B.hand").set_value(50).run()
    assert not at.exception
    msgs = errors(at)
    assert msgs == ["Command hand size, Red: 50 is out of range (allowed: integers 1-20)"], msgs
    assert not at.metric
    at.number_input(key="symmetric|sides.B.hand").set_value(6).run()
    assert not errors(at) and headline(at) == before


def test_a_deck_that_cannot_deal_the_hands_says_so():
    at = page()
    at.number_input(key="symmetric|sides.A.hand").set_value(20)
    at.number_input(key="symmetric|sides.B.hand").set_value(20)
    at.selectbox(key="deck|symmetric").set_value("epic-tcg-sealed30").run()
    msgs = errors(at)
    assert len(msgs) == 1 and "cannot deal the opening hands" in msgs[0], msgs
    assert not at.metric


def test_a_broken_scenario_upload_is_one_line_and_a_good_one_plays(tmp_path):
    at = page()
    at.selectbox(key="scenario").set_value("(upload a file)").run()
    at.file_uploader(key="scenario_file").set_value(("mine.toml", b"[scenario\nname = 1", "application/toml"))
    at.run()
    msgs = errors(at)
    assert len(msgs) == 1 and msgs[0].startswith("mine.toml: not valid TOML"), msgs
    good = (Path(napsim.__file__).parent / "data" / "scenarios" / "symmetric.toml").read_bytes()
    at.file_uploader(key="scenario_file").set_value(("mine.toml", good, "application/toml")).run()
    assert not errors(at)
    assert headline(at) == effective(napsim.simulate("symmetric", games=GAMES, seed=SEED))
    cmd = next(c.value for c in at.code if c.value.startswith("napsim simulate"))
    assert "--scenario mine.toml" in cmd


def test_an_oversized_or_binary_upload_is_refused():
    at = page()
    at.selectbox(key="deck|symmetric").set_value("(upload a file)").run()
    at.file_uploader(key="deck_file").set_value(("big.csv", b"x" * (form.MAX_BYTES + 1), "text/csv")).run()
    assert any("too large" in m for m in errors(at))
    at.file_uploader(key="deck_file").set_value(("bin.csv", b"\xff\xfe\x00", "text/csv")).run()
    assert any("bin.csv" in m and "UTF-8" in m for m in errors(at))


def test_compare_keeps_a_and_shows_b_minus_a_with_the_compare_sentence():
    at = page("tamames")
    at.button(key="keep_a").click().run()
    assert any("change a setting" in i.value for i in at.info)
    at.number_input(key="tamames|sides.S.guerrilla").set_value(0).run()
    assert not at.exception, at.exception
    want = napsim.compare("tamames", {}, {"sides.S.guerrilla": 0}, games=GAMES)
    sentences = [m.value for m in at.markdown if "instead of" in m.value]
    assert sentences and sentences[0] == "\n".join(f"- {t}" for t in want["sentence"])
    # the answer leads: the change of the gap between the sides, then each side's own change
    texts = [m.value for m in at.markdown]
    gap = texts.index(f"**{want.attrs['answer'][0]}**")
    assert want.attrs["answer"][0].startswith("The gap in effective orders a turn, Spanish minus French")
    assert gap < texts.index(sentences[0]) and texts[gap + 1] == want.attrs["answer"][1]
    cmd = next(c.value for c in at.code if c.value.startswith("napsim compare"))
    assert "--b sides.S.guerrilla=0" in cmd and f"--games {GAMES}" in cmd


def test_balance_finds_the_crossing_with_its_interval():
    at = page()
    at.selectbox(key="bal_path").set_value("sides.B.hand").run()
    at.number_input(key="bal_lo|sides.B.hand").set_value(4)
    at.number_input(key="bal_hi|sides.B.hand").set_value(8)
    at.number_input(key="bal_games").set_value(600)
    at.button(key="bal_go").click().run()
    assert not at.exception, at.exception
    want = napsim.balance("symmetric", "sides.B.hand=4..8", equalize="A,B", games=600)
    assert any(m.value == f"**{want.sentence}**" for m in at.markdown)
    assert want.sentence.startswith("With 5 Red cards in hand the Blue lead by ")
    assert "the even point lies between, at " in want.sentence
    cmd = next(c.value for c in at.code if c.value.startswith("napsim balance"))
    assert "--vary sides.B.hand=4..8" in cmd and "--equalize A,B" in cmd


def test_balance_without_a_crossing_is_an_answer_and_the_target_mode_is_the_clis():
    at = page()
    at.selectbox(key="bal_path").set_value("sides.B.hand").run()
    at.number_input(key="bal_lo|sides.B.hand").set_value(7)
    at.number_input(key="bal_hi|sides.B.hand").set_value(9)
    at.number_input(key="bal_games").set_value(300)
    at.button(key="bal_go").click().run()
    assert not at.exception and not errors(at), (at.exception, errors(at))
    want = napsim.balance("symmetric", "sides.B.hand=7..9", equalize="A,B", games=300)
    assert any(m.value == f"**{want.sentence}**" for m in at.markdown)
    assert want.sentence.startswith("No number of Red cards in hand from 7 to 9 evens symmetric")
    at.radio(key="bal_mode").set_value("where one side reaches a value").run()
    at.selectbox(key="bal_side").set_value("B")
    at.number_input(key="bal_target").set_value(8.5)
    at.button(key="bal_go").click().run()
    assert not at.exception and not errors(at), (at.exception, errors(at))
    want = napsim.balance("symmetric", "sides.B.hand=7..9", target=8.5, side="B", games=300)
    assert any(m.value == f"**{want.sentence}**" for m in at.markdown)
    cmd = next(c.value for c in at.code if c.value.startswith("napsim balance"))
    assert "--target 8.5 --side B" in cmd and "--equalize" not in cmd


def test_one_game_is_the_trace_in_words():
    at = page()
    at.number_input(key="trace_game").set_value(3).run()
    text = napsim.api.trace_text("symmetric", seed=SEED, game=3)
    head, turns, tail = trace_parts(text)  # the whole text, each turn folded under its header
    codes = [c.value for c in at.code]
    assert head in codes and tail in codes and all(body in codes for _, body in turns)
    assert [e.label for e in at.expander if e.label.startswith("turn ")] == [t for t, _ in turns]
    at.selectbox(key="trace_turn").set_value(turns[9][0].split("  (", 1)[0]).run()  # jump to turn 5.2
    assert any(m.value == f"**{turns[9][0]}**" for m in at.markdown)
    assert [c.value for c in at.code].count(turns[9][1]) == 2  # at the top, and folded in its place
    assert "game 3" in text and "turn 1.1" in text


def test_take_it_away_reproduces_the_numbers_with_the_toml(tmp_path, capsys):
    at = page("lgb-symmetric")
    at.number_input(key="lgb-symmetric|scenario.turns").set_value(12).run()
    assert not errors(at)
    toml = at.session_state["downloads"]["lgb-symmetric-whatif.toml"]
    assert "turns = 12" in toml
    path = tmp_path / "lgb-symmetric-whatif.toml"
    path.write_text(toml)
    main(["simulate", "--scenario", str(path), "--games", str(GAMES), "--out", str(tmp_path / "o")])
    capsys.readouterr()
    assert (tmp_path / "o" / "summary.csv").read_text() == at.session_state["downloads"]["summary.csv"]
    # the chart handed out is the API's chart of the same games
    svg = at.session_state["downloads"]["sections.svg"]
    same = napsim.simulate(str(path), games=GAMES).section_chart_svg()
    assert svg.startswith(b"<?xml") and svg == same


def test_changing_the_format_shows_that_formats_fields():
    at = page("formats-armies")
    at.selectbox(key="formats-armies|scenario.format").set_value("epic3").run()
    assert not errors(at), errors(at)
    assert at.selectbox(key="formats-armies|sides.A.cic_section").value == "C"
    assert "Share of commander-turns on initiative" in " ".join(at.dataframe[0].value["measure"])


def test_a_first_start_says_it_compiles_and_the_page_still_answers(monkeypatch):
    # an empty numba cache, played fast: the engine says it is not compiled, the answer comes late
    from napsim.app import jobs, panels
    from napsim.app.worker import ResultCache

    monkeypatch.setattr(napsim.api, "engine_compiled", lambda game_format: False)
    shown = []
    real_wait, real_answer = panels._wait, jobs.answer

    def slow_answer(job, *args):
        time.sleep(0.3)
        return real_answer(job, *args)

    def wait(job, slot, label, on_partial=None, compiling=None):
        shown.append(compiling)
        return real_wait(job, slot, label, on_partial, compiling)

    monkeypatch.setattr(jobs, "answer", slow_answer)
    monkeypatch.setattr(jobs, "ANSWERS", ResultCache(4))  # nothing answered before
    monkeypatch.setattr(panels, "_wait", wait)
    at = page("tamames")
    assert shown[0] == napsim.api.compile_seconds("epic1") == 15
    assert headline(at) == effective(napsim.simulate("tamames", games=GAMES, seed=SEED))
    # what needs no kernel was on the page before the answer: the scenario file and the command
    assert "tamames-whatif.toml" in at.session_state["downloads"]


def test_the_lookahead_policy_is_offered_for_la_grande_battles_too():
    # rule P8: the planning policy is a choice like any other, La Grande Battles included (the
    # page plays it: test_the_page_plays_a_lookahead_lgb_side_as_napsim_simulate_does)
    from napsim.app.form import errors as form_errors
    from napsim.model.scenarios import load_scenario

    at = page("lgb-symmetric")
    key = f"policy|{load_scenario('lgb-symmetric').sides[0].key}"
    assert "lookahead" in at.selectbox(key=key).options
    assert form_errors("lgb-symmetric", {}, None, "lookahead,greedy") == {}


@pytest.mark.slow  # compiles the planned LGB kernel when the cache lacks it (about a minute)
def test_the_page_plays_a_lookahead_lgb_side_as_napsim_simulate_does():
    # rule P8 through the page on La Grande Battles: the numbers of napsim.simulate
    from napsim.model.scenarios import load_scenario

    games = 60
    at = AppTest.from_file(str(PAGE), default_timeout=300)
    at.session_state["games"] = games
    at.session_state["scenario"] = "lgb-symmetric"
    at.run()
    at.selectbox(key=f"policy|{load_scenario('lgb-symmetric').sides[0].key}").set_value("lookahead").run()
    assert not at.exception and not errors(at)
    run = napsim.simulate("lgb-symmetric", games=games, seed=SEED, policy="lookahead,greedy")
    assert headline(at) == effective(run)


@pytest.mark.slow  # compiles the planned kernel when the cache lacks it (about 30 s)
def test_the_page_plays_a_lookahead_side_as_napsim_simulate_does():
    # rule P8 through the page: the same numbers as napsim.simulate with the same policy
    at = page()
    at.selectbox(key="policy|A").set_value("lookahead").run()
    assert not at.exception and not errors(at)
    run = napsim.simulate("symmetric", games=GAMES, seed=SEED, policy="lookahead,greedy")
    assert headline(at) == effective(run)
    assert at.session_state["downloads"]["summary.csv"] == run.summary_csv()


def test_card_counts_ranks_the_estimated_counts_as_napsim_sensitivity():
    at = page()
    at.number_input(key="sens_games").set_value(300)
    at.button(key="sens_go").click().run()
    assert not at.exception, at.exception
    want = napsim.sensitivity("symmetric", games=300)
    shown = "\n".join(m.value for m in at.markdown)
    assert findings(want)[1] in shown
    cmd = next(c.value for c in at.code if c.value.startswith("napsim sensitivity"))
    assert "--side A" in cmd and "--games 300" in cmd


def test_house_rules_are_shown_apart_from_the_readings():
    at = page("formats-armies")
    labels = [s.label for s in at.selectbox]
    assert "tactic_reach (house rule; changes E3)" in labels
    assert at.selectbox(key="formats-armies|rules.tactic_reach").value == "one_section"
    assert any(e.label.startswith("House rules") for e in at.expander)


def test_the_guerrilla_box_keeps_its_total_unless_the_pool_is_kept():
    at = page("tamames")
    captions = lambda: [c.value for c in at.caption if c.value.startswith("The Guerrilla box")]  # noqa: E731
    assert captions() == ["The Guerrilla box holds 9: 3 at the start, 6 unacquired."]
    at.number_input(key="tamames|sides.S.guerrilla").set_value(5).run()
    assert not at.exception and not errors(at), (at.exception, errors(at))
    assert captions() == ["The Guerrilla box holds 9: 5 at the start, 4 unacquired."]
    at.checkbox(key="tamames|keep_pool").check().run()
    assert captions() == ["The Guerrilla box holds 11: 5 at the start, 6 unacquired."]
    at.number_input(key="tamames|scenario.guerrilla_pool").set_value(2).run()
    assert captions() == ["The Guerrilla box holds 7: 5 at the start, 2 unacquired."]
    cmd = api_command(at)
    assert "--set scenario.guerrilla_pool=2" in cmd and "--set sides.S.guerrilla=5" in cmd


def api_command(at: AppTest) -> str:
    return next(c.value for c in at.code if c.value.startswith("napsim simulate"))
