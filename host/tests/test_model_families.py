"""A model id the catalog does not list takes the row of its family, or is sent as asked.

Every installed provider's rows, resolved as an agent resolves ``--model``: a
dated id takes its undated row, an id of a known family that row, and an id in
no family is sent as the user wrote it, nothing refused locally, its cost
reported as unknown. Checked through ``agentkit run --dry-run``, an agent's run
and the requests pydantic-ai recorded against the real APIs (and which they
answered 200): ``testdata/pydantic-ai``, see its ``PROVENANCE.md``.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
import yaml

from agentkit.host import Agent, AgentConfig, Budget, Connection, ModelSettings, PluginHost
from agentkit.host.runtime import ProviderRuntime
from agentkit.plugin_api import ProviderRequest, Usage, UserMessage
from agentkit.plugin_api.errors import ProviderError

HOST = PluginHost.discover()
FAST_YAML = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_RECORDINGS = Path(__file__).resolve().parents[2] / "testdata" / "pydantic-ai"


def _prepared(spec: str, **fields):
    row = HOST.resolve_model(spec)
    request = ProviderRequest(model=row, messages=(UserMessage.text("hi"),), max_tokens=64, stream=False, **fields)
    return asyncio.run(ProviderRuntime(env={}).prepare(HOST.providers[row.api], request))


def _sent(spec: str, **fields) -> tuple[dict, dict[str, str]]:
    prepared = _prepared(spec, **fields)
    return json.loads(prepared.body_bytes), {name.lower(): value for name, value in prepared.headers_redacted.items()}


@pytest.mark.parametrize(("dated", "undated"), [
    ("anthropic/claude-haiku-4-5-20251001", "anthropic/claude-haiku-4-5"),
    ("anthropic/claude-sonnet-4-5-20250929", "anthropic/claude-sonnet-4-5"),
    ("anthropic/claude-haiku-4-5@20251001", "anthropic/claude-haiku-4-5"),
    ("openai/gpt-4o-2024-08-06", "openai/gpt-4o"),
    ("openai/gpt-4o-mini-2024-07-18", "openai/gpt-4o-mini"),
    ("openai-responses/gpt-4o-2024-08-06", "openai-responses/gpt-4o"),
    ("openai-responses/o3-2025-04-16", "openai-responses/o3"),
    ("google/gemini-2.5-flash-preview-05-20", "google/gemini-2.5-flash"),
    ("google/gemini-2.5-flash-preview-09-2025", "google/gemini-2.5-flash"),
    ("google/gemini-2.5-pro-001", "google/gemini-2.5-pro"),
])
def test_a_dated_id_takes_its_undated_row_and_is_sent_as_written(dated: str, undated: str) -> None:
    row, base = HOST.resolve_model(dated), HOST.models[undated]
    assert row.key == dated
    assert (row.input_price, row.output_price, row.refused_settings, row.options, row.headers, row.priced) == (
        base.input_price, base.output_price, base.refused_settings, base.options, base.headers, True)
    assert _sent(dated)[0].get("model", dated.split("/", 1)[1]) == dated.split("/", 1)[1]


def test_a_dated_claude_haiku_takes_temperature_on_the_api_version_that_has_it() -> None:
    body, headers = _sent("anthropic/claude-haiku-4-5-20251001", temperature=0.5, top_k=5)
    assert (body["model"], body["temperature"], body["top_k"]) == ("claude-haiku-4-5-20251001", 0.5, 5)
    assert headers["anthropic-version"] == "2023-06-01"


def test_a_claude_5_row_refuses_sampling_and_is_sent_on_the_newest_api_version() -> None:
    with pytest.raises(ProviderError, match="claude-opus-5-5 does not accept temperature"):
        _sent("anthropic/claude-opus-5-5", temperature=0.5)
    assert _sent("anthropic/claude-opus-5-5")[1]["anthropic-version"] == "2026-10-21"


@pytest.mark.parametrize(("spec", "family_row"), [
    ("anthropic/claude-sonnet-4-7", "anthropic/claude-sonnet-4-5"),
    ("anthropic/claude-haiku-4-7", "anthropic/claude-haiku-4-5"),
    ("anthropic/claude-opus-4-9", "anthropic/claude-opus-4-8"),
    ("anthropic/claude-sonnet-5-7", "anthropic/claude-sonnet-5-5"),
    ("ollama/qwen3:8b", "ollama/qwen3"),
    ("ollama/qwen3-coder:30b", "ollama/qwen3-coder"),
])
def test_an_unlisted_id_of_a_known_family_takes_that_familys_row(spec: str, family_row: str) -> None:
    row, family = HOST.resolve_model(spec), HOST.models[family_row]
    assert row.key == spec
    assert (row.input_price, row.refused_settings, row.options, row.headers, row.context_window) == (
        family.input_price, family.refused_settings, family.options, family.headers, family.context_window)


def test_an_unlisted_claude_4_takes_a_claude_4_row_not_the_claude_5_default() -> None:
    body, headers = _sent("anthropic/claude-sonnet-4-7", temperature=0.3, top_p=0.9, top_k=3)
    assert (body["temperature"], body["top_p"], body["top_k"]) == (0.3, 0.9, 3)
    assert headers["anthropic-version"] == "2023-06-01"
    body, _ = _sent("anthropic/claude-sonnet-4-7", reasoning="high")
    assert body["thinking"]["type"] == "enabled"  # budget thinking, which every Sonnet 4 takes


def test_openai_responses_gpt_4o_takes_temperature() -> None:
    body, _ = _sent("openai-responses/gpt-4o", temperature=0.7, top_p=0.5)
    assert (body["model"], body["temperature"], body["top_p"]) == ("gpt-4o", 0.7, 0.5)


def test_an_id_in_no_family_is_sent_as_asked_and_priced_as_unknown() -> None:
    row = HOST.resolve_model("anthropic/claude-nova-1")
    assert not row.priced and not row.refused_settings
    body, headers = _sent("anthropic/claude-nova-1", temperature=0.5, top_p=0.9, top_k=4)
    assert (body["model"], body["temperature"], body["top_p"], body["top_k"]) == ("claude-nova-1", 0.5, 0.9, 4)
    assert headers["anthropic-version"] == "2023-06-01"  # the version whose request has them
    body, headers = _sent("anthropic/claude-nova-1")
    assert "temperature" not in body and headers["anthropic-version"] == "2026-10-21"
    body, _ = _sent("openai-responses/gpt-7", temperature=0.5)
    assert body["temperature"] == 0.5


def test_a_local_servers_unlisted_model_is_free_not_unknown() -> None:
    row = HOST.resolve_model("ollama/some-model-of-mine")
    assert row.priced and (row.input_price, row.output_price) == (0.0, 0.0)


def _anthropic_answer(request: httpx.Request) -> httpx.Response:
    model = json.loads(request.content)["model"]
    return httpx.Response(200, json={
        "id": "msg_1", "type": "message", "role": "assistant", "model": model,
        "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 1000, "output_tokens": 50},
    })


def _run(model: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    events = []
    agent = Agent(AgentConfig(model=model, root=tmp_path, tools=[], settings=ModelSettings(temperature=0.5),
                              connection=Connection(transport=httpx.MockTransport(_anthropic_answer))),
                  host=HOST)
    agent.subscribe(events.append)
    return agent.run_sync("hi"), events


def test_the_cost_of_a_model_without_prices_is_unknown_in_the_result_and_the_events(monkeypatch, tmp_path) -> None:
    result, events = _run("anthropic/claude-nova-1", monkeypatch, tmp_path)
    assert result.outcome == "completed" and result.usage.output == 50
    assert result.usage.cost is None
    (message,) = [event.message for event in events if event.type == "message_end"]
    assert message.usage.cost is None and message.usage.to_dict()["cost"] is None
    priced, _ = _run("anthropic/claude-haiku-4-5-20251001", monkeypatch, tmp_path)
    assert priced.usage.cost == pytest.approx((1000 * 1.0 + 50 * 5.0) / 1_000_000)


def test_an_unknown_cost_is_never_summed_into_a_known_one() -> None:
    assert (Usage(cost=0.5) + Usage(cost=None)).cost is None
    assert (Usage(cost=0.5) + Usage(cost=0.25)).cost == 0.75


def test_a_cost_limit_is_reached_by_an_unknown_cost_never_passed_by() -> None:
    limit = Budget(cost=1.0)
    assert limit.exhausted_by(0, Usage(output=1, cost=None))
    assert not limit.exhausted_by(0, Usage(output=1, cost=0.5))
    assert not Budget(turns=3).exhausted_by(0, Usage(cost=None))  # no cost limit: nothing to check


def test_dry_run_of_an_id_in_no_family_sends_it_as_asked_with_one_note(agentkit, tmp_path: Path) -> None:
    result = agentkit.inline("run", "hi", "--model", "anthropic/claude-nova-1", "--dry-run", "--root", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["body"]["model"] == "claude-nova-1"
    notes = [line for line in result.stderr.splitlines() if "price unknown" in line]
    assert len(notes) == 1 and notes[0].startswith("note: anthropic/claude-nova-1 ")


def test_dry_run_of_a_dated_id_uses_its_rows_api_version_and_thinking(agentkit, tmp_path: Path) -> None:
    result = agentkit.inline("run", "hi", "--model", "anthropic/claude-haiku-4-5-20251001", "--dry-run",
                             "--root", str(tmp_path))
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)
    assert shown["body"]["model"] == "claude-haiku-4-5-20251001"
    assert shown["headers"]["anthropic-version"] == "2023-06-01"
    assert "price unknown" not in result.stderr


def _recorded(folder: str, path_end: str) -> list:
    params = []
    for path in sorted((_RECORDINGS / folder).glob("*.yaml")):
        for number, interaction in enumerate(yaml.load(path.read_bytes(), Loader=FAST_YAML)["interactions"]):
            request, status = interaction["request"], interaction["response"]["status"]["code"]
            body = request.get("parsed_body")
            if (status == 200 and isinstance(body, dict) and isinstance(body.get("model"), str)
                    and urlsplit(request["uri"]).path.endswith(path_end)):
                params.append(pytest.param(body, id=f"{path.stem}#{number}"))
    return params


_ANTHROPIC = _recorded("test_anthropic", "/v1/messages")
#: Models the migration guide documents as taking both thinking styles (budget deprecated, adaptive
#: recommended): a recording of either is one the API took, and we send adaptive.
_BOTH_STYLES = {"claude-sonnet-4-6", "claude-opus-4-6"}


def test_the_recordings_hold_dated_ids_sampling_and_thinking() -> None:
    bodies = [param.values[0] for param in _ANTHROPIC]
    assert any(body["model"].endswith("-20250929") and "thinking" in body for body in bodies)
    assert any("temperature" in body for body in bodies)


@pytest.mark.parametrize("recorded", _ANTHROPIC)
def test_a_recorded_anthropic_request_encodes_with_its_settings_and_thinking_style(recorded: dict) -> None:
    sampling = {name: recorded[name] for name in ("temperature", "top_p", "top_k") if name in recorded}
    thinking = recorded.get("thinking", {}).get("type")
    reasoning = "high" if thinking in ("enabled", "adaptive") else None
    body, headers = _sent(f"anthropic/{recorded['model']}", reasoning=reasoning, **sampling)
    assert body["model"] == recorded["model"]
    assert {name: body[name] for name in sampling} == sampling
    if sampling:
        assert headers["anthropic-version"] == "2023-06-01"
    if reasoning and recorded["model"] not in _BOTH_STYLES:
        assert body["thinking"]["type"] == thinking


_OPENAI = _recorded("test_openai", "/chat/completions") + _recorded("test_openai", "/responses")


@pytest.mark.parametrize("recorded", _OPENAI)
def test_a_recorded_openai_request_encodes_with_its_settings(recorded: dict) -> None:
    vendor = "openai-responses" if "input" in recorded else "openai"
    effort = recorded.get("reasoning_effort") or (recorded.get("reasoning") or {}).get("effort")
    sampling = {name: recorded[name] for name in ("temperature", "top_p", "seed") if name in recorded}
    body, _ = _sent(f"{vendor}/{recorded['model']}", reasoning=effort, **sampling)
    assert body["model"] == recorded["model"]
    assert {name: body[name] for name in sampling} == sampling
