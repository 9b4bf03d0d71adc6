"""Product text speaks of the game and napsim, never of how napsim was made: no issue numbers, no
"before issue 26", no file that only the developers have (a spec outside the repository). The
package (code, help texts, messages, shipped scenarios and decks), the README, the user docs and the
study files are scanned; docs/notes/ is the developers' history and tools/ their own scripts."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HISTORY = re.compile(r"\bissues?\s+#?\d+|\bbefore\s+issue\b|\bissue-\d+", re.IGNORECASE)
OUTSIDE = re.compile(r"shared/(spec|data|rules)|/work/|\bDESIGN\.md|spec/RULES\.md")
SUFFIXES = {".py", ".toml", ".md", ".csv", ".json", ".txt"}
# Engine docstrings another change owns: "(issue N)" to drop, and rng.py's "DESIGN.md" to name as
# docs/architecture.md, at the merge.
PENDING: set[str] = set()


def product_files() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
             *sorted((ROOT / "studies").glob("*.toml"))]
    files += [p for p in sorted((ROOT / "napsim").rglob("*")) if p.suffix in SUFFIXES
              and "__pycache__" not in p.parts and p.relative_to(ROOT).as_posix() not in PENDING]
    return [p for p in files if p.is_file()]


def offending_lines(pattern: re.Pattern, files: list[Path]) -> list[str]:
    found = []
    for p in files:
        text = p.read_text(encoding="utf-8", errors="replace")
        for m in pattern.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.append(f"{p.relative_to(ROOT)}:{line}: {m.group(0)!r}")
    return found


def test_the_scan_finds_what_it_looks_for():
    assert HISTORY.search("napsim's reading before\nissue 26")
    assert HISTORY.search("see issues 27 and 28")
    assert not HISTORY.search("the issue of a card; 26 cards")
    assert OUTSIDE.search("the notes in shared/data/decks.md")
    assert len(product_files()) > 50


def test_no_development_history_in_product_text():
    assert offending_lines(HISTORY, product_files()) == []


def test_no_file_the_user_never_gets_is_cited():
    assert offending_lines(OUTSIDE, product_files()) == []
