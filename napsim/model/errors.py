"""Errors that reach the user as one clear line (file, field, allowed values), never a traceback."""


class NapsimInputError(ValueError):
    """Bad user input: a deck, scenario, policy or study file, or a command-line value."""

    def __init__(self, where: str, field: str | None, problem: str, allowed: str | None = None):
        self.where, self.field, self.problem, self.allowed = where, field, problem, allowed
        parts = [where]
        if field:
            parts.append(f"field '{field}'")
        msg = ": ".join(parts) + f": {problem}"
        if allowed:
            msg += f" (allowed: {allowed})"
        super().__init__(msg)
