"""Assignments as content: one folder each, described by its manifest.toml (autograder/assignment.py)."""
