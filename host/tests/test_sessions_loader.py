"""Loading a damaged session log repairs it and says what it repaired; a sound log round-trips byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentkit.host.errors import SessionLoadError
from agentkit.host.sessions import JsonlSessionStore, Session, parse_log
from agentkit.plugin_api import (
    AssistantMessage,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolResultMessage,
    ToolUseBlock,
    Usage,
    UserMessage,
)


def sample_log(tmp_path: Path, messages: int = 4) -> tuple[JsonlSessionStore, Session, bytes]:
    store = JsonlSessionStore(tmp_path)
    session = Session.new(store, cwd="/work")
    session.set_model("faux/scripted")
    for number in range(messages):
        session.append_message(UserMessage.text(f"message {number}"))
    session.close()
    return store, session, store.path(session.id).read_bytes()


def lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")[:-1]


def test_a_sound_log_loads_without_repairs_and_is_written_back_unchanged(tmp_path: Path) -> None:
    _, session, data = sample_log(tmp_path)
    log = parse_log(data)
    assert log.repairs == []
    assert log.header.id == session.id and log.header.cwd == "/work" and log.header.version == 1
    assert [entry.type for entry in log.entries] == ["model_change"] + ["message"] * 4
    assert log.to_bytes() == data


def test_a_truncated_last_line_is_dropped_and_reported(tmp_path: Path) -> None:
    _, _, data = sample_log(tmp_path)
    cut = data[:-20]
    log = parse_log(cut)
    assert [entry.message.content[0].text for entry in log.entries[1:]] == ["message 0", "message 1", "message 2"]
    assert len(log.repairs) == 1 and "truncated last line" in log.repairs[0] and "line 6" in log.repairs[0]


def test_an_unknown_entry_type_is_kept_verbatim_and_written_back_unchanged(tmp_path: Path) -> None:
    _, _, data = sample_log(tmp_path, messages=2)
    rows = lines(data)
    parent = json.loads(rows[-1])["id"]
    future = b'{"id":"f1","parent_id":"%s","type":"from_the_future","timestamp":1.50,"x":[1e5, 2]}' % parent.encode()
    damaged = b"\n".join([*rows, future]) + b"\n"
    log = parse_log(damaged)
    assert log.entries[-1].type == "from_the_future" and log.entries[-1].raw == future
    assert log.to_bytes() == damaged
    assert any("does not know" in repair and "from_the_future" in repair for repair in log.repairs)


def test_a_dangling_parent_is_reparented_to_the_nearest_ancestor(tmp_path: Path) -> None:
    _, _, data = sample_log(tmp_path)
    rows = lines(data)
    del rows[3]  # the parent of the next entry is lost
    log = parse_log(b"\n".join(rows) + b"\n")
    orphan = log.entries[2]
    assert orphan.message.content[0].text == "message 2"
    assert orphan.parent_id == log.entries[1].id
    assert json.loads(log.to_bytes().split(b"\n")[3])["parent_id"] == log.entries[1].id
    assert any("missing parent" in repair for repair in log.repairs)


def test_a_torn_write_never_swallows_the_next_entry(tmp_path: Path) -> None:
    _, _, data = sample_log(tmp_path)
    rows = lines(data)
    rows[3] = rows[3][:25] + rows[4]  # a write torn by a crash, the next one glued to it
    del rows[4]
    log = parse_log(b"\n".join(rows) + b"\n")
    texts = [entry.message.content[0].text for entry in log.entries if entry.type == "message"]
    assert texts == ["message 0", "message 2", "message 3"]
    assert any("torn write" in repair for repair in log.repairs)


def test_appending_after_a_torn_last_line_starts_a_line_of_its_own(tmp_path: Path) -> None:
    store, session, _ = sample_log(tmp_path)
    with store.path(session.id).open("ab") as file:
        file.write(b'{"id":"torn","parent_id":nu')  # the process died in the middle of a write
    resumed = Session.open(session.id, JsonlSessionStore(tmp_path))
    assert any("truncated last line" in repair for repair in resumed.repairs)
    resumed.append_message(UserMessage.text("after the crash"))
    resumed.close()
    log = parse_log(store.path(session.id).read_bytes())
    assert log.entries[-1].message.content[0].text == "after the crash"
    assert log.entries[-1].parent_id == log.entries[-2].id
    assert [repair for repair in log.repairs if "skipped" in repair]  # the torn bytes, now a line of their own


@pytest.mark.parametrize("data", [b"", b"\n", b"not json\n", b'{"type":"message","id":"x"}\n', b"[]\n",
                                  b'{"type":"session"}\n'])
def test_a_log_without_a_header_is_refused_with_the_loaders_error(data: bytes) -> None:
    with pytest.raises(SessionLoadError, match=r"not a session log|empty"):
        parse_log(data, "x.jsonl")


# -- fuzzing -------------------------------------------------------------------------

#: No deadline and no speed checks: a loaded machine must not fail a property that holds.
FUZZ: dict = {"deadline": None, "suppress_health_check": [
    HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example,
    HealthCheck.function_scoped_fixture]}

any_text = st.text(st.characters(codec="utf-8"), max_size=40)
numbers = st.floats(allow_nan=False, allow_infinity=False, width=64)
blocks = st.one_of(
    st.builds(TextBlock, any_text),
    st.builds(ThinkingBlock, any_text, st.none() | any_text, st.booleans()),
    # Argument text exactly as a model wrote it: spacing, key order, escapes, even invalid JSON.
    st.builds(ToolUseBlock, st.text("abc123_-", min_size=1, max_size=12), any_text,
              any_text | st.sampled_from(['{"b": 1, "a":2}', '{ "n" : 1.50e+3 }', '{"s":"\\u00e9\\n"}'])),
)
usages = st.builds(Usage, st.integers(0, 10**9), st.integers(0, 10**9), st.integers(0, 10), st.integers(0, 10),
                   st.integers(0, 10), numbers)
messages = st.one_of(
    st.builds(UserMessage, st.lists(st.builds(TextBlock, any_text), max_size=3), numbers),
    st.builds(AssistantMessage, st.lists(blocks, max_size=4), st.sampled_from(list(StopReason)),
              usage=usages, timestamp=numbers, response_id=st.none() | any_text),
    st.builds(ToolResultMessage, any_text, any_text, st.lists(st.builds(TextBlock, any_text), max_size=2),
              st.booleans(), numbers),
)


def written_log(directory: Path, conversation: list) -> bytes:
    store = JsonlSessionStore(directory)
    session = Session.new(store, cwd="/w")
    for message in conversation:
        session.append_message(message)
    session.close()
    return store.path(session.id).read_bytes()


@settings(max_examples=60, **FUZZ)
@given(conversation=st.lists(messages, min_size=1, max_size=6))
def test_every_valid_log_round_trips_byte_for_byte(tmp_path_factory: pytest.TempPathFactory, conversation: list) -> None:
    data = written_log(tmp_path_factory.mktemp("log"), conversation)
    log = parse_log(data)
    assert log.repairs == []
    assert log.to_bytes() == data
    assert [entry.message.to_dict() for entry in log.entries] == [message.to_dict() for message in conversation]


def mutate(data: bytes, operations: list[tuple[str, int, bytes]]) -> bytes:
    for operation, position, junk in operations:
        position = position % (len(data) + 1)
        if operation == "truncate":
            data = data[:position]
        elif operation == "flip" and data:
            index = position % len(data)
            data = data[:index] + bytes([data[index] ^ 0x5A]) + data[index + 1:]
        elif operation == "insert":
            data = data[:position] + junk + data[position:]
        elif operation == "delete":
            data = data[:position] + data[position + len(junk) + 1:]
        elif operation == "duplicate":
            rows = data.split(b"\n")
            line = rows[position % len(rows)]
            data = data + line + b"\n"
    return data


operations = st.lists(st.tuples(st.sampled_from(["truncate", "flip", "insert", "delete", "duplicate"]),
                                st.integers(0, 10**6), st.binary(max_size=12) | st.sampled_from(
                                    [b"\n", b'{"id":', b'"parent_id":"zz"', b'{"id":"q","type":"message"}\n'])),
                      min_size=1, max_size=4)


@settings(max_examples=150, **FUZZ)
@given(conversation=st.lists(messages, min_size=1, max_size=4), mutations=operations)
def test_a_mutated_log_loads_or_raises_only_the_loaders_error(tmp_path_factory: pytest.TempPathFactory,
                                                              conversation: list, mutations: list) -> None:
    data = mutate(written_log(tmp_path_factory.mktemp("log"), conversation), mutations)
    try:
        log = parse_log(data)
    except SessionLoadError:
        return
    seen: set[str] = set()
    for entry in log.entries:  # whatever was repaired, the result is a tree
        assert entry.id not in seen
        assert entry.parent_id is None or entry.parent_id in seen
        seen.add(entry.id)
    again = parse_log(log.to_bytes())  # and a repaired log is sound
    assert [entry.raw for entry in again.entries] == [entry.raw for entry in log.entries]
    assert all("does not know" in repair or "cannot be read" in repair or "kept as it is" in repair
               for repair in again.repairs)


@settings(max_examples=60, **FUZZ)
@given(conversation=st.lists(messages, min_size=1, max_size=4), cut=st.integers(0, 10**6))
def test_a_log_cut_anywhere_keeps_every_entry_written_before_the_cut(tmp_path_factory: pytest.TempPathFactory,
                                                                     conversation: list, cut: int) -> None:
    data = written_log(tmp_path_factory.mktemp("log"), conversation)
    header_end = data.index(b"\n") + 1
    cut = header_end + cut % (len(data) - header_end + 1)
    log = parse_log(data[:cut])
    written = lines(data)[1:]
    complete = data[:cut].count(b"\n") - 1
    partial = data[:cut].split(b"\n")[-1]
    # A cut just before a line's newline leaves the whole entry: it is kept, its newline added.
    kept = written[:complete + 1] if complete < len(written) and partial == written[complete] else written[:complete]
    assert [entry.raw for entry in log.entries] == kept


def test_a_cut_just_before_the_newline_keeps_the_whole_last_entry(tmp_path: Path) -> None:
    _, _, data = sample_log(tmp_path)
    log = parse_log(data[:-1])
    assert [entry.raw for entry in log.entries] == lines(data)[1:]
    assert log.repairs == ["line 6: the last entry had no newline; added"]


def test_an_unknown_entry_survives_appends_and_forks_unchanged(tmp_path: Path) -> None:
    store, session, data = sample_log(tmp_path, messages=1)
    parent = json.loads(lines(data)[-1])["id"]
    future = b'{"id":"f1","parent_id":"%s","type":"from_the_future","timestamp":0,"n":1.0e3}' % parent.encode()
    with store.path(session.id).open("ab") as file:
        file.write(future + b"\n")
    resumed = Session.open(session.id, JsonlSessionStore(tmp_path))
    resumed.append_message(UserMessage.text("after it"))
    forked = resumed.fork()
    resumed.close()
    forked.close()
    for written in (store.path(session.id).read_bytes(), store.path(forked.id).read_bytes()):
        assert future in lines(written)
    assert [message.content[0].text for message in forked.messages()] == ["message 0", "after it"]


number_tokens = st.from_regex(r"-?(0|[1-9][0-9]{0,15})(\.[0-9]{1,12})?([eE][+-]?[0-9]{1,3})?", fullmatch=True)
json_texts = st.recursive(
    number_tokens | st.sampled_from(["true", "false", "null"]) | any_text.map(json.dumps),
    lambda inner: st.lists(inner, max_size=3).map(lambda items: "[" + " , ".join(items) + "]")
    | st.dictionaries(any_text, inner, max_size=3).map(
        lambda items: "{" + ",".join(f"{json.dumps(key)}: {value}" for key, value in items.items()) + "}"),
    max_leaves=8,
)


@settings(max_examples=80, **FUZZ)
@given(stamps=st.lists(number_tokens, min_size=1, max_size=5), payloads=st.lists(json_texts, min_size=5, max_size=5))
def test_a_valid_log_written_by_anyone_round_trips_byte_for_byte(stamps: list[str], payloads: list[str]) -> None:
    """Spacing, key order and number spellings (``1.50e+3``) are another writer's: they are kept as they are."""
    rows = [b'{"type": "session", "version": 1, "id": "s", "timestamp": "t", "cwd": "/"}']
    parent = "null"
    for number, (stamp, payload) in enumerate(zip(stamps, payloads, strict=False)):
        kind = "custom" if number % 2 else "someone_elses_type"
        rows.append(f'{{"type":"{kind}", "id":"e{number}","parent_id":{parent},"timestamp":{stamp},'
                    f'"custom_type":"x","data":{payload}}}'.encode())
        parent = f'"e{number}"'
    data = b"\n".join(rows) + b"\n"
    log = parse_log(data)
    assert len(log.entries) == len(stamps)
    assert log.to_bytes() == data
