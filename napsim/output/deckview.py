"""The Command decks in words (`napsim decks`, `napsim decks show`): the built-in decks in a list,
one deck's composition by kind and section, its plausible count ranges and its warnings."""

from __future__ import annotations

from napsim.model.cards import builtin_decks, load_deck


def list_text() -> str:
    """Every built-in deck: cards, mix of kinds, Tactician deck, and whether counts are estimated."""
    rows = []
    for name in builtin_decks():
        d = load_deck(name)
        kinds = d.cards.groupby("kind")["count"].sum().to_dict()
        mix = ", ".join(f"{k} {v}" for k, v in kinds.items())
        flag = "  (some counts estimated)" if d.estimated_rows else ""
        rows.append(f"{name:<20} {d.n_cards:>3} cards  {mix}{flag}\n"
                    f"{'':<20} {d.title}; {_tactician_text(d)}")
    return "\n".join(rows)


def show_text(deck: str) -> str:
    """A deck's composition grouped by kind and section, every row with its orders, marks and
    confidence, then its plausible ranges, unit classes outside napsim's model and warnings."""
    out = []
    d = load_deck(deck)
    out.append(f"{d.title}  [{d.path}]")
    for line in filter(None, d.note.splitlines()):
        out.append(f"note: {line}")
    default = "" if d.tactician_deck_declared else " (default: the file has no '# tactician_deck:' line)"
    out.append(_tactician_text(d) + default)
    c = d.cards
    for kind, group in c.groupby("kind", sort=False):
        out.append(f"\n{kind} cards: {int(group['count'].sum())}")
        for section, sub in group.groupby("section", sort=False):
            label = f"section {section}" if section != "-" else "no section"
            out.append(f"  {label}: {int(sub['count'].sum())}")
            for _, r in sub.iterrows():
                out.append(f"    {r['count']:>3}  {r['name']:<28} {_describe(r)}  [{r['confidence']}]"
                           + _range_text(r))
    out.append(f"\ntotal: {d.n_cards} cards in {d.n_types} types")
    if d.has_ranges:
        kept = "".join(f", {k} {n}" for k, n in d.kind_totals)
        out.append(f"plausible ranges: {int(d.cards['count_min'].sum())}-{int(d.cards['count_max'].sum())} "
                   f"cards summed over the rows; every plausible deck keeps the total {d.n_cards}{kept} "
                   "(--deck-ensemble draws such decks)")
    else:
        out.append("plausible ranges: none, every count is fixed (a deck ensemble has zero spread)")
    outside = d.unit_classes_outside_model()
    if outside:  # the engine orders these cards' units by unit_filter alone
        treated: dict[str, list[str]] = {}
        for uc, filters in outside.items():
            treated.setdefault(" or ".join(_FILTER_WORDS.get(f, f) for f in filters), []).append(uc)
        out.append(f"unit classes not in napsim's model: {', '.join(outside)} (treated as: "
                   + "; ".join(f"{', '.join(ucs)} = {t}" for t, ucs in treated.items()) + ")")
    warning = d.estimated_warning()
    if warning:
        out.append(warning)
    return "\n".join(out)


_FILTER_WORDS = {"any": "any unit", "inf": "infantry", "cav": "cavalry", "art": "artillery",
                 "inf_art": "infantry or artillery", "leader": "leaders and their units"}


def _tactician_text(d) -> str:
    return f"Tactician deck: {d.tactician_deck} cards" if d.tactician_deck else "no Tactician deck"


def _range_text(r) -> str:
    if r["count_min"] == r["count_max"]:
        return ""
    tie = f", equal to the other '{r['count_tie']}' rows" if r["count_tie"] else ""
    return f"  range {r['count_min']}-{r['count_max']}{tie}"


def _describe(r) -> str:
    parts = []
    if r["kind"] in ("section", "multi"):
        if r["equal_to_command"]:
            parts.append("orders = command")
        else:
            parts.append(f"orders L/C/R {r['orders_l']}/{r['orders_c']}/{r['orders_r']}")
    elif r["cap"] != -1:
        cap = {-2: "= command", -3: "all"}.get(r["cap"], str(r["cap"]))
        parts.append(f"up to {cap} {r['unit_filter']}")
    marks = [m for m in ("tactician_draw", "scout", "elan", "first_strike", "counter_attack",
                         "force_march", "take_command") if r[m]]
    if r["stars"]:
        marks.insert(0, f"stars {r['stars']}")
    if marks:
        parts.append("marks: " + ", ".join(marks))
    if r["unit_class"]:
        parts.append(f"unit class: {r['unit_class']}")
    return "; ".join(parts)
