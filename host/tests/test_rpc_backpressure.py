"""``agentkit rpc`` flooded by a client that writes faster than it reads: what the server has read but not yet
answered stays bounded (it stops reading stdin until its work drains), and every request is still answered."""

from __future__ import annotations

import json
import resource
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from rpc_helpers import PATIENCE

MIB = 1024 * 1024
LINES = 1_500
#: Each request is a ``steer`` of a session that does not exist: a line of about 1 MB (under the 1 MiB line
#: limit) answered at once with a small error. Its id goes last, so one body serves every line.
STEER = (b'{"schema": "agentkit.rpc.request/v1", "method": "steer", "params": {"session_id": "nobody", "text": "'
         + b"x" * 1_000_000 + b'"}, "id": ')
#: The peak resident memory the server may reach: an idle one holds about 40 MiB, and docs/rpc.md bounds what
#: it holds unanswered to 4 MiB plus the line being read; 1,500 lines of 1 MB held at once are 1.5 GB.
PEAK_LIMIT = 160 * MIB
#: A guard for the machine running the suite, not the assertion: a server that buffers without bound
#: fails on this address-space limit long before it can take the memory of its neighbours.
ADDRESS_SPACE = 2048 * MIB


def peak_rss(pid: int) -> int:
    """The process's peak resident set (``VmHWM``), in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM in /proc/PID/status")


def line(number: int) -> bytes:
    if number == LINES // 2:  # one line over the line limit among them: skipped, and answered
        return b"y" * (2 * MIB) + b"\n"
    return STEER + str(number).encode() + b"}\n"


def test_a_client_that_floods_stdin_and_reads_nothing_cannot_grow_the_server_past_its_backlog_bound(
        agentkit: Any, tmp_path: Path) -> None:
    root = tmp_path / "work"
    root.mkdir()
    process = subprocess.Popen(
        [agentkit.path(), "rpc", "--model", "faux/scripted", "--root", str(root)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=tmp_path,
        env=agentkit.environment({"AGENTKIT_DATA_DIR": str(tmp_path / "data")}),
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE)))
    assert process.stdin is not None and process.stdout is not None
    written = [0]

    def flood() -> None:
        assert process.stdin is not None
        try:
            for number in range(LINES):
                process.stdin.write(line(number))
                process.stdin.flush()
                written[0] += 1
        except (BrokenPipeError, ValueError):  # the server died: the reader below reports it
            pass

    writer = threading.Thread(target=flood, daemon=True)
    try:
        writer.start()
        # The client reads nothing while it writes, until it has written everything or the server stopped
        # taking its lines (back-pressure): either way, the server has read all it was going to on its own.
        last, still = -1, 0
        while writer.is_alive() and still < 4:
            time.sleep(0.5)
            still = still + 1 if written[0] == last else 0
            last = written[0]
        held_back = peak_rss(process.pid)
        answered: dict[Any, dict[str, Any]] = {}
        peaks: list[int] = []

        def drain() -> None:
            assert process.stdout is not None
            while len(answered) < LINES and (raw := process.stdout.readline()):
                response = json.loads(raw)
                answered[response["id"] if response["id"] is not None else "oversized"] = response
            peaks.append(peak_rss(process.pid))

        reader = threading.Thread(target=drain, daemon=True)
        reader.start()
        reader.join(timeout=PATIENCE)
        assert peaks, f"{len(answered)} of {LINES} answered (peak {held_back // MIB} MiB while nothing was read)"
        peak = peaks[0]
        writer.join(timeout=PATIENCE)
        process.stdin.close()
        assert process.wait(timeout=PATIENCE) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=PATIENCE)
    assert peak < PEAK_LIMIT, f"peak RSS {peak // MIB} MiB"
    assert held_back < PEAK_LIMIT, f"peak RSS while the client read nothing: {held_back // MIB} MiB"
    assert written[0] == LINES
    assert answered["oversized"]["error"]["code"] == "line_too_long"
    assert set(answered) == {*(n for n in range(LINES) if n != LINES // 2), "oversized"}
    assert {answered[n]["error"]["code"] for n in range(LINES) if n != LINES // 2} == {"session_not_found"}
