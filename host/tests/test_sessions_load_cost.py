"""Loading a long session log: no garbage collection while it loads, and the same verdicts on every line.

The speed itself is bench/bench_sessions.py's figure (resuming 10,000 entries against ``json.loads`` per
line); what cannot flake is pinned here: the collector's passes while a log loads, and that the faster
way of reading a line accepts and refuses exactly the lines ``json.loads`` does.
"""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

from agentkit.host.sessions import JsonlSessionStore, Session, parse_log
from agentkit.plugin_api import AssistantMessage, StopReason, TextBlock, ToolUseBlock, UserMessage


def _long_log(tmp_path: Path, entries: int) -> tuple[Session, bytes]:
    store = JsonlSessionStore(tmp_path)
    with Session.new(store, cwd="/work") as session:
        for number in range(entries):
            session.append_message(
                UserMessage.text(f"question {number}") if number % 2 else
                AssistantMessage([TextBlock("an answer"), ToolUseBlock(f"call_{number}", "read", '{"path": "a"}')],
                                 StopReason.TOOL_USE, provider="faux", api="faux", model="scripted"))
    return session, store.path(session.id).read_bytes()


def _header(tmp_path: Path) -> bytes:
    """A log's first line: a session header."""
    return _long_log(tmp_path, 1)[1].split(b"\n")[0] + b"\n"


def test_loading_a_long_log_starts_no_garbage_collection(tmp_path: Path) -> None:
    _, data = _long_log(tmp_path, 3000)
    passes: list[int] = []

    def count(phase: str, info: dict) -> None:
        if phase == "start":
            passes.append(info["generation"])

    assert gc.isenabled()
    gc.callbacks.append(count)
    try:
        log = parse_log(data)
    finally:
        gc.callbacks.remove(count)
    assert len(log.entries) == 3000 and not log.repairs
    assert passes == []  # before: a pass per 700 objects built, and full ones over everything loaded
    assert gc.isenabled()  # the collector runs again afterwards


def test_a_loaded_message_entry_still_shows_every_field_of_its_line(tmp_path: Path) -> None:
    _, data = _long_log(tmp_path, 4)
    log = parse_log(data)
    for entry, line in zip(log.entries, data.split(b"\n")[1:], strict=False):
        fields = json.loads(line)
        assert dict(entry.data) == fields and entry.data["message"] == fields["message"]
        assert entry.data == fields and len(entry.data) == len(fields) and entry.raw == line
        assert entry.message is not None and entry.message.to_dict() == fields["message"]
    assert log.to_bytes() == data


@pytest.mark.parametrize(("line", "verdict"), [
    (b' {"id":"e1","parent_id":null,"type":"custom","custom_type":"x"}', "kept"),
    (b'{"id":"e1","parent_id":null,"type":"custom","custom_type":"x"}  ', "kept"),
    (b'{"id":"e1","parent_id":null,"type":"custom","custom_type":"x"} {}', "skipped"),
    (b'{"id":"e1","parent_id":null,"type":"custom","custom_type":"x"', "skipped"),
    (b'{"id":"e1","parent_id":null,"type":"custom","custom_type":"\xff"}', "skipped"),
    (b'{"id":"e1","parent_id":null,"type":"custom","custom_type":"x","n":NaN}', "kept"),
    (b"[" * 100_000, "skipped"),
])
def test_a_line_is_read_as_json_loads_reads_it(tmp_path: Path, line: bytes, verdict: str) -> None:
    log = parse_log(_header(tmp_path) + line + b"\n")
    assert ("kept" if log.entries else "skipped") == verdict
    assert bool(log.repairs) == (verdict == "skipped")


@pytest.mark.parametrize("stop_reason", ["not-a-reason", ["tool_use"], None, 7])
def test_a_crafted_message_is_still_refused_with_a_clear_repair_line(tmp_path: Path, stop_reason) -> None:
    data = _header(tmp_path)
    message = AssistantMessage([TextBlock("hi")], StopReason.STOP).to_dict() | {"stop_reason": stop_reason}
    line = json.dumps({"id": "e1", "parent_id": None, "type": "message", "timestamp": "t", "message": message})
    log = parse_log(data + line.encode() + b"\n")
    (entry,) = log.entries
    assert entry.damaged and entry.message is None
    (repair,) = log.repairs
    assert repair.startswith("line 2: entry e1 (message): its message cannot be read (")
    assert "left out of the conversation" in repair
