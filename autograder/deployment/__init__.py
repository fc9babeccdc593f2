"""Deployment: Docker images and grading containers, platform exports (Gradescope, PrairieLearn), rosters, LMS gradebooks."""
