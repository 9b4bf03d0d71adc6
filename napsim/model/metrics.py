"""The metric catalogue: every number napsim reports, in words a wargamer reads.

One entry per metric name of a summary (`napsim.sim.metric_table.metric_names`, checked by
tests/test_metric_catalogue.py): its title, its unit, what it counts, whose side it speaks for and
the rules behind it (docs/rules.md). Tables, summary.csv, charts and reports take their words from
here, so no user sees an internal name without them. Parameter paths of sweeps and `--vary` get
titles too (`parameter_title`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from napsim.model.errors import NapsimInputError, unknown_name
from napsim.model.policies import DEFAULTS, SEARCHES, parse_policy_option

# whose side a metric speaks for: its own row's side, or the other side's cards counted on this
# row (the Guerrilla counters act on French cards, and napsim keeps those counts on the row of
# the side that holds the counters)
OWN, OPPONENT = "own", "opponent"


# words a title may start with that stay capitalised inside a sentence (names of sides, cards,
# commanders and rules)
PROPER_WORDS = frozenset({"French", "Spanish", "Tactician", "Scout", "Elan", "First", "Counter-Attacks",
                          "Courier", "Guerrilla", "Command", "Commander", "Corps", "CIC", "March"})


@dataclass(frozen=True)
class MetricInfo:
    """Words for one metric: `title` for a table or an axis, `unit` after a number, `counts` in a
    sentence, `viewpoint` OWN or OPPONENT, `rules` the rule IDs, `countable` whether a change reads
    "0.4 fewer <phrase>" (a count) or "0.02 lower <phrase>" (a share)."""

    name: str
    title: str
    unit: str
    counts: str
    viewpoint: str = OWN
    rules: tuple[str, ...] = ()
    countable: bool = True

    @property
    def phrase(self) -> str:
        """The title inside a sentence: 'effective orders a turn' (acronyms and names such as
        French or Tactician keep their capitals)."""
        t = self.title
        first = t.split(" ", 1)[0].rstrip(":,")
        keep = (len(t) > 1 and t[1].isupper()) or first in PROPER_WORDS
        return t if keep else t[:1].lower() + t[1:]

    def label(self, side: str | None = None) -> str:
        """'Effective orders a turn (French)'; an OPPONENT metric says whose counters acted on
        the other side's cards: 'French cards nullified a turn (Spanish counters)'."""
        if side is None:
            return self.title
        if self.viewpoint == OPPONENT:
            return f"{self.title} ({side} counters)"
        return f"{self.title} ({side})"

    def row_title(self, side: str | None = None) -> str:
        """The title on a row that names its side already: the plain title, except that an
        OPPONENT metric still says whose counters acted (`label`)."""
        return self.label(side) if side is not None and self.viewpoint == OPPONENT else self.title

SECTION_WORDS = {"L": "left", "C": "centre", "R": "right"}
KIND_WORDS = {"section": "section cards", "multi": "multi-section cards", "tactic": "tactic cards",
              "other": "other cards"}

_ENTRIES: dict[str, MetricInfo] = {}


def _add(name: str, title: str, unit: str, counts: str, rules: tuple[str, ...] = (),
         viewpoint: str = OWN, countable: bool = True) -> None:
    _ENTRIES[name] = MetricInfo(name, title, unit, counts, viewpoint, rules, countable)


def _share(name: str, title: str, counts: str, rules: tuple[str, ...] = (),
           viewpoint: str = OWN) -> None:
    _add(name, title, "share (0-1)", counts, rules, viewpoint, countable=False)


# ----------------------------------------------------------------- headline orders
_add("effective_per_turn", "Effective orders a turn", "orders a turn",
     "Units a side's Command cards could order and had on the board, per turn played: the "
     "headline of napsim.", ("S2", "E5", "E6"))
_add("nominal_per_turn", "Nominal orders a turn", "orders a turn",
     "Units the side's Command cards say they order, whether or not the units are there, per turn.",
     ("S2", "E5"))
_add("orders_per_turn", "All orders a turn (cards and initiative)", "orders a turn",
     "Effective card orders plus units ordered by initiative rolls, per turn.", ("S2", "M6.2", "L6"))
_add("initiative_orders_per_turn", "Initiative orders a turn", "orders a turn",
     "Units ordered by commanders who rolled for initiative, per turn.", ("M6.2", "L6"))
_add("effective_total", "Effective orders a game", "orders a game",
     "Effective orders summed over a whole game.", ("S2", "E5"))
_add("nominal_total", "Nominal orders a game", "orders a game",
     "Nominal orders summed over a whole game.", ("S2", "E5"))
_add("orders_total", "All orders a game (cards and initiative)", "orders a game",
     "Effective card orders plus initiative orders summed over a whole game.", ("S2", "M6.2", "L6"))
_share("effective_share_of_nominal", "Share of nominal orders that are effective",
       "Effective orders divided by nominal orders: how much of what the cards promise the army "
       "can use.", ("S2",))
for _s, _w in SECTION_WORDS.items():
    _add(f"effective_per_turn_{_s}", f"Effective orders a turn, {_w} section", "orders a turn",
         f"Effective orders in the side's own {_w} section (seen from its seat), per turn.",
         ("S2", "S4"))
    _add(f"nominal_{_s}", f"Nominal orders a game, {_w} section", "orders a game",
         f"Nominal orders in the side's own {_w} section over a game.", ("S2", "S4"))
    _add(f"effective_{_s}", f"Effective orders a game, {_w} section", "orders a game",
         f"Effective orders in the side's own {_w} section over a game.", ("S2", "S4"))
_add("wasted", "Orders wasted a game", "orders a game",
     "Nominal orders with no unit to take them (nominal minus effective), over a game.", ("S2",))
_add("turns", "Turns played a game", "turns a game", "The side's own turns in a game.", ("V1",))
_add("initiative_orders", "Initiative orders a game", "orders a game",
     "Units ordered by initiative rolls over a game (none with one or two players a side).",
     ("M6.2", "L6"))

# ----------------------------------------------------------------- cards played
for _k, _w in KIND_WORDS.items():
    _add(f"hand_{_k}", f"{_w[:1].upper() + _w[1:]} played from the hand a game", "cards a game",
         f"Cards of this kind ({_w}) played from the hand over a game.", ("D2", "E2"))
    _add(f"rack_{_k}", f"{_w[:1].upper() + _w[1:]} taken from the Courier Rack a game", "cards a game",
         f"Cards of this kind ({_w}) taken from the Courier Rack over a game.", ("D2", "E2"))
for _n in range(6):
    _add(f"pick_from_{_n}", f"Rack picks from {_n} card{'s' * (_n != 1)} a game", "picks a game",
         f"Turns on which the side took a rack card while the rack held {_n} card{'s' * (_n != 1)}.",
         ("E10",))
for _n in (5, 4, 3):
    _share(f"share_picks_from_{_n}", f"Share of rack picks from {_n} cards",
           f"Of all rack picks, the share made while the rack held {_n} cards; the rack cycle makes "
           "it exactly one third in every game.", ("E9.6", "E10"))
_add("refills", "Rack refills a game", "refills a game",
     "Times the Courier Rack was refilled to five cards.", ("E9.6",))
_add("same_section_turns", "Same-section turns a game", "turns a game",
     "Turns on which both cards ordered the same section (the same-section exception).", ("E4",))
_add("same_section_used", "Same-section pairs played a game", "turns a game",
     "Turns on which a same-section pair was played and both cards ordered.", ("E4",))
_share("same_section_turn_rate", "Share of turns with a same-section pair",
       "Turns on which both cards ordered the same section, out of all turns.", ("E4",))
_add("scout_draws", "Scout draws a game", "draws a game",
     "Scout cards played, each drawing two and keeping one.", ("E9.2",))
_share("scout_turn_rate", "Share of turns with a Scout draw",
       "Turns ending with a Scout draw, out of all turns.", ("E9.2",))
_add("stars_march", "Stars used to March Move a game", "stars a game",
     "Star marks spent on March Moves.", ("E8", "P3"))
_add("stars_tactician", "Stars used to draw Tactician cards a game", "stars a game",
     "Star marks spent on Tactician draws.", ("E8", "E9.3"))
_add("march_units", "Units March Moved a game", "units a game",
     "Units moved by March Moves paid for with stars.", ("E8", "P3"))
_add("elan_reshuffles", "Elan reshuffles a game", "reshuffles a game",
     "Times an Elan card made the side reshuffle the Command deck.", ("E9.4",))
_add("deck_reshuffles", "Deck reshuffles a game", "reshuffles a game",
     "Times the draw pile ran out and the discards became the new draw pile.", ("D6",))
_add("starved_draws", "Draws with no card left a game", "draws a game",
     "Draws that found both the draw pile and the discards empty.", ("D6",))
_add("tactician_drawn", "Tactician cards drawn a game", "cards a game",
     "Cards taken from the Tactician deck.", ("D4", "E9.3"))
_add("tactician_played", "Tactician cards played a game", "cards a game",
     "Tactician cards the side played.", ("D4", "P1"))
_add("tactician_held_end", "Tactician cards held at the end", "cards",
     "Tactician cards still in hand when the game ended.", ("D4",))
_add("tactician_starved", "Tactician draws with the deck empty a game", "draws a game",
     "Tactician draws that found the Tactician deck and its discards empty.", ("D4",))
_add("first_strikes", "First Strikes played a game", "cards a game",
     "First Strike cards played on the opponent's turn.", ("D3", "P7"))
_add("counter_attacks", "Counter-Attacks played a game", "cards a game",
     "Counter-Attack cards played, copying the opponent's last card.", ("D3",))
_add("squares_formed", "Squares formed a game", "squares a game",
     "Squares the side's infantry formed.", ("E11", "L8"))
_add("invariant_violations", "Rule-check failures a game", "failures a game",
     "Broken bookkeeping found by the kernel's own checks: always 0 unless napsim has a bug.", ())

# ----------------------------------------------------------------- Spanish Guerrilla Action
_G = ("G7",)
_add("g_french_turns", "French turns facing counters a game", "turns a game",
     "French turns on which the Spanish side played the Guerrilla rule.", _G, OPPONENT)
_add("g_offered", "Chances to spend a counter a game", "chances a game",
     "French cards the Spanish side could have tried to stop with a counter.", ("G1", "G5", "G7"))
_add("g_spent", "Counters spent a game", "counters a game",
     "Guerrilla counters spent against French cards.", ("G1", "G5", "G7"))
_add("g_stopped_by_sabre", "Counters lost to a sabre a game", "counters a game",
     "Counters spent whose die roll came up sabre, so the French card stood.", ("G1", "G5", "G7"))
_add("g_cards_nullified", "French cards nullified a game", "cards a game",
     "French Command cards cancelled by a Guerrilla counter.", ("G1", "G5", "G7"), OPPONENT)
_add("g_denied_nominal", "French nominal orders denied a game", "orders a game",
     "Nominal orders of the French cards the counters cancelled.", _G, OPPONENT)
_add("g_denied_effective", "French effective orders denied a game", "orders a game",
     "Effective orders of the French cards the counters cancelled.", _G, OPPONENT)
_add("g_available_not_spent", "Chances passed up a game", "chances a game",
     "Chances to spend a counter that the Spanish policy let go.", ("P4", "G7"))
for _s, _w in SECTION_WORDS.items():
    _add(f"g_nullified_in_french_{_s}", f"French cards nullified a game, French {_w} section",
         "cards a game", f"Nullified French cards that ordered the French {_w} section (French seat).",
         ("G7", "S4"), OPPONENT)
    _add(f"g_denied_effective_in_french_{_s}",
         f"French effective orders denied a game, French {_w} section", "orders a game",
         f"Effective orders denied in the French {_w} section (French seat).", ("G7", "S4"), OPPONENT)
_add("g_acquired", "Counters gained a game", "counters a game",
     "Guerrilla counters the Spanish side gained during the game.", ("G3", "G4", "P5"))
_add("g_held_end", "Counters held at the end", "counters",
     "Guerrilla counters in Spanish hands when the game ended.", ("G6",))
_add("g_pool_end", "Counters left in the pool at the end", "counters",
     "Guerrilla counters left in the common pool when the game ended.", ("G4",))
_share("g_nullification_rate", "Share of French turns with a card nullified",
       "French turns on which a counter cancelled a French card.", ("G1", "G5", "G7"), OPPONENT)
_share("g_attempt_success_rate", "Share of counters that nullified",
       "Counters spent that cancelled the French card (the die showed no sabre).", ("G1", "G5", "G7"))
_share("g_offered_not_spent_rate", "Share of chances passed up",
       "Chances to spend a counter that the Spanish policy let go.", ("P4", "G7"))
_share("g_offered_rate", "Share of French turns with a chance to spend",
       "French turns on which the Spanish side could spend a counter.", ("G5", "G7"), OPPONENT)
_add("g_cards_nullified_per_turn", "French cards nullified a turn", "cards a turn",
     "French Command cards cancelled by counters, per turn.", ("G7",), OPPONENT)
_add("g_denied_effective_per_turn", "French effective orders denied a turn", "orders a turn",
     "Effective orders of the cancelled French cards, per turn.", ("G7",), OPPONENT)

# ----------------------------------------------------------------- commanders (2-4 a side, LGB)
_share("initiative_share", "Share of commander-turns on initiative",
       "Commander-turns on which a commander got no card and rolled for initiative.", ("M6.2", "L6"))
COMMANDER_METRICS: dict[str, MetricInfo] = {}


def _cmd(name: str, title: str, unit: str, counts: str, rules: tuple[str, ...],
         countable: bool = True) -> None:
    COMMANDER_METRICS[name] = MetricInfo(name, title, unit, counts, OWN, rules, countable)


_cmd("initiative_share", "share of turns on initiative", "share (0-1)",
     "Turns on which this commander got no card and rolled for initiative.", ("M6.2", "L6"), False)
_cmd("initiative_double_rate", "share of initiative rolls with a double", "share (0-1)",
     "Initiative rolls showing a double; the dice make it exactly 2/9.", ("M6.2",), False)
_cmd("initiative_two_sabres_rate", "share of initiative rolls with two sabres", "share (0-1)",
     "Initiative rolls showing two sabres; the dice make it exactly 1/36.", ("M6.2",), False)
_cmd("cards_received", "cards received from the CIC a game", "cards a game",
     "Command cards the CIC handed to this commander.", ("M6.1", "L2", "L3"))
_cmd("own_cards_played", "own cards played a game", "cards a game",
     "Cards this commander played from his own hand.", ("L5",))
_cmd("cic_cards_rejected", "CIC cards set aside a game", "cards a game",
     "Cards from the CIC this commander discarded for one of his own.", ("L5", "P6"))
_cmd("initiative_rolls", "initiative rolls a game", "rolls a game",
     "Times this commander rolled for initiative.", ("M6.2", "L6"))
_cmd("initiative_ordered", "units ordered by initiative a game", "units a game",
     "Units this commander ordered with initiative dice.", ("M6.2", "L6"))
_cmd("initiative_march", "units moved by initiative flags a game", "units a game",
     "Units moved on flag faces of the initiative dice.", ("M6.2", "L6"))
_cmd("initiative_melee", "units ordered to melee by initiative a game", "units a game",
     "Units ordered to melee on sabre faces of the initiative dice.", ("M6.2",))
_cmd("blocks_lost", "initiative dice with no unit to order a game", "dice a game",
     "Initiative dice whose face matched no unit this commander could order.", ("L6",))
_cmd("initiative_command_draws", "Command draws from initiative a game", "draws a game",
     "Command cards drawn because of an initiative double.", ("M6.2",))
_cmd("initiative_tactician", "Tactician cards from initiative a game", "cards a game",
     "Tactician cards drawn because of an initiative roll.", ("M6.3", "M8.2"))
_cmd("card_effective", "effective orders from cards a game", "orders a game",
     "Effective orders from the cards this commander played.", ("S2",))
_cmd("tactician_drawn", "Tactician cards drawn a game", "cards a game",
     "Tactician cards this commander drew.", ("D4", "M6.3"))
_cmd("tactician_held_end", "Tactician cards held at the end", "cards",
     "Tactician cards this commander held when the game ended.", ("D4",))
_cmd("tactician_held_mean", "Tactician cards held on an average turn", "cards",
     "Tactician cards in this commander's hand, averaged over his turns.", ("D4",))
_cmd("cic_keep_one", "turns the CIC kept one card a game", "turns a game",
     "Turns on which the CIC kept one of the two cards for himself.", ("M6.1",))
_cmd("cic_give_both", "turns the CIC gave both cards away a game", "turns a game",
     "Turns on which the CIC handed both cards to sub-commanders.", ("M6.1",))
_cmd("scout_gifts", "Scout cards passed on a game", "cards a game",
     "Cards from Scout draws handed to another commander.", ("E9.2", "M6.1"))
_cmd("hand_end", "cards in hand at the end", "cards", "Cards in this commander's hand at the end.",
     ("L1",))
_cmd("cards_passed", "cards passed a game", "cards a game",
     "Cards this commander passed to another commander.", ("L2",))
_cmd("g_spent", "Guerrilla counters spent a game", "counters a game",
     "Counters this commander spent.", ("G5", "G6"))
_cmd("g_nullified", "French cards nullified a game", "cards a game",
     "French cards this commander's counters cancelled.", ("G5", "G6"))
_cmd("g_acquired", "Guerrilla counters gained a game", "counters a game",
     "Counters this commander gained.", ("G4", "G6"))

COMMANDER_WORDS = {"cic": "CIC", "c1": "Commander 1", "c2": "Commander 2", "c3": "Commander 3"}
_COMMANDER = re.compile(r"^(cic|c1|c2|c3)\.(\w+)$")


def describe(name: str, roles: dict[str, str] | None = None) -> MetricInfo:
    """The words of a summary metric; `roles` names the commanders of a format ('c1' -> 'Corps
    left wing'). An unknown name is a bug in napsim or a user's typo: KeyError, never a guess."""
    if name in _ENTRIES:
        return _ENTRIES[name]
    m = _COMMANDER.match(name)
    if m and m.group(2) in COMMANDER_METRICS:
        key, base = m.groups()
        info = COMMANDER_METRICS[base]
        who = (roles or {}).get(key) or COMMANDER_WORDS[key]
        return MetricInfo(name, f"{who[:1].upper()}{who[1:]}: {info.title}", info.unit, info.counts,
                          info.viewpoint, info.rules, info.countable)
    raise KeyError(name)


def known(name: str) -> bool:
    """Whether the catalogue has words for `name`."""
    try:
        describe(name)
    except KeyError:
        return False
    return True


def metric_title(name: str, side: str | None = None) -> str:
    """A metric's title (an axis label, a panel title); on a row that names its side (`side`), an
    OPPONENT metric still says whose counters acted (`MetricInfo.row_title`)."""
    return describe(name).row_title(side)


def catalogue_names() -> list[str]:
    """Every plain metric name the catalogue knows (commander metrics as `<key>.<metric>`)."""
    return [*_ENTRIES, *(f"{k}.{m}" for k in COMMANDER_WORDS for m in COMMANDER_METRICS)]


def require(name: str, where: str, field: str, choices: list[str] | None = None) -> MetricInfo:
    """`describe`, with a user's typo answered by a one-line error naming the allowed names."""
    if choices is not None and name not in choices:
        raise unknown_metric(name, choices, where, field)
    try:
        return describe(name)
    except KeyError:
        raise unknown_metric(name, choices or catalogue_names(), where, field) from None


METRICS_HELP = "the metric column of a summary.csv lists them (the main one: effective_per_turn)"


def unknown_metric(name: str, names: list[str], where: str = "--metric",
                   field: str = "metric") -> NapsimInputError:
    """The error for a mistyped metric: the closest names ("did you mean ..."), not all of them."""
    return unknown_name(where, field, f"unknown metric '{name}'", name, names,
                        listed_by=f"{len(names)} metrics: {METRICS_HELP}")


# ----------------------------------------------------------------- parameter paths

_SIDE_FIELDS = {
    "hand": "Command hand size", "tactician": "Tactician cards at the start",
    "guerrilla": "Guerrilla counters at the start", "guerrilla_rule": "Guerrilla rule",
    "square_form": "Chance to form square", "square_leave": "Chance to leave square",
    "french": "Plays the French", "cic_section": "Section the CIC commands",
    "corps_hand": "Corps commanders' hand sizes", "corps_tactician": "Corps commanders' Tactician cards",
    "corps_guerrilla": "Corps commanders' Guerrilla counters", "name": "Side name",
}
_SCENARIO_FIELDS = {
    "format": "Game format", "deck": "Command deck", "turns": "Turns a game",
    "first": "Side moving first", "guerrilla_pool": "Guerrilla counters in the common pool",
    "format+deck": "Game format and Command deck",
}
_UNIT_WORDS = {"infantry": "Infantry units", "cavalry": "Cavalry units", "artillery": "Artillery units",
               "leaders": "Leaders", "spanish": "Spanish units"}
_POLICY_FIELDS = {
    "w_l": "weight of the left section", "w_c": "weight of the centre section",
    "w_r": "weight of the right section", "march_bonus": "value of a March-Moved unit",
    "tactician_bonus": "value of a Tactician draw", "scout_bonus": "value of a Scout draw",
    "keep_weight": "weight of the hand card kept", "deny_weight": "weight of rack cards left",
    "march_prob": "chance to March Move", "first_strike_prob": "chance to play a First Strike",
    "tactician_use_prob": "chance to play a Tactician card", "g_spend_mode": "when to spend counters",
    "g_threshold": "orders that make a counter worth spending", "g_gain_mode": "when to gain counters",
    "g_gain_below": "counters held below which to gain one",
    "corps_own_min": "score for a Corps commander's own card", "corps_swap_margin":
    "margin to swap the CIC's card", "lookahead_k": "rollouts per candidate",
    "lookahead_d": "own turns looked ahead", "lookahead_discount": "weight of each later turn",
    "lookahead_top": "candidates examined (0: every one)",
    "lookahead_value": "what the planner counts",
    "lookahead_keep": "which Scout card to keep",
    "lookahead_info": "what the planner knows of the opponent's hand",
    "lookahead_corps": "what the CIC knows of his Corps commanders' hands",
    "lookahead_search": "how the planner spends its rollouts",
    "lookahead_finalists": "candidates that race after the screen",
}
_TOP = {"deck": "Command deck", "hand": "Hand size", "k": "Cards needed", "policy": "Policy"}


# words for the values of a few parameters (policy names and modes); others print as they are
_VALUE_WORDS = {
    "g_spend_mode": {"always": "spend at every chance", "threshold": "spend on cards of many orders",
                     "assault": "spend on Assault cards only"},
    "g_gain_mode": {"always": "always gain", "never": "never gain", "below": "gain below a count"},
    "guerrilla_rule": {"base": "base game rule", "epic": "EPIC rule"},
    "policy": {"greedy": "greedy play", "random": "random play", "lookahead": "lookahead play"},
    "lookahead_value": {"own": "its own orders", "margin": "its orders less the opponent's",
                        "0": "its own orders", "1": "its orders less the opponent's"},
    "lookahead_keep": {"greedy": "the better-scoring one", "plan": "planned",
                       "0": "the better-scoring one", "1": "planned"},
    "lookahead_info": {"fair": "only what a player can know (hidden hands dealt again)",
                       "open": "sees the opponent's hand",
                       "0": "sees the opponent's hand",
                       "1": "only what a player can know (hidden hands dealt again)"},
    "lookahead_corps": {"known": "knows them", "hidden": "does not know them",
                        "0": "knows them", "1": "does not know them"},
    "lookahead_search": {"full": "every candidate all its rollouts",
                         "halving": "every candidate's turn, the best few raced",
                         "race": "every candidate raced until clearly behind",
                         "0": "every candidate all its rollouts",
                         "1": "every candidate's turn, the best few raced",
                         "2": "every candidate raced until clearly behind"},
}


def policy_param_words(name: str) -> str:
    """A policy parameter in words ('g_spend_mode' -> 'when to spend counters')."""
    return _POLICY_FIELDS.get(name, name)


def policy_words(name: str, params: dict | None = None) -> str:
    """One side's policy in words: 'greedy play', 'tuned greedy play (weight of the hand card kept:
    0.5)', 'planning play (lookahead: up to 8 rollouts per candidate, 1 own turn looked ahead)' (up
    to: the race search, the default, stops a candidate clearly behind)."""
    params = dict(params or {})
    if name == "lookahead":
        k, d = params.pop("lookahead_k", 8), params.pop("lookahead_d", 2)
        search = str(params.get("lookahead_search", int(DEFAULTS["lookahead"]["lookahead_search"])))
        raced = search in ("race", str(SEARCHES["race"]))
        head = f"planning play (lookahead: {'up to ' * raced}{_count(k)} " \
               f"rollout{'s' * (float(k) != 1)} per candidate, " \
               f"{_count(d)} own turn{'s' * (float(d) != 1)} looked ahead"
        rest = "".join(f", {policy_param_words(p)}: {value_words(p, v)}" for p, v in params.items())
        return head + rest + ")"
    words = _VALUE_WORDS["policy"].get(name, name)
    if not params:
        return words
    listed = ", ".join(f"{policy_param_words(p)}: {value_words(p, v)}" for p, v in params.items())
    return f"tuned {words} ({listed})" if name == "greedy" else f"{words} ({listed})"


def policy_label(text: str) -> str:
    """One side's policy as written ('lookahead:lookahead_k=8;lookahead_d=1') in words
    (`policy_words`: 'planning play (lookahead: up to 8 rollouts per candidate, 1 own turn looked
    ahead)')."""
    ((name, params),) = parse_policy_option(text, "policy")
    return policy_words(name, params)


def _count(v) -> str:
    f = float(v)
    return str(int(f)) if f.is_integer() else f"{f:g}"


def value_words(path: str, value) -> str:
    """A parameter value in words: 'policy.S.g_spend_mode', 'always' -> 'spend at every chance';
    a value napsim has no words for prints as it is; a list (joined paths) as 'a/b'."""
    if isinstance(value, (list, tuple)):  # paths joined by '+' move together: one value each
        return "/".join(value_words(path, v) for v in value)
    parts = path.split(".")
    field = "policy" if parts[0] == "policy" and len(parts) == 2 else parts[-1]
    if field == "policy" and isinstance(value, str) and ":" in value and "," not in value:
        name, _, rest = value.partition(":")  # 'greedy:keep_weight=0.75' -> tuned greedy play (...)
        params = dict(item.partition("=")[::2] for item in rest.split(";") if "=" in item)
        return policy_words(name.strip(), {k.strip(): v.strip() for k, v in params.items()})
    return _VALUE_WORDS.get(field, {}).get(str(value), str(value))


def setting_words(path: str, value, side_names: dict[str, str] | None = None) -> str:
    """One setting of a sweep point in words: 'Command hand size, both sides: 5'."""
    return f"{parameter_title(path, side_names)}: {value_words(path, value)}"


def parameter_title(path: str, side_names: dict[str, str] | None = None) -> str:
    """Words for a sweep or `--vary` path: 'sides.*.hand' -> 'Command hand size, both sides',
    'sides.S.guerrilla' -> 'Guerrilla counters at the start, Spanish' (with `side_names`
    {'S': 'Spanish'}). A path napsim has no words for keeps its own spelling."""
    names = side_names or {}
    parts = path.split(".")

    def who(key: str) -> str:
        return "both sides" if key == "*" else names.get(key, f"side {key}")

    if len(parts) == 3 and parts[0] == "sides" and parts[2] in _SIDE_FIELDS:
        return f"{_SIDE_FIELDS[parts[2]]}, {who(parts[1])}"
    if len(parts) == 5 and parts[0] == "sides" and parts[2] == "sections" and parts[4] in _UNIT_WORDS:
        sec = "every section" if parts[3] == "*" else f"the {SECTION_WORDS.get(parts[3], parts[3])} section"
        return f"{_UNIT_WORDS[parts[4]]} in {sec}, {who(parts[1])}"
    if len(parts) == 2 and parts[0] == "scenario" and parts[1] in _SCENARIO_FIELDS:
        return _SCENARIO_FIELDS[parts[1]]
    if len(parts) == 2 and parts[0] == "policy":
        return f"Policy, {who(parts[1])}"
    if len(parts) == 3 and parts[0] == "policy" and parts[2] in _POLICY_FIELDS:
        text = _POLICY_FIELDS[parts[2]]
        return f"Policy: {text}, {who(parts[1])}"
    if len(parts) == 2 and parts[0] == "rules":
        return f"Rule option '{parts[1]}'"
    return _TOP.get(path, path)
