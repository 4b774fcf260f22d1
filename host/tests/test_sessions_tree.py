"""A session is a tree: branch, list leaves, fork, and resume the current branch as a fold."""

from __future__ import annotations

from pathlib import Path

from agentkit_provider_faux import Script, Turn, text
from host_helpers import make_host

from agentkit.host import Agent, AgentConfig, Connection
from agentkit.host.sessions import (
    BRANCH_SUMMARY_PREFIX,
    BRANCH_SUMMARY_SUFFIX,
    JsonlSessionStore,
    Session,
)
from agentkit.plugin_api import AssistantMessage, StopReason, TextBlock, UserMessage


def said(session: Session) -> list[str]:
    return [message.content[0].text for message in session.messages()]


def answer(words: str) -> AssistantMessage:
    return AssistantMessage([TextBlock(words)], StopReason.STOP, provider="faux", api="faux", model="scripted")


def conversation(tmp_path: Path) -> tuple[JsonlSessionStore, Session, list[str]]:
    store = JsonlSessionStore(tmp_path)
    session = Session.new(store, cwd=tmp_path)
    ids = [session.append_message(message).id for message in
           (UserMessage.text("a"), answer("b"), UserMessage.text("c"), answer("d"))]
    return store, session, ids


def test_branching_moves_the_leaf_and_records_the_branch_left(tmp_path: Path) -> None:
    store, session, ids = conversation(tmp_path)
    marker = session.branch(ids[1], summary="We tried c; it said d.")
    assert marker.type == "branch_summary" and marker.parent_id == ids[1] and marker.data["from_id"] == ids[3]
    session.append_message(UserMessage.text("e"))

    assert said(session) == ["a", "b", f"{BRANCH_SUMMARY_PREFIX}We tried c; it said d.{BRANCH_SUMMARY_SUFFIX}", "e"]
    assert [leaf.id for leaf in session.leaves()] == [ids[3], session.leaf_id]
    session.close()
    reopened = Session.open(session.id, store)  # the branch taken last is where a resume goes on
    assert said(reopened) == said(session)


def test_the_branch_summary_wrapper_is_pinned() -> None:
    assert BRANCH_SUMMARY_PREFIX == (
        "The conversation returned here from another branch it had taken. That branch, summarized:\n\n<summary>\n"
    )
    assert BRANCH_SUMMARY_SUFFIX == "\n</summary>"


def test_a_branch_without_a_summary_shows_the_model_nothing_of_it(tmp_path: Path) -> None:
    _, session, ids = conversation(tmp_path)
    session.branch(ids[1])
    assert said(session) == ["a", "b"]
    assert session.branch(session.leaf_id) is None  # already there: nothing appended
    session.branch(None)  # back to the very beginning
    assert said(session) == []


def test_a_fork_is_a_new_session_with_the_branch_up_to_an_entry(tmp_path: Path) -> None:
    store, session, ids = conversation(tmp_path)
    session.append_custom("bookmark", {"note": "kept as written"})
    forked = session.fork(ids[2])
    assert forked.id != session.id and forked.header.parent_session == session.id
    assert said(forked) == ["a", "b", "c"]
    forked.append_message(answer("another d"))
    forked.close()
    session.close()

    original = store.path(session.id).read_bytes().split(b"\n")
    copy = store.path(forked.id).read_bytes().split(b"\n")
    assert copy[1:4] == original[1:4]  # the lines themselves, byte for byte
    assert said(Session.open(session.id, store)) == ["a", "b", "c", "d"]
    assert said(Session.open(forked.id, store)) == ["a", "b", "c", "another d"]


def test_resuming_folds_model_and_thinking_level_from_their_last_change(tmp_path: Path) -> None:
    store = JsonlSessionStore(tmp_path)
    session = Session.new(store, cwd=tmp_path)
    session.append_message(UserMessage.text("hello"))
    assert session.resume().model is None
    session.append_message(answer("hi"))
    assert session.resume().model == "faux/scripted"  # no change recorded: the last answer's provenance
    session.set_model("anthropic/claude-sonnet-4-6")
    session.set_thinking_level("high")
    session.set_model("openai/gpt-5")
    session.set_thinking_level(None)
    session.close()

    resume = Session.open(session.id, store).resume()
    assert resume.model == "openai/gpt-5"
    assert resume.thinking_level is None and resume.thinking_level_changed
    assert [message.role for message in resume.messages] == ["user", "assistant"]
    config = Session.open(session.id, store).config_for(AgentConfig(model="faux/scripted", reasoning="low"))
    assert (config.model, config.reasoning) == ("openai/gpt-5", None)


def test_an_agent_goes_on_from_the_branch_it_is_given(tmp_path: Path) -> None:
    _, session, ids = conversation(tmp_path)
    session.branch(ids[1])
    script = Script([Turn([text("from b")])])
    agent = Agent(AgentConfig(model="faux/scripted",
                              connection=Connection(transport=script)), host=make_host(), session=session)
    agent.run_sync("c again")
    assert [message.content[0].text for message in script.requests[0].messages] == ["a", "b", "c again"]
    assert said(session)[-2:] == ["c again", "from b"]
    assert len(session.leaves()) == 2
