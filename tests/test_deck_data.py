"""Deck data (issue 14): the Tactician deck that comes with a Command deck, the C&C Ancients deck
checked against its card texts, card unit classes that napsim's model lacks, and self-contained
sources in every shipped deck file."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from support.cli import napsim_main
from support.decks import ALL_DECKS, read_deck_csv, write_deck_csv

from napsim import NapsimInputError, load_deck
from napsim.cli import cli
from napsim.model.cards import DEFAULT_TACTICIAN_DECK, OPTIONAL_COLUMNS

# Tactician cards that come with each shipped Command deck: GM&T has a 50-card Tactician deck;
# the Napoleonics base game, Ancients and the Epic card game have none.
TACTICIAN = {"gmt90": 50, "ccn70": 0, "cca60": 0, "epic-tcg-sealed30": 0}


def _show(*args: str) -> list[str]:
    result = CliRunner().invoke(cli, ["decks", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def _napsim(monkeypatch, *args: str) -> tuple[int, str, str]:
    return napsim_main(monkeypatch, *args)


def _with_header(tmp_path, builtin_path, edit, name="ccn70"):
    """A copy of a shipped deck with its header lines edited: (path, 1-based line per header key)."""
    comments, columns, rows, _ = read_deck_csv(builtin_path(name))
    path = write_deck_csv(tmp_path / "deck.csv", edit(list(comments)), columns, rows)
    lines = {}
    for n, text in enumerate(path.read_text().splitlines(), start=1):
        if text.startswith("#"):
            lines.setdefault(text.lstrip("#").partition(":")[0].strip(), n)
    return path, lines


def _set_tactician(value: str | None):
    def edit(comments):
        kept = [c for c in comments if not c.startswith("# tactician_deck:")]
        return kept if value is None else [*kept, f"# tactician_deck: {value}"]

    return edit


# ---------------------------------------------------------------------------------------------
# The Tactician deck header (rule D4)


@pytest.mark.parametrize("name", ALL_DECKS)
def test_shipped_decks_declare_their_tactician_deck(name, builtin_path):  # rule D4
    comments, _, _, _ = read_deck_csv(builtin_path(name))
    assert f"# tactician_deck: {TACTICIAN[name]}" in comments
    deck = load_deck(name)
    assert deck.tactician_deck == TACTICIAN[name]
    assert isinstance(deck.tactician_deck, int)
    assert deck.tactician_deck_declared


@pytest.mark.parametrize("value", ["0", "1", "50", "999", " 7 "])
def test_tactician_header_is_parsed(value, tmp_path, builtin_path):  # rule D4
    path, _ = _with_header(tmp_path, builtin_path, _set_tactician(value))
    deck = load_deck(path)
    assert deck.tactician_deck == int(value)
    assert deck.tactician_deck_declared
    assert deck.cards.equals(load_deck("ccn70").cards)


def test_absent_tactician_header_means_the_default(tmp_path, builtin_path):  # rule D4
    path, _ = _with_header(tmp_path, builtin_path, _set_tactician(None), name="gmt90")
    deck = load_deck(path)
    assert DEFAULT_TACTICIAN_DECK == 50
    assert deck.tactician_deck == DEFAULT_TACTICIAN_DECK
    assert not deck.tactician_deck_declared
    shown = [ln for ln in _show("show", str(path)) if ln.startswith("Tactician deck")]
    assert shown == ["Tactician deck: 50 cards (default: the file has no '# tactician_deck:' line)"]


BAD_TACTICIAN = ["-1", "1000", "x", "2.5", "", "50 cards", "1_0", "+5", "\u0665"]


@pytest.mark.parametrize("value", BAD_TACTICIAN)
def test_bad_tactician_header_is_one_line_error(value, tmp_path, builtin_path):  # rule D4
    path, lines = _with_header(tmp_path, builtin_path, _set_tactician(value))
    with pytest.raises(NapsimInputError) as err:
        load_deck(path)
    msg = str(err.value)
    assert "\n" not in msg
    assert msg.startswith(f"{path}:{lines['tactician_deck']}: field 'tactician_deck': ")
    assert msg.endswith("(allowed: integers 0-999)")
    assert err.value.field == "tactician_deck"


@pytest.mark.parametrize("value", ["-1", "lots"])
def test_bad_tactician_header_cli_exit_2(value, tmp_path, builtin_path, monkeypatch):  # rule D4
    path, lines = _with_header(tmp_path, builtin_path, _set_tactician(value))
    for args in (("decks", "show", str(path)),
                 ("odds", "at-least", "--deck", str(path), "--filter", "kind=multi",
                  "--games", "100")):
        code, out, err = _napsim(monkeypatch, *args)
        assert code == 2
        assert out == ""
        assert "Traceback" not in err
        (line,) = err.splitlines()
        assert line.startswith(f"napsim: error: {path}:{lines['tactician_deck']}: ")
        assert "field 'tactician_deck'" in line and "integers 0-999" in line


def test_tactician_header_given_twice_is_rejected(tmp_path, builtin_path):  # rule D4
    def twice(comments):
        return [*comments, "# tactician_deck: 50"]  # ccn70 already says 0

    path, lines = _with_header(tmp_path, builtin_path, twice)
    second = len(read_deck_csv(path)[0])
    with pytest.raises(NapsimInputError) as err:
        load_deck(path)
    assert str(err.value).startswith(f"{path}:{second}: field 'tactician_deck': ")
    assert f"first on line {lines['tactician_deck']}" in str(err.value)


@pytest.mark.parametrize("name", ALL_DECKS)
def test_decks_show_names_the_tactician_deck(name):  # rule D4
    lines = _show("show", name)
    want = f"Tactician deck: {TACTICIAN[name]} cards" if TACTICIAN[name] else "no Tactician deck"
    assert want in lines
    # printed with the header lines, before the first kind block
    assert lines.index(want) < lines.index("")
    (listed,) = [ln for ln in _show() if load_deck(name).title in ln]
    assert listed.endswith(want)


# ---------------------------------------------------------------------------------------------
# C&C Ancients (cca60) against its card texts

# The Ancients card list's four groups and their counts; how each napsim row falls in them.
ANCIENTS_GROUPS = {"Section": 27, "Troop": 10, "Leadership": 6, "Tactic": 17}


def _ancients_group(row) -> str:
    if row["kind"] in ("section", "multi"):
        return "Leadership" if row["category"] == "inspired" else "Section"
    return {"troop": "Troop", "leadership": "Leadership", "tactic": "Tactic"}[row["kind"]]


def test_cca60_keeps_the_card_lists_groups():
    c = load_deck("cca60").cards
    groups = c.groupby(c.apply(_ancients_group, axis=1))["count"].sum().to_dict()
    assert groups == ANCIENTS_GROUPS
    assert int(c["count"].sum()) == 60


def test_cca60_section_orders_follow_the_texts():
    c = load_deck("cca60").cards.set_index("name")
    for n, word in ((2, "Two"), (3, "Three"), (4, "Four")):
        for sec, side in zip("LCR", ("Left", "Center", "Right"), strict=True):
            row = c.loc[f"Order {word} Units {side}"]
            assert (row["kind"], row["section"], row[f"orders_{sec.lower()}"]) == ("section", sec, n)
    # two Section cards of the text order in several sections: napsim's multi kind holds them
    for name, lcr in (("Coordinated Attack", (1, 1, 1)), ("Out Flanked", (2, 0, 2))):
        row = c.loc[name]
        assert row["kind"] == "multi" and row["section"] == "-"
        assert tuple(row[["orders_l", "orders_c", "orders_r"]]) == lcr
        assert "Section cards" in row["source"]
    # Inspired Leadership: the leader's hex and 4 linked hexes, in its own section only
    for sec, side in zip("LCR", ("Left", "Center", "Right"), strict=True):
        row = c.loc[f"Inspired {side} Leadership"]
        assert (row["kind"], row["section"], row["count"]) == ("section", sec, 1)
        orders = {s: row[f"orders_{s.lower()}"] for s in "LCR"}
        assert orders == {s: 5 if s == sec else 0 for s in "LCR"}
        assert row["equal_to_command"] == 0 and row["fallback"] == 1
    row = c.loc["Leadership Any Section"]
    assert (row["kind"], row["section"], row["cap"], row["count"]) == ("leadership", "-", 4, 3)


def test_cca60_i_am_spartacus_reshuffles_without_tactician_draws():
    deck = load_deck("cca60")
    row = deck.cards.set_index("name").loc["I Am Spartacus"]
    assert row["elan"] == 1 and row["tactician_draw"] == 0
    assert deck.tactician_deck == 0
    assert "no Tactician" in row["source"]
    assert deck.cards.loc[deck.cards["name"] != "I Am Spartacus", "elan"].eq(0).all()


# card -> (unit class its text names, napsim unit_filter used for it)
ANCIENTS_UNIT_CLASSES = {
    "Order Light Troops": ("light", "any"),
    "Order Medium Troops": ("medium", "any"),
    "Order Heavy Troops": ("heavy", "any"),
    "Order Mounted Troops": ("mounted", "cav_leader"),
    "Move-Fire-Move": ("light", "any"),
    "Mounted Charge": ("mounted", "cav"),
    "Double Time": ("foot", "inf_art"),
    "Line Command": ("foot", "inf_art"),
    "Darken the Sky": ("ranged", "any"),
}


def test_cca60_cards_carry_their_unit_classes():
    deck = load_deck("cca60")
    c = deck.cards.set_index("name")
    assert (deck.cards.loc[deck.cards["kind"] == "troop", "name"].isin(ANCIENTS_UNIT_CLASSES)).all()
    for name, (uc, filt) in ANCIENTS_UNIT_CLASSES.items():
        assert (c.loc[name, "unit_class"], c.loc[name, "unit_filter"]) == (uc, filt)
        assert "not in napsim's model" in c.loc[name, "source"]
    others = c.loc[~c.index.isin(list(ANCIENTS_UNIT_CLASSES)), "unit_class"]
    assert (others == "").all()
    assert deck.unit_classes_outside_model() == {
        "foot": ["inf_art"], "heavy": ["any"], "light": ["any"], "medium": ["any"],
        "mounted": ["cav", "cav_leader"], "ranged": ["any"],
    }
    comments, _, _, _ = read_deck_csv(deck.path)
    assert any("unit classes" in ln and "napsim's scenario model" in ln for ln in comments)


def test_decks_show_lists_unit_classes_outside_the_model():
    lines = _show("show", "cca60")
    (line,) = [ln for ln in lines if ln.startswith("unit classes not in napsim's model: ")]
    assert line == ("unit classes not in napsim's model: foot, heavy, light, medium, mounted, ranged"
                    " (treated as: foot = infantry or artillery; heavy, light, medium, ranged = any"
                    " unit; mounted = cavalry or cavalry and leaders)")
    (light,) = [ln for ln in lines if "Order Light Troops" in ln]
    assert "unit class: light" in light
    for name in ("gmt90", "ccn70", "epic-tcg-sealed30"):
        assert not any(ln.startswith("unit classes") for ln in _show("show", name))


def test_decks_show_prints_every_note_line():
    lines = _show("show", "cca60")
    comments, _, _, _ = read_deck_csv(load_deck("cca60").path)
    notes = [c.partition(":")[2].strip() for c in comments if c.startswith("# note:")]
    assert len(notes) > 1
    assert [ln for ln in lines if ln.startswith("note: ")] == [f"note: {n}" for n in notes]


# ---------------------------------------------------------------------------------------------
# The optional unit_class column


def test_unit_class_column_is_optional(builtin_path):
    comments, columns, _, _ = read_deck_csv(builtin_path("ccn70"))
    assert "unit_class" not in columns
    deck = load_deck("ccn70")
    assert list(deck.cards.columns[-len(OPTIONAL_COLUMNS):]) == list(OPTIONAL_COLUMNS)
    assert (deck.cards["unit_class"] == "").all()
    assert deck.unit_classes_outside_model() == {}


def test_unit_class_in_a_user_deck(tmp_path, builtin_path):
    comments, columns, rows, _ = read_deck_csv(builtin_path("ccn70"))
    for r in rows:
        r["unit_class"] = {"Bayonet Charge": " infantry ", "Force March": "Guard"}.get(r["name"], "")
    path = write_deck_csv(tmp_path / "classes.csv", comments, ["unit_class", *columns], rows)
    deck = load_deck(path)
    c = deck.cards.set_index("name")
    assert c.loc["Bayonet Charge", "unit_class"] == "infantry"  # a class of the model
    assert deck.unit_classes_outside_model() == {"Guard": ["inf"]}
    assert deck.cards.drop(columns="unit_class").equals(
        load_deck("ccn70").cards.drop(columns="unit_class"))
    assert any(ln.startswith("unit classes not in napsim's model: Guard (treated as: Guard = "
                             "infantry)") for ln in _show("show", str(path)))


def test_unit_class_is_a_filter_field():
    from napsim.model.filters import card_filter

    deck = load_deck("cca60")
    hit = deck.cards.loc[card_filter(deck, "unit_class=light,mounted"), "name"].tolist()
    assert hit == ["Order Light Troops", "Order Mounted Troops", "Move-Fire-Move", "Mounted Charge"]
    assert not card_filter(load_deck("ccn70"), "unit_class=light").any()


# ---------------------------------------------------------------------------------------------
# Sources say what a fact rests on, never a path outside the repository


@pytest.mark.parametrize("name", ALL_DECKS)
def test_sources_are_self_contained(name, builtin_path):
    text = builtin_path(name).read_text(encoding="utf-8")
    assert "shared/" not in text
    _, _, rows, _ = read_deck_csv(builtin_path(name))
    for r in rows:
        src = r["source"]
        assert src.strip() and "shared/" not in src, (r["name"], src)
        assert not any(ext in src for ext in (".md", ".txt", ".csv")), (r["name"], src)

