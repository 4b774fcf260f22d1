"""Reading what the person types: a line editor on a terminal, plain lines otherwise.

On a terminal, prompt_toolkit edits the line: history across sessions (a file
in the data directory, the user's alone), Alt-Enter (or Esc then Enter) for a
new line, Tab to complete a slash command. Ctrl-C clears a line that holds
text and, on an empty one, ends the chat, as Ctrl-D does. Without a terminal
(a pipe, a file), each line read is one prompt.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

HISTORY_FILE = "chat_history"


class Reader(Protocol):
    """Where the chat's prompts come from."""

    def read(self, prompt: str) -> str:
        """The next prompt; ``EOFError`` when the person is done (Ctrl-D, Ctrl-C on an empty line, end of input)."""

    async def ask(self, question: str) -> str:
        """One answer to ``question``, asked while a run goes on; ``""`` when none comes.

        :raises KeyboardInterrupt: the person pressed Ctrl-C instead of answering.
        """


class LineReader:
    """Lines from a stream that is not a terminal: one prompt per line, no editing."""

    def __init__(self, stream: Any = None, out: Any = None) -> None:
        self.stream = stream if stream is not None else sys.stdin
        self.out = out if out is not None else sys.stdout

    def read(self, prompt: str) -> str:
        line = self.stream.readline()
        if not line:
            raise EOFError
        text = line.rstrip("\n")
        self.out.write(f"{prompt}{text}\n")  # echoed, so that the transcript reads as the conversation went
        self.out.flush()
        return text

    async def ask(self, question: str) -> str:
        line = await asyncio.get_running_loop().run_in_executor(None, self.stream.readline)
        self.out.write(f"{question}{line.strip()}\n")
        self.out.flush()
        return line.strip()


class TerminalReader:
    """A line editor over the terminal (prompt_toolkit), with history, multi-line input and completion."""

    def __init__(self, commands: Sequence[str], history_path: Path | None, styled: bool) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory, InMemoryHistory

        history = FileHistory(str(history_path)) if history_path is not None else InMemoryHistory()
        self._styled = styled
        self._color_depth = None if styled else _monochrome()
        self._session: Any = PromptSession(
            history=history, completer=_slash_completer(commands), complete_while_typing=False,
            key_bindings=_bindings(), multiline=False, color_depth=self._color_depth,
        )

    def read(self, prompt: str) -> str:
        try:
            return str(self._session.prompt(self._prompt(prompt)))
        except KeyboardInterrupt:  # Ctrl-C on an empty line (a line with text is cleared instead)
            raise EOFError from None

    async def ask(self, question: str) -> str:
        from prompt_toolkit import PromptSession

        try:
            answer: str = await PromptSession(color_depth=self._color_depth).prompt_async(self._prompt(question))
            return str(answer).strip()
        except EOFError:
            return ""

    def _prompt(self, text: str) -> Any:
        from prompt_toolkit.formatted_text import ANSI

        return ANSI(text) if self._styled else text


def history_file(data_dir: Path) -> Path | None:
    """The history file in ``data_dir``, created the user's alone; ``None`` when it cannot be."""
    try:
        data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        path = data_dir / HISTORY_FILE
        os.close(os.open(path, os.O_CREAT | os.O_APPEND | os.O_WRONLY, 0o600))
        return path
    except OSError:  # a read-only home: the chat works, without history across sessions
        return None


def _monochrome() -> Any:
    from prompt_toolkit.output import ColorDepth

    return ColorDepth.DEPTH_1_BIT


def _bindings() -> Any:
    from prompt_toolkit.key_binding import KeyBindings

    bindings = KeyBindings()

    @bindings.add("c-c")
    def _(event: Any) -> None:
        buffer = event.app.current_buffer
        if buffer.text:
            buffer.reset()
        else:
            event.app.exit(exception=KeyboardInterrupt)

    @bindings.add("escape", "enter")
    def _(event: Any) -> None:
        event.app.current_buffer.insert_text("\n")

    return bindings


def _slash_completer(commands: Iterable[str]) -> Any:
    """Completes a slash command at the start of the input."""
    from prompt_toolkit.completion import Completer, Completion

    names = sorted(commands)

    class SlashCompleter(Completer):
        def get_completions(self, document: Any, complete_event: Any) -> Any:
            text = document.text_before_cursor
            if not text.startswith("/") or " " in text:
                return
            for name in names:
                if name.startswith(text):
                    yield Completion(name, start_position=-len(text))

    return SlashCompleter()
