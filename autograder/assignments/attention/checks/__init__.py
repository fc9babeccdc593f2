"""Hidden checks of the attention assignment: part_a.py ... part_f.py, run by autograder.grading.checks.plugin."""
