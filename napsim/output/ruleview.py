"""The rule catalogue in words (`napsim rules`): the table of every rule, or rules in full."""

from __future__ import annotations

import textwrap

from napsim.model import rulebook


def catalogue_text() -> str:
    """Every rule in one line (ID, title, tests, where implemented, options), then the options."""
    return _table(rulebook.load_rules(), rulebook.load_options())


def rules_text(rule_id: str) -> str:
    """Every rule `rule_id` names (G5; a group: E9, M6) in full, a blank line between them."""
    return "\n\n".join(rule_text(r) for r in rulebook.rules_matching(rule_id))


def _table(rules, options) -> str:
    def short(names, width):
        if not names:
            return "-"
        first = names[0].removeprefix("napsim.")
        more = f" (+{len(names) - 1})" if len(names) > 1 else ""
        return first[: width - len(more)] + more

    lines = [f"{'ID':<5} {'title':<44} {'tests':>5}  {'implemented in':<44} options"]
    for r in rules:
        title = r.title if len(r.title) <= 44 else r.title[:43] + "~"
        impl = short(r.implemented_in, 44 - 9 * (r.status == "partial"))
        if r.status != "implemented":
            impl = f"({r.status})" if not r.implemented_in else f"partial: {impl}"
        lines.append(f"{r.id:<5} {title:<44} {len(r.tests):>5}  {impl:<44} "
                     f"{', '.join(r.options) or '-'}")
    missing = [r.id for r in rules if r.status != "implemented"]
    lines.append("")
    partly = f" (not fully implemented: {', '.join(missing)})" if missing else ""
    lines.append(f"{len(rules)} rules{partly}; `napsim rules ID` prints one in full; "
                 "reference: docs/rules.md")
    lines.append("scenario [rules] options (--set rules.NAME=VALUE): "
                 + ", ".join(f"{o.name}={o.default}" for o in options))
    return "\n".join(lines)


def rule_text(r) -> str:
    """One rule in full: its text, note, options and their values, readings, code and tests."""
    def wrap(text, indent=""):
        return textwrap.fill(text, 100, initial_indent=indent, subsequent_indent=indent)

    out = [f"{r.id}  {r.title}  [{r.status}]", "", wrap(r.text)]
    if r.note:
        out += ["", wrap(("status: " if r.status != "implemented" else "note: ") + r.note)]
    for name in r.options:
        o = rulebook.get_option(name)
        out += ["", f"option {o.name} (rules {', '.join(o.rules)}; formats {', '.join(o.formats) or 'all'}; "
                f"--set rules.{o.name}=VALUE):"]
        out.append(wrap(o.text, "  "))
        for v in o.values:
            mark = " (default)" if v.name == o.default else ""
            out.append(f"  {v.name}{mark}")
            out.append(wrap(v.text, "      "))
    for x in rulebook.readings_for(r.id):
        out += ["", wrap(f"fixed reading ({', '.join(x.rules)}): {x.text}")]
    out += ["", "implemented in:"] + [f"  {n}" for n in r.implemented_in or ["(nothing)"]]
    out += ["", f"tests ({len(r.tests)}):"] + [f"  {t}" for t in r.tests or ["(none)"]]
    return "\n".join(out)
