"""How cheaper searches of the planning player would choose, judged offline on recorded rollouts.

    python tools/planner_offline.py record SCENARIO SIDE GAMES OUT.npz [--seed N] [--k 16]
    python tools/planner_offline.py evaluate OUT.npz [OUT2.npz ...]
    python tools/planner_offline.py screen TRAIN.npz TEST.npz

`record` plays GAMES games in plain Python (NUMBA_DISABLE_JIT) with the `lookahead` player (rule
P8, its defaults but lookahead_k = --k) for SIDE (0 or 1) and greedy play for the other, and keeps,
for every card choice it plans, what each ply of each candidate's every rollout added to its value
(the planner's own rollouts, on common random numbers; candidates in greedy order, greedy's choice
first), with the candidates' card codes and greedy scores. Slow: about
10 s a game of EPIC and 40 s of La Grande Battles on the 2-core VM.

`evaluate` splits each decision's rollouts in two halves: a search chooses from the first half
only, and the second half (independent rollouts) values its choice without the winner's curse.
For each search it prints the mean gain a decision over greedy's choice (the second half's value
of the choice less greedy's, with a 95% interval), the share of the full search's gain, and how
many times fewer rollouts it plays than the full search (every candidate every rollout of the
first half). The searches: full; greedy's best m (`lookahead_top` m); a paired race (every
candidate in the race plays each rollout; after r0 rollouts a candidate leaves once its mean
difference to the leader is below 0 by more than z standard errors, its own or pooled over the
race). `screen TRAIN.npz TEST.npz` fits a screen on one EPIC recording (the candidates' card types
and greedy's score, least squares) and judges it on another: greedy's choice and the screen's best
few race at 8 or 4 rollouts. Used for the planner's search (docs/speed.md, "The planner's search
judged offline").
"""

from __future__ import annotations

import os
import sys

import numpy as np


def record(scenario: str, side: int, games: int, out: str, seed: int = 7, k: int = 16) -> None:
    """Play and keep every planned card choice's rollout values ([candidate, rollout] each)."""
    os.environ["NUMBA_DISABLE_JIT"] = "1"  # before numba loads: the planner as plain Python
    from napsim.engine import planner
    from napsim.sim.packing import Simulation

    decisions: list[np.ndarray] = []
    extras: list[tuple] = []
    plain_rollouts = planner._rollout_values
    plain_gain = planner.ply_gain

    def rollout_values(step, ply, p, n, *rest):
        scratch, tab = rest[-1], rest[3]
        codes = scratch.cand[:n, planner.CA_CODE].copy()  # before the search writes over them
        scores = scratch.cscore[:n].copy()
        gains: list[float] = []

        def gain(*args):
            g, w = plain_gain(*args)
            gains.append(g)
            return g, w

        planner.ply_gain = gain
        try:
            plain_rollouts(step, ply, p, n, *rest)
        finally:
            planner.ply_gain = plain_gain
        if step == planner.STEP_CHOICE and n > 1:  # rollouts k, then candidates m, then plies
            decisions.append(np.asarray(gains).reshape(k, n, -1).transpose(1, 0, 2).copy())
            extras.append((codes, scores, tab.ctab.shape[0] - 1))

    planner._rollout_values = rollout_values
    pols = [("greedy", {}), ("greedy", {})]
    pols[side] = ("lookahead", {"lookahead_k": k, "lookahead_search": "full"})
    sim = Simulation.build(scenario, tuple(pols))
    for g in range(games):
        sim.run(1, seed + g, chunk=1)
        print(f"game {g + 1} of {games}: {len(decisions)} card choices", file=sys.stderr)
    arrays = {}
    for i, (v, (codes, scores, void)) in enumerate(zip(decisions, extras, strict=True)):
        arrays[f"v{i}"], arrays[f"code{i}"], arrays[f"score{i}"] = v, codes, scores
        arrays[f"void{i}"] = np.int64(void)
    np.savez_compressed(out, **arrays)


def load(paths: list[str]) -> list[dict]:
    """The recorded card choices: each {v: [candidate, rollout, ply] values, code: the
    candidates' card codes (hand type * (void + 1) + rack type in EPIC), score: their greedy
    scores (inf: greedy's choice), void: the no-card type}."""
    rec = []
    for path in paths:
        with np.load(path) as f:
            for i in range(sum(name.startswith("v") and name[1:].isdigit() for name in f.files)):
                rec.append({key: f[f"{key}{i}"] for key in ("v", "code", "score", "void")})
    return rec


def _choose(v: np.ndarray, cols: int, idx: list[int]) -> int:
    """The candidate of idx with the highest mean over the first `cols` rollouts (ties: earlier)."""
    s = v[idx, :cols].mean(axis=1)
    return idx[int(np.flatnonzero(s >= s.max() - 1e-9)[0])]


def full(v: np.ndarray, k: int, top: int = 0) -> tuple[int, int]:
    """Every candidate (greedy's best `top`, 0: all) every one of k rollouts: (choice, rollouts)."""
    n = v.shape[0] if top == 0 else min(top, v.shape[0])
    return _choose(v, k, list(range(n))), n * k


def race(v: np.ndarray, k: int, z: float, r0: int = 2, pooled: bool = True,
         top: int = 0) -> tuple[int, int]:
    """The paired race of the module text: (choice, rollouts played)."""
    alive = list(range(v.shape[0] if top == 0 else min(top, v.shape[0])))
    played = 0
    r = 0
    while r < k and len(alive) > 1:
        played += len(alive)
        r += 1
        if r < r0:
            continue
        x = v[alive, :r]
        lead = _choose(x, r, list(range(len(alive))))
        d = x - x[lead]
        var = d.var(axis=1, ddof=1)
        others = [i for i in range(len(alive)) if i != lead]
        se = np.sqrt((var[others].mean() if pooled else var) / r)
        se = np.broadcast_to(se, (len(alive),))
        alive = [alive[i] for i in range(len(alive))
                 if i == lead or d[i].mean() + z * se[i] >= -1e-9]
    return _choose(v, max(r, 1), alive), played


def evaluate(paths: list[str]) -> None:
    """Print each search's gain a decision over greedy's choice and its cost (module text)."""
    rec = [d["v"].sum(axis=2) for d in load(paths)]
    k = rec[0].shape[1] // 2
    searches = {"full": lambda i, v: full(v, k)}
    for top in (2, 3, 4, 8):
        searches[f"greedy's best {top}"] = lambda i, v, top=top: full(v, k, top)
    for pooled in (True, False):
        for z in (1.0, 1.5, 2.0, 2.5):
            for r0 in (2, 3):
                for top in (0, 8):
                    name = (f"race z {z}, from {r0}, {'pooled' if pooled else 'own'} se"
                            + (f", best {top}" if top else ""))
                    searches[name] = (lambda i, v, z=z, r0=r0, pooled=pooled, top=top:
                                      race(v, k, z, r0, pooled, top))
    print(f"{len(rec)} card choices from {', '.join(paths)}; {np.mean([len(v) for v in rec]):.1f} "
          f"candidates on average; {k} rollouts choose, {k} value the choice")
    _print_searches(searches.items(), rec, k)


def _print_searches(searches, rec: list[np.ndarray], k: int) -> None:
    """One line a search ((name, search(i, v) -> (choice, rollouts played)) over the choices' values
    rec, [candidate, rollout] each): its gain a decision over greedy's choice on the second k
    rollouts, the share of the first search's (full's) and how many times fewer rollouts."""
    full_cost = sum(v.shape[0] * k for v in rec)
    reference = None
    for name, search in searches:
        gains, cost = [], 0
        for i, v in enumerate(rec):
            choice, played = search(i, v)
            later = v[:, k:].mean(axis=1)
            gains.append(later[choice] - later[0])
            cost += played
        gains = np.asarray(gains)
        mean, half = gains.mean(), 1.96 * gains.std(ddof=1) / np.sqrt(len(gains))
        reference = mean if reference is None else reference
        saving = f"{full_cost / cost:4.1f}x fewer rollouts" if cost else "no rollouts"
        print(f"{name:38s} {mean:+.4f} [{mean - half:+.4f}, {mean + half:+.4f}] a decision, "
              f"{mean / reference:4.0%} of full's, {saving}")


def card_features(d: dict) -> np.ndarray:
    """A recorded choice's candidates as features of a fitted screen (EPIC): the hand card's type
    played, the rack card's type taken (one column each per type) and greedy's score (greedy's own
    choice, scored inf, just above the best other), centred over the candidates."""
    types = int(d["void"]) + 1
    n = len(d["code"])
    x = np.zeros((n, 2 * types + 1))
    x[np.arange(n), d["code"] // types] = 1.0
    x[np.arange(n), types + d["code"] % types] = 1.0
    score = d["score"].astype(float)
    finite = np.isfinite(score)
    x[:, -1] = np.where(finite, score, (score[finite].max() if finite.any() else 0.0) + 0.01)
    return x - x.mean(axis=0)


def fit_screen(train: list[dict], k: int, ridge: float = 1.0) -> np.ndarray:
    """Least squares (ridge) of the candidates' mean value over the first k rollouts, centred per
    choice, on card_features: the screen's weights."""
    x = np.vstack([card_features(d) for d in train])
    y = np.concatenate([(t := d["v"][:, :k].sum(axis=2).mean(axis=1)) - t.mean() for d in train])
    return np.linalg.solve(x.T @ x + ridge * np.eye(x.shape[1]), x.T @ y)


def evaluate_screen(train_path: str, test_path: str) -> None:
    """A screen fitted on one recording (card_features) ranks the other's candidates; greedy's
    choice and the screen's best top - 1 others play k rollouts each; printed as `evaluate` does."""
    train, test = load([train_path]), load([test_path])
    k = test[0]["v"].shape[1] // 2
    w = fit_screen(train, k)
    screens = [card_features(d) @ w for d in test]
    values = [d["v"].sum(axis=2) for d in test]

    def screened(i: int, v: np.ndarray, top: int, k_top: int) -> tuple[int, int]:
        s = screens[i]
        if top == 1:
            return int(np.argmax(s)), 0
        order = [int(m) for m in np.argsort(-s, kind="stable") if m != 0]
        return _choose(v, k_top, ([0] + order)[:top]), top * k_top

    print(f"screen fitted on {train_path} ({len(train)} choices), tested on {test_path} "
          f"({len(test)})")
    rows = [("full", lambda i, v: full(v, k)), ("screen alone", lambda i, v: screened(i, v, 1, 0))]
    rows += [(f"screen, best {top} at {k_top} rollouts",
              lambda i, v, top=top, k_top=k_top: screened(i, v, top, k_top))
             for top in (2, 3, 4) for k_top in (k, k // 2)]
    _print_searches(rows, values, k)


def main(argv: list[str]) -> int:
    if argv[:1] == ["record"] and len(argv) >= 5:
        opts = dict(zip(argv[5::2], argv[6::2], strict=False))
        record(argv[1], int(argv[2]), int(argv[3]), argv[4], int(opts.get("--seed", 7)),
               int(opts.get("--k", 16)))
        return 0
    if argv[:1] == ["screen"] and len(argv) == 3:
        evaluate_screen(argv[1], argv[2])
        return 0
    if argv[:1] == ["evaluate"] and len(argv) >= 2:
        evaluate(argv[1:])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
