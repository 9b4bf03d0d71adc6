"""The command line as a user runs it: in a fresh interpreter, or through the console entry point
inside click's CliRunner isolation (in-process, fast)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from napsim.cli import main


def run_napsim(*args: str, env: dict[str, str] | None = None, timeout: float = 600,
               cwd: Path | None = None, module: str = "napsim") -> subprocess.CompletedProcess:
    """`python -m napsim ARGS` (or another `module`) in a fresh interpreter, the real console entry
    point, its output captured as text; `env` is added to this process's environment (whose
    NUMBA_CACHE_DIR the child shares, so it compiles no kernel this process has cached)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", module, *args], capture_output=True, text=True, env=full_env,
        timeout=timeout, cwd=cwd,
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


def refused_with_studies(monkeypatch, tmp_path: Path, body: str, *command: str) -> str:
    """`napsim COMMAND --studies DIR --results DIR2` (`"regen", "x"`) with DIR/x.toml holding `body`,
    which must be refused: exit 2, one line on stderr, nothing on stdout, no results folder.
    Returns that line."""
    studies = tmp_path / "studies"
    studies.mkdir()
    (studies / "x.toml").write_text(body)
    code, out, err = napsim_main(monkeypatch, *command, "--studies", str(studies), "--results",
                                 str(tmp_path / "results"))
    assert code == 2 and not out and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "results").exists()
    return err
