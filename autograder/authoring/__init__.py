"""Authoring: the student release from the reference solution, notebooks, the nbgrader course, Part F's reference training."""
