"""Errors that reach the user as one clear line (file, field, allowed values), never a traceback."""

EXCERPT = 60  # the most characters of a user's file (or value) an error line quotes


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """`text` on one line, cut to `limit` characters (with '...' when cut): what an error may quote
    of a user's file."""
    text = _one_line(str(text))
    return text if len(text) <= limit else text[: limit - 3] + "..."


class NapsimInputError(ValueError):
    """Bad user input: a deck, scenario, policy or study file, or a command-line value."""

    def __init__(self, where: str, field: str | None, problem: str, allowed: str | None = None):
        if field:
            field = excerpt(field)
        self.where, self.field, self.problem, self.allowed = where, field, problem, allowed
        parts = [where]
        if field:
            parts.append(f"field '{field}'")
        msg = ": ".join(parts) + f": {problem}"
        if allowed:
            msg += f" (allowed: {allowed})"
        super().__init__(_one_line(msg))


def _one_line(msg: str) -> str:
    """The message as one printable line (a value quoted from a file may hold line breaks)."""
    return msg if msg.isprintable() else "".join(
        c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in msg)
