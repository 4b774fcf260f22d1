"""The shared conformance fixtures (``agentkit.conformance``) on this wire.

The suite decodes a wire only through a responder that renders canonical
responses as that wire's events; this wire's ships with the provider
(``OllamaChat.conformance_responder``, written from Ollama's ``/api/chat``
documentation). The wire carries no cached counts, no tool-call ids and
arguments as objects; the responder says so, the cached-usage fixture is
skipped, and ids are only required to be present and distinct.
"""

from __future__ import annotations

import pytest
from agentkit_provider_ollama import OllamaChat


def test_the_shared_fixtures_pass_on_this_wire() -> None:
    conformance = pytest.importorskip("agentkit.conformance")
    from agentkit.conformance import fixtures

    assert fixtures.responder_for(OllamaChat()) is OllamaChat.conformance_responder
    report = conformance.check_plugin("ollama", lint=False)
    provider_checks = [check for check in report.checks if check.check.startswith("providers.")]
    problems = [
        f"{check.check}: {check.message}"
        for check in provider_checks
        if check.outcome not in ("pass", "skip")
    ]
    assert problems == []
    skipped = [check.message for check in provider_checks if check.outcome == "skip"]
    assert skipped == ["usage_with_cached_tokens: the wire lacks ['cache_read']"]
    assert sum(check.check == "providers.decode" and check.outcome == "pass" for check in provider_checks) == 6
