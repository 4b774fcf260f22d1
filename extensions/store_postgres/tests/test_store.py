"""The PostgreSQL store against a real server: what one worker writes another reads, byte for byte."""

from __future__ import annotations

import pytest
from agentkit_store_postgres import PostgresSessionStore

from agentkit.host.errors import ConfigError, SessionConflict, SessionNotFound
from agentkit.host.sessions import JsonlSessionStore, Session, SessionStore, parse_log
from agentkit.plugin_api import UserMessage


@pytest.fixture
def store(dsn):
    with PostgresSessionStore(dsn) as store:
        yield store


def test_it_is_a_session_store(store):
    assert isinstance(store, SessionStore)


def test_a_session_written_through_one_store_resumes_through_another(dsn, store):
    session = Session.new(store, cwd="/work")
    session.append_message(UserMessage.text("hello"))
    session.set_model("faux-1")
    session.append_custom("note", {"n": 1})
    with PostgresSessionStore(dsn) as elsewhere:
        resumed = Session.open(session.id[:8], elsewhere)
        assert [entry.raw for entry in resumed.entries] == [entry.raw for entry in session.entries]
        assert resumed.header.raw == session.header.raw
        assert resumed.model == "faux-1"
        assert resumed.repairs == []
        resumed.append_custom("note", {"n": 2})  # appends from the leaf it loaded
    assert [entry.type for entry in Session.open(session.id, store).entries] == ["message", "model_change",
                                                                                 "custom", "custom"]


def test_lines_round_trip_byte_for_byte_as_another_writer_spelled_them(store, tmp_path):
    log = (b'{"type":"session","version":1,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}\n'
           b'{"id": "a", "parent_id": null, "type": "custom", "timestamp": "t", "custom_type": "x", '
           b'"data": {"z": 1.50, "a": "\xc3\xa9\\u00e9 \\ud83d\\ude00"}}\n'
           b'{"type":"custom","id":"b","parent_id":"a","timestamp":"t","custom_type":"x","data":1e3}\n'
           b'{"id":"c","parent_id":"b","type":"from_the_future","timestamp":"t","what":[1,2,3]}\n')
    parsed = parse_log(log)
    store.create(parsed.header)
    store.append("s1", parsed.entries, expected_last=None)
    assert store.load("s1").to_bytes() == log
    files = JsonlSessionStore(tmp_path)  # the file store would have kept the same lines
    files.create(parsed.header)
    files.append("s1", parsed.entries, expected_last=None)
    files.close("s1")
    assert files.path("s1").read_bytes() == log


def test_a_fork_is_a_new_session_in_the_same_store(store):
    session = Session.new(store, cwd="/w")
    first = session.append_message(UserMessage.text("one"))
    session.append_message(UserMessage.text("two"))
    fork = session.fork(first.id)
    assert [entry.id for entry in Session.open(fork.id, store).entries] == [first.id]
    assert {listing.id for listing in store.list_sessions()} == {session.id, fork.id}


def test_listings_say_where_the_session_is_without_the_password(dsn):
    with PostgresSessionStore(dsn.replace("postgresql://", "postgresql://").replace("@", ":s3cret-pw@", 1)) as store:
        assert "s3cret-pw" not in store.where


def test_an_append_after_another_writer_is_a_conflict_and_writes_nothing(store):
    session = Session.new(store, cwd="/w")
    first = session.append_message(UserMessage.text("one"))
    store.append(session.id, [], expected_last=first.id)  # an empty append only checks
    with pytest.raises(SessionConflict, match="reload it and retry"):
        store.append(session.id, session.entries, expected_last=None)
    assert [entry.id for entry in store.load(session.id).entries] == [first.id]


def test_an_id_that_exists_is_a_conflict_and_a_missing_one_is_not_found(store):
    session = Session.new(store, cwd="/w")
    session.append_message(UserMessage.text("one"))
    with pytest.raises(SessionConflict):
        store.create(session.header)
    with pytest.raises(SessionNotFound):
        store.load("nope")
    with pytest.raises(SessionNotFound):
        store.append("nope", [], expected_last=None)


def test_a_bad_connection_string_names_the_fix():
    with pytest.raises(ConfigError, match="postgresql://user@host"):
        PostgresSessionStore("this is = not = a dsn")
