"""attnkit: an exercise kit and isolated autograder for the attention mechanism."""
__version__ = "0.1.0"
