"""Loading a session log costs work in proportion to its size, whatever a hostile line holds.

A log is a file anyone able to write the data directory (or a repository's
copy of a session) can craft. The decoding work is counted as the characters
handed to the JSON decoder, so the bound cannot flake on a busy machine.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentkit.host.errors import SessionLoadError
from agentkit.host.sessions import MAX_LINE_BYTES, JsonlSessionStore, Session, parse_log
from agentkit.plugin_api import UserMessage

HEADER = b'{"type":"session","version":1,"id":"s1","timestamp":"t","cwd":"/w"}\n'
FIRST = b'{"id":"e1","parent_id":null,"type":"custom","timestamp":"t","custom_type":"note","data":1}'
LAST = b'{"id":"e9","parent_id":"e1","type":"custom","timestamp":"t","custom_type":"note","data":{"id":"x"}}'


@pytest.fixture
def decoded(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of every text the JSON decoder is handed while the test runs."""
    lengths: list[int] = []
    real = json.loads

    def counting(text: Any, *args: Any, **kwargs: Any) -> Any:
        lengths.append(len(text))
        return real(text, *args, **kwargs)

    monkeypatch.setattr(json, "loads", counting)
    return lengths


@pytest.mark.parametrize("crafted", [
    pytest.param(b'{"id":' * 80_000, id="entry-starts-nested"),
    pytest.param(b'{"id":"a' * 60_000, id="entry-starts-in-strings"),
    pytest.param(b'x' + b'{"id":[' * 70_000 + b']' * 70_000 + b'}', id="entry-starts-in-arrays"),
])
def test_a_crafted_line_is_decoded_a_bounded_number_of_times(decoded: list[int], crafted: bytes) -> None:
    data = HEADER + FIRST + b"\n" + crafted + b"\n" + LAST + b"\n"
    log = parse_log(data)
    assert [entry.id for entry in log.entries] == ["e1", "e9"]
    assert log.repairs == ["line 3: not JSON (a torn write?); skipped"]
    assert sum(decoded) <= 4 * len(data)  # linear: the crafted line is read a bounded number of times


def test_a_torn_write_of_nested_entry_starts_still_gives_back_the_entry_glued_to_it(decoded: list[int]) -> None:
    torn = b'{"id":' * 50_000
    data = HEADER + FIRST + b"\n" + torn + LAST + b"\n"
    log = parse_log(data)
    assert [entry.id for entry in log.entries] == ["e1", "e9"]
    assert log.entries[1].raw == LAST
    assert log.repairs == [f"line 3: {len(torn)} bytes of a torn write before entry e9; dropped, the entry kept"]
    assert sum(decoded) <= 4 * len(data)


def _reference_salvage(line: bytes) -> str | None:
    """What salvaging promises, read the slow way: the first entry start from which the rest is one entry."""
    start = line.find(b'{"id":', 1)
    while start != -1:
        try:
            value = json.loads(line[start:].decode("utf-8"))
        except (ValueError, RecursionError):
            value = None
        if (isinstance(value, dict) and isinstance(value.get("id"), str) and value["id"]
                and isinstance(value.get("type"), str) and value["type"] != "session"
                and (value.get("parent_id") is None or (isinstance(value.get("parent_id"), str)
                     and value["parent_id"]))):
            return f"line 2: {start} bytes of a torn write before entry {value['id']}; dropped, the entry kept"
        start = line.find(b'{"id":', start + 1)
    return None


_PIECES = st.sampled_from([b'{"id":', b'"e', b'"', b'\\', b'\\"', b'{', b'}', b'[', b']', b',', b':', b'1', b' ',
                           b'"type":"custom"', b'"parent_id":null', b'\xc3', b'\xa9', b'x'])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(torn=st.lists(_PIECES, max_size=12).map(b"".join),
       entry=st.sampled_from([LAST, FIRST, b'{"id":"e5","type":"custom","data":{"id":"q","v":["{\\"id\\":"]}}',
                              b'{"id":"e6","type":"x","s":"\\\\"}', b'{"id":"e7","type":"x"} ',
                              b'{"id":"e8","type":"x","s":"\\"}{\\"","t":"]\\\\\\"["}']),
       tail=st.lists(_PIECES, max_size=3).map(b"".join))
def test_salvage_finds_what_trying_every_entry_start_finds(torn: bytes, entry: bytes, tail: bytes) -> None:
    line = b"#" + torn + entry + tail  # never an entry itself: what is glued after the "#" is salvaged, or nothing
    expected = _reference_salvage(line)
    log = parse_log(HEADER + line + b"\n")
    assert log.repairs[:1] == ["line 2: not JSON (a torn write?); skipped" if expected is None else expected]


def test_a_line_over_the_limit_is_reported_and_skipped_like_other_damage() -> None:
    big = b'{"id":"e2","parent_id":"e1","type":"custom","timestamp":"t","custom_type":"note","data":"' + \
        b"x" * 2000 + b'"}'
    data = HEADER + FIRST + b"\n" + big + b"\n" + LAST + b"\n"
    log = parse_log(data, max_line_bytes=1024)
    assert [entry.id for entry in log.entries] == ["e1", "e9"]
    assert log.repairs == [f"line 3: {len(big)} bytes, over the limit of 1024 bytes for one line; skipped"]
    assert parse_log(data).repairs == []  # the default limit is far above any entry a run writes
    assert MAX_LINE_BYTES >= 16 * 1024 * 1024


def test_a_header_over_the_limit_is_refused_with_the_loaders_error() -> None:
    with pytest.raises(SessionLoadError, match="over the limit of 64 bytes"):
        parse_log(HEADER + FIRST + b"\n", max_line_bytes=64)


def test_the_file_store_takes_the_limit_and_a_session_opened_through_it_reports_the_skipped_line(
        tmp_path: Path) -> None:
    store = JsonlSessionStore(tmp_path, max_line_bytes=4096)
    session = Session.new(store, cwd="/w")
    session.append_message(UserMessage.text("short"))
    session.append_message(UserMessage.text("y" * 5000))
    session.append_message(UserMessage.text("after"))
    session.close()
    again = Session.open(session.id, store)
    assert [message.content[0].text for message in again.messages()] == ["short", "after"]
    assert len(again.repairs) == 2
    assert again.repairs[0].startswith("line 3: ") and "over the limit of 4096 bytes for one line; skipped" in \
        again.repairs[0]
    assert "re-parented" in again.repairs[1]


def test_sessions_show_reports_a_line_over_the_default_limit_and_shows_the_rest(agentkit: Any, tmp_path: Path) -> None:
    data = {"AGENTKIT_DATA_DIR": str(tmp_path / "data")}
    folder = tmp_path / "data" / "sessions"
    folder.mkdir(parents=True, mode=0o700)
    huge = b'{"id":"e2","parent_id":"e1","type":"custom","timestamp":"t","custom_type":"note","data":"' + \
        b"z" * MAX_LINE_BYTES + b'"}'
    (folder / "s1.jsonl").write_bytes(HEADER + FIRST + b"\n" + huge + b"\n" + LAST + b"\n")
    shown = agentkit.inline("sessions", "show", "s1", "--json", env=data)
    assert shown.returncode == 0, shown.stderr
    report = json.loads(shown.stdout)
    assert [entry["id"] for entry in report["entries"]] == ["e1", "e9"]
    assert report["repairs"] == [f"line 3: {len(huge)} bytes, over the limit of {MAX_LINE_BYTES} bytes for one "
                                 "line; skipped"]
