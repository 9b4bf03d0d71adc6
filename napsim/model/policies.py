"""Scripted policies as parameter vectors the kernels read (docs/rules.md section P).

A policy is a name plus float parameters. `greedy` scores every legal (hand card, rack card,
placement) by weighted effective orders plus bonuses (P1), keeps the better Scout card (P2),
March Moves with its stars when units are free (P3) and plays First Strike with a probability
(P7). `random` picks uniformly among legal plays and otherwise uses the same parameters.
`lookahead` (P8) plans its card choice and, for the Spanish (EPIC and La Grande Battles), whether
to spend a Guerrilla counter: each candidate (hand card, rack card, placement; in La Grande Battles
the CIC's hand card, rack card and their receivers; spend or keep) is played out in short
rollouts, both sides greedy, and the one of the highest value over this turn and the next
`lookahead_d` own turns wins: its effective orders less the opponent's (`lookahead_value` margin,
the default) or its own alone (own). It plans which of a Scout's two cards to keep the same way
(`lookahead_keep` plan, the default; greedy: P2). Its stars and counter gain are greedy's. It
plans from what the player can know (`lookahead_info` fair, the default): each rollout deals the
opponent's hand again from the cards the player has not seen; `open` lets the rollouts see it (the
upper bound: the value of knowing the opponent's hand). In La Grande Battles the CIC knows his own
Corps commanders' hands (`lookahead_corps` known, the default) or not (hidden).
"""

from __future__ import annotations

import numpy as np

from napsim.model.errors import NapsimInputError, did_you_mean

KIND_GREEDY, KIND_RANDOM, KIND_LOOKAHEAD = 0, 1, 2
KINDS = {"greedy": KIND_GREEDY, "random": KIND_RANDOM, "lookahead": KIND_LOOKAHEAD}

# index of each parameter in the packed vector
PARAMS = {
    "kind": 0,             # 0 greedy, 1 random, 2 lookahead
    "w_l": 1,              # section weights for effective orders (P1)
    "w_c": 2,
    "w_r": 3,
    "march_bonus": 4,      # score per unit March-Moved with stars (P1, P3)
    "tactician_bonus": 5,  # score per Tactician card drawn (P1)
    "scout_bonus": 6,      # score for playing a Scout (draw two keep one)
    "keep_weight": 7,      # minus this times the single-card value of the hand card played
    "deny_weight": 8,      # minus this times the best single value left on the rack
    "march_prob": 9,       # P3: probability of March Moving when units are free
    "first_strike_prob": 10,  # P7: probability per opponent turn of playing a held First Strike
    "tactician_use_prob": 11,  # probability per own turn of playing one held Tactician card
    "g_spend_mode": 12,    # P4: 0 at every chance, 1 when the card orders >= g_threshold, 2 Assaults
    "g_threshold": 13,     # P4: effective orders of the French card that make a counter worth it
    "g_gain_mode": 14,     # P5: 0 always trade a Scout draw for a counter, 1 never, 2 below n held
    "g_gain_below": 15,    # P5: the n of mode 2
    "corps_own_min": 16,   # P6 (LGB): a Corps commander without a gift plays his best own card
                           # when it scores at least this
    "corps_swap_margin": 17,  # P6 (LGB): he discards the CIC's card for his best own card when
                              # that scores more than this above the gift
    "lookahead_k": 18,     # P8: rollouts per candidate
    "lookahead_d": 19,     # P8: own turns looked ahead after this one (0: the greedy choice)
    "lookahead_discount": 20,  # P8: weight of the orders of the n-th own turn ahead: discount ** n
    "lookahead_top": 21,   # P8: candidates examined, the greedy-best first (0: every legal one)
    "lookahead_value": 22,  # P8: what a rollout counts: 0 own effective orders, 1 own less the
                            # opponent's (VALUES)
    "lookahead_keep": 23,  # P8: which of a Scout's two cards to keep: 0 greedy's (P2), 1 planned
                           # (KEEPS)
    "lookahead_info": 24,  # P8: 1 the rollouts deal the hands the player cannot see again
                           # (fair), 0 they see them (open: the upper bound) (INFOS)
    "lookahead_corps": 25,  # P8 (La Grande Battles): 0 the CIC knows his Corps commanders' hands,
                            # 1 his rollouts deal them again too (CORPS_INFOS)
    "lookahead_search": 26,  # P8: how the rollouts are spent: 0 every candidate lookahead_k of them
                             # (full), 1 screened on their turn, the best few raced by halving,
                             # 2 every candidate raced, each left once clearly behind (SEARCHES)
    "lookahead_finalists": 27,  # P8 (halving): the candidates that race after the screen
    "lookahead_screen": 28,  # P8 (halving): own turns the screen looks ahead (lookahead_d or more:
                             # the screen is a whole rollout)
}
N_PARAMS = len(PARAMS)

_LOOKAHEAD = dict(lookahead_k=8, lookahead_d=2, lookahead_discount=1.0, lookahead_top=0,
                  lookahead_value=1, lookahead_keep=1, lookahead_info=1, lookahead_corps=0,
                  lookahead_search=2, lookahead_finalists=4, lookahead_screen=0)
DEFAULTS = {
    "greedy": dict(kind=0, w_l=1.0, w_c=1.0, w_r=1.0, march_bonus=0.3, tactician_bonus=0.5,
                   scout_bonus=0.2, keep_weight=0.0, deny_weight=0.0, march_prob=1.0,
                   first_strike_prob=0.5, tactician_use_prob=0.5, g_spend_mode=0,
                   g_threshold=3, g_gain_mode=0, g_gain_below=3, corps_own_min=2.0,
                   corps_swap_margin=1.0, **_LOOKAHEAD),
    "random": dict(kind=1, w_l=1.0, w_c=1.0, w_r=1.0, march_bonus=0.3, tactician_bonus=0.5,
                   scout_bonus=0.2, keep_weight=0.0, deny_weight=0.0, march_prob=0.5,
                   first_strike_prob=0.5, tactician_use_prob=0.5, g_spend_mode=0,
                   g_threshold=3, g_gain_mode=0, g_gain_below=3, corps_own_min=2.0,
                   corps_swap_margin=1.0, **_LOOKAHEAD),
}
DEFAULTS["lookahead"] = dict(DEFAULTS["greedy"], kind=KIND_LOOKAHEAD)  # P8: greedy's other parameters
_RANGES = {"kind": (0, 2), "march_prob": (0, 1), "first_strike_prob": (0, 1),
           "tactician_use_prob": (0, 1), "g_threshold": (0, 99), "g_gain_below": (0, 99),
           "lookahead_k": (1, 255), "lookahead_d": (0, 20), "lookahead_discount": (0, 1),
           "lookahead_top": (0, 64), "lookahead_finalists": (1, 64), "lookahead_screen": (0, 20)}
# counts: a fraction is refused
_INTEGERS = ("lookahead_k", "lookahead_d", "lookahead_top", "lookahead_finalists",
             "lookahead_screen")
_CHOICES = {"g_spend_mode": (0, 1, 2), "g_gain_mode": (0, 1, 2), "lookahead_value": (0, 1),
            "lookahead_keep": (0, 1), "lookahead_info": (0, 1), "lookahead_corps": (0, 1),
            "lookahead_search": (0, 1, 2)}
SPEND_MODES = {"always": 0, "threshold": 1, "assault": 2}
GAIN_MODES = {"always": 0, "never": 1, "below": 2}
VALUES = {"own": 0, "margin": 1}  # P8: the two readings of the planner's value (rule text)
KEEPS = {"greedy": 0, "plan": 1}  # P8: the Scout keep (P2) by its score, or planned
INFOS = {"open": 0, "fair": 1}  # P8: the rollouts see hidden hands, or deal them again
CORPS_INFOS = {"known": 0, "hidden": 1}  # P8 (LGB): the CIC knows his Corps commanders' hands, or not
# P8: every candidate all rollouts; screened, the best few halved; raced until clearly behind
SEARCHES = {"full": 0, "halving": 1, "race": 2}
MODES = {"g_spend_mode": SPEND_MODES, "g_gain_mode": GAIN_MODES, "lookahead_value": VALUES,
         "lookahead_keep": KEEPS, "lookahead_info": INFOS, "lookahead_corps": CORPS_INFOS,
         "lookahead_search": SEARCHES}
"""The parameters that take a name: the names of their values."""


def policy_vector(name: str, overrides: dict[str, float] | None = None,
                  where: str = "--policy") -> np.ndarray:
    """The packed float64 parameter vector of a named policy with overrides applied."""
    if name not in DEFAULTS:
        raise NapsimInputError(where, "policy", _unknown(f"unknown policy '{name}'", name, DEFAULTS),
                               ", ".join(DEFAULTS))
    params = dict(DEFAULTS[name])
    for key, value in (overrides or {}).items():
        if key not in PARAMS or key == "kind":
            names = [k for k in PARAMS if k != "kind"]
            raise NapsimInputError(where, key, _unknown("unknown policy parameter", key, names),
                                   ", ".join(names))
        if key.startswith("lookahead_") and name != "lookahead":
            raise NapsimInputError(where, key, f"a parameter of the lookahead policy, not of '{name}'",
                                   "lookahead:" + ";".join(f"{k}=..." for k in _LOOKAHEAD))
        if key in _CHOICES and isinstance(value, str) and not value.lstrip("-").isdigit():
            names = MODES[key]
            if value not in names:
                raise NapsimInputError(where, key, f"'{value}' is not a mode", ", ".join(names))
            value = names[value]
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise NapsimInputError(where, key, f"{value!r} is not a number", "numbers") from None
        if key in _CHOICES and v not in _CHOICES[key]:
            names = MODES[key]
            raise NapsimInputError(where, key, f"{value!r} is not a mode",
                                   ", ".join(f"{k} ({n})" for k, n in names.items()))
        lo, hi = _RANGES.get(key, (-1e6, 1e6))
        if not lo <= v <= hi:
            raise NapsimInputError(where, key, f"{v} is out of range", f"{lo}..{hi}")
        if key in _INTEGERS and v != int(v):
            raise NapsimInputError(where, key, f"{value!r} is not a whole number",
                                   f"whole numbers {lo}..{hi}")
        params[key] = v
    vec = np.zeros(N_PARAMS, np.float64)
    for key, idx in PARAMS.items():
        vec[idx] = params[key]
    return vec


def parse_policy_option(text: str, where: str = "--policy") -> list[tuple[str, dict]]:
    """'greedy,random' or 'greedy:w_c=2,random' -> [(name, overrides) per side]."""
    out = []
    for part in text.split(","):
        name, _, rest = part.strip().partition(":")
        overrides = {}
        for item in filter(None, rest.split(";")):
            key, eq, value = item.partition("=")
            if not eq:
                raise NapsimInputError(where, "policy", f"cannot read '{item}'",
                                       "name:param=value;param=value")
            overrides[key.strip()] = value.strip()
        out.append((name.strip(), overrides))
    return out


def policy_text(name: str, params: dict | None = None) -> str:
    """The inverse of one side of `parse_policy_option`: ('greedy', {'w_c': 2}) -> 'greedy:w_c=2'."""
    items = ";".join(f"{k}={v}" for k, v in (params or {}).items())
    return f"{name}:{items}" if items else name


def policy_tables(where: str, table, side_keys: tuple[str, ...]) -> dict[str, tuple[str, dict]]:
    """A scenario's optional [policy] table: one [policy.<side>] per side with `name` (default
    greedy) and parameters, e.g. what `napsim tune` prints. It tunes the policy it names: whenever
    that side plays that policy, its parameters start from the table (`--policy name:param=v`
    still wins); -> {side key: (name, parameters)}, validated."""
    if not isinstance(table, dict):
        raise NapsimInputError(where, "policy", "not a table", "[policy.<side>] tables")
    out = {}
    for key, t in table.items():
        if key not in side_keys:
            raise NapsimInputError(f"{where}: [policy]", key, "unknown side", ", ".join(side_keys))
        w = f"{where}: [policy.{key}]"
        if not isinstance(t, dict):
            raise NapsimInputError(w, None, "expected a table", "name, " + ", ".join(PARAMS))
        params = dict(t)
        name = params.pop("name", "greedy")
        if not isinstance(name, str) or name not in DEFAULTS:
            raise NapsimInputError(w, "name", _unknown(f"unknown policy {name!r}", str(name), DEFAULTS),
                                   ", ".join(DEFAULTS))
        for k, v in params.items():
            if k in _CHOICES and isinstance(v, str):
                continue  # a mode name (policy_vector checks it)
            if isinstance(v, bool) or not isinstance(v, int | float):
                modes = MODES.get(k, {})
                allowed = f"a number or {', '.join(modes)}" if k in _CHOICES else "a number"
                raise NapsimInputError(w, k, f"{v!r} is not a number or a mode name", allowed)
        policy_vector(name, params, where=w)
        out[key] = (name, params)
    return out


def with_table(tables: dict[str, tuple[str, dict]], side: str, name: str, overrides: dict) -> dict:
    """A side's policy overrides with its scenario [policy.<side>] table under them, when the
    table tunes the policy the side plays (`policy_tables`)."""
    table_name, params = tables.get(side, (None, {}))
    return {**params, **overrides} if table_name == name else dict(overrides)


def _unknown(problem: str, value: str, names) -> str:
    """`problem`, with "did you mean ..." when a known name is close to `value`."""
    guess = did_you_mean(value, list(names))
    return f"{problem}: {guess}" if guess else problem
