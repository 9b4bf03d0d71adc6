"""The engine's named slots (napsim.engine.layout) stay in step with the Python side that packs the
arrays: policies, card kinds, pair records."""

from __future__ import annotations

from napsim import policies, tables
from napsim.engine import commanders, epic, layout, lgb


def test_policy_slots_equal_policies_params():
    # every policy parameter has one P_ constant in the engine, at the slot napsim.policies packs
    engine = {name[2:].lower(): value for name, value in vars(layout).items()
              if name.startswith("P_") and isinstance(value, int)}
    assert engine == policies.PARAMS
    assert layout.N_POLICY == policies.N_PARAMS


def test_policy_mode_values_equal_policies():
    assert layout.KIND_RANDOM == policies.KIND_RANDOM
    assert (layout.SPEND_ALWAYS, layout.SPEND_THRESHOLD, layout.SPEND_ASSAULT) == tuple(
        policies.SPEND_MODES[k] for k in ("always", "threshold", "assault"))
    assert (layout.GAIN_ALWAYS, layout.GAIN_NEVER, layout.GAIN_BELOW) == tuple(
        policies.GAIN_MODES[k] for k in ("always", "never", "below"))


def test_card_kinds_and_records_equal_tables():
    assert (layout.KIND_SECTION, layout.KIND_MULTI, layout.KIND_PLACED, layout.KIND_INERT) == (
        tables.KIND_SECTION, tables.KIND_MULTI, tables.KIND_PLACED, tables.KIND_INERT)
    assert (layout.REC_K, layout.REC_LIST, layout.REC_ORD, layout.REC_WIDTH) == (
        tables.REC_K, tables.REC_LIST, tables.REC_ORD, tables.REC_WIDTH)


def test_slots_are_distinct_within_each_group():
    # two names of one group never share a slot (offsets named "+ section" span three slots)
    groups = {
        "M_": (layout.N_METRICS, {"M_NOM": 3, "M_EFF": 3, "M_HAND_KIND": 4, "M_RACK_KIND": 4,
                                  "M_PICK_FROM": 6, "M_G_NULL_SEC": 3, "M_G_DENIED_EFF_SEC": 3}),
        "CM_": (layout.N_CM, {"CM_FACE": 5, "CM_EFF_A": 2}),
        "PL_": (layout.N_PL, {}),
        "ST_": (layout.N_ST, {"ST_HAND_N": 2, "ST_SQ_N": 2, "ST_TAC": 2, "ST_LAST_HAND": 2,
                              "ST_NOMINAL": 3, "ST_LAST_RACK": 2}),
        "LST_": (layout.N_LST, {"LST_HAND_N": 2, "LST_SQ_N": 2, "LST_LAST_HAND": 2}),
    }
    for prefix, (size, widths) in groups.items():
        taken: dict[int, str] = {}
        for name, value in vars(layout).items():
            if not name.startswith(prefix) or not isinstance(value, int):
                continue
            for slot in range(value, value + widths.get(name, 1)):
                assert slot not in taken, (name, taken.get(slot))
                assert 0 <= slot < size, name
                taken[slot] = name
    assert len(layout.METRIC_NAMES) == layout.N_METRICS and len(layout.CM_NAMES) == layout.N_CM


def test_old_import_paths_still_work():
    # napsim and the tests read these names from engine.epic, engine.lgb and engine.commanders
    for module, names in ((epic, ("METRIC_NAMES", "N_METRICS", "EV_TURN", "G_RULE", "R_TAC_DECK",
                                  "MAX_HAND", "RACK", "TACTICIAN_DECK", "_draw_card",
                                  "_elan_reshuffle", "play_game", "play_chunk", "trace_game")),
                          (lgb, ("S_HAND", "N_SCFG", "SRC_CIC", "DRAW_STARS", "EV_CORPS_REACH",
                                 "play_game_lgb", "play_chunk_lgb", "trace_game_lgb")),
                          (commanders, ("CM_NAMES", "N_CM", "COMMANDER_KEYS", "COMMANDER_ROLES",
                                        "EV_INITIATIVE", "roll_initiative"))):
        for name in names:
            assert hasattr(module, name), (module.__name__, name)
