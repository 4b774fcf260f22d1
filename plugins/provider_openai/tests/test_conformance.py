"""The shared conformance fixtures (``agentkit.conformance``) on this wire, and when its responder loads.

The suite decodes a wire only through a responder that renders canonical
responses as that wire's events; this wire's ships with the provider
(``OpenAICompletions.conformance_responder``, written from OpenAI's Chat
Completions reference) and is loaded when first read: a process that only
serves the wire never needs it.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from agentkit_provider_openai import OpenAICompletions

from agentkit.plugin_api import provider_member


def test_the_shared_fixtures_pass_on_this_wire() -> None:
    conformance = pytest.importorskip("agentkit.conformance")
    from agentkit.conformance import fixtures

    responder = OpenAICompletions.conformance_responder
    assert fixtures.responder_for(OpenAICompletions()) is responder
    assert provider_member(OpenAICompletions(), "conformance_responder") is responder
    assert responder.api == OpenAICompletions.api
    report = conformance.check_plugin("openai", lint=False)
    provider_checks = [check for check in report.checks if check.check.startswith("providers.")]
    # Chat Completions carries no thinking blocks: that fixture is skipped, every other check passes.
    assert [f"{check.check}: {check.message}" for check in provider_checks if check.outcome != "pass"] == [
        "providers.decode: thinking: the wire lacks ['thinking']"]
    assert sum(check.check == "providers.decode" and check.outcome == "pass" for check in provider_checks) == 6


SERVE_THEN_READ = """
import json, sys
from agentkit_provider_openai import OpenAICompletions, profile_for
provider = OpenAICompletions()
profiles = [profile_for(row).name for row in provider.catalog()]
served = "agentkit_provider_openai._conformance" in sys.modules
first, again = OpenAICompletions.conformance_responder, provider.conformance_responder
print(json.dumps({"served": served, "read": "agentkit_provider_openai._conformance" in sys.modules,
                  "same": first is again, "api": first.api}))
"""


def test_the_responder_loads_when_first_read_and_is_one_object() -> None:
    out = subprocess.run([sys.executable, "-c", SERVE_THEN_READ], capture_output=True, text=True, timeout=120,
                         stdin=subprocess.DEVNULL, check=True)
    assert json.loads(out.stdout) == {"served": False, "read": True, "same": True, "api": "openai-completions"}
