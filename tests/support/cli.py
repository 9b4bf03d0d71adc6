"""The command line in a fresh interpreter, as a user runs it."""

from __future__ import annotations

import os
import subprocess
import sys


def run_napsim(*args: str, env: dict[str, str] | None = None, timeout: float = 300
               ) -> subprocess.CompletedProcess:
    """`python -m napsim ARGS` in a fresh interpreter (the real console entry point)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "napsim", *args], capture_output=True, text=True, env=full_env,
        timeout=timeout,
    )
