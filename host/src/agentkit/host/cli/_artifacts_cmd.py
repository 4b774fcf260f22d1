"""``agentkit artifacts list|delete``: the artifacts kept in the data directory, and what is left of them.

Artifacts (tool results too long to inline, see ``docs/artifacts.md``) are kept
under ``artifacts/`` in the data directory, one folder per owner: a session, or
a run without a session. A run without a session removes its own when it
exits; ``list`` first reaps those of runs whose process died without doing so
(see :meth:`~agentkit.host.sessions.ArtifactStore.reap`), then shows every
owner. ``delete`` removes one owner's artifacts, never those of a run still
running.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys

from agentkit.plugin_api.errors import UsageError

from ..sessions import ArtifactStore
from ..sessions._artifacts import ArtifactNotFound


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    artifacts = commands.add_parser("artifacts")
    actions = artifacts.add_subparsers(dest="action", metavar="ACTION", parser_class=type(artifacts))
    listing = actions.add_parser("list", help="reap the artifacts of runs that died, then list every owner's")
    listing.add_argument("--json", action="store_true", help="print the list as JSON")
    listing.set_defaults(handler=list_artifacts)
    delete = actions.add_parser("delete", help="delete the artifacts of one session or run")
    delete.add_argument("owner", help="the session's or run's full id, as 'list' shows it")
    delete.set_defaults(handler=delete_artifacts)
    artifacts.set_defaults(handler=lambda args: artifacts.error(
        "say what to do: 'agentkit artifacts list' or 'agentkit artifacts delete OWNER'"))


def list_artifacts(args: argparse.Namespace) -> int:
    store = ArtifactStore()
    reaped = store.reap()
    if reaped:
        runs = "1 run" if len(reaped) == 1 else f"{len(reaped)} runs"
        print(f"note: removed the artifacts of {runs} whose process is gone", file=sys.stderr)
    owners = store.owners()
    if args.json:
        print(json.dumps([{"owner": item.owner, "kind": item.kind, "state": item.state, "pid": item.pid,
                           "artifacts": item.artifacts, "bytes": item.size, "updated": _when(item.updated)}
                          for item in owners], indent=2))
        return 0
    if not owners:
        print(f"no artifacts in {store.directory}", file=sys.stderr)
        return 0
    for item in owners:
        kind = "session" if item.kind == "session" else f"run, {item.state}" + (
            f" (pid {item.pid})" if item.pid is not None else "")
        print(f"{item.owner}  {kind}  {item.artifacts} artifacts  {item.size} bytes  {_when(item.updated)}")
    return 0


def delete_artifacts(args: argparse.Namespace) -> int:
    store = ArtifactStore()
    try:
        folder_exists = bool(store.list(args.owner)) or (store.directory / args.owner).is_dir()
    except ArtifactNotFound as exc:
        raise UsageError(f"{exc}: give an owner as 'agentkit artifacts list' shows it") from None
    if not folder_exists:
        raise UsageError(f"no artifacts of {args.owner} in {store.directory}; see 'agentkit artifacts list'")
    owner = next((item for item in store.owners() if item.owner == args.owner), None)
    if owner is not None and owner.state == "running":
        raise UsageError(f"the artifacts of {args.owner} belong to a run still running (pid {owner.pid}), "
                         "which reads them; they go when it exits")
    store.delete(args.owner)
    print(f"deleted the artifacts of {args.owner}")
    return 0


def _when(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
