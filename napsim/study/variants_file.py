"""The variants file (`napsim regen`): questions of the variants commands written down once, so that
one command rebuilds their report in results/ (`napsim.output.variants_report`).

A variants file (``studies/tamames_balance.toml``, ``studies/skill.toml``) has a [variants] table
(name, description) and [[tune]], [[ladder]], [[balance]] and [[compare]] entries. Each entry has a
`name` (its files in the report are <name>.json and, but for a tune, <name>.png), a `title`, and
the keyword arguments of `napsim.tune`, `napsim.study.ladder.run_ladder`, `napsim.balance` or
`napsim.compare` (the command's options with '_' for '-': scenario, vary, equalize, games,
deck_ensemble, ...). The keys, the '@name' references to a tune's answer, a balance's `against`
and a ladder's values are checked here, the other values by the search itself. Files written
before the table had its name call it [design]; they load as they are.

Its own module, not a part of `napsim.study.variants`: it reads ladder entries
(`napsim.study.ladder`), which play `Variant`s of that module.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from napsim.model.errors import NapsimInputError, check_keys, get_str, read_toml_file
from napsim.study.ladder import REF, check_ladder, ladder_command

BALANCE_KEYS = ("scenario", "vary", "metric", "equalize", "target", "side", "sets", "deck", "policy",
                "games", "seed", "chunk", "target_error", "deck_ensemble", "against")
COMPARE_KEYS = ("scenario", "a", "b", "scenario_b", "deck", "deck_a", "deck_b", "policy", "policy_a",
                "policy_b", "metrics", "games", "seed", "chunk", "target_error", "deck_ensemble")
TUNE_KEYS = ("scenario", "side", "knob", "metric", "of", "goal", "policy", "deck", "sets", "games",
             "seed", "chunk", "rounds", "max_candidates")
LADDER_KEYS = ("scenario", "side", "policies", "policy", "over", "values", "metrics", "deck", "sets",
               "games", "seed", "chunk")
# in report order: a tune's answer can be played by the entries after it (`resolve`)
KINDS = {"tune": (TUNE_KEYS, ("scenario", "side", "knob")),
         "ladder": (LADDER_KEYS, ("scenario", "side", "policies")),
         "balance": (BALANCE_KEYS, ("scenario", "vary")), "compare": (COMPARE_KEYS, ("scenario",))}
POLICY_KEYS = ("policy", "policy_a", "policy_b", "policies")  # the options that may name '@name'
HEAD_TABLES = ("variants", "design")  # the file's head table: its name, then its older name
# options whose command-line flag is not the key with '-' for '_'
FLAGS = {"sets": "--set", "metrics": "--metric"}
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


@dataclass(frozen=True)
class VariantsEntry:
    """One question of a variants file: a tune, a ladder, a balance or a compare."""

    kind: str          # tune | ladder | balance | compare
    name: str          # file stem in the report
    title: str
    options: dict      # keyword arguments of napsim.tune / run_ladder / napsim.balance / napsim.compare

    def command(self) -> str:
        """The same question as a command line (for the report and the README); a ladder's is the
        `napsim compare` of one cell, POLICY and VALUE standing for its policies and values."""
        if self.kind == "ladder":
            return ladder_command(self.options)
        parts = ["napsim", self.kind]
        options = dict(self.options)
        if self.kind == "tune":  # the scenario is tune's argument
            parts.append(str(options.pop("scenario")))
        for key, value in options.items():
            if key == "against":
                continue
            flag = FLAGS.get(key, f"--{key.replace('_', '-')}")
            for v in value if isinstance(value, list) else [value]:
                text = str(v)
                parts += [flag, text if re.fullmatch(r"[\w.,=:/+-]+", text) else f"'{text}'"]
        return " ".join(parts)


def refs(entry: VariantsEntry) -> list[str]:
    """The tune entries whose answers a policy option of the entry plays ('@name')."""
    out = []
    for key in POLICY_KEYS:
        value = entry.options.get(key)
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str):
                out += REF.findall(text)
    return out


def resolve(entry: VariantsEntry, tuned: dict[str, str]) -> VariantsEntry:
    """The entry with every '@name' of its policy options replaced by that tune entry's answer
    (its side's policy as 'name:param=value;...'): the command line shown then plays it as is."""
    def sub(text):
        return REF.sub(lambda m: tuned[m.group(1)], text) if isinstance(text, str) else text

    options = {k: ([sub(t) for t in v] if isinstance(v, list) else sub(v)) if k in POLICY_KEYS else v
               for k, v in entry.options.items()}
    return VariantsEntry(entry.kind, entry.name, entry.title, options)


@dataclass(frozen=True)
class VariantsFile:
    """A variants file, checked: its name, description and entries."""

    path: Path
    name: str
    description: str
    entries: tuple[VariantsEntry, ...]

    def files(self) -> tuple[str, ...]:
        """Every file the report folder holds (a tune entry has no chart)."""
        per = [f"{e.name}.{ext}" for e in self.entries
               for ext in (("json",) if e.kind == "tune" else ("json", "png"))]
        return ("report.md", "manifest.json", *per)


def is_variants_file(path: str | Path) -> bool:
    """True for a variants file (a [variants] table, or [design] in an older file)."""
    try:
        doc = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False
    return any(t in doc for t in HEAD_TABLES)


def load_variants_file(path: str | Path) -> VariantsFile:
    """Read and check a variants file; a one-line NapsimInputError naming the field otherwise."""
    p = Path(path)
    where = str(p)
    data = read_toml_file(p)
    table = next((t for t in HEAD_TABLES if t in data), HEAD_TABLES[0])
    check_keys(where, data, (table, *KINDS), (table,))
    head = data[table]
    w_head = f"{where}: [{table}]"
    check_keys(w_head, head, ("name", "description"), ("name",))
    entries, names = [], set()
    for kind, (keys, required) in KINDS.items():
        items = data.get(kind, [])
        if not isinstance(items, list):
            raise NapsimInputError(where, kind, "is not a list of tables", f"[[{kind}]] entries")
        for i, item in enumerate(items):
            w = f"{where}: [[{kind}]] #{i + 1}"
            if not isinstance(item, dict):
                raise NapsimInputError(w, kind, "is not a table", f"[[{kind}]] entries")
            check_keys(w, item, ("name", "title", *keys), ("name", "title", *required))
            name = get_str(w, item, "name")
            if not _NAME.match(name) or name in names or name in ("report", "manifest"):
                raise NapsimInputError(w, "name", f"'{name}' is not a new file name",
                                       "lower-case letters, digits, '_' and '-', one per entry")
            names.add(name)
            options = {k: v for k, v in item.items() if k not in ("name", "title")}
            if kind == "ladder":
                check_ladder(options, w)
            entries.append(VariantsEntry(kind, name, get_str(w, item, "title"), options))
    if not entries:
        raise NapsimInputError(where, table, "has no [[tune]], [[ladder]], [[balance]] or [[compare]] entry",
                               "at least one entry")
    _check_refs(where, entries)
    return VariantsFile(p, get_str(w_head, head, "name"), get_str(w_head, head, "description", ""),
                        tuple(entries))


def _check_refs(where: str, entries: list[VariantsEntry]) -> None:
    """'@name' must name an earlier tune entry; a balance's `against` an earlier balance entry."""
    seen: dict[str, str] = {}
    for e in entries:
        w = f"{where}: [[{e.kind}]] {e.name}"
        tunes = [n for n, k in seen.items() if k == "tune"]
        for name in refs(e):
            if name not in tunes:
                raise NapsimInputError(w, "policy", f"'@{name}' names no tune entry before this one",
                                       ", ".join(f"@{n}" for n in tunes) or "a [[tune]] entry first")
        if "against" in e.options:
            other = e.options["against"]
            earlier = [n for n, k in seen.items() if k == "balance"]
            if other not in earlier:
                raise NapsimInputError(w, "against", f"{other!r} is not an earlier balance entry",
                                       ", ".join(earlier) or "a [[balance]] entry first")
        seen[e.name] = e.kind
