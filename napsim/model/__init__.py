"""The model layer: what a user writes (decks, scenarios, policies, filters, the rule catalogue),
read and validated into plain Python values. Imports nothing from napsim's other layers."""
