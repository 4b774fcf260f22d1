"""Line editing in ``agentkit chat``: history across sessions, multi-line input, slash-command completion."""

from __future__ import annotations

import stat
from typing import Any

from agentkit.plugin_api import UserMessage

UP = "\x1b[A"
ALT_ENTER = "\x1b\r"


def text_turn(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}]}


def user_texts(session: Any) -> list[str]:
    return [message.content[0].text for message in session.messages() if isinstance(message, UserMessage)]


def test_history_is_kept_across_chats_in_a_file_of_the_users_own(chat) -> None:
    script = chat.script([text_turn("Noted."), text_turn("Noted again.")])
    first = chat.start("--model", "faux/scripted", "--script", script)
    first.turn("remember this line")
    assert first.leave() == 0

    second = chat.start("--model", "faux/scripted", "--script", script)
    second.ready()
    second.process.send(UP + "\r")  # the previous chat's line comes back, and is sent
    second.expect("Noted.")
    assert second.leave() == 0
    assert user_texts(chat.session(second.session_id)) == ["remember this line"]
    history = chat.data / "chat_history"
    assert stat.S_IMODE(history.stat().st_mode) == 0o600


def test_alt_enter_starts_a_new_line_of_the_same_prompt(chat) -> None:
    terminal = chat.start("--model", "faux/scripted", "--script", chat.script([text_turn("Two lines read.")]))
    terminal.ready()
    terminal.process.send("line one" + ALT_ENTER + "line two\r")
    terminal.expect("Two lines read.")
    assert terminal.leave() == 0
    assert user_texts(chat.session(terminal.session_id)) == ["line one\nline two"]


def test_tab_completes_a_slash_command_at_the_start_of_the_line() -> None:
    # In-process: the completer runs after the keys already read (Tab then Enter typed together would race),
    # and what the line editor redraws is only what changed, so a terminal shows no whole word to wait for.
    from agentkit_chat._commands import COMMANDS
    from agentkit_chat._input import _slash_completer
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    completer = _slash_completer(COMMANDS)

    def completions(text: str) -> list[str]:
        return [item.text for item in completer.get_completions(Document(text), CompleteEvent(completion_requested=True))]

    assert completions("/co") == ["/compact", "/cost"]
    assert completions("/ex") == ["/exit"]
    assert completions("/") == sorted(COMMANDS)
    assert completions("tell me /co") == [] and completions("/session f") == []
