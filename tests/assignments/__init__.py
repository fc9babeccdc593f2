"""Tiny assignments that prove the engine grades any assignment folder (tests/test_assignment.py)."""
