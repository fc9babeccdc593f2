"""The engine side of the hidden checks: the pytest plugin that runs any assignment's part_*.py."""
