"""The page of `napsim app`: the Streamlit script (`streamlit run napsim/app/page.py`). The title
and a line are shown before napsim is imported (seconds on a first visit), then the panels
(`napsim.app.panels`)."""

import streamlit as st

st.set_page_config(page_title="napsim: what if", layout="wide")
st.title("napsim: what if ...")
starting = st.empty()
starting.caption("starting napsim ...")

from napsim.app.panels import main  # noqa: E402 - after the title, so the page is never blank

starting.empty()
main()
