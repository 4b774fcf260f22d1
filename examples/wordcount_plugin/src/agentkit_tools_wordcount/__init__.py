"""An agentkit tool plugin that counts lines, words and characters of a file."""

from __future__ import annotations

from agentkit.plugin_api import Tool, ToolContext, ToolError, hookimpl


def word_count(path: str, context: ToolContext) -> dict[str, int]:
    """Count the lines, words and characters of a UTF-8 text file in the workspace.

    :param path: the file, relative to the workspace root
    """
    root = context.root.resolve()
    target = (root / path).resolve()
    if not target.is_relative_to(root):
        raise ToolError("path_not_allowed", f"{path} is outside the workspace")
    try:
        text = target.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ToolError("not_found", f"{path} does not exist") from None
    except UnicodeDecodeError:
        raise ToolError("not_text", f"{path} is not UTF-8 text") from None
    return {"lines": len(text.splitlines()), "words": len(text.split()), "characters": len(text)}


@hookimpl
def agentkit_register_tools(register):
    register(Tool.from_function(word_count))
