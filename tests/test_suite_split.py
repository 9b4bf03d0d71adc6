"""The default run (`python -m pytest -q`: pyproject's addopts leave out the tests marked slow) still
checks what matters (issue 27, section 5): every rule ID is cited by a test it runs, and it runs the
golden digests, the bad inputs of every file kind and a test of every command; `pytest -m slow` is
where the long runs go. Read from the test functions and their marks, without running them."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
from pathlib import Path

import click
import pytest
from support.rulesdoc import load_rules_doc

from napsim.cli import cli
from napsim.model import rulebook

ROOT = Path(__file__).resolve().parents[1]


def _marks(obj) -> list:
    marks = getattr(obj, "pytestmark", [])
    return list(marks) if isinstance(marks, list | tuple) else [marks]


def _is_slow(marks) -> bool:
    return any(getattr(m, "name", getattr(getattr(m, "mark", None), "name", None)) == "slow" for m in marks)


def runs_by_default(node: str) -> bool:
    """Whether the default run plays test `tests/file.py::function` (some case of it, when it is
    parametrised): no slow mark on it or its module, and every parametrize has a case without one."""
    path, func = node.split("::")
    mod = importlib.import_module(Path(path).stem)
    f = getattr(mod, func)
    if _is_slow(_marks(mod)) or _is_slow(_marks(f)):
        return False
    for m in _marks(f):
        if m.name == "parametrize":
            values = m.args[1] if len(m.args) > 1 else m.kwargs["argvalues"]
            if all(_is_slow(getattr(v, "marks", ())) for v in values):
                return False
    return True


def _default_tests() -> dict[str, str]:
    """{node: source} of every test function the default run plays."""
    out = {}
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        mod = importlib.import_module(path.stem)
        for name, f in vars(mod).items():
            if name.startswith("test_") and inspect.isfunction(f):
                node = f"tests/{path.name}::{name}"
                if runs_by_default(node):
                    out[node] = inspect.getsource(f)
    return out


@pytest.fixture(scope="module")
def default_tests() -> dict[str, str]:
    return _default_tests()


def test_every_rule_id_is_cited_by_a_test_of_the_default_run(default_tests):
    tests = load_rules_doc().scan_tests(ROOT).tests_by_rule(rulebook.rule_ids())
    missing = {rid: t for rid, t in tests.items() if t and not set(t) & set(default_tests)}
    assert not missing, f"rules whose every test is marked slow: {missing}"


def test_the_default_run_checks_digests_bad_inputs_and_every_command(default_tests):
    names = set(default_tests)
    assert {n for n in names if n.startswith("tests/test_golden.py::")} >= {
        "tests/test_golden.py::test_golden_digest_unchanged"}
    # the named catalogue (deck, scenario, study files, study.json, command lines) and the generated
    # cases of every file kind, at the quick size
    assert {"tests/test_hostile_inputs.py::test_catalogue_refused_cleanly",
            "tests/test_hostile_inputs.py::test_generated_inputs_refused",
            "tests/test_hostile_inputs.py::test_generated_study_json_never_crashes_report"} <= names
    source = "\n".join(default_tests.values())
    commands = []

    def walk(group: click.Group, words: list[str]) -> None:
        for name, c in group.commands.items():
            if isinstance(c, click.Group):
                walk(c, [*words, name])
            else:
                commands.append([*words, name])

    walk(cli, [])
    untested = [" ".join(w) for w in commands if '"' + '", "'.join(w) + '"' not in source]
    assert not untested, f"commands no test of the default run calls: {untested}"


def test_slow_selects_the_long_runs():
    for node in ("tests/test_scale.py::test_dask_local_cluster_equals_the_local_run",
                 "tests/test_study.py::test_resume_after_kill_gives_identical_results",
                 "tests/test_report.py::test_html_report_renders_in_headless_chromium"):
        assert not runs_by_default(node), node
    # the exact oracle: a few games a case by default, more under slow
    assert runs_by_default("tests/test_reference_exact.py::test_reference_replays_the_kernel_event_for_event")
