"""The page of `napsim app`: the Streamlit script (`streamlit run napsim/app/page.py`); its panels
are in `napsim.app.panels`."""

from napsim.app.panels import main

main()
