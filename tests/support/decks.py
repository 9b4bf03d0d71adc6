"""Deck files for tests: the shipped deck names, a deck CSV read and written with nothing but the
csv module, and custom decks built from gmt90's card rows."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from napsim.model.cards import DECK_DIR
from napsim.model.deck_ranges import RANGE_COLUMNS

C_AND_C_DECKS = ("gmt90", "ccn70", "cca60")
ALL_DECKS = (*C_AND_C_DECKS, "epic-tcg-sealed30")


def read_deck_csv(path: Path) -> tuple[list[str], list[str], list[dict[str, str]], list[int]]:
    """A deck file read with nothing but the csv module: (comment lines, columns, rows, row lines).

    Row lines are 1-based line numbers in the file, for checking that errors name the right line.
    """
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    n_comment = 0
    while lines[n_comment].startswith("#"):
        n_comment += 1
    table = list(csv.reader(io.StringIO("\n".join(lines[n_comment:]))))
    columns = table[0]
    rows = [dict(zip(columns, r, strict=True)) for r in table[1:] if r]
    row_lines = [n_comment + 2 + i for i, r in enumerate(table[1:]) if r]
    return lines[:n_comment], columns, rows, row_lines


def write_deck_csv(path: Path, comments: list[str], columns: list[str],
                   rows: list[dict[str, str]]) -> Path:
    buf = io.StringIO()
    buf.write("".join(c + "\n" for c in comments))
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow([r[c] for c in columns])
    path.write_text(buf.getvalue(), encoding="utf-8")
    return path


def _gmt_rows() -> tuple[list[str], dict[str, dict[str, str]]]:
    text = (DECK_DIR / "gmt90.csv").read_text(encoding="utf-8")
    body = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    reader = csv.DictReader(io.StringIO(body))
    rows = list(reader)
    return list(reader.fieldnames), {r["name"]: r for r in rows}


def write_deck(path: Path, counts: dict[str, int],
               variants: dict[str, tuple[str, dict[str, str]]] | None = None) -> Path:
    """A deck file in the gmt90.csv format: card rows copied from gmt90 with new counts.

    `variants` maps a new card name to (gmt90 card it copies, changed columns)."""
    columns, rows = _gmt_rows()
    out = []
    for name, n in counts.items():
        if name in rows:
            row = dict(rows[name])
        else:
            base, changes = (variants or {})[name]
            row = dict(rows[base], **changes)
            row["name"] = name
        row["count"] = str(n)
        row.update({c: "" for c in RANGE_COLUMNS if c in row})  # a custom deck's counts are fixed
        out.append(row)
    buf = io.StringIO()
    buf.write(f"# title: test deck {path.stem}\n# total: {sum(counts.values())}\n")
    w = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    w.writeheader()
    w.writerows(out)
    path.write_text(buf.getvalue(), encoding="utf-8")
    return path
