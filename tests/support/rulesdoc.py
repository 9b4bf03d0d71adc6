"""tools/rules_doc.py (the generator of docs/rules.md and napsim/model/rule_tests.json) loaded as a
module, for the tests that read the rule citations of the tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def load_rules_doc() -> ModuleType:
    """The tools/rules_doc.py module (loaded once)."""
    if "rules_doc" in sys.modules:
        return sys.modules["rules_doc"]
    spec = importlib.util.spec_from_file_location("rules_doc", ROOT / "tools" / "rules_doc.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["rules_doc"] = mod
    spec.loader.exec_module(mod)
    return mod
