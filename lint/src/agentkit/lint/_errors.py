"""The one exception the lint raises: the caller asked for something that is not there."""


class LintUsageError(ValueError):
    """The name or path given to the lint names no distribution or source directory.

    Problems *in* a plugin are never raised: they are findings in its report.
    """
