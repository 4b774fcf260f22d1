"""The chat driven as a person drives it: the real ``agentkit chat`` in a pseudo-terminal (pexpect)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

from agentkit.testing import write_script

#: Generous: the suite runs on a loaded 2-core machine; a match normally takes well under a second.
TIMEOUT = 60
#: Wide enough that no line of a test wraps (a wrapped line would split a pattern).
COLUMNS = 240
#: The end of a turn: the usage line the chat prints after every run.
TURN_END = re.compile(r"turn: [\d,]+ in")
#: What prompt_toolkit writes as it starts drawing a prompt (bracketed paste on), once per prompt.
PROMPT_READY = "\x1b[?2004h"


_SEQUENCE = re.compile(r"\x1b\[([0-9;?]*)([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[^\[\]()]")


def screen_lines(output: str, columns: int = COLUMNS) -> list[str]:
    """What ``output`` leaves on a terminal ``columns`` wide, line by line, without colours.

    A small model of a terminal, enough for what the chat writes during a turn:
    text (wrapped at ``columns``), carriage return, newline, cursor up and
    down, and erasing a line or the rest of the screen. Other sequences change
    nothing here. What was drawn and erased again (a status line, an answer
    shown as written until it is rendered) is not on the screen: the test sees
    what the person sees.
    """
    rows: list[list[str]] = [[]]
    row = column = 0
    position = 0
    for match in [*_SEQUENCE.finditer(output), None]:
        end = match.start() if match is not None else len(output)
        for char in output[position:end]:
            if char == "\r":
                column = 0
            elif char == "\n":
                row += 1
                column = 0
            elif char >= " ":
                if column >= columns:
                    row, column = row + 1, 0
                while len(rows) <= row:
                    rows.append([])
                line = rows[row]
                line.extend(" " * (column + 1 - len(line)))
                line[column] = char
                column += 1
        while len(rows) <= row:
            rows.append([])
        if match is None:
            break
        position = match.end()
        final, parameter = match.group(2), match.group(1) or ""
        count = int(parameter) if parameter.isdigit() else 1
        if final == "A":
            row = max(0, row - count)
        elif final == "B":
            row += count
        elif final == "J" and parameter in ("", "0"):
            del rows[row + 1:]
            rows[row][column:] = []
        elif final == "K" and parameter in ("", "0"):
            rows[row][column:] = []
        elif final == "K" and parameter == "2":
            rows[row] = []
    return ["".join(line).rstrip() for line in rows]


class ChatTerminal:
    """One ``agentkit chat`` process on a pseudo-terminal, and the id of the session it writes."""

    def __init__(self, process: pexpect.spawn) -> None:
        self.process = process
        self.session_id = ""

    def expect(self, pattern: str | re.Pattern[str]) -> str:
        """Wait for ``pattern`` (a literal string, or a compiled regex); the text before it."""
        if isinstance(pattern, str):
            self.process.expect_exact(pattern)
        else:
            self.process.expect(pattern)
        return str(self.process.before)

    def ready(self) -> None:
        """Wait until the line editor holds the terminal: it turns bracketed paste on as it draws a prompt.

        Keys typed before then would reach a terminal in cooked mode, where
        Ctrl-C is a signal rather than a key.
        """
        self.process.expect_exact(PROMPT_READY)

    def leave(self) -> int:
        """Ctrl-D at the next prompt; the exit code."""
        self.ready()
        self.process.send("\x04")
        return self.exit_status()

    def prompt(self, text: str) -> None:
        """Wait for the next prompt, type ``text`` and Enter."""
        self.ready()
        self.answer(text)

    def answer(self, text: str) -> None:
        """Type ``text`` and Enter at a prompt already seen (a question the chat asked)."""
        self.process.send(text + "\r")

    def turn(self, text: str) -> str:
        """Type a prompt and wait for its turn to end; what the turn showed."""
        self.prompt(text)
        return self.expect(TURN_END)

    @staticmethod
    def lines(output: str) -> list[str]:
        """What ``output`` (as :meth:`expect` returned it) left on the screen, line by line (:func:`screen_lines`)."""
        return screen_lines(output)

    def exit_status(self) -> int:
        """Wait for the process to end; its exit code."""
        self.process.expect(pexpect.EOF)
        self.process.close()
        assert self.process.exitstatus is not None, f"ended by signal {self.process.signalstatus}"
        return int(self.process.exitstatus)


class ChatLauncher:
    """Starts ``agentkit chat`` in a pseudo-terminal, with its data directory and home in a temporary folder."""

    def __init__(self, agentkit: Any, tmp_path: Path) -> None:
        self.agentkit = agentkit
        self.root = tmp_path / "workspace"
        self.root.mkdir()
        self.data = tmp_path / "data"
        self.home = tmp_path / "home"
        self.home.mkdir()
        self.started: list[pexpect.spawn] = []
        self._scripts = 0

    def script(self, turns: list[dict[str, Any]]) -> str:
        """A script file for ``--script`` (the scripted provider plays one turn per request)."""
        self._scripts += 1
        return str(write_script(self.root.parent / f"script{self._scripts}.json", turns))

    def environment(self, **extra: str) -> dict[str, str]:
        env = self.agentkit.environment({
            "AGENTKIT_DATA_DIR": str(self.data), "HOME": str(self.home), "TERM": "xterm-256color",
            # A real terminal answers prompt_toolkit's cursor-position request; pexpect's does not.
            "PROMPT_TOOLKIT_NO_CPR": "1",
        })
        env.pop("NO_COLOR", None)
        env.update(extra)
        return env

    def start(self, *args: str, env: dict[str, str] | None = None, site: Path | None = None) -> ChatTerminal:
        """``agentkit chat --root WORKSPACE ARGS`` on a new pseudo-terminal, once its banner is out.

        :param site: a folder of distributions (``site_dir``) installed for the command.
        """
        environment = self.environment(**(env or {}))
        if site is not None:
            environment["PYTHONPATH"] = str(site)
        process = pexpect.spawn(self.agentkit.path(), ["chat", "--root", str(self.root), *args],
                                env=environment, cwd=str(self.root), encoding="utf-8",
                                codec_errors="replace", timeout=TIMEOUT, dimensions=(50, COLUMNS))
        self.started.append(process)
        terminal = ChatTerminal(process)
        terminal.expect(re.compile(r"session ([0-9a-f]+) · /help for commands"))
        terminal.session_id = process.match.group(1)
        return terminal

    def session(self, session_id: str) -> Any:
        """The stored session, read back through the public API."""
        from agentkit.host.sessions import JsonlSessionStore, Session

        return Session.open(session_id, JsonlSessionStore(self.data / "sessions"))

    def close(self) -> None:
        for process in self.started:
            if process.isalive():
                process.terminate(force=True)


@pytest.fixture
def chat(agentkit: Any, tmp_path: Path) -> Iterator[ChatLauncher]:
    launcher = ChatLauncher(agentkit, tmp_path)
    try:
        yield launcher
    finally:
        launcher.close()

