"""The command line as a user runs it: in a fresh interpreter, or through the console entry point
inside click's CliRunner isolation (in-process, fast)."""

from __future__ import annotations

import os
import subprocess
import sys

from click.testing import CliRunner

from napsim.cli import main


def run_napsim(*args: str, env: dict[str, str] | None = None, timeout: float = 300
               ) -> subprocess.CompletedProcess:
    """`python -m napsim ARGS` in a fresh interpreter (the real console entry point)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "napsim", *args], capture_output=True, text=True, env=full_env,
        timeout=timeout,
    )


def napsim_main(monkeypatch, *args: str) -> tuple[int, str, str]:
    """The console entry point (one-line errors, exit 2) run inside click's CliRunner isolation:
    (exit code, stdout, stderr)."""
    monkeypatch.setattr(sys, "argv", ["napsim", *args])
    with CliRunner().isolation() as (out, err, _):
        try:
            main()
            code = 0
        except SystemExit as e:
            code = e.code
        return code, out.getvalue().decode(), err.getvalue().decode()
