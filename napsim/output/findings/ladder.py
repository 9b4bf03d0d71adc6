"""Findings of a policy ladder (`napsim.study.ladder.Ladder`) and of a balance played again with other
policies (a variants file's ``against``): how much each policy gets over the reference, whether that
gap grows or shrinks across the setting (the gap at the last value minus the gap at the first, a
paired estimate: the same games at every value), how the policies rank, what the opponent gets,
and whether a balance crossing moves. Every number is computed here from the estimates, with its
95% interval and n; policies, metrics, settings and sides are named in words."""

from __future__ import annotations

from napsim.model.metrics import parameter_title, policy_label, policy_words, value_words
from napsim.model.policies import parse_policy_option
from napsim.output.findings import digits, info_of, phrase_of, setting_title, with_ci
from napsim.sim.summary import Estimate, crossing_estimate


def short(text: str) -> str:
    """The policy's short name: 'planning play', 'tuned greedy play', 'greedy play'; a planner that
    sees the hidden hands (`lookahead_info` open) is 'planning play that sees the opponent's hand'."""
    ((name, params),) = parse_policy_option(text, "policy")
    if name == "lookahead" and _sees_hands(params):
        return "planning play that sees the opponent's hand"
    return {"lookahead": "planning play"}.get(name) or (
        "tuned greedy play" if name == "greedy" and params else policy_words(name))


def _sees_hands(params: dict) -> bool:
    return str(params.get("lookahead_info", "fair")) in ("open", "0", "0.0")


def _fair_and_open(lad) -> tuple[int, int] | None:
    """The ladder's planning policies that differ only in what they know of the opponent's hand
    (rule P8, `lookahead_info`): (fair, open), or None."""
    plans = {}
    for i, text in enumerate(lad.side_policies):
        ((name, params),) = parse_policy_option(text, "policy")
        if name == "lookahead":
            rest = tuple(sorted((k, v) for k, v in params.items() if k != "lookahead_info"))
            plans.setdefault(rest, {})[_sees_hands(params)] = i
    pairs = [(d[False], d[True]) for d in plans.values() if len(d) == 2]
    return pairs[0] if pairs else None


def knowing_sentence(lad, metric: str, s: int) -> str | None:
    """What seeing the opponent's hand is worth to the planning player: the paired difference of the
    planner that sees it (open) and the one that plays on what it can know (fair, the default)."""
    pair = _fair_and_open(lad)
    if pair is None:
        return None
    fair, seen = pair
    vi = lad.base_index
    d = lad.gap(vi, seen, metric, s, against=fair)
    g_fair, g_seen = lad.gap(vi, fair, metric, s), lad.gap(vi, seen, metric, s)
    if d is None or g_fair is None or g_seen is None:
        return None
    info = info_of(metric)
    worth = (f"is worth {_d(d)} {info.phrase}" if _clear(d)
             else f"makes no clear difference to {info.phrase}: {_d(d)}")
    return (f"For planning play by {lad.side_names[s]}, seeing the opponent's hand {worth}"
            f"{at_words(lad, lad.values[vi])} (the planner that sees it minus the one that plays on "
            f"what it can know, paired, n = {d.n:,}): over {short(lad.side_policies[0])}, the planner "
            f"that sees it gets {_d(g_seen)}, the one that does not {_d(g_fair)}")


def _clear(e: Estimate) -> bool:
    lo, hi = e.value - e.half_width, e.value + e.half_width
    return lo > 0 or hi < 0


def _d(e: Estimate) -> str:
    """'+0.031 [+0.004, +0.058]': two significant digits of the half-width, so that an interval's
    side of zero shows."""
    h = e.half_width
    return with_ci(e.value, e.value - h, e.value + h, sign=True, d=min(6, digits(h) + 1))


def _level(e: Estimate) -> str:
    return with_ci(e.value, e.value - e.half_width, e.value + e.half_width)


def at_words(lad, v) -> str:
    """' at a hand of 6 cards (both sides)' / ' at Guerrilla counters at the start (Spanish) = 3'."""
    if lad.over is None:
        return ""
    names = dict(zip(lad.side_keys, lad.side_names, strict=True))
    if lad.over.split(".")[-1] == "hand" and lad.over.startswith("sides."):
        who = lad.over.split(".")[1]
        return f" at a hand of {v} cards ({'both sides' if who == '*' else names.get(who, who)})"
    return f" at {setting_title(lad.over, names)} = {value_words(lad.over, v)}"


def _value_name(lad, v) -> str:
    return f"{v} cards" if lad.over and lad.over.endswith(".hand") else value_words(lad.over or "", v)


def _sides(lad) -> list[int]:
    return list(range(len(lad.side_keys))) if lad.side == "*" else [lad.side_keys.index(lad.side)]


def gap_sentence(lad, pi: int, metric: str, s: int, vi: int | None = None) -> str | None:
    """'With planning play (...) instead of greedy play, Blue get +0.045 [+0.028, +0.063] effective
    orders a turn at a hand of 6 cards (both sides; n = 3,000 paired games).'"""
    vi = lad.base_index if vi is None else vi
    g = lad.gap(vi, pi, metric, s)
    if g is None:
        return None
    info = info_of(metric)
    head = (f"With {policy_label(lad.side_policies[pi])} instead of {policy_label(lad.side_policies[0])}, "
            f"{lad.side_names[s]}")
    at = at_words(lad, lad.values[vi])
    n = f"n = {g.n:,} paired games"
    at, n = (at[:-1] + f"; {n})", "") if at.endswith(")") else (at, f" ({n})")
    if _clear(g):
        return f"{head} get {_d(g)} {info.phrase}{at}{n}"
    return f"{head} get no clear difference in {info.phrase}: {_d(g)}{at}{n}"


def trend_sentence(lad, pi: int, metric: str, s: int) -> str | None:
    """Whether the gap over the reference grows or shrinks from the first value to the last: the
    paired difference of the two gaps, its sign against the gap's own."""
    if lad.over is None or len(lad.values) < 2:
        return None
    g0, g1 = lad.gap(0, pi, metric, s), lad.gap(-1 % len(lad.values), pi, metric, s)
    c = lad.contrast(pi, metric, s)
    if g0 is None or g1 is None or c is None:
        return None
    v0, v1 = (_value_name(lad, lad.values[i]) for i in (0, -1))
    ref = lad.gap(lad.base_index, pi, metric, s)
    what = (f"The gap between {short(lad.side_policies[pi])} and {short(lad.side_policies[0])} "
            f"({lad.side_names[s]})")
    ends = f"{_d(g0)} at {v0}, {_d(g1)} at {v1}"
    tail = f"the change {_d(c)} is paired (the same {c.n:,} games at every value)"
    if not _clear(c):
        return f"{what} does not change clearly from {v0} to {v1}: {ends}; {tail}"
    grows = (c.value > 0) == (ref.value >= 0 if _clear(ref) else g1.value >= 0)
    return f"{what} {'grows' if grows else 'shrinks'} from {v0} to {v1}: {ends}; {tail}"


def rank_sentence(lad, metric: str, s: int) -> str | None:
    """The policies in order of the metric at the base value, with each level and the paired
    difference between the first two."""
    vi = lad.base_index
    played = [p for p in range(len(lad.side_policies)) if lad.estimate(vi, p, metric, s) is not None]
    order = sorted(played, key=lambda p: -lad.estimate(vi, p, metric, s).value)
    if not order:
        return None
    info = info_of(metric)
    levels = []
    for p in order:
        e = lad.estimate(vi, p, metric, s)
        levels.append(f"{short(lad.side_policies[p])} {_level(e)}")
    text = f"{phrase_of(info, lad.side_names[s])[:1].upper()}{phrase_of(info, lad.side_names[s])[1:]}" \
           f"{at_words(lad, lad.values[vi])}, best first: " + "; ".join(levels)
    if len(order) >= 2:
        top, second = order[0], order[1]
        d = lad.gap(vi, top, metric, s, against=second)
        text += (f"; {short(lad.side_policies[top])} minus {short(lad.side_policies[second])}: {_d(d)}, "
                 f"{'clear' if _clear(d) else 'not clear'} (paired, n = {d.n:,})")
    return text


def opponent_sentence(lad, metric: str, s: int) -> str | None:
    """What the other side gets when this side changes its policy, at the base value."""
    vi = lad.base_index
    parts = []
    for pi in range(1, len(lad.side_policies)):
        g = lad.gap(vi, pi, metric, s)
        if g is not None:
            parts.append(f"{_d(g)} against {short(lad.side_policies[pi])}")
    if not parts:
        return None
    info = info_of(metric)
    at = at_words(lad, lad.values[vi])
    return (f"{lad.side_names[s]}, still playing {policy_label(_other_policy(lad, s))}, get a change in "
            f"{info.phrase}{at[:-1] + '; ' if at.endswith(')') else at + ' ('}paired, n = {lad.games:,} "
            f"games each): {'; '.join(parts)}")


def others_sentence(lad, metric: str, s: int) -> str | None:
    """A further metric of the ladder for a side whose policy changes: each policy's difference."""
    vi = lad.base_index
    parts = [f"{short(lad.side_policies[pi])} {_d(g)}" for pi in range(1, len(lad.side_policies))
             if (g := lad.gap(vi, pi, metric, s)) is not None]
    if not parts or lad.all_zero(metric, s):
        return None
    title = info_of(metric).label(lad.side_names[s])
    return (f"{title}{at_words(lad, lad.values[vi])} against {short(lad.side_policies[0])}: "
            f"{'; '.join(parts)} (paired, n = {lad.games:,} games each)")


def _other_policy(lad, s: int) -> str:
    return [p.strip() for p in lad.policy.split(",")][s]


def ladder_sentences(lad) -> list[str]:
    """Every sentence of a ladder: per side whose policy changes, the gap of each policy at the base
    value and its trend over the setting, the ranking, then the opponent's side."""
    metric = lad.metrics[0]
    out = []
    for s in _sides(lad):
        for pi in range(1, len(lad.side_policies)):
            out += [t for t in (gap_sentence(lad, pi, metric, s), trend_sentence(lad, pi, metric, s)) if t]
        if len(lad.side_policies) > 2:
            out += [t for t in [rank_sentence(lad, metric, s)] if t]
        out += [t for t in [knowing_sentence(lad, metric, s)] if t]
        out += [t for m in lad.metrics[1:] if (t := others_sentence(lad, m, s))]
    if lad.side != "*":
        other = 1 - lad.side_keys.index(lad.side)
        out += [t for t in [opponent_sentence(lad, metric, other)] if t]
    return [t if t.endswith(".") else t + "." for t in out]


# --------------------------------------------------------------------------------------------
# a balance against another


def pair_words(policy: str, names: tuple[str, ...]) -> str:
    """'both sides playing planning play (...)' / 'French playing greedy play, Spanish playing ...'."""
    parts = [p.strip() for p in policy.split(",")]
    if len(set(parts)) == 1:
        return f"both sides playing {policy_label(parts[0])}"
    return ", ".join(f"{n} playing {policy_label(p)}" for n, p in zip(names, parts, strict=True))


def balance_crossing(b) -> Estimate | None:
    """The crossing of a `Balance` with per-game influences (None without one)."""
    if not b.crossed:
        return None
    lo, hi = b.bracket
    f0, f1 = b.setting(lo).f, b.setting(hi).f
    if f0.value == f1.value:
        return None
    return crossing_estimate(lo, f0, hi, f1)


def shift_sentence(b, ref) -> str:
    """Where balance `b` crosses against where `ref` (the same search with other policies, on the
    same games) crosses: the move with its paired interval, or why there is none."""
    title = setting_title(b.vary.path, dict(zip(b.side_keys, b.side_names, strict=True)))
    now, then = pair_words(b.base.policy, b.side_names), pair_words(ref.base.policy, ref.side_names)
    e, r = balance_crossing(b), balance_crossing(ref)
    if e is None or r is None:
        which = "either search" if e is None and r is None else ("this search" if e is None else "the other")
        return f"With {now} instead of {then}, the crossing cannot be compared: {which} has none in the range"
    if e.n != r.n:
        return (f"With {now} instead of {then}, the crossings were found on different numbers of games "
                f"({e.n:,} and {r.n:,}), so they are not paired")
    d = e.minus(r)
    dec = digits(min(e.half_width, r.half_width, d.half_width))

    def at(x: Estimate) -> str:
        return with_ci(x.value, x.value - x.half_width, x.value + x.half_width, d=dec)

    verdict = "moves" if _clear(d) else "does not move clearly"
    return (f"With {now} instead of {then}, the balance lies at {title} = {at(e)} instead of {at(r)}: "
            f"the crossing {verdict}, by {_d(d)} (paired: the same {d.n:,} games at every setting)")


def over_title(lad) -> str:
    """The setting a ladder runs over, in words ('Command hand size, both sides')."""
    names = dict(zip(lad.side_keys, lad.side_names, strict=True))
    return parameter_title(lad.over, names) if lad.over else ""
