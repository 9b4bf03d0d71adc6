"""Issue 30 part 3, the skill study: studies/skill.toml loads and a small version of it runs into a
report; a ladder's gaps are `napsim compare`'s paired differences; its sentences and a balance's
crossing move are computed from the numbers (hand-built inputs whose sentences are known); the new
variants-file entries ([[tune]], [[ladder]], '@name', `against`) refuse bad input in one line."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from support.cli import napsim_main, refused_with_studies

from napsim.api import compare_run, regenerate
from napsim.model.metrics import policy_words, value_words
from napsim.model.policies import parse_policy_option, policy_text, policy_vector
from napsim.output.findings.ladder import ladder_sentences, shift_sentence, trend_sentence
from napsim.output.variants import instead, variant_labels
from napsim.sim import summary
from napsim.sim.summary import Z95
from napsim.study.balance import Balance, Setting, Vary
from napsim.study.ladder import Ladder, run_ladder
from napsim.study.spec import load_study
from napsim.study.variants import Variant
from napsim.study.variants_file import load_variants_file

ROOT = Path(__file__).resolve().parents[1]
SKILL = ROOT / "studies" / "skill.toml"
LOOK = "lookahead:lookahead_k=8;lookahead_d=1"


def test_the_skill_study_loads_and_its_report_is_committed():
    spec = load_variants_file(SKILL)
    kinds = [(e.kind, e.name) for e in spec.entries]
    assert kinds == [("tune", "tuned_blue"), ("tune", "spanish_spending"), ("tune", "tuned_french"),
                     ("ladder", "symmetric"), ("ladder", "tamames_spanish"), ("ladder", "tamames_french"),
                     ("balance", "hand_greedy"), ("balance", "hand_tuned"), ("balance", "hand_lookahead")]
    sym = next(e for e in spec.entries if e.name == "symmetric")
    assert sym.options["values"] == list(range(4, 11)) and LOOK in sym.options["policies"]
    assert "@tuned_blue" in sym.options["policies"]
    results = ROOT / "results" / "skill"
    assert sorted(p.name for p in results.iterdir()) == sorted(spec.files())
    manifest = json.loads((results / "manifest.json").read_text())
    assert [(e["kind"], e["name"]) for e in manifest["entries"]] == kinds
    assert not any("@" in e["command"] for e in manifest["entries"]), "the report shows answers, not names"


def _small(text: str) -> str:
    """skill.toml at a size the default suite can afford (the same entries and references)."""
    text = text.replace("games = 20000", "games = 400\nrounds = 2")
    text = re.sub(r"games = [34]000", "games = 120", text)
    text = text.replace("values = [4, 5, 6, 7, 8, 9, 10]", "values = [4, 6]")
    return text.replace("lookahead_k=8", "lookahead_k=2")


@pytest.mark.slow  # its tamames ladders play the commanders' planned kernel (a compile of its own)
def test_a_small_version_of_the_skill_study_runs(tmp_path):
    studies = tmp_path / "studies"
    studies.mkdir()
    (studies / "skill.toml").write_text(_small(SKILL.read_text(encoding="utf-8")), encoding="utf-8")
    (line,) = list(regenerate(["skill"], studies, tmp_path / "results"))
    assert "9 answer(s)" in line
    out = tmp_path / "results" / "skill"
    spec = load_variants_file(studies / "skill.toml")
    assert sorted(p.name for p in out.iterdir()) == sorted(spec.files())
    report = (out / "report.md").read_text(encoding="utf-8")
    look = "planning play (lookahead: up to 2 rollouts per candidate, 1 own turn looked ahead)"
    assert f"With {look} instead of greedy play, Blue get" in report
    assert "The gap between planning play and greedy play (Blue)" in report
    assert "the crossing" in report and "(paired: the same 120 games at every setting)" in report
    tuned = json.loads((out / "tuned_blue.json").read_text())
    ladder = json.loads((out / "symmetric.json").read_text())
    assert ladder["values"] == [4, 6] and all(s in report for s in ladder["sentences"])
    # the ladder plays the tune's answer, as the command line it shows
    best = tuned["best"]["settings"] if tuned["best"]["significant"] else {}
    want = policy_text("greedy", best)
    assert any(r["policy"] == want for r in ladder["rows"]), (want, {r["policy"] for r in ladder["rows"]})
    assert (out / "symmetric.png").read_bytes().startswith(b"\x89PNG")


def test_a_ladder_gap_is_napsim_compares_paired_difference():
    hand = ["sides.A.hand=5", "sides.B.hand=5"]
    lad = run_ladder("symmetric", "A", ["lookahead:lookahead_k=2;lookahead_d=1"], over="sides.*.hand",
                     values=[5], games=60, chunk=25)
    cmp = compare_run("symmetric", hand, hand, policy_a="greedy,greedy",
                      policy_b="lookahead:lookahead_k=2;lookahead_d=1,greedy",
                      metrics=["effective_per_turn"], games=60)
    for s, side in enumerate(("A", "B")):
        row = cmp.frame[cmp.frame["side_key"] == side].iloc[0]
        g = lad.gap(0, 1, "effective_per_turn", s)
        assert (g.value, g.half_width, g.n) == pytest.approx((row["difference"], row["half_width"], row["n"]),
                                                              abs=1e-12)


# --------------------------------------------------------------------------------------------
# hand-built inputs: the sentences are known


def _est(value: float, half: float, n: int = 4, sign: float = 1.0) -> summary.Estimate:
    """An estimate over n games whose 95% half-width is `half`: influences +-a alternating."""
    pattern = np.array([1.0, -1.0] * (n // 2))
    a = half / (Z95 * float(np.std(pattern, ddof=1)) / math.sqrt(n))
    return summary.Estimate(value, sign * a * pattern)


def _ladder(gaps: list[tuple[float, float]], base=10) -> Ladder:
    """Blue greedy (exact levels) against one planning policy at hands 4 and 10, Red untouched."""
    lad = Ladder("symmetric", "A", ("A", "B"), ("Blue", "Red"), "greedy,greedy", ("greedy,greedy",
                 f"{LOOK},greedy"), ("greedy", LOOK), "sides.*.hand", (4, 10), base,
                 ("effective_per_turn",), 4, 1)
    for vi, (gap, half) in enumerate(gaps):
        level = 6.5 + vi
        flat = summary.Estimate(level, np.zeros(4))
        lad.estimates[(vi, 0)] = {"effective_per_turn": [flat, flat]}
        lad.estimates[(vi, 1)] = {"effective_per_turn": [_est(level + gap, half), flat]}
    return lad


PLAN = "planning play (lookahead: up to 8 rollouts per candidate, 1 own turn looked ahead)"


@pytest.mark.parametrize("gaps,verb,change", [
    ([(0.07, 0.01), (0.04, 0.03)], "shrinks", "-0.030 [-0.050, -0.010]"),
    ([(0.02, 0.01), (0.08, 0.03)], "grows", "+0.060 [+0.040, +0.080]"),
    ([(0.04, 0.01), (0.05, 0.03)], "does not change clearly", "+0.010 [-0.010, +0.030]"),
])
def test_the_trend_sentence_says_grows_or_shrinks_from_the_paired_change(gaps, verb, change):
    lad = _ladder(gaps)
    (g0, h0), (g1, h1) = gaps
    ends = (f"+{g0:.3f} [+{g0 - h0:.3f}, +{g0 + h0:.3f}] at 4 cards, "
            f"+{g1:.3f} [+{g1 - h1:.3f}, +{g1 + h1:.3f}]")
    assert trend_sentence(lad, 1, "effective_per_turn", 0) == (
        f"The gap between planning play and greedy play (Blue) {verb} from 4 cards to 10 cards: {ends} at "
        f"10 cards; the change {change} is paired (the same 4 games at every value)")


def test_the_ladder_sentences_for_a_known_ladder():
    lad = _ladder([(0.07, 0.01), (0.04, 0.03)])  # base 10: the scenario's own value
    got = ladder_sentences(lad)
    assert got[0] == (f"With {PLAN} instead of greedy play, Blue get +0.040 [+0.010, +0.070] effective "
                      "orders a turn at a hand of 10 cards (both sides; n = 4 paired games).")
    assert got[1].startswith("The gap between planning play and greedy play (Blue) shrinks")
    assert got[2] == ("Red, still playing greedy play, get a change in effective orders a turn at a hand of "
                      "10 cards (both sides; paired, n = 4 games each): +0 against planning play.")
    lad = _ladder([(0.001, 0.01), (0.04, 0.03)], base=4)
    assert ladder_sentences(lad)[0] == (
        f"With {PLAN} instead of greedy play, Blue get no clear difference in effective orders a turn: "
        "+0.001 [-0.009, +0.011] at a hand of 4 cards (both sides; n = 4 paired games).")


def _balance(policy: str, f0: float, f1: float, infl: np.ndarray) -> Balance:
    vary = Vary("sides.S.hand", 3, 9, True)
    b = Balance(vary, "effective_per_turn", (0, 1), ("F", "S"), ("French", "Spanish"), None, 4, 1,
                base=Variant("tamames", (), None, policy))
    b.settings = [Setting(4, [None, None], summary.Estimate(f0, infl)),
                  Setting(5, [None, None], summary.Estimate(f1, infl))]
    b.bracket = (4, 5)
    b.crossing = summary.crossing(4, b.settings[0].f, 5, b.settings[1].f)
    return b


def test_the_crossing_move_is_paired_and_in_words():
    p = _est(0.0, 0.02).influence
    ref = _balance("greedy,greedy", -0.25, 0.25, p / 2)     # 4.5, influence -p
    new = _balance(f"{LOOK},{LOOK}", -0.75, 0.25, -p)        # 4.75, influence +p: the move has 2p
    assert shift_sentence(new, ref) == (
        f"With both sides playing {PLAN} instead of both sides playing greedy play, the balance lies at "
        "Command hand size (Spanish) = 4.75 [4.73, 4.77] instead of 4.50 [4.48, 4.52]: the crossing "
        "moves, by +0.250 [+0.210, +0.290] (paired: the same 4 games at every setting)")
    same = _balance(f"{LOOK},greedy", -0.26, 0.24, -p)      # 4.52, influence +2p: the move has 3p
    assert "does not move clearly" in shift_sentence(same, ref)
    assert "French playing planning play" in shift_sentence(same, ref)


def test_crossing_estimate_is_the_crossing_with_influences():
    rng = np.random.default_rng(3)
    f0 = summary.Estimate(-0.3, rng.normal(size=50))
    f1 = summary.Estimate(0.4, rng.normal(size=50))
    v, lo, hi = summary.crossing(2, f0, 3, f1)
    e = summary.crossing_estimate(2, f0, 3, f1)
    assert (e.value, e.value - e.half_width, e.value + e.half_width) == (v, lo, hi)


def test_policy_words_and_text():
    assert policy_words("greedy") == "greedy play" and policy_words("random") == "random play"
    tuned = policy_words("greedy", {"keep_weight": 0.75})
    assert tuned == "tuned greedy play (weight of the hand card kept: 0.75)"
    assert policy_words("lookahead", {"lookahead_k": "1", "lookahead_d": "3", "lookahead_top": "4"}) == (
        "planning play (lookahead: up to 1 rollout per candidate, 3 own turns looked ahead, candidates "
        "examined (0: every one): 4)")
    # the race (the default) stops a candidate early: "up to"; the full search plays every rollout
    assert policy_words("lookahead", {"lookahead_k": "8", "lookahead_search": "full"}) == (
        "planning play (lookahead: 8 rollouts per candidate, 2 own turns looked ahead, how the "
        "planner spends its rollouts: every candidate all its rollouts)")
    text = policy_text("greedy", {"g_spend_mode": "threshold", "g_threshold": 5})
    assert text == "greedy:g_spend_mode=threshold;g_threshold=5"
    assert parse_policy_option(text) == [("greedy", {"g_spend_mode": "threshold", "g_threshold": "5"})]
    assert policy_text("random") == "random"


def test_compare_names_policies_in_words():
    # `napsim compare`'s own sentences: each side whose policy differs, in words, not the option's text
    names = {"A": "Blue", "B": "Red"}
    greedy = Variant("symmetric", policy="greedy,greedy")
    look = Variant("symmetric", policy="lookahead:lookahead_k=4;lookahead_d=1,greedy")
    assert instead(greedy, look, names) == ("Policy, Blue at planning play (lookahead: up to 4 rollouts "
                                            "per candidate, 1 own turn looked ahead) instead of greedy play")
    assert instead(greedy, Variant("symmetric", policy="random,random"), names) == (
        "Policy, both sides at random play instead of greedy play")
    tuned = Variant("symmetric", policy="greedy:keep_weight=0.5,random")
    assert variant_labels(greedy, tuned, names) == (
        "Policy, Blue: greedy play; Policy, Red: greedy play",
        "Policy, Blue: tuned greedy play (weight of the hand card kept: 0.5); Policy, Red: random play")


# --------------------------------------------------------------------------------------------
# bad variants files: one line naming the file, the field and what is allowed

TUNE = '''
[[tune]]
name = "t"
title = "T"
scenario = "symmetric"
side = "A"
knob = ["keep_weight=0,0.5"]
games = 200
'''
LADDER = '''
[[ladder]]
name = "l"
title = "L"
scenario = "symmetric"
side = "A"
policies = ["random", "@t"]
over = "sides.*.hand"
values = [4, 6]
games = 100
'''
BALANCE = '''
[[balance]]
name = "b"
title = "B"
scenario = "tamames"
vary = "sides.S.hand=3..9"
equalize = "F,S"
games = 100
against = "a"
'''
HEAD = '[variants]\nname = "x"\n'


@pytest.mark.parametrize("body,needle", [
    (HEAD + LADDER, "[[ladder]] l: field 'policy': '@t' names no tune entry before this one (allowed: a "
                    "[[tune]] entry first)"),
    (HEAD + TUNE + LADDER.replace('"@t"', '"@u"'), "'@u' names no tune entry before this one (allowed: @t)"),
    (HEAD + TUNE + TUNE.replace('"t"', '"u"').replace('side = "A"', 'side = "A"\npolicy = "@u,greedy"'),
     "[[tune]] u: field 'policy': '@u' names no tune entry before this one (allowed: @t)"),
    (HEAD + BALANCE, "[[balance]] b: field 'against': 'a' is not an earlier balance entry (allowed: a "
                     "[[balance]] entry first)"),
    (HEAD + TUNE + LADDER.replace('side = "A"', 'side = "Q"'),
     "field 'side': unknown side 'Q' (allowed: A, B, *)"),
    (HEAD + TUNE + LADDER.replace('["random", "@t"]', '"random"'),
     "field 'policies': 'random' is not a list"),
    (HEAD + TUNE + LADDER.replace('["random", "@t"]', '["random,greedy"]'),
     "field 'policies': 'random,greedy' is not one policy"),
    (HEAD + TUNE + LADDER.replace('["random", "@t"]', '["bogus"]'), "unknown policy 'bogus'"),
    (HEAD + TUNE + LADDER.replace('over = "sides.*.hand"\n', ''), "field 'values': values without a setting"),
    (HEAD + TUNE + LADDER.replace('values = [4, 6]\n', ''), "field 'values': () is not a list of values"),
    (HEAD + TUNE + LADDER.replace('values = [4, 6]', 'values = [4, 99]'), "hand"),
    (HEAD + TUNE + LADDER.replace('games = 100', 'gmaes = 100'), "[[ladder]] #1: field 'gmaes': unknown key"),
    (HEAD + TUNE.replace('knob = ["keep_weight=0,0.5"]\n', ''),
     "[[tune]] #1: field 'knob': missing required key"),
])
def test_bad_skill_entries_are_one_line(body, needle, tmp_path, monkeypatch):
    err = refused_with_studies(monkeypatch, tmp_path, body, "regen", "x")
    assert needle in err and str(tmp_path / "studies" / "x.toml") in err, err


# --------------------------------------------------------------------------------------------
# a study sweep of policy.<side> takes a policy with parameters ('name:param=value;...')

SWEPT = ["greedy", "greedy:keep_weight=0.75;scout_bonus=0.5", "lookahead:lookahead_k=2;lookahead_d=1"]


def test_a_study_sweep_point_may_name_a_policy_with_parameters(study_toml):
    st = load_study(study_toml(policies=["greedy:march_prob=0.5", "greedy"], sweep={"policy.A": SWEPT}))
    got = [st.point_inputs(p)[2][0] for p in st.points]
    assert got == [("greedy", {"march_prob": 0.5}),
                   ("greedy", {"march_prob": 0.5, "keep_weight": 0.75, "scout_bonus": 0.5}),
                   ("lookahead", {"march_prob": 0.5, "lookahead_k": 2.0, "lookahead_d": 1.0})]
    sim = st.build(st.points[1])
    want = policy_vector("greedy", {"march_prob": 0.5, "keep_weight": 0.75, "scout_bonus": 0.5})
    assert np.array_equal(sim.policies[0], want)
    assert value_words("policy.A", SWEPT[1]) == (
        "tuned greedy play (weight of the hand card kept: 0.75, value of a Scout draw: 0.5)")


@pytest.mark.parametrize("value,needles", [
    ("greedy:bogus=1", ["point p001", "bogus", "unknown policy parameter"]),
    ("greedy:keep_weight=1,random", ["point p001", "names more than one policy"]),
    ("greedy:keep_weight", ["point p001", "cannot read 'keep_weight'"]),
    ("lookahead:lookahead_k=2.5", ["point p001", "lookahead_k", "not a whole number"]),
])
def test_a_bad_policy_with_parameters_in_a_sweep_is_one_line(value, needles, study_toml, tmp_path,
                                                              monkeypatch):
    path = study_toml(sweep={"policy.B": ["greedy", value]})
    code, out, err = napsim_main(monkeypatch, "run", str(path), "--out", str(tmp_path / "out"))
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert all(n in err for n in needles), err
    assert not (tmp_path / "out" / "points").exists()
