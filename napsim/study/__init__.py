"""The study layer: study files, their identity, chunk files and the run loop that fills them
(locally or on a Dask cluster), and the rule-readings runner. Imports the model, engine and sim
layers; never the output layer (reports read what this layer stores)."""
