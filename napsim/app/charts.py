"""The page's Altair charts that are more than a line of `napsim.app.panels`: the curve of even
settings of the Balance tab's 'across a second setting' (`napsim.balance_across`)."""

from __future__ import annotations

import altair as alt

from napsim.output import variants
from napsim.output.balance_across import across_title


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
