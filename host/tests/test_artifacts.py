"""A tool result over the inline limit becomes an artifact of the session, read back with read_artifact."""

from __future__ import annotations

import gc
import json
import stat
import threading
from pathlib import Path

import pytest
from agentkit_provider_faux import Script, Turn, text, tool_call
from host_helpers import ToolsPlugin, make_agent, make_host
from hypothesis import given, settings
from hypothesis import strategies as st

from agentkit.host import Agent, AgentConfig, Connection, Limits
from agentkit.host._artifact_results import ArtifactKeeper
from agentkit.host.sessions import ArtifactStore, Session, data_dir
from agentkit.plugin_api import (
    ArtifactCreated,
    Tool,
    ToolContext,
    ToolError,
    ToolResultMessage,
    event_from_dict,
    event_to_dict,
)

LIMIT = 1_000


def big_tool(payload: str) -> Tool:
    return Tool("dump", "Dump.", {"type": "object"}, lambda arguments, context: payload)


def results_of(messages) -> list[ToolResultMessage]:
    return [message for message in messages if isinstance(message, ToolResultMessage)]


def artifact_run(payload: str, reads: list[dict], *, root: Path, session: Session | None = None,
                 limit: int = LIMIT):
    """Run one call of ``dump`` then ``reads`` (read_artifact arguments, ``id`` filled in); the envelopes and events."""
    turns = [Turn([tool_call("dump", {})]), *[Turn([text("placeholder")]) for _ in reads], Turn([text("done")])]
    if session is None:
        agent, script = make_agent(turns, ToolsPlugin(big_tool(payload)), root=root,
                                   limits=Limits(max_tool_result_chars=limit))
    else:
        script = Script(turns)
        agent = Agent(AgentConfig(model="faux/scripted", root=root, limits=Limits(max_tool_result_chars=limit),
                                  connection=Connection(transport=script)),
                      host=make_host(ToolsPlugin(big_tool(payload))), session=session)
    events = []

    def listen(event):
        events.append(event)
        if isinstance(event, ArtifactCreated):  # the model reads the id it was given
            for number, arguments in enumerate(reads, start=1):
                script.turns[number] = Turn([tool_call("read_artifact", {"id": event.artifact_id, **arguments})])

    agent.subscribe(listen)
    result = agent.run_sync("go")
    envelopes = [json.loads(answer.text) for answer in results_of(result.messages)]
    return agent, envelopes, events


def test_a_long_result_is_stored_whole_and_the_model_gets_a_preview_and_the_id(tmp_path):
    payload = "".join(f"line {n}\n" for n in range(1_000))
    agent, [preview], events = artifact_run(payload, [], root=tmp_path)
    full = json.dumps({"ok": True, "data": payload}, ensure_ascii=False)
    [created] = [event for event in events if isinstance(event, ArtifactCreated)]
    assert preview["artifact"] == created.artifact_id
    assert created.artifact_id.startswith("art_")
    assert (created.tool_name, created.chars) == ("dump", len(full))
    assert full.startswith(preview["head"]) and full.endswith(preview["tail"])
    assert f'read_artifact(id="{created.artifact_id}", offset={len(preview["head"])})' in preview["note"]
    assert ArtifactStore().read(agent.session_id, created.artifact_id) == full
    # Announced before the call's end, whose result is the preview.
    kinds = [event.type for event in events]
    assert kinds.index("artifact_created") == kinds.index("tool_call_end") - 1
    assert list(tmp_path.iterdir()) == []  # never in the workspace


def test_artifacts_are_the_users_alone(tmp_path):
    agent, _, events = artifact_run("x" * 5_000, [], root=tmp_path)
    [created] = [event for event in events if isinstance(event, ArtifactCreated)]
    folder = data_dir() / "artifacts" / agent.session_id
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / f"{created.artifact_id}.txt").stat().st_mode) == 0o600


def test_read_artifact_pages_through_with_a_marker_naming_the_next_call(tmp_path):
    payload = "".join(f"line {n}\n" for n in range(1_000))
    _, [_, first, second, last], events = artifact_run(
        payload, [{"limit": 50}, {"offset": 50, "limit": 50}, {"offset": 50, "limit": 10_000}], root=tmp_path)
    [created] = [event for event in events if isinstance(event, ArtifactCreated)]
    full = json.dumps({"ok": True, "data": payload}, ensure_ascii=False)
    assert first["data"]["text"] == full[:50]
    assert first["data"]["next_offset"] == 50
    assert f'read_artifact(id="{created.artifact_id}", offset=50)' in first["data"]["more"]
    assert second["data"]["text"] == full[50:100]
    # Pages are sized to fit the inline limit however the text escapes: never an artifact of an artifact.
    assert last["data"]["text"] == full[50:50 + LIMIT // 8]
    assert [event.type for event in events].count("artifact_created") == 1


def test_reading_to_the_end_says_so_and_an_offset_past_it_is_refused(tmp_path):
    payload = "y" * 2_000
    full_length = len(json.dumps({"ok": True, "data": payload}))
    _, [_, end, past], _ = artifact_run(payload, [{"offset": full_length - 5}, {"offset": full_length + 1}],
                                        root=tmp_path)
    assert end["data"]["text"] == payload[-3:] + '"}'
    assert "next_offset" not in end["data"] and "the end of the artifact" in end["data"]["more"]
    assert past["ok"] is False and past["error"] == "offset_out_of_range"
    assert f"which has {full_length} characters" in past["detail"]


@pytest.mark.parametrize("hostile", [
    "../../sessions/x", "art_../../etc/passwd", "/etc/passwd", "art_" + "0" * 31 + "/", "art_" + "A" * 32, "",
])
def test_an_id_that_is_not_an_artifact_id_is_refused(tmp_path, hostile):
    _, [_, answer], _ = artifact_run("z" * 3_000, [{"id": hostile}], root=tmp_path)
    assert answer == {"ok": False, "error": "artifact_not_found", "detail": answer["detail"]}
    assert "is not an artifact id" in answer["detail"]


def test_another_sessions_artifact_cannot_be_read(tmp_path):
    other = ArtifactStore().create("someone-else", "secret output")
    _, [_, answer], _ = artifact_run("z" * 3_000, [{"id": other}], root=tmp_path)
    assert answer["ok"] is False and answer["error"] == "artifact_not_found"
    assert "secret output" not in json.dumps(answer)


def test_a_session_keeps_its_artifacts_and_a_resumed_agent_can_read_them(tmp_path):
    session = Session.new(cwd=tmp_path)
    agent, _, events = artifact_run("w" * 3_000, [], root=tmp_path, session=session)
    [created] = [event for event in events if isinstance(event, ArtifactCreated)]
    session.close()
    del agent
    gc.collect()
    assert [item.id for item in ArtifactStore().list(session.id)] == [created.artifact_id]
    resumed = Agent(AgentConfig(model="faux/scripted", root=tmp_path, connection=Connection(transport=None)),
                    host=make_host(), session=Session.open(session.id))
    assert "read_artifact" in resumed.tools


def test_without_a_session_the_artifacts_go_with_the_agent(tmp_path):
    agent, _, _ = artifact_run("v" * 3_000, [], root=tmp_path)
    owner = agent.session_id
    assert ArtifactStore().list(owner)
    del agent
    gc.collect()
    assert ArtifactStore().list(owner) == []


def test_an_agent_whose_results_fit_has_no_read_artifact_tool(tmp_path):
    agent, [envelope], events = artifact_run("short", [], root=tmp_path)
    assert envelope == {"ok": True, "data": "short"}
    assert "read_artifact" not in agent.tools
    assert not any(isinstance(event, ArtifactCreated) for event in events)


def test_an_unwritable_data_directory_cuts_the_result_and_says_why(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    monkeypatch.setenv("AGENTKIT_DATA_DIR", str(blocker))
    workspace = tmp_path / "work"
    workspace.mkdir()
    agent, [envelope], events = artifact_run("u" * 3_000, [], root=workspace)
    assert set(envelope) == {"ok", "head", "tail", "note"} and "could not be kept" in envelope["note"]
    assert not any(isinstance(event, ArtifactCreated) for event in events)
    assert any("could not be stored as an artifact" in problem for problem in agent.last_result.problems)


def test_the_event_round_trips_through_its_json_form():
    event = ArtifactCreated("art_" + "1" * 32, "call-1", "dump", 12)
    assert event_from_dict(json.loads(json.dumps(event_to_dict(event)))) == event


def test_a_concurrent_reader_sees_nothing_or_the_whole_text(tmp_path):
    store = ArtifactStore(tmp_path / "artifacts")
    texts = {f"text {n} " * (n * 500 + 1) for n in range(20)}
    written: list[str] = []
    seen: list[tuple[str, str]] = []
    done = threading.Event()

    def read_all():
        while not done.is_set():
            for info in store.list("owner"):
                seen.append((info.id, store.read("owner", info.id)))

    reader = threading.Thread(target=read_all)
    reader.start()
    try:
        for item in sorted(texts):
            written.append(store.create("owner", item))
    finally:
        done.set()
        reader.join()
    stored = {artifact_id: store.read("owner", artifact_id) for artifact_id in written}
    assert set(stored.values()) == texts
    assert all(stored[artifact_id] == content for artifact_id, content in seen)


@settings(max_examples=40, deadline=None)
@given(content=st.text(max_size=300), offset=st.integers(0, 400), limit=st.integers(1, 400))
def test_any_page_is_the_slice_of_the_text_at_its_offset(tmp_path_factory, content, offset, limit):
    store = ArtifactStore(tmp_path_factory.mktemp("pages"))
    keeper = ArtifactKeeper(store, "owner", None)
    artifact_id = store.create("owner", content)
    try:
        page = keeper.tool.handler({"id": artifact_id, "offset": offset, "limit": limit}, ToolContext(Path(".")))
    except ToolError as exc:
        assert offset > len(content) and exc.error == "offset_out_of_range"
        return
    assert page["text"] == content[offset:offset + limit]
    assert page.get("next_offset", len(content)) == min(len(content), offset + limit)


def test_the_store_refuses_owners_that_are_paths(tmp_path):
    store = ArtifactStore(tmp_path / "artifacts")
    for owner in ("..", "../x", "a/b", "", ".hidden"):
        with pytest.raises(Exception, match="is not a session id"):
            store.create(owner, "x")
    assert not (tmp_path / "artifacts").exists() or list((tmp_path / "artifacts").iterdir()) == []


def stored_session_with_an_artifact(tmp_path: Path) -> tuple[str, str]:
    session = Session.new(cwd=tmp_path)
    _, _, events = artifact_run("s" * 3_000, [], root=tmp_path, session=session)
    session.close()
    [created] = [event for event in events if isinstance(event, ArtifactCreated)]
    return session.id, created.artifact_id


def test_sessions_show_lists_the_artifacts(agentkit, tmp_path):
    session_id, artifact_id = stored_session_with_an_artifact(tmp_path)
    shown = agentkit("sessions", "show", session_id)
    assert shown.returncode == 0, shown.stderr
    assert f"artifact {artifact_id}  " in shown.stdout
    as_json = agentkit("sessions", "show", session_id, "--json")
    assert [item["id"] for item in json.loads(as_json.stdout)["artifacts"]] == [artifact_id]


def test_sessions_delete_removes_the_session_and_its_artifacts(agentkit, tmp_path):
    session_id, _ = stored_session_with_an_artifact(tmp_path)
    kept_id, kept_artifact = stored_session_with_an_artifact(tmp_path)
    deleted = agentkit("sessions", "delete", session_id)
    assert deleted.returncode == 0, deleted.stderr
    assert ArtifactStore().list(session_id) == []
    assert agentkit("sessions", "show", session_id).returncode != 0
    # The other session keeps what it had.
    assert [item.id for item in ArtifactStore().list(kept_id)] == [kept_artifact]


@pytest.mark.parametrize("named", ["no-such-session", "../sessions", "a/b"])
def test_sessions_delete_of_no_session_is_a_clear_error(agentkit, named):
    deleted = agentkit("sessions", "delete", named)
    assert deleted.returncode != 0
    assert "Traceback" not in deleted.stderr
    assert named in deleted.stderr


def test_sessions_delete_refuses_a_session_another_process_is_writing(agentkit, tmp_path):
    session_id, artifact_id = stored_session_with_an_artifact(tmp_path)
    writing = Session.open(session_id)
    writing.append_custom("note")  # holds the log open for writing, locked
    try:
        deleted = agentkit("sessions", "delete", session_id)
    finally:
        writing.close()
    assert deleted.returncode != 0 and "in use" in deleted.stderr and "Traceback" not in deleted.stderr
    assert [item.id for item in ArtifactStore().list(session_id)] == [artifact_id]


def test_a_fork_can_read_the_artifacts_its_history_names(tmp_path):
    session_id, artifact_id = stored_session_with_an_artifact(tmp_path)
    forked = Session.open(session_id).fork()
    forked.close()
    assert [item.id for item in ArtifactStore().list(forked.id)] == [artifact_id]
    ArtifactStore().delete(session_id)  # the parent's going leaves the fork's own
    assert ArtifactStore().read(forked.id, artifact_id).startswith('{"ok": true')
    resumed = Agent(AgentConfig(model="faux/scripted", root=tmp_path, connection=Connection(transport=None)),
                    host=make_host(), session=Session.open(forked.id))
    assert "read_artifact" in resumed.tools


def test_a_read_artifact_page_over_a_tiny_limit_is_cut_not_stored_again(tmp_path):
    payload = "x" * 5_000
    _, [preview, page], events = artifact_run(payload, [{"limit": 1_000}], root=tmp_path, limit=60)
    assert [event.type for event in events].count("artifact_created") == 1
    assert "artifact" in preview and "artifact" not in page
    assert "max_tool_result_chars" in page["note"]


def test_an_embedders_tool_that_took_the_name_read_artifact_has_its_long_results_stored(tmp_path):
    taken = Tool("read_artifact", "Mine.", {"type": "object"}, lambda arguments, context: "y" * 5_000)
    agent, _ = make_agent([Turn([tool_call("read_artifact", {})]), Turn([text("done")])], ToolsPlugin(taken),
                          root=tmp_path, limits=Limits(max_tool_result_chars=LIMIT))
    events = []
    agent.subscribe(events.append)
    result = agent.run_sync("go")
    [created] = [event for event in events if isinstance(event, ArtifactCreated)]
    [preview] = [json.loads(answer.text) for answer in results_of(result.messages)]
    assert (created.tool_name, created.tool_use_id) == ("read_artifact", "call_1_1")
    assert preview["artifact"] == created.artifact_id and preview["ok"] is True


@pytest.mark.parametrize("other_file_system", [False, True])
def test_a_spooled_file_is_moved_into_the_store_private_and_whole(tmp_path, monkeypatch, other_file_system):
    from agentkit.host.sessions import _artifacts

    spooled = tmp_path / "spool.txt"
    spooled.write_text("first error\n" + "line\n" * 1000)
    if other_file_system:  # a rename across file systems fails: the file is copied, then removed
        real_replace = _artifacts.os.replace

        def replace(source, target):
            if Path(source) == spooled:
                raise OSError(18, "Invalid cross-device link")
            return real_replace(source, target)

        monkeypatch.setattr(_artifacts.os, "replace", replace)
    store = ArtifactStore(tmp_path / "store")
    artifact_id = store.adopt("session-1", spooled)
    assert store.read("session-1", artifact_id) == "first error\n" + "line\n" * 1000
    assert not spooled.exists()
    stored = tmp_path / "store" / "session-1" / f"{artifact_id}.txt"
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    assert [item.id for item in store.list("session-1")] == [artifact_id]
