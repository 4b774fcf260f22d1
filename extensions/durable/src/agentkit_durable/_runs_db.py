"""The durable runs kept in a system database, read and steered through DBOS's client.

The client only reads and writes DBOS's tables: it registers no workflow and
starts no executor, so looking at runs never recovers or continues one (that
is ``agentkit runs resume``'s and a worker's job). Every failure of the
database becomes one :class:`~agentkit_durable.errors.DatabaseUnavailable`
line naming the URL without its password.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from agentkit.host.sessions import without_password
from agentkit.plugin_api.errors import UsageError

from . import DATABASE_ENV, default_database_url
from ._approval import APPROVAL_TOPIC, CANCELLED_WAKE, WAITING_EVENT
from ._database import private_sqlite
from .errors import DatabaseUnavailable, RunNotFound

if TYPE_CHECKING:
    from dbos import DBOSClient
    from dbos._sys_db import StepInfo, WorkflowStatus

#: The name every durable run's workflow is registered under; its workflow id is the run id.
RUN_WORKFLOW = "agentkit.run"
#: The event a parked run publishes while it waits for a person: ``{"call_id", "tool", "reason"}``, else ``None``.

#: DBOS's workflow states, as ``runs`` names them. A ``PENDING`` run is running, unless it waits for a
#: person (the waiting event is set); a pending run whose process died stays ``running`` until it is
#: recovered (``agentkit runs resume`` or a worker).
STATUSES = {
    "ENQUEUED": "pending",
    "DELAYED": "pending",
    "PENDING": "running",
    "SUCCESS": "succeeded",
    "ERROR": "failed",
    "MAX_RECOVERY_ATTEMPTS_EXCEEDED": "failed",
    "CANCELLED": "cancelled",
}
#: The statuses ``--status`` accepts, and the DBOS states each selects (``waiting`` is a running run).
CHOICES = {
    "pending": ["ENQUEUED", "DELAYED"],
    "running": ["PENDING"],
    "waiting": ["PENDING"],
    "succeeded": ["SUCCESS"],
    "failed": ["ERROR", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"],
    "cancelled": ["CANCELLED"],
}
#: The states in which a run has ended: cancelling one changes nothing.
FINISHED = {"SUCCESS", "ERROR", "MAX_RECOVERY_ATTEMPTS_EXCEEDED", "CANCELLED"}

_SCHEMES = re.compile(r"^(sqlite|postgres|postgresql(\+psycopg)?)://", re.IGNORECASE)
# No such table (SQLite), no such relation or schema (PostgreSQL): a database no durable run has used yet.
_NO_TABLES = re.compile(r"no such table|relation .* does not exist|schema .* does not exist", re.IGNORECASE)


@dataclass(frozen=True)
class Run:
    """One durable run as ``runs list`` and ``runs show`` describe it.

    :ivar id: the run id (the DBOS workflow id).
    :ivar status: pending, running, waiting, succeeded, failed or cancelled.
    :ivar state: DBOS's own status (``PENDING``, ``SUCCESS`` ...).
    :ivar started: when the run was created (seconds since the epoch), if known.
    :ivar updated: when its status last changed, if known.
    :ivar model: the model the run spec names, if known.
    :ivar session_id: the session the run writes its history to, if known.
    :ivar waiting: the call the run waits on (``call_id``, ``tool``, ``reason``), or ``None``.
    :ivar version: the application version that started it.
    :ivar parent: the run that started this one as a subagent, or ``None``.
    :ivar queue: the DBOS queue it was enqueued on, or ``None``.
    """

    id: str
    status: str
    state: str
    started: float | None
    updated: float | None
    model: str | None
    session_id: str | None
    waiting: dict[str, Any] | None
    version: str | None
    parent: str | None
    queue: str | None


def chosen_url(given: str | None, environ: Mapping[str, str] | None = None) -> tuple[str, bool]:
    """The system database ``--db`` (else ``$AGENTKIT_DURABLE_DB``, else the default) names; whether one was named.

    :raises UsageError: a URL of a scheme DBOS cannot use.
    """
    environ = os.environ if environ is None else environ
    url = given or environ.get(DATABASE_ENV) or default_database_url(environ)
    if not _SCHEMES.match(url):
        where = "--db" if given else f"${DATABASE_ENV}"
        raise UsageError(f"{where} {without_password(url, url)}: expected sqlite:///PATH or "
                         "postgresql://USER@HOST/DATABASE")
    return url, bool(given or environ.get(DATABASE_ENV))


def shown(url: str) -> str:
    """``url`` as messages may show it: its password replaced by ``***``."""
    return without_password(url, url)


class RunsDatabase:
    """The runs of one system database; open with :func:`open_runs`, close with :meth:`close`."""

    def __init__(self, url: str, client: DBOSClient | None) -> None:
        self.url = url
        # None: a SQLite file that does not exist yet, so no run was ever made there (and opening it would create it)
        self._client = client

    def close(self) -> None:
        if self._client is not None:
            with contextlib.suppress(Exception):
                self._client.destroy()

    def list_runs(self, statuses: list[str] | None = None, limit: int | None = None) -> list[Run]:
        """The runs, the most recent first; ``statuses`` (DBOS's) and ``limit`` narrow the list."""
        if self._client is None:
            return []
        client = self._client
        try:
            with self._failures():
                found = client.list_workflows(name=RUN_WORKFLOW, status=statuses, limit=limit, sort_desc=True,
                                              load_output=False)
                return [self._run(status) for status in found]
        except _NoTables:
            return []

    def pending(self) -> list[WorkflowStatus]:
        """The runs DBOS holds ``PENDING`` (running, or left so by a process that died), as DBOS describes them."""
        if self._client is None:
            return []
        try:
            with self._failures():
                return self._client.list_workflows(name=RUN_WORKFLOW, status="PENDING")
        except _NoTables:
            return []

    def find(self, run_id: str) -> WorkflowStatus:
        """The run ``run_id`` names, or the one run whose id starts with it.

        :raises RunNotFound: none, or several, match.
        """
        client = self._client
        if client is not None:
            try:
                with self._failures():
                    exact = client.list_workflows(workflow_ids=[run_id], name=RUN_WORKFLOW)
                    if exact:
                        return exact[0]
                    # a few are enough to say the prefix is ambiguous and name some of them
                    matches = client.list_workflows(workflow_id_prefix=run_id, name=RUN_WORKFLOW, limit=4,
                                                    load_input=False, load_output=False) if run_id else []
            except _NoTables:
                matches = []
            if len(matches) == 1:
                return self.find(matches[0].workflow_id)
            if matches:
                some = ", ".join(match.workflow_id for match in matches[:3])
                raise RunNotFound(f"{run_id!r} is the start of several run ids ({some}"
                                  f"{', ...' if len(matches) > 3 else ''}); give more of it")
        raise RunNotFound(f"no run {run_id!r} in {shown(self.url)}; see 'agentkit runs list'")

    def describe(self, status: WorkflowStatus) -> Run:
        """``status`` (from :meth:`find`) as a :class:`Run`."""
        with self._failures():
            return self._run(status)

    def steps(self, run_id: str) -> list[StepInfo]:
        """The steps the run has recorded, in order."""
        assert self._client is not None  # a run was found, so the database exists
        with self._failures():
            return self._client.list_workflow_steps(run_id)

    def cancel(self, run_id: str) -> int:
        """Cancel the run and every run it started that has not ended; how many of those it started.

        Each is then woken on the approval topic: a run parked for a person is in ``DBOS.recv``,
        which would notice the cancellation only when its wait ends; woken, it finds it at once.
        """
        assert self._client is not None
        with self._failures():
            children = self._unfinished_descendants(run_id)
            self._client.cancel_workflow(run_id, cancel_children=True)
            for cancelled in (run_id, *children):
                self._client.send(cancelled, CANCELLED_WAKE, topic=APPROVAL_TOPIC)
        return len(children)

    def _unfinished_descendants(self, run_id: str) -> list[str]:
        assert self._client is not None
        seen: set[str] = {run_id}
        frontier, unfinished = [run_id], []
        while frontier:
            found = self._client.list_workflows(parent_workflow_id=frontier, load_input=False, load_output=False)
            frontier = [child.workflow_id for child in found if child.workflow_id not in seen]
            seen.update(frontier)
            unfinished += [child.workflow_id for child in found
                           if child.workflow_id in frontier and child.status not in FINISHED]
        return unfinished

    def _run(self, status: WorkflowStatus) -> Run:
        waiting = None
        if status.status == "PENDING" and self._client is not None:
            event = self._client.get_event(status.workflow_id, WAITING_EVENT, timeout_seconds=0)
            waiting = event if isinstance(event, dict) else None
        spec = _spec(status.input)
        model, session = spec.get("model"), spec.get("session_id") or spec.get("session")
        return Run(
            id=status.workflow_id,
            status="waiting" if waiting is not None else STATUSES.get(str(status.status), str(status.status).lower()),
            state=str(status.status),
            started=status.created_at / 1000 if status.created_at is not None else None,
            updated=status.updated_at / 1000 if status.updated_at is not None else None,
            model=model if isinstance(model, str) else None,
            session_id=session if isinstance(session, str) else None,
            waiting=waiting,
            version=status.app_version,
            parent=status.parent_workflow_id,
            queue=status.queue_name,
        )

    @contextlib.contextmanager
    def _failures(self) -> Iterator[None]:
        try:
            with dbos_quiet():
                yield
        except (RunNotFound, UsageError):
            raise
        except Exception as exc:  # the driver's, SQLAlchemy's or DBOS's: one line, never its password
            if _NO_TABLES.search(str(getattr(exc, "orig", None) or exc)):
                raise _NoTables from None
            raise DatabaseUnavailable(failure(self.url, exc)) from None


def open_runs(url: str, *, named: bool) -> RunsDatabase:
    """The runs of the system database at ``url``, connected to at once.

    A SQLite file that does not exist yet holds no run: it is not created. Its
    directory must exist when the URL was ``named`` (``--db`` or the
    environment); the default one may not exist before the first durable run.

    :raises DatabaseUnavailable: the database cannot be reached or opened.
    """
    path = _sqlite_path(url)
    if path is not None and not path.exists():
        if named and not path.parent.is_dir():
            raise DatabaseUnavailable(f"the durable runs' database {shown(url)} cannot be opened: "
                                      f"{path.parent} is not a directory; create it, or pass --db (or set "
                                      f"${DATABASE_ENV}) with the URL the runs were started with")
        return RunsDatabase(url, None)
    private_sqlite(url, create=False)  # reading it unpickles what it holds
    try:
        from dbos import DBOSClient

        # retry_connection_errors=False: a database that is down is an error now, not a wait
        with dbos_quiet():
            client = DBOSClient(system_database_url=url, retry_connection_errors=False)
    except Exception as exc:
        raise DatabaseUnavailable(failure(url, exc)) from None
    return RunsDatabase(url, client)


def driver_failure(url: str, exc: BaseException) -> DatabaseUnavailable | None:
    """``exc`` as one line when the database's driver raised it (unreachable, refused, not a database), else ``None``."""
    import sqlite3

    from psycopg import OperationalError

    cause = getattr(exc, "orig", None) or exc  # SQLAlchemy wraps the driver's error
    if not isinstance(cause, OperationalError | sqlite3.OperationalError):
        return None
    return DatabaseUnavailable(failure(url, exc))


def failure(url: str, exc: BaseException) -> str:
    """What went wrong with the database at ``url``, in one line without its password, naming the fix."""
    cause = getattr(exc, "orig", None) or exc  # SQLAlchemy wraps the driver's error
    text = str(cause).strip().splitlines()[0] if str(cause).strip() else type(cause).__name__
    return (f"the durable runs' database {shown(url)} cannot be reached: {without_password(text, url)}; check that "
            f"it is running and that the URL (--db or ${DATABASE_ENV}) is right")


@contextlib.contextmanager
def dbos_quiet() -> Iterator[None]:
    """DBOS's report of a database it cannot reach left out meanwhile: it logs the driver's error over several
    lines before raising it, and the error we make of it is the one line a user reads."""
    logger = logging.getLogger("dbos")
    handler = logging.NullHandler()  # a handler of its own keeps logging's last resort (stderr) away
    logger.addHandler(handler)
    logger.addFilter(_unreachable)
    saved, logger.propagate = logger.propagate, False
    try:
        yield
    finally:
        logger.propagate = saved
        logger.removeFilter(_unreachable)
        logger.removeHandler(handler)


def _unreachable(record: logging.LogRecord) -> bool:
    return not record.getMessage().startswith("Error connecting to the DBOS system database")


class _NoTables(Exception):
    """The database holds no DBOS tables: no durable run has used it yet."""


def _sqlite_path(url: str) -> Path | None:
    if not url.lower().startswith("sqlite:"):
        return None
    path = unquote(urlsplit(url).path)
    if not path or path == ":memory:":
        return None
    # sqlite:///relative and sqlite:////absolute: SQLAlchemy drops the path's first slash
    return Path(path[1:] if path.startswith("/") else path)


def _spec(inputs: Any) -> Mapping[str, Any]:
    """The run spec among a workflow's inputs: its first mapping argument (or ``spec=``), else nothing."""
    if not isinstance(inputs, Mapping):
        return {}
    kwargs = inputs.get("kwargs")
    if isinstance(kwargs, Mapping) and isinstance(kwargs.get("spec"), Mapping):
        return kwargs["spec"]
    for argument in inputs.get("args") or ():
        if isinstance(argument, Mapping):
            return argument
    return {}
