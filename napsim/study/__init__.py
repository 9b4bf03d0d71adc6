"""The study layer: study files, their identity, chunk files and the run loop that fills them
(locally or on a Dask cluster); the variants commands (compare, balance, tune), policy ladders and
variants files; deck ensembles; and the rule-readings runner. Imports the model, engine and sim
layers; never the output layer (reports read what this layer stores)."""
