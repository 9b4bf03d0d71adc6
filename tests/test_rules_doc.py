"""The rule catalogue (napsim/model/rulebook.toml), docs/rules.md and `napsim rules` (issue 14, part 4):
the generated files are up to date, every rule is tested, every cited ID exists, every named
implementation resolves, and the CLI prints the catalogue."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.rulesdoc import load_rules_doc

from napsim.cli import cli, main
from napsim.model import rulebook
from napsim.model.errors import NapsimInputError
from napsim.model.scenarios import SCENARIO_DIR, load_scenario

ROOT = Path(__file__).resolve().parents[1]

# Rules whose tests are being written in parallel: allowed to have no citing test for now.
# Remove an ID as soon as its tests land (test_pending_list_is_current says when).
PENDING: set[str] = set()


_rules_doc = load_rules_doc


@pytest.fixture(scope="module")
def rules_doc():
    return _rules_doc()


@pytest.fixture(scope="module")
def scan(rules_doc):
    return rules_doc.scan_tests(ROOT)


def _resolve(dotted: str):
    """Import the longest importable prefix of a dotted name, then getattr the rest."""
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ModuleNotFoundError:
            continue
        for attr in parts[k:]:
            obj = getattr(obj, attr)
        return obj
    raise ModuleNotFoundError(dotted)


# ---------------------------------------------------------------------------------------------
# the catalogue


def test_catalogue_is_consistent():
    rules = rulebook.load_rules()
    ids = [r.id for r in rules]
    assert len(ids) == len(set(ids)), "duplicate rule IDs"
    assert {r.group for r in rules} == {g.letter for g in rulebook.load_groups()}
    options = {o.name: o for o in rulebook.load_options()}
    for r in rules:
        assert r.status in rulebook.STATUSES, r.id
        assert r.title and r.text, r.id
        if r.status != "implemented":
            assert r.note, f"{r.id}: say what is missing"
        for name in r.options:
            assert name in options and r.id in options[name].rules, (r.id, name)
    for o in options.values():
        assert o.default in [v.name for v in o.values], o.name
        assert len(o.values) >= 2 and all(v.text for v in o.values), o.name
        for rid in o.rules:
            assert o.name in rulebook.get_rule(rid).options, (o.name, rid)
    for x in rulebook.load_readings():
        assert x.rules and set(x.rules) <= set(ids), x.text


def test_the_documented_options():
    # the scenario [rules] options and their defaults as issues 14 and 26 name them
    got = {o.name: (o.default, {v.name for v in o.values}, o.rules) for o in rulebook.load_options()}
    assert got == {
        "initiative": ("no_card_no_orders", {"no_card", "no_card_no_orders"}, ("M6.2", "M8.2")),
        "same_section_receiver": ("one_commander", {"two_commanders", "one_commander"},
                                  ("E4", "M6.1", "M8.1")),
        "cic_keeps": ("one", {"one", "both"}, ("M6.1",)),
        "guerrilla_share": ("lost", {"lost", "shared"}, ("G6",)),
        "elan_order": ("draw_first", {"draw_first", "shuffle_first"}, ("E9.4", "L9")),
        "counter_attack_copies": ("either", {"either", "hand"}, ("D3",)),
        "counter_attack_section": ("facing", {"facing", "any"}, ("D3", "D8", "S4")),
        "two_scouts": ("gain", {"gain", "draw_two"}, ("G4", "E9.2", "L9")),
        "spent_counters": ("sabre_returns", {"sabre_returns", "all_return"}, ("G1", "G5")),
        "tactic_reach": ("one_section", {"one_section", "every_section"}, ("E3",)),  # a house rule
        "counter_attack_nullified": ("copy", {"copy", "none"}, ("D8", "G5", "D3")),
        "first_strike_draw": ("end_of_turn", {"end_of_turn", "cic_at_once"}, ("P7", "L1")),
    }


def test_designers_rulings_decide_the_defaults_and_are_cited():
    # rules D8, G5: a designer's ruling outranks napsim's reading: the option it decides has the
    # ruling's answer as its default, its text cites the ruling's date, and docs/rules.md lists the
    # ruling (date, source) and cites it under every rule it touches
    rulings = rulebook.load_rulings()
    assert [x.date for x in rulings] == ["2015-07-16", "2015-11-11"]
    ids = set(rulebook.rule_ids())
    doc = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert "## Designer's rulings" in doc and "designer's ruling" in doc
    for x in rulings:
        assert x.rules and set(x.rules) <= ids, x.question
        assert "commandsandcolors.net" in x.source and "Guerilla Marker" in x.source
        assert f"| {x.date} | {x.source} |" in doc
        for rid in x.rules:
            anchor = '<a id="rule-' + rid.lower().replace(".", "-") + '"></a>'
            section = doc.split(anchor, 1)[1].split("<a id=", 1)[0]
            assert f"**Designer's ruling ({x.date})**" in section, (rid, x.date)
        if x.decides:
            o = rulebook.get_option(x.decides)
            assert x.date in o.text and o.default == "copy"


def test_only_v2_is_not_implemented():
    # V2 (the optional victory model) is the one rule the engine does not have
    assert [r.id for r in rulebook.load_rules() if r.status == "not implemented"] == ["V2"]
    assert rulebook.get_rule("V2").implemented_in == ()


def test_get_rule_case_insensitive_and_unknown_ids():
    assert rulebook.get_rule("e9.2").id == "E9.2"
    assert rulebook.get_rule(" G5 ").title
    with pytest.raises(NapsimInputError) as e:
        rulebook.get_rule("Z9")
    assert "Z9" in str(e.value) and "D1-D8" in str(e.value) and "E9.1-E9.6" in str(e.value)
    assert [r.id for r in rulebook.rules_matching("e9")] == [f"E9.{i}" for i in range(1, 7)]
    assert [r.id for r in rulebook.rules_matching("V")] == ["V1", "V2"]
    with pytest.raises(NapsimInputError):
        rulebook.rules_matching("E99")


def test_implementations_resolve():
    names = [n for r in rulebook.load_rules() for n in r.implemented_in]
    names += [n for x in rulebook.load_readings() for n in x.where]
    bad = []
    for name in names:
        try:
            obj = _resolve(name)
        except (ImportError, AttributeError) as e:
            bad.append(f"{name}: {e}")
            continue
        assert obj is not None, name
    assert not bad, "\n".join(bad)


def test_catalogue_ships_with_the_package():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    shipped = data["tool"]["setuptools"]["package-data"]["napsim"]
    for path in (rulebook.RULEBOOK_PATH, rulebook.RULE_TESTS_PATH):
        assert path.relative_to(ROOT / "napsim").as_posix() in shipped
    assert rulebook.RULEBOOK_PATH.is_file() and rulebook.RULE_TESTS_PATH.is_file()


# ---------------------------------------------------------------------------------------------
# citations: tests, code, README


def test_citation_styles():
    c = rulebook.citations
    assert c("# rules D1, D6") == ["D1", "D6"]
    assert c("# rule D6, rule E9.4: the kernel") == ["D6", "E9.4"]
    assert c("# rule D3 (first_strike; P7 with probability 1)") == ["D3"]
    assert c("# rules G1 / G3 (base rule) with four a side: a Scout") == ["G1", "G3"]
    assert c("# rules L4/L5 (uniform options), L7 with march_prob 0.5, P1 random") == \
        ["L4", "L5", "L7", "P1"]
    assert c("# rule G7 and P4 through a study") == ["G7", "P4"]
    assert c("# rule L3 across L1 L2 C1") == ["L3"]  # LGB section names are not rules
    assert c("# the rules of the game") == []
    assert rulebook.expand_citation("G1-G3") == ["G1", "G2", "G3"]
    assert rulebook.expand_citation("E8-E10") == ["E8", *(f"E9.{i}" for i in range(1, 7)), "E10"]
    assert rulebook.expand_citation("M6") == ["M6.1", "M6.2", "M6.3", "M6.4"]
    assert rulebook.expand_citation("E14") == [] and rulebook.expand_citation("G3-G1") == []
    loose = rulebook.citations("(RULES.md D, S, E; one) (docs/rules.md, M) (M6.2, L6) # L1 setup",
                               loose=True)
    assert set(loose) == {"D", "S", "E", "M", "M6.2", "L6", "L1"}


def test_every_cited_rule_exists(scan):
    # a test citing an ID that is not in the catalogue is a typo
    bad = scan.unknown(rulebook.rule_ids())
    assert not bad, "tests cite unknown rule IDs:\n" + "\n".join(bad)


def test_every_rule_has_a_test(scan):
    tests = scan.tests_by_rule(rulebook.rule_ids())
    missing = [i for i, t in tests.items() if not t and i not in PENDING]
    assert not missing, (f"rules no test cites: {missing} (add a `# rule ID` comment to the test "
                         "that checks each)")


def test_pending_list_is_current(scan):
    tests = scan.tests_by_rule(rulebook.rule_ids())
    assert PENDING <= set(tests), "PENDING names an ID the catalogue does not have"
    done = sorted(i for i in PENDING if tests[i])
    assert not done, f"{done} now have tests: remove them from PENDING in tests/test_rules_doc.py"


def _code_files() -> list[Path]:
    files = sorted((ROOT / "napsim").rglob("*.py")) + sorted((ROOT / "napsim").rglob("*.toml"))
    return files + [ROOT / "README.md"]


def test_code_and_readme_cite_existing_rules():
    ids = rulebook.rule_ids()
    bad = []
    for path in _code_files():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            _, unknown = rulebook.cited_ids(rulebook.citations(line, loose=True), ids)
            bad.extend(f"{path.relative_to(ROOT)}:{n}: {ref}" for ref in sorted(unknown))
    assert not bad, "citations of unknown rule IDs:\n" + "\n".join(bad)


# ---------------------------------------------------------------------------------------------
# generated files


def test_generated_files_are_up_to_date(rules_doc):
    stale = rules_doc.stale(ROOT)
    assert not stale, f"{[str(p) for p in stale]} stale: run `python tools/rules_doc.py`"


def test_rule_tests_json_feeds_the_catalogue(rules_doc):
    # the installed package knows the tests without the tests folder
    tests = rules_doc.scan_tests(ROOT).tests_by_rule(rulebook.rule_ids())
    for r in rulebook.load_rules():
        assert list(r.tests) == tests[r.id], r.id
    assert "tests/test_rules_doc.py::test_a_victory_model_is_rejected_not_ignored" in \
        rulebook.get_rule("V2").tests


def test_doc_lists_every_rule_option_and_reading(rules_doc):
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    for r in rulebook.load_rules():
        assert f"### {r.id} {r.title}" in text
    for o in rulebook.load_options():
        assert f"### `{o.name}`" in text and "--set rules.NAME=VALUE" in text
    assert text.count("| [") >= len(rulebook.load_rules()) + len(rulebook.load_readings())


# ---------------------------------------------------------------------------------------------
# V2 is not implemented: a scenario asking for it is refused, never silently ignored


@pytest.mark.parametrize("extra,key", [
    ('[scenario]\nvictory = "banners"', "victory"),
    ("[victory]\nbanners = 6", "victory"),
])
def test_a_victory_model_is_rejected_not_ignored(tmp_path, monkeypatch, capsys, extra, key):
    # rule V2: the optional victory model does not exist in napsim (every game ends by V1)
    text = (SCENARIO_DIR / "symmetric.toml").read_text(encoding="utf-8")
    if extra.startswith("[scenario]"):
        text = text.replace("[scenario]\n", extra + "\n", 1)
    else:
        text += "\n" + extra + "\n"
    path = tmp_path / "victory.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(NapsimInputError) as e:
        load_scenario(path)
    msg = str(e.value)
    assert key in msg and str(path) in msg and "\n" not in msg
    monkeypatch.setattr(sys, "argv", ["napsim", "trace", "--scenario", str(path), "--game", "0"])
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("napsim: error:") and key in err


# ---------------------------------------------------------------------------------------------
# napsim rules


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_cli_rules_table():
    out = _invoke("rules")
    first = [ln.split()[0] for ln in out.splitlines()[1:] if ln.strip()]
    ids = rulebook.rule_ids()
    assert first[: len(ids)] == ids
    g6 = next(ln for ln in out.splitlines() if ln.startswith("G6 "))
    assert "guerrilla_share" in g6 and "sim.packing.guerrilla_config" in g6
    assert "(not implemented)" in next(ln for ln in out.splitlines() if ln.startswith("V2 "))
    assert "initiative=no_card_no_orders" in out


def test_cli_rules_one_rule_in_full():
    out = _invoke("rules", "g5")
    r = rulebook.get_rule("G5")
    assert out.startswith("G5  ") and "[implemented]" in out.splitlines()[0]
    assert " ".join(out.split()).count(" ".join(r.text.split()[:8])) == 1
    for name in r.implemented_in:
        assert name in out
    assert f"tests ({len(r.tests)}):" in out and r.tests[0] in out
    m62 = _invoke("rules", "M6.2")
    assert "option initiative" in m62 and "no_card_no_orders (default)" in m62 and "no_card" in m62
    assert _invoke("rules", "E9").count("End of turn") == 6


def test_cli_rules_unknown_id_one_line_exit_2(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["napsim", "rules", "Z9"])
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith("napsim: error: rule 'Z9'") and "D1-D8" in err and "Traceback" not in err


def test_catalogue_options_are_the_engine_options():
    # the [rules] options documented in docs/rules.md are exactly the ones the scenario loader
    # accepts, in catalogue order, with the same values and the same default (the first value)
    from napsim.model.scenarios import RULE_OPTIONS

    options = rulebook.load_options()
    documented = [(o.name, tuple(v.name for v in o.values)) for o in options]
    assert documented == list(RULE_OPTIONS.items())
    for o in options:  # the catalogue lists the default first, and every value once
        values = [v.name for v in o.values]
        assert values[0] == o.default and len(set(values)) == len(values) >= 2, o.name


# ---------------------------------------------------------------------------------------------
# the seed rules (issue 26): every rule the source texts state has an ID here


def test_every_seed_rule_has_an_id_in_docs_rules():
    # rules N1, N2, T1, E13, L10, D8: the list of seed rules (napsim/model/seed_rules.toml) names,
    # for every rule a source text states, the catalogue ID that covers it; docs/rules.md has them
    data = tomllib.loads((ROOT / "napsim" / "model" / "seed_rules.toml").read_text(encoding="utf-8"))
    ids = set(rulebook.rule_ids())
    letters = {g.letter for g in rulebook.load_groups()}
    families = data["families"]
    assert set(families) <= letters and {"D", "S", "E", "M", "L", "G", "V", "P", "N", "T"} <= set(families)
    sources = {p.name for p in (ROOT.parent / "shared" / "rules").glob("*.txt")}
    doc = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    bad = [f"{x['id']}: {x['rule']}" for x in data["seed"]
           if x["id"] not in ids or not x["id"].startswith(x["family"])
           or f"### {x['id']} " not in doc or x["family"] not in families]
    assert not bad, f"seed rules with no ID in docs/rules.md: {bad}"
    assert {f for f in families if not any(x["family"] == f for x in data["seed"])} == set()
    if sources:  # the seed texts are beside the checkout: every one is read
        assert {x["source"] for x in data["seed"]} == sources


def test_out_of_scope_rules_say_why_and_are_refused_in_scenarios():
    # rules N1, N2: out of scope, with the reason; a scenario asking for them is refused in one
    # line, never ignored silently
    for rid in ("N1", "N2"):
        r = rulebook.get_rule(rid)
        assert r.status == "out of scope" and r.note and r.implemented_in == ()
    # rule S5: the order of movement and battles is out of scope too; napsim has nothing to refuse
    s5 = rulebook.get_rule("S5")
    assert s5.status == "out of scope" and "no movement or battles" in s5.note
    for key in ("russian_roll", "iron_will"):
        with pytest.raises(NapsimInputError) as e:
            load_scenario("symmetric", {f"sides.A.{key}": 1})
        assert "\n" not in str(e.value) and key in str(e.value)
