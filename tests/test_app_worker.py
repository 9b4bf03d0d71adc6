"""The page's kernel worker (issue 29): every kernel call on one thread whatever thread submits it,
a newer job of a tab superseding its older one, two tabs at once each with their own answers;
uploads checked in memory and kept in a temporary folder; the `napsim app` command."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

import napsim
import napsim.cli as cli_module
from napsim.app import form, jobs
from napsim.app.jobs import Settings
from napsim.app.worker import Cancelled, KernelWorker, ResultCache
from napsim.cli import main
from napsim.model.errors import NapsimInputError


@pytest.fixture
def w():
    worker = KernelWorker("test-kernels")
    yield worker
    worker.close()


def test_every_job_runs_on_the_one_worker_thread(w):
    seen = []
    jobs_ = []

    def submit(i):
        jobs_.append(w.submit(("tab", i), lambda job, x: seen.append(threading.get_ident()) or x * 2, i))

    threads = [threading.Thread(target=submit, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(j.result(10) for j in jobs_) == [2 * i for i in range(8)]
    assert set(seen) == {w.ident} and w.ident != threading.get_ident()


def test_a_newer_job_of_a_channel_drops_the_older_pending_one(w):
    gate = threading.Event()
    blocker = w.submit("other", lambda job: gate.wait(10))
    old = w.submit(("tab", "answer"), lambda job: "old")
    new = w.submit(("tab", "answer"), lambda job: "new")
    other = w.submit(("tab2", "answer"), lambda job: "other tab")
    gate.set()
    assert new.result(10) == "new" and other.result(10) == "other tab" and blocker.result(10)
    with pytest.raises(Cancelled):
        old.result(10)


def test_a_newer_job_stops_the_running_one_at_its_next_check(w):
    started = threading.Event()
    checks = []

    def long_job(job):
        started.set()
        for i in range(1000):
            time.sleep(0.01)
            checks.append(i)
            job.set_progress(i / 1000)  # raises Cancelled once superseded
        return "finished"

    old = w.submit("tab", long_job)
    assert started.wait(10)
    new = w.submit("tab", lambda job: "new")
    assert new.result(10) == "new"
    with pytest.raises(Cancelled):
        old.result(0)
    assert len(checks) < 1000


def test_an_error_reaches_the_waiting_page(w):
    def bad(job):
        raise NapsimInputError("x.toml", "hand", "out of range")

    with pytest.raises(NapsimInputError, match="out of range"):
        w.submit("tab", bad).result(10)
    assert w.submit("tab", lambda job: 1).result(10) == 1  # the worker goes on


def test_two_tabs_at_once_each_get_their_own_answer(w):
    a = Settings("symmetric", (("sides.A.hand", 5),))
    b = Settings("symmetric", (("sides.A.hand", 8),))
    got = {}

    def tab(name, s):
        job = w.submit((name, "answer"), jobs.answer, s, 900, 3, 300)
        got[name] = (job.result(120), job)

    threads = [threading.Thread(target=tab, args=("one", a)), threading.Thread(target=tab, args=("two", b))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for name, s in (("one", a), ("two", b)):
        run, job = got[name]
        assert job.thread == w.ident
        assert job.partial is not None and job.partial.result.games == 300  # the first batch came first
        assert run.summary_csv() == napsim.simulate("symmetric", s.sets, games=900, seed=3).summary_csv()
    assert got["one"][0].summary_csv() != got["two"][0].summary_csv()


def test_a_superseded_answer_is_not_played_to_the_end(w):
    gate = threading.Event()
    w.submit("block", lambda job: gate.wait(10))
    s = Settings("symmetric", (("sides.B.hand", 4),))
    old = w.submit(("tab", "answer"), jobs.answer, s, 40_000, 99, 500)
    new = w.submit(("tab", "answer"), jobs.answer, Settings("symmetric"), 600, 99, 300)
    gate.set()
    assert new.result(120).result.games == 600
    with pytest.raises(Cancelled):
        old.result(0)
    assert jobs.ANSWERS.get((s, 40_000, 99)) is None


def test_the_result_cache_drops_the_least_recently_used():
    c = ResultCache(2)
    c.put("a", 1)
    c.put("b", 2)
    assert c.get("a") == 1
    c.put("c", 3)
    assert c.get("b") is None and c.get("a") == 1 and c.get("c") == 3 and len(c) == 2


# --------------------------------------------------------------------------------------------
# uploads


def test_uploads_stay_in_the_temporary_folder_whatever_their_name():
    good = (Path(napsim.__file__).parent / "data" / "scenarios" / "symmetric.toml").read_bytes()
    path = Path(form.scenario_upload("../../../etc/evil name.toml", good))
    assert path.is_relative_to(form.folder()) and path.name == "evil_name.toml"
    assert path.read_bytes() == good


@pytest.mark.parametrize(("name", "data", "words"), [
    ("a.toml", b"x" * (form.MAX_BYTES + 1), "too large"),
    ("a.toml", b"\xff\xfe", "not UTF-8"),
    ("a.py", b"print(1)", "is not a .toml file"),
    ("a.toml", b"[scenario]\nname = 'x'\n", "a.toml"),
])
def test_a_bad_scenario_upload_is_one_line_naming_the_upload(name, data, words):
    with pytest.raises(NapsimInputError, match=words) as e:
        form.scenario_upload(name, data)
    assert "\n" not in str(e.value) and str(e.value).startswith(name)
    assert not list(form.folder().rglob(Path(name).name))  # nothing refused was written


def test_a_bad_deck_upload_names_the_upload_not_the_copy():
    with pytest.raises(NapsimInputError) as e:
        form.deck_upload("mydeck.csv", b"name,count\nx,1\n")
    assert str(e.value).startswith("mydeck.csv") and str(form.folder()) not in str(e.value)


# --------------------------------------------------------------------------------------------
# the command


def test_napsim_app_runs_streamlit_on_the_page(monkeypatch, capsys):
    seen = []
    monkeypatch.setattr(cli_module, "run_page", lambda cmd: seen.append(cmd) or 0)
    with pytest.raises(SystemExit) as e:
        main(["app", "--no-browser", "--port", "8600"])
    assert e.value.code == 0
    cmd = seen[0]
    assert cmd[:4] == [sys.executable, "-m", "streamlit", "run"] and cmd[4] == str(cli_module.PAGE)
    assert cmd[cmd.index("--server.port") + 1] == "8600"
    assert cmd[cmd.index("--server.address") + 1] == "127.0.0.1"
    assert cmd[cmd.index("--server.headless") + 1] == "true"
    assert "warning" not in capsys.readouterr().err


def test_napsim_app_on_another_host_warns_in_one_line(monkeypatch, capsys):
    monkeypatch.setattr(cli_module, "run_page", lambda cmd: 0)
    with pytest.raises(SystemExit):
        main(["app", "--host", "0.0.0.0"])
    err = [x for x in capsys.readouterr().err.splitlines() if "warning" in x]
    assert len(err) == 1 and "reachable from the network" in err[0]


def test_napsim_app_without_streamlit_says_how_to_install_it(monkeypatch, capsys):
    real = cli_module.importlib.util.find_spec
    monkeypatch.setattr(cli_module.importlib.util, "find_spec",
                        lambda name, *a: None if name == "streamlit" else real(name, *a))
    with pytest.raises(SystemExit) as e:
        main(["app"])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and 'pip install -e ".[app]"' in err[0] and err[0].startswith("napsim: error:")
