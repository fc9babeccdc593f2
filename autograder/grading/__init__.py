"""Grading: the grading session, submission loading, the isolated worker, integrity rules, reading plots."""
