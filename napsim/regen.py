"""`python -m napsim.regen [NAMES...]`: the same as `napsim regen` (`napsim.api.regenerate`).

An entry point only, like `napsim/__main__.py`: nothing imports it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from napsim.cli import main as cli_main


def main(argv: Sequence[str] | None = None) -> None:
    """Run `napsim regen` with these arguments (default: the command line's)."""
    sys.argv = ["napsim", "regen", *(sys.argv[1:] if argv is None else argv)]
    cli_main()


if __name__ == "__main__":
    main()
