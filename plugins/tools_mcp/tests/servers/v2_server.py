"""A test MCP server on the official SDK 2.x (``MCPServer``), dual-era: ``python v2_server.py [stdio|http]``.

Over HTTP it binds 127.0.0.1 on a port the system picks and prints ``PORT n`` first.
``AGENTKIT_TEST_TOOLS_TTL_MS`` sets the ``ttlMs`` of its tool lists (modern
era; the SDK's default is 0), and ``AGENTKIT_TEST_QUESTION`` the question
``confirm`` asks.
"""

from __future__ import annotations

import base64
import os
import socket
import sys
import time
from typing import Annotated

from mcp.server.caching import CacheHint
from mcp.server.mcpserver import Context, Elicit, Image, MCPServer, Resolve, Sample
from mcp.types import (
    AudioContent,
    BlobResourceContents,
    CreateMessageResult,
    EmbeddedResource,
    SamplingMessage,
    TextContent,
    TextResourceContents,
)
from pydantic import BaseModel

_TTL_MS = os.environ.get("AGENTKIT_TEST_TOOLS_TTL_MS")
server = MCPServer("agentkit-test-v2", instructions="A server for agentkit's client tests",
                  cache_hints=None if _TTL_MS is None else {"tools/list": CacheHint(ttl_ms=int(_TTL_MS))})


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def echo(text: str) -> str:
    """Say the text back."""
    return text


@server.tool()
def big(size: int) -> str:
    """A text of SIZE characters."""
    return "x" * size


@server.tool()
def picture() -> Image:
    """A one-pixel PNG."""
    return Image(data=bytes.fromhex("89504e470d0a1a0a"), format="png")


@server.tool(structured_output=False)
def media() -> list[AudioContent | EmbeddedResource]:
    """A sound, a text document, a picture and a PDF, as content blocks."""
    png = base64.b64encode(bytes.fromhex("89504e470d0a1a0a")).decode()
    return [
        AudioContent(type="audio", data=base64.b64encode(b"RIFF" + bytes(996)).decode(), mime_type="audio/wav"),
        EmbeddedResource(type="resource", resource=TextResourceContents(
            uri="memo://notes", mime_type="text/markdown", text="# Notes\nkept in the server")),
        EmbeddedResource(type="resource", resource=BlobResourceContents(uri="memo://dot.png", mime_type="image/png",
                                                                         blob=png)),
        EmbeddedResource(type="resource", resource=BlobResourceContents(
            uri="memo://report.pdf", mime_type="application/pdf", blob=base64.b64encode(b"%PDF" + bytes(2044)).decode())),
    ]


@server.tool()
def env(name: str) -> str:
    """The value of an environment variable, or <unset>."""
    return os.environ.get(name, "<unset>")


@server.tool()
def hang() -> str:
    """Never answers (until the client gives up)."""
    time.sleep(3600)
    return "late"


@server.tool()
def crash() -> str:
    """Ends the server process at once."""
    os._exit(3)


@server.tool()
def fail() -> str:
    """Always reports an error."""
    raise ValueError("this tool always fails")


class Confirmation(BaseModel):
    ok: bool


def ask_confirmation() -> Elicit[Confirmation]:
    return Elicit(os.environ.get("AGENTKIT_TEST_QUESTION", "Really do it?"), Confirmation)


@server.tool()
def confirm(answer: Annotated[Confirmation, Resolve(ask_confirmation)]) -> str:
    """Asks the user to confirm, then says what they answered."""
    return f"confirmed={answer.ok}"


def first(answer: Annotated[Confirmation, Resolve(ask_confirmation)]) -> Elicit[Confirmation]:
    return Elicit(f"second question (first was {answer.ok})?", Confirmation)


def second(answer: Annotated[Confirmation, Resolve(first)]) -> Elicit[Confirmation]:
    return Elicit(f"third question (second was {answer.ok})?", Confirmation)


def third(answer: Annotated[Confirmation, Resolve(second)]) -> Elicit[Confirmation]:
    return Elicit(f"fourth question (third was {answer.ok})?", Confirmation)


@server.tool()
def four_questions(answer: Annotated[Confirmation, Resolve(third)]) -> str:
    """Asks four questions, one after the other."""
    return f"answered={answer.ok}"


def ask_model() -> Sample:
    return Sample([SamplingMessage(role="user", content=TextContent(type="text", text="Say hi"))], max_tokens=10)


@server.tool()
def summarize(sampled: Annotated[CreateMessageResult, Resolve(ask_model)]) -> str:
    """Asks the client's model for a completion."""
    content = sampled.content
    return f"sampled: {getattr(content, 'text', content)}"


@server.tool()
async def grow(ctx: Context) -> str:
    """Adds a tool named 'late' and tells subscribers the list changed."""

    def late() -> str:
        """Added while running."""
        return "late tool"

    server.add_tool(late, name="late")
    await ctx.notify_tools_changed()
    return "grown"


@server.tool()
def doomed() -> str:
    """A tool 'swap' removes."""
    return "still here"


@server.tool()
def swap() -> str:
    """Adds a tool named 'quiet' and removes 'doomed', telling nobody (only a re-list sees it)."""

    def quiet() -> str:
        """Added without a notice."""
        return "quiet tool"

    server.add_tool(quiet, name="quiet")
    server.remove_tool("doomed")
    return "swapped"


_cancelled: list[str] = []


@server.tool()
async def wait() -> str:
    """Waits until the client cancels the call, and remembers that it did."""
    import anyio

    try:
        await anyio.sleep(3600)
    except anyio.get_cancelled_exc_class():
        _cancelled.append("wait")
        raise
    return "late"


@server.tool()
def cancelled() -> int:
    """How many calls of 'wait' the client cancelled (this process's)."""
    return len(_cancelled)


# A name agentkit cannot carry: the client must leave it out, not fail.
server.add_tool(echo, name="dotted.name", description="Say the text back, under a name with a dot.")


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if mode == "stdio":
        server.run()
        return
    import anyio
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    app = server.streamable_http_app(json_response=True)
    config = uvicorn.Config(app, log_level="warning")
    anyio.run(uvicorn.Server(config).serve, [sock])


if __name__ == "__main__":
    main()
