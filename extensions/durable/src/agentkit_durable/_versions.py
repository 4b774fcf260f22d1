"""Which code may continue a run: DBOS records the application version that started each workflow.

DBOS recovers (at launch) and dequeues (a worker) only the workflows of its own
application version: a run started by another version stays pending, untouched,
however many processes start. Replaying it with other code could take other
steps than its checkpoints hold, so nothing here forces it; the fix is to
continue it with the version that started it, or to cancel it.
"""

from __future__ import annotations

from .errors import IncompatibleRun

__all__ = ["current_version", "incompatible"]

_PREFIX = "agentkit-durable-"


def current_version() -> str:
    """The application version this installation records its runs with (and recovers)."""
    from ._workflow import APPLICATION_VERSION

    return APPLICATION_VERSION


def incompatible(run_id: str, version: str | None, ours: str | None = None) -> IncompatibleRun | None:
    """Why this installation cannot continue run ``run_id`` started by ``version``, or ``None`` if it can."""
    ours = current_version() if ours is None else ours
    if version is None or version == ours:
        return None
    install = (f"pip install agentkit-durable=={version.removeprefix(_PREFIX)}" if version.startswith(_PREFIX)
               else "the code that started it")
    return IncompatibleRun(
        f"run {run_id} was started by {version} and this is {ours}; only the version that started a run "
        f"continues it: resume it where that version is installed ({install}), or cancel it with "
        f"'agentkit runs cancel {run_id}'", run_id=run_id, version=version)
