"""Documents and recordings as input: ``agentkit run --attach`` against recorded real exchanges, and the
refusals of the history boundary (a model without the capability, lying types, bombs, URLs).

Recordings: pydantic-ai's VCR cassettes (pydantic/pydantic-ai, MIT), kept in ``testdata/pydantic-ai/``
(see its ``PROVENANCE.md``): requests with PDF, plain-text and audio parts that the real APIs answered
200. The file a recording sent is written to disk from the recording, attached with ``--attach``, and
the request the command sends (through the ``AGENTKIT_REPLAY`` seam) must hold the recorded part.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from agentkit.host import Agent, AgentConfig, Connection
from agentkit.host.errors import FileInputError
from agentkit.plugin_api import AudioBlock, DocumentBlock, TextBlock, UserMessage, message_from_dict

FAST_YAML = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
CASSETTES = Path(__file__).resolve().parents[2] / "testdata" / "pydantic-ai"


def _recorded(path: str, index: int) -> dict[str, Any]:
    return yaml.load((CASSETTES / path).read_bytes(), Loader=FAST_YAML)["interactions"][index]


def _replaying(tmp_path: Path, interaction: dict[str, Any]) -> tuple[dict[str, str], Path]:
    response = interaction["response"]
    if "parsed_body" in response:  # the replay seam takes the body as text
        response = {**response, "body": {"string": json.dumps(response["parsed_body"])}}
    file = tmp_path / "recording.json"
    file.write_text(json.dumps({"interactions": [{**interaction, "response": response}]}), encoding="utf-8")
    log = tmp_path / "sent.jsonl"
    return {"AGENTKIT_REPLAY": str(file), "AGENTKIT_REPLAY_LOG": str(log), "OPENAI_API_KEY": "sk-test",
            "ANTHROPIC_API_KEY": "sk-test", "GEMINI_API_KEY": "test"}, log


def _sent_user_content(log: Path) -> list[dict[str, Any]]:
    (request,) = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    body = request["body"]
    messages = body.get("messages") or body.get("input") or body.get("contents")
    user = next(m for m in messages if m.get("role") == "user")
    return user["content"]


def _without_cache_control(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{key: value for key, value in part.items() if key != "cache_control"} for part in parts]


def _agent(model: str, root: Path, transport: httpx.MockTransport | None = None) -> Agent:
    transport = transport or httpx.MockTransport(lambda request: httpx.Response(500))
    return Agent(AgentConfig(model=model, root=root, tools=[], connection=Connection(transport=transport)))


def _dry_run(agentkit, tmp_path: Path, *args: str) -> Any:
    return agentkit.inline("run", "Describe it.", "--dry-run", "--root", str(tmp_path), *args)


# -- recorded exchanges, through the command ------------------------------------------------


@pytest.mark.parametrize(("cassette", "index", "model", "file"), [
    ("test_openai/test_document_as_binary_content_input.yaml", 0, "openai/gpt-4o", "filename.pdf"),
    ("test_openai/test_audio_as_binary_content_input.yaml", 0, "openai/gpt-4o-audio-preview", "voice.mp3"),
    ("test_openai/test_openai_audio_url_input.yaml", 1, "openai/gpt-4o-audio-preview", "alloy.wav"),
])
def test_an_attached_file_is_sent_as_the_recorded_chat_part(agentkit, tmp_path: Path, cassette: str, index: int,
                                                            model: str, file: str) -> None:
    """The PDF or recording a Chat Completions request carried, attached from disk, is sent as the
    recorded ``file`` / ``input_audio`` part, and the recorded answer is printed."""
    interaction = _recorded(cassette, index)
    text, part = interaction["request"]["parsed_body"]["messages"][0]["content"]
    data = part["file"]["file_data"].split(",", 1)[1] if part["type"] == "file" else part["input_audio"]["data"]
    (tmp_path / file).write_bytes(base64.b64decode(data))
    env, log = _replaying(tmp_path, interaction)
    result = agentkit.inline("run", text["text"], "--model", model, "--attach", file, "--root", str(tmp_path),
                             env=env)
    assert result.returncode == 0, result.stderr
    assert _sent_user_content(log) == [text, part]
    answer = interaction["response"]["parsed_body"]["choices"][0]["message"]["content"]
    assert answer.strip() in result.stdout


@pytest.mark.parametrize(("cassette", "index", "model", "attach"), [
    ("test_anthropic/test_document_binary_content_input.yaml", 0, "anthropic/claude-sonnet-4-6", "document.pdf"),
    ("test_anthropic/test_document_url_input.yaml", 0, "anthropic/claude-sonnet-4-6", None),
    ("test_openai/test_document_url_input_response_api.yaml", 0, "openai-responses/gpt-4.1-mini", None),
    ("test_openai/test_document_url_input_force_download_response_api.yaml", 1, "openai-responses/gpt-4.1-mini",
     "filename.pdf"),
])
def test_an_attached_document_is_the_recorded_part_of_its_wire(agentkit, tmp_path: Path, cassette: str, index: int,
                                                               model: str, attach: str | None) -> None:
    """Anthropic ``document`` blocks (base64 and URL sources) and Responses ``input_file`` items
    (``file_data`` and ``file_url``), from a file or a URL on the command line."""
    body = _recorded(cassette, index)["request"]["parsed_body"]
    (message,) = body.get("messages") or body["input"]
    text, part = message["content"]
    if attach is None:  # by URL: the wire downloads it
        attach = part.get("file_url") or part["source"]["url"]
    else:
        data = part["source"]["data"] if "source" in part else part["file_data"].split(",", 1)[1]
        (tmp_path / attach).write_bytes(base64.b64decode(data))
    result = agentkit.inline("run", text["text"], "--model", model, "--attach", attach, "--dry-run",
                             "--root", str(tmp_path))
    assert result.returncode == 0, result.stderr
    sent = json.loads(result.stdout)["body"]
    ours = [m for m in sent.get("messages") or sent["input"] if m.get("role") == "user"][-1]["content"]
    assert _without_cache_control(ours) == [text, part]


def test_a_text_document_goes_to_each_wire_in_the_shape_it_takes(agentkit, tmp_path: Path) -> None:
    """Plain text: Anthropic's text source, Responses' input_file, Gemini's inlineData, and on Chat
    Completions (whose file part takes PDFs only) a text part holding the document."""
    (tmp_path / "notes.txt").write_text("site_name: Pydantic AI\n", encoding="utf-8")
    shown = {}
    for model in ("anthropic/claude-sonnet-4-6", "openai-responses/gpt-4.1", "google/gemini-2.5-flash",
                  "openai/gpt-4.1"):
        result = _dry_run(agentkit, tmp_path, "--model", model, "--attach", "notes.txt")
        assert result.returncode == 0, result.stderr
        body = json.loads(result.stdout)["body"]
        messages = body.get("messages") or body.get("input") or body["contents"]
        user = [m for m in messages if m.get("role") == "user"][-1]
        shown[model] = user.get("content") or user["parts"]
    encoded = base64.b64encode(b"site_name: Pydantic AI\n").decode()
    assert shown["anthropic/claude-sonnet-4-6"][1]["source"] == {
        "type": "text", "media_type": "text/plain", "data": "site_name: Pydantic AI\n"}
    assert shown["openai-responses/gpt-4.1"][1] == {
        "type": "input_file", "file_data": f"data:text/plain;base64,{encoded}", "filename": "notes.txt"}
    assert {"inlineData": {"mimeType": "text/plain", "data": encoded}} in shown["google/gemini-2.5-flash"]
    chat = shown["openai/gpt-4.1"][1]
    assert chat["type"] == "text" and "site_name: Pydantic AI" in chat["text"] and "notes.txt" in chat["text"]


def test_gemini_takes_documents_and_audio_inline_and_by_url(agentkit, tmp_path: Path) -> None:
    pdf = base64.b64decode(_recorded("test_openai/test_document_as_binary_content_input.yaml", 0)["request"]
                           ["parsed_body"]["messages"][0]["content"][1]["file"]["file_data"].split(",", 1)[1])
    (tmp_path / "a.pdf").write_bytes(pdf)
    (tmp_path / "a.wav").write_bytes(b"RIFF\x24\x00\x00\x00WAVEfmt " + bytes(24))
    result = _dry_run(agentkit, tmp_path, "--model", "google/gemini-2.5-flash", "--attach", "a.pdf",
                      "--attach", "a.wav", "--attach", "https://example.com/report.pdf")
    assert result.returncode == 0, result.stderr
    parts = json.loads(result.stdout)["body"]["contents"][-1]["parts"]
    assert parts[1:] == [
        {"inlineData": {"mimeType": "application/pdf", "data": base64.b64encode(pdf).decode()}},
        {"inlineData": {"mimeType": "audio/wav", "data": base64.b64encode((tmp_path / "a.wav").read_bytes()).decode()}},
        {"fileData": {"mimeType": "application/pdf", "fileUri": "https://example.com/report.pdf"}},
    ]


# -- refusals, before anything is sent -------------------------------------------------------


@pytest.mark.parametrize(("model", "kind"), [
    ("anthropic/claude-sonnet-4-6", "audio"), ("openai-responses/gpt-4.1", "audio"), ("openai/gpt-4.1", "audio"),
    ("ollama/llama3.2", "document"), ("ollama/llama3.2", "audio"), ("openai/deepseek-chat", "document"),
])
def test_a_model_without_the_capability_refuses_before_any_request(tmp_path: Path, model: str, kind: str) -> None:
    requests: list[httpx.Request] = []
    transport = httpx.MockTransport(lambda request: requests.append(request) or httpx.Response(500))
    model = model.replace("openai/deepseek-chat", "deepseek/deepseek-chat")
    agent = _agent(model, tmp_path, transport)
    block = (DocumentBlock.from_bytes(b"%PDF-1.4\n") if kind == "document"
             else AudioBlock.from_bytes(b"RIFF\0\0\0\0WAVEfmt "))
    with pytest.raises(FileInputError) as refused:
        asyncio.run(agent.run([TextBlock("what is this?"), block]))
    assert model in str(refused.value) and f"{kind} input" in str(refused.value)
    assert "\n" not in str(refused.value)
    assert requests == []


def test_a_url_on_a_wire_that_downloads_none_is_refused_naming_the_wires_that_do(agentkit, tmp_path: Path) -> None:
    result = _dry_run(agentkit, tmp_path, "--model", "openai/gpt-4.1", "--attach", "https://example.com/a.pdf")
    assert result.returncode == 2
    assert "openai-completions takes no document URLs" in result.stderr
    assert "anthropic-messages" in result.stderr and "google-generative-ai" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_text_url_is_refused_by_anthropic_which_downloads_only_pdfs(agentkit, tmp_path: Path) -> None:
    result = _dry_run(agentkit, tmp_path, "--model", "anthropic/claude-sonnet-4-6", "--attach",
                      "https://example.com/notes.txt")
    assert result.returncode != 0
    assert "downloads only PDFs by URL" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(("name", "content", "said"), [
    ("report.pdf", b"just some text\n", "named application/pdf, but its bytes are text/plain"),
    ("song.mp3", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "is application/pdf, which is not audio"),
    ("blob.pdf", b"\x00\x01\x02\x03binary", "of no type agentkit recognizes"),
])
def test_a_file_whose_name_lies_about_its_bytes_is_refused(agentkit, tmp_path: Path, name: str, content: bytes,
                                                          said: str) -> None:
    (tmp_path / name).write_bytes(content)
    result = _dry_run(agentkit, tmp_path, "--model", "google/gemini-2.5-flash", "--attach", name)
    assert result.returncode == 2, result.stdout
    (error,) = [line for line in result.stderr.splitlines() if line.startswith("agentkit:")]
    assert said in error and "Traceback" not in result.stderr


def test_a_declared_type_that_contradicts_the_bytes_is_refused(tmp_path: Path) -> None:
    agent = _agent("google/gemini-2.5-flash", tmp_path)
    wav = b"RIFF\x24\x00\x00\x00WAVEfmt " + bytes(24)
    with pytest.raises(FileInputError, match="declared as audio/mpeg, but its bytes are audio/wav"):
        asyncio.run(agent.run([TextBlock("hi"), AudioBlock.from_bytes(wav, "audio/mpeg")]))
    with pytest.raises(FileInputError, match="audio/wav, which is not a document"):
        asyncio.run(agent.run([TextBlock("hi"), DocumentBlock.from_bytes(wav)]))


def test_a_huge_file_is_refused_after_reading_no_more_than_the_cap(agentkit, tmp_path: Path) -> None:
    """A sparse 64 GiB file: read whole it would exhaust memory; the bounded read stops one byte past the cap."""
    with open(tmp_path / "huge.pdf", "wb") as file:
        file.write(b"%PDF-1.7\n")
        file.truncate(64 * 1024**3)
    result = _dry_run(agentkit, tmp_path, "--model", "anthropic/claude-sonnet-4-6", "--attach", "huge.pdf")
    assert result.returncode == 2
    assert "larger than anthropic/claude-sonnet-4-6's 25165824-byte document limit" in result.stderr


def test_base64_data_above_the_cap_is_refused_before_it_is_decoded(tmp_path: Path) -> None:
    agent = _agent("anthropic/claude-sonnet-4-6", tmp_path)
    # Not even base64: decoding it would fail, so the refusal can only be the size check's.
    block = DocumentBlock("!" * (40 * 1024 * 1024), "application/pdf")
    with pytest.raises(FileInputError, match="above the 25165824-byte document limit"):
        asyncio.run(agent.run([TextBlock("hi"), block]))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_path_that_is_no_regular_file_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.pdf")
    agent = _agent("anthropic/claude-sonnet-4-6", tmp_path)
    with pytest.raises(FileInputError, match="not a regular file"):
        asyncio.run(agent.run([TextBlock("hi"), DocumentBlock.from_path("pipe.pdf")]))


# -- the transcript --------------------------------------------------------------------------


def test_documents_and_audio_survive_the_json_round_trip() -> None:
    message = UserMessage([TextBlock("hi"), DocumentBlock.from_bytes(b"%PDF-1.4", "application/pdf", name="a.pdf"),
                           DocumentBlock.from_url("https://example.com/a.pdf"), AudioBlock.from_bytes(b"ID3", "audio/mpeg")])
    assert message_from_dict(json.loads(json.dumps(message.to_dict()))).content == message.content


def test_a_model_switch_turns_a_file_the_new_model_cannot_take_into_a_note(tmp_path: Path, monkeypatch) -> None:
    """A history with a recording, continued on a model without audio input: the recording becomes a note."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    sent: list[dict[str, Any]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        return httpx.Response(200, json={"model": "claude-sonnet-4-6", "id": "m", "type": "message", "role": "assistant",
                                         "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
                                         "usage": {"input_tokens": 1, "output_tokens": 1}})

    history = [UserMessage([TextBlock("listen"), AudioBlock.from_bytes(b"ID3\x03\x00", "audio/mpeg")])]
    agent = _agent("anthropic/claude-sonnet-4-6", tmp_path, httpx.MockTransport(answer))
    agent.history.extend(history)  # a transcript written with a model that takes audio
    asyncio.run(agent.run("and now?"))
    first = sent[0]["messages"][0]["content"]
    assert [part.get("text") for part in first][:2] == ["listen", "(audio omitted: model does not support audio input)"]
