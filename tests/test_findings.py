"""Findings (issue 19): the sentences a report opens with come out of generic rules over its own
numbers. Synthetic summary frames where the right sentence is known: a flat curve, a curve that
flattens after its third value, policies whose difference is inside the noise or clear, sides
level or apart, the deck-data sentence with and without a deck-ensemble spread; and the committed
results/courier_rack summary gives sensible sentences for the flagship study."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from napsim.model.cards import load_deck
from napsim.output import findings
from napsim.output.findings import study, variants
from napsim.study.spec import load_study

ROOT = Path(__file__).resolve().parents[1]
HANDS = [4, 5, 6, 7, 8, 9]
GMT = findings.DeckNote("gmt90", 76, 90, 24, True)


def summary(curves: dict[str, list[float]], half: float = 0.01, policy: bool = True,
            red_shift: float = 0.0, metric: str = "effective_per_turn") -> pd.DataFrame:
    """A summary frame: hand sizes HANDS (x policies), two sides; `curves[policy]` the Blue values."""
    rows, k = [], 0
    for i, hand in enumerate(HANDS):
        for pol, ys in curves.items():
            for key, name, shift in (("A", "Blue", 0.0), ("B", "Red", red_shift)):
                y = ys[i] + shift
                rows.append(dict(point=f"p{k:03d}", **{"sides.*.hand": hand}, **({"policy.*": pol} if policy
                                                                                    else {}),
                                 side_key=key, side=name, metric=metric, kind="mean_per_turn", value=y,
                                 std=1.0, ci_low=y - half, ci_high=y + half, n=1000, games=1000))
            k += 1
    return pd.DataFrame(rows)


def spec(policies=("greedy",), metric: str = "effective_per_turn") -> dict:
    sweep = {"sides.*.hand": HANDS}
    if len(policies) > 1:
        sweep["policy.*"] = list(policies)
    return dict(main_metric=metric, main_side="A", metrics=[metric], sweep=sweep)


def texts(fs: list[findings.Finding]) -> list[str]:
    return [f.markdown() for f in fs]


# --------------------------------------------------------------------------------------------
# the curve rule


def test_curve_verdicts():
    assert findings.curve([5.0, 5.001, 4.999, 5.002], [0.01] * 4).flat
    c = findings.curve([0, 1, 2, 2.1, 2.15, 2.17], [0.01] * 6)  # steps 1, 1, 0.1, 0.05, 0.02
    assert not c.flat and c.start == 0 and c.after == 2
    c = findings.curve([0, 1, 2, 3, 4, 5], [0.01] * 6)
    assert c.after is None
    c = findings.curve([0, 1, 2, 3, 3.2, 5], [0.01] * 6)  # a step that jumps again is no plateau
    assert c.after is None
    c = findings.curve([0, 0, 3, 3.1, 3.1], [0.01] * 5)  # level, then a clear step: the reference
    assert c.start == 1 and c.after == 2
    c = findings.curve([0, 1, 1.5, 1.7, 1.9], [0.2] * 5)  # the later steps are inside the noise
    assert c.after == 2


def test_a_flat_curve_is_said_to_stay_level():
    level = [6.0, 6.001, 6.0, 5.999, 6.002, 6.0]
    fs = study.engine_findings(summary({"greedy": level}, policy=False), spec(), [])
    t = texts(fs)
    assert "does not move effective orders a turn (Blue) measurably" in t[0]
    assert any("stays level from 4 to 9" in x for x in t), t
    assert all(f.ref is not None for f in fs)


def test_a_curve_that_flattens_after_its_third_value():
    fs = study.engine_findings(summary({"greedy": [6, 7, 8, 8.1, 8.15, 8.17]}, policy=False),
                                        spec(), [])
    t = texts(fs)
    assert t[0].startswith("Command hand size (both sides) moves effective orders a turn (Blue): from "
                           "6.00 [5.99, 6.01] at 4 to 8.17 [8.16, 8.18] at 9")
    assert "[Main result](#main-result): p000, p005" in t[0]
    flat = next(x for x in t if "flattens" in x)
    assert "flattens after 6: each further step gives at most +0.10" in flat
    assert "under a quarter of the +1.00 from 4 to 5" in flat


def test_policies_inside_the_noise_show_no_clear_difference():
    same = [6.0, 6.5, 7.0, 7.5, 8.0, 8.5]
    near = [y + 0.005 for y in same]
    fs = study.engine_findings(summary({"greedy": near, "random": same}),
                                        spec(("greedy", "random")), [])
    pol = next(x for x in texts(fs) if "play" in x and "difference" in x)
    assert "Greedy and random play show no clear difference in effective orders a turn (Blue)" in pol


def test_a_clear_policy_difference_is_given_with_its_interval():
    greedy = [6.0, 6.5, 7.0, 7.5, 8.0, 8.5]
    random = [5.5, 5.8, 6.1, 6.4, 6.7, 7.0]
    fs = study.engine_findings(summary({"greedy": greedy, "random": random}),
                                        spec(("greedy", "random")), [GMT])
    t = texts(fs)
    pol = next(x for x in t if x.startswith("Greedy play gives more"))
    assert "+1.50 [+1.49, +1.51] with Command hand size (both sides) = 9" in pol
    assert "+0.50 [+0.49, +0.51] with Command hand size (both sides) = 4" in pol
    assert "p010 vs p011, p000 vs p001" in pol
    # the curves: greedy never flattens, random neither (equal steps)
    assert any("keeps rising up to 9" in x for x in t)
    assert 3 <= len(fs) <= 6
    assert t[-1].startswith("76 of the 90 cards of 'gmt90' (24 card types) have estimated counts")
    assert "(#deck-warning)" in t[-1]


def test_sides_level_or_apart():
    ys = [6.0, 6.5, 7.0, 7.5, 8.0, 8.5]
    level = texts(study.engine_findings(summary({"greedy": ys}, policy=False), spec(), []))
    assert any("Red and Blue get the same effective orders a turn within the 95% intervals at every point"
               in x for x in level)
    apart = texts(study.engine_findings(summary({"greedy": ys}, policy=False, red_shift=0.3),
                                                 spec(), []))
    assert any("differ in effective orders a turn by at most +0.30" in x and "at 6 of 6 points" in x
               for x in apart), apart


def test_an_opponent_metric_has_no_sides_sentence_and_keeps_its_capital():
    df = summary({"greedy": [1, 2, 3, 4, 5, 6]}, policy=False, metric="g_denied_effective")
    fs = texts(study.engine_findings(df, spec(metric="g_denied_effective"), []))
    assert "French effective orders denied a game (Blue counters)" in fs[0]
    assert not any("differ in" in x or "get the same" in x for x in fs)


def test_deck_sentences():
    assert findings.deck_finding([findings.DeckNote("x", 0, 40, 0)]) is None
    plain = findings.deck_finding([GMT]).plain()
    assert "count only Monte Carlo noise" in plain and "--deck-ensemble" in plain
    wide = findings.deck_finding([GMT], spread=(0.3, 0.03)).text
    assert "more than its Monte Carlo ±0.03" in wide and "matter more" in wide
    narrow = findings.deck_finding([GMT], spread=(0.01, 0.03)).text
    assert "less than its Monte Carlo ±0.03" in narrow and "do not change the answer" in narrow


def test_findings_render_as_markdown_html_and_text():
    f = findings.Finding("A <sentence>.", findings.Ref("Main result", "main-result", "p000"))
    assert f.markdown() == "A <sentence> ([Main result](#main-result): p000)."
    assert f.plain() == "A <sentence> (table: Main result, p000)."
    assert '<a href="#main-result">Main result</a>' in f.html() and "&lt;sentence&gt;" in f.html()
    assert findings.with_ci(6.5686, 6.5641, 6.5731) == "6.569 [6.564, 6.573]"
    assert findings.with_ci(0.0, 0.0, 0.0) == "0"
    assert findings.num(-0.0001, 2, True) == "+0.00"


# --------------------------------------------------------------------------------------------
# compare and balance


def compare_frame(rows: list[tuple]) -> pd.DataFrame:
    out = []
    for metric, side, a, b, half in rows:
        d = b - a
        out.append(dict(metric=metric, side_key=side[0], side=side, a=a, b=b, difference=d,
                        ci_low=d - half, ci_high=d + half, half_width=half, half_width_unpaired=3 * half,
                        n=1000, relative_change=d / a, sentence=f"{metric} {side} sentence."))
    return pd.DataFrame(out)


def test_compare_findings():
    df = compare_frame([("effective_per_turn", "French", 6.8, 7.3, 0.02),
                        ("effective_per_turn", "Spanish", 7.0, 7.001, 0.02),
                        ("nominal_per_turn", "French", 7.0, 7.2, 0.02)])
    fs = variants.compare_findings(df, [GMT])
    t = [f.plain() for f in fs]
    assert t[0] == ("The largest clear change in effective orders a turn: effective_per_turn French sentence "
                    "(table below, row Effective orders a turn, French).")
    assert t[1].startswith("2 of 3 rows change clearly") and "effective orders a turn (Spanish)" in t[1]
    assert t[2].startswith("Of the other measures in orders a turn: nominal_per_turn French sentence")
    assert "3.0 times narrower" in t[3]
    assert "76 of the 90 cards" in t[-1]
    answer = ["The gap in effective orders a turn ... narrows.", "Each side's own change: ..."]
    led = [f.plain() for f in variants.compare_findings(df, [GMT], answer=answer)]
    assert led[0].startswith(answer[0][:-1]) and led[1].startswith(answer[1][:-1])
    assert not any(x.startswith("The largest clear change") for x in led)  # the gap leads instead
    spread = pd.DataFrame([dict(metric="effective_per_turn", side_key="F", side="French", decks=20,
                                negative=0, positive=20, zero=0, clear_negative=0, clear_positive=20,
                                ensemble_min=0.4, ensemble_max=0.5, ensemble_sd=0.05, mc_half_width=0.02)])
    last = variants.compare_findings(df, [GMT], spread)[-1].plain()
    assert "more than its Monte Carlo ±0.02" in last and "keeps one sign in 20 of 20 plausible decks" in last


def test_compare_findings_rank_the_main_metric_first_never_a_share_against_a_count():
    # a -0.002 shift in a share is -20%, a +0.12 in orders a turn +1.8%: the orders lead all the same
    df = compare_frame([("effective_per_turn", "French", 6.8, 6.92, 0.02),
                        ("share_picks_from_5", "French", 0.010, 0.008, 0.0005),
                        ("wasted", "French", 4.0, 4.4, 0.1)])
    t = [f.plain() for f in variants.compare_findings(df, [])]
    assert t[0].startswith("The largest clear change in effective orders a turn: effective_per_turn French")
    others = [x for x in t if x.startswith("Of the other measures")]
    kinds = {x.split(":")[0] for x in others}
    assert len(others) == 2 and len(kinds) == 2  # one finding per kind (unit), each its own largest


# --------------------------------------------------------------------------------------------
# the flagship study, from its committed summary


@pytest.fixture(scope="module")
def courier_rack() -> list[str]:
    st = load_study(ROOT / "studies" / "courier_rack.toml")
    summ = pd.read_csv(ROOT / "results" / "courier_rack" / "summary.csv")
    return texts(study.engine_findings(summ, st.spec(), [findings.deck_note(load_deck("gmt90"))]))


def test_courier_rack_findings_are_sensible(courier_rack):
    t = courier_rack
    assert 3 <= len(t) <= 6
    assert t[0].startswith("Of the swept settings, Command hand size (both sides) moves effective orders "
                           "a turn (Blue) the most: from 6.568 [6.564, 6.573] at 4 to 9.710")
    assert any("with random play, it flattens after 9" in x for x in t)
    assert any(x.startswith("Greedy play gives more effective orders a turn (Blue) than random play")
               for x in t)
    assert "76 of the 90 cards of 'gmt90'" in t[-1]


def test_a_jump_the_numbers_explain_says_why(courier_rack):
    # the Tactician draws of hand 9 are the stars that no longer find units to March Move (stars, E8)
    (why,) = [x for x in courier_rack if x.startswith("Tactician cards drawn a game (Blue) jumps")]
    assert why.startswith("Tactician cards drawn a game (Blue) jumps from 15.46 to 20.56 between 8 and 9 "
                          "(greedy play): +5.10 [")
    assert "stars used to draw Tactician cards a game rise by +5.2" in why
    assert "stars used to March Move a game fall by 5.2" in why
    assert "(rule E8)" in why and why.endswith("(#reported-metrics): p008, p010).")


def test_no_jump_no_why():
    from napsim.output.findings.jumps import jump_findings

    summ = pd.read_csv(ROOT / "results" / "courier_rack" / "summary.csv")
    summ = summ.assign(half=(summ["ci_high"] - summ["ci_low"]) / 2)
    even = summ.copy()
    drawn = even["metric"] == "tactician_drawn"
    even.loc[drawn, "value"] = 14.0 + 0.3 * even.loc[drawn, "sides.*.hand"]  # even steps: no jump
    where = lambda row, col: ""  # noqa: E731
    assert jump_findings(even, "A", ["sides.*.hand", "policy.*"], {"A": "Blue"}, where) == []
    assert len(jump_findings(summ, "A", ["sides.*.hand", "policy.*"], {"A": "Blue"}, where)) == 1
