"""Images at the history boundary: what enters the history is what the model's wire takes.

Every test drives an agent on the scripted wire and reads what the history holds
and what the request carried; the scripted rows get the image limits under test.
"""

from __future__ import annotations

import base64
import dataclasses
import io
import json
import random
import struct
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest
from agentkit_provider_faux import CATALOG, FauxProvider, Script, Turn, text, tool_call
from host_helpers import ToolsPlugin
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from agentkit.host import Agent, AgentConfig, Connection, ImageError, PluginHost, Trust, allow_all
from agentkit.plugin_api import (
    ImageBlock,
    TextBlock,
    Tool,
    ToolResult,
    ToolResultMessage,
    UserMessage,
    hookimpl,
)
from agentkit.plugin_api.codec import ImageLimits

SCRIPTED, BLIND = CATALOG  # the scripted row takes images; the structured one has no image_input
SMALL = ImageLimits(max_edge=64, max_bytes=4000)
BY_URL = ImageLimits(max_edge=64, max_bytes=4000, urls=True)
URL = "https://images.example/cat.png"


class LimitedFaux(FauxProvider):
    """The scripted wire with rows of the limits under test."""

    models = (
        dataclasses.replace(SCRIPTED, id="small", image_limits=SMALL, default=False),
        dataclasses.replace(SCRIPTED, id="urls", image_limits=BY_URL, default=False),
        SCRIPTED,
        BLIND,
    )


class _Provider:
    @hookimpl
    def agentkit_register_providers(self, register: Any) -> None:
        register(LimitedFaux())


def _agent(model: str, root: Path, *tools: Tool, turns: list[Turn] | None = None, **config: Any) -> tuple[Agent, Script]:
    host = PluginHost()
    host.register(_Provider(), name="faux")
    if tools:
        host.register(ToolsPlugin(*tools), name="tools")
    script = Script(turns or [Turn([text("seen")])], keep_requests=None)
    connection = dataclasses.replace(config.pop("connection", Connection()), transport=script)
    agent = Agent(AgentConfig(model=f"faux/{model}", root=root, trust=Trust(before_tool_call=allow_all),
                              connection=connection, **config), host=host)
    return agent, script


def _encoded(image: Image.Image, fmt: str, **options: Any) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


def _png(size: tuple[int, int] = (8, 8), color: Any = (200, 30, 30)) -> bytes:
    return _encoded(Image.new("RGB", size, color), "PNG")


def _sent_images(script: Script) -> list[ImageBlock]:
    """The images the first request carried, in order."""
    return [block for message in script.requests[0].messages for block in message.content
            if isinstance(block, ImageBlock)]


def _decoded(block: ImageBlock) -> Image.Image:
    image = Image.open(io.BytesIO(base64.b64decode(block.data)))
    image.load()
    return image


def _run(agent: Agent, *content: TextBlock | ImageBlock) -> None:
    result = agent.run_sync([TextBlock("what is this?"), *content])
    assert result.outcome.value == "completed", result.error


# -- what the history and the wire get -------------------------------------------------------


def test_a_fitting_png_enters_unchanged_byte_for_byte(tmp_path: Path) -> None:
    raw = _png()
    agent, script = _agent("small", tmp_path)
    _run(agent, ImageBlock.from_bytes(raw))
    (sent,) = _sent_images(script)
    assert (base64.b64decode(sent.data), sent.mime_type) == (raw, "image/png")
    assert agent.history[0].content[1] == sent


def test_the_exif_orientation_is_applied(tmp_path: Path) -> None:
    # A 40x20 picture whose EXIF says "rotate 90 degrees clockwise to show": shown 20x40.
    exif = Image.Exif()
    exif[0x0112] = 6
    raw = _encoded(Image.new("RGB", (40, 20), (0, 0, 255)), "JPEG", exif=exif)
    agent, script = _agent("small", tmp_path)
    _run(agent, ImageBlock.from_bytes(raw, "image/jpeg"))
    image = _decoded(_sent_images(script)[0])
    assert image.size == (20, 40)
    assert image.getexif().get(0x0112, 1) == 1


def test_an_image_is_scaled_to_the_wires_largest_edge_keeping_its_shape(tmp_path: Path) -> None:
    agent, script = _agent("small", tmp_path)
    _run(agent, ImageBlock.from_bytes(_png((640, 160))))
    assert _decoded(_sent_images(script)[0]).size == (64, 16)


def test_a_large_rotated_jpeg_is_scaled_and_turned_upright(tmp_path: Path) -> None:
    # Decoded at a reduced scale first (a JPEG's cheap path), then scaled, then turned.
    exif = Image.Exif()
    exif[0x0112] = 6
    raw = _encoded(Image.new("RGB", (400, 200), (0, 0, 255)), "JPEG", exif=exif)
    agent, script = _agent("small", tmp_path)
    _run(agent, ImageBlock.from_bytes(raw, "image/jpeg"))
    image = _decoded(_sent_images(script)[0])
    assert image.size == (32, 64) and image.format == "JPEG"


def test_webp_is_re_encoded_for_a_wire_without_it(tmp_path: Path) -> None:
    raw = _encoded(Image.new("RGB", (16, 16), (10, 200, 10)), "WEBP")
    agent, script = _agent("small", tmp_path)
    _run(agent, ImageBlock.from_bytes(raw, "image/webp"))
    (sent,) = _sent_images(script)
    assert sent.mime_type == "image/jpeg" and _decoded(sent).format == "JPEG"


def test_an_animated_gif_becomes_its_first_frame(tmp_path: Path) -> None:
    frames = [Image.new("RGB", (16, 16), color) for color in ((255, 0, 0), (0, 0, 255))]
    out = io.BytesIO()
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:], duration=100, loop=0)
    agent, script = _agent("small", tmp_path)
    _run(agent, ImageBlock.from_bytes(out.getvalue(), "image/gif"))
    (sent,) = _sent_images(script)
    image = _decoded(sent)
    assert sent.mime_type == "image/png" and getattr(image, "n_frames", 1) == 1
    red, _, blue = image.convert("RGB").getpixel((8, 8))
    assert red > 200 and blue < 50


def test_an_image_over_the_size_cap_is_made_smaller_with_a_note(tmp_path: Path) -> None:
    # Noise does not compress: a 64x64 PNG of it is about 12 kB, three times the 4000-byte cap.
    noise = Image.frombytes("RGB", (64, 64), random.Random(19).randbytes(64 * 64 * 3))
    agent, script = _agent("small", tmp_path)
    _run(agent, ImageBlock.from_bytes(_encoded(noise, "PNG")))
    content = agent.history[0].content
    image, note = content[1], content[2]
    assert isinstance(image, ImageBlock) and len(base64.b64decode(image.data)) <= 4000
    assert isinstance(note, TextBlock) and "4000-byte limit" in note.text
    assert script.requests[0].messages[0].content[2] == note


def test_a_data_url_with_a_lying_media_type_is_sent_as_what_it_is(tmp_path: Path) -> None:
    jpeg = _encoded(Image.new("RGB", (8, 8)), "JPEG")
    lying = "data:image/png;base64," + base64.b64encode(jpeg).decode()
    agent, script = _agent("small", tmp_path)
    _run(agent, ImageBlock.from_url(lying))
    (sent,) = _sent_images(script)
    assert sent.mime_type == "image/jpeg" and base64.b64decode(sent.data) == jpeg


def test_a_file_path_is_read_from_the_workspace(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(_png())
    agent, script = _agent("small", tmp_path)
    _run(agent, ImageBlock.from_path("shot.png"))
    (sent,) = _sent_images(script)
    assert base64.b64decode(sent.data) == _png() and sent.path is None


# -- URLs: passed to a wire that takes them, fetched only when allowed ---------------------------


def test_a_url_goes_as_it_is_to_a_wire_that_takes_urls_and_is_never_fetched(tmp_path: Path) -> None:
    fetched: list[str] = []
    agent, script = _agent("urls", tmp_path, connection=Connection(image_fetcher=lambda url: fetched.append(url) or b""))
    _run(agent, ImageBlock.from_url(URL))
    assert _sent_images(script) == [ImageBlock("", "", url=URL)] and fetched == []


def test_a_url_for_a_wire_without_urls_is_refused_unless_fetching_is_allowed(tmp_path: Path) -> None:
    agent, script = _agent("small", tmp_path)
    with pytest.raises(ImageError, match="image_fetcher") as raised:
        agent.run_sync([TextBlock("what is this?"), ImageBlock.from_url(URL)])
    assert URL in str(raised.value)
    assert script.requests == [] and agent.history == []


def test_an_allowed_fetch_sends_the_fetched_image_normalized(tmp_path: Path) -> None:
    fetched: list[str] = []

    def fetch(url: str) -> bytes:
        fetched.append(url)
        return _png((128, 128))

    agent, script = _agent("small", tmp_path, connection=Connection(image_fetcher=fetch))
    _run(agent, ImageBlock.from_url(URL))
    (sent,) = _sent_images(script)
    assert fetched == [URL] and sent.url is None and _decoded(sent).size == (64, 64)


def test_a_failing_fetch_is_an_error_naming_the_url(tmp_path: Path) -> None:
    def fetch(url: str) -> bytes:
        raise OSError("blocked: 10.0.0.1 is a private address")

    agent, _ = _agent("small", tmp_path, connection=Connection(image_fetcher=fetch))
    with pytest.raises(ImageError, match="private address") as raised:
        agent.run_sync([ImageBlock.from_url(URL)])
    assert URL in str(raised.value)


# -- refused, with an error that says why --------------------------------------------------------


def test_a_model_without_vision_refuses_an_image_before_any_request(tmp_path: Path) -> None:
    agent, script = _agent("structured", tmp_path)
    with pytest.raises(ImageError, match="faux/structured does not take images"):
        agent.run_sync([TextBlock("look"), ImageBlock.from_bytes(_png())])
    assert script.requests == []


def test_steering_with_an_image_is_checked_when_queued(tmp_path: Path) -> None:
    agent, _ = _agent("structured", tmp_path)
    with pytest.raises(ImageError):
        agent.steer([ImageBlock.from_bytes(_png())])
    assert not agent.has_queued_messages


def _bomb(side: int = 100_000) -> bytes:
    """A PNG whose header claims ``side`` x ``side`` pixels (ten billion by default): a few dozen bytes."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")


HOSTILE = {
    "decompression bomb": (_bomb, "too many pixels"),
    # 100 million pixels: over Pillow's limit, under twice it, where Pillow only warns.
    "bomb in pillow's warning zone": (lambda: _bomb(10_000), "too many pixels"),
    "truncated png": (lambda: _png((64, 64))[:-40], "truncated or damaged"),
    "text named .png": (lambda: b"#!/bin/sh\necho this is not a picture\n", "not an image"),
    "empty": (lambda: b"", "not an image"),
    # Pillow reads EPS by running Ghostscript on it: never asked to.
    "eps named .png": (lambda: b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\nshowpage\n", "not an image"),
}


@pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")  # Pillow's, for the warning zone
@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_file_is_refused_with_a_clear_error(tmp_path: Path, name: str) -> None:
    build, reason = HOSTILE[name]
    (tmp_path / "evil.png").write_bytes(build())
    agent, script = _agent("small", tmp_path)
    with pytest.raises(ImageError, match=reason) as raised:
        agent.run_sync([ImageBlock.from_path("evil.png")])
    assert "evil.png" in str(raised.value) and script.requests == []


def test_the_pixel_limit_holds_when_pillows_own_is_lifted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", None)
    agent, _ = _agent("small", tmp_path)
    with pytest.raises(ImageError, match="too many pixels"):
        agent.run_sync([ImageBlock.from_bytes(_bomb())])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(junk=st.binary(max_size=256), keep=st.integers(min_value=0, max_value=200))
def test_any_bytes_are_admitted_as_an_image_or_refused_as_image_error(tmp_path: Path, junk: bytes, keep: int) -> None:
    # Random bytes, and a real PNG cut anywhere then followed by them.
    for raw in (junk, _png((16, 16))[:keep] + junk):
        agent, _ = _agent("small", tmp_path)
        try:
            agent.run_sync([ImageBlock.from_bytes(raw)])
        except ImageError:
            continue
        (image,) = [block for block in agent.history[0].content if isinstance(block, ImageBlock)]
        assert image.mime_type in SMALL.formats and len(base64.b64decode(image.data)) <= SMALL.max_bytes


# -- tool results ------------------------------------------------------------------------------------


def _picture_tool(path: str) -> Tool:
    return Tool("picture", "Show a picture.", {"type": "object", "properties": {}},
                lambda arguments, context: ToolResult(True, data="here", images=[ImageBlock.from_path(path)]))


def _tool_run(tmp_path: Path, path: str) -> ToolResultMessage:
    turns = [Turn([tool_call("picture", {})]), Turn([text("done")])]
    agent, _ = _agent("small", tmp_path / "work", _picture_tool(path), turns=turns)
    result = agent.run_sync("show me")
    assert result.outcome.value == "completed", result.error
    (message,) = [m for m in agent.history if isinstance(m, ToolResultMessage)]
    return message


def test_a_tool_result_image_file_inside_the_workspace_is_attached_normalized(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "chart.png").write_bytes(_png((256, 128)))
    message = _tool_run(tmp_path, "chart.png")
    assert not message.is_error
    (image,) = [block for block in message.content if isinstance(block, ImageBlock)]
    assert _decoded(image).size == (64, 32)


@pytest.mark.parametrize("path", ["../secret.png", "ABSOLUTE"])
def test_a_tool_result_naming_a_file_outside_the_workspace_is_an_error_result(tmp_path: Path, path: str) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "secret.png").write_bytes(_png())
    message = _tool_run(tmp_path, str(tmp_path / "secret.png") if path == "ABSOLUTE" else path)
    envelope = json.loads(message.text)
    assert message.is_error and (envelope["ok"], envelope["error"]) == (False, "invalid_image")
    assert "outside the workspace" in envelope["detail"]
    assert not any(isinstance(block, ImageBlock) for block in message.content)


def test_a_tool_result_symlink_leading_out_of_the_workspace_is_an_error_result(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "secret.png").write_bytes(_png())
    (tmp_path / "work" / "innocent.png").symlink_to(tmp_path / "secret.png")
    message = _tool_run(tmp_path, "innocent.png")
    assert message.is_error and "outside the workspace" in message.text


def test_a_tool_result_naming_a_directory_is_an_error_result(tmp_path: Path) -> None:
    (tmp_path / "work" / "pictures.png").mkdir(parents=True)
    message = _tool_run(tmp_path, "pictures.png")
    assert message.is_error and "not a regular file" in message.text


def test_a_tool_result_image_for_a_model_without_vision_is_an_error_result(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "chart.png").write_bytes(_png())
    turns = [Turn([tool_call("picture", {})]), Turn([text("done")])]
    agent, _ = _agent("structured", tmp_path / "work", _picture_tool("chart.png"), turns=turns)
    agent.run_sync("show me")
    (message,) = [m for m in agent.history if isinstance(m, ToolResultMessage)]
    assert message.is_error and "does not take images" in message.text


def _with_bad_ancillary_checksum(png: bytes) -> bytes:
    """``png`` with a ``tEXt`` chunk whose CRC is wrong (as the MCP reference server's logo has in ``iTXt``)."""
    body = b"tEXt" + b"Comment\x00made by hand"
    chunk = struct.pack(">I", len(body) - 4) + body + struct.pack(">I", (zlib.crc32(body) + 1) & 0xFFFFFFFF)
    return png[:33] + chunk + png[33:]  # after the signature (8) and IHDR (25)


def test_a_tool_result_image_the_host_cannot_decode_is_a_note_and_the_rest_arrives(tmp_path: Path) -> None:
    damaged = _with_bad_ancillary_checksum(_png())
    with pytest.raises(OSError):  # Pillow itself refuses it (UnidentifiedImageError)
        Image.open(io.BytesIO(damaged)).load()
    tool = Tool("picture", "Show pictures.", {"type": "object", "properties": {}},
                lambda arguments, context: ToolResult(True, data="two pictures", images=[
                    ImageBlock.from_bytes(damaged), ImageBlock.from_bytes(_png((4, 4)))]))
    turns = [Turn([tool_call("picture", {})]), Turn([text("done")])]
    agent, _ = _agent("small", tmp_path, tool, turns=turns)
    assert agent.run_sync("show me").outcome.value == "completed"
    (message,) = [m for m in agent.history if isinstance(m, ToolResultMessage)]

    envelope, note, image = message.content
    assert not message.is_error and json.loads(envelope.text) == {"ok": True, "data": "two pictures"}
    assert isinstance(note, TextBlock) and note.text.startswith("[image 1 not shown: ") and "\n" not in note.text
    assert isinstance(image, ImageBlock) and _decoded(image).size == (4, 4)


# -- the block and the import --------------------------------------------------------------------------


def test_an_image_block_keeps_its_url_and_path_through_json() -> None:
    from agentkit.plugin_api import block_from_dict

    for block in (ImageBlock.from_url(URL), ImageBlock.from_path("a/b.png"), ImageBlock("aGk=", "image/png")):
        assert block_from_dict(block.to_dict()) == block
    assert ImageBlock("aGk=", "image/png").to_dict() == {"type": "image", "data": "aGk=", "mime_type": "image/png"}


@pytest.mark.parametrize("url", ["ftp://x/y.png", "file:///etc/passwd", "data:image/png,notbase64", "data:image/png;base64,@@"])
def test_an_image_url_of_another_kind_is_refused_when_built(url: str) -> None:
    with pytest.raises(ValueError):
        ImageBlock.from_url(url)


@pytest.mark.parametrize(("url", "reason"), [("ftp://images.example/cat.png", "http"),
                                           ("data:image/png;base64,%%%", "data: URL is invalid")])
def test_a_hand_built_block_with_a_bad_url_is_refused(tmp_path: Path, url: str, reason: str) -> None:
    agent, script = _agent("urls", tmp_path)
    with pytest.raises(ImageError, match=reason):
        agent.run_sync([ImageBlock("", "", url=url)])
    assert script.requests == []


def test_a_hand_built_data_url_block_is_sent_as_its_bytes(tmp_path: Path) -> None:
    agent, script = _agent("urls", tmp_path)
    _run(agent, ImageBlock("", "", url="data:image/png;base64," + base64.b64encode(_png()).decode()))
    (sent,) = _sent_images(script)
    assert sent.url is None and base64.b64decode(sent.data) == _png()


def test_importing_the_host_does_not_import_pillow() -> None:
    code = "import sys, agentkit.host; print('PIL' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_a_user_message_object_is_admitted_too(tmp_path: Path) -> None:
    agent, script = _agent("small", tmp_path)
    result = agent.run_sync(UserMessage([ImageBlock.from_bytes(_png((128, 64)))]))
    assert result.outcome.value == "completed"
    assert _decoded(_sent_images(script)[0]).size == (64, 32)


def test_parallel_tool_results_each_get_their_own_image_normalized(tmp_path: Path) -> None:
    # Eight calls in one batch, each rendered in its handler's thread at once; a colour per call.
    colours = [(32 * index, 255 - 32 * index, 7 * index) for index in range(8)]
    for index, colour in enumerate(colours):
        (tmp_path / f"{index}.png").write_bytes(_png((256, 128), colour))
    tool = Tool("picture", "Show picture n.", {"type": "object", "properties": {"n": {"type": "integer"}}},
                lambda arguments, context: ToolResult(True, data="here",
                                                      images=[ImageBlock.from_path(f"{arguments['n']}.png")]))
    turns = [Turn([tool_call("picture", {"n": index}) for index in range(8)]), Turn([text("done")])]
    agent, _ = _agent("small", tmp_path, tool, turns=turns)
    assert agent.run_sync("show all").outcome.value == "completed"
    results = [m for m in agent.history if isinstance(m, ToolResultMessage)]
    assert len(results) == 8
    for colour, message in zip(colours, results, strict=True):
        (image,) = [block for block in message.content if isinstance(block, ImageBlock)]
        decoded = _decoded(image).convert("RGB")
        assert decoded.size == (64, 32)
        assert all(abs(a - b) <= 2 for a, b in zip(decoded.getpixel((10, 10)), colour, strict=True))
