"""napsim's version (`__version__`, recorded in every manifest and study.json; pyproject.toml says
the same), and the values napsim uses when a user leaves them out: the seed, and the chunk sizes.

The three chunk sizes are different things and keep different values:

- `SIM_CHUNK`: games per kernel call of `napsim simulate` (and `Simulation.run`); the results
  do not depend on it.
- `STUDY_CHUNK`: games per chunk file of a study whose file gives no `chunk`. It is part of the
  study's identity: chunk files, the target-error stopping point and resume follow it.
- `ODDS_CHUNK`: simulated hands per kernel call of the odds commands; the results do not depend
  on it.
"""

__version__ = "0.1.0"

SEED = 20261130
SIM_CHUNK = 20_000
STUDY_CHUNK = 10_000
ODDS_CHUNK = 2_000_000

# The most games (or simulated hands) one command or one study point may play: `simulate`, `odds`
# and study files refuse more before anything starts (10**11 games is days of CPU time).
MAX_GAMES = 10**11
# Seeds and game indices are 63-bit: 0 <= value < 2**63.
MAX_SEED = 2**63 - 1
# Chunk files one study point may have (games / chunk): more is a typo in `chunk`, and the list of
# chunks alone would fill the memory.
MAX_CHUNKS = 1_000_000
# Plausible decks a deck ensemble (--deck-ensemble N, a study's deck_ensemble) may draw.
MAX_DECK_ENSEMBLE = 1000
