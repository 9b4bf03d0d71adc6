"""The page's Altair charts, drawn by `napsim.app.panels`: effective orders a turn by section, the
balance curve, and the curve of even settings of the Balance tab's 'across a second setting'
(`napsim.balance_across`). Each is a function of an API result; nothing here plays."""

from __future__ import annotations

import altair as alt
import pandas as pd

from napsim.output import variants
from napsim.output.balance_across import across_title
from napsim.output.balance_words import difference_label


def across_chart(res) -> alt.Chart:
    """The even setting of the first (y) at each value of the second (x), its 95% interval as a band
    and rules; values without a crossing listed in the tooltip of a mark at the range's top."""
    frame = res.frame()
    b = res.first
    x = alt.X("across_value:Q", title=across_title(res), axis=alt.Axis(tickMinStep=1, format="d"))
    title, scale = f"even {variants.vary_title(b)}", alt.Scale(domain=[b.vary.low, b.vary.high])
    y = alt.Y("crossing:Q", title=title, scale=scale)
    ok = alt.Chart(frame[frame["crossed"]]).encode(x=x)
    band = ok.mark_area(opacity=0.25).encode(y=alt.Y("ci_low:Q", title=title, scale=scale), y2="ci_high:Q")
    line = ok.mark_line(point=True).encode(y=y, tooltip=["across_value", "crossing", "ci_low", "ci_high"])
    bars = ok.mark_rule().encode(y="ci_low:Q", y2="ci_high:Q")
    none = frame[~frame["crossed"]].assign(top=b.vary.high, note="no crossing in the range")
    miss = alt.Chart(none).mark_point(shape="cross", color="firebrick", size=80).encode(
        x=x, y="top:Q", tooltip=["across_value", "note"])
    return band + line + bars + miss


def section_chart(by_sec: pd.DataFrame) -> alt.Chart:
    """Effective orders a turn per section and side, the 95% interval as a rule."""
    base = alt.Chart(by_sec).encode(x=alt.X("section:N", sort=["L", "C", "R"], title="section",
                                            axis=alt.Axis(labelAngle=0)),
                                    xOffset="side:N", color=alt.Color("side:N", title="side"))
    bars = base.mark_bar().encode(y=alt.Y("value:Q", title="effective orders a turn"),
                                  tooltip=["side", "title", "value", "ci_low", "ci_high", "n"])
    return bars + base.mark_rule(color="black").encode(y="ci_low:Q", y2="ci_high:Q")


def balance_chart(res) -> alt.Chart:
    """The searched difference at every setting played: a point with its 95% interval, a band and
    line only between whole settings that follow one another, 0 as a rule, whole-number ticks."""
    frame = res.frame()
    runs = variants.played_runs(frame["value"].to_numpy(float)) if res.vary.integer else \
        [[i] for i in range(len(frame))]
    frame["run"] = 0
    for k, run in enumerate(runs):
        frame.loc[frame.index[run], "run"] = k
    title = variants.vary_title(res)
    ylabel = difference_label(res)
    axis = alt.Axis(tickMinStep=1, format="d") if res.vary.integer else alt.Axis()
    base = alt.Chart(frame).encode(x=alt.X("value:Q", title=title, axis=axis,
                                           scale=alt.Scale(domain=[res.vary.low, res.vary.high])))
    joined = base.transform_filter(alt.datum.run >= 0).encode(detail="run:N")
    band = joined.mark_area(opacity=0.25).encode(y=alt.Y("ci_low:Q", title=ylabel), y2="ci_high:Q")
    line = joined.mark_line().encode(y="difference:Q")
    bars = base.mark_rule().encode(y="ci_low:Q", y2="ci_high:Q")
    points = base.mark_point(filled=True, size=60).encode(
        y="difference:Q", tooltip=["value", "difference", "ci_low", "ci_high", "n"])
    zero = alt.Chart(pd.DataFrame({"y": [0]})).mark_rule(strokeDash=[4, 4]).encode(y="y:Q")
    if not res.crossed:
        return band + line + bars + points + zero
    v, lo, hi = res.crossing
    even = alt.Chart(pd.DataFrame({"x": [v], "lo": [lo], "hi": [hi]}))
    spread = even.mark_rect(opacity=0.15, color="gray").encode(x="lo:Q", x2="hi:Q")
    mark = even.mark_rule(color="gray", strokeDash=[2, 2]).encode(x=alt.X("x:Q", title=title))
    return band + line + bars + points + zero + spread + mark
