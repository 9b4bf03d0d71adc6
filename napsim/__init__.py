"""napsim: Monte Carlo analysis of the Commands & Colors: Napoleonics command-card system.

The package face: the public Python API, gathered from the layers (docs/architecture.md).
"""

from napsim.api import StudyResult, balance, compare, run_study
from napsim.model.cards import Deck, builtin_decks, load_deck
from napsim.model.errors import NapsimInputError
from napsim.model.version import __version__
from napsim.study.spec import Study, load_study

__all__ = ["Deck", "NapsimInputError", "Study", "StudyResult", "balance", "builtin_decks", "compare",
           "load_deck", "load_study", "run_study", "__version__"]
