"""The slash commands that change the conversation: /model, /session fork, /clear, /compact."""

from __future__ import annotations

import re
from typing import Any

from agentkit.plugin_api import AssistantMessage, UserMessage

SESSION_ID = re.compile(r"session ([0-9a-f]+)\r?\n")


def text_turn(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}]}


def texts(session: Any) -> list[str]:
    return [message.text if isinstance(message, AssistantMessage) else message.content[0].text
            for message in session.messages() if isinstance(message, UserMessage | AssistantMessage)]


def test_model_switches_mid_session_and_the_session_records_it(chat) -> None:
    script = chat.script([text_turn("From the first."), text_turn("From the second.")])
    terminal = chat.start("--model", "faux/scripted", "--script", script)
    terminal.turn("one")
    terminal.prompt("/model")
    terminal.expect("model: faux/scripted")
    terminal.prompt("/model faux/structured")
    terminal.expect("the conversation goes on with it")
    assert "From the second." in terminal.turn("two")
    assert terminal.leave() == 0
    session = chat.session(terminal.session_id)
    changes = [entry.data["model"] for entry in session.entries if entry.type == "model_change"]
    assert changes == ["faux/scripted", "faux/structured"]
    assert texts(session) == ["one", "From the first.", "two", "From the second."]


def test_session_fork_goes_on_in_a_copy_and_clear_starts_afresh(chat) -> None:
    script = chat.script([text_turn("Original."), text_turn("In the fork."), text_turn("Fresh.")])
    terminal = chat.start("--model", "faux/scripted", "--script", script)
    terminal.turn("before the fork")
    terminal.prompt("/session fork")
    terminal.expect("forked: the chat goes on in ")
    terminal.expect(SESSION_ID)
    fork_id = terminal.process.match.group(1)
    terminal.turn("after the fork")
    terminal.prompt("/clear")
    terminal.expect("a new conversation: ")
    terminal.expect(SESSION_ID)
    fresh_id = terminal.process.match.group(1)
    terminal.turn("a new start")
    assert terminal.leave() == 0

    assert texts(chat.session(terminal.session_id)) == ["before the fork", "Original."]
    assert texts(chat.session(fork_id)) == ["before the fork", "Original.", "after the fork", "In the fork."]
    assert texts(chat.session(fresh_id)) == ["a new start", "Fresh."]
    assert len({terminal.session_id, fork_id, fresh_id}) == 3


def test_compact_summarizes_the_conversation_and_requests_start_from_the_summary(chat) -> None:
    script = chat.script([text_turn("First answer."), text_turn("Second answer."),
                          text_turn("SUMMARY: two questions asked"), text_turn("After the summary.")])
    terminal = chat.start("--model", "faux/scripted", "--script", script)
    terminal.turn("first question")
    terminal.turn("second question")
    terminal.prompt("/compact")
    terminal.expect("compacted: requests now start from a summary")
    terminal.turn("third question")
    assert terminal.leave() == 0

    session = chat.session(terminal.session_id)
    compactions = [entry for entry in session.entries if entry.type == "compaction"]
    assert [entry.data["summary"] for entry in compactions] == ["SUMMARY: two questions asked"]
    resume = session.resume()
    assert resume.summary == "SUMMARY: two questions asked"
    assert texts(session)[-2:] == ["third question", "After the summary."]


def test_skills_lists_the_installed_skills(chat) -> None:
    terminal = chat.start("--model", "faux/scripted", "--script", chat.script([text_turn("unused")]))
    terminal.prompt("/skills")
    terminal.expect("code-review: Review a change")  # agentkit-skills-review, installed in this workspace
    assert terminal.leave() == 0


def test_compact_with_a_single_prompt_has_nothing_to_do_and_a_failed_summary_says_so(agentkit, tmp_path) -> None:
    script = tmp_path / "turns.json"
    script.write_text('[{"content": [{"type": "text", "text": "One."}]}]')  # then empty answers: no summary
    result = agentkit.inline("chat", "--model", "faux/scripted", "--script", str(script), "--root", str(tmp_path),
                             input="first\n/compact\nsecond\n/compact\n",
                             env={"AGENTKIT_DATA_DIR": str(tmp_path / "data")}, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    notes = [line for line in result.stdout.splitlines() if "compact" in line or "summary" in line]
    assert notes == ["> /compact", "nothing to compact yet", "> /compact",
                     "the summary failed (an error or an empty answer): requests now start from the last turn, "
                     "without a summary"]
