"""numba kernels only: they read packed integer/float tables and write metric arrays.

Modules, each importing only those above it (and numpy, numba):
  layout       the name of every slot of every packed array (M_*, CM_*, C_*, G_*, R_*, P_*, ...)
               and of the chunk kernels' arguments (EpicArgs, LgbArgs) and outputs (CHUNK_OUTPUTS)
  kernel_cache where numba caches the kernels: one folder per version of the kernel sources,
               chosen when jit is imported, before any kernel is defined (use_cache_folder)
  linked       the linked-only compile path of wrapper-less helpers (a compile shortcut)
  jit          how the kernels' helpers are compiled (inlined by LLVM: napsim.engine.jit.inlined)
               and the switch of the compile shortcuts (COMPILE_SHORTCUTS)
  rng          the counter-based per-game random streams
  blocks       kernel calls on Python threads: a chunk's fixed blocks of games (GIL-free block
               kernels) and the next chunk one ahead (one_ahead)
  odds         the deck-odds kernels (block kernels on Python threads, like the games)
  cardflow     the card flow EPIC and LGB share: trace, draws, Elan, rack refill, one Guerrilla
               attempt
  choice       the EPIC / standard P1 choice of hand card, rack card and placement
  commanders   the initiative roll (EPIC and LGB) and EPIC's commander layer (M)
  epic_phases  the phases of an EPIC / standard turn: deal, choose, take, orders, stars, draw
  epic_guerrilla the Guerrilla phase of an EPIC turn: target, attempt, counter gain, checks
  epic         the EPIC / standard kernel: _ply (a turn), play_blocks (the games), play_chunk,
               trace_game
  lgb_corps    the Corps commanders' choices (best own card, a card's option), plays, orders
               and reach
  lgb_gifts    the CIC's gifts in LGB: integer-record and float greedy searches, random gifts
  lgb_phases   the phases of an LGB turn around the Corps commanders' plays
  lgb_guerrilla the Spanish Guerrillas in LGB (G4-G6): the counter spent, the Scout that gains one
  lgb          the LGB kernel: play_blocks_lgb (the games: the turn loop, compiled once),
               play_chunk_lgb, trace_game_lgb
  kernel_pick  which chunk kernel plays a scenario (pick_kernel), and an EPIC kernel's lean copy
"""
