"""The side-by-side benchmark's report (tools/ab_release.py): medians, each version's range over
its rounds, and the ratio of the medians beside the ratio of the best rounds."""

from __future__ import annotations

from types import SimpleNamespace

from support.devtools import load_tool


def _tool():
    return load_tool("ab_release")


def _rows(text: str) -> dict[tuple[str, str], list[str]]:
    out = {}
    for line in text.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        out[cells[0], cells[1]] = cells[2:]
    return out


def test_report_gives_ranges_and_both_ratios():
    tool = _tool()
    table = {
        "formats-epic3": {
            "turns_per_second_per_core": {"REV": [3.0e6, 3.2e6, 3.1e6], "tree": [2.9e6, 3.3e6, 2.5e6]},
            "speedup_1_to_2_threads": {"REV": [1.9], "tree": [1.95]},
        },
        "cold_start": {"seconds_empty_cache": {"REV": [10.0, 11.0], "tree": [11.0, 12.0]}},
    }
    rows = _rows(tool.report(table, SimpleNamespace(label="REV"), SimpleNamespace(label="tree")))
    rev, tree, ratio, best, better = rows["formats-epic3", "turns_per_second_per_core"]
    assert rev == "3.1e+06 (3e+06-3.2e+06)" and tree == "2.9e+06 (2.5e+06-3.3e+06)"
    assert ratio == "0.935"  # medians 2.9 / 3.1
    assert best == "1.031"  # best rounds 3.3 / 3.2: more is better
    assert better == "higher"
    assert rows["formats-epic3", "speedup_1_to_2_threads"][:2] == ["1.9", "1.95"]  # one round: no range
    *_, ratio, best, better = rows["cold_start", "seconds_empty_cache"]
    assert (ratio, best, better) == ("1.095", "1.100", "lower")  # best rounds 11 / 10: less is better
