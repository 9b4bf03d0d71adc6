"""The README: it starts with the two set-up commands (the flagship study, the tests),
CI runs exactly the test command it shows, the questions a wargamer asks are its sections, and
every figure it quotes from the flagship study matches the committed results."""

from __future__ import annotations

import itertools
import math
import re
import subprocess
from pathlib import Path

import pandas as pd

from napsim.model.cards import load_deck

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
RESULTS = ROOT / "results" / "courier_rack"


def block(marker: str) -> str:
    m = re.search(rf"<!-- {marker} -->\n(.*?)<!-- /{marker} -->", README, re.S)
    assert m, f"README has no <!-- {marker} --> block"
    return m.group(1)


def command(marker: str) -> str:
    lines = [x for x in block(marker).splitlines() if x and not x.startswith("```")]
    assert len(lines) == 1, lines
    return lines[0]


def test_readme_starts_with_the_two_set_up_commands():
    main, tests = command("main-command"), command("test-command")
    assert main.endswith("pip install -e . && napsim run studies/courier_rack.toml --out out/courier_rack")
    assert tests.endswith('pip install -e ".[test]" && python -m pytest -q')
    first_section = README.index("\n## ")
    assert README.index("<!-- main-command -->") < README.index("<!-- test-command -->") < first_section
    assert (ROOT / "studies" / "courier_rack.toml").is_file()


def test_ci_runs_the_command_the_readme_shows():
    # .ci/run reads the command with sed; run that extraction and compare
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    extract = next(x for x in script.splitlines() if x.startswith("cmd=$("))[len("cmd=$("):-1]
    got = subprocess.run(["bash", "-c", extract], cwd=ROOT, capture_output=True, text=True, check=True)
    assert got.stdout.strip() == command("test-command")
    # then the slow tests, in the same shell (the README command's venv and compiled kernels)
    assert 'slow="python -m pytest -q -m slow -n auto"' in script and 'bash -c "$cmd && $slow"' in script


def test_sections_follow_the_questions():
    heads = re.findall(r"^## (.+)$", README, re.M)
    # the designer's questions and their answers first (balance, what a card gives), then the page
    want = ["Is my scenario balanced?", "What does a card in hand give?", "See it in your browser",
            "How much does skill matter?", "What are my odds of...?", "What does a game look like?",
            "Which scenarios are there, and how do I write one?"]
    assert heads[:len(want)] == want, heads
    for doc in ("docs/guide.md", "docs/developing.md", "docs/rules.md", "docs/compare-and-balance.md",
                "docs/speed.md", "docs/architecture.md"):
        assert f"]({doc})" in README and (ROOT / doc).is_file(), doc
    for link in re.findall(r"\]\(((?:results|docs)/[^)#]+)", README):
        assert (ROOT / link).exists(), link


def test_the_readme_is_short_and_the_guide_holds_the_glossary():
    from napsim.model.glossary import CARD_FLOW, glossary_markdown

    assert len(README.splitlines()) <= 250
    assert " ".join(CARD_FLOW.split()) in " ".join(README.split())
    guide = (ROOT / "docs" / "guide.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- glossary -->\n(.*?)\n<!-- /glossary -->", guide, re.S)
    assert m and m.group(1) == glossary_markdown(), "docs/guide.md's glossary is not the page's"
    for link in re.findall(r"\]\(([^)#:]+)", guide):
        assert (ROOT / "docs" / link).exists(), link


def _decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def _matches(triple: tuple[str, str, str], candidates: list[tuple[float, float, float]]) -> bool:
    d = _decimals(triple[0])
    want = [float(x) for x in triple]
    step = 10.0 ** -d
    return any(all(abs(w - c) <= 0.5 * step + 1e-9 for w, c in zip(want, cand, strict=True))
               for cand in candidates)


def test_flagship_figures_match_the_committed_results():
    """Every 'value [low, high]' in the flagship block is a point of the committed summary (any
    metric, Blue) or a difference between two points of one metric (interval sqrt(h1^2 + h2^2))."""
    summ = pd.read_csv(RESULTS / "summary.csv")
    blue = summ[summ["side_key"] == "A"]
    candidates = list(zip(blue["value"], blue["ci_low"], blue["ci_high"], strict=True))
    for _, g in blue.groupby("metric"):
        rows = list(zip(g["value"], (g["ci_high"] - g["ci_low"]) / 2, strict=True))
        for (v1, h1), (v2, h2) in itertools.permutations(rows, 2):
            d, h = v1 - v2, math.hypot(h1, h2)
            candidates.append((d, d - h, d + h))
    text = block("flagship-results")
    triples = re.findall(r"([+-]?\d+\.\d+) \[([+-]?\d+\.\d+), ([+-]?\d+\.\d+)\]", text)
    assert len(triples) >= 8, triples
    bad = [t for t in triples if not _matches(t, candidates)]
    assert not bad, f"README figures not in results/courier_rack/summary.csv: {bad}"
    deck = load_deck("gmt90")
    estimated = int(deck.cards.loc[deck.cards["confidence"] == "estimated", "count"].sum())
    assert f"{estimated} of GM&T's {deck.n_cards} cards have estimated counts" in text
    assert "20,000 games a point" in text and "20_000" in (ROOT / "studies" / "courier_rack.toml").read_text()


def test_skill_figures_match_the_committed_report():
    """Every 'value [low, high]' of the skill block is one of results/skill's (a sign may be left
    out where the words say which way), and the block names the command that rebuilds it."""
    report = (ROOT / "results" / "skill" / "report.md").read_text(encoding="utf-8")
    pattern = r"([+-]?\d[\d,]*\.\d+) \[([+-]?\d[\d,]*\.\d+), ([+-]?\d[\d,]*\.\d+)\]"

    def triples(text: str) -> set[tuple[float, float, float]]:
        out = set()
        for t in re.findall(pattern, text):
            v, lo, hi = (float(x.replace(",", "")) for x in t)
            out |= {(v, lo, hi), (abs(v), *sorted((abs(lo), abs(hi))))}
        return out

    text = block("skill-results")
    found = [tuple(float(x) for x in t) for t in re.findall(pattern, text)]
    assert len(found) >= 15, found
    assert not [t for t in found if t not in triples(report)], "README skill figures not in results/skill"
    assert "napsim regen skill" in README and "](results/skill/report.md)" in text
