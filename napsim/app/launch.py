"""`napsim app`: start the what-if page (Streamlit) and open it in the browser.

Streamlit is an optional extra (`pip install -e ".[app]"`); without it the command says so in one
line and exits 2. The page listens on 127.0.0.1 unless `--host` says otherwise, and then says that
anyone who can reach this machine can open it.
"""

from __future__ import annotations

import importlib.util
import signal
import subprocess
import sys
from pathlib import Path

import click

PAGE = Path(__file__).with_name("page.py")
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def streamlit_command(port: int, host: str, browser: bool) -> list[str]:
    """The `streamlit run` command line of the page."""
    return [sys.executable, "-m", "streamlit", "run", str(PAGE), "--server.port", str(port),
            "--server.address", host, "--server.headless", "false" if browser else "true",
            "--browser.gatherUsageStats", "false", "--server.maxUploadSize", "1",
            "--client.toolbarMode", "viewer", "--global.developmentMode", "false"]


@click.command("app")
@click.option("--port", type=click.IntRange(1, 65535), default=8501, show_default=True,
              help="Port of the page.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (anything but 127.0.0.1 makes the page reachable from the network).")
@click.option("--no-browser", is_flag=True, help="Do not open the page in the browser.")
def app_cmd(port: int, host: str, no_browser: bool) -> None:
    """A what-if page in the browser: change a scenario, see the card-flow answer in under a second."""
    if importlib.util.find_spec("streamlit") is None:
        raise click.ClickException('Streamlit is not installed; install the app extra: '
                                   'pip install -e ".[app]"')
    if host not in LOCAL_HOSTS:
        click.echo(f"napsim: warning: listening on {host}: the page is reachable from the network, by anyone "
                   "who can reach this machine", err=True)
    click.echo(f"napsim app: http://{'localhost' if host in LOCAL_HOSTS else host}:{port} (Ctrl+C stops it)",
               err=True)
    sys.exit(run_page(streamlit_command(port, host, not no_browser)))


def run_page(command: list[str]) -> int:
    """Run the Streamlit server until it ends, or until Ctrl+C or SIGTERM stop this process (the
    server is stopped with it, never left behind)."""
    proc = subprocess.Popen(command)
    previous = signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        return proc.wait()
    except KeyboardInterrupt:
        return 0
    finally:
        signal.signal(signal.SIGTERM, previous)
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
