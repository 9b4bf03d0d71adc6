"""The bundle compile micro-benchmark (tools/bundle_compile.py): every form compiles and plays the
same chained loop, and the report names each form's compile and run."""

from __future__ import annotations

from support.devtools import load_tool


def test_each_form_compiles_and_plays_the_same_loop(capsys):
    assert load_tool("bundle_compile").main(["tuple", "ref", "--steps", "2", "--arrays", "4",
                                             "--rounds", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "2 helpers, a bundle of 4 arrays; compile (CPU s), run (s), result"
    rows = {line.split()[2]: line.split() for line in lines[1:]}
    assert set(rows) == {"tuple", "ref"}
    for row in rows.values():
        assert row[3] == "compile" and float(row[4]) > 0 and row[5] == "run" and float(row[6]) > 0
    assert rows["tuple"][8] == rows["ref"][8]  # the loop's result: the same code, passed two ways
