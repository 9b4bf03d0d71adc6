"""A game's random stream (napsim.engine.rng) for the pure-Python reference engines: the same
draws, in the same order, as the kernel's, so that a reference game replays the kernel's game of
(seed, game index) draw for draw.

The stream's key comes from napsim.engine.rng itself (`seed_key`, and `start_game`, which Python
may call); the draws are the module's arithmetic written again in Python integers: the kernel's
`next_u64`, `bounded` and `uniform` are compiled without an entry point for Python.
tests/test_reference_exact.py checks them against the kernel's own draws (`battle_die`, the
lazy card draw `_draw_card`).
"""

from __future__ import annotations

import numpy as np

from napsim.engine.rng import seed_key, start_game

_MASK = (1 << 64) - 1
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB
_GAMMA = 0xD1B54A32D192ED03


def mix64(z: int) -> int:
    """splitmix64's finaliser (napsim.engine.rng.mix64) on Python integers."""
    z = ((z ^ (z >> 30)) * _M1) & _MASK
    z = ((z ^ (z >> 27)) * _M2) & _MASK
    return z ^ (z >> 31)


class Stream:
    """The stream of one game: `u64`, `bounded`, `uniform` and `die` draw as the kernel's
    next_u64, bounded, uniform and battle_die do; `drawn` counts the 64-bit draws taken."""

    def __init__(self, seed: int, game: int):
        rs = np.zeros(2, np.uint64)
        start_game(rs, seed_key(seed), np.int64(game))
        self.key = int(rs[0])
        self.drawn = 0

    def u64(self) -> int:
        z = mix64(self.key ^ ((self.drawn * _GAMMA) & _MASK))
        self.drawn += 1
        return z

    def bounded(self, n: int) -> int:
        """Uniform in [0, n), 1 <= n < 2**32: Lemire's multiply-shift with rejection."""
        m = (self.u64() >> 32) * n
        low = m & 0xFFFFFFFF
        if low < n:
            t = ((1 << 32) - n) % n
            while low < t:
                m = (self.u64() >> 32) * n
                low = m & 0xFFFFFFFF
        return m >> 32

    def uniform(self) -> float:
        """Uniform in [0, 1) with 53 random bits."""
        return float(self.u64() >> 11) * (1.0 / 9007199254740992.0)

    def die(self) -> int:
        """One battle die (rule D5): 0, 1 infantry, 2 cavalry, 3 artillery, 4 flag, 5 sabre."""
        return self.bounded(6)
