"""Chunk files of a run folder, read back for comparisons."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def chunk_files(out: Path) -> list[Path]:
    return sorted((out / "points").glob("*/chunk-*.npz"))


def chunk_arrays(path: Path) -> dict:
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def assert_same_chunks(a: Path, b: Path) -> None:
    """Two run folders hold the same chunk files with the same arrays."""
    fa, fb = chunk_files(a), chunk_files(b)
    assert [f.relative_to(a) for f in fa] == [f.relative_to(b) for f in fb]
    for x, y in zip(fa, fb, strict=True):
        ax, ay = chunk_arrays(x), chunk_arrays(y)
        assert ax.keys() == ay.keys()
        for k in ax:
            assert np.array_equal(ax[k], ay[k]), f"{x.relative_to(a)}: {k} differs"
