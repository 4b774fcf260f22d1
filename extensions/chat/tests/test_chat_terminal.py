"""``agentkit chat`` in a pseudo-terminal: prompts, streaming, tool calls, Ctrl-C, slash commands, resume."""

from __future__ import annotations

import re
from typing import Any

from agentkit.plugin_api import AssistantMessage, StopReason, ToolResultMessage, UserMessage

CTRL_D = "\x04"


def text_turn(text: str, **extra: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], **extra}


def tool_turn(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"content": [{"type": "tool_use", "name": name, "arguments": arguments}]}


def test_text_streams_while_the_response_is_open_and_ctrl_c_aborts_the_turn(chat) -> None:
    script = chat.script([text_turn("first half of the answer", hang=True), text_turn("Back again.")])
    terminal = chat.start("--model", "faux/scripted", "--script", script)
    terminal.prompt("tell me a story")
    terminal.expect("first half of the answer")  # shown while the response is still open: it never ends
    terminal.process.sendintr()
    terminal.expect("interrupted: the turn was aborted")
    terminal.expect(re.compile(r"turn: [\d,]+ in"))
    shown = terminal.turn("are you there?")
    assert "Back again." in shown
    terminal.ready()
    terminal.process.send(CTRL_D)
    assert terminal.exit_status() == 0

    messages = chat.session(terminal.session_id).messages()
    assert [type(message) for message in messages] == [UserMessage, AssistantMessage, UserMessage, AssistantMessage]
    aborted, answered = messages[1], messages[3]
    assert aborted.stop_reason is StopReason.ABORTED and aborted.text == "first half of the answer"
    assert answered.stop_reason is StopReason.STOP and answered.text == "Back again."


def test_a_tool_call_is_shown_at_start_and_end_and_the_person_authorizes_it(chat) -> None:
    script = chat.script([
        tool_turn("run_command", {"argv": ["echo", "once"]}), text_turn("Ran it once."),
        tool_turn("run_command", {"argv": ["echo", "denied"]}), text_turn("Not allowed, fine."),
        tool_turn("run_command", {"argv": ["echo", "always"]}), tool_turn("run_command", {"argv": ["echo", "again"]}),
        text_turn("Ran both."),
    ])
    terminal = chat.start("--model", "faux/scripted", "--script", script)
    terminal.prompt("run echo once")
    terminal.expect('→ run_command argv=["echo", "once"]')
    terminal.expect("[y]es once, [a]lways (this session), [n]o:")
    terminal.answer("y")
    terminal.expect(re.compile(r"✓ run_command \(\d+\.\d+s\): .*once"))
    terminal.expect(re.compile(r"turn: [\d,]+ in"))

    terminal.prompt("run echo denied")
    terminal.expect("[y]es once")  # allowed once is not allowed again
    terminal.answer("n")
    terminal.expect(re.compile(r"✗ run_command \(\d+\.\d+s\): .*did not allow"))
    terminal.expect(re.compile(r"turn: [\d,]+ in"))

    terminal.prompt("run echo always")
    terminal.expect("[y]es once")
    terminal.answer("a")
    terminal.expect('→ run_command argv=["echo", "again"]')
    shown = terminal.expect("Ran both.")
    assert "[y]es once" not in shown  # the second call of the tool was not asked about
    terminal.ready()
    terminal.process.send(CTRL_D)
    assert terminal.exit_status() == 0

    results = [message for message in chat.session(terminal.session_id).messages()
               if isinstance(message, ToolResultMessage)]
    assert [result.is_error for result in results] == [False, True, False, False]


def test_allow_all_tools_never_asks(chat) -> None:
    script = chat.script([tool_turn("run_command", {"argv": ["echo", "quiet"]}), text_turn("Done quietly.")])
    terminal = chat.start("--model", "faux/scripted", "--script", script, "--allow-all-tools")
    shown = terminal.turn("run it")
    assert "✓ run_command" in shown and "Done quietly." in shown and "[y]es once" not in shown
    terminal.ready()
    terminal.process.send(CTRL_D)
    assert terminal.exit_status() == 0


def test_slash_commands_answer_and_an_unknown_one_names_help(chat) -> None:
    terminal = chat.start("--model", "faux/scripted", "--script", chat.script([text_turn("Hi.")]))
    terminal.prompt("/help")
    for name in ("/model", "/tools", "/skills", "/session", "/clear", "/compact", "/cost", "/exit"):
        terminal.expect(name)
    terminal.prompt("/frobnicate")
    terminal.expect("unknown command /frobnicate; /help lists the commands")
    terminal.prompt("/tools")
    terminal.expect(re.compile(r"run_command \(asks first\): "))
    terminal.prompt("/session")
    terminal.expect(f"session: {terminal.session_id}")
    terminal.expect(f"{terminal.session_id}.jsonl")
    terminal.prompt("/model nosuchvendor/model")
    terminal.expect(re.compile(r"error: [^\r\n]*nosuchvendor"))
    terminal.prompt("/cost")
    terminal.expect(re.compile(r"session: [\d,]+ in, [\d,]+ out, \$\d+\.\d{4}"))
    terminal.prompt("/exit")
    assert terminal.exit_status() == 0


def test_ctrl_c_clears_a_line_and_on_an_empty_prompt_exits_0(chat) -> None:
    terminal = chat.start("--model", "faux/scripted", "--script", chat.script([text_turn("Only this.")]))
    terminal.ready()
    terminal.process.send("never sent\x03")  # Ctrl-C: the line is cleared, nothing was sent
    terminal.process.send("\x03")  # the prompt is empty now: the chat ends
    assert terminal.exit_status() == 0
    assert not (chat.data / "sessions").exists() or all(
        not chat.session(path.stem).messages() for path in (chat.data / "sessions").glob("*.jsonl"))


def test_resume_after_exit_shows_recent_history_and_goes_on_in_the_same_session(chat) -> None:
    script = chat.script([text_turn("The first answer."), text_turn("The second answer.")])
    first = chat.start("--model", "faux/scripted", "--script", script)
    assert "The first answer." in first.turn("first question")
    first.ready()
    first.process.send(CTRL_D)
    assert first.exit_status() == 0

    again = chat.start("--resume", "--script", script)  # the model: the session's
    assert again.session_id == first.session_id
    shown = again.expect(re.compile(r"The first answer\.\r?\n"))
    assert "> first question" in shown
    # the script restarts (a new process), so the scripted model gives its first answer again
    assert "The first answer." in again.turn("second question")
    again.ready()
    again.process.send(CTRL_D)
    assert again.exit_status() == 0

    by_id = chat.start("--session", first.session_id[:8], "--script", script)
    by_id.expect("> second question")
    by_id.ready()
    by_id.process.send(CTRL_D)
    assert by_id.exit_status() == 0
    texts = [message.text if isinstance(message, AssistantMessage) else message.content[0].text
             for message in chat.session(first.session_id).messages()]
    assert texts == ["first question", "The first answer.", "second question", "The first answer."]


def test_ctrl_c_at_the_authorization_question_aborts_the_turn(chat) -> None:
    script = chat.script([tool_turn("run_command", {"argv": ["touch", "never"]}), text_turn("Never said.")])
    terminal = chat.start("--model", "faux/scripted", "--script", script)
    terminal.prompt("run it")
    terminal.expect("[y]es once")
    terminal.process.sendcontrol("c")
    terminal.expect("interrupted: the turn was aborted")
    assert "Never said." in terminal.turn("hello again")  # the chat goes on with the script's next turn
    assert terminal.leave() == 0

    messages = chat.session(terminal.session_id).messages()
    calls = [message for message in messages if isinstance(message, AssistantMessage) and message.tool_calls]
    results = [message for message in messages if isinstance(message, ToolResultMessage)]
    assert len(calls) == 1 and len(results) == 1 and results[0].is_error  # the call was answered, never run
    assert not (chat.root / "never").exists()
    assert isinstance(messages[-1], AssistantMessage) and messages[-1].stop_reason is StopReason.STOP
