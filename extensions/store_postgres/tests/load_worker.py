"""One worker of the load test: ``python load_worker.py DSN WORKER APPENDS SESSION_ID...``.

Appends ``APPENDS`` custom entries (``{"worker": WORKER, "n": i}``) to sessions
chosen at random, each from the leaf it loaded; on a conflict it reloads the
session and retries. Prints its counts as JSON.
"""

import json
import random
import sys

from agentkit_store_postgres import PostgresSessionStore

from agentkit.host.errors import SessionConflict
from agentkit.host.sessions import Session


def main() -> None:
    dsn, worker, appends, session_ids = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
    choose = random.Random(worker)
    conflicts = 0
    with PostgresSessionStore(dsn) as store:
        for n in range(appends):
            session_id = choose.choice(session_ids)
            while True:
                session = Session.open(session_id, store)
                try:
                    session.append_custom("load", {"worker": worker, "n": n})
                    break
                except SessionConflict:
                    conflicts += 1
    print(json.dumps({"worker": worker, "appends": appends, "conflicts": conflicts}))


if __name__ == "__main__":
    main()
