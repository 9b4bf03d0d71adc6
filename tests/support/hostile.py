"""Hostile inputs for the command line (issue 16): the command line run in-process, what a clean
refusal looks like, and a fixed catalogue of named bad inputs. `tests/test_hostile_inputs.py` and
`tools/hostile_inputs.py` use them; the generated cases are in `support.hostile_gen`.

A clean refusal: exit code 2, nothing on stdout, exactly one line on stderr starting
`napsim: error:`, no traceback, and nothing written where the command was told to write.
"""

from __future__ import annotations

import contextlib
import io
import json
import signal
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from napsim.cli import main
from napsim.model.cards import DECK_DIR
from napsim.model.scenarios import SCENARIO_DIR

GMT90 = (DECK_DIR / "gmt90.csv").read_bytes()
SYMMETRIC = (SCENARIO_DIR / "symmetric.toml").read_bytes()
OUT = "out"  # the --out folder every case names, relative to its work folder: it must stay absent


class Hang(BaseException):
    """Raised by the alarm when one case runs past its time limit."""


@dataclass
class Outcome:
    code: int | str | None
    stdout: str
    stderr: str
    traceback: bool
    hang: bool
    wrote: bool

    @property
    def clean(self) -> bool:
        """A clean refusal (see the module docstring)."""
        lines = self.stderr.splitlines()
        return (self.code == 2 and not self.traceback and not self.hang and not self.wrote
                and self.stdout == "" and len(lines) == 1 and lines[0].startswith("napsim: error: ")
                and "Traceback" not in self.stderr)

    @property
    def verdict(self) -> str:
        """clean, traceback, hang, accepted (exit 0) or unclean (anything else)."""
        if self.hang:
            return "hang"
        if self.traceback:
            return "traceback"
        if self.code == 0 or self.code is None:
            return "accepted"
        return "clean" if self.clean else "unclean"

    def describe(self) -> str:
        return (f"exit {self.code!r}, wrote={self.wrote}, hang={self.hang}\n--- stdout\n{self.stdout[-2000:]}"
                f"\n--- stderr\n{self.stderr[-4000:]}")


def _alarm(*_args):
    raise Hang()


def run_cli(argv: list[str], workdir: Path | None = None, timeout: int = 0) -> Outcome:
    """`napsim ARGV` in this process (the real entry point, `napsim.cli.main`), its output captured.

    `workdir/out` (the --out of every case) must not exist afterwards. With `timeout` (seconds, main
    thread only) a run that takes longer is stopped and reported as a hang."""
    out, err = io.StringIO(), io.StringIO()
    code: int | str | None = 0
    tb = hang = False
    old = signal.signal(signal.SIGALRM, _alarm) if timeout else None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            if timeout:
                signal.alarm(timeout)
            main(argv)
        except SystemExit as e:
            code = e.code
        except Hang:
            hang, code = True, "hang"
        except BaseException:  # noqa: BLE001 - a traceback is what the case looks for
            tb, code = True, "traceback"
            traceback.print_exc(file=err)
        finally:
            if timeout:
                signal.alarm(0)
                signal.signal(signal.SIGALRM, old)
    wrote = workdir is not None and (workdir / OUT).exists()
    return Outcome(code, out.getvalue(), err.getvalue(), tb, hang, wrote)


# ---------------------------------------------------------------------------------------------
# the fixed catalogue: (file kind or command, name, setup(work folder) -> argv)


def _file(work: Path, name: str, data: bytes | str) -> str:
    p = work / name
    p.write_bytes(data.encode() if isinstance(data, str) else data)
    return str(p)


def _deck_case(data: bytes | Callable[[bytes], bytes], cmd: str = "show"):
    def setup(work: Path) -> list[str]:
        raw = data(GMT90) if callable(data) else data
        path = _file(work, "deck.csv", raw)
        if cmd == "show":
            return ["decks", "show", path]
        if cmd == "odds":
            return ["odds", "at-least", "--deck", path, "--filter", "kind=multi", "--games", "10"]
        return ["simulate", "--scenario", "symmetric", "--deck", path, "--games", "2", "--out",
                str(work / OUT)]
    return setup


def _with_name(raw: bytes, name: bytes) -> bytes:
    return raw.replace(b"\nProbe Left,", b"\n" + name + b",", 1)


def _tiny_deck(work: Path, rack: bool = False) -> list[str]:
    path = _file(work, "one.csv", "name,count,kind,section,orders_l,orders_c,orders_r,equal_to_command,"
                 "cap,unit_filter,stars,tactician_draw,scout,elan,first_strike,counter_attack,force_march,"
                 "take_command,fallback,category,confidence,source\n"
                 "Probe Left,1,section,L,2,0,0,0,-,any,0,0,0,0,0,0,0,0,0,probe,confirmed,test\n")
    if rack:
        return ["odds", "rack", "--section", "L", "--deck", path, "--games", "10"]
    return ["simulate", "--scenario", "symmetric", "--deck", path, "--games", "2", "--out",
            str(work / OUT)]


def _args(*argv: str, out: bool = False):
    def setup(work: Path) -> list[str]:
        return [*argv, "--out", str(work / OUT)] if out else list(argv)
    return setup


def _report(content: bytes | str):
    def setup(work: Path) -> list[str]:
        run = work / "run"
        run.mkdir()
        _file(run, "study.json", content)
        return ["report", str(run), "--dest", str(work / OUT), "--no-charts"]
    return setup


def _study(body: str):
    def setup(work: Path) -> list[str]:
        return ["run", _file(work, "study.toml", body), "--out", str(work / OUT), "--no-report"]
    return setup


def _scenario(transform: Callable[[bytes], bytes], cmd: str = "simulate"):
    def setup(work: Path) -> list[str]:
        path = _file(work, "scen.toml", transform(SYMMETRIC))
        if cmd == "trace":
            return ["trace", "--scenario", path, "--game", "0"]
        return ["simulate", "--scenario", path, "--games", "2", "--out", str(work / OUT)]
    return setup


_ODDS_STUDY = """[study]
name = "odds"
kind = "odds"
games = 10
[[questions]]
ask = "at_least"
filter = "{filter}"
k = {k}
"""
_HUGE_SWEEP = '[study]\nname = "big"\nscenario = "symmetric"\ngames = 2\n[sweep]\n' + "".join(
    f'"sides.*.sections.{s}.{u}" = [{", ".join(map(str, range(30)))}]\n'
    for s in "LCR" for u in ("infantry", "cavalry")) + '"policy.*" = ["greedy", "random"]\n'
_NEST = "../" * 12
SIM = ("simulate", "--scenario", "symmetric", "--games", "2")
ODDS = ("odds", "at-least", "--filter", "kind=multi", "--games", "10")

CATALOGUE: list[tuple[str, str, Callable[[Path], list[str]]]] = [
    ("CLI simulate", "--seed -1", _args(*SIM, "--seed", "-1", out=True)),
    ("CLI simulate", "--seed 2**63", _args(*SIM, "--seed", str(2**63), out=True)),
    ("CLI simulate", "--seed 2**70", _args(*SIM, "--seed", str(2**70), out=True)),
    ("CLI simulate", "--games 10**15", _args("simulate", "--scenario", "symmetric", "--games",
                                             str(10**15), out=True)),
    ("CLI simulate", "--set =5", _args(*SIM, "--set", "=5", out=True)),
    ("CLI simulate", "--deck epic-tcg-sealed30 (no card can order)",
     _args(*SIM, "--deck", "epic-tcg-sealed30", out=True)),
    ("CLI simulate", "1-card deck, hand 6", _tiny_deck),
    ("CLI simulate", "--scenario ../scenarios/symmetric (a name with ../)",
     _args("simulate", "--scenario", "../scenarios/symmetric", "--games", "2", out=True)),
    ("CLI simulate", "--deck ../decks/gmt90 (a name with ../)",
     _args(*SIM, "--deck", "../decks/gmt90", out=True)),
    ("CLI trace", "--seed -1", _args("trace", "--scenario", "symmetric", "--game", "0", "--seed", "-1")),
    ("CLI trace", "--seed 2**63", _args("trace", "--scenario", "symmetric", "--game", "0", "--seed",
                                        str(2**63))),
    ("CLI trace", "--game 2**63", _args("trace", "--scenario", "symmetric", "--game", str(2**63))),
    ("CLI trace", "--game -1", _args("trace", "--scenario", "symmetric", "--game", "-1")),
    ("CLI trace", "--deck epic-tcg-sealed30", _args("trace", "--scenario", "symmetric", "--game", "0",
                                                    "--deck", "epic-tcg-sealed30")),
    ("CLI odds", "at-least --games 10**14", _args("odds", "at-least", "--filter", "kind=multi",
                                                  "--games", str(10**14))),
    ("CLI odds", "at-least -k -1", _args(*ODDS, "-k", "-1")),
    ("CLI odds", "at-least -k 7 (hand 6)", _args(*ODDS, "-k", "7")),
    ("CLI odds", "at-least --filter kind=dragon", _args("odds", "at-least", "--filter", "kind=dragon",
                                                        "--games", "10")),
    ("CLI odds", "at-least --filter kind==section", _args("odds", "at-least", "--filter",
                                                          "kind==section", "--games", "10")),
    ("CLI odds", "at-least --filter category=nothing", _args("odds", "at-least", "--filter",
                                                             "category=nothing", "--games", "10")),
    ("CLI odds", "mulligan --keep kind=dragon", _args("odds", "mulligan", "--keep", "kind=dragon",
                                                      "--mulligan-below", "1", "--target", "1",
                                                      "--games", "10")),
    ("CLI odds", "first --games 10**14", _args("odds", "first", "--filter", "kind=multi", "--games",
                                               str(10**14))),
    ("CLI odds", "rack with a 1-card deck", lambda w: _tiny_deck(w, rack=True)),
    ("CLI odds", "report --seed -1", _args("odds", "report", "--games", "10", "--seed", "-1")),
    ("CLI decks", "show ../../etc/passwd", _args("decks", "show", "../../etc/passwd")),
    ("CLI decks", f"show {_NEST}etc/passwd", _args("decks", "show", f"{_NEST}etc/passwd")),
    ("CLI decks", "show ../decks/gmt90", _args("decks", "show", "../decks/gmt90")),
    ("deck CSV", "CR-only line endings, a bad count",
     _deck_case(lambda r: r.replace(b"\n", b"\r").replace(b"Probe Left,5,", b"Probe Left,x,"))),
    ("deck CSV", "stray CR inside a field", _deck_case(lambda r: _with_name(r, b"Probe\rLeft"))),
    ("deck CSV", "binary content", _deck_case(bytes(range(256)) * 4)),
    ("deck CSV", "binary content that is UTF-8 (NULs)", _deck_case(b"\x00\x01\x02abc,def\n" * 50)),
    ("deck CSV", "NUL byte in a card name", _deck_case(lambda r: _with_name(r, b"Probe\x00Left"))),
    ("deck CSV", "NUL byte in a card name (odds)", _deck_case(lambda r: _with_name(r, b"Pro\x00be"), "odds")),
    ("deck CSV", "NUL byte in a card name (simulate)",
     _deck_case(lambda r: _with_name(r, b"Pro\x00be"), "simulate")),
    ("deck CSV", "a BOM and an unknown column",
     _deck_case(lambda r: b"\xef\xbb\xbf" + r.replace(b",count_tie\n", b",count_tie,extra\n", 1))),
    ("deck CSV", "a 1,000-character header line", _deck_case(b"# " + b"x" * 1000 + b"\n" + GMT90)),
    ("deck CSV", "empty file", _deck_case(b"")),
    ("deck CSV", "UTF-16", _deck_case(lambda r: r.decode().encode("utf-16"))),
    ("deck CSV", "unterminated quote", _deck_case(lambda r: _with_name(r, b'"Probe Left'))),
    ("scenario TOML", "binary content", _scenario(lambda r: bytes(range(256)))),
    ("scenario TOML", "NUL in the side name (trace)",
     _scenario(lambda r: r.replace(b'name = "Blue"', b'name = "Bl\\u0000ue"'), "trace")),
    ("scenario TOML", "hand = 2**70",
     _scenario(lambda r: r.replace(b"hand = 6", b"hand = 1180591620717411303424", 1))),
    ("scenario TOML", "deck = '../decks/gmt90'",
     _scenario(lambda r: r.replace(b'deck = "gmt90"', b'deck = "../../../../etc/passwd"'))),
    ("scenario TOML", "deck = a name with ../",
     _scenario(lambda r: r.replace(b'deck = "gmt90"', b'deck = "..\\\\..\\\\gmt90"'))),
    ("scenario TOML", "[policy.A] lookahead_k = 10**9",
     _scenario(lambda r: r + b'\n[policy.A]\nname = "lookahead"\nlookahead_k = 1000000000\n')),
    ("scenario TOML", "[policy.A] march_prob = nan",
     _scenario(lambda r: r + b"\n[policy.A]\nmarch_prob = nan\n")),
    ("scenario TOML", "[policy.A] march_prob = \"0.5\" (a number as text)",
     _scenario(lambda r: r + b'\n[policy.A]\nmarch_prob = "0.5"\n')),
    ("scenario TOML", "[policy.A] name = \"../greedy\"",
     _scenario(lambda r: r + b'\n[policy.A]\nname = "../greedy"\n', "trace")),
    ("study TOML", "a sweep of 1.5 billion points", _study(_HUGE_SWEEP)),
    ("study TOML", "odds: filter kind=dragon", _study(_ODDS_STUDY.format(filter="kind=dragon", k=1))),
    ("study TOML", "odds: filter kind==section", _study(_ODDS_STUDY.format(filter="kind==section", k=1))),
    ("study TOML", "odds: filter matches no card in any deck",
     _study(_ODDS_STUDY.format(filter="category=nothing", k=1))),
    ("study TOML", "odds: k = 0", _study(_ODDS_STUDY.format(filter="kind=multi", k=0))),
    ("study TOML", "odds: k = 7 (hand 6)", _study(_ODDS_STUDY.format(filter="kind=multi", k=7))),
    ("study TOML", "games = 10**12", _study('[study]\nname = "g"\nscenario = "symmetric"\ngames = '
                                            '1_000_000_000_000\n')),
    ("study TOML", "games = 10**11 in chunks of 1 (10**11 chunk files)",
     _study('[study]\nname = "g"\nscenario = "symmetric"\ngames = 100_000_000_000\nchunk = 1\n')),
    ("study TOML", "scenario is a garbage .toml file",
     lambda w: _study(f'[study]\nname = "g"\nscenario = "{_file(w, "bad.toml", "[[[")}"\ngames = 2\n')(w)),
    ("study.json (report)", "[]", _report("[]")),
    ("study.json (report)", "{}", _report("{}")),
    ("study.json (report)", "garbage", _report(b"\x00\xffgarbage{")),
    ("study.json (report)", "a point id with ../",
     _report(json.dumps({"spec": {}, "points": [{"id": "../../x"}]}))),
]


def _run_into_garbage(work: Path) -> list[str]:
    (work / OUT).mkdir()
    _file(work / OUT, "study.json", "{not json")
    argv = _study('[study]\nname = "g"\nscenario = "symmetric"\ngames = 2\n')(work)
    (work / OUT / "study.json").write_text("{not json")
    return argv


# the flags of issue 18: deck ensembles and the balance's target error
_BALANCE = ("balance", "--scenario", "tamames", "--vary", "sides.S.hand=3..9", "--equalize", "F,S", "--games",
            "20")
_SMALL_STUDY = '[study]\nname = "g"\nscenario = "symmetric"\ngames = 2\n'
CATALOGUE += [
    ("CLI balance", "--deck-ensemble 0", _args(*_BALANCE, "--deck-ensemble", "0")),
    ("CLI balance", "--deck-ensemble 10**6", _args(*_BALANCE, "--deck-ensemble", str(10**6))),
    ("CLI balance", "--target-error 0", _args(*_BALANCE, "--target-error", "0")),
    ("CLI balance", "--target-error nan", _args(*_BALANCE, "--target-error", "nan")),
    ("CLI compare", "--deck-ensemble 0", _args("compare", "--scenario", "tamames", "--games", "20",
                                               "--deck-ensemble", "0")),
    ("CLI run", "--deck-ensemble 0",
     lambda w: [*_study(_SMALL_STUDY)(w), "--deck-ensemble", "0"]),
    ("study TOML", "deck_ensemble = 0", _study(_SMALL_STUDY + "deck_ensemble = 0\n")),
    ("study TOML", "deck_ensemble = 'many'", _study(_SMALL_STUDY + 'deck_ensemble = "many"\n')),
]


# `run` into a folder whose study.json is garbage: the folder exists before, so "nothing written"
# means it still holds only that file (checked by `folder_unchanged`)
CATALOGUE.append(("study.json (run --out)", "garbage study.json in --out", _run_into_garbage))


def folder_unchanged(work: Path) -> bool:
    """`work/out` as `_run_into_garbage` left it (the only case whose --out exists before)."""
    out = work / OUT
    return not out.exists() or sorted(p.name for p in out.iterdir()) == ["study.json"]
