"""The result of a run (`Simulation.run`): summed metrics, optional per-game rows, and their
tidy frames. The summary rows themselves are defined once, in `napsim.sim.summary`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from napsim.engine import layout
from napsim.engine.layout import CM_NAMES, COMMANDER_KEYS, COMMANDER_ROLES
from napsim.sim.summary import summary_frame
from napsim.sim.tables import KIND_NAMES


@dataclass
class SimResult:
    """Metrics of a run: totals [side, metric], optional per-game rows, rack waits [kind, turns]."""

    sim: object  # the napsim.sim.packing.Simulation that played the games
    games: int
    seed: int
    totals: np.ndarray
    per_game: np.ndarray | None
    rack_wait: np.ndarray
    wall_seconds: float
    guerrilla_turns: np.ndarray | None = None  # [offered, spent, nullified] x turn of a side
    commanders: np.ndarray | None = None       # [side, commander, CM] per-commander totals (M, L)
    commander_rows: np.ndarray | None = None   # [game, side, commander, CM] when per_game
    tactician_turns: np.ndarray | None = None  # [side, turn] Tactician cards held, summed over games

    def metric(self, name: str) -> np.ndarray:
        """Total of one metric per side."""
        return self.totals[:, layout.METRIC_NAMES.index(name)]

    def per_game_frame(self) -> pd.DataFrame:
        """Tidy per-game frame: one row per game and side."""
        if self.per_game is None:
            raise ValueError("run with per_game=True to keep per-game rows")
        n = self.per_game.shape[0]
        frames = []
        for s, side in enumerate(self.sim.scenario.sides):
            df = pd.DataFrame(self.per_game[:, s, :], columns=list(layout.METRIC_NAMES))
            df.insert(0, "side", side.name)
            df.insert(0, "game", np.arange(n))
            frames.append(df)
        return pd.concat(frames, ignore_index=True)
    def summary(self) -> pd.DataFrame:
        """Per side: means per game and per turn, and rates with Wilson intervals and n
        (`napsim.sim.summary.summary_frame`)."""
        return summary_frame(self.totals, self.games, [s.name for s in self.sim.scenario.sides],
                             self.commanders)

    def commander_games_frame(self) -> pd.DataFrame:
        """Tidy per-game commander frame: one row per game, side and commander of the format."""
        if self.commander_rows is None:
            raise ValueError("run with per_game=True to keep per-game rows")
        n = self.commander_rows.shape[0]
        roles = COMMANDER_ROLES.get(self.sim.scenario.format, ("CIC",))
        frames = []
        for s, side in enumerate(self.sim.scenario.sides):
            for c in range(len(roles)):
                df = pd.DataFrame(self.commander_rows[:, s, c, :], columns=list(CM_NAMES))
                df.insert(0, "commander", COMMANDER_KEYS[c])
                df.insert(0, "side", side.name)
                df.insert(0, "game", np.arange(n))
                frames.append(df)
        return pd.concat(frames, ignore_index=True)

    def commander_frame(self) -> pd.DataFrame:
        """Per-commander totals (docs/rules.md, M, L): one row per side and commander, a column per
        metric, with the commander's role in this format."""
        if self.commanders is None:
            raise ValueError("no per-commander metrics in this result")
        roles = COMMANDER_ROLES.get(self.sim.scenario.format, ("CIC",))
        rows = []
        for s, side in enumerate(self.sim.scenario.sides):
            for c, role in enumerate(roles):
                row = dict(side=side.name, commander=COMMANDER_KEYS[c], role=role, games=self.games)
                row.update({n: int(self.commanders[s, c, i]) for i, n in enumerate(CM_NAMES)})
                rows.append(row)
        return pd.DataFrame(rows)

    def rack_wait_frame(self) -> pd.DataFrame:
        """Histogram of turns a card waited on the rack before it was taken, by card kind."""
        rows = []
        for k, kind in enumerate(KIND_NAMES):
            for w in range(self.rack_wait.shape[1]):
                if self.rack_wait[k, w]:
                    rows.append(dict(kind=kind, wait_turns=w, cards=int(self.rack_wait[k, w])))
        return pd.DataFrame(rows, columns=["kind", "wait_turns", "cards"])
