"""`napsim app`: the what-if page in the browser (Streamlit), a thin client of the Python API.

`page.py` is the Streamlit script (and `panels.py` its panels); `worker.py` the one thread that
plays every kernel call of the page; `jobs.py` what it plays (through `napsim.api`); `form.py` the
scenario's fields and uploaded files, checked by the model layer. The `napsim app` command that
starts the page is in `napsim.cli`. Only page.py and panels.py import Streamlit.
"""
