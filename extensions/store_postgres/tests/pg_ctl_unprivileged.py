"""Run ``pg_ctl`` as the unprivileged user ``nobody``: PostgreSQL refuses to run as root.

Used by conftest.py only when the tests run as root (a container, a CI image):
``python pg_ctl_unprivileged.py REAL_PG_CTL ARGS...``. pytest keeps its
temporary folders private to root (and puts them back to 0700 when another run
starts), so ``nobody`` cannot reach a data directory there: the data directory
and the log are moved to a folder of their own in the system's temporary
directory, owned by ``nobody``, named after the path pytest-postgresql asked for
(so that every call finds the same one), and removed when the server is stopped;
the path asked for stays as an empty folder, which pytest-postgresql removes.
"""

import hashlib
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def _value_index(args: list[str], *names: str) -> int | None:
    for index, arg in enumerate(args[:-1]):
        if arg in names:
            return index + 1
    return None


def main() -> int:
    real, args = sys.argv[1], sys.argv[2:]
    user = pwd.getpwnam("nobody")
    data = _value_index(args, "-D", "--pgdata")
    folder = None
    if data is not None:
        digest = hashlib.sha256(os.path.abspath(args[data]).encode()).hexdigest()[:16]
        folder = Path(tempfile.gettempdir()) / f"agentkit-test-postgresql-{digest}"
        if args[0] == "initdb":
            # pytest-postgresql looks for the path it asked for to tell whether the server is there.
            Path(args[data]).mkdir(parents=True, exist_ok=True)
            folder.mkdir(mode=0o700, exist_ok=True)
            os.chown(folder, user.pw_uid, user.pw_gid)
        args[data] = str(folder / "data")
        log = _value_index(args, "-l", "--log")
        if log is not None:
            args[log] = str(folder / "server.log")

    def drop_root() -> None:
        os.setgroups([])
        os.setgid(user.pw_gid)
        os.setuid(user.pw_uid)

    code = subprocess.call([real, *args], cwd="/", preexec_fn=drop_root)
    if args[0] == "stop" and code == 0 and folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
