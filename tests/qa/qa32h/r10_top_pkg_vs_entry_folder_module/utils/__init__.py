"""Old helpers from week 1."""
