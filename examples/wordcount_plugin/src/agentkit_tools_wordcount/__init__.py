"""An agentkit tool plugin that counts lines, words and characters of a file."""

from __future__ import annotations

import os
from collections.abc import Callable

from agentkit.plugin_api import Tool, ToolContext, ToolError, hookimpl
from agentkit.plugin_api.workspace import locate


def word_count(path: str, context: ToolContext) -> dict[str, int]:
    """Count the lines, words and characters of a UTF-8 text file in the workspace.

    :param path: the file, relative to the workspace root
    """
    # locate() opens the path beneath the root without ever following a link out of it,
    # even one swapped in while this runs; it raises ToolError("path_not_allowed") otherwise.
    with locate(context.root, path) as target:
        fd = target.open_file()
    with os.fdopen(fd, "rb") as handle:
        data = handle.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError("not_text", f"{path} is not UTF-8 text") from None
    return {"lines": len(text.splitlines()), "words": len(text.split()), "characters": len(text)}


@hookimpl
def agentkit_register_tools(register: Callable[[Tool], None]) -> None:
    register(Tool.from_function(word_count))
