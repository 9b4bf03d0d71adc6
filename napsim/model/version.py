"""napsim's version: recorded in every manifest and study.json (pyproject.toml says the same)."""

__version__ = "0.1.0"
