"""Typed errors whose text is the message the user sees (the CLI prints them, nothing else)."""


class AttnkitError(Exception):
    """A problem the user can fix; str(error) says what was wrong, where, and what to do."""


class SubmissionError(AttnkitError):
    """The submission itself cannot be read (wrong kind of file, unsafe archive, too large...)."""


class OutputError(AttnkitError):
    """Results cannot be written (a full disk, no permission); the text names the folder."""
