"""Per-game rows streamed to Parquet as they are played (`napsim simulate`): games.parquet, and
commander_games.parquet for 2-4 players a side. One row group per chunk of games, so memory stays
flat whatever the number of games; rows come game by game (sides, then commanders, in order), the
same frame `SimResult.per_game_frame` and `commander_games_frame` give for a run kept in memory."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa

from napsim.engine.layout import COMMANDER_ROLES
from napsim.sim.result import commander_rows_frame, game_rows_frame
from napsim.sim.runner import ONE_A_SIDE, ChunkOut

if TYPE_CHECKING:
    import pyarrow.parquet as pq

GAMES_FILE = "games.parquet"
COMMANDER_GAMES_FILE = "commander_games.parquet"


class GameRowsWriter:
    """Writes the per-game rows of each chunk into `folder` as it arrives (a `Simulation.run` sink).
    Chunks must come in game order; `close()` finishes the files."""

    def __init__(self, folder: Path, sim):
        self.folder = Path(folder)
        self.sides = [s.name for s in sim.scenario.sides]
        fmt = sim.scenario.format
        self.commanders = 0 if fmt in ONE_A_SIDE else len(COMMANDER_ROLES.get(fmt, ("CIC",)))
        self._games: pq.ParquetWriter | None = None
        self._cmd: pq.ParquetWriter | None = None

    def __call__(self, first: int, out: ChunkOut) -> None:
        import pyarrow.parquet as pq  # lazy: 0.4 s to import, and only a run that keeps games needs it

        games = pa.Table.from_pandas(game_rows_frame(out.rows, first, self.sides), preserve_index=False)
        if self._games is None:
            self._games = pq.ParquetWriter(self.folder / GAMES_FILE, games.schema)
        self._games.write_table(games)
        if self.commanders:
            cmd = pa.Table.from_pandas(commander_rows_frame(out.commander_rows, first, self.sides,
                                                            self.commanders), preserve_index=False)
            if self._cmd is None:
                self._cmd = pq.ParquetWriter(self.folder / COMMANDER_GAMES_FILE, cmd.schema)
            self._cmd.write_table(cmd)

    def close(self) -> None:
        for w in (self._games, self._cmd):
            if w is not None:
                w.close()
        self._games = self._cmd = None
