"""A what-if shared by a link: the page keeps its settings in the address (`napsim.app.link`),
and a copied link opens the same page with the same numbers, bit for bit; an upload small enough
travels in it; a bad or stale link shows one line and the defaults. Through Streamlit's AppTest
(the real browser: tests/test_app_browser.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("streamlit", reason="Streamlit is not installed (pip install -e \".[app]\")")

from streamlit.testing.v1 import AppTest  # noqa: E402

import napsim  # noqa: E402
from napsim.app import link, panels  # noqa: E402
from napsim.app.jobs import Settings  # noqa: E402
from napsim.model.scenarios import resolve_scenario_path  # noqa: E402

PAGE = Path(napsim.__file__).parent / "app" / "page.py"
GAMES = 1000


@pytest.fixture(scope="module", autouse=True)
def compiled():
    napsim.simulate("symmetric", games=1, seed=0)


def opened(params: dict | None = None, **state) -> AppTest:
    """The page opened at an address with these query parameters (and session state)."""
    at = AppTest.from_file(str(PAGE), default_timeout=180)
    for k, v in (params or {}).items():
        at.query_params[k] = v
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    assert not at.exception, at.exception
    return at


def headline(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def address(at: AppTest) -> dict:
    return {k: at.query_params[k] for k in at.query_params}


def warnings(at: AppTest) -> list[str]:
    return [w.value for w in at.warning if not w.value.startswith("warning: deck")]


def test_the_picker_choice_of_an_upload_is_the_links():
    assert panels.UPLOAD == link.PICK_UPLOAD


def test_a_link_round_trips_every_changed_field_the_policies_games_seed_and_tab():
    s = Settings("tamames", (("scenario.turns", 20), ("sides.S.hand", 5), ("sides.F.tactician", 3),
                             ("rules.tactic_reach", "every_section")), None, "greedy,random")
    params = link.encode(s, 3000, 17, "Balance")
    assert params["set"] == ["scenario.turns=20", "sides.S.hand=5", "sides.F.tactician=3",
                             "rules.tactic_reach=every_section"]
    r = link.decode({k: v if isinstance(v, list) else [v] for k, v in params.items()}, panels.TABS)
    assert r.state == {"tab": "Balance", "games": 3000, "seed": 17, "scenario": "tamames",
                       "tamames|scenario.turns": 20, "tamames|sides.S.hand": 5,
                       "tamames|sides.F.tactician": 3, "tamames|rules.tactic_reach": "every_section",
                       "policy|F": "greedy", "policy|S": "random"}
    assert not r.notes and not r.uploads


def test_changed_settings_open_in_a_new_page_with_the_same_numbers_bit_for_bit():
    at = opened(games=GAMES, scenario="symmetric")
    at.number_input(key="symmetric|sides.A.hand").set_value(8).run()
    at.number_input(key="symmetric|sides.B.tactician").set_value(3).run()
    at.number_input(key="seed").set_value(99).run()
    params = address(at)
    assert params["scenario"] == "symmetric" and params["seed"] == "99" and params["games"] == str(GAMES)
    again = opened(params)
    assert headline(again) == headline(at) and not warnings(again)
    want = napsim.simulate("symmetric", {"sides.A.hand": 8, "sides.B.tactician": 3}, games=GAMES, seed=99)
    rows = want.summary[want.summary["metric"] == "effective_per_turn"]
    want = {f"{r.side}: effective orders a turn": f"{r.value:.3f}" for r in rows.itertuples()}
    assert headline(again) == want
    assert again.number_input(key="symmetric|sides.A.hand").value == 8
    copy = next(c.value for c in again.sidebar.code if "?v=1" in c.value)
    assert "set=sides.A.hand%3D8" in copy and "seed=99" in copy


def test_the_tab_and_the_compare_baseline_travel():
    at = opened(games=GAMES, scenario="symmetric")
    at.button(key="keep_a").click().run()
    at.number_input(key="symmetric|sides.B.hand").set_value(7).run()
    params = {**address(at), "tab": "Compare"}
    assert "a" in params
    again = opened(params)
    assert again.session_state["tab"] == "Compare"
    a, _ = again.session_state["A"]
    assert a == Settings("symmetric", (), None, "greedy,greedy")
    assert headline(again) == headline(at)
    want = napsim.compare("symmetric", {}, {"sides.B.hand": 7}, games=GAMES)
    assert any(m.value == f"**{want.attrs['answer'][0]}**" for m in again.markdown)


@pytest.mark.parametrize(("params", "needle"), [
    ({"v": "1", "scenario": "nowhere"}, "unknown scenario 'nowhere'"),
    ({"v": "0", "scenario": "symmetric"}, "another version of napsim's page"),
    ({"scenario": "symmetric"}, "not a napsim link"),
    ({"v": "1", "scenario": "symmetric", "set": "sides.A.hand=99"}, "sides.A.hand"),
    ({"v": "1", "scenario": "symmetric", "set": "sides.A.colour=3"}, "colour"),
    ({"v": "1", "scenario": "symmetric", "tab": "Nowhere"}, "no tab 'Nowhere'"),
    ({"v": "1", "scenario": "symmetric", "games": "many"}, "games 'many' is not a whole number"),
    ({"v": "1", "scenario": "symmetric", "deck": "nodeck"}, "unknown deck 'nodeck'"),
    ({"v": "1", "scenario": "symmetric", "policy": "clever,greedy"}, "policy"),
    ({"v": "1", "scenario": "upload", "scenario_file": "x.toml", "scenario_data": "%%%"}, "damaged"),
    ({"v": "1", "scenario": "symmetric", "a": "AAAA"}, "baseline A is damaged"),
])
def test_a_bad_or_stale_link_shows_one_line_and_the_defaults(params, needle):
    default = opened(games=GAMES)
    at = opened(params, games=GAMES)
    (line,) = warnings(at)
    assert line.startswith("This link cannot be opened: ") and needle in line, line
    assert line.endswith("The page shows the defaults.") and "\n" not in line
    assert headline(at) == headline(default)


def test_a_small_upload_travels_in_the_link_and_a_large_one_is_named_missing(tmp_path):
    text = resolve_scenario_path("symmetric").read_text().replace("hand = 6", "hand = 7", 1)
    at = opened(games=GAMES, scenario=panels.UPLOAD)
    at.session_state[link.LINKED + "scenario"] = ("mine.toml", text.encode())  # as if uploaded
    at.run()
    params = address(at)
    assert params["scenario"] == "upload" and params["scenario_file"] == "mine.toml"
    assert "scenario_data" in params
    again = opened(params)
    assert headline(again) == headline(at) and not warnings(again)
    by_hand = opened(games=GAMES, scenario="symmetric", **{"symmetric|sides.A.hand": 7})
    assert headline(again) == headline(by_hand)
    big = (text + "\n" + "\n".join(f"# {i} {hash(str(i))}" for i in range(3000))).encode()
    params = link.encode(Settings("/tmp/mine.toml"), GAMES, 1, "The answer",
                         uploads={"scenario": ("big.toml", big)})
    assert "scenario_data" not in params and params["scenario_file"] == "big.toml"
    at = opened(params)
    (line,) = warnings(at)
    assert line.startswith("This link's scenario was an uploaded file, big.toml, too large to travel")
    assert at.selectbox(key="scenario").value == panels.UPLOAD
