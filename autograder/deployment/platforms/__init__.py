"""Running inside a grading platform's container (PrairieLearn's /grade contract)."""
