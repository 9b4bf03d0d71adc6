"""A TOML document written back as text: what `napsim app` downloads as a scenario file.

The standard library reads TOML (`tomllib`) but does not write it; scenario documents hold only
tables, strings, integers, floats, booleans and lists of them, so a small writer suffices. Its
output reads back to the same document (`tomllib.loads(toml_text(doc)) == doc`).
"""

from __future__ import annotations

import json
import math
import re
import tomllib

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(k: str) -> str:
    return k if _BARE.match(k) else json.dumps(k, ensure_ascii=False)


def _value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        text = repr(v)
        return text if any(c in text for c in ".en") else text + ".0"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # JSON escapes are TOML basic-string escapes
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError(f"no TOML form for {type(v).__name__}")


def toml_text(doc: dict, comments: list[str] = ()) -> str:
    """The document as TOML text, `comments` first (one '# ' line each); tables after their
    parent's plain values, in the document's order."""
    lines = [f"# {c}" for c in comments]

    def table(node: dict, path: list[str]) -> None:
        plain = [(k, v) for k, v in node.items() if not isinstance(v, dict)]
        subs = [(k, v) for k, v in node.items() if isinstance(v, dict)]
        if path and (plain or not subs):
            if lines:
                lines.append("")
            lines.append("[" + ".".join(_key(k) for k in path) + "]")
        lines.extend(f"{_key(k)} = {_value(v)}" for k, v in plain)
        for k, v in subs:
            table(v, [*path, k])

    table(doc, [])
    return "\n".join(lines) + "\n"


def override_text(value) -> str:
    """A value as the text after '=' of `--set PATH=VALUE` that reads back to it
    (`napsim.model.scenarios.parse_overrides`): a string as it is where that reads back as the
    same string, else quoted."""
    if isinstance(value, str):
        try:
            back = tomllib.loads(f"v = {value}")["v"]
        except tomllib.TOMLDecodeError:
            back = value
        return value if back == value and value.strip() == value and value else _value(value)
    return _value(value)
