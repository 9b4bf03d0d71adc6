"""Which unknown card counts matter (`napsim sensitivity`): the paired change of an answer per card
when one card type's count moves one card down and one up within its plausible range.

A question is a summary metric of one side (`side`), the gap between the sides (`gap`: second -
first) or the setting where the sides are even (`crossing`, as `napsim balance --equalize` finds
it). A card type is a row of the deck file with a plausible range (`count_min`..`count_max`), or
rows tied by `count_tie`, which move together (one more of each); with `all_types`, every row, each
one card down and up whatever its range. The file's deck, each moved deck and each plausible deck
play the same games (seed and game indices: common random numbers), so every change is paired and
its 95% interval comes from the per-game influences (`napsim.sim.summary`). A moved deck keeps
every other count, so its total is one card (a step) more or less: the change per card is the
partial effect of that count, the first-order term of the answer in the counts.

The crossing of a moved deck is interpolated in the bracket the file's deck found (its two settings
played on the moved deck), searched afresh only where the sign change leaves that bracket.

`ensemble_check` adds the per-card effects up over N plausible decks (`Deck.plausible`) and sets
the predicted answers beside those played: how close the first-order picture is to the deck
ensemble's spread on the same question.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from napsim.model.cards import Deck, load_deck
from napsim.model.defaults import SEED, SIM_CHUNK
from napsim.model.errors import NapsimInputError, check_seed
from napsim.sim.packing import Simulation
from napsim.sim.summary import Estimate, crossing_estimate
from napsim.study.balance import Balance, find_balance, parse_vary
from napsim.study.deck_ensemble import check_ensemble
from napsim.study.variants import PlayedGames, Variant, check_counts, check_metrics

KINDS = ("side", "gap", "crossing")


@dataclass(frozen=True)
class Question:
    """What is asked: `metric` of side `sides[0]` (kind side), `sides[1]` - `sides[0]` (gap), or the
    setting of `vary` ('path=LO..HI') where the two are equal (crossing)."""

    kind: str
    metric: str
    sides: tuple[str, ...]
    vary: str | None = None


@dataclass(frozen=True)
class CardUnit:
    """Rows of the deck that move together (a tie group, or one row) and their range."""

    name: str
    rows: tuple[int, ...]
    count: int
    low: int
    high: int
    estimated: bool   # a plausible range in the deck file (else moved on request only)


def card_units(deck: Deck, all_types: bool = False) -> list[CardUnit]:
    """The card types whose count moves: those with a plausible range, or every row (`all_types`:
    a confirmed row moves one card down and up past its fixed count)."""
    c = deck.cards
    groups: dict[str, list[int]] = {}
    for i, tie in enumerate(c["count_tie"]):
        groups.setdefault(tie or f"\0{i}", []).append(i)
    out = []
    for rows in groups.values():
        r = rows[0]
        count, lo, hi = (int(c[k].iat[r]) for k in ("count", "count_min", "count_max"))
        ranged = lo < hi
        if not ranged and not all_types:
            continue
        if not ranged:
            lo, hi = max(count - 1, 0), count + 1
        name = " + ".join(c["name"].iat[i] for i in rows)
        out.append(CardUnit(name, tuple(rows), count, lo, hi, ranged))
    return out


def deck_with(deck: Deck, counts: np.ndarray) -> Deck:
    """The deck with these counts (its total follows them); its own hash, as a plausible deck's."""
    cards = deck.cards.copy()
    cards["count"] = counts
    digest = hashlib.sha256((deck.sha256 + ":" + ",".join(map(str, counts))).encode())
    return dataclasses.replace(deck, cards=cards, sha256=digest.hexdigest())


class Answerer:
    """The question answered on any deck with the same games; the file's deck first."""

    def __init__(self, base: Variant, q: Question, games: int, seed: int, chunk: int,
                 progress: Callable[[str], None] | None = None):
        self.base, self.q, self.games, self.seed, self.chunk = base, q, games, seed, chunk
        self.progress = progress
        sc, deck, policies = base.inputs()
        self.policies = policies
        self.scenario = sc
        self.deck = load_deck(deck or sc.deck)
        keys = [s.key for s in sc.sides]
        for k in q.sides:
            if k not in keys:
                raise NapsimInputError("--side", "side", f"unknown side '{k}'", ", ".join(keys))
        self.idx = tuple(keys.index(k) for k in q.sides)
        self.balance: Balance | None = None
        if q.kind == "crossing":
            self.vary = parse_vary(q.vary or "", base)
            self.balance = find_balance(base, self.vary, q.metric, list(q.sides), games=games, seed=seed,
                                        chunk=chunk, progress=progress)

    def _played(self, deck: Deck, overrides: Variant) -> PlayedGames:
        sc, _, policies = overrides.inputs()
        p = PlayedGames(Simulation.build(sc, policies, deck), self.seed, self.chunk, metrics=[self.q.metric])
        p.play_to(self.games)
        return p

    def _value(self, est: list[Estimate | None], where: str) -> Estimate:
        for i in self.idx:
            if est[i] is None:
                raise NapsimInputError("--metric", self.q.metric,
                                       f"counts nothing for side {self.q.sides[self.idx.index(i)]} {where}",
                                       "a metric of that side")
        if len(self.idx) == 1:
            return est[self.idx[0]]
        return est[self.idx[1]].minus(est[self.idx[0]])

    def answer(self, deck: Deck | None = None) -> Estimate | None:
        """The answer on `deck` (the file's when None); None for a crossing outside the range."""
        deck = self.deck if deck is None else deck
        if self.q.kind != "crossing":
            return self._value(self._played(deck, self.base).estimates(self.q.metric), "in these games")
        b = self.balance
        a, c = b.bracket
        if deck is self.deck:
            return crossing_estimate(a, b.setting(a).f, c, b.setting(c).f)
        ends = []
        for v in (a, c):
            p = self._played(deck, self.base.with_override(self.vary.path, _cast(self.vary, v)))
            ends.append(self._value(p.estimates(self.q.metric), f"at {self.vary.path}={v}"))
        if (ends[0].value >= 0) != (ends[1].value >= 0) and ends[0].value != ends[1].value:
            return crossing_estimate(a, ends[0], c, ends[1])
        fresh = find_balance(self.base, self.vary, self.q.metric, list(self.q.sides), games=self.games,
                             seed=self.seed, chunk=self.chunk, deck=deck, no_crossing_ok=True)
        if not fresh.crossed:
            return None
        lo, hi = fresh.bracket
        return crossing_estimate(lo, fresh.setting(lo).f, hi, fresh.setting(hi).f)


def _cast(vary, v: float):
    return int(v) if vary.integer else float(v)


@dataclass
class Sensitivity:
    """What `card_sensitivity` returns: one row per card type (`frame`, ranked), the file deck's
    answer, and the ensemble check when asked (`check`, `check_frame`)."""

    question: Question
    base: Variant
    deck: Deck
    games: int
    seed: int
    all_types: bool
    answer: Estimate
    frame: pd.DataFrame
    balance: Balance | None = None
    check: dict | None = None
    check_frame: pd.DataFrame | None = None
    side_names: dict | None = None


COLUMNS = ["rank", "card_type", "cards_per_step", "count", "count_min", "count_max", "estimated",
           "change_down", "down_low", "down_high", "change_up", "up_low", "up_high",
           "per_card", "ci_low", "ci_high", "half_width", "inside_noise", "n"]


def card_sensitivity(base: Variant, q: Question, games: int = 4000, seed: int = SEED,
                     chunk: int = SIM_CHUNK, all_types: bool = False, ensemble: int | None = None,
                     progress: Callable[[str], None] | None = None) -> Sensitivity:
    """Every card type's paired change of the answer per card (see the module docstring), ranked by
    its size; with `ensemble` (N) the first-order check against N plausible decks."""
    check_seed(seed)
    check_counts(games, chunk)
    check_question(q)
    if ensemble is not None:
        check_ensemble(ensemble)
    ans = Answerer(base, q, games, seed, chunk, progress)
    base_est = ans.answer()
    if base_est is None:  # pragma: no cover - find_balance raised already
        raise NapsimInputError("--vary", "vary", "no crossing on the deck file's counts", "a wider range")
    units = card_units(ans.deck, all_types)
    if not units:
        raise NapsimInputError("--deck", "deck", f"'{ans.deck.name}' has no card count with a plausible "
                               "range (count_min, count_max)", "a deck with ranges, or --all-types")
    rows = []
    counts = ans.deck.counts
    for k, u in enumerate(units):
        moved = {}
        for step in (-1, 1):
            c = u.count + step
            if u.low <= c <= u.high:
                new = counts.copy()
                new[list(u.rows)] = c
                moved[step] = ans.answer(deck_with(ans.deck, new))
        rows.append(_row(u, base_est, moved))
        if progress:
            progress(f"card type {k + 1} of {len(units)}: {u.name}")
    frame = pd.DataFrame(rows)
    frame = frame.assign(_a=frame["per_card"].abs().fillna(-1)).sort_values("_a", ascending=False,
                                                                              kind="stable")
    frame = frame.drop(columns="_a").reset_index(drop=True)
    frame.insert(0, "rank", np.arange(1, len(frame) + 1))
    res = Sensitivity(q, base, ans.deck, games, seed, all_types, base_est, frame[COLUMNS],
                      ans.balance, side_names=ans.scenario.side_names)
    if ensemble is not None:
        res.check, res.check_frame = ensemble_check(ans, base_est, units, frame, ensemble, seed, progress)
    return res


def check_question(q: Question) -> None:
    """One line for a question that cannot be asked."""
    check_metrics([q.metric])
    if q.kind not in KINDS:
        raise NapsimInputError("--question", "question", f"unknown question '{q.kind}'", ", ".join(KINDS))
    want = 1 if q.kind == "side" else 2
    if len(q.sides) != want or len(set(q.sides)) != want:
        where = {"side": "--side", "gap": "--gap", "crossing": "--equalize"}[q.kind]
        n = len(q.sides)
        raise NapsimInputError(where, "side", f"{n} side key{'' if n == 1 else 's'} given",
                               "one side key" if want == 1 else "two different side keys, e.g. F,S")
    if (q.kind == "crossing") != (q.vary is not None):
        raise NapsimInputError("--vary", "vary", "a crossing needs --vary, and only a crossing takes it",
                               "--vary PATH=LOW..HIGH with --equalize KEY,KEY")


def _row(u: CardUnit, base: Estimate, moved: dict[int, Estimate | None]) -> dict:
    """One card type: the change one card down and one up (paired, B - file's deck), and per card."""
    row = dict(card_type=u.name, cards_per_step=len(u.rows), count=u.count, count_min=u.low,
               count_max=u.high, estimated=u.estimated, n=base.n)
    for step, key in ((-1, "down"), (1, "up")):
        e = moved.get(step)
        d = e.minus(base) if e is not None else None
        h = d.half_width if d is not None else math.nan
        row[f"change_{key}"] = d.value if d is not None else math.nan
        row[f"{key}_low"], row[f"{key}_high"] = ((d.value - h, d.value + h) if d is not None
                                                 else (math.nan, math.nan))
    down, up = moved.get(-1), moved.get(1)
    if down is not None and up is not None:
        per = Estimate((up.value - down.value) / 2, (up.influence - down.influence) / 2)
    elif up is not None:
        per = up.minus(base)
    elif down is not None:
        per = base.minus(down)
    else:
        per = None
    h = per.half_width if per is not None else math.nan
    row.update(per_card=per.value if per is not None else math.nan,
               ci_low=per.value - h if per is not None else math.nan,
               ci_high=per.value + h if per is not None else math.nan, half_width=h,
               inside_noise=bool(per is None or (per.value - h <= 0 <= per.value + h)))
    return row


CHECK_COLUMNS = ["deck_index", "answer", "half_width", "predicted"]


def ensemble_check(ans: Answerer, base: Estimate, units: Sequence[CardUnit], frame: pd.DataFrame, n: int,
                   seed: int, progress=None) -> tuple[dict, pd.DataFrame]:
    """The per-card effects added up over N plausible decks (first order: answer + sum of effect x
    count moved) against the answers those decks give on the same games."""
    per = dict(zip(frame["card_type"], frame["per_card"].fillna(0.0), strict=True))
    rows = []
    for k, dk in enumerate(ans.deck.plausible(n, seed)):
        e = ans.answer(dk)
        moved = sum(per[u.name] * (int(dk.counts[u.rows[0]]) - u.count) for u in units)
        rows.append(dict(deck_index=k, answer=e.value if e is not None else math.nan,
                         half_width=e.minus(base).half_width if e is not None else math.nan,
                         predicted=base.value + moved))
        if progress:
            progress(f"plausible deck {k + 1} of {n}")
    df = pd.DataFrame(rows, columns=CHECK_COLUMNS)
    ok = df.dropna(subset=["answer"])
    a, p = ok["answer"].to_numpy(float), ok["predicted"].to_numpy(float)
    sd = lambda x: float(np.std(x, ddof=1)) if len(x) > 1 else math.nan  # noqa: E731
    corr = float(np.corrcoef(a, p)[0, 1]) if len(a) > 2 and sd(a) > 0 and sd(p) > 0 else math.nan
    return dict(decks=n, answered=len(ok), deck_seed=seed, sd_played=sd(a), sd_predicted=sd(p),
                min_played=float(a.min()) if len(a) else math.nan,
                max_played=float(a.max()) if len(a) else math.nan,
                min_predicted=float(p.min()) if len(p) else math.nan,
                max_predicted=float(p.max()) if len(p) else math.nan, correlation=corr,
                rms_error=float(np.sqrt(np.mean((a - p) ** 2))) if len(a) else math.nan,
                mc_half_width=float(ok["half_width"].max()) if len(ok) else math.nan), df
