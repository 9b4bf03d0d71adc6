"""The result of a run (`Simulation.run`): summed metrics, optional per-game rows, and their
tidy frames. The summary rows themselves are defined once, in `napsim.sim.summary`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from napsim.engine import layout
from napsim.engine.layout import CM_NAMES, COMMANDER_KEYS, COMMANDER_ROLES
from napsim.sim.summary import commander_roles, study_summary, summary_frame, with_words
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
    sums: np.ndarray | None = None    # [side, per-game column]: sums, squares and products with
    sumsq: np.ndarray | None = None   # the turns of the per-game values (`row_moments`), for the
    sumxt: np.ndarray | None = None   # intervals of the means

    def metric(self, name: str) -> np.ndarray:
        """Total of one metric per side."""
        return self.totals[:, layout.METRIC_NAMES.index(name)]

    def per_game_frame(self) -> pd.DataFrame:
        """Tidy per-game frame: one row per game and side, in game order (`game_rows_frame`)."""
        if self.per_game is None:
            raise ValueError("run with per_game=True to keep per-game rows")
        return game_rows_frame(self.per_game, 0, [s.name for s in self.sim.scenario.sides])

    def summary(self) -> pd.DataFrame:
        """Per side: means per game and per turn with normal 95% intervals from the per-game
        moments, rates with Wilson intervals, and n, each metric with its title and unit in words
        (`napsim.sim.summary.with_words`): the summary a study gives for the same games
        (`napsim.sim.summary.study_summary`, the one place sums become means and intervals)."""
        sides = self.sim.scenario.sides
        roles = commander_roles(self.sim.scenario.format)
        if self.sums is None:  # a result built by hand without the moments: no mean intervals
            return with_words(summary_frame(self.totals, self.games, [s.name for s in sides],
                                            self.commanders), roles)
        return with_words(study_summary(self.games, self.totals, self.sums, self.sumsq, self.sumxt,
                                        self.commanders, [s.key for s in sides], [s.name for s in sides]),
                          roles)

    def commander_games_frame(self) -> pd.DataFrame:
        """Tidy per-game commander frame: one row per game, side and commander of the format."""
        if self.commander_rows is None:
            raise ValueError("run a format of 2-4 players a side with per_game=True to keep them")
        roles = COMMANDER_ROLES.get(self.sim.scenario.format, ("CIC",))
        return commander_rows_frame(self.commander_rows, 0, [s.name for s in self.sim.scenario.sides],
                                    len(roles))

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


def game_rows_frame(rows: np.ndarray, first: int, sides: list[str]) -> pd.DataFrame:
    """Per-game rows [game, side, metric] of games first, first + 1, ... as a tidy frame: one row per
    game and side (game by game, the sides in scenario order), a column per metric."""
    n = rows.shape[0]
    df = pd.DataFrame(rows.reshape(n * 2, rows.shape[2]), columns=list(layout.METRIC_NAMES))
    df.insert(0, "side", np.tile(np.array(sides, dtype=object), n))
    df.insert(0, "game", np.repeat(np.arange(first, first + n, dtype=np.int64), 2))
    return df


def commander_rows_frame(crows: np.ndarray, first: int, sides: list[str], commanders: int) -> pd.DataFrame:
    """Commander rows [game, side, commander, CM] as a tidy frame: one row per game, side and
    commander of the format (the first `commanders` of CIC, c1, c2, c3), in that order."""
    n = crows.shape[0]
    block = crows[:, :, :commanders, :].reshape(n * 2 * commanders, crows.shape[3])
    df = pd.DataFrame(block, columns=list(CM_NAMES))
    df.insert(0, "commander", np.tile(np.array(COMMANDER_KEYS[:commanders], dtype=object), 2 * n))
    df.insert(0, "side", np.tile(np.repeat(np.array(sides, dtype=object), commanders), n))
    df.insert(0, "game", np.repeat(np.arange(first, first + n, dtype=np.int64), 2 * commanders))
    return df

