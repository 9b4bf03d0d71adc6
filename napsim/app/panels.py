"""The panels of the `napsim app` page (Streamlit): scenario (the readings of the rules and, apart,
the house rules), the answer, compare, balance, one game, take it away, card counts. A thin client:
every number, interval and sentence comes from the Python API
(`napsim.api`, through the jobs of `napsim.app.jobs` on the one kernel worker); every value goes
through the model layer (`napsim.app.form`: fields and uploaded files), whose one-line error is shown
beside the field. Nothing here computes a rule or a statistic.
"""

from __future__ import annotations

import time

import altair as alt
import pandas as pd
import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from napsim import api, api_balance_across, api_sensitivity
from napsim.app import charts, form, jobs, link
from napsim.app.charts import balance_chart, section_chart
from napsim.app.jobs import Settings
from napsim.app.worker import Cancelled, worker
from napsim.model.cards import load_deck
from napsim.model.defaults import SEED
from napsim.model.errors import NapsimInputError, check_run
from napsim.model.glossary import CARD_FLOW, GLOSSARY, field_help, glossary_markdown
from napsim.model.metrics import metric_title
from napsim.model.scenarios import load_scenario, parse_overrides, starting_counters
from napsim.output import variants
from napsim.output.balance_across import across_frame
from napsim.output.sensitivity import findings
from napsim.output.tracefmt import trace_parts

UPLOAD = link.PICK_UPLOAD
POLICY_HELP = ("greedy: the best-scoring play of this turn; lookahead: plans each choice over the "
               "next turns by rollouts (a few hundred times slower; in La Grande Battles the CIC's "
               "gifts; a Spanish side's Guerrilla spend and, in EPIC, which Scout card to keep too), "
               "counting its orders less the opponent's "
               "(lookahead:lookahead_value=own counts its own only); random: any legal play")
TABS = ["The answer", "Compare", "Balance", "One game", "Take it away", "Card counts"]
SENSITIVITY_METRICS = ("effective_per_turn", "nominal_per_turn", "orders_per_turn")
SECTION_ROWS = ("effective_per_turn_L", "effective_per_turn_C", "effective_per_turn_R")
EFFECTIVE_HELP = dict(GLOSSARY)["Effective orders a turn"]
UNIT_SHORT = {"infantry": "inf", "cavalry": "cav", "artillery": "art", "leaders": "leaders",
              "spanish": "Spanish"}


def _session() -> str:
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else "local"


N_WORDS = {"mean_per_game": "games", "mean_per_turn": "turns played", "rate": "trials"}


def _n_words(r) -> str:
    """n of a summary row and what it counts: '60,000 turns played', '2,000 games'."""
    return f"{int(r.n):,} {N_WORDS.get(getattr(r, 'kind', ''), '')}".strip()


def _interval(r) -> str:
    return f"{r.value:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]"


# --------------------------------------------------------------------------------------------
# waiting for the kernel worker


def _wait(job, slot, label: str, on_partial=None, compiling: int | None = None):
    """Wait for a job, its progress in `slot`; `on_partial` draws a first answer as it comes. Every
    pass touches the page, where Streamlit stops this run when the user changed a setting."""
    t0 = st.session_state.setdefault("compile_t0", time.time()) if compiling else time.time()
    shown = None
    while not job.wait(0.05):
        if job.partial is not None and job.partial is not shown and on_partial is not None:
            on_partial(job.partial)
            shown = job.partial
            compiling = None
        if compiling and job.partial is None:
            frac = min(0.95, (time.time() - t0) / compiling)
            slot.progress(frac, text=f"compiling napsim's engine (first run only, about {compiling} s) ...")
        else:
            slot.progress(min(1.0, job.progress), text=f"{label}: {job.progress:.0%}")
    slot.empty()
    return job.result()


def _run(kind: str, fn, *args, slot=None, label="playing games", on_partial=None, compiling=None):
    """A job of this tab on the worker (superseding the tab's older one of this kind), waited for."""
    job = worker().submit((_session(), kind), fn, *args)
    try:
        return _wait(job, slot or st.empty(), label, on_partial, compiling)
    except Cancelled:
        st.stop()


# --------------------------------------------------------------------------------------------
# scenario


def _scenario_ref(errs: dict) -> tuple[str, str] | None:
    """(scenario for the API, its name for the user) from the picker or an upload."""
    choices = form.scenario_choices()
    words = dict(choices)
    pick = st.selectbox("Scenario", [n for n, _ in choices] + [UPLOAD], key="scenario",
                        format_func=lambda n: n if n == UPLOAD else f"{n}: {words[n]}")
    if pick != UPLOAD:
        st.caption(words[pick])
        return pick, pick
    up = st.file_uploader("Scenario file (.toml)", type=["toml"], key="scenario_file")
    linked = link.linked_upload("scenario") if up is None else None
    if linked is not None:  # it came in the link
        return form.scenario_upload(*linked), linked[0]
    if up is None:
        st.info("Upload a scenario TOML (`napsim scenarios new NAME` writes a template).")
        return None
    try:
        return form.scenario_upload(up.name, up.getvalue()), up.name
    except NapsimInputError as e:
        st.error(str(e))
        errs[form.SCENARIO] = str(e)
        return None


def _deck_ref(scenario: str, default: str, errs: dict) -> tuple[str | None, str | None]:
    """(deck for the API or None for the scenario's, its name for the user)."""
    decks = form.deck_choices()
    index = decks.index(default) if default in decks else 0
    pick = st.selectbox("Command deck", decks + [UPLOAD], index=index, key=f"deck|{scenario}")
    if pick == UPLOAD:
        up = st.file_uploader("Deck file (.csv)", type=["csv"], key="deck_file")
        linked = link.linked_upload("deck") if up is None else None
        if linked is not None:  # it came in the link
            return form.deck_upload(*linked), linked[0]
        if up is None:
            return None, None
        try:
            return form.deck_upload(up.name, up.getvalue()), up.name
        except NapsimInputError as e:
            errs[form.DECK] = str(e)
            return None, None
    warning = load_deck(pick).estimated_warning()
    if warning:
        st.warning(warning)
    return (None, None) if pick == default else (pick, pick)


def _widget(f: form.Field, key: str, label: str | None = None):
    label = label or f.label
    words = f.help or field_help(f.path) or None
    if f.kind == "int":
        return st.number_input(label, value=int(f.value), step=1, key=key, help=words)
    if f.kind == "choice":
        choices = list(f.choices)
        return st.selectbox(label, choices, index=choices.index(f.value), key=key, help=words)
    text = st.text_input(label, ", ".join(map(str, f.value)), key=key,
                         help=f"{words or ''} Three whole numbers: left, centre, right wing.".strip())
    return parse_overrides([f"v=[{text}]"]).get("v") if text.strip() else []


def _side_block(fs: list[form.Field], base: str, values: dict, slots: dict) -> None:
    for f in [f for f in fs if not f.section]:
        values[f.path] = _widget(f, f"{base}|{f.path}", f.label.rsplit(",", 1)[0])
        slots[f.path] = st.empty()
    with st.expander("Units per section"):
        for sec in dict.fromkeys(f.section for f in fs if f.section):
            cols = st.columns(5)
            for col, f in zip(cols, [f for f in fs if f.section == sec], strict=True):
                with col:
                    unit = f.path.rsplit(".", 1)[1]
                    values[f.path] = _widget(f, f"{base}|{f.path}", f"{sec} {UNIT_SHORT[unit]}")
                    slots[f.path] = st.empty()


def _pool_options(scenario: str) -> tuple:
    """The Guerrilla box: whether the pool on screen is kept when the starting counters change (else
    they come from it), and where the box's counts are said."""
    keep = st.checkbox("Keep this pool when the starting counters change (the box grows or shrinks)",
                       key=f"{scenario}|keep_pool")
    return keep, st.empty()


def _pool_caption(scenario: str, sets: dict, values: dict, keep: bool, slot) -> None:
    """With 'keep' the pool on screen is always sent (it moves the box); the box's counts in words."""
    if keep:
        sets["scenario.guerrilla_pool"] = values["scenario.guerrilla_pool"]
    sc = form.loads(scenario, sets)
    if sc is not None:
        start = starting_counters(sc)
        slot.caption(f"The Guerrilla box holds {start + sc.guerrilla_pool}: {start} at the start, "
                     f"{sc.guerrilla_pool} unacquired.")


def scenario_panel() -> tuple[Settings | None, dict]:
    """The settings on screen (None while a field is in error, each error shown beside its field)
    and the run options {games, seed}."""
    errs: dict[str, str] = {}
    st.header("Scenario")
    ref = _scenario_ref(errs)
    if ref is None:
        return None, {}
    scenario, label = ref
    try:
        base_sc = load_scenario(scenario)
    except NapsimInputError as e:
        st.error(str(e))
        return None, {}
    base = {f.path: f.value for f in form.fields(scenario, base_sc)}
    format_key = f"{scenario}|scenario.format"
    game_format = st.session_state.get(format_key, base_sc.format)
    sc = form.loads(scenario, {"scenario.format": game_format}) or base_sc
    fs = form.fields(scenario, sc)
    deck, deck_label = _deck_ref(scenario, base_sc.deck, errs)
    deck_slot = st.empty()
    values: dict = {}
    slots: dict = {}
    for f in [f for f in fs if f.group == form.SCENARIO]:
        values[f.path] = _widget(f, f"{scenario}|{f.path}")
        slots[f.path] = st.empty()
    box = _pool_options(scenario) if "scenario.guerrilla_pool" in values else None
    policies = []
    for side in sc.sides:
        with st.expander(f"{side.name} (sides.{side.key})", expanded=side is sc.sides[0]):
            policies.append(st.selectbox(f"Policy, {side.name}", form.POLICIES, key=f"policy|{side.key}",
                                         help=POLICY_HELP))
            _side_block([f for f in fs if f.group == side.key], scenario, values, slots)
    policy_slot = st.empty()
    with st.expander("Rule options (the [rules] table)"):
        for f in [f for f in fs if f.group == "rules"]:
            values[f.path] = _widget(f, f"{scenario}|{f.path}")
            slots[f.path] = st.empty()
            st.caption(f.help)
    house = [f for f in fs if f.group == form.HOUSE]
    if house:
        with st.expander("House rules (not the rules as written; off by default)"):
            for f in house:
                values[f.path] = _widget(f, f"{scenario}|{f.path}")
                slots[f.path] = st.empty()
                st.caption(f.help)
    games = st.number_input("Games", value=jobs.GAMES, step=1000, key="games")
    seed = st.number_input("Seed", value=SEED, step=1, key="seed")
    run_slot = st.empty()
    sets = {p: v for p, v in values.items() if p not in base or base[p] != v}
    if box is not None:
        _pool_caption(scenario, sets, values, *box)
    policy = ",".join(policies)
    if not errs:
        errs = form.errors(scenario, sets, deck, policy)
    try:
        check_run(int(games), int(seed), jobs.CHUNK)
    except NapsimInputError as e:
        errs["games"] = str(e)
    for path, msg in errs.items():
        {form.DECK: deck_slot, form.POLICY: policy_slot, "games": run_slot}.get(
            path, slots.get(path, deck_slot)).error(msg)
    if errs:
        return None, {}
    s = Settings(scenario, tuple(sets.items()), deck, policy, label)
    return s, dict(games=int(games), seed=int(seed), deck_label=deck_label, format=sc.format, sides=sc.sides)


# --------------------------------------------------------------------------------------------
# the answer


def _rows(summary: pd.DataFrame, metric: str) -> pd.DataFrame:
    return summary[summary["metric"] == metric]


def _answer_view(run: api.Simulated, games: int, refining: bool) -> None:
    summ = run.summary
    note = f"first {run.result.games:,} of {games:,} games, refining ..." if refining else f"{games:,} games"
    st.caption(f"{note}; seed {run.result.seed}")
    cols = st.columns(len(run.sim.scenario.sides))
    for col, r in zip(cols, _rows(summ, "effective_per_turn").itertuples(), strict=True):
        col.metric(f"{r.side}: effective orders a turn", f"{r.value:.3f}", help=EFFECTIVE_HELP)
        col.caption(f"95% interval [{r.ci_low:.3f}, {r.ci_high:.3f}], n = {int(r.n):,} turns played")
    st.subheader("Findings")
    st.markdown("\n".join(f"- {t}" for t in run.findings()))
    st.caption(CARD_FLOW)
    by_sec = summ[summ["metric"].isin(SECTION_ROWS)].assign(section=lambda d: d["metric"].str[-1])
    st.subheader("Effective orders a turn, by section (95% intervals)")
    st.altair_chart(section_chart(by_sec), width="stretch")
    extra = [m for m in ("initiative_share", "g_cards_nullified_per_turn", "g_nullification_rate")
             if _rows(summ, m)["n"].gt(0).any() and _rows(summ, m)["value"].fillna(0).gt(0).any()]
    table = summ[summ["metric"].isin([*SECTION_ROWS, "effective_per_turn", "nominal_per_turn", *extra])]
    table = table[~(table["metric"].isin(extra) & table["value"].fillna(0).eq(0))]  # a side without them
    st.dataframe(pd.DataFrame({"side": table["side"], "measure": table["title"], "unit": table["unit"],
                               "value [95% interval]": [_interval(r) for r in table.itertuples()],
                               "n (what the value is measured over)":
                                   [_n_words(r) for r in table.itertuples()]}),
                 hide_index=True)
    waits = run.result.rack_wait_frame()
    if len(waits):
        st.subheader("Turns a card waited on the Courier Rack before it was taken")
        st.altair_chart(alt.Chart(waits).mark_bar().encode(
            x=alt.X("wait_turns:O", title="turns on the rack"), y=alt.Y("cards:Q", title="cards (all games)"),
            color=alt.Color("kind:N", title="card kind")), width="stretch")
    with st.expander("What `napsim simulate` prints"):
        st.text("\n".join(run.lines()))


def answer_panel(s: Settings, opts: dict):
    """The answer: a first batch at once, then the full count (cached by settings), drawn in one
    place so that no number of an older setting stays on screen while the new ones come."""
    games, seed = opts["games"], opts["seed"]
    slot, area = st.empty(), st.empty()
    run = jobs.ANSWERS.get((s, games, seed))
    if run is None:
        compiling = None if api.engine_compiled(opts["format"]) is not False else api.compile_seconds(
            opts["format"])

        def first(partial):
            with area.container():
                _answer_view(partial, games, True)

        if compiling:  # said at once, before the worker takes the first compile
            slot.progress(0.0, text=f"compiling napsim's engine (first run only, about {compiling} s) ...")

        run = _run("answer", jobs.answer, s, games, seed, slot=slot, on_partial=first, compiling=compiling)
    with area.container():
        _answer_view(run, games, False)
    return run


# --------------------------------------------------------------------------------------------
# compare, balance, one game


def compare_panel(s: Settings, opts: dict) -> None:
    left, right = st.columns(2)
    if left.button("Keep as A", key="keep_a", help="the settings on screen become the baseline A"):
        st.session_state["A"] = (s, opts["deck_label"])
    if right.button("Forget A", key="forget_a"):
        st.session_state.pop("A", None)
    kept = st.session_state.get("A")
    if kept is None:
        st.info("Press 'Keep as A': later changes then show B - A, paired on the same games.")
        return
    a, a_deck = kept
    if a == s:
        st.info("A is the settings on screen: change a setting to see B - A.")
        return
    df = _run("compare", jobs.compare, a, s, opts["games"], opts["seed"], label="playing A and B")
    for line in df.attrs.get("answer", []):  # the gap between the sides first, then each side's change
        st.markdown(f"**{line}**" if line is df.attrs["answer"][0] else line)
    st.markdown("\n".join(f"- {t}" for t in df["sentence"]))
    st.caption(CARD_FLOW)
    st.dataframe(compare_view(df), hide_index=True)
    st.code(api.compare_command(a.label, a.sets, s.sets, s.label, a_deck, opts["deck_label"], a.policy,
                                s.policy, opts["games"], opts["seed"]), language="bash")


def compare_view(df: pd.DataFrame) -> pd.DataFrame:
    """The comparison table as the command line prints it: A, B and B - A with the digits their
    interval supports, 'not comparable' where a variant does not count a metric."""
    digits = [variants.decimals(h) for h in df["half_width"]]
    return pd.DataFrame({
        "side": df["side"], "measure": df["title"],
        "A": [variants.number_text(v, d) for v, d in zip(df["a"], digits, strict=True)],
        "B": [variants.number_text(v, d) for v, d in zip(df["b"], digits, strict=True)],
        "B - A [95% interval]": [variants.interval_text(r.difference, r.ci_low, r.ci_high)
                                 for r in df.itertuples()], "n (paired games)": df["n"]})


EVEN, TARGET = "where the sides are even", "where one side reaches a value"


def _balance_goal(keys: tuple[str, ...], names: dict[str, str]) -> tuple:
    """What the search looks for: (equalize, None, None), or (None, side, target) in target mode
    (the command line's --target and --side)."""
    mode = st.radio("Find the setting", [EVEN, TARGET], key="bal_mode", horizontal=True)
    if mode == EVEN:
        return keys, None, None
    c1, c2 = st.columns(2)
    side = c1.selectbox("Side", list(keys), format_func=names.get, key="bal_side")
    target = c2.number_input("Value to reach (effective orders a turn)", value=7.0, step=0.1,
                             key="bal_target")
    return None, side, float(target)


def balance_panel(s: Settings, opts: dict) -> None:
    sc = load_scenario(s.scenario, s.sets)
    fs = form.vary_fields(form.fields(s.scenario, sc), sc.side_names)  # not the rules' options
    labels = {f.path: f.label for f in fs}
    now = {f.path: f.value for f in fs}
    c1, c2, c3 = st.columns([3, 1, 1])
    path = c1.selectbox("Setting to vary", list(labels), format_func=labels.get, key="bal_path",
                        index=next((i for i, f in enumerate(fs) if f.path.endswith(".hand")), 0))
    low = c2.number_input("from", value=max(0, int(now[path]) - 3), step=1, key=f"bal_lo|{path}")
    high = c3.number_input("to", value=int(now[path]) + 3, step=1, key=f"bal_hi|{path}")
    keys = tuple(side.key for side in opts["sides"])
    equalize, side, target = _balance_goal(keys, {side.key: side.name for side in opts["sides"]})
    c4, c5 = st.columns(2)
    games = c4.number_input("Games per setting", value=jobs.BALANCE_GAMES, step=1000, key="bal_games")
    decks = c5.number_input("Plausible decks (0: the deck file only)", value=0, step=1, key="bal_decks")
    vary = f"{path}={int(low)}..{int(high)}"
    across = _across_input([p for p in labels if p != path], labels, now)
    if across is not None:
        return balance_across_view(s, opts, vary, across, equalize, int(games), side, target)
    request = (s, vary, equalize, int(games), opts["seed"], int(decks) or None, side, target)
    res = _asked("balance", jobs.balance, request, "Find the setting", "bal_go",
                 "Pick a setting, a range and what to find, then press the button: napsim plays every "
                 "setting it needs on the same games and answers in whole settings: who leads at each, "
                 "and where the sides are even (or where the side reaches the value), if anywhere in "
                 "the range.", "searching")
    if res is None:
        return
    st.markdown(f"**{res.sentence}**")
    if res.ensemble is not None:
        st.markdown(res.ensemble_sentence)
    st.caption(CARD_FLOW)
    st.altair_chart(balance_chart(res), width="stretch")
    st.code(api.balance_command(s.label, vary, ",".join(equalize) if equalize else None,
                                {k: v for k, v in s.overrides if k != path}, opts["deck_label"], s.policy,
                                int(games), opts["seed"], int(decks) or None, target=target, side=side),
            language="bash")


def _across_input(paths: list[str], labels: dict, now: dict) -> str | None:
    """A second setting and its whole values ('sides.S.guerrilla=0..6'), when asked for."""
    if not st.checkbox("Across a second setting: where the sides are even at each of its values",
                       key="bal_across_on"):
        return None
    c1, c2, c3 = st.columns([3, 1, 1])
    path = c1.selectbox("Second setting", paths, format_func=labels.get, key="bal_across")
    low = c2.number_input("from", value=max(0, int(now[path]) - 3), step=1, key=f"bal_across_lo|{path}")
    high = c3.number_input("to", value=int(now[path]) + 3, step=1, key=f"bal_across_hi|{path}")
    return f"{path}={int(low)}..{int(high)}"


def balance_across_view(s: Settings, opts: dict, vary: str, across: str, equalize, games: int, side,
                        target) -> None:
    """The curve of even settings (`napsim balance --across`): its sentence, each row's, a chart."""
    request = (s, vary, across, equalize, games, opts["seed"], side, target)
    res = _asked("balance_across", jobs.balance_across, request, "Find the even settings", "bal_across_go",
                 "Press the button: napsim balances the first setting at every value of the second, on "
                 "the same games, and draws where the sides are even.", "searching")
    if res is None:
        return
    st.markdown(f"**{res.sentence}**")
    st.altair_chart(charts.across_chart(res), width="stretch")
    st.markdown("\n".join(f"- {t}" for t in across_frame(res)["sentence"]))
    path = vary.partition("=")[0]
    st.code(api_balance_across.balance_across_command(
        s.label, vary, across, ",".join(equalize) if equalize else None,
        {k: v for k, v in s.overrides if k not in (path, across.partition("=")[0])}, opts["deck_label"],
        s.policy, games, opts["seed"], target=target, side=side), language="bash")


def _asked(kind: str, fn, request: tuple, button: str, key: str, info: str, label: str):
    """A tab's answer once its button asked for these inputs (None, with a hint or the error shown,
    until then): played on the worker as `fn(*request)`."""
    if st.button(button, key=key):
        st.session_state[kind] = request
    if st.session_state.get(kind) != request:
        st.info(info)
        return None
    try:
        return _run(kind, fn, *request, label=label)
    except NapsimInputError as e:
        st.error(str(e))
        return None


def sensitivity_panel(s: Settings, opts: dict) -> None:
    """Which unknown card counts move the answer: each estimated count one card down and one up."""
    names = {side.key: side.name for side in opts["sides"]}
    keys = tuple(names)
    c1, c2, c3 = st.columns([2, 2, 1])
    metric = c1.selectbox("Answer", SENSITIVITY_METRICS, format_func=metric_title, key="sens_metric")
    whose = c2.selectbox("Of", [*keys, "gap"], key="sens_whose", format_func=lambda k: names.get(
        k, f"the gap, {names[keys[1]]} - {names[keys[0]]}"))
    games = c3.number_input("Games per deck", value=jobs.SENSITIVITY_GAMES, step=1000, key="sens_games")
    sides = keys if whose == "gap" else (whose,)
    request = (s, metric, sides, int(games), opts["seed"])
    res = _asked("sensitivity", jobs.sensitivity, request, "Rank the card counts", "sens_go",
                 "Every card type with a plausible range in the deck file moves one card down and one up, "
                 "on the same games; press the button to rank them by how much they move the answer.",
                 "moving card counts")
    if res is None:
        return
    st.markdown("\n".join(f"- {t}" for t in findings(res)))
    f = res.frame
    st.altair_chart(alt.Chart(f).mark_bar().encode(
        x=alt.X("per_card:Q", title="change per step (one card more), 95% interval in the tooltip"),
        y=alt.Y("card_type:N", sort=list(f["card_type"]), title=None),
        color=alt.Color("inside_noise:N", title="inside Monte Carlo noise"),
        tooltip=["card_type", "count", "per_card", "ci_low", "ci_high"]), width="stretch")
    st.dataframe(f[["rank", "card_type", "count", "count_min", "count_max", "per_card", "ci_low", "ci_high",
                    "inside_noise"]], hide_index=True)
    st.code(api_sensitivity.sensitivity_command(res), language="bash")


def game_panel(s: Settings, opts: dict) -> None:
    """One game turn by turn: each turn folds, a jump opens any one, long lines wrap."""
    c1, c2, c3 = st.columns([1, 1, 2])
    seed = c1.number_input("Seed", value=opts["seed"], step=1, key="trace_seed",
                           help=dict(GLOSSARY)["Seed"])
    game = c2.number_input("Game index", value=0, step=1, key="trace_game",
                           help="Which game of the run to replay: game 0 is the first one played.")
    try:
        text = _run("trace", jobs.trace, s, int(seed), int(game), label="replaying")
    except NapsimInputError as e:
        st.error(str(e))
        return
    head, turns, tail = trace_parts(text)
    titles = [title.split("  (", 1)[0] for title, _ in turns]
    jump = c3.selectbox("Jump to turn", ["(all folded)", *titles], key="trace_turn")
    st.code(head, language=None, wrap_lines=True)
    for short, (title, body) in zip(titles, turns, strict=True):
        if short == jump:  # the turn jumped to, open at the top; every turn folded below
            st.markdown(f"**{title}**")
            st.code(body, language=None, wrap_lines=True)
    for title, body in turns:
        with st.expander(title):
            st.code(body, language=None, wrap_lines=True)
    if tail:
        st.code(tail, language=None, wrap_lines=True)


# --------------------------------------------------------------------------------------------
# take it away


def takeaway_panel(s: Settings, opts: dict, run: api.Simulated | None = None) -> None:
    """What needs no kernel (the scenario file, the commands); with `run`, the results too."""
    downloads = st.session_state.setdefault("downloads", {})  # what the buttons hand out, by name
    if run is not None:
        downloads["summary.csv"] = run.summary_csv()
        st.download_button("Results as CSV (summary.csv)", downloads["summary.csv"], "summary.csv",
                           "text/csv", key="dl_csv")
        downloads["sections.svg"] = run.section_chart_svg()
        st.download_button("Chart: orders by section (SVG)", downloads["sections.svg"], "sections.svg",
                           "image/svg+xml", key="dl_chart")
        return
    downloads.clear()
    name = s.label.rsplit("/", 1)[-1].removesuffix(".toml")
    toml_name = f"{name}-whatif.toml"
    downloads[toml_name] = api.scenario_toml(s.scenario, s.sets)
    st.download_button("Scenario as TOML", downloads[toml_name], toml_name, "application/toml", key="dl_toml")
    games, seed, deck = opts["games"], opts["seed"], opts["deck_label"]
    st.markdown("The numbers on screen, bit for bit, from the command line:")
    st.code(api.simulate_command(s.label, s.sets, deck, s.policy, games, seed, "out/whatif"), language="bash")
    st.markdown("or with the downloaded scenario file:")
    st.code(api.simulate_command(toml_name, (), deck, s.policy, games, seed, "out/whatif"), language="bash")


def main() -> None:
    """The page below its title (`napsim/app/page.py` shows the title before napsim is imported)."""
    st.caption("Change the scenario on the left; the card-flow answer follows. Every number is napsim's "
               "(the same as `napsim simulate`), with its 95% interval and n. " + CARD_FLOW)
    with st.expander("What the numbers mean"):
        st.markdown(glossary_markdown())
    notice = link.restore(TABS)  # a shared link's settings, before any widget
    if notice:
        st.warning(notice)
    with st.sidebar:
        s, opts = scenario_panel()
        if s is not None:
            link.share(link.keep(s, opts, TABS))
    tabs = st.tabs(TABS, key=link.TAB, on_change="rerun")
    if s is None:
        tabs[0].info("Fix the settings marked in red on the left to see the answer.")
        return
    with tabs[4]:
        takeaway_panel(s, opts)
    with tabs[0]:
        run = answer_panel(s, opts)
    with tabs[4]:
        takeaway_panel(s, opts, run)
    with tabs[1]:
        compare_panel(s, opts)
    with tabs[3]:
        game_panel(s, opts)
    with tabs[2]:
        balance_panel(s, opts)
    with tabs[5]:
        sensitivity_panel(s, opts)
