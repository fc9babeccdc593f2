"""The isolated worker that runs student code, and the grader-side proxy to it."""
