"""Generate docs/rules.md and napsim/model/rule_tests.json from the rule catalogue
(napsim/model/rulebook.toml).

    python tools/rules_doc.py           # write both files
    python tools/rules_doc.py --check   # exit 1 when either is stale (nothing written)

The test functions that check a rule are found by scanning tests/**/test_*.py for comments that
cite rule IDs (`# rule E9.2`, `# rules D1, D6`, `# rules G1-G6`): a citation belongs to the test
function it is written in (or on, or in the comment block just above it). The mapping goes into
napsim/model/rule_tests.json, so that `napsim rules` knows it without the tests folder.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import sys
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from napsim.model import rulebook  # noqa: E402
from napsim.model.house_rules import HOUSE_RULES  # noqa: E402

DOC_PATH = Path("docs/rules.md")
JSON_PATH = Path("napsim/model/rule_tests.json")
TESTS_DIR = Path("tests")


@dataclass
class Citation:
    """A comment citing rules: where it is, the test it belongs to (or None), what it cites."""

    path: str
    line: int
    test: str | None
    refs: list[str]


@dataclass
class Scan:
    """Every rule citation of the test files."""

    citations: list[Citation] = field(default_factory=list)

    def tests_by_rule(self, ids: list[str]) -> dict[str, list[str]]:
        """Rule ID -> sorted test functions citing it (every ID present, possibly empty)."""
        out: dict[str, set[str]] = {i: set() for i in ids}
        for c in self.citations:
            if c.test is None:
                continue
            known, _ = rulebook.cited_ids(c.refs, ids)
            for i in known:
                out[i].add(c.test)
        return {i: sorted(v) for i, v in out.items()}

    def unknown(self, ids: list[str]) -> list[str]:
        """'path:line: REF' for every cited reference that names no rule (a typo)."""
        bad = []
        for c in self.citations:
            _, unknown = rulebook.cited_ids(c.refs, ids)
            bad.extend(f"{c.path}:{c.line}: {ref}" for ref in sorted(unknown))
        return bad


def _comment_blocks(source: str) -> list[tuple[int, int, str]]:
    """(first line, last line, text) of each comment block: consecutive full-line comments join
    into one block; a comment after code stands alone."""
    blocks: list[list] = []
    lines = source.splitlines()
    prev_full = -10
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type != tokenize.COMMENT:
            continue
        row, col = tok.start
        full = lines[row - 1][:col].strip() == ""
        text = tok.string.lstrip("#").strip()
        if full and blocks and prev_full == row - 1:
            blocks[-1][1] = row
            blocks[-1][2] += " " + text
        else:
            blocks.append([row, row, text])
        prev_full = row if full else -10
    return [(a, b, t) for a, b, t in blocks]


def _test_ranges(tree: ast.Module) -> list[tuple[int, int, str]]:
    """(first line incl. decorators, last line, name) of every test function."""
    out = []

    def add(node, prefix: str) -> None:
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        out.append((first, node.end_lineno, prefix + node.name))

    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
            add(node, "")
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for sub in node.body:
                if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef) and sub.name.startswith("test"):
                    add(sub, node.name + "::")
    return out


def scan_file(path: Path, rel: str) -> list[Citation]:
    """The rule citations of one test file."""
    source = path.read_text(encoding="utf-8")
    ranges = _test_ranges(ast.parse(source))
    out = []
    for first, last, text in _comment_blocks(source):
        refs = rulebook.citations(text)
        if not refs:
            continue
        test = None
        for a, b, name in ranges:
            if a <= first <= b or last == a - 1:
                test = f"{rel}::{name}"
                break
        out.append(Citation(rel, first, test, refs))
    return out


def scan_tests(root: Path = ROOT) -> Scan:
    """Every rule citation in tests/**/test_*.py under root."""
    scan = Scan()
    for path in sorted((root / TESTS_DIR).rglob("test_*.py")):
        scan.citations.extend(scan_file(path, path.relative_to(root).as_posix()))
    return scan


# ------------------------------------------------------------------------------------------------
# rendering


def _anchor(rule_id: str) -> str:
    return "rule-" + rule_id.lower().replace(".", "-")


def _code_list(names) -> str:
    return ", ".join(f"`{n}`" for n in names) if names else "none"


def render_json(tests: dict[str, list[str]]) -> str:
    """napsim/model/rule_tests.json: rule ID -> test functions citing it."""
    data = {"generated_by": "tools/rules_doc.py (from the rule citations in tests/)",
            "tests": tests}
    return json.dumps(data, indent=1) + "\n"


INTRO = """\
# napsim rules reference

<!-- Generated from napsim/model/rulebook.toml by `python tools/rules_doc.py`: do not edit by hand. -->

This page lists every rule napsim simulates, in napsim's own words, with where the engine
implements it and which tests check it. It is generated from the rule catalogue shipped inside the
package (`napsim/model/rulebook.toml`); `napsim rules` prints the same catalogue on the command line
(`napsim rules` for the table, `napsim rules G5` for one rule in full, `napsim rules E9` for a
group).

**Rule IDs.** Every rule has an ID made of a letter and a number: D components, S the
battlefield as napsim sees it, E EPIC with one player a side, M EPIC with two to four players a
side, L La Grande Battles, G Spanish Guerrilla Action, V the end of the game, P the scripted
policies, N the national counters napsim leaves out, T the Epic card game's mulligan.
Some rules have numbered steps (E9.1-E9.6, M6.1-M6.4, M8.1-M8.2). Code, docstrings and
this repository's README cite rules as `docs/rules.md E9.2` or just `(E9.2)`.

**How tests cite rules.** A test names the rules it checks in a comment, `# rule E9.2` or
`# rules D1, D6` (ranges such as `G1-G6` and groups such as `E9` are allowed). The "tested by"
lines below are collected from those comments by `tools/rules_doc.py`, which also writes them to
`napsim/model/rule_tests.json`; `tests/test_rules_doc.py` fails when a cited ID does not exist, when a
rule has no test, or when this page is out of date.

**Open points and options.** Where the rule texts can be read more than one way, napsim picks a
reading. Some readings can be switched per scenario with a `[rules]` table in the scenario file:

```toml
[rules]
initiative = "no_card"
elan_order = "shuffle_first"
```

or on the command line with `--set rules.NAME=VALUE`, e.g.
`napsim simulate --scenario epic3-tamames --set rules.initiative=no_card ...`. The
options are listed [below](#scenario-rule-options); the readings that cannot be switched yet are
listed under [fixed readings](#fixed-readings-not-switchable-yet).

**Sources.** napsim reads two kinds of source. The *rule texts* (the EPIC, La Grande Battles and
Spanish Guerrilla Action rules, the card texts) are read clause by clause; where they leave a point
open, napsim argues a reading. A *designer's ruling* is the game's official answer to a rules
question (the Commands & Colors: Napoleonics FAQ on commandsandcolors.net, with its date): it
outranks any reading of ours, and where one exists it decides the default. The rulings napsim
follows are listed [below](#designers-rulings), and each rule they touch cites them.

**Status.** `implemented`, `partial` (part of the rule is missing; the entry says which),
`not implemented`, or `out of scope` (napsim has nothing the rule could act on; the entry says
why).

**Seed rules.** Every rule the source rule texts state is listed, one line each, in
`napsim/model/seed_rules.toml` with the ID above that covers it; `tests/test_rules_doc.py` fails
when one names no ID here.
"""


def render_markdown(tests: dict[str, list[str]]) -> str:
    """docs/rules.md."""
    rules = rulebook.load_rules()
    options = {o.name: o for o in rulebook.load_options()}
    readings = rulebook.load_readings()
    rulings = rulebook.load_rulings()
    out = [INTRO]
    out.append("## Contents\n")
    for g in rulebook.load_groups():
        ids = [r.id for r in rules if r.group == g.letter]
        out.append(f"- [{g.letter}. {g.title}](#{g.letter.lower()}) ({rulebook.id_pattern(ids)})")
    out.append("- [Designer's rulings](#designers-rulings)")
    out.append("- [Scenario rule options](#scenario-rule-options)")
    out.append("- [House rules](#house-rules)")
    out.append("- [Fixed readings (not switchable yet)](#fixed-readings-not-switchable-yet)\n")
    for g in rulebook.load_groups():
        group = [r for r in rules if r.group == g.letter]
        out.append(f'<a id="{g.letter.lower()}"></a>\n')
        out.append(f"## {g.letter}. {g.title}\n")
        out.append(" ".join(g.text.split()) + "\n")
        out.append("| ID | title | status | options | tests |")
        out.append("|---|---|---|---|---|")
        for r in group:
            opts = ", ".join(f"`{o}`" for o in r.options) or "-"
            out.append(f"| [{r.id}](#{_anchor(r.id)}) | {r.title} | {r.status} | {opts} | "
                       f"{len(tests.get(r.id, []))} |")
        out.append("")
        for r in group:
            out.append(f'<a id="{_anchor(r.id)}"></a>\n')
            out.append(f"### {r.id} {r.title}\n")
            out.append(r.text + "\n")
            if r.status != "implemented":
                out.append(f"**Status: {r.status}.** {r.note}\n" if r.note else
                           f"**Status: {r.status}.**\n")
            elif r.note:
                out.append(f"**Note.** {r.note}\n")
            for name in r.options:
                o = options[name]
                vals = "; ".join(
                    f"`{v.name}`" + (" (default)" if v.name == o.default else "") for v in o.values)
                default = next(v for v in o.values if v.name == o.default)
                what = "House rule" if o.house else "Reading"
                out.append(f"- **{what} (option [`{name}`](#option-{name}))**: {default.text} "
                           f"Values: {vals}.")
            for x in rulings:
                if r.id in x.rules:
                    out.append(f"- **Designer's ruling ({x.date})**: {x.answer} "
                               "([source](#designers-rulings))")
            for x in readings:
                if r.id in x.rules:
                    out.append(f"- **Fixed reading**: {x.text}")
            out.append(f"- **Implemented in**: {_code_list(r.implemented_in)}")
            out.append(f"- **Tested by**: {_code_list(tests.get(r.id, []))}\n")
    out.append('<a id="designers-rulings"></a>\n')
    out.append("## Designer's rulings\n")
    out.append("Official answers to rules questions. A ruling outranks napsim's reading of the "
               "rule texts: where one exists it is the default, and the reading it overrules stays "
               "an option only for comparison.\n")
    out.append("| date | source | question | ruling | rules | in napsim |")
    out.append("|---|---|---|---|---|---|")
    for x in rulings:
        links = ", ".join(f"[{i}](#{_anchor(i)})" for i in x.rules)
        where = (f"{x.napsim} (option [`{x.decides}`](#option-{x.decides}))" if x.decides
                 else x.napsim)
        out.append(f"| {x.date} | {x.source} | {x.question} | {x.answer} | {links} | {where} |")
    out.append("")
    out.append("## Scenario rule options\n")
    out.append("Each option switches one reading of an open point. Set it in the scenario's "
               "`[rules]` table or with `--set rules.NAME=VALUE`. The default is the reading that "
               "gives every clause of the rule text a meaning and fits the rule's purpose, the way "
               "a careful player at the table applies it; each option quotes the deciding words "
               "and says why.\n")
    for o in (o for o in options.values() if not o.house):
        out += _option_block(o, "", "Default", " (default)", "")
    out += house_rules_section([o for o in options.values() if o.house])
    out.append("## Fixed readings (not switchable yet)\n")
    out.append("Open points the engine decides one way, with no scenario option for now.\n")
    out.append("| rules | reading | where |")
    out.append("|---|---|---|")
    for x in readings:
        links = ", ".join(f"[{i}](#{_anchor(i)})" for i in x.rules)
        out.append(f"| {links} | {x.text} | {_code_list(x.where)} |")
    return "\n".join(out) + "\n"


def _option_block(o, source: str, default_words: str, default_mark: str, other_mark: str) -> list[str]:
    """One option's heading, text, rules, formats and table of values."""
    links = ", ".join(f"[{i}](#{_anchor(i)})" for i in o.rules)
    out = [f'<a id="option-{o.name}"></a>\n', f"### `{o.name}`\n", f"{o.text}\n"]
    out += [source] if source else []
    out += [f"Rules: {links}. Formats: {', '.join(o.formats) or 'all'}. {default_words}: `{o.default}`.\n",
            "| value | meaning |", "|---|---|"]
    out += [f"| `{v.name}`{default_mark if v.name == o.default else other_mark} | {v.text} |"
            for v in o.values]
    return out + [""]


def house_rules_section(options: list) -> list[str]:
    """The House rules section: changes players make to the rules as written, each an option whose
    default is the rule as written, with its source and the cards it changes."""
    out = ["## House rules\n",
           "Changes players make to the rules as written, not readings of the text: each is a "
           "scenario option (`[rules]` table or `--set rules.NAME=VALUE`) whose default is the rule "
           "as written, and napsim never plays one unless asked. Each names its source and the cards "
           "it changes (`napsim/model/house_rules.py`: a house rule is an option and its card table; "
           "the kernels play it through the packed card table). The page shows them apart from the "
           "readings, and `napsim readings studies/house_rules.toml` measures each against the rule "
           "as written (results/house_rules/).\n"]
    for o in options:
        h = HOUSE_RULES[o.name]
        out += _option_block(o, f"Source: {o.source}\n", "Default (as written)", " (default, as written)",
                             " (house rule)")
        out.append(f"Cards it changes with `{o.name} = \"{h.house}\"`: "
                   + "; ".join(f"{name} ({', '.join(f'{k} = {v}' for k, v in cols.items())})"
                               for name, cols in h.cards.items())
                   + " (`reach = 1`: orders in every section).\n")
    return out


def outputs(root: Path = ROOT) -> dict[Path, str]:
    """The generated files (relative path -> content) for the tests found under root."""
    tests = scan_tests(root).tests_by_rule(rulebook.rule_ids())
    return {DOC_PATH: render_markdown(tests), JSON_PATH: render_json(tests)}


def stale(root: Path = ROOT) -> list[Path]:
    """Generated files that differ from what is on disk."""
    out = []
    for rel, text in outputs(root).items():
        p = root / rel
        if not p.is_file() or p.read_text(encoding="utf-8") != text:
            out.append(rel)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if a generated file is stale")
    args = ap.parse_args(argv)
    if args.check:
        bad = stale()
        for rel in bad:
            print(f"{rel} is stale: run python tools/rules_doc.py", file=sys.stderr)
        return 1 if bad else 0
    for rel, text in outputs().items():
        p = ROOT / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
        print(f"wrote {rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
