"""Where durable runs are kept: the system database's URL."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from agentkit.host.sessions import data_dir

__all__ = ["DATABASE_ENV", "default_database_url"]

#: The environment variable naming the system database (``sqlite:///...`` or ``postgresql://...``).
DATABASE_ENV = "AGENTKIT_DURABLE_DB"


def default_database_url(environ: Mapping[str, str]) -> str:
    """``$AGENTKIT_DURABLE_DB``, else a SQLite file ``durable.sqlite`` under the data directory (no server)."""
    url = environ.get(DATABASE_ENV)
    if url:
        return url
    return "sqlite:///" + str(Path(data_dir(environ)) / "durable.sqlite")
