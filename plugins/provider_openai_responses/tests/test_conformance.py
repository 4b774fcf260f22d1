"""The shared conformance fixtures (``agentkit.conformance``) on this wire.

The suite decodes a wire only through a responder that renders canonical
responses as that wire's events; this wire's ships with the provider
(``OpenAIResponses.conformance_responder``, written from OpenAI's Responses
streaming reference). The suite then encodes every shared transcript and
decodes every shared response, streamed and whole, plus the error and abort
cases.
"""

from __future__ import annotations

import pytest
from agentkit_provider_openai_responses import OpenAIResponses


def test_the_shared_fixtures_pass_on_this_wire() -> None:
    conformance = pytest.importorskip("agentkit.conformance")
    from agentkit.conformance import fixtures

    assert fixtures.responder_for(OpenAIResponses()) is OpenAIResponses.conformance_responder
    report = conformance.check_plugin("openai-responses", lint=False)
    provider_checks = [check for check in report.checks if check.check.startswith("providers.")]
    problems = [
        f"{check.check}: {check.message}" for check in provider_checks if check.outcome != "pass"
    ]
    assert problems == []
    assert sum(check.check == "providers.decode" for check in provider_checks) == 8
