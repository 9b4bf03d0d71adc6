"""Regenerate the flagship studies: `napsim regen` or `python -m napsim.regen` from the repository root.

Each ``studies/<name>.toml`` runs into ``out/studies/<name>`` (chunk files: resumable, not
committed) and its report (summaries, charts, report.md, report.html, manifest.json; neither chunks
nor the raw histogram CSVs) is written to ``results/<name>/``, committed as an example of what a
study produces.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from napsim.model.errors import NapsimInputError


def study_files(studies_dir: str | Path, names: Sequence[str] = ()) -> list[Path]:
    """The study files to regenerate: all of `studies_dir`, or the ones named."""
    folder = Path(studies_dir)
    files = sorted(folder.glob("*.toml"))
    if not files:
        raise NapsimInputError(str(folder), None, "no study files (*.toml) here",
                               "run from the repository root, or pass --studies")
    if names:
        known = {f.stem: f for f in files}
        for n in names:
            if n not in known:
                raise NapsimInputError(str(folder), "name", f"no study named {n!r}", ", ".join(known))
        files = [known[n] for n in names]
    return files


def regenerate(names: Sequence[str] = (), studies_dir: str | Path = "studies",
               results_dir: str | Path = "results", work_dir: str | Path = "out/studies",
               force: bool = False) -> Iterator[str]:
    """Run every study (resuming) and write its report into results/<name>; yields progress lines."""
    from napsim.output import report
    from napsim.study import readings
    from napsim.study import spec as study

    for f in study_files(studies_dir, names):
        if readings.is_readings_file(f):  # rule readings: paired runs, no chunk files to resume
            t0 = time.perf_counter()
            spec = readings.load_readings_spec(f)
            dest = readings.write_readings(spec, Path(results_dir) / spec.name, force=True)
            yield f"{f}: {len(spec.cases)} case(s) in {time.perf_counter() - t0:.1f} s -> {dest}"
            continue
        st = study.load_study(f)
        t0 = time.perf_counter()
        work = Path(work_dir) / st.name
        study.execute(st, work, force=force)
        dest = report.write_report(work, Path(results_dir) / st.name, raw_tables=False)
        yield f"{f}: {len(st.points)} point(s) in {time.perf_counter() - t0:.1f} s -> {dest}"


def main(argv: Sequence[str] | None = None) -> None:
    """`python -m napsim.regen [NAMES...]`: the same as `napsim regen`."""
    from napsim.cli import main as cli_main

    sys.argv = ["napsim", "regen", *(sys.argv[1:] if argv is None else argv)]
    cli_main()


if __name__ == "__main__":
    main()
