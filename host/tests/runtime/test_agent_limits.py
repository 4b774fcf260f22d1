"""The runtime's deadline and size limits, set through AgentConfig and seen in a run's outcome."""

from __future__ import annotations

import pytest
from agentkit_provider_faux import Turn, text
from host_helpers import make_agent

from agentkit.host import Limits, Timeouts
from agentkit.host.runtime import ResponseLimits


@pytest.mark.timeout(30)
def test_request_timeout_ends_a_turn_whose_response_never_finishes() -> None:
    agent, _ = make_agent([Turn([text("thinking out loud")], hang=True)], timeouts=Timeouts(request=0.3))
    result = agent.run_sync("go")
    assert result.outcome == "error"
    assert "request_timeout" in result.error and "0.3 s" in result.error
    assert result.final_message is not None and result.final_message.text == "thinking out loud"


def test_response_limits_end_a_turn_whose_text_is_too_long() -> None:
    agent, _ = make_agent([Turn([text("x" * 500)])], limits=Limits(response=ResponseLimits(text_bytes=100)))
    result = agent.run_sync("go")
    assert result.outcome == "error"
    assert "100 bytes" in result.error and "response_limits.text_bytes" in result.error


def test_bad_timeouts_are_refused_when_the_agent_is_made() -> None:
    with pytest.raises(ValueError, match=r"Timeouts\.read"):
        make_agent([], timeouts=Timeouts(read=0))
    with pytest.raises(ValueError, match=r"Timeouts\.request"):
        make_agent([], timeouts=Timeouts(request=-1))
