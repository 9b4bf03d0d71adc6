"""Charts of a study, drawn with matplotlib from the tidy frames of `napsim.output.frames`.

Figures are `matplotlib.figure.Figure` objects built without pyplot (`napsim.output.chartkit`
renders and writes them); a notebook simply displays the Figure that `StudyResult.plot` returns.

Engine studies: ``main`` (the main metric against the sweep, 95% bands), ``sweep`` (every other
reported metric: no chart repeats another's lines), ``convergence`` (running estimate and interval
against games, at chunk granularity),
``distribution`` (per-game distributions), ``rack_wait`` (turns a card waits on the Courier Rack,
by kind) and ``heatmap`` (effective orders per turn, section by sweep point: the kernel does not
record orders turn by turn, so the heat map's columns are sweep points, and its title says so).
Odds studies: ``odds`` (simulated answers with intervals over the exact values). A study that
sweeps a side's starting Guerrilla counters (``sides.<k>.guerrilla``) also gets ``guerrilla``: French
orders denied per game against the starting counters, one line per spending policy (docs/rules.md P4).
A study that sweeps ``scenario.format`` also gets ``tactician``: the Tactician cards the main side
holds at the start of each of its turns, one line per point (the flow of Tactician cards by format).

Large sweeps stay readable: a line chart with more than `MAX_LINES` lines draws the main side only
and pins the swept paths with the most values to their first value, and the heat map shows at most
`MAX_COLUMNS` points; the legend or title says what was pinned.
"""

from __future__ import annotations

import itertools
import math
import textwrap

import matplotlib
import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, MaxNLocator

from napsim.model.errors import NapsimInputError
from napsim.model.metrics import KIND_WORDS, OPPONENT, SECTION_WORDS, describe, metric_title, value_words
from napsim.output.chartkit import (
    MAX_COLUMNS,
    MAX_LINES,
    MAX_PANELS,
    RC,
    Chart,
    band,
    deck_note,
    finish,
    games_note,
    games_tick,
    numeric,
    palette,
    panels,
    param_title,
    point_axis_label,
    point_label,
    point_values,
    render,
    setting,
    shown_labels,
    shown_points,
    side_name,
    start_all,
    write_chart,
    x_path,
)
from napsim.output.frames import summary_cells

ENGINE_KINDS = ("main", "sweep", "convergence", "distribution", "rack_wait", "heatmap")
ODDS_KINDS = ("odds",)
GUERRILLA_METRIC = "g_denied_effective"

__all__ = ["Chart", "all_charts", "figure", "render", "write_chart"]


# --------------------------------------------------------------------------------------------
# engine charts


def _pin_lines(inp: dict, df, others: list[str], n_sides: int):
    """Past MAX_LINES lines: the main side only, and the swept paths with the most values pinned to
    their first value until few enough lines remain. Returns (rows, paths still split, note)."""
    sizes = {p: len(set(inp["spec"]["sweep"][p])) for p in others}
    if n_sides * math.prod(sizes.values()) <= MAX_LINES:
        return df, others, ""
    main = inp["spec"].get("main_side")
    if main in set(df["side_key"]):
        df = df[df["side_key"] == main]
    pinned = []
    for p in sorted(others, key=lambda q: -sizes[q]):
        if math.prod(sizes[q] for q in others if q not in pinned) <= MAX_LINES:
            break
        pinned.append(p)
    for p in pinned:
        df = df[df[p] == inp["spec"]["sweep"][p][0]]
    note = f"{side_name(inp, main)} only" + "".join(f"; {setting(inp, p, inp['spec']['sweep'][p][0])}"
                                                    for p in pinned)
    return df, [p for p in others if p not in pinned], note


# (marker, dash) of the lines of one chart, in order: where two lines coincide both stay visible
LINE_STYLES = (("o", "-"), ("s", "--"), ("^", ":"), ("D", "-."), ("v", (0, (5, 1))), ("P", (0, (1, 2))))


def sweep_axes(ax, inp: dict, metric: str, legend: bool = True) -> str:
    """One metric against the sweep: a line per side (and per value of the other swept paths),
    with its 95% interval as a band (or error bars when the x axis is categorical). A line is
    labelled by its side and the values of the other swept parameters, which the legend's title
    names (with what was pinned); returns that title."""
    summ = inp["summary"]
    df = summ[summ["metric"] == metric]
    xp = x_path(inp)
    # with no numeric path the sweep points themselves are the (categorical) x axis
    others = [p for p in inp["sweep"] if p != xp] if xp else []
    df, others, pin_note = _pin_lines(inp, df, others, df["side_key"].nunique())
    groups = list(df.groupby(["side_key", *others], sort=False)) if others else \
        list(df.groupby(["side_key"], sort=False))
    colors = palette(len(groups))
    styles = list(LINE_STYLES[:len(groups)]) + [LINE_STYLES[0]] * max(0, len(groups) - len(LINE_STYLES))
    order = {p["id"]: i for i, p in enumerate(inp["points"])}
    for (key, *rest), g in groups:
        g = g.sort_values(xp) if xp else g.assign(_o=g["point"].map(order)).sort_values("_o")
        # a metric of the other side's cards says whose counters the line is (not in a legend
        # shared by panels of other metrics)
        counters = legend and describe(metric).viewpoint == OPPONENT
        label = side_name(inp, key) + (" counters" if counters else "")
        if rest:
            label += " · " + " · ".join(value_words(p, v) for p, v in zip(others, rest, strict=True))
        c = colors.pop(0)
        marker, dash = styles.pop(0)  # lines that coincide stay told apart by marker and dash
        if xp:
            x = g[xp].to_numpy(float)
            ax.plot(x, g["value"], marker=marker, ms=4, lw=1.4, ls=dash, color=c, label=label)
            band(ax, x, g["ci_low"], g["ci_high"], c, lw=1.4)
        else:
            x = np.arange(len(g))
            yerr = np.vstack([g["value"] - g["ci_low"], g["ci_high"] - g["value"]])
            ax.errorbar(x, g["value"], yerr=np.nan_to_num(yerr), marker=marker, ms=4, lw=1.2, capsize=3,
                        ls=dash, color=c, label=label)
            labels = [point_values(inp, next(p for p in inp["points"] if p["id"] == pid))
                      for pid in g["point"]]
            ax.set_xticks(x, labels, rotation=30 if len(x) > 3 else 0, ha="right" if len(x) > 3 else "center")
    if xp:
        xs = sorted(set(inp["spec"]["sweep"][xp]))
        if len(xs) <= 15:
            ax.set_xticks(xs)
    ax.set_xlabel(param_title(inp, xp) if xp else point_axis_label(inp))
    ax.set_ylabel(metric_title(metric))
    ax.grid(alpha=0.3)
    title = "\n".join([*([" · ".join(["side", *(param_title(inp, p) for p in others)])] if others else []),
                       *([f"({pin_note})"] if pin_note else [])])
    title = "\n".join(textwrap.fill(t, 50) for t in title.splitlines())
    if legend and groups:
        ax.legend(loc="best", frameon=False, title=title or None, title_fontsize=7)
    return title


def main_figure(inp: dict, metric: str | None = None, ax=None):
    spec = inp["spec"]
    metric = metric or spec["main_metric"]
    if ax is None:
        with matplotlib.rc_context(RC):
            fig = Figure(figsize=(7.5, 4.4), layout="constrained")
            ax = fig.subplots()
    sweep_axes(ax, inp, metric)
    ax.set_title(f"{spec['name']}: {metric_title(metric)}\n95% intervals; {games_note(inp)}; "
                 "the same games at every point")
    return ax.figure


def sweep_figure(inp: dict, metrics: list[str] | None = None):
    """Every reported metric against the sweep but the main one (the main chart draws it, the
    same lines); metrics equal at every point and side (a rule fixes them, e.g. the rack's 5-4-3
    cycle) are named in the title instead of drawn flat."""
    summ = inp["summary"]
    if not metrics:
        main = inp["spec"].get("main_metric")
        metrics = [m for m in inp["spec"]["metrics"] if m != main] or inp["spec"]["metrics"]
    flat = [m for m in metrics if summ.loc[summ["metric"] == m, "value"].nunique() == 1]
    flat = flat if len(flat) < len(metrics) else []
    drawn = [m for m in metrics if m not in flat][:MAX_PANELS]
    fig, axes = panels(max(len(drawn), 1))
    legend_title = ""
    for ax, m in zip(axes, drawn, strict=False):
        legend_title = sweep_axes(ax, inp, m, legend=False)
        ax.set_title(textwrap.fill(metric_title(m), 36))
    if drawn:
        shared_legend(fig, axes, True, title=legend_title or None, title_fontsize=7)
    title = f"{inp['spec']['name']}: reported measures against the sweep (95% intervals)"
    if flat:
        vals = "; ".join(f"{metric_title(m)} = {summ.loc[summ['metric'] == m, 'value'].iloc[0]:.4g}"
                         for m in flat)
        title += "\n" + textwrap.fill(f"the same at every point and side (not drawn): {vals}",
                                      int(fig.get_figwidth() * 9))
    fig.suptitle(title)
    return fig


def convergence_figure(inp: dict, ax=None):
    """Running estimate of the main metric and its 95% interval after every chunk, per point."""
    spec = inp["spec"]
    conv = inp["convergence"]
    conv = conv[conv["side_key"] == spec["main_side"]]
    points = [p for p in inp["points"] if p["id"] in set(conv["point"])][:MAX_PANELS]
    if ax is not None:
        points = points[:1]
        axes = [ax]
        fig = ax.figure
    else:
        fig, axes = panels(max(len(points), 1), ncols=4, w=3.4, h=2.5)
    for a, p in zip(axes, points, strict=False):
        g = conv[conv["point"] == p["id"]].sort_values("games")
        a.plot(g["games"], g["value"], marker="o", ms=2.5, lw=1.2, color="C0")
        band(a, g["games"], g["ci_low"], g["ci_high"], "C0", lw=1.2, alpha=0.25)
        a.axhline(g["value"].iloc[-1], color="0.4", lw=0.8, ls="--")
        a.set_title(textwrap.fill(point_label(inp, p), 45), fontsize=8)
        a.xaxis.set_major_locator(MaxNLocator(4, integer=True))
        a.xaxis.set_major_formatter(FuncFormatter(games_tick))
        a.set_xlabel("games")
        a.grid(alpha=0.3)
    if axes:
        axes[0].set_ylabel(metric_title(spec["main_metric"]))
    who = side_name(inp, spec["main_side"])
    fig.suptitle(f"Convergence of {describe(spec['main_metric']).phrase} ({who}):\n"
                 "the estimate and its 95% interval as more games are played")
    return fig


def shared_legend(fig, axes, own: bool, **kw) -> None:
    """One legend for every panel of a figure of its own, outside them all; on a caller's axes,
    that axes' legend."""
    if own:
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, [textwrap.fill(x, 45) for x in labels], loc="outside right center",
                   frameon=False, **kw)
    else:
        axes[0].legend(frameon=False, **kw)


def distribution_figure(inp: dict, metric: str | None = None, ax=None):
    """Per-game distribution of a metric (share of games per value), one line per point."""
    spec = inp["spec"]
    dist = inp["distribution"]
    metrics = [metric] if metric else spec["distribution"][:MAX_PANELS]
    own = ax is None
    if ax is not None:
        metrics, axes, fig = metrics[:1], [ax], ax.figure
    else:
        fig, axes = panels(len(metrics), ncols=2, w=5.5, h=3.4)
    for a, m in zip(axes, metrics, strict=True):
        d = dist[(dist["metric"] == m) & (dist["side_key"] == spec["main_side"])]
        pts, note = shown_points(inp)
        for p, c, label in zip(pts, palette(len(pts)), shown_labels(inp, pts), strict=True):
            g = d[d["point"] == p["id"]].sort_values("value")
            if g.empty:
                continue
            a.step(g["value"], g["share"], where="mid", lw=1.2, color=c, label=label)
        a.set_xlabel(metric_title(m))
        a.set_ylabel("share of games")
        a.set_title(textwrap.fill(f"{metric_title(m)} ({side_name(inp, spec['main_side'])})", 50))
        a.grid(alpha=0.3)
    shared_legend(fig, axes, own, fontsize=6.5)
    fig.suptitle(textwrap.fill(f"Per-game distributions — {spec['name']}{note}",
                               int(fig.get_figwidth() * 10)))
    return fig


def rack_wait_figure(inp: dict, ax=None):
    """Turns a card waits on the Courier Rack before it is taken, by card kind, per point."""
    rw = inp["rack_wait"]
    kinds = [k for k in ("section", "multi", "tactic", "other") if rw[rw["kind"] == k]["cards"].sum() > 0]
    own = ax is None
    if ax is not None:
        kinds, axes, fig = kinds[:1], [ax], ax.figure
    else:
        fig, axes = panels(max(len(kinds), 1), ncols=3, w=4.0, h=3.0)
    if not kinds:
        axes[0].text(0.5, 0.5, "no cards taken from a Courier Rack\n(standard format?)", ha="center",
                     va="center", transform=axes[0].transAxes)
        axes[0].set_axis_off()
    pts, note = shown_points(inp)
    colors = palette(len(pts))
    for a, kind in zip(axes, kinds, strict=False):
        d = rw[rw["kind"] == kind]
        tot = d.groupby("wait_turns")["cards"].sum().sort_index()
        xmax = int(tot.index[np.searchsorted(tot.cumsum().to_numpy(), 0.995 * tot.sum())]) + 1
        for p, c in zip(pts, colors, strict=True):
            g = d[d["point"] == p["id"]].sort_values("wait_turns")
            if g.empty:
                continue
            n = g["cards"].sum()
            mean = float((g["wait_turns"] * g["cards"]).sum() / n)
            g = g[g["wait_turns"] <= xmax]
            a.plot(g["wait_turns"], g["cards"] / n, marker=".", ms=3, lw=1.1, color=c,
                   label=f"mean {mean:.2f}")
        a.set_title(f"{KIND_WORDS[kind][:1].upper() + KIND_WORDS[kind][1:]}")
        a.set_xlabel("turns waited on the rack")
        a.set_ylabel("share of cards taken")
        a.grid(alpha=0.3)
        a.legend(frameon=False, fontsize=6, title="mean wait (turns)", title_fontsize=6)
    if own and kinds:  # the points by colour, once for every panel; each panel's legend: the means
        handles = [Line2D([], [], color=c, marker=".", ms=3, lw=1.1) for c in colors]
        fig.legend(handles, [textwrap.fill(x, 45) for x in shown_labels(inp, pts)],
                   loc="outside right center", frameon=False, fontsize=6.5)
    fig.suptitle(textwrap.fill(f"Courier Rack waiting times by card kind — {inp['spec']['name']}{note}",
                               int(fig.get_figwidth() * 10)))
    return fig


def heatmap_figure(inp: dict, ax=None):
    """Effective orders per turn: section (rows) by sweep point (columns), one panel per side.

    The kernel returns per-game totals, not a turn-by-turn record, so a section-by-turn map cannot
    be drawn without changing the engine; section by sweep point is the closest honest picture."""
    summ = inp["summary"]
    secs = ("L", "C", "R")
    sides = inp["side_keys"]
    points, note = shown_points(inp, MAX_COLUMNS)
    if ax is not None:
        sides, axes, fig = sides[:1], [ax], ax.figure
    else:
        fig, axes = panels(len(sides), ncols=1, w=max(7.5, 0.62 * len(points) + 3.0), h=3.2)
    xp = x_path(inp)
    if note and xp:  # the pinned values are in the title: label the columns by the x value only
        labels = [value_words(xp, p["params"][xp]) for p in points]
        axis = param_title(inp, xp)
    else:
        labels = [point_values(inp, p) for p in points]
        axis = point_axis_label(inp)
    want = [f"effective_per_turn_{s}" for s in secs]
    vals = summ.loc[summ["metric"].isin(want), "value"]
    vmin, vmax = (float(vals.min()), float(vals.max())) if len(vals) else (0.0, 1.0)
    cells = summary_cells(summ, ("value",))
    for a, key in zip(axes, sides, strict=True):
        m = np.full((3, len(points)), np.nan)
        for j, p in enumerate(points):
            for i, s in enumerate(secs):
                v = cells.get((p["id"], key, f"effective_per_turn_{s}"))
                if v is not None:
                    m[i, j] = v[0]
        im = a.imshow(m, aspect="auto", cmap="YlOrRd", vmin=vmin, vmax=vmax)
        a.set_yticks(range(3), [f"{SECTION_WORDS[s]} section" for s in secs])
        a.set_xlabel(axis)
        a.set_xticks(range(len(labels)), labels, rotation=35 if len(labels) > 2 else 0,
                     ha="right" if len(labels) > 2 else "center", fontsize=7)
        a.spines[:].set_visible(False)
        for i in range(3):
            for j in range(m.shape[1]):
                if not math.isnan(m[i, j]):
                    hi = m[i, j] > (vmin + vmax) / 2
                    a.text(j, i, f"{m[i, j]:.2f}", ha="center", va="center", fontsize=6.5,
                           color="white" if hi else "black")
        a.set_title(side_name(inp, key))
        fig.colorbar(im, ax=a, label=metric_title("effective_per_turn"), shrink=0.9)
    pinned = f"\n{note.strip()}" if note else ""
    fig.suptitle(f"Effective orders a turn by section, at each sweep point{pinned}")
    return fig


def guerrilla_paths(inp: dict) -> tuple[str, str | None, list[str]] | None:
    """(starting-counters path, spending-policy path or None, the other swept paths) of a study that
    sweeps a side's starting Guerrilla counters over several numbers; None otherwise."""
    sweep = inp["spec"]["sweep"]
    counters = next((p for p in inp["sweep"] if p.startswith("sides.") and p.endswith(".guerrilla")
                     and numeric(sweep[p]) and len(set(sweep[p])) > 1), None)
    summ = inp["summary"]
    if counters is None or summ.empty or GUERRILLA_METRIC not in set(summ["metric"]):
        return None
    policy = next((p for p in inp["sweep"] if p.startswith("policy.") and p.endswith(".g_spend_mode")),
                  None)
    return counters, policy, [p for p in inp["sweep"] if p not in (counters, policy)]


def guerrilla_figure(inp: dict, metric: str | None = None, ax=None):
    """French orders denied per game (the guerrilla side's row) against the starting Guerrilla
    counters, one line per spending policy (P4), a panel per value of the other swept paths."""
    counters, policy, rest = guerrilla_paths(inp)
    metric = metric or GUERRILLA_METRIC
    sweep, keys = inp["spec"]["sweep"], inp["side_keys"]
    side = counters.split(".")[1]
    side = side if side in keys else inp["spec"]["main_side"]
    df = inp["summary"]
    df = df[(df["metric"] == metric) & (df["side_key"] == side)]
    pinned = []
    while rest and math.prod(len(set(sweep[p])) for p in rest) > MAX_PANELS:
        p = max(rest, key=lambda q: len(set(sweep[q])))
        df = df[df[p] == sweep[p][0]]
        pinned.append(setting(inp, p, sweep[p][0]))
        rest = [q for q in rest if q != p]
    combos = [dict(zip(rest, c, strict=True)) for c in itertools.product(*(sweep[p] for p in rest))]
    own = ax is None
    if ax is not None:
        combos, axes, fig = combos[:1], [ax], ax.figure
    else:
        ncols = len(sweep[rest[-1]]) if rest else 1
        fig, axes = panels(len(combos), ncols=min(ncols, 5), w=3.3, h=2.7)
    lines = list(dict.fromkeys(sweep[policy])) if policy else [None]
    colors = palette(len(lines))
    lo, hi = df["ci_low"].min(), df["ci_high"].max()
    for a, combo in zip(axes, combos, strict=False):
        g = df
        for p, v in combo.items():
            g = g[g[p] == v]
        for value, c in zip(lines, colors, strict=True):
            d = (g[g[policy] == value] if policy else g).sort_values(counters)
            if d.empty:
                continue
            x = d[counters].to_numpy(float)
            a.plot(x, d["value"], marker="o", ms=3.5, lw=1.4, color=c,
                   label=value_words(policy, value) if policy else metric_title(metric))
            band(a, x, d["ci_low"], d["ci_high"], c, lw=1.4)
        a.set_title(textwrap.fill("; ".join(setting(inp, p, v) for p, v in combo.items()) or "all points",
                                  45), fontsize=8)
        a.set_xticks(sorted(set(sweep[counters])))
        a.set_xlabel(param_title(inp, counters))
        a.set_ylabel(textwrap.fill(metric_title(metric), 30))
        if np.isfinite(lo) and np.isfinite(hi):
            a.set_ylim(min(0.0, lo), hi * 1.05 + 1e-9)
        a.grid(alpha=0.3)
    shared_legend(fig, axes, own, fontsize=7, title=param_title(inp, policy) if policy else None,
                  title_fontsize=7)
    note = f" ({'; '.join(pinned)} only)" if pinned else ""
    fig.suptitle(f"{inp['spec']['name']}: {describe(metric).label(side_name(inp, side))} against "
                 f"{param_title(inp, counters)}{note}\none line per "
                 "spending policy (rule P4); 95% intervals; the same games at every point")
    return fig


# --------------------------------------------------------------------------------------------
# odds charts


def tactician_figure(inp: dict, ax=None):
    """Mean Tactician cards the main side holds at the start of each of its turns, per point."""
    df = inp["tactician"]
    main = inp["spec"].get("main_side") or inp["side_keys"][0]
    if ax is None:
        with matplotlib.rc_context(RC):
            fig = Figure(figsize=(7.5, 4.4), layout="constrained")
            ax = fig.subplots()
    pts, note = shown_points(inp, MAX_LINES)
    colors = palette(len(pts))
    for p, c, label in zip(pts, colors, shown_labels(inp, pts), strict=True):
        g = df[(df["point"] == p["id"]) & (df["side_key"] == main)]
        ax.plot(g["turn"], g["held"], lw=1.4, color=c, label=label)
    ax.set_xlabel("turn of the side")
    ax.set_ylabel("Tactician cards held (mean)")
    ax.grid(alpha=0.3)
    ax.legend(loc="best", frameon=False)
    ax.set_title(f"{inp['spec']['name']}: Tactician cards held by {side_name(inp, main)} at the start "
                 f"of each turn{note}\nmeans over {games_note(inp)}")
    return ax.figure


def _extra_kinds(inp: dict) -> tuple[str, ...]:
    """Chart kinds a study gets from what it sweeps."""
    if inp["kind"] != "engine":
        return ()
    out = ("guerrilla",) if guerrilla_paths(inp) else ()
    if "scenario.format" in inp["sweep"] and "tactician" in inp:
        out = (*out, "tactician")
    return out


def odds_figure(inp: dict, ax=None):
    """Each single-outcome question: simulated answer (95% interval) over the exact value, per deck."""
    df = inp["summary"]
    df = df[df["n"] > 0]
    single = [lab for lab, g in df.groupby("label", sort=False) if g.groupby("point").size().max() == 1]
    single = single[:MAX_PANELS]
    if ax is not None:
        single, axes, fig = single[:1], [ax], ax.figure
    else:
        fig, axes = panels(max(len(single), 1), ncols=3, w=4.3, h=3.0)
    by_hand = "hand" in inp["sweep"] and len(set(inp["spec"]["sweep"]["hand"])) > 1
    for a, lab in zip(axes, single, strict=False):
        g = df[df["label"] == lab]
        decks = list(dict.fromkeys(g["deck"]))
        rare = bool(g["exact"].max() < 1e-3) and bool((g["exact"] > 0).any())
        for c, deck in zip(palette(len(decks)), decks, strict=True):
            d = g[g["deck"] == deck].sort_values("hand")
            x = d["hand"].to_numpy(float) if by_hand else np.arange(len(d))
            if rare:  # too rare to simulate: exact on a log scale, the simulation's upper bound dotted
                pos = d["exact"] > 0
                a.plot(x[pos.to_numpy()], d["exact"][pos], color=c, lw=1.2, marker=".", label=f"{deck} exact")
                a.plot(x, d["ci_high"], color=c, lw=1, ls=":", label=f"{deck} simulated 95% upper bound")
                continue
            a.plot(x, d["exact"], color=c, lw=1.2, label=f"{deck} exact")
            yerr = np.vstack([d["simulated"] - d["ci_low"], d["ci_high"] - d["simulated"]])
            a.errorbar(x, d["simulated"], yerr=np.nan_to_num(yerr), fmt="o", ms=3, color=c, capsize=2,
                       label=f"{deck} simulated")
        if rare:
            a.set_yscale("log")
            a.legend(frameon=False, fontsize=6)
        a.set_title(lab + (" (log scale)" if rare else ""), fontsize=8.5)
        a.set_xlabel("hand size" if by_hand else point_axis_label(inp))
        a.grid(alpha=0.3)
    if single:
        axes[0].legend(frameon=False, fontsize=6.5)
    fig.suptitle(f"{inp['spec']['name']}: simulated (dots, 95% intervals) against exact (lines)")
    return fig


# --------------------------------------------------------------------------------------------
# entry points


def figure(inp: dict, kind: str = "main", metric: str | None = None, ax=None) -> Figure:
    """The Figure of one chart kind (see the module docstring). A figure of its own (no `ax`)
    is finished: legends clear of the data, and notes under it on the 95% bands and on the deck
    data (`napsim.output.chartkit.finish`)."""
    kinds = (*(ENGINE_KINDS if inp["kind"] == "engine" else ODDS_KINDS), *_extra_kinds(inp))
    if kind not in kinds:
        raise NapsimInputError("plot", "kind", f"{kind!r} is not a chart of this study", ", ".join(kinds))
    if ax is not None:
        return _draw(inp, kind, metric, ax)
    fig = _draw(inp, kind, metric, None)
    deck_note(fig, inp.get("deck_warnings"))
    finish(fig)
    return fig


def _draw(inp: dict, kind: str, metric: str | None, ax) -> Figure:
    if kind == "guerrilla":
        return guerrilla_figure(inp, metric, ax)
    if kind == "tactician":
        return tactician_figure(inp, ax)
    if kind == "main":
        return main_figure(inp, metric, ax)
    if kind == "sweep":
        if ax is not None:
            sweep_axes(ax, inp, metric or inp["spec"]["main_metric"])
            return ax.figure
        return sweep_figure(inp, [metric] if metric else None)
    if kind == "convergence":
        return convergence_figure(inp, ax)
    if kind == "distribution":
        return distribution_figure(inp, metric, ax)
    if kind == "rack_wait":
        return rack_wait_figure(inp, ax)
    if kind == "heatmap":
        return heatmap_figure(inp, ax)
    return odds_figure(inp, ax)


CAPTIONS = {
    "main": "{metric} against the sweep; bands are 95% intervals.",
    "sweep": "Every other reported measure against the sweep (the main result has a chart of its "
             "own); bands are 95% intervals.",
    "convergence": "Running estimate of {metric_phrase} and its 95% interval at each chunk boundary; "
                   "the dashed line is the final estimate.",
    "distribution": "Share of games by per-game value.",
    "rack_wait": "Share of the cards taken from the Courier Rack by the turns they had waited on it; "
                 "the legend gives the mean wait.",
    "heatmap": "Effective orders per turn by section (rows) and sweep point (columns). The kernel "
               "keeps per-game totals only, so this is section by sweep point, not section by turn.",
    "odds": "Simulated answers (dots, 95% Wilson or normal intervals) against the exact values (lines).",
    "guerrilla": "French effective orders denied per game by the Spanish Guerrilla Action (mean, 95% "
                 "interval) against the starting counters, one line per spending policy (P4), one panel "
                 "per value of the other swept parameters.",
    "tactician": "Tactician cards the main side holds at the start of each of its turns (mean over "
                 "games), one line per sweep point: how each format feeds and spends Tactician cards.",
}
TITLES = {"main": "Main result", "sweep": "Reported metrics", "convergence": "Convergence",
          "distribution": "Per-game distributions", "rack_wait": "Courier Rack waiting times",
          "heatmap": "Effective orders by section and sweep point", "odds": "Answers against exact values",
          "guerrilla": "Orders denied against starting Guerrilla counters",
          "tactician": "Tactician cards held over the game"}


def all_charts(inp: dict, workers: int | None = None, png: bool = False) -> list[Chart]:
    """Every chart of a study, rendered as SVG (and PNG with `png`; empty when no point has results
    yet), by up to `workers` processes (default: one per CPU; `napsim.output.chartkit.render_all`)."""
    return start_charts(inp, workers, png)()


def start_charts(inp: dict, workers: int | None = None, png: bool = False):
    """all_charts begun in worker processes (`napsim.output.chartkit.start_all`): returns the
    function that waits for the charts, so that the caller can make its tables meanwhile."""
    if inp["summary"].empty:
        return list
    kinds = (*(ENGINE_KINDS if inp["kind"] == "engine" else ODDS_KINDS), *_extra_kinds(inp))
    main = inp["spec"].get("main_metric")
    words = dict(metric=describe(main).title, metric_phrase=describe(main).phrase) if main else {}

    def make(k: str) -> Chart:
        return render(figure(inp, k), k, TITLES[k], CAPTIONS[k].format(**words), png)

    return start_all(make, kinds, workers)
