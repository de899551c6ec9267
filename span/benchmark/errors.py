"""The generator's two errors: bad input (a user can fix it) and a gold answer its own check refutes (a bug)."""


class GeneratorError(ValueError):
    """Bad generator input (date, range, option); the message is one line saying what is valid."""


class GoldMismatchError(AssertionError):
    """An instance's code computed something other than the core's direct computation."""


class QuestionParseError(ValueError):
    """The text is not a question this generator writes; the message says which part failed."""
