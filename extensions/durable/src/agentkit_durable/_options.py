"""What every ``agentkit runs`` subcommand shares: its parser, ``--db``, and opening the runs it names."""

from __future__ import annotations

import argparse
import datetime
from typing import NoReturn

from agentkit.plugin_api.errors import UsageError

from . import DATABASE_ENV
from ._runs_db import RunsDatabase, chosen_url, open_runs


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are the ``agentkit`` command's: one line, exit 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def parser(action: str, description: str) -> Parser:
    """The parser of ``agentkit runs ACTION``, with ``--db``."""
    made = Parser(prog=f"agentkit runs {action}", description=description)
    made.add_argument("--db", default=None, metavar="URL",
                      help=f"the system database of the runs: sqlite:///PATH or postgresql://USER@HOST/DB "
                           f"(default: ${DATABASE_ENV}, else durable.sqlite in the data directory)")
    return made


def open_database(args: argparse.Namespace) -> RunsDatabase:
    """The runs of the database ``--db`` (else the environment, else the default) names."""
    url, named = chosen_url(args.db)
    return open_runs(url, named=named)


def when(epoch: float | None) -> str | None:
    """A time as ``agentkit sessions`` shows it: UTC, ISO 8601 to the second, with a ``Z``."""
    if epoch is None:
        return None
    return datetime.datetime.fromtimestamp(epoch, datetime.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def positive(text: str) -> int:
    """An option's whole number of 1 or more (argparse's ``type``)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of 1 or more, got {text!r}")
    return value
