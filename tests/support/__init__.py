"""Helpers shared by the test modules (import them from here, never from conftest or another test
module): deck files (`decks`), exact laws computed independently of napsim (`laws`), the command
line in a fresh interpreter (`cli`), a tiny TOML writer (`tomlwrite`) and event-log readers
(`tracetools`)."""
