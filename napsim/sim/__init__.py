"""The sim layer: validated Python objects -> packed tables -> kernel calls -> metric arrays and
their summaries (means, rates, intervals). Imports only the model and engine layers."""
