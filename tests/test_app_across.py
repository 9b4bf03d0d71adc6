"""The Balance tab's option 'across a second setting' (`napsim balance --across` on the page):
the same sentences, rows and command line as the Python API, through Streamlit's AppTest."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("streamlit", reason="Streamlit is not installed (pip install -e \".[app]\")")

from streamlit.testing.v1 import AppTest  # noqa: E402

import napsim  # noqa: E402
from napsim.output.balance_across import across_frame  # noqa: E402

PAGE = Path(napsim.__file__).parent / "app" / "page.py"


def test_the_balance_tab_balances_across_a_second_setting():
    napsim.simulate("symmetric", games=1, seed=0)  # compiled before the page's first run
    at = AppTest.from_file(str(PAGE), default_timeout=180)
    at.session_state["games"] = 1000
    at.session_state["scenario"] = "symmetric"
    at.run()
    at.selectbox(key="bal_path").set_value("sides.A.hand").run()
    at.number_input(key="bal_lo|sides.A.hand").set_value(3)
    at.number_input(key="bal_hi|sides.A.hand").set_value(8)
    at.number_input(key="bal_games").set_value(500)
    at.checkbox(key="bal_across_on").check().run()
    at.selectbox(key="bal_across").set_value("sides.B.hand").run()
    at.number_input(key="bal_across_lo|sides.B.hand").set_value(5)
    at.number_input(key="bal_across_hi|sides.B.hand").set_value(7)
    at.button(key="bal_across_go").click().run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    want = napsim.balance_across("symmetric", "sides.A.hand=3..8", "sides.B.hand=5..7", equalize="A,B",
                                 games=500)
    assert [v for v, b in want.rows if b.crossed] == [5, 6, 7]
    assert any(m.value == f"**{want.sentence}**" for m in at.markdown)
    rows = "\n".join(f"- {t}" for t in across_frame(want)["sentence"])
    assert any(m.value == rows for m in at.markdown)
    cmd = next(c.value for c in at.code if c.value.startswith("napsim balance"))
    assert "--vary sides.A.hand=3..8 --across sides.B.hand=5..7 --equalize A,B" in cmd
