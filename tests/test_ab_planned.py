"""The planned turn's side-by-side timing (tools/ab_planned.py): its table and its options."""

from __future__ import annotations

import pytest
from support.devtools import load_tool


def _tool():
    return load_tool("ab_planned")


def test_report_gives_each_round_the_median_and_the_ratio_of_medians():
    text = _tool().report({"REV": [120.0, 118.0, 140.0], "tree": [119.0, 123.0, 121.0]}, "tree", "T")
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.strip("|").split("|")[1:]]
            for line in text.splitlines()[4:]}
    assert rows["REV"] == ["120.0", "118.0", "140.0", "120.0", "1.008"]  # 121 / 120
    assert rows["tree"][-2:] == ["121.0", "1.000"]


def test_an_unknown_option_is_named_in_one_line():
    with pytest.raises(SystemExit, match="unknown option --gamez .allowed: --rounds"):
        _tool()._options(["2866e0c", "--gamez", "10"])
    revs, flags = _tool()._options(["a", "b", "--info", "fair"])
    assert revs == ["a", "b"] and flags["--info"] == "fair" and flags["--rounds"] == "4"
