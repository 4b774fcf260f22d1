"""``docs/providers.md`` stays in step with the installed provider plugins.

For every installed provider that talks to a real API, its section (``## <api>``)
exists, and the path and the pinned version and beta headers its codec
*actually sends* appear there. What is sent is taken from the codec itself:
``encode`` of a minimal request and ``auth_headers`` for each credential kind
it declares, never from source text. The scripted provider (its rows point at
a ``.invalid`` host) talks to no API and has no section.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentkit.host import PluginHost
from agentkit.plugin_api import Credential, ModelInfo, Provider, ProviderRequest, UserMessage

LEDGER = Path(__file__).resolve().parents[1] / "docs" / "providers.md"
HOST = PluginHost.discover()
#: Header names that pin a version or opt into a beta: the ledger must say what we pin.
PINNED = re.compile(r"version|beta", re.I)
FAKE_SECRET = "ledger-test-credential-value"


def _rows(api: str) -> list[ModelInfo]:
    return [row for row in HOST.models.values() if row.api == api]


def _real(api: str) -> bool:
    return any(not (re.match(r"https?://([^/:]+)", row.base_url) or [None, ""])[1].endswith(".invalid")
               for row in _rows(api))


PROVIDERS = sorted(api for api in HOST.providers if _real(api))


def section(api: str) -> str:
    text = LEDGER.read_text(encoding="utf-8")
    match = re.search(rf"^## {re.escape(api)}[ \t]*$(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, f"docs/providers.md has no '## {api}' section for the installed {api!r} provider"
    return match.group(1)


def sent_headers(provider: Provider, row: ModelInfo) -> dict[str, str]:
    """Every pinned header the codec sends for a minimal request, under each credential kind it takes."""
    wire = provider.encode(ProviderRequest(model=row, messages=[UserMessage.text("hi")], max_tokens=16))
    headers = dict(wire.headers)
    for _, kind in provider.credential_env:
        headers.update(provider.auth_headers(Credential(kind, FAKE_SECRET)))
    return {name: value for name, value in headers.items() if PINNED.search(name) and FAKE_SECRET not in value}


def test_there_are_providers_to_check() -> None:
    assert PROVIDERS, "no provider plugin that talks to a real API is installed"


@pytest.mark.parametrize("api", PROVIDERS)
def test_each_provider_has_a_section_naming_its_path_and_pinned_headers(api: str) -> None:
    provider = HOST.providers[api]
    row = next((row for row in _rows(api) if row.default), _rows(api)[0])
    text = section(api)
    wire = provider.encode(ProviderRequest(model=row, messages=[UserMessage.text("hi")], max_tokens=16))
    path = wire.path if wire.path.startswith("/") else "/" + wire.path
    assert path in text, f"the {api} section does not name the path {path} the codec sends"
    for name, value in sent_headers(provider, row).items():
        assert name in text and value in text, (
            f"the {api} codec sends '{name}: {value}', which its section in docs/providers.md does not record"
        )
    for other in _rows(api):  # a row's own pinned headers (an API version some models need) too
        for name, value in other.headers.items():
            assert not PINNED.search(name) or (name in text and value in text), (
                f"the {api} row {other.key} sends '{name}: {value}', which its section does not record"
            )
