"""A one-function assignment: dot(x, y), graded by the attnkit engine from its manifest."""
