"""What the model reads back: the output (spooled whole past the cap) and the reduced environment."""

from __future__ import annotations

import os

import pytest

from agentkit.plugin_api.results import SpooledResult

CAP = 50 * 1024


def _spooled(result) -> str:
    """The whole output a spooled result carries (its temporary file removed)."""
    assert isinstance(result, SpooledResult) and result.spool is not None
    try:
        return result.spool.read()
    finally:
        result.spool.discard()


def _ends(output: str) -> tuple[str, str, str]:
    """A spooled output as a caller without a host sees it: head, the line between, tail."""
    head, _, tail = output.partition("\n[... ")
    note, _, tail = tail.partition("]\n")
    return head, "[... " + note + "]", tail


def test_past_the_cap_the_output_is_spooled_whole_and_its_two_ends_shown(run):
    result = run("execute", {"command": "seq 1 100000"}, options={"output_cap": CAP})
    expected = "".join(f"{i}\n" for i in range(1, 100001))
    assert result.ok and result.data["truncated"]
    head, _, tail = _ends(result.data["output"])
    assert expected.startswith(head) and expected.endswith(tail) and head and tail
    assert result.metadata["total_bytes"] == len(expected)
    assert _spooled(result) == expected


def test_output_at_the_cap_is_not_truncated(run):
    result = run("execute", {"command": f"head -c {CAP} /dev/zero | tr '\\0' x"}, options={"output_cap": CAP})
    assert not result.data["truncated"]
    assert result.data["output"] == "x" * CAP


def test_by_default_a_long_output_is_kept_whole_for_the_host_to_store(run, tmp_path):
    """Under the default cap the whole output goes to the host (its artifact); nothing lands in the workspace."""
    result = run("execute", {"command": "seq 1 100000"})
    assert not result.data["truncated"]
    assert result.data["output"] == "".join(f"{i}\n" for i in range(1, 100001))
    assert list(tmp_path.iterdir()) == []


def test_a_cut_utf8_sequence_is_not_shown_as_garbage(run):
    # 3-byte characters: a byte cut lands inside one unless it is realigned.
    command = "for i in $(seq 1 20000); do printf '€'; done"
    result = run("execute", {"command": command}, options={"output_cap": CAP})
    head, _, tail = _ends(result.data["output"])
    assert set(head) == set(tail) == {"€"}
    assert _spooled(result) == "€" * 20000


# Secrets under names no suffix rule catches: each reached the child while
# the environment was filtered by a denylist of names. The values are long
# enough that no random id elsewhere in the child's environment contains one.
UNLISTED_SECRETS = {
    "PGPASSWORD": "pg-secret",
    "MYSQL_PWD": "mysql-secret",
    "APIKEY": "bare-api-key",
    "GH_PAT": "ghp_personal",
    "SENTRY_DSN": "https://key@o1.ingest.sentry.io/1",
    "SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T/B/X",
    "DOCKER_AUTH_CONFIG": '{"auths":{"r":{"auth":"dTpw"}}}',
    "REDIS_URL": "redis://user:hunter2@cache:6379/0",
    "MY_API_KEY": "my-api-key-value",
    "GITHUB_TOKEN": "github-token-value",
    "AWS_SECRET_ACCESS_KEY": "aws-secret-value",
    "SSH_AUTH_SOCK": "/tmp/agent.sock",
    "lower_case_token": "lower-case-token-value",
    "AGENTKIT_PLAIN_SETTING": "not on the list either",
}

# Variables a command needs to behave like it does in the user's terminal.
ALLOWLISTED = {
    "PATH": os.environ["PATH"],
    "HOME": "/home/someone",
    "LANG": "en_GB.UTF-8",
    "LC_ALL": "C.UTF-8",
    "LC_TIME": "de_DE.UTF-8",
    "TERM": "xterm-256color",
    "TMPDIR": "/tmp",
    "USER": "someone",
    "LOGNAME": "someone",
    "SHELL": "/bin/zsh",
    "TZ": "Europe/Paris",
}


@pytest.fixture
def parent_environment(monkeypatch):
    for name, value in {**UNLISTED_SECRETS, **ALLOWLISTED}.items():
        monkeypatch.setenv(name, value)


def _environment(run, options=None) -> dict[str, str]:
    output = run("run_command", {"argv": ["env", "-0"]}, options=options).data["output"]
    return dict(entry.split("=", 1) for entry in output.split("\0") if entry)


@pytest.mark.parametrize("name", sorted(UNLISTED_SECRETS))
def test_a_variable_not_on_the_allowlist_does_not_reach_the_child(run, parent_environment, name):
    env = _environment(run)
    assert name not in env
    assert UNLISTED_SECRETS[name] not in "\0".join(env.values())


def test_the_allowlisted_variables_reach_the_child(run, parent_environment):
    env = _environment(run)
    for name, value in ALLOWLISTED.items():
        assert env.get(name) == value, name


def test_the_embedder_passes_more_variables_by_name(run, parent_environment):
    env = _environment(
        run, {"pass_env": ["GITHUB_TOKEN", "pgpassword"], "env": {"DEPLOY_TOKEN": "explicit"}}
    )
    assert env["GITHUB_TOKEN"] == "github-token-value"
    assert env["DEPLOY_TOKEN"] == "explicit"
    assert "MY_API_KEY" not in env
    # POSIX names are case-sensitive: the embedder's spelling must match.
    assert "PGPASSWORD" not in env


def test_a_name_the_embedder_passes_but_the_parent_lacks_is_simply_absent(run):
    env = _environment(run, {"pass_env": ["AGENTKIT_NOT_SET_ANYWHERE"]})
    assert "AGENTKIT_NOT_SET_ANYWHERE" not in env


def test_bad_tool_options_name_the_option(run):
    from agentkit.plugin_api import ToolError

    with pytest.raises(ToolError) as caught:
        run("execute", {"command": "true"}, options={"pass_env": "GITHUB_TOKEN"})
    assert caught.value.error == "invalid_tool_options"
    assert "pass_env" in caught.value.detail


def test_the_line_between_the_ends_counts_what_is_not_shown(run):
    result = run("execute", {"command": "seq 1 100000"}, options={"output_cap": CAP})
    total = len("".join(f"{i}\n" for i in range(1, 100001)))
    head, marker, tail = _ends(result.data["output"])
    assert marker == (
        f"[... {total - len(head) - len(tail)} characters not shown of {total}: the whole output is in "
        "the result's spool, which an agent keeps as an artifact.]"
    ), marker
    _spooled(result)


@pytest.mark.parametrize("cap", [0, -1, True, "big", 1.5])
def test_an_invalid_output_cap_names_the_option(run, cap):
    from agentkit.plugin_api import ToolError

    with pytest.raises(ToolError) as caught:
        run("execute", {"command": "true"}, options={"output_cap": cap})
    assert caught.value.error == "invalid_tool_options" and "output_cap" in caught.value.detail
