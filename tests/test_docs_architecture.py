"""docs/architecture.md against the code (issue 27, part 4): its module tables name every module of
the package, each once and in the table of its own layer, and no module that does not exist; the
"to find X, open Y" table and the layer picture name only modules that exist. Read from the files,
nothing is imported."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "napsim"
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
LAYERS = ("model", "engine", "sim", "study", "output", "top")


def modules() -> set[str]:
    """Every module of the package, as the doc names it: its path under napsim/."""
    return {p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")}


def section(heading: str) -> str:
    start = DOC.index(f"## {heading}\n")
    end = DOC.find("\n## ", start + 1)
    return DOC[start:] if end < 0 else DOC[start:end]


def module_tables() -> dict[str, list[str]]:
    """layer -> the modules named in the first column of its table under '## The modules'."""
    out: dict[str, list[str]] = {}
    layer = None
    for line in section("The modules").splitlines():
        head = re.match(r"^\*\*(\w+)\*\*", line)
        if head:
            layer = head.group(1)
            out[layer] = []
        elif line.startswith("| `") and layer is not None:
            out[layer] += re.findall(r"`([\w/]+\.py)`", line.split("|")[1])
    return out


def layer_of(module: str) -> str:
    first = module.split("/")[0]
    return first if first in LAYERS[:-1] else "top"


def test_the_module_tables_name_every_module_once():
    tables = module_tables()
    assert list(tables) == list(LAYERS)
    named = [m for ms in tables.values() for m in ms]
    assert sorted(set(named)) == sorted(named), "a module named twice"
    missing = sorted(modules() - set(named))
    gone = sorted(set(named) - modules())
    assert not missing, f"modules docs/architecture.md does not describe: {missing}"
    assert not gone, f"docs/architecture.md describes modules that do not exist: {gone}"
    wrong = [(m, layer) for layer, ms in tables.items() for m in ms if layer_of(m) != layer]
    assert not wrong, f"modules in another layer's table: {wrong}"


def picture_rows() -> dict[str, str]:
    """layer -> the text of its rows in the layer picture (the first code block)."""
    start = DOC.index("```\n") + 4
    picture = DOC[start:DOC.index("```", start)]
    rows = re.finditer(r"^  (\w+) +(.+?)(?=^    \||\Z)", picture, re.M | re.S)
    return {m.group(1): m.group(2) for m in rows}


def test_the_picture_shows_every_module_in_its_layer():
    rows = picture_rows()
    assert list(rows) == list(reversed(LAYERS))  # the top layer first
    for m in sorted(modules()):
        name = Path(m).stem
        if name == "__init__" and m != "output/findings/__init__.py":
            continue  # a layer's docstring, the package face: named in the tables
        where = layer_of(m)
        assert re.search(rf"(?<![\w.]){name}(?!\w)", rows[where]), f"{m} is not in the picture's {where} row"


def test_the_finding_table_names_real_modules():
    table = section("To find X, open Y")
    named = set(re.findall(r"`((?:app|engine|model|sim|study|output)/[\w/]+\.py|\w+\.py)`", table))
    assert named and not named - modules(), sorted(named - modules())
