"""Hidden checks of the dot assignment."""
