"""The page's settings in its address, so that a what-if is shared by a link.

Every run writes what the numbers depend on into the query parameters (`st.query_params`): the
scenario, every field that differs from the scenario file (as `--set` paths), the deck, the
policies, the Guerrilla box's 'keep this pool', the games, the seed, the tab and the compare
baseline A. An uploaded scenario or deck travels in the link, compressed, when it is small enough
(`LINK_CHARS`); otherwise the link names it, and opening the link says that the upload is
missing. A link is read once, on a session's first run, before any widget: its values go
through the model layer as the page's own fields do (`napsim.app.form`), and a bad or stale link
(an unknown scenario, field, value or tab, a damaged upload, another link version) is refused
whole, in one line, and the page shows the defaults. The same settings play the same games, so a
copied link opens the same numbers, bit for bit.
"""

from __future__ import annotations

import base64
import json
import zlib
from dataclasses import dataclass, field
from urllib.parse import urlencode

import streamlit as st
import streamlit.components.v1 as components

from napsim.app import form
from napsim.app.jobs import Settings
from napsim.model.errors import NapsimInputError, check_run
from napsim.model.scenarios import load_scenario, override_text, parse_overrides, resolve_scenario_path

VERSION = "1"
TAB = "tab"                # the key of the page's tabs (their label is in the link)
UPLOAD = "upload"          # the scenario or deck of the link is an uploaded file
LINK_CHARS = 6000          # an upload travels in the link when it packs into this many characters
PICK_UPLOAD = "(upload a file)"  # the pickers' choice of an uploaded file (`napsim.app.panels.UPLOAD`)
READ = "link_read"         # session state: the link of this session was read
LINKED = "link_upload|"    # session state: an upload that came in the link, (name, bytes), by kind


class LinkError(ValueError):
    """A link that cannot be opened, in words."""


@dataclass
class Restored:
    """What a link sets: widget values by key, uploads by kind, and what to tell the user."""

    state: dict = field(default_factory=dict)
    uploads: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def pack(data: bytes) -> str:
    return base64.urlsafe_b64encode(zlib.compress(data, 9)).decode().rstrip("=")


def unpack(text: str) -> bytes:
    try:
        return zlib.decompress(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
    except (ValueError, zlib.error):
        raise LinkError("its uploaded file is damaged") from None


def _upload_params(kind: str, upload: tuple[str, bytes] | None) -> dict:
    if upload is None:
        return {}
    name, data = upload
    packed = pack(data)
    return {f"{kind}_file": name, **({f"{kind}_data": packed} if len(packed) <= LINK_CHARS else {})}


def encode(s: Settings, games: int, seed: int, tab: str, keep_pool: bool = False,
           kept: tuple[Settings, str | None] | None = None,
           uploads: dict[str, tuple[str, bytes]] | None = None) -> dict[str, str | list[str]]:
    """The query parameters of the settings on screen (`uploads`: kind -> (name, bytes) of an
    uploaded scenario or deck in use)."""
    uploads = uploads or {}
    builtin = dict(form.scenario_choices())
    p: dict[str, str | list[str]] = {"v": VERSION,
                                     "scenario": s.scenario if s.scenario in builtin else UPLOAD}
    if s.overrides:
        p["set"] = [f"{k}={override_text(v)}" for k, v in s.overrides]
    if s.deck is not None:
        p["deck"] = s.deck if s.deck in form.deck_choices() else UPLOAD
    if s.policy != "greedy,greedy":
        p["policy"] = s.policy
    if keep_pool:
        p["keep_pool"] = "1"
    p.update(games=str(games), seed=str(seed), tab=tab)
    if kept is not None and kept[0].scenario in builtin | {s.scenario: ""} and (
            kept[0].deck is None or kept[0].deck in (*form.deck_choices(), s.deck)):
        a, a_deck = kept
        p["a"] = pack(json.dumps({"scenario": a.scenario if a.scenario in builtin else UPLOAD,
                                  "sets": [[k, v] for k, v in a.overrides], "policy": a.policy,
                                  "deck": a.deck if a.deck is None or a.deck in form.deck_choices()
                                  else UPLOAD}).encode())
    if p["scenario"] == UPLOAD:
        p.update(_upload_params("scenario", uploads.get("scenario")))
    if p.get("deck") == UPLOAD:
        p.update(_upload_params("deck", uploads.get("deck")))
    return p


def _one(params: dict[str, list[str]], key: str, default: str | None = None) -> str | None:
    values = params.get(key, [])
    if len(values) > 1:
        raise LinkError(f"'{key}' is given {len(values)} times")
    return values[0] if values else default


def _upload(params, kind: str, restored: Restored) -> str | None:
    """The path of a linked upload (checked as the page checks one); None when it did not travel."""
    name = _one(params, f"{kind}_file")
    if name is None:
        raise LinkError(f"its {kind} is an uploaded file without a name")
    data = _one(params, f"{kind}_data")
    if data is None:
        restored.notes.append(f"This link's {kind} was an uploaded file, {name}, too large to travel in "
                              f"the link: upload it again to see its numbers.")
        return None
    raw = unpack(data)
    try:
        path = form.scenario_upload(name, raw) if kind == "scenario" else form.deck_upload(name, raw)
    except NapsimInputError as e:
        raise LinkError(str(e)) from None
    restored.uploads[kind] = (name, raw)
    return path


def _int(params, key: str) -> int | None:
    text = _one(params, key)
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        raise LinkError(f"{key} '{text}' is not a whole number") from None


def _widget_value(f: form.Field, value):
    if f.kind == "list":
        return ", ".join(map(str, value))
    if f.kind == "choice" and value not in f.choices:
        raise LinkError(f"{f.path} = {value!r} is not one of {', '.join(map(str, f.choices))}")
    return value


def _fields(scenario: str, sets: dict, deck: str | None, policy: str, restored: Restored) -> None:
    """The scenario's changed fields, deck and policies as widget values, checked as the page does."""
    errs = form.errors(scenario, sets, deck, policy)
    if errs:
        path, msg = next(iter(errs.items()))
        msg = msg.replace(f"{resolve_scenario_path(scenario)}: ", "")
        raise LinkError(f"{path}={override_text(sets[path])}: {msg}" if path in sets else msg)
    sc = load_scenario(scenario, sets)
    fields = {f.path: f for f in form.fields(scenario, sc)}
    for path, value in sets.items():
        if path not in fields:
            raise LinkError(f"the page has no field {path}")
        restored.state[f"{scenario}|{path}"] = _widget_value(fields[path], value)
    names = policy.split(",")
    if len(names) != len(sc.sides) or any(n not in form.POLICIES for n in names):
        raise LinkError(f"policy '{policy}' is not one of {', '.join(form.POLICIES)} for each side")
    for side, name in zip(sc.sides, names, strict=True):
        restored.state[f"policy|{side.key}"] = name


def _sets(params, key: str = "set") -> dict:
    try:
        return parse_overrides(params.get(key, []))
    except NapsimInputError as e:
        raise LinkError(str(e).removeprefix("napsim: error: ")) from None


def decode(params: dict[str, list[str]], tabs: list[str]) -> Restored:
    """The widget values of a link; `LinkError` saying why a bad or stale one cannot be opened."""
    r = Restored()
    version = _one(params, "v")
    if version != VERSION:
        raise LinkError("it was made by another version of napsim's page" if version else
                        "it is not a napsim link (no version)")
    tab = _one(params, "tab", tabs[0])
    if tab not in tabs:
        raise LinkError(f"the page has no tab '{tab}'")
    r.state[TAB] = tab
    games, seed = _int(params, "games"), _int(params, "seed")
    try:
        check_run(games or 1, seed or 0, 1)
    except NapsimInputError as e:
        raise LinkError(str(e)) from None
    r.state.update({k: v for k, v in (("games", games), ("seed", seed)) if v is not None})
    name = _one(params, "scenario")
    builtin = dict(form.scenario_choices())
    if name == UPLOAD:
        r.state["scenario"] = PICK_UPLOAD
        scenario = _upload(params, "scenario", r)
        if scenario is None:
            return r
    elif name in builtin:
        r.state["scenario"] = scenario = name
    else:
        raise LinkError(f"unknown scenario '{name}'" if name else "it names no scenario")
    deck = _one(params, "deck")
    if deck == UPLOAD:
        r.state[f"deck|{scenario}"] = PICK_UPLOAD
        deck = _upload(params, "deck", r)
    elif deck is not None:
        if deck not in form.deck_choices():
            raise LinkError(f"unknown deck '{deck}'")
        r.state[f"deck|{scenario}"] = deck
    policy = _one(params, "policy", "greedy,greedy")
    _fields(scenario, _sets(params), deck, policy, r)
    if _one(params, "keep_pool") == "1":
        r.state[f"{scenario}|keep_pool"] = True
    a = _one(params, "a")
    if a is not None:
        r.state["A"] = _baseline(a, scenario, deck)
    return r


def _baseline(text: str, scenario: str, deck: str | None) -> tuple[Settings, str | None]:
    """The compare baseline A of a link: (Settings, its deck's name), checked as the page checks B."""
    try:
        doc = json.loads(unpack(text))
        a_scenario = scenario if doc["scenario"] == UPLOAD else str(doc["scenario"])
        a_deck = deck if doc["deck"] == UPLOAD else doc["deck"]
        sets = {str(k): v for k, v in doc["sets"]}
        policy = str(doc["policy"])
    except (ValueError, KeyError, TypeError):
        raise LinkError("its baseline A is damaged") from None
    if a_scenario not in dict(form.scenario_choices()) and a_scenario != scenario:
        raise LinkError(f"its baseline A plays an unknown scenario '{a_scenario}'")
    errs = form.errors(a_scenario, sets, a_deck, policy)
    if errs:
        raise LinkError(f"its baseline A: {next(iter(errs.values()))}")
    label = a_scenario if a_scenario in dict(form.scenario_choices()) else None
    return Settings(a_scenario, tuple(sets.items()), a_deck, policy, label or a_scenario), a_deck


# --------------------------------------------------------------------------------------------
# on the page


def restore(tabs: list[str]) -> str | None:
    """On a session's first run, before any widget: the link's settings put into the page's
    widgets. Returns the one line to show (a bad or stale link, a missing upload), or None."""
    if st.session_state.get(READ):
        return None
    st.session_state[READ] = True
    params = {k: st.query_params.get_all(k) for k in st.query_params}
    if not params:
        return None
    try:
        r = decode(params, tabs)
    except LinkError as e:
        st.query_params.clear()
        return f"This link cannot be opened: {e}. The page shows the defaults."
    for kind, upload in r.uploads.items():
        st.session_state[LINKED + kind] = upload
    st.session_state.update(r.state)
    return " ".join(r.notes) or None


def linked_upload(kind: str) -> tuple[str, bytes] | None:
    """An uploaded scenario or deck that came in the link: (name, bytes), or None."""
    return st.session_state.get(LINKED + kind)


def _uploads() -> dict[str, tuple[str, bytes]]:
    out = {}
    for kind in ("scenario", "deck"):
        up = st.session_state.get(f"{kind}_file")
        out[kind] = (up.name, up.getvalue()) if up is not None else linked_upload(kind)
    return {k: v for k, v in out.items() if v is not None}


def keep(s: Settings, opts: dict, tabs: list[str]) -> str:
    """Write the settings on screen into the address; returns the link."""
    params = encode(s, opts["games"], opts["seed"], st.session_state.get(TAB) or tabs[0],
                    bool(st.session_state.get(f"{s.scenario}|keep_pool")), st.session_state.get("A"),
                    _uploads())
    st.query_params.from_dict(params)
    return f"{st.context.url or ''}?{urlencode(params, doseq=True)}"  # no address known: a relative link


COPY_BUTTON = """<button id="copy" style="font: 14px sans-serif; padding: 4px 12px; border-radius: 6px;
border: 1px solid #bbb; background: #fff; cursor: pointer">Copy link</button>
<script>
const b = document.getElementById("copy");
b.onclick = () => navigator.clipboard.writeText(LINK).then(
  () => { b.textContent = "Copied"; }, () => { b.textContent = "Copy the link below"; });
</script>"""


def share(link: str) -> None:
    """The link to this page, with a button that copies it (and the link itself, to copy by hand)."""
    components.html(COPY_BUTTON.replace("LINK", json.dumps(link)), height=42)
    st.caption("This page with its settings (scenario, changed fields, tab, games, seed, baseline A), "
               "for anyone who runs napsim's page:")
    st.code(link, language=None, wrap_lines=True)
