"""What the model reads back: the capped tail, the spill file, the reduced environment."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

CAP = 50 * 1024


def _body(output: str) -> str:
    """The output with its truncation marker line removed."""
    first, _, rest = output.partition("\n")
    assert first.startswith("[Output truncated"), first
    return rest


def test_long_output_keeps_the_tail_and_spills_the_whole(run, tmp_path):
    result = run("execute", {"command": "seq 1 100000"})
    expected = "".join(f"{i}\n" for i in range(1, 100001))
    assert result.ok and result.data["truncated"]
    output = result.data["output"]
    body = _body(output)
    assert expected.endswith(body)
    assert len(body.encode()) == CAP
    spill = re.search(r"full output is in (\S+?);", output).group(1)
    assert spill == result.metadata["spill_path"]
    assert Path(spill).read_text() == expected
    assert f"head -c {CAP} {spill}" in output
    os.unlink(spill)


def test_output_at_the_cap_is_not_truncated(run):
    result = run("execute", {"command": f"head -c {CAP} /dev/zero | tr '\\0' x"})
    assert not result.data["truncated"]
    assert result.data["output"] == "x" * CAP
    assert "spill_path" not in result.metadata


def test_spill_can_be_turned_off(run):
    result = run("execute", {"command": "seq 1 100000"}, options={"spill": False})
    assert result.data["truncated"]
    assert "not kept" in result.data["output"].partition("\n")[0]
    assert "spill_path" not in result.metadata


def test_a_cut_utf8_sequence_is_not_shown_as_garbage(run):
    # 3-byte characters: a byte cut lands inside one unless it is realigned.
    command = "for i in $(seq 1 20000); do printf '€'; done"
    result = run("execute", {"command": command}, options={"spill": False})
    body = _body(result.data["output"])
    assert set(body) == {"€"}


@pytest.fixture
def credentials(monkeypatch):
    names = {
        "MY_API_KEY": "k1",
        "GITHUB_TOKEN": "t1",
        "CLIENT_SECRET": "s1",
        "DB_PASSWORD": "p1",
        "AWS_ACCESS_KEY_ID": "a1",
        "AWS_SECRET_ACCESS_KEY": "a2",
        "AWS_SESSION_TOKEN": "a3",
        "GOOGLE_APPLICATION_CREDENTIALS": "/creds.json",
        "AZURE_CLIENT_SECRET": "z1",
        "lower_case_token": "l1",
    }
    for name, value in names.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("AGENTKIT_PLAIN_SETTING", "kept")
    return names


def _environment(run, options=None) -> dict[str, str]:
    output = run("run_command", {"argv": ["env", "-0"]}, options=options).data["output"]
    return dict(entry.split("=", 1) for entry in output.split("\0") if entry)


def test_credential_looking_variables_are_stripped(run, credentials):
    env = _environment(run)
    assert not set(credentials) & set(env)
    assert env["AGENTKIT_PLAIN_SETTING"] == "kept"
    assert env["PATH"] == os.environ["PATH"]


def test_the_embedder_passes_credentials_through_by_name(run, credentials):
    env = _environment(
        run, {"pass_env": ["GITHUB_TOKEN"], "env": {"DEPLOY_TOKEN": "explicit", "MODE": "ci"}}
    )
    assert env["GITHUB_TOKEN"] == "t1"
    assert env["DEPLOY_TOKEN"] == "explicit"
    assert env["MODE"] == "ci"
    assert "MY_API_KEY" not in env


def test_bad_tool_options_name_the_option(run):
    from agentkit.plugin_api import ToolError

    with pytest.raises(ToolError) as caught:
        run("execute", {"command": "true"}, options={"pass_env": "GITHUB_TOKEN"})
    assert caught.value.error == "invalid_tool_options"
    assert "pass_env" in caught.value.detail
