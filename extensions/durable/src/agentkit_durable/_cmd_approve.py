"""``agentkit runs approve RUN_ID CALL_ID`` and ``agentkit runs deny RUN_ID CALL_ID [--reason TEXT]``.

Answers a durable run parked on a deferred call, from any process that
reaches its database (the run's own process may be gone: the answer waits in
the database until a process resumes the run). The command prints the call it
answered whole, as the run published it, and the answer names the SHA-256 of
those arguments, so it cannot answer any other call (decision 0028). A run
that does not exist, has ended, or waits for another call is a one-line error
(exit 2).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from agentkit.host.cli.support import visible_line

from ._approval import answer_call
from ._options import Parser

__all__ = ["approve", "deny"]


def _parser(name: str, *, approving: bool) -> argparse.ArgumentParser:
    verb = "approve" if approving else "deny"
    parser = Parser(
        prog=f"agentkit runs {name}",
        description=f"{verb.capitalize()} the call a parked durable run waits for (see 'agentkit runs list').")
    parser.add_argument("run_id", metavar="RUN_ID", help="the run, as 'agentkit runs list' shows it")
    parser.add_argument("call_id", metavar="CALL_ID", help="the call it waits for")
    if not approving:
        parser.add_argument("--reason", default=None, metavar="TEXT", help="why, for the model to read")
    parser.add_argument("--sha256", default=None, metavar="HEX",
                        help="answer only if the call's arguments still have this SHA-256 (as 'runs show' gives it)")
    parser.add_argument("--db", default=None, metavar="URL",
                        help="the database runs are kept in (default: $AGENTKIT_DURABLE_DB, else durable.sqlite "
                             "in the data directory)")
    return parser


def _answer(argv: Sequence[str], *, approving: bool) -> int:
    args = _parser("approve" if approving else "deny", approving=approving).parse_args(list(argv))
    answered = answer_call(args.run_id, args.call_id, approved=approving, reason=getattr(args, "reason", None),
                           arguments_sha256=args.sha256, database_url=args.db)
    verb = "approved" if approving else "denied"
    why = f" ({visible_line(answered.reason)})" if answered.reason else ""
    print(f"{verb}{why}: run {visible_line(answered.run_id)} call {visible_line(answered.call_id)}: "
          f"{visible_line(answered.tool)} {visible_line(answered.arguments)}")
    return 0


def approve(argv: Sequence[str]) -> int:
    """``agentkit runs approve RUN_ID CALL_ID``: the call runs when the run goes on."""
    return _answer(argv, approving=True)


def deny(argv: Sequence[str]) -> int:
    """``agentkit runs deny RUN_ID CALL_ID [--reason TEXT]``: the call is answered as denied, with the reason."""
    return _answer(argv, approving=False)
