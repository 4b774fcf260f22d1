"""``runs.answer``: the RPC's answer to a parked durable run, reaching the extension through its entry point.

The round trip against a parked run is in extensions/durable/tests/test_approvals.py; here, what the host
answers on its own: params that cannot approve anything, and a server without the extension.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from agentkit.host.rpc import RpcServer

SHA = "a" * 64


def answer(**params: Any) -> dict[str, Any]:
    lines: list[dict[str, Any]] = []
    server = RpcServer(lambda session, model: None, lines.append)  # type: ignore[arg-type, return-value]
    line = {"schema": "agentkit.rpc.request/v1", "id": 1, "method": "runs.answer", "params": params}
    asyncio.run(server.handle_line(json.dumps(line).encode()))
    [response] = lines
    return response


@pytest.mark.parametrize("params", [
    {"run_id": "r", "call_id": "c", "approved": True},  # no digest of the arguments shown: decision 0028
    {"run_id": "r", "call_id": "c", "approved": "yes", "arguments_sha256": SHA},
    {"run_id": "r", "call_id": "c", "approved": True, "arguments_sha256": "not a digest"},
    {"run_id": "", "call_id": "c", "approved": True, "arguments_sha256": SHA},
])
def test_an_answer_that_names_no_call_as_shown_is_invalid(params):
    assert answer(**params)["error"]["code"] == "invalid_params"


def test_without_the_durable_extension_the_answer_says_what_to_install(monkeypatch):
    monkeypatch.setenv("AGENTKIT_DISABLE_PLUGINS", "agentkit-durable")
    error = answer(run_id="r", call_id="c", approved=True, arguments_sha256=SHA)["error"]
    assert error == {"code": "durable_not_installed",
                     "message": "durable runs need the agentkit-durable extension: pip install agentkit-durable"}

