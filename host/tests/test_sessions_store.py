"""The session store seam: the file store's place and permissions, conflicting appends, and a store of one's own."""

from __future__ import annotations

import itertools
import stat
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest
from agentkit_provider_faux import Script, Turn, text
from host_helpers import make_host

from agentkit.host import Agent, AgentConfig, Connection
from agentkit.host.errors import SessionConflict, SessionNotFound
from agentkit.host.sessions import (
    Entry,
    JsonlSessionStore,
    LoadedLog,
    Session,
    SessionHeader,
    SessionListing,
    SessionStore,
    data_dir,
    parse_log,
)
from agentkit.plugin_api import UserMessage

HOME = Path.home()


@pytest.mark.parametrize(("platform", "environ", "expected"), [
    ("linux", {"AGENTKIT_DATA_DIR": "/srv/agentkit"}, Path("/srv/agentkit")),
    ("linux", {"XDG_DATA_HOME": "/xdg"}, Path("/xdg/agentkit")),
    ("linux", {"XDG_DATA_HOME": "relative/ignored"}, HOME / ".local/share/agentkit"),
    ("linux", {}, HOME / ".local/share/agentkit"),
    ("darwin", {"XDG_DATA_HOME": "/xdg"}, HOME / "Library/Application Support/agentkit"),
    ("win32", {"LOCALAPPDATA": "C:/Users/u/AppData/Local"}, Path("C:/Users/u/AppData/Local/agentkit")),
])
def test_the_data_directory_follows_the_platform_and_the_override(platform: str, environ: dict[str, str],
                                                                  expected: Path) -> None:
    assert data_dir(environ, platform) == expected


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_the_file_store_keeps_sessions_for_the_user_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTKIT_DATA_DIR", str(tmp_path / "data"))
    store = JsonlSessionStore()
    session = Session.new(store, cwd=tmp_path)
    session.append_message(UserMessage.text("private"))
    session.close()
    path = store.path(session.id)
    assert path.parent == tmp_path / "data" / "sessions"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "data").stat().st_mode) == 0o700


def test_a_second_writer_of_one_session_is_refused_until_the_first_lets_go(tmp_path: Path) -> None:
    session = Session.new(JsonlSessionStore(tmp_path), cwd=tmp_path)
    session.append_message(UserMessage.text("one"))
    other = Session.open(session.id, JsonlSessionStore(tmp_path))
    with pytest.raises(SessionConflict, match="open for writing elsewhere"):
        other.append_message(UserMessage.text("two"))
    session.close()
    other.append_message(UserMessage.text("two"))
    assert [entry.message.content[0].text for entry in Session.open(session.id, JsonlSessionStore(tmp_path)).entries] \
        == ["one", "two"]


def test_an_append_to_a_leaf_that_moved_on_is_a_conflict_and_appends_nothing(tmp_path: Path) -> None:
    store = JsonlSessionStore(tmp_path)
    session = Session.new(store, cwd=tmp_path)
    first = session.append_message(UserMessage.text("one"))
    with pytest.raises(SessionConflict, match="reload it and retry"):
        store.append(session.id, [first], expected_last=None)
    session.close()
    assert len(parse_log(store.path(session.id).read_bytes()).entries) == 1


def test_unknown_and_malformed_session_ids_are_not_found(tmp_path: Path) -> None:
    store = JsonlSessionStore(tmp_path)
    for wanted in ("nope", "../../etc/passwd", ""):
        with pytest.raises(SessionNotFound):
            Session.open(wanted, store)
    assert Session.most_recent(store) is None


class MemoryStore:
    """A store of one's own: the seam a database store implements."""

    def __init__(self) -> None:
        self.logs: dict[str, list[bytes]] = {}

    def create(self, header: SessionHeader) -> None:
        if header.id in self.logs:
            raise SessionConflict(header.id)
        self.logs[header.id] = [header.raw]

    def append(self, session_id: str, entries: Sequence[Entry], *, expected_last: str | None) -> None:
        lines = self.logs[session_id]
        last = parse_log(b"".join(line + b"\n" for line in lines)).entries
        if (last[-1].id if last else None) != expected_last:
            raise SessionConflict(session_id)
        lines.extend(entry.raw for entry in entries)

    def checkpoint(self, session_id: str) -> None:
        pass

    def load(self, session_id: str) -> LoadedLog:
        if session_id not in self.logs:
            raise SessionNotFound(session_id)
        return parse_log(b"".join(line + b"\n" for line in self.logs[session_id]))

    def list_sessions(self) -> list[SessionListing]:
        return [SessionListing(key, "", "", 0.0, "memory") for key in self.logs]

    def close(self, session_id: str) -> None:
        pass


def test_an_agent_writes_to_any_store_that_implements_the_seam() -> None:
    store = MemoryStore()
    assert isinstance(store, SessionStore)
    script = Script([Turn([text("hello")]), Turn([text("again")])])
    agent = Agent(AgentConfig(model="faux/scripted", connection=Connection(transport=script)), host=make_host(),
                  session=Session.new(store, cwd="/w"))
    agent.run_sync("hi")
    resumed = Agent(AgentConfig(model="faux/scripted", connection=Connection(transport=script)), host=make_host(),
                    session=Session.open(agent.session_id, store))
    assert [message.role for message in resumed.history] == ["user", "assistant"]
    assert resumed.run_sync("more").text == "again"


def test_writers_racing_on_one_leaf_lose_nothing_and_never_fork_it(tmp_path: Path) -> None:
    """Each writer reloads and retries on a conflict: every append lands, each on the leaf the winner left."""
    first = Session.new(JsonlSessionStore(tmp_path), cwd=tmp_path)
    first.append_message(UserMessage.text("start"))
    first.close()
    conflicts: list[str] = []

    def writer(name: str) -> None:
        done = 0
        while done < 40:
            session = Session.open(first.id, JsonlSessionStore(tmp_path))
            try:
                session.append_message(UserMessage.text(f"{name} {done}"))
                done += 1
            except SessionConflict as exc:
                conflicts.append(str(exc))
            finally:
                session.close()

    threads = [threading.Thread(target=writer, args=(name,)) for name in ("a", "b", "c")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    entries = Session.open(first.id, JsonlSessionStore(tmp_path)).entries
    texts = [entry.message.content[0].text for entry in entries]
    assert sorted(texts[1:]) == sorted(f"{name} {n}" for name in "abc" for n in range(40))
    assert all(entry.parent_id == before.id for before, entry in itertools.pairwise(entries))
