"""napsim: Monte Carlo analysis of the Commands & Colors: Napoleonics command-card system."""

from napsim.cards import Deck, builtin_decks, load_deck
from napsim.errors import NapsimInputError
from napsim.study import Study, StudyResult, load_study, run_study

__version__ = "0.1.0"
__all__ = ["Deck", "NapsimInputError", "Study", "StudyResult", "builtin_decks", "load_deck", "load_study",
           "run_study", "__version__"]
