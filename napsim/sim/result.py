"""The result of a run (`Simulation.run`): its games added up, optional per-game rows, and their
tidy frames. The summary rows themselves are defined once, in `napsim.sim.summary`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from napsim.engine import layout
from napsim.engine.layout import CM_NAMES, COMMANDER_KEYS, COMMANDER_ROLES
from napsim.sim.summary import commander_roles, with_words
from napsim.sim.sums import GameSums
from napsim.sim.tables import KIND_NAMES


@dataclass
class SimResult:
    """A run's games added up (`napsim.sim.sums.GameSums`), with their per-game rows when kept."""

    sim: object  # the napsim.sim.packing.Simulation that played the games
    seed: int
    game_sums: GameSums
    wall_seconds: float

    @property
    def games(self) -> int:
        return self.game_sums.games

    @property
    def totals(self) -> np.ndarray:
        """[side, metric] summed over the games."""
        return self.game_sums.totals

    @property
    def per_game(self) -> np.ndarray | None:
        """[game, side, metric] when the run kept them (per_game=True)."""
        return self.game_sums.rows

    @property
    def rack_wait(self) -> np.ndarray:
        """[kind, turns waited]: cards taken from the rack."""
        return self.game_sums.rack_wait

    @property
    def guerrilla_turns(self) -> np.ndarray:
        """[offered, spent, nullified] x turn of a side."""
        return self.game_sums.guerrilla_turns

    @property
    def commanders(self) -> np.ndarray:
        """[side, commander, CM] per-commander totals (docs/rules.md M, L)."""
        return self.game_sums.commander_totals

    @property
    def commander_rows(self) -> np.ndarray | None:
        """[game, side, commander, CM], kept with the per-game rows by formats of 2-4 a side."""
        return self.game_sums.commander_rows

    @property
    def tactician_turns(self) -> np.ndarray:
        """[side, turn] Tactician cards held at the start of the side's turns, summed over games."""
        return self.game_sums.tactician_turns

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
        (`napsim.sim.summary.with_words`): the summary a study gives for the same games."""
        sides = self.sim.scenario.sides
        df = self.game_sums.summary([s.key for s in sides], [s.name for s in sides])
        if "side_key" not in df.columns:
            return with_words(df, commander_roles(self.sim.scenario.format))
        # each side's commanders by their own sections (a side's CIC may hold another section)
        parts = [with_words(df[df["side_key"] == s.key], self.roles(k)) for k, s in enumerate(sides)]
        return pd.concat(parts).loc[df.index]

    def roles(self, side: int) -> dict[str, str]:
        """The commanders of one side by key ('c1' -> 'sub-commander of the left section')."""
        sc = self.sim.scenario
        return commander_roles(sc.format, sc.sides[side].cic_section)

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
            named = self.roles(s)
            for c, role in enumerate(roles):
                key = COMMANDER_KEYS[c]
                row = dict(side=side.name, commander=key, role=named.get(key, role), games=self.games)
                row.update({n: int(self.commanders[s, c, i]) for i, n in enumerate(CM_NAMES)})
                rows.append(row)
        df = pd.DataFrame(rows)
        # a count no commander of this run ever had (the format has no such event) says nothing
        silent = [n for n in CM_NAMES if not df[n].any()]
        return df.drop(columns=silent)

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

