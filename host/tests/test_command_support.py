"""``agentkit.host.cli.support``: a command a distribution contributes reads options, sessions, scripts and
credentials with the host's public functions, and fails exactly as ``agentkit run`` does.

The command under test is an installed distribution that imports only public names; it is run
through the real ``agentkit`` command.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentkit.testing import write_script

ASK = '''
import argparse
from pathlib import Path

from agentkit.host import Agent, AgentConfig, PluginHost
from agentkit.host.cli.support import (
    add_agent_options, load_script, require_credential, run_interruptibly, select_session,
)


def main(argv):
    parser = argparse.ArgumentParser(prog="agentkit ask")
    parser.add_argument("task")
    parser.add_argument("--model", default=None)
    parser.add_argument("--session", default=None)
    parser.add_argument("--resume", action="store_true")
    add_agent_options(parser)
    args = parser.parse_args(argv)
    root = Path(args.root)
    session = select_session(args.session, resume=args.resume, store=args.store, root=root)
    model = args.model or (session.model if session is not None else None)
    host = PluginHost.discover()
    info = host.resolve_model(model)
    provider = host.providers[info.api]
    transport = load_script(provider, args.script) if args.script is not None or info.api == "faux" else None
    if transport is None:
        require_credential(provider, info)
    config = AgentConfig(model=model, root=root, transport=transport, tools=[])
    if session is not None:
        config = session.config_for(config)
        config.model = model
    agent = Agent(config, host=host, session=session)
    try:
        result, interrupted = run_interruptibly(agent.run(args.task), agent.abort)
    finally:
        if session is not None:
            session.close()
    print(result.final_message.content[0].text, len(agent.history), session.id if session else "-")
    return 0
'''


@pytest.fixture
def ask(site_dir):
    site_dir("ask-command", entry_points={"agentkit.commands": {"ask": "askcmd:main"}}, files={"askcmd.py": ASK})
    return site_dir.site


def test_a_contributed_command_starts_a_session_and_resumes_it(agentkit, ask, tmp_path: Path) -> None:
    store = tmp_path / "sessions"
    first = agentkit("ask", "hi", "--model", "faux/scripted", "--script", str(write_script(tmp_path / "one.json", ["one"])),
                     "--session", "new", "--store", str(store), "--root", str(tmp_path), site=ask)
    assert first.returncode == 0, first.stderr
    answer, messages, session_id = first.stdout.split()
    assert (answer, messages) == ("one", "2")

    again = agentkit("ask", "more", "--script", str(write_script(tmp_path / "two.json", ["two"])), "--resume", "--store", str(store),
                     "--root", str(tmp_path), site=ask)
    assert again.returncode == 0, again.stderr
    assert again.stdout.split() == ["two", "4", session_id]  # the same session, its model, its history


@pytest.mark.parametrize("case", ["no credential", "no script", "unreadable script", "session and resume",
                                  "store alone", "nothing to resume"])
def test_a_contributed_command_fails_as_agentkit_run_does(agentkit, ask, tmp_path: Path, case: str) -> None:
    empty = tmp_path / "empty-store"
    args = {
        "no credential": ["--model", "anthropic/claude-sonnet-4-6"],
        "no script": ["--model", "faux/scripted"],
        "unreadable script": ["--model", "faux/scripted", "--script", str(tmp_path / "missing.json")],
        "session and resume": ["--model", "faux/scripted", "--session", "abc", "--resume"],
        "store alone": ["--model", "faux/scripted", "--store", str(empty)],
        "nothing to resume": ["--model", "faux/scripted", "--resume", "--store", str(empty)],
    }[case]
    ran = agentkit("run", "hi", *args, "--root", str(tmp_path))
    asked = agentkit("ask", "hi", *args, "--root", str(tmp_path), site=ask)

    assert ran.returncode == asked.returncode == 2, (ran.stderr, asked.stderr)
    assert asked.stderr == ran.stderr and asked.stderr.startswith("agentkit: error: ")
    assert len(asked.stderr.splitlines()) == 1
