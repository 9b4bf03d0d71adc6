"""napsim: Monte Carlo analysis of the Commands & Colors: Napoleonics command-card system.

The package face: the public Python API, gathered from the layers (docs/architecture.md).
"""

from napsim.api import Simulated, StudyResult, balance, compare, run_study, simulate, tune
from napsim.api_balance_across import balance_across
from napsim.api_sensitivity import sensitivity
from napsim.model.cards import Deck, builtin_decks, load_deck
from napsim.model.defaults import __version__
from napsim.model.errors import NapsimInputError
from napsim.study.spec import Study, load_study

__all__ = ["Deck", "NapsimInputError", "Simulated", "Study", "StudyResult", "balance", "balance_across",
           "builtin_decks", "compare", "load_deck", "load_study", "run_study", "sensitivity", "simulate",
           "tune", "__version__"]
