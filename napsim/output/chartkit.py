"""The chart kit: rendering (PNG and SVG, deterministic), chart files, and the helpers every chart
of `napsim.output.charts` shares (panel grids, colours, labels of sweep points, pinned values).

Figures are built as `matplotlib.figure.Figure` objects without pyplot, so nothing here touches a
global backend: saving renders with Agg (PNG) and the SVG backend. Files are written
deterministically (no dates, a fixed SVG hash salt, text kept as text), so regenerating an
unchanged study leaves them unchanged.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from pathlib import Path

import matplotlib
from matplotlib.figure import Figure
from PIL import Image

from napsim.study.storage import atomic_write_bytes

MAX_PANELS = 16
MAX_LINES = 12
MAX_COLUMNS = 24
RC = {"svg.hashsalt": "napsim", "svg.fonttype": "none", "font.size": 9, "axes.titlesize": 9.5,
      "axes.labelsize": 9, "legend.fontsize": 7.5, "xtick.labelsize": 8, "ytick.labelsize": 8,
      "axes.spines.top": False, "axes.spines.right": False}


@dataclass
class Chart:
    """One rendered chart: file stem, title, caption, PNG and SVG bytes."""

    name: str
    title: str
    caption: str
    png: bytes
    svg: bytes


def render(fig: Figure, name: str, title: str, caption: str) -> Chart:
    """PNG (Agg, then reduced to a 256-colour palette: a third of the bytes, same look) and SVG."""
    with matplotlib.rc_context(RC):
        png, svg = io.BytesIO(), io.BytesIO()
        fig.savefig(png, format="png", dpi=100, metadata={"Software": None})
        # the layout the PNG was drawn with holds for the SVG: do not solve it a second time
        fig.set_layout_engine("none")
        fig.savefig(svg, format="svg", metadata={"Date": None, "Creator": None})
    png.seek(0)
    img = Image.open(png).convert("RGB").quantize(256, method=Image.Quantize.FASTOCTREE,
                                                  dither=Image.Dither.NONE)
    small = io.BytesIO()
    img.save(small, format="PNG", optimize=True)
    return Chart(name, title, caption, small.getvalue(), svg.getvalue())


def write_chart(c: Chart, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(folder / f"{c.name}.png", c.png)
    atomic_write_bytes(folder / f"{c.name}.svg", c.svg)


# --------------------------------------------------------------------------------------------
# helpers


def numeric(values) -> bool:
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)


def x_path(inp: dict) -> str | None:
    """The sweep path drawn along the x axis: the first numeric one with more than one value."""
    for p in inp["sweep"]:
        vals = inp["spec"]["sweep"][p]
        if numeric(vals) and len(set(vals)) > 1:
            return p
    return None


def short(path: str, side_keys) -> str:
    """'sides.*.hand' -> 'hand', 'sides.A.hand' -> 'hand[A]', 'policy.B' -> 'policy[B]'."""
    parts = path.split(".")
    if parts[0] == "policy" and len(parts) == 2:
        return "policy" if parts[1] == "*" else f"policy[{parts[1]}]"
    where = [p for p in parts[1:-1] if p in (*side_keys, "L", "C", "R")]
    return parts[-1] + (f"[{'.'.join(where)}]" if where else "")


def point_label(inp: dict, point: dict, skip: str | None = None) -> str:
    items = [(k, v) for k, v in point["params"].items() if k != skip]
    if not items:
        return "all games" if skip is None else ""
    return ", ".join(f"{short(k, inp['side_keys'])}={v}" for k, v in items)


def shown_points(inp: dict, limit: int = 8) -> tuple[list[dict], str]:
    """The points a many-lines chart draws: all of them, or (past `limit`) those at the first value
    of every swept path but the x axis, with a note saying which."""
    pts = inp["points"]
    xp = x_path(inp)
    others = [p for p in inp["sweep"] if p != xp]
    if len(pts) <= limit or not others:
        return pts, ""
    first = {p: inp["spec"]["sweep"][p][0] for p in others}
    keep = [p for p in pts if all(p["params"][k] == v for k, v in first.items())]
    note = ", ".join(f"{short(k, inp['side_keys'])}={v}" for k, v in first.items())
    return keep, f" ({note} only)"


def games_tick(v, _pos=None) -> str:
    v = int(v)
    if v >= 1_000_000 and v % 100_000 == 0:
        return f"{v / 1e6:g}M"
    if v >= 1000 and v % 100 == 0:
        return f"{v / 1e3:g}k"
    return str(v)


def panels(n_panels: int, ncols: int = 3, w: float = 4.2, h: float = 3.0) -> tuple[Figure, list]:
    ncols = max(1, min(ncols, n_panels))
    nrows = max(1, math.ceil(n_panels / ncols))
    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(w * ncols, h * nrows + 0.5), layout="constrained")
        axes = fig.subplots(nrows, ncols, squeeze=False).ravel().tolist()
    for ax in axes[n_panels:]:
        ax.set_visible(False)
    return fig, axes[:n_panels]


def palette(n: int):
    with matplotlib.rc_context(RC):
        if n <= 10:
            cmap = matplotlib.colormaps["tab10"]
            return [cmap(i) for i in range(n)]
        cmap = matplotlib.colormaps["viridis"]
        return [cmap(i / max(n - 1, 1)) for i in range(n)]


def games_note(inp: dict) -> str:
    run_cap = inp["summary"]["games"].max() if "games" in inp["summary"] and len(inp["summary"]) else 0
    return f"up to {int(run_cap):,} games per point" if run_cap else ""


def side_name(inp: dict, key: str) -> str:
    s = inp["summary"]
    names = s.loc[s["side_key"] == key, "side"]
    name = names.iloc[0] if len(names) else key
    return f"{key} ({name})" if name != key else key
