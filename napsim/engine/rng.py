"""Counter-based per-game random streams: game g of seed s draws from its own stream.

Game g of a run with seed s owns the key K = mix(mix(s) ^ g*PHI). Its k-th 64-bit draw is
mix(K ^ k*GAMMA): a pure function of (seed, game, k), so a game's dice and shuffles do not depend
on which thread, chunk or worker plays it. `mix` is the splitmix64 finaliser (a bijection); unlike
a plain splitmix sequence, two games' streams have no lattice along which they can overlap.

A stream lives in a 2-slot uint64 array `rs` = [key, counter] owned by one thread.
Bounded integers use Lemire's multiply-shift with rejection (no modulo bias).
"""

import numpy as np

from napsim.engine.jit import inlined, inlined_py

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_PHI = np.uint64(0x9E3779B97F4A7C15)
_GAMMA = np.uint64(0xD1B54A32D192ED03)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_S11 = np.uint64(11)
_LOW32 = np.uint64(0xFFFFFFFF)
_ONE = np.uint64(1)
_TWO32 = np.uint64(1 << 32)
_INV53 = 1.0 / 9007199254740992.0


@inlined
def mix64(z):
    """splitmix64's output function: a fast bijective avalanche on 64 bits."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


def seed_key(seed: int) -> np.uint64:
    """The run-level key derived from a user seed (0 <= seed < 2**63), as a numpy uint64.

    Kernels must receive it as np.uint64: a plain Python int below 2**63 would be typed int64 by
    numba and turn the mixing arithmetic into floats.
    """
    if not 0 <= int(seed) < 2**63:
        raise ValueError(f"seed {seed} is outside 0..2**63-1")
    with np.errstate(over="ignore"):
        return np.uint64(_mix64_py(np.uint64(int(seed)) + _PHI))


def _mix64_py(z: np.uint64) -> np.uint64:
    with np.errstate(over="ignore"):
        z = (z ^ (z >> _S30)) * _M1
        z = (z ^ (z >> _S27)) * _M2
        return z ^ (z >> _S31)


@inlined
def game_key(run_key, game):
    """The key of global game index `game`: its whole stream follows from it."""
    return mix64(run_key ^ (np.uint64(game) * _PHI))


@inlined
def draw_u64(key, counter):
    """Draw number `counter` of the stream with key `key` (for kernels that keep scalar state)."""
    return mix64(key ^ (np.uint64(counter) * _GAMMA))


@inlined
def lemire_threshold(n):
    """Products whose low 32 bits fall below this are rejected by Lemire's method for [0, n)."""
    nn = np.uint64(n)
    return (_TWO32 - nn) % nn


@inlined
def lemire32(x32, n):
    """(candidate in [0, n), low word) from a 32-bit draw; reject when low < lemire_threshold(n)."""
    m = x32 * np.uint64(n)
    return np.int64(m >> _S32), m & _LOW32


@inlined_py
def start_game(rs, run_key, game):
    """Point the stream `rs` at the first draw of global game index `game`."""
    rs[0] = game_key(run_key, game)
    rs[1] = np.uint64(0)


@inlined
def next_u64(rs):
    """The next 64-bit draw of the stream."""
    c = rs[1]
    rs[1] = c + _ONE
    return draw_u64(rs[0], c)


@inlined
def bounded(rs, n):
    """Uniform integer in [0, n) for 1 <= n < 2**32 (Lemire's method with rejection)."""
    nn = np.uint64(n)
    m = (next_u64(rs) >> _S32) * nn
    low = m & _LOW32
    if low < nn:
        t = (_TWO32 - nn) % nn
        while low < t:
            m = (next_u64(rs) >> _S32) * nn
            low = m & _LOW32
    return np.int64(m >> _S32)


@inlined
def uniform(rs):
    """Uniform float in [0, 1) with 53 random bits."""
    return np.float64(next_u64(rs) >> _S11) * _INV53


@inlined
def uniform_when(rs, cond):
    """uniform(rs) when cond, else a number without a draw (the stream does not move), without a
    branch: `cond and uniform(rs) < p` as `cond & (uniform_when(rs, cond) < p)` draws as it does."""
    c = rs[1]
    rs[1] = c + np.uint64(cond)
    return np.float64(draw_u64(rs[0], c) >> _S11) * _INV53


@inlined_py
def battle_die(rs):
    """One battle die (RULES D5): 0,1 infantry, 2 cavalry, 3 artillery, 4 flag, 5 sabre."""
    return bounded(rs, np.int64(6))
