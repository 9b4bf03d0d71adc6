"""Deck files: the built-in decks load (rule D1), and every bad file is rejected with one line that
names file, line and field (issue 2 item 4), both from the API and from the command line."""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.cli import run_napsim
from support.decks import ALL_DECKS, read_deck_csv, write_deck_csv

from napsim import NapsimInputError, builtin_decks, load_deck
from napsim.cli import main
from napsim.model.cards import COLUMNS, CONFIDENCE, KINDS, MARKS, SECTIONS, UNIT_FILTERS

# rule D1 and shared/data/decks.md: the confirmed deck sizes.
DECK_TOTALS = {"gmt90": 90, "ccn70": 70, "cca60": 60, "epic-tcg-sealed30": 30}

# composition by napsim kind (the card lists' "section" group also counts multi-section cards;
# for cca60 the Ancients groups map onto kinds as in tests/test_deck_data.py).
DECK_KINDS = {
    "gmt90": {"section": 50, "multi": 10, "tactic": 30},
    "ccn70": {"section": 40, "multi": 8, "tactic": 22},
    "cca60": {"section": 26, "multi": 4, "troop": 10, "leadership": 3, "tactic": 17},
}


# ---------------------------------------------------------------------------------------------
# Built-in decks (rule D1)


def test_builtin_deck_list():
    assert set(builtin_decks()) == set(DECK_TOTALS)


@pytest.mark.parametrize("name", ALL_DECKS)
def test_builtin_deck_total(name, builtin_path):  # rule D1
    deck = load_deck(name)
    assert deck.n_cards == DECK_TOTALS[name]
    assert deck.card_types().size == DECK_TOTALS[name]
    assert np.bincount(deck.card_types(), minlength=deck.n_types).tolist() == deck.counts.tolist()
    comments, _, rows, _ = read_deck_csv(builtin_path(name))
    assert f"# total: {DECK_TOTALS[name]}" in comments
    assert sum(int(r["count"]) for r in rows) == DECK_TOTALS[name]
    assert deck.cards["name"].tolist() == [r["name"] for r in rows]


@pytest.mark.parametrize("name", sorted(DECK_KINDS))
def test_builtin_deck_composition(name):  # rules D1, D2
    deck = load_deck(name)
    by_kind = deck.cards.groupby("kind")["count"].sum().to_dict()
    assert by_kind == DECK_KINDS[name]


def test_c_and_c_section_cards_follow_d2():  # rule D2: Scout 1, Probe 2, Attack 3, Assault =cmd
    for name in ("gmt90", "ccn70"):
        c = load_deck(name).cards.set_index("name")
        for word, orders in (("Scout", 1), ("Probe", 2), ("Attack", 3)):
            for sec, side in zip(SECTIONS, ("Left", "Center", "Right"), strict=True):
                row = c.loc[f"{word} {side}"]
                assert row["kind"] == "section" and row["section"] == sec
                assert row[f"orders_{sec.lower()}"] == orders
                assert row["equal_to_command"] == 0
        for side in ("Left", "Center", "Right"):
            assert c.loc[f"Assault {side}", "equal_to_command"] == 1
        multi = {"Recon in Force": (1, 1, 1), "Coordinated Advance": (1, 2, 1),
                 "Flank Attack": (2, 0, 2), "Forward": (2, 2, 2)}
        for card, lcr in multi.items():
            assert tuple(c.loc[card, ["orders_l", "orders_c", "orders_r"]]) == lcr


@pytest.mark.parametrize("name", ALL_DECKS)
def test_confidence_and_warning(name, builtin_path):  # rule D1: estimated rows are reported
    _, _, rows, _ = read_deck_csv(builtin_path(name))
    assert all(r["confidence"] in CONFIDENCE and r["source"].strip() for r in rows)
    estimated = [r["name"] for r in rows if r["confidence"] == "estimated"]
    deck = load_deck(name)
    assert deck.estimated_rows == estimated
    warning = deck.estimated_warning()
    if estimated:
        n_est = sum(int(r["count"]) for r in rows if r["confidence"] == "estimated")
        assert warning.startswith("warning:")
        assert f"{n_est} of {deck.n_cards} cards" in warning
    else:
        assert warning is None


def test_user_deck_path_is_accepted(tmp_path, builtin_path):
    copy = tmp_path / "my deck.csv"
    copy.write_bytes(builtin_path("ccn70").read_bytes())
    a, b = load_deck(str(copy)), load_deck(copy)
    ref = load_deck("ccn70")
    assert a.n_cards == b.n_cards == ref.n_cards
    assert a.sha256 == ref.sha256
    assert a.name == "my deck"
    assert a.cards.equals(ref.cards)


def test_unknown_deck_name_and_missing_file(tmp_path):
    with pytest.raises(NapsimInputError, match="unknown deck name"):
        load_deck("no-such-deck")
    with pytest.raises(NapsimInputError, match="not found"):
        load_deck(tmp_path / "absent.csv")


# ---------------------------------------------------------------------------------------------
# Bad deck files: one edited cell each


def _edit_row(name: str, column: str, value: str):
    def edit(comments, columns, rows):
        (row,) = [r for r in rows if r["name"] == name]
        row[column] = value
        return comments, columns, rows

    return edit


def _rename_column(old: str, new: str):
    def edit(comments, columns, rows):
        rows = [{(new if k == old else k): v for k, v in r.items()} for r in rows]
        return comments, [new if c == old else c for c in columns], rows

    return edit


def _drop_column(col: str):
    def edit(comments, columns, rows):
        return comments, [c for c in columns if c != col], rows

    return edit


def _set_total(n: int):
    def edit(comments, columns, rows):
        return [f"# total: {n}" if c.startswith("# total:") else c for c in comments], columns, rows

    return edit


def _add_comment(text: str):
    def edit(comments, columns, rows):
        return [*comments, text], columns, rows

    return edit


HEADER = "header"  # the error names the line of the CSV header row
TOTAL = "total"  # the error names the `# total:` line
SECOND = "second Probe Left"  # the error names the second row that uses a name

# (id, edit of ccn70.csv, field the message must name, row named: a card name, HEADER or TOTAL)
BAD_CASES = [
    ("unknown-column", _rename_column("confidence", "confidance"), "confidance", HEADER),
    ("missing-column", _drop_column("stars"), "stars", HEADER),
    ("unknown-kind", _edit_row("Probe Left", "kind", "sektion"), "kind", "Probe Left"),
    ("negative-count", _edit_row("Attack Center", "count", "-1"), "count", "Attack Center"),
    ("fraction-count", _edit_row("Attack Center", "count", "4.5"), "count", "Attack Center"),
    ("word-count", _edit_row("Bombard", "count", "two"), "count", "Bombard"),
    ("empty-count", _edit_row("Bombard", "count", ""), "count", "Bombard"),
    ("underscore-count", _edit_row("Bombard", "count", "1_0"), "count", "Bombard"),
    ("orders-10", _edit_row("Probe Left", "orders_l", "10"), "orders_l", "Probe Left"),
    ("orders-neg", _edit_row("Forward", "orders_c", "-1"), "orders_c", "Forward"),
    ("orders-float", _edit_row("Forward", "orders_r", "2.0"), "orders_r", "Forward"),
    ("duplicate-name", _edit_row("Probe Center", "name", "Probe Left"), "name", SECOND),
    ("total-mismatch", _set_total(71), "total", TOTAL),
    ("bad-confidence", _edit_row("Rally", "confidence", "sure"), "confidence", "Rally"),
    ("section-without-section", _edit_row("Attack Right", "section", "-"), "section",
     "Attack Right"),
    ("bad-section", _edit_row("Attack Right", "section", "X"), "section", "Attack Right"),
    ("section-orders-elsewhere", _edit_row("Probe Left", "orders_c", "2"), "orders_c",
     "Probe Left"),
    ("multi-with-section", _edit_row("Forward", "section", "L"), "section", "Forward"),
    ("tactic-with-orders", _edit_row("Bombard", "orders_l", "1"), "orders_l", "Bombard"),
    ("bad-unit-filter", _edit_row("Bombard", "unit_filter", "tanks"), "unit_filter", "Bombard"),
    ("bad-cap", _edit_row("Bombard", "cap", "lots"), "cap", "Bombard"),
    ("stars-4", _edit_row("Bombard", "stars", "4"), "stars", "Bombard"),
    ("mark-2", _edit_row("Scout Left", "scout", "2"), "scout", "Scout Left"),
]


def _bad_deck(tmp_path: Path, builtin_path, edit) -> tuple[Path, dict[str, int]]:
    """ccn70.csv with one edit, and the line each check should name (found from the file text)."""
    comments, columns, rows, _ = read_deck_csv(builtin_path("ccn70"))
    comments, columns, rows = edit(list(comments), list(columns), [dict(r) for r in rows])
    path = write_deck_csv(tmp_path / "bad.csv", comments, columns, rows)
    lines: dict[str, int] = {}
    for n, text in enumerate(path.read_text().splitlines(), start=1):
        if text.startswith("# total:"):
            lines[TOTAL] = n
        elif text.startswith(columns[0] + ","):
            lines[HEADER] = n
        elif HEADER in lines:
            name = text.split(",")[0]
            lines[SECOND if name in lines else name] = n
    return path, lines


@pytest.mark.parametrize("case", BAD_CASES, ids=[c[0] for c in BAD_CASES])
def test_bad_deck_is_rejected_naming_file_line_field(case, tmp_path, builtin_path):  # rule D1
    _, edit, field, row = case
    path, lines = _bad_deck(tmp_path, builtin_path, edit)
    line = lines[row]
    with pytest.raises(NapsimInputError) as err:
        load_deck(path)
    msg = str(err.value)
    assert "\n" not in msg
    assert msg.startswith(f"{path}:{line}: ")
    assert f"field '{field}'" in msg
    assert err.value.field == field


@pytest.mark.parametrize("case", BAD_CASES, ids=[c[0] for c in BAD_CASES])
def test_bad_deck_cli_one_line_exit_2(case, tmp_path, builtin_path, monkeypatch, capsys):
    _, edit, field, _ = case
    path, _ = _bad_deck(tmp_path, builtin_path, edit)
    monkeypatch.setattr(sys, "argv", ["napsim", "decks", "show", str(path)])
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"napsim: error: {path}:")
    assert f"field '{field}'" in lines[0]


def test_bad_deck_subprocess_no_traceback(tmp_path, builtin_path):
    path, _ = _bad_deck(tmp_path, builtin_path, _edit_row("Attack Center", "count", "-3"))
    proc = run_napsim("odds", "at-least", "--filter", "kind=multi", "--games", "100", "--deck",
                      str(path))
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("napsim: error: ")
    assert "Traceback" not in proc.stderr
    assert str(path) in lines[0] and "field 'count'" in lines[0]


def test_unknown_header_line(tmp_path, builtin_path):
    path, lines = _bad_deck(tmp_path, builtin_path, _add_comment("# author: me"))
    with pytest.raises(NapsimInputError) as err:
        load_deck(path)
    comments, _, _, _ = read_deck_csv(builtin_path("ccn70"))
    bad = len(comments) + 1  # the file's own header lines, the bad line, then the table
    assert lines[HEADER] == bad + 1
    assert str(err.value).startswith(f"{path}:{bad}: ")
    assert err.value.field == "header"


def test_repeated_column(tmp_path, builtin_path):
    path, lines = _bad_deck(tmp_path, builtin_path, lambda *a: a)
    text = path.read_text().splitlines()
    h = lines[HEADER]
    text = [*text[:h - 1], text[h - 1] + ",count", *[t + ",1" for t in text[h:]]]
    path.write_text("\n".join(text) + "\n")
    with pytest.raises(NapsimInputError) as err:
        load_deck(path)
    assert str(err.value).startswith(f"{path}:{h}: ")
    assert err.value.field == "count"


def test_wrong_number_of_values(tmp_path, builtin_path):
    path, lines = _bad_deck(tmp_path, builtin_path, lambda *a: a)
    text = path.read_text().splitlines()
    n = lines["Bombard"]
    text[n - 1] += ",extra"
    path.write_text("\n".join(text) + "\n")
    with pytest.raises(NapsimInputError) as err:
        load_deck(path)
    assert str(err.value).startswith(f"{path}:{n}: ")


def test_all_zero_counts_rejected(tmp_path, builtin_path):
    comments, columns, rows, _ = read_deck_csv(builtin_path("cca60"))
    for r in rows:
        r["count"] = "0"
    path = write_deck_csv(tmp_path / "empty.csv", [], columns, rows)
    with pytest.raises(NapsimInputError, match="no cards"):
        load_deck(path)


# ---------------------------------------------------------------------------------------------
# Property tests: generated valid decks load; a corrupted numeric cell is always rejected

NUMERIC_RANGES = {
    "count": (0, 999), "orders_l": (0, 9), "orders_c": (0, 9), "orders_r": (0, 9),
    "equal_to_command": (0, 1), "stars": (0, 3), **{m: (0, 1) for m in MARKS},
}
WORD = st.text("abcdefghij XYZ-()", min_size=1, max_size=12).map(str.strip).filter(bool)


@st.composite
def valid_rows(draw) -> list[dict[str, str]]:
    """Rows consistent with cards._check_kind_consistency (docs/rules.md D2)."""
    n = draw(st.integers(1, 10))
    rows = []
    for i in range(n):
        kind = draw(st.sampled_from(KINDS))
        orders = [0, 0, 0]
        etc = draw(st.integers(0, 1))
        if kind == "section":
            section = draw(st.sampled_from(SECTIONS))
            orders[SECTIONS.index(section)] = draw(st.integers(0 if etc else 1, 9))
        elif kind == "multi":
            section = "-"
            orders = draw(st.lists(st.integers(0, 9), min_size=3, max_size=3)
                          .filter(lambda o: sum(o) > 0))
        else:
            section = draw(st.sampled_from(("-", *SECTIONS)))
        row = {
            "name": f"Card {i} {draw(WORD)}",
            "count": str(draw(st.integers(0, 40))),
            "kind": kind, "section": section,
            "orders_l": str(orders[0]), "orders_c": str(orders[1]), "orders_r": str(orders[2]),
            "equal_to_command": str(etc),
            "cap": draw(st.sampled_from(["-", "cmd", "all"]) | st.integers(0, 99).map(str)),
            "unit_filter": draw(st.sampled_from(UNIT_FILTERS)),
            "stars": str(draw(st.integers(0, 3))),
            **{m: str(draw(st.integers(0, 1))) for m in MARKS},
            "category": draw(WORD),
            "confidence": draw(st.sampled_from(CONFIDENCE)),
            "source": draw(st.text("abc ,;:()/.", max_size=20)),
        }
        rows.append(row)
    if sum(int(r["count"]) for r in rows) == 0:
        rows[draw(st.integers(0, n - 1))]["count"] = str(draw(st.integers(1, 40)))
    return rows


def _write_generated(folder: str, rows, columns, declare_total: bool, total_delta: int = 0):
    comments = ["# title: generated"]
    if declare_total:
        total = sum(int(r["count"]) for r in rows)
        comments.append(f"# total: {total + total_delta}")
    path = write_deck_csv(Path(folder) / "gen.csv", comments, columns, rows)
    return path, comments


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=valid_rows(), columns=st.permutations(COLUMNS), declare_total=st.booleans())
def test_generated_valid_decks_load(rows, columns, declare_total):  # rules D1, D2
    with tempfile.TemporaryDirectory() as folder:
        path, _ = _write_generated(folder, rows, columns, declare_total)
        deck = load_deck(path)
    counts = [int(r["count"]) for r in rows]
    assert deck.n_cards == sum(counts)
    assert deck.counts.tolist() == counts
    assert deck.cards["name"].tolist() == [r["name"] for r in rows]
    assert deck.cards["kind"].tolist() == [r["kind"] for r in rows]
    for col in ("orders_l", "orders_c", "orders_r", "stars", *MARKS):
        assert deck.cards[col].tolist() == [int(r[col]) for r in rows]
    assert Counter(deck.card_types().tolist()) == {i: c for i, c in enumerate(counts) if c}


def _bad_value(column: str):
    lo, hi = NUMERIC_RANGES[column]
    return st.one_of(
        st.integers(hi + 1, hi + 10**6).map(str),
        st.integers(-10**6, lo - 1).map(str),
        st.sampled_from(["", "x", "2.5", "1e2", "one", "0x1", "1_0", "+-1", "\u0663", "1 1"]),
    )


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), rows=valid_rows(), columns=st.permutations(COLUMNS))
def test_corrupted_numeric_cell_is_rejected(data, rows, columns):  # rule D1
    i = data.draw(st.integers(0, len(rows) - 1), label="row")
    column = data.draw(st.sampled_from(sorted(NUMERIC_RANGES)), label="column")
    rows[i][column] = data.draw(_bad_value(column), label="value")
    with tempfile.TemporaryDirectory() as folder:
        path, comments = _write_generated(folder, rows, columns, declare_total=False)
        with pytest.raises(NapsimInputError) as err:
            load_deck(path)
    line = len(comments) + 2 + i  # comment lines, then the CSV header, then row i
    assert str(err.value).startswith(f"{path}:{line}: ")
    assert err.value.field == column


@settings(max_examples=30, deadline=None)
@given(rows=valid_rows(), delta=st.integers(-1000, 1000).filter(bool))
def test_wrong_declared_total_is_rejected(rows, delta):  # rule D1
    total = sum(int(r["count"]) for r in rows)
    with tempfile.TemporaryDirectory() as folder:
        path, _ = _write_generated(folder, rows, list(COLUMNS), True, delta)
        with pytest.raises(NapsimInputError) as err:
            load_deck(path)
    assert str(err.value).startswith(f"{path}:2: ")
    assert err.value.field == "total"
    if total + delta >= 0:
        assert f"declared total {total + delta}" in str(err.value)
