"""Exceptions of durable runs.

::

    AgentkitError                      (agentkit.plugin_api.errors)
    ├── UsageError                     the caller asked for something invalid
    │   ├── RunNotFound                no durable run has that id, or a prefix names several
    │   └── IncompatibleRun            the run was started by another version of the code
    └── DurableError                   the durable runs' system database failed us
        └── DatabaseUnavailable        it cannot be reached, opened or read

``agentkit runs ...`` prints each as one line: a :class:`UsageError` exits 2
(fix the command or what is installed), a :class:`DurableError` exits 1. No message holds the password of a database URL.
"""

from __future__ import annotations

from agentkit.plugin_api.errors import AgentkitError, UsageError

__all__ = ["DatabaseUnavailable", "DurableError", "IncompatibleRun", "RunNotFound"]


class RunNotFound(UsageError):
    """No durable run has this id, or the prefix given is the start of several run ids."""


class DurableError(AgentkitError):
    """The system database of durable runs could not do what was asked."""


class DatabaseUnavailable(DurableError):
    """The system database cannot be reached (a server refused, a password was wrong, a path is missing)."""


class IncompatibleRun(UsageError):
    """The run was started by another application version: only that version's code may continue it.

    :ivar run_id: the run.
    :ivar version: the application version that started it.
    """

    def __init__(self, message: str, *, run_id: str, version: str | None) -> None:
        super().__init__(message)
        self.run_id = run_id
        self.version = version
