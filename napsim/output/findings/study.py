"""Findings of a study report, computed from its summary frame (`napsim.output.frames`, or a
committed summary.csv) by rules that hold for any study: which swept setting moves the main metric
most, from what to what (with 95% intervals); where a curve over a numeric setting flattens; how
the policies of a sweep differ; how far apart the sides are; which other reported metric the sweep
moves most; what the deck-data warning means. Odds studies: which question the hand size moves
most and where it flattens, where the decks differ most, how the simulator agrees with the exact
values.

Differences between two sweep points carry the interval sqrt(h1^2 + h2^2) of independent
estimates: the points play the same games (common random numbers), so the true interval of a
difference is narrower and these are on the safe side.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from napsim.model.metrics import MetricInfo
from napsim.output.findings import (
    CHECK,
    EXACT,
    MAIN,
    MAX_FINDINGS,
    Curve,
    DeckNote,
    Finding,
    Ref,
    curve,
    deck_finding,
    diff_ci,
    digits,
    info_of,
    more_word,
    num,
    percent,
    phrase_of,
    setting_title,
    with_ci,
)
from napsim.output.findings.jumps import jump_findings

MIN_LEVEL = 0.01    # a reported metric that never reaches this is not named as the sweep's mover


# --------------------------------------------------------------------------------------------
# engine studies


@dataclass(frozen=True)
class Param:
    key: str                  # the sweep key ('a+b' for joined paths)
    paths: tuple[str, ...]
    values: tuple[str, ...]   # in sweep order, as text ('epic3 / gmt90' for joined paths)

    @property
    def numeric(self) -> bool:
        try:
            [float(v) for v in self.values]
        except ValueError:
            return False
        return len(self.paths) == 1 and not self.is_policy

    @property
    def is_policy(self) -> bool:
        return self.paths[0].startswith("policy.") and self.paths[0].count(".") == 1


def sweep_params(sweep: dict) -> list[Param]:
    out = []
    for key, values in sweep.items():
        paths = tuple(key.split("+"))
        texts = tuple(" / ".join(map(str, v)) if len(paths) > 1 else str(v) for v in values)
        out.append(Param(key, paths, texts))
    return out


def _value_texts(df: pd.DataFrame, p: Param) -> list[str]:
    cols = [df[path].astype(str) for path in p.paths]
    return [" / ".join(t) for t in zip(*cols, strict=True)]


def _title(p: Param, names: dict[str, str]) -> str:
    return setting_title(p.key, names)


def _setting(p: Param, value: str, names: dict[str, str]) -> str:
    """'random play', 'Guerrilla rule, Spanish = epic'."""
    if p.is_policy:
        side = p.paths[0].split(".")[1]
        return f"{value} play" + ("" if side == "*" else f" for {names.get(side, side)}")
    return f"{_title(p, names)} = {value}"


def _at(p: Param, value: str, names: dict[str, str]) -> str:
    return f"with {_setting(p, value, names)}" if p.is_policy else f"at {value}"


def _series(main: pd.DataFrame, params: list[Param], p: Param) -> list[tuple[dict, pd.DataFrame]]:
    """The main rows grouped by the other parameters: ({other key: value}, rows in p's order)."""
    others = [q.key for q in params if q.key != p.key]
    frame = main.sort_values(f"_i:{p.key}")
    if not others:
        return [({}, frame)]
    out = []
    for vals, g in frame.groupby(others, sort=False):
        vals = vals if isinstance(vals, tuple) else (vals,)
        out.append((dict(zip(others, vals, strict=True)), g))
    return out


def _context(ctx: dict, params: list[Param], names: dict[str, str], sep: str = "; ") -> str:
    by_key = {q.key: q for q in params}
    return sep.join(_setting(by_key[k], v, names) for k, v in ctx.items())


@dataclass
class Effect:
    param: Param
    params: list[Param]  # every swept parameter (to name the other settings)
    ctx: dict
    rows: pd.DataFrame
    low: pd.Series       # the row where the metric is lowest in this series
    high: pd.Series
    span: float
    half: float

    @property
    def clear(self) -> bool:
        return self.span > self.half


def _effects(main: pd.DataFrame, params: list[Param]) -> list[Effect]:
    """For each parameter, the series (other settings fixed) over which the metric moves most."""
    out = []
    for p in params:
        if len(p.values) < 2:
            continue
        best = None
        for ctx, g in _series(main, params, p):
            if len(g) < 2:
                continue
            lo, hi = g.loc[g["value"].idxmin()], g.loc[g["value"].idxmax()]
            e = Effect(p, params, ctx, g, lo, hi, float(hi["value"] - lo["value"]),
                       math.hypot(lo["half"], hi["half"]))
            if best is None or e.span > best.span:
                best = e
        if best is not None:
            out.append(best)
    return sorted(out, key=lambda e: -e.span)


def _from_to(e: Effect, names: dict[str, str]) -> tuple[pd.Series, pd.Series]:
    """The effect's two ends in sweep order (a numeric setting reads from its smaller value)."""
    a, b = e.low, e.high
    if a[f"_i:{e.param.key}"] > b[f"_i:{e.param.key}"]:
        a, b = b, a
    return a, b


def _row_list(points: list[str]) -> str:
    return ", ".join(points) if len(points) <= 3 else f"{points[0]}, {points[1]}, …, {points[-1]}"


def _val(r: pd.Series) -> str:
    return with_ci(r["value"], r["ci_low"], r["ci_high"])


def _biggest(e: Effect, phrase: str, names: dict[str, str], n_params: int) -> Finding:
    p = e.param
    a, b = _from_to(e, names)
    va, vb = a[f"_v:{p.key}"], b[f"_v:{p.key}"]
    ctx = f" ({_context(e.ctx, e.params, names)})" if e.ctx else ""
    lead = f"Of the swept settings, {_title(p, names)} moves" if n_params > 1 else \
        f"{_title(p, names)} moves"
    change = b["value"] - a["value"]
    if not e.clear:
        text = (f"{_title(p, names)} does not move {phrase} measurably: from {_val(a)} {_at(p, va, names)} "
                f"to {_val(b)} {_at(p, vb, names)}{ctx}, within the 95% intervals")
    else:
        text = (f"{lead} {phrase}" + (" the most" if n_params > 1 else "") + f": from {_val(a)} "
                f"{_at(p, va, names)} to {_val(b)} {_at(p, vb, names)}{ctx}, a change of "
                f"{diff_ci(change, e.half)}{percent(change, a['value'])}")
    return Finding(text, Ref(*MAIN, f"{a['point']}, {b['point']}"))


def _others(effects: list[Effect], names: dict[str, str]) -> Finding | None:
    if not effects:
        return None
    parts, rows = [], []
    for e in effects:
        a, b = _from_to(e, names)
        if e.clear:
            parts.append(f"{_title(e.param, names)} by up to {diff_ci(b['value'] - a['value'], e.half)}")
        else:
            parts.append(f"{_title(e.param, names)} not measurably (within the 95% intervals)")
        rows.append(f"{a['point']} vs {b['point']}")
    return Finding("The other swept settings move it less: " + "; ".join(parts),
                   Ref(*MAIN, ", ".join(rows)))


def _curve_text(p: Param, g: pd.DataFrame, c: Curve, subject: str) -> str:
    x = list(g[f"_v:{p.key}"])
    k = c.start
    d = digits(max(c.halves[k], 1e-12))
    first = f"{num(c.first, d, True)} from {x[k]} to {x[k + 1]}"
    if c.flat:
        return f"{subject} stays level from {x[0]} to {x[-1]}: no step changes it beyond its 95% interval"
    lead = f"{subject} stays level up to {x[k]}, then" if k else subject
    if c.after is None:
        last = len(c.steps) - 1
        return (f"{lead} keeps {'rising' if c.first >= 0 else 'falling'} up to {x[-1]}: the last "
                f"step ({x[last]} to {x[-1]}) still gives {diff_ci(c.steps[last], c.halves[last])}, "
                f"against {first}")
    i = c.after
    step = diff_ci(c.steps[i], c.halves[i])
    if i == len(c.steps) - 1:
        gain = f"the last step, {x[i]} to {x[i + 1]}, gives {step}"
    else:
        worst = max(c.steps[i:], key=lambda s: s * (1 if c.first >= 0 else -1))
        gain = (f"each further step gives at most {num(worst, d, True)} ({x[i]} to {x[i + 1]}: "
                f"{step})")
    return f"{lead} flattens after {x[i]}: {gain}, under a quarter of the {first} or inside its interval"


def _flattening(main: pd.DataFrame, params: list[Param], effects: list[Effect], phrase: str,
                names: dict[str, str]) -> list[Finding]:
    """Where the curve over each numeric setting (of three values or more) flattens: in the
    series of its biggest effect, and in each other series when there are at most three."""
    out = []
    for e in effects:
        p = e.param
        if not p.numeric or len(p.values) < 3:
            continue
        series = [(ctx, g) for ctx, g in _series(main, params, p) if len(g) == len(p.values)]
        if not series:
            continue
        series.sort(key=lambda s: s[0] != e.ctx)   # the biggest effect's series first
        texts, verdicts = [], []
        lead = f"Over {_title(p, names)}: "
        for ctx, g in series:
            c = curve(list(g["value"]), list(g["half"]))
            verdicts.append((c.flat, c.start, c.after))
            if len(texts) < (len(series) if len(series) <= 3 else 1):
                if len(series) > 3:  # the setting goes in parentheses after the parameter
                    texts.append(_curve_text(p, g, c, phrase))
                    lead = f"Over {_title(p, names)}, with {_context(ctx, params, names)}: "
                    continue
                where = f"with {_context(ctx, params, names)}, " if ctx else ""
                texts.append(where + _curve_text(p, g, c, phrase if not texts else "it"))
        if len(series) > 3:
            same = sum(v == verdicts[0] for v in verdicts[1:])
            texts.append(f"the same holds in {same} of the {len(series) - 1} other settings")
        ref_rows = "; ".join(_row_list(list(g["point"])) for _, g in series[:3 if len(series) <= 3 else 1])
        out.append(Finding(lead + "; ".join(texts), Ref(*MAIN, ref_rows)))
        if len(out) == 2:
            break
    return out


def _policies(main: pd.DataFrame, params: list[Param], info: MetricInfo, phrase: str,
              names: dict[str, str]) -> Finding | None:
    """The best and the worst policy of a policy sweep, compared where they differ most and least."""
    p = next((q for q in params if q.is_policy and len(q.values) > 1), None)
    if p is None:
        return None
    means = main.groupby(f"_v:{p.key}")["value"].mean()
    best, worst = means.idxmax(), means.idxmin()
    diffs = []
    for ctx, g in _series(main, params, p):
        rb, rw = g[g[f"_v:{p.key}"] == best], g[g[f"_v:{p.key}"] == worst]
        if rb.empty or rw.empty:
            continue
        rb, rw = rb.iloc[0], rw.iloc[0]
        diffs.append((ctx, float(rb["value"] - rw["value"]), math.hypot(rb["half"], rw["half"]), rb, rw))
    if not diffs:
        return None
    diffs.sort(key=lambda t: -t[1])
    pick = [diffs[0]] + ([diffs[-1]] if len(diffs) > 1 else [])
    rows = ", ".join(f"{t[3]['point']} vs {t[4]['point']}" for t in pick)
    if all(abs(d) <= h for _, d, h, _, _ in diffs):
        top = max(abs(t[1]) for t in diffs)
        return Finding(f"{best.capitalize()} and {worst} play show no clear difference in {phrase}: "
                       f"at most {num(top, digits(diffs[0][2]))}, inside the 95% intervals",
                       Ref(*MAIN, rows))
    parts = []
    for ctx, d, h, _, _ in pick:
        where = f" with {_context(ctx, params, names)}" if ctx else ""
        if abs(d) <= h:
            parts.append(f"no clear difference{where} ({diff_ci(d, h)})")
        else:
            parts.append(f"{diff_ci(d, h)}{where}")
    return Finding(f"{best.capitalize()} play gives {more_word(info, True)} {phrase} than {worst} play: "
                   + ", and ".join(parts), Ref(*MAIN, rows))


def _sides(summ: pd.DataFrame, metric: str, info: MetricInfo) -> Finding | None:
    """How far apart the sides are on the main metric, point by point."""
    rows = summ[summ["metric"] == metric]
    keys = list(dict.fromkeys(rows["side_key"]))
    if info.viewpoint != "own" or len(keys) != 2:
        return None
    wide = rows.pivot_table(index="point", columns="side_key", values=["value", "half"], aggfunc="first")
    if wide.isna().any().any() or (wide["value"] == 0).all().any():
        return None
    names = dict(zip(rows["side_key"], rows["side"], strict=True))
    gap = wide["value"][keys[1]] - wide["value"][keys[0]]
    half = (wide["half"][keys[0]] ** 2 + wide["half"][keys[1]] ** 2) ** 0.5
    clear = int((gap.abs() > half).sum())
    at = gap.abs().idxmax()
    first, second = names[keys[0]], names[keys[1]]
    pct = percent(gap[at], wide["value"][keys[0]][at]).strip(" ()")
    largest = diff_ci(gap[at], half[at])
    if len(wide) == 1:
        how = "clearly" if clear else "not measurably"
        text = f"{second} and {first} differ {how} in {info.phrase}: {second} - {first} = {largest} ({pct})"
    elif clear == 0:
        text = (f"{second} and {first} get the same {info.phrase} within the 95% intervals at every "
                f"point (largest gap {second} - {first}: {largest} at {at}, {pct})")
    else:
        text = (f"{second} and {first} differ in {info.phrase} by at most {largest} ({second} - "
                f"{first} at {at}, {pct}); the gap is outside the 95% intervals at {clear} of {len(wide)} "
                "points")
    return Finding(text, Ref(*MAIN, at))


def _other_metrics(summ: pd.DataFrame, spec: dict, params: list[Param],
                   names: dict[str, str]) -> Finding | None:
    """The reported metric (other than the main one) that the sweep moves most, relative to its size."""
    if not params:
        return None
    side_key = spec["main_side"]
    best = None
    for m in spec.get("metrics") or []:
        rows = summ[(summ["metric"] == m) & (summ["side_key"] == side_key)]
        if m == spec["main_metric"] or len(rows) < 2:
            continue
        lo, hi = rows.loc[rows["value"].idxmin()], rows.loc[rows["value"].idxmax()]
        span, half = hi["value"] - lo["value"], math.hypot(lo["half"], hi["half"])
        scale = rows["value"].abs().max()
        if span <= half or scale < MIN_LEVEL:  # a rate under 1% (E4 pairs) is too rare to lead
            continue
        if best is None or span / scale > best[0]:
            best = (span / scale, m, lo, hi, half)
    if best is None:
        return None
    _, m, lo, hi, half = best
    values = {r["point"]: {p.key: " / ".join(str(r[x]) for x in p.paths) for p in params} for r in (lo, hi)}
    differ = [p.key for p in params if values[lo["point"]][p.key] != values[hi["point"]][p.key]]
    where = {pt: _context({k: v[k] for k in differ}, params, names, " and ") for pt, v in values.items()}
    phrase = phrase_of(info_of(m), names.get(side_key, side_key))
    return Finding(f"Of the other reported metrics, the sweep moves {phrase} most: from {_val(lo)} "
                   f"with {where[lo['point']]} to {_val(hi)} with {where[hi['point']]}",
                   Ref("Reported metrics", "reported-metrics", f"{lo['point']}, {hi['point']}"))


def _unfinished(incomplete: list[str]) -> list[Finding]:
    if not incomplete:
        return []
    return [Finding(f"Points {', '.join(incomplete)} have not finished: every number below is partial",
                    Ref("Points", "points"))]


def engine_findings(summ: pd.DataFrame, spec: dict, decks: list[DeckNote],
                    incomplete: list[str] = ()) -> list[Finding]:
    """Findings of an engine study from its summary frame (`frames.summary_frame`, or summary.csv)
    and its spec (main_metric, main_side, sweep with joined keys as in the study file)."""
    metric, side_key = spec["main_metric"], spec["main_side"]
    info = info_of(metric)
    names = dict(zip(summ["side_key"], summ["side"], strict=False))
    params = [p for p in sweep_params(spec.get("sweep") or {}) if all(c in summ for c in p.paths)]
    summ = summ.assign(half=((summ["ci_high"] - summ["ci_low"]) / 2).fillna(0.0))
    summ = summ[summ["value"].notna()]  # a rate that counted nothing says nothing
    main = summ[(summ["metric"] == metric) & (summ["side_key"] == side_key)].copy()
    out = _unfinished(incomplete)
    if main.empty:
        return out
    phrase = phrase_of(info, names.get(side_key, side_key))
    for p in params:
        main[f"_v:{p.key}"] = _value_texts(main, p)
        order = {v: i for i, v in enumerate(p.values)}
        main[f"_i:{p.key}"] = [order.get(v, len(order)) for v in main[f"_v:{p.key}"]]
    effects = _effects(main, params)
    if effects:
        out.append(_biggest(effects[0], phrase, names, len(effects)))
    else:
        r = main.iloc[0]
        out.append(Finding(f"{phrase[:1].upper() + phrase[1:]} is {_val(r)} (n = {int(r['n']):,})",
                           Ref(*MAIN, r["point"])))
    out += _flattening(main, params, effects, phrase, names)
    pol = _policies(main, params, info, phrase, names)
    if pol is not None:
        out.append(pol)
    rest = [e for e in effects[1:] if not e.param.is_policy]
    other = _others(rest, names)
    if other is not None:
        out.append(other)
    single = [p for p in params if len(p.paths) == 1]
    out += jump_findings(summ, side_key, [p.paths[0] for p in single], names,
                         lambda row, col: " and ".join(_setting(p, str(row[p.paths[0]]), names)
                                                       for p in single if p.paths[0] != col))
    for extra in (_sides(summ, metric, info), _other_metrics(summ, spec, params, names)):
        if extra is not None:
            out.append(extra)
    deck = deck_finding(decks)
    out = out[:MAX_FINDINGS - (deck is not None)] + ([deck] if deck else [])
    return out


# --------------------------------------------------------------------------------------------
# odds studies


def _p(v: float) -> str:
    """An exact answer: 4 decimals, a certain 0 or 1 as such."""
    return str(int(v)) if v in (0, 1) else num(v, 4)


def _question(r) -> str:
    return f"'{r['label']}' ({r['outcome']})"


def _odds_hand(probs: pd.DataFrame) -> list[Finding]:
    """The question hand size moves most (exact values), and where its curve flattens."""
    best = None
    for _, g in probs.groupby(["label", "outcome", "deck"], sort=False):
        g = g.sort_values("hand")
        if len(g) < 2:
            continue
        span = g["exact"].max() - g["exact"].min()
        if best is None or span > best[0]:
            best = (span, g)
    if best is None or best[0] == 0:
        return []
    g = best[1]
    a, b = g.iloc[0], g.iloc[-1]
    ref = Ref(*EXACT, f"{a['label']}, {a['outcome']}, {a['deck']}")
    out = [Finding(f"Of the questions, the hand size moves {_question(a)} the most: from "
                   f"{_p(a['exact'])} at hand {a['hand']} to {_p(b['exact'])} at hand {b['hand']} "
                   f"with deck {a['deck']} (exact values)", ref)]
    if len(g) >= 3:
        c = curve(list(g["exact"]), [0.0] * len(g))
        x = [str(h) for h in g["hand"]]
        if c.after is None:
            text = (f"It keeps {'rising' if c.first >= 0 else 'falling'} up to hand {x[-1]}: the last "
                    f"card adds {num(c.steps[-1], 4, True)}, against {num(c.first, 4, True)} for hand "
                    f"{x[c.start]} to {x[c.start + 1]}")
        else:
            text = (f"Its gain per card flattens after hand {x[c.after]}: each further card adds at most "
                    f"{num(max(c.steps[c.after:], key=abs), 4, True)}, under a quarter of the "
                    f"{num(c.first, 4, True)} from hand {x[c.start]} to {x[c.start + 1]}")
        out.append(Finding(text, ref))
    return out


def _odds_decks(probs: pd.DataFrame) -> Finding | None:
    best = None
    for _, g in probs.groupby(["label", "outcome", "hand"], sort=False):
        if g["deck"].nunique() < 2:
            continue
        lo, hi = g.loc[g["exact"].idxmin()], g.loc[g["exact"].idxmax()]
        if best is None or hi["exact"] - lo["exact"] > best[0]:
            best = (hi["exact"] - lo["exact"], lo, hi)
    if best is None or best[0] == 0:
        return None
    _, lo, hi = best
    return Finding(f"The decks differ most on {_question(lo)} at hand {lo['hand']}: {_p(hi['exact'])} "
                   f"with {hi['deck']} against {_p(lo['exact'])} with {lo['deck']} (exact values)",
                   Ref(*EXACT, f"{lo['label']}, {lo['outcome']}"))


def odds_findings(summ: pd.DataFrame, spec: dict, decks: list[DeckNote],
                  incomplete: list[str] = ()) -> list[Finding]:
    """Findings of an odds study from its answers (`frames.odds_frame`, or summary.csv)."""
    out = _unfinished(incomplete)
    if summ.empty:
        return out
    done = summ[(summ["n"] > 0) & summ["exact"].notna()]
    probs = done[done["interval"] == "wilson95"]
    out += _odds_hand(probs)
    dk = _odds_decks(probs)
    if dk is not None:
        out.append(dk)
    if len(done):
        inside = int(done["exact_in_ci"].astype(str).str.lower().eq("true").sum())
        share = inside / len(done)
        verdict = ("as expected" if share >= 0.9 else
                   "fewer than the 95% expected: the simulator or the exact enumeration is off")
        out.append(Finding(f"The simulator agrees with the exact values: {inside} of {len(done)} simulated "
                           f"answers ({share:.0%}) hold the exact value inside their 95% interval, "
                           f"{verdict}" if share >= 0.9 else
                           f"Only {inside} of {len(done)} simulated answers ({share:.0%}) hold the exact "
                           f"value inside their 95% interval, {verdict}", Ref(*CHECK)))
    deck = deck_finding(decks, exact=True)
    return out[:MAX_FINDINGS - (deck is not None)] + ([deck] if deck else [])
