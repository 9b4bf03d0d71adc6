"""The output layer: results read back as tidy frames, and written as reports (report.md,
report.html, CSVs), charts, trace text, console tables and result folders. Reads what the lower
layers computed or stored; never plays a game."""
