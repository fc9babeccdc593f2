"""Integrity: rules judged in the grader, evidence the student's process cannot forge, flags, similarity."""
