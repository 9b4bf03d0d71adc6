"""The arguments and outputs of the two chunk kernels, named.

A chunk kernel is called as KERNEL(run_key, first_game, n, *args, check, per_game), where args is
an EpicArgs (napsim.engine.epic.play_chunk) or an LgbArgs (napsim.engine.lgb.play_chunk_lgb): the
fields below are the kernel's parameters between n and check, in signature order. Both kernels
return the eight arrays of CHUNK_OUTPUTS, in that order (tests/test_engine_layout.py checks the
signatures against these tuples).
"""

from typing import NamedTuple

import numpy as np

# what play_chunk and play_chunk_lgb return, in this order
CHUNK_OUTPUTS = (
    "totals",            # [side, metric]: metrics summed over the chunk
    "rows",              # [games or 0, side, metric]: per game when per_game
    "rack_wait",         # [kind, wait]: turns a rack card waited before it was played
    "guerrilla_turns",   # [offered/spent/nullified, turn]
    "commander_totals",  # [side, commander, CM]
    "commander_rows",    # [games or 0, side, commander, CM] (EPIC: none with one player a side)
    "tactician_turns",   # [side, turn]: Tactician cards held at the start of the side's turns
    "moments",           # [MO_*, side, column]: sums, squares, products with the turns per game
)


class EpicArgs(NamedTuple):
    """play_chunk's arguments between n and check (EPIC 1-4 a side and the standard game)."""

    standard: bool             # the standard one-card game (no Courier Rack)
    turns: np.int64            # turns a side (V1)
    first: np.int64            # the side that plays first
    hand0: np.ndarray          # [side] starting hand
    tac0: np.ndarray           # [side] starting Tactician cards (one player a side)
    sq_form: np.ndarray        # [side] chance a turn of forming a square (E11)
    sq_leave: np.ndarray       # [side] chance a turn of a square leaving
    pol: np.ndarray            # [side, P_*] policy parameters (napsim.model.policies)
    ctab: np.ndarray           # [card type, C_*] card table
    deck: np.ndarray           # [card] the card type of every card
    counts: np.ndarray         # [card type] cards of each type (the D6 check)
    best_val: np.ndarray       # [side, cmd, b, a]: PairTables.best_val transposed (sim.packing.solo_major)
    ca_src_t: np.ndarray       # [side, cmd, last hand card, last rack card]: what a Counter-Attack
    #                            copies (sim.packing.ca_sources)
    # best_val and the fields below: napsim.sim.tables.PairTables, the pair tables
    best_k: np.ndarray
    best_list: np.ndarray
    nom_t: np.ndarray
    eff_t: np.ndarray
    rem_t: np.ndarray
    n_place: np.ndarray
    place_list: np.ndarray
    e4_only: np.ndarray
    play_val: np.ndarray
    play_key: np.ndarray
    rec_t: np.ndarray          # [side, cmd, a, b, REC_*] pair records
    gcfg: np.ndarray           # [side, G_*] Guerrilla configuration
    fmt: np.int64              # players a side (1 for EPIC one a side and the standard game)
    cmd_sec: np.ndarray        # [side, section] the section's commander
    tac_start: np.ndarray      # [side, commander] starting Tactician cards
    units: np.ndarray          # [side, type, section]
    ropt: np.ndarray           # [R_*] rule options


class LgbArgs(NamedTuple):
    """play_chunk_lgb's arguments between n and check (La Grande Battles)."""

    turns: np.int64            # turns a side (V1)
    first: np.int64            # the side that plays first
    scfg: np.ndarray           # [side, S_*] side configuration
    sqp: np.ndarray            # [side, (form, leave)] square chances (L8)
    pol: np.ndarray            # [side, P_*] policy parameters (napsim.model.policies)
    ctab: np.ndarray           # [card type, C_*] card table
    deck: np.ndarray           # [card] the card type of every card
    counts: np.ndarray         # [card type] cards of each type (the D6 check)
    nom_t: np.ndarray          # napsim.sim.tables_lgb.LgbTables
    eff_t: np.ndarray
    rem_t: np.ndarray
    val_t: np.ndarray
    best_t: np.ndarray
    bopt_t: np.ndarray
    units: np.ndarray          # [side, type, section] on six sections
    g_pool0: np.int64          # the unacquired Guerrilla counters at the start
    ropt: np.ndarray           # [R_*] rule options
