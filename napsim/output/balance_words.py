"""A balance answered in a designer's terms: whole settings and who leads at each ("with 4 Spanish
cards in hand the French lead by 0.30 [0.29, 0.32] effective orders a turn; with 5 the Spanish lead
by 0.24 [0.22, 0.25]; the even point lies between, at 4.56 [4.54, 4.58]"), and the range where no
setting evens the sides as an answer of its own ("no number of Spanish Guerrilla counters at the
start from 0 to 6 evens tamames: the Spanish lead at every setting, ..."). Pure functions of a
`napsim.study.balance.Balance`; `napsim.output.variants` puts them into its sentences and charts.
"""

from __future__ import annotations

import math

from napsim.output.findings import info_of, phrase_of, setting_title, with_ci

# what one unit of a setting is, for "with 4 Spanish cards in hand" (the side's name fills {side})
_COUNTS = {
    "hand": ("{side} card in hand", "{side} cards in hand"),
    "guerrilla": ("{side} Guerrilla counter at the start", "{side} Guerrilla counters at the start"),
    "tactician": ("{side} Tactician card at the start", "{side} Tactician cards at the start"),
}
_UNITS = {"infantry": "infantry unit", "cavalry": "cavalry unit", "artillery": "artillery unit",
          "leaders": "leader", "spanish": "Spanish unit"}
_SCENARIO = {"turns": ("turn a side", "turns a side"),
             "guerrilla_pool": ("unacquired Guerrilla counter", "unacquired Guerrilla counters")}


def _names(b) -> dict[str, str]:
    return dict(zip(b.side_keys, b.side_names, strict=True))


def _count_words(path: str, names: dict[str, str]) -> tuple[str, str] | None:
    """(singular, plural) of what an integer setting counts, or None for a setting without one."""
    parts = path.split(".")
    if parts[0] == "scenario" and len(parts) == 2:
        return _SCENARIO.get(parts[1])
    if parts[0] != "sides" or len(parts) < 3:
        return None
    both = parts[1] == "*"
    side = "" if both else names.get(parts[1], parts[1])
    tail = " (both sides)" if both else ""
    if len(parts) == 3 and parts[2] in _COUNTS:
        one, many = _COUNTS[parts[2]]
        return one.format(side=side).strip() + tail, many.format(side=side).strip() + tail
    if len(parts) == 5 and parts[2] == "sections" and parts[4] in _UNITS:
        where = "every section" if parts[3] == "*" else f"section {parts[3]}"
        unit = _UNITS[parts[4]]
        side = "" if unit.split()[0] == side else side  # not 'Spanish Spanish units'
        return f"{side} {unit} in {where}".strip() + tail, f"{side} {unit}s in {where}".strip() + tail
    return None


def setting_words(b, v: float) -> str:
    """One setting in words: '4 Spanish cards in hand'; a setting without a count: 'Chance to form
    square (French) = 0.3'."""
    words = _count_words(b.vary.path, _names(b)) if b.vary.integer else None
    if words is None:
        return f"{setting_title(b.vary.path, _names(b))} = {b.vary.label(v)}"
    return f"{b.vary.label(v)} {words[0] if v == 1 else words[1]}"


def range_words(b) -> str:
    """The range searched as a noun: 'number of Spanish cards in hand', else 'setting of ...'."""
    words = _count_words(b.vary.path, _names(b)) if b.vary.integer else None
    if words is None:
        return f"setting of {setting_title(b.vary.path, _names(b))}"
    return f"number of {words[1]}"


def difference_label(b) -> str:
    """The searched difference, as a chart's axis names it: 'Spanish minus French, effective orders
    a turn' ('Spanish effective orders a turn minus 7' for a target)."""
    info = info_of(b.metric)
    if len(b.sides) == 2:
        first, second = (b.side_names[s] for s in b.sides)
        return f"{second} minus {first}, {info.phrase}"
    return f"{b.side_names[b.sides[0]]} {info.phrase} minus {b.target:g}"


def _clear(f) -> bool:
    h = f.half_width
    return math.isfinite(h) and (f.value - h > 0 or f.value + h < 0)


def _amount(f) -> str:
    """|f| with its interval: '0.30 [0.29, 0.32]'."""
    h = f.half_width
    v, lo, hi = abs(f.value), f.value - h, f.value + h
    lo, hi = sorted((abs(lo), abs(hi))) if f.value >= 0 or hi < 0 else (lo, hi)
    return with_ci(v, lo, hi)


def lead_words(b, f, unit: bool = True) -> str:
    """Who leads at one setting and by how much: 'the French lead by 0.30 [0.29, 0.32] effective
    orders a turn'; for a target: 'Spanish effective orders a turn are 0.30 [0.29, 0.32] below 7';
    an interval around 0: 'the sides are even within the interval (+0.01 [-0.01, +0.03])'."""
    info = info_of(b.metric)
    h = f.half_width
    if not _clear(f):
        what = "the sides are even" if len(b.sides) == 2 else (
            f"{phrase_of(info, b.side_names[b.sides[0]])} is at {b.target:g}")
        return f"{what} within the interval ({with_ci(f.value, f.value - h, f.value + h, sign=True)})"
    tail = f" {info.phrase}" if unit and info.countable else ""
    if len(b.sides) == 2:
        leader = b.side_names[b.sides[1] if f.value > 0 else b.sides[0]]
        return f"the {leader} lead by {_amount(f)}{tail}"
    up = f.value > 0
    if info.countable:
        return (f"the {b.side_names[b.sides[0]]} get {_amount(f)} {'more' if up else 'fewer'} than "
                f"{b.target:g}{tail}")
    where = "above" if up else "below"
    return f"{phrase_of(info, b.side_names[b.sides[0]])} is {_amount(f)} {where} {b.target:g}"


def bracket_sentence(b, crossing: str) -> str:
    """The answer of a balance that crosses, the whole settings either side first: 'With 4 Spanish
    cards in hand the French lead by ...; with 5 the Spanish lead by ...; the even point lies
    between, at 4.56 [4.54, 4.58]' (`crossing`: the crossing with its interval, as the caller
    prints it; no final stop)."""
    below, above = b.bracket
    second = b.vary.label(above) if _count_words(b.vary.path, _names(b)) and b.vary.integer \
        else setting_words(b, above)
    even = "the even point lies" if len(b.sides) == 2 else f"{b.target:g} is reached"
    return (f"With {setting_words(b, below)} {lead_words(b, b.setting(below).f)}; with {second} "
            f"{lead_words(b, b.setting(above).f, unit=False)}; {even} between, at {crossing}")


def no_crossing_sentence(b) -> str:
    """The answer when no setting of the range evens the sides (or reaches the target): who leads
    at every setting played and by how much at the ends (without a final stop)."""
    rows = sorted(b.settings, key=lambda s: s.value)
    first, last = rows[0], rows[-1]
    lo, hi = b.vary.label(b.vary.low), b.vary.label(b.vary.high)
    where = "at every setting" if b.every_setting else "at both ends of the range"
    ends = f"by {_amount(first.f)} at {lo} and {_amount(last.f)} at {hi}"
    unclear = [b.vary.label(s.value) for s in rows if not _clear(s.f)]
    note = f" (not clearly at {', '.join(unclear)})" if unclear else ""
    info = info_of(b.metric)
    if len(b.sides) == 2:
        leader = b.side_names[b.sides[1] if first.f.value >= 0 else b.sides[0]]
        return (f"No {range_words(b)} from {lo} to {hi} evens {b.scenario_name or 'the scenario'}: the "
                f"{leader} lead {where}{note}, {ends} ({info.phrase})")
    side = phrase_of(info, b.side_names[b.sides[0]])
    how = "above" if first.f.value >= 0 else "below"
    return (f"No {range_words(b)} from {lo} to {hi} brings {side} to {b.target:g}: it stays {how} "
            f"{b.target:g} {where}{note}, {ends}")
