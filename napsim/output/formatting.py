"""Render tidy result frames as a text table, CSV or JSON for the command line."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

TABLE_FORMATS = ("table", "csv", "json")


def render(df: pd.DataFrame, table_format: str, warnings: list[str] | None = None) -> str:
    """One frame in the requested format; warnings go above a table and into JSON/CSV metadata."""
    warnings = [w for w in (warnings or []) if w]
    if table_format == "csv":
        head = "".join(f"# {w}\n" for w in warnings)
        return head + df.to_csv(index=False, float_format="%.6g")
    if table_format == "json":
        # not df.to_json: its double_precision counts decimal places, so tiny probabilities
        # (E4 is ~1e-12 with big hands) came out as 0.0; plain floats keep every digit
        records = [{k: _json_value(v) for k, v in r.items()} for r in df.to_dict("records")]
        return json.dumps({"warnings": warnings, "rows": records}, indent=2, default=str)
    return "\n".join([*warnings, _table(df)])


def _json_value(v):
    """numpy scalars as plain Python values; NaN and infinities as null (JSON has none)."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _table(df: pd.DataFrame) -> str:
    if {"simulated", "ci_low", "ci_high"} <= set(df.columns):
        view = df.copy()
        is_p = view["interval"] == "wilson95"
        fmt_p = _fmt_prob
        fmt_m = lambda v: f"{v:.4f}"  # noqa: E731
        view["exact"] = [
            (fmt_p(v) if p else fmt_m(v)) if np.isfinite(v) else "-"
            for v, p in zip(view["exact"], is_p, strict=True)
        ]
        view["simulated"] = [
            fmt_p(v) if p else fmt_m(v) for v, p in zip(view["simulated"], is_p, strict=True)
        ]
        view["95% CI"] = [
            f"[{fmt_p(lo)}, {fmt_p(hi)}]" if p else f"[{lo:.4f}, {hi:.4f}]"
            for lo, hi, p in zip(view["ci_low"], view["ci_high"], is_p, strict=True)
        ]
        view = view[["question", "outcome", "exact", "simulated", "95% CI", "n"]]
        return _left_table(view)
    return _left_table(df)


def _fmt_prob(v: float) -> str:
    """Probabilities keep their significant digits even when tiny (E4 is ~1e-6)."""
    return f"{v:.5f}" if v == 0 or v >= 1e-3 else f"{v:.3e}"


def _left_table(df: pd.DataFrame) -> str:
    """Plain text table: text columns left-aligned, numbers right-aligned."""
    cols = [str(c) for c in df.columns]
    cells = [[str(v) for v in df[c]] for c in df.columns]
    widths = [max([len(h)] + [len(x) for x in col]) for h, col in zip(cols, cells, strict=True)]
    numeric = [pd.api.types.is_numeric_dtype(df[c]) for c in df.columns]

    def line(values):
        return "  ".join(
            v.rjust(w) if num else v.ljust(w)
            for v, w, num in zip(values, widths, numeric, strict=True)
        ).rstrip()

    out = [line(cols), line(["-" * w for w in widths])]
    out += [line([col[i] for col in cells]) for i in range(len(df))]
    return "\n".join(out)
