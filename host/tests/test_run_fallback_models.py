"""``agentkit run --model A --model B``: a turn the first model cannot serve goes to the next.

The command runs in this process; its HTTP traffic is answered from a file (the
``AGENTKIT_REPLAY`` seam): the first model's wire answers with an error status,
the fallback's with a real recorded answer (pydantic-ai's cassette of the
Anthropic wire, ``testdata/pydantic-ai/``, see its ``PROVENANCE.md``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rpc_helpers import EVENTS
from test_run_command import PLANTED, anthropic_text, cassette, replay, sent

FIRST, FALLBACK = "openai/gpt-4o-mini", "anthropic/claude-sonnet-4-6"
KEYS = {"OPENAI_API_KEY": PLANTED, "ANTHROPIC_API_KEY": PLANTED}


def failing(status: int) -> dict[str, Any]:
    body = {"error": {"message": f"the vendor says {status}", "type": "server_error", "code": None}}
    return {"status": status, "headers": {"content-type": "application/json"}, "body": json.dumps(body)}


def recording(status: int) -> tuple[list[dict[str, Any]], str]:
    """The first model's failure, then the fallback's recorded answer; and that answer's text."""
    (interaction,) = cassette("test_anthropic/test_request_stream_fallback_for_high_max_tokens.yaml")["interactions"]
    return [failing(status), interaction["response"]], anthropic_text(interaction["response"]["body"]["string"])


@pytest.mark.parametrize("models", [("--model", FIRST, "--model", FALLBACK), ("--model", f"{FIRST},{FALLBACK}")])
def test_an_overloaded_first_model_hands_the_turn_to_the_fallback(agentkit, tmp_path: Path, models) -> None:
    responses, answer = recording(529)
    env, log = replay(tmp_path, responses)  # type: ignore[arg-type]
    result = agentkit.inline("run", "What is 1+1?", *models, "--root", str(tmp_path), env={**env, **KEYS})
    assert result.returncode == 0, result.stderr
    assert result.stdout == answer + "\n"
    assert f"note: {FIRST} could not serve turn 1 (HTTP 529" in result.stderr and f"asking {FALLBACK}" in result.stderr
    first, second = sent(log)
    assert first["url"].startswith("https://api.openai.com/") and second["url"] == "https://api.anthropic.com/v1/messages"
    [message] = second["body"]["messages"]  # the same turn, in the fallback's wire
    assert (message["role"], message["content"][0]["text"]) == ("user", "What is 1+1?")
    assert PLANTED not in result.stdout + result.stderr


def test_json_events_say_which_model_served(agentkit, tmp_path: Path) -> None:
    responses, _ = recording(503)
    env, _ = replay(tmp_path, responses)  # type: ignore[arg-type]
    result = agentkit.inline("run", "hi", "--model", FIRST, "--model", FALLBACK, "--json", "--root", str(tmp_path),
                             env={**env, **KEYS})
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    for event in events:  # the published event schema knows the new event
        EVENTS.validate(event)
    [fallback] = [event for event in events if event["type"] == "model_fallback"]
    assert (fallback["turn"], fallback["model"], fallback["fallback"]) == (1, FIRST, FALLBACK)
    assert "HTTP 503" in fallback["error"]
    [start] = [event for event in events if event["type"] == "message_start"]
    assert start["provider"] == "anthropic"
    [end] = [event for event in events if event["type"] == "message_end"]
    assert end["message"]["provider"] == "anthropic" and end["message"]["model"] == "claude-sonnet-4-6"


def test_a_refusal_that_is_the_callers_ends_the_run_without_the_fallback(agentkit, tmp_path: Path) -> None:
    responses, _ = recording(401)
    env, log = replay(tmp_path, responses)  # type: ignore[arg-type]
    result = agentkit.inline("run", "hi", "--model", FIRST, "--model", FALLBACK, "--root", str(tmp_path),
                             env={**env, **KEYS})
    assert result.returncode == 1
    assert "HTTP 401" in result.stderr and "could not serve" not in result.stderr
    assert len(sent(log)) == 1


def test_every_models_credential_is_checked_before_anything_is_sent(agentkit, tmp_path: Path) -> None:
    result = agentkit.inline("run", "hi", "--model", FIRST, "--model", FALLBACK, "--root", str(tmp_path),
                             env={"OPENAI_API_KEY": PLANTED})
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "ANTHROPIC_API_KEY" in result.stderr


@pytest.mark.parametrize("value, problem", [(f"{FIRST},", "no empty entry"), (f"{FIRST},{FIRST}", "twice")])
def test_a_bad_model_list_is_a_usage_error(agentkit, tmp_path: Path, value, problem) -> None:
    result = agentkit.inline("run", "hi", "--model", value, "--root", str(tmp_path), env=KEYS)
    assert result.returncode == 2 and problem in result.stderr


def test_a_durable_run_takes_one_model(agentkit, tmp_path: Path) -> None:
    result = agentkit.inline("run", "hi", "--durable", "--model", f"{FIRST},{FALLBACK}", "--root", str(tmp_path),
                             env=KEYS)
    assert result.returncode == 2 and "--durable runs take one --model" in result.stderr
