"""napsim: Monte Carlo analysis of the Commands & Colors: Napoleonics command-card system."""

from napsim.cards import Deck, builtin_decks, load_deck
from napsim.errors import NapsimInputError

__version__ = "0.1.0"
__all__ = ["Deck", "NapsimInputError", "builtin_decks", "load_deck", "__version__"]
