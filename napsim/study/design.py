"""Design files: committed design answers (`napsim regen`), each a `napsim balance` or
`napsim compare` written down once so that its report in results/ can be rebuilt by one command.

A design file (``studies/tamames_balance.toml``) has a [design] table (name, description) and
[[balance]] and [[compare]] entries. Each entry has a `name` (its files in the report are
<name>.json and <name>.png), a `title`, and the keyword arguments of `napsim.balance` or
`napsim.compare` (the command's options with '_' for '-': scenario, vary, equalize, games,
deck_ensemble, ...). The keys are checked here, the values by the search itself.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from napsim.model.errors import NapsimInputError
from napsim.model.validate import check_keys, get_str, read_toml_file

BALANCE_KEYS = ("scenario", "vary", "metric", "equalize", "target", "side", "sets", "deck", "policy",
                "games", "seed", "chunk", "target_error", "deck_ensemble")
COMPARE_KEYS = ("scenario", "a", "b", "scenario_b", "deck", "deck_a", "deck_b", "policy", "policy_a",
                "policy_b", "metrics", "games", "seed", "chunk", "target_error", "deck_ensemble")
KINDS = {"balance": (BALANCE_KEYS, ("scenario", "vary")), "compare": (COMPARE_KEYS, ("scenario",))}
# options whose command-line flag is not the key with '-' for '_'
FLAGS = {"sets": "--set", "metrics": "--metric"}
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


@dataclass(frozen=True)
class DesignEntry:
    kind: str          # balance | compare
    name: str          # file stem in the report
    title: str
    options: dict      # keyword arguments of napsim.balance / napsim.compare

    def command(self) -> str:
        """The same question as a command line (for the report and the README)."""
        parts = ["napsim", self.kind]
        for key, value in self.options.items():
            flag = FLAGS.get(key, f"--{key.replace('_', '-')}")
            for v in value if isinstance(value, list) else [value]:
                text = str(v)
                parts += [flag, text if re.fullmatch(r"[\w.,=:/+-]+", text) else f"'{text}'"]
        return " ".join(parts)


@dataclass(frozen=True)
class DesignSpec:
    path: Path
    name: str
    description: str
    entries: tuple[DesignEntry, ...]

    def files(self) -> tuple[str, ...]:
        """Every file the report folder holds."""
        per = [f"{e.name}.{ext}" for e in self.entries for ext in ("json", "png")]
        return ("report.md", "manifest.json", *per)


def is_design_file(path: str | Path) -> bool:
    """True for a design file (a [design] table)."""
    try:
        return "design" in tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False


def load_design_spec(path: str | Path) -> DesignSpec:
    """Read and check a design file; a one-line NapsimInputError naming the field otherwise."""
    p = Path(path)
    where = str(p)
    data = read_toml_file(p)
    check_keys(where, data, ("design", *KINDS), ("design",))
    head = data["design"]
    check_keys(f"{where}: [design]", head, ("name", "description"), ("name",))
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
            entries.append(DesignEntry(kind, name, get_str(w, item, "title"), options))
    if not entries:
        raise NapsimInputError(where, "design", "has no [[balance]] or [[compare]] entry",
                               "at least one entry")
    return DesignSpec(p, get_str(f"{where}: [design]", head, "name"),
                      get_str(f"{where}: [design]", head, "description", ""), tuple(entries))
