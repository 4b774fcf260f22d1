"""``agentkit run "<task>" --model vendor/model``: one task, a real model, the installed tools.

The answer's text is written to stdout as it streams; tool calls and notes go
to stderr, one line each. ``--json`` writes every event as one JSON line
instead (the ``agentkit.event/v2`` schema). ``--session new`` writes the run to a new
session, ``--session ID`` continues a stored one (``--model`` defaults to the
model it last ran with). ``--model`` given again (or a comma list) adds
fallback models: a turn the first cannot serve goes to the next, ``--resume`` continues the one written to last; the
session's id is printed to stderr at the end. ``--dry-run`` prints the request
the first turn would send (method, URL, headers with credentials redacted,
body as sent, the assembled system prompt included) and sends nothing.
``--attach FILE|URL`` (repeatable) sends an image, a PDF or text document or
a recording with the task (see :mod:`._attachments`).

The project under ``--root`` may add to the system prompt (its skills under
``.agentkit/skills/``, its ``AGENTS.md`` files) only with ``--trust-project``.

Exit codes: 0 the run's outcome is ``completed`` (the model answered without
tool calls); 1 it ended otherwise (``error``, ``aborted``, ``max_turns``,
``terminated`` or a stop policy), and stderr says which; 2 a usage or configuration error,
a missing credential included (checked before anything is sent); 130 Ctrl-C:
the run is aborted (within a second, whatever its tools do) and stderr says
``agentkit: aborted``.

Tools: every installed tool that is enabled by default, except those that run
arbitrary commands (shell tools), which need ``--allow-all-tools``: with it,
every call the model makes is allowed.

The scripted provider needs no key: ``--model faux/scripted --script
turns.json``, a JSON list of turns as ``agentkit_provider_faux.Turn.from_dict``
reads them. ``--output-schema FILE`` (a JSON Schema) makes the run end with a
value that fits it (see :mod:`.._structured`): stdout then holds only that
value, as one line of JSON (with ``--json``, the events only). ``AGENTKIT_REPLAY`` (a testing aid, see :mod:`.._replay`) answers
requests from a recording.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from agentkit.plugin_api import (
    AgentEnd,
    BlockDelta,
    BlockStart,
    MessageEnd,
    ModelFallback,
    Outcome,
    TextBlock,
    ToolCallEnd,
    ToolCallProgress,
    ToolCallStart,
    ToolResultMessage,
    event_to_dict,
)
from agentkit.plugin_api.errors import ProviderError, UsageError

from .._terminal import visible, visible_line
from ._attachments import prompt_with
from .support import (
    add_agent_options,
    load_script,
    open_project,
    require_credential,
    run_interruptibly,
    select_session,
)

if TYPE_CHECKING:
    from .._agent import Agent
    from .._plugins import PluginHost
    from .._prompt import Prompt
    from ..sessions import Session


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "run",
        description="Run one task against a model. Exit codes: 0 completed, 1 the run ended otherwise "
        "(error, aborted, max_turns, ...), 2 usage or configuration error.",
    )
    parser.add_argument("task", help="what the agent should do")
    parser.add_argument("--model", default=None, action="append",
                        help="vendor/model, e.g. anthropic/claude-sonnet-4-6 (continuing a session: its model); "
                             "given again, or as a comma list, the next is a fallback for a turn the one "
                             "before cannot serve (an outage, 429, 529 overloaded)")
    parser.add_argument("--session", default=None, metavar="ID|new",
                        help="write the run to a new session ('new'), or continue the stored session ID")
    parser.add_argument("--resume", action="store_true", help="continue the session written to last")
    add_agent_options(parser)
    parser.add_argument("--attach", action="append", default=[], metavar="FILE|URL",
                        help="send a file with the task: an image, a PDF or text document, or audio "
                             "(repeatable; the model must take that kind of input)")
    parser.add_argument("--json", action="store_true", help="write every event as a JSON line")
    parser.add_argument("--dry-run", action="store_true", help="print the request that would be sent; send nothing")
    parser.add_argument(
        "--output-schema", default=None, metavar="FILE",
        help="a JSON Schema file: the run ends with a value that fits it, printed as JSON on stdout",
    )
    parser.add_argument("--durable", action="store_true",
                        help="a durable run (agentkit-durable): it survives its process; resume it with "
                             "'agentkit runs resume'")
    parser.add_argument("--db", default=None, metavar="URL",
                        help="with --durable: the database runs are kept in (default: $AGENTKIT_DURABLE_DB, "
                             "else durable.sqlite in the data directory)")
    parser.set_defaults(handler=run)


def _run_durable(args: argparse.Namespace) -> int:
    """Hand the run to the durable-run extension, found through its entry point."""
    from .._entry_points import DURABLE_GROUP, contributed_entry_points

    if args.dry_run or args.output_schema is not None:
        raise UsageError("--durable runs take neither --dry-run nor --output-schema")
    entry = contributed_entry_points(DURABLE_GROUP, "durable", os.environ).get("run")
    if entry is None:
        raise UsageError("durable runs need the agentkit-durable extension: pip install agentkit-durable")
    module_name, _, attribute = entry.value.partition(":")
    try:
        run_durable: Any = import_module(module_name.strip())
        for part in attribute.strip().split(".") if attribute.strip() else ():
            run_durable = getattr(run_durable, part)
    except Exception as exc:  # a broken installation: one line, never a traceback
        raise UsageError(f"the agentkit-durable extension failed to load ({type(exc).__name__}: {exc}); "
                         "reinstall it: pip install agentkit-durable") from None
    return int(run_durable(args))


def _tools(host: PluginHost, allow: bool) -> tuple[list[str], list[str]]:
    """The tools to enable, and the default tools left out for want of authorization."""
    default = sorted(name for name, tool in host.tools.items() if tool.default_enabled)
    if allow:
        return default, []
    left_out = [name for name in default if host.tools[name].requires_authorization]
    return [name for name in default if name not in left_out], left_out


def model_list(given: list[str] | None) -> list[str] | None:
    """``--model``'s values, each possibly a comma list, as one list of models in order (``None``: none given)."""
    if given is None:
        return None
    models = [name.strip() for value in given for name in value.split(",")]
    if not all(models):
        raise UsageError("--model takes vendor/model, or a comma list of them with no empty entry")
    if len(set(models)) < len(models):
        raise UsageError(f"--model names a model twice ({', '.join(models)}): a fallback must be another model")
    return models


def make_agent(args: argparse.Namespace, host: PluginHost, model_name: str | list[str], session: Session | None,
               *, check_credential: bool = True) -> Agent:
    """The agent the options in ``args`` describe, running ``model_name``, written to ``session`` if any.

    ``model_name`` may be a list: the first model, then its fallbacks (``AgentConfig(model=[...])``).

    Shared by ``agentkit run`` and ``agentkit rpc``: ``--root``, ``--system``, ``--max-turns``,
    ``--max-tokens``, ``--allow-all-tools``, ``--trust-project`` and ``--script``.

    :raises UsageError: an unknown model, a missing credential, a bad script.
    """
    from .._agent import Agent
    from .._config import AgentConfig, Connection, Limits, Trust, allow_all
    from .._replay import REPLAY_ENV, REPLAY_LOG_ENV, ReplayTransport
    from .._settings import ModelSettings

    names = [model_name] if isinstance(model_name, str) else model_name
    for name in reversed(names):  # ModelNotFound is a usage error: exit 2; the first model is checked last
        model = host.resolve_model(name)
        provider = host.providers[model.api]  # the catalog lists a model only while its plugin serves the wire
        if check_credential:  # before anything is sent, for every model a turn may go to
            require_credential(provider, model)
    transport: Any = None
    replay = os.environ.get(REPLAY_ENV)
    if args.script is not None or model.api == "faux":
        transport = load_script(provider, args.script, by_transcript=getattr(args, "durable", False))
    elif replay:
        transport = ReplayTransport.from_file(replay, os.environ.get(REPLAY_LOG_ENV))
    config = AgentConfig(
        model=model_name, root=Path(args.root).expanduser(), system_prompt=args.system,
        tools=_tools(host, args.allow_all_tools)[0], settings=ModelSettings(max_tokens=args.max_tokens),
        limits=Limits(max_turns=args.max_turns),
        trust=Trust(before_tool_call=allow_all if args.allow_all_tools else None, project=args.trust_project),
        connection=Connection(transport=transport),
    )
    if session is not None:
        config = session.config_for(config)
        config.model = model_name  # the one asked for, or the session's
    return Agent(config, host=host, session=session)  # a ConfigError is a usage error: exit 2


def run(args: argparse.Namespace) -> int:
    # The loop's machinery, imported only when a task runs: 'agentkit --help' stays light.
    from .._plugins import PluginHost
    from .._structured import StructuredOutput

    if args.db is not None and not args.durable:
        raise UsageError("--db names the database of durable runs: pass it with --durable")
    args.model = model_list(args.model)
    if args.durable:
        if args.model is not None and len(args.model) > 1:
            raise UsageError("--durable runs take one --model: fallback models are for runs in this process")
        args.model = args.model[0] if args.model else None
        return _run_durable(args)
    root = Path(args.root).expanduser()
    if not root.is_dir():
        raise UsageError(f"--root {args.root!r} is not a directory")
    if args.max_turns is not None and args.max_turns < 1:
        raise UsageError("--max-turns must be at least 1")
    schema = _load_output_schema(args.output_schema)  # a mistake in it is named before anything starts
    session = select_session(args.session, resume=args.resume, store=args.store, root=root,
                             create=not args.dry_run)  # a dry run writes nothing: it shows what a new one would send
    if session is not None and session.model is not None and args.model is None:
        args.model = [session.model]
    if args.model is None:
        raise UsageError("say which model: --model vendor/model (e.g. anthropic/claude-sonnet-4-6)")
    host = PluginHost.discover(project=open_project(root, args.trust_project))
    left_out = _tools(host, args.allow_all_tools)[1]
    agent = make_agent(args, host, args.model, session, check_credential=not args.dry_run)
    if not agent.model.priced:
        print(f"note: {agent.model.key} is in no model family the catalog knows: sent as asked, no setting "
              "refused, price unknown (its cost is reported as unknown)", file=sys.stderr)
    if left_out:
        print(f"note: left out {', '.join(left_out)} (they run commands); pass --allow-all-tools to enable them",
              file=sys.stderr)
    for problem in agent.skills.problems:
        print(f"note: {visible_line(problem)}", file=sys.stderr)

    prompt = prompt_with(args.task, args.attach, root)
    if args.dry_run:
        agent.structured = None if schema is None else StructuredOutput(schema)  # shown as the run would send it
        return _dry_run(agent, prompt)
    interrupted = threading.Event()

    def on_interrupt() -> None:
        interrupted.set()
        agent.abort()

    try:
        code, _ = run_interruptibly(_stream(agent, prompt, as_json=args.json, out=sys.stdout,
                                            interrupted=interrupted, output_schema=schema),
                                    on_interrupt, exiting=True, tools=agent.tools.values())
    finally:
        if session is not None:
            session.close()
            if session.entries:  # a session the store never took is nothing to continue
                print(f"session: {session.id} (continue it with --session {session.id})", file=sys.stderr)
    return code


def _dry_run(agent: Agent, prompt: Prompt) -> int:
    import asyncio

    from .._prompt import admitted, as_messages
    from .._request import build_request
    from .._stopping.run_stop import RunStop

    # Admitted as a run admits its prompt: what is printed is what would be sent, refusals included.
    new = admitted(as_messages(prompt), agent.model, agent.root, agent.config.connection.image_fetcher)
    request = build_request(agent._open_run(RunStop()), [*agent.history, *new])
    try:
        prepared = asyncio.run(agent.runtime.prepare(agent.provider, request))
    except ProviderError as exc:  # the wire cannot carry the request (a block it takes no form of)
        print(f"agentkit: error: {visible_line(str(exc))}", file=sys.stderr)
        return 1
    try:
        body: Any = json.loads(prepared.body_bytes) if prepared.body_bytes else None
    except ValueError:
        body = prepared.body_bytes.decode("utf-8", "replace")
    print(json.dumps({
        "method": prepared.method,
        "url": prepared.url,
        "headers": prepared.headers_redacted,
        "body": body,
    }, indent=2, ensure_ascii=False))
    if prepared.missing_credential:
        print(f"note: {prepared.missing_credential}", file=sys.stderr)
    return 0


#: How much of a failed call's reason the progress line shows.
_REASON_WIDTH = 300


def _failure_reason(result: ToolResultMessage) -> str:
    """Why a call failed, on one visible line: the envelope's error code and detail, else the result's text."""
    text = "".join(block.text for block in result.content if isinstance(block, TextBlock))
    try:
        envelope = json.loads(text)
    except ValueError:
        envelope = None
    if isinstance(envelope, dict) and envelope.get("ok") is False:
        text = ": ".join(str(envelope[key]) for key in ("error", "detail") if envelope.get(key)) or text
    line = visible_line(" ".join(text.split()))
    return line if len(line) <= _REASON_WIDTH else line[: _REASON_WIDTH - 1] + "…"


def _load_output_schema(path: str | None) -> dict[str, Any] | None:
    """The JSON Schema of ``--output-schema``, checked before anything is sent."""
    if path is None:
        return None
    try:
        schema = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        raise UsageError(f"--output-schema {path}: cannot read a JSON Schema ({exc})") from exc
    if not isinstance(schema, dict):
        raise UsageError(f"--output-schema {path}: a JSON Schema is a JSON object")
    from .._structured import StructuredOutput
    from ..errors import ConfigError

    try:
        StructuredOutput(schema)
    except ConfigError as exc:  # a schema that is no JSON Schema
        raise UsageError(f"--output-schema {path}: {exc}") from None
    return schema


async def _stream(agent: Agent, task: Prompt, *, as_json: bool, out: TextIO,
                  interrupted: threading.Event | None = None, output_schema: dict[str, Any] | None = None) -> int:
    text_blocks: set[int] = set()
    wrote_text = False
    end: AgentEnd | None = None
    # With a schema, stdout holds only the value: the model's text is (part of) that value, not the answer.
    quiet = output_schema is not None
    async for event in agent.stream(task, output_type=output_schema):
        if as_json:
            out.write(json.dumps(event_to_dict(event), ensure_ascii=False) + "\n")
            out.flush()
        elif isinstance(event, BlockStart):
            if event.kind == "text" and not quiet:
                text_blocks.add(event.index)
        elif isinstance(event, BlockDelta):
            if event.index in text_blocks:
                out.write(visible(event.delta))  # the model's text: its lines stay, its controls are shown
                out.flush()
                wrote_text = True
        elif isinstance(event, MessageEnd):
            text_blocks.clear()
            if wrote_text:
                out.write("\n")
                out.flush()
                wrote_text = False
        elif isinstance(event, ModelFallback):
            print(f"note: {event.model} could not serve turn {event.turn} ({visible_line(event.error)}); "
                  f"asking {event.fallback}", file=sys.stderr)
        elif isinstance(event, ToolCallStart):
            print(f"[tool] {visible_line(event.call.name)} {visible_line(event.call.arguments)}", file=sys.stderr)
        elif isinstance(event, ToolCallProgress):
            print(f"[tool] {visible_line(event.tool_name)}: {visible_line(event.message)}", file=sys.stderr)
        elif isinstance(event, ToolCallEnd) and event.result.is_error:
            print(f"[tool] {visible_line(event.result.tool_name)} failed: {_failure_reason(event.result)}",
                  file=sys.stderr)
        if isinstance(event, AgentEnd):
            end = event
    if interrupted is not None and interrupted.is_set():
        if wrote_text:
            out.write("\n")
        print("agentkit: aborted", file=sys.stderr)
        return 130
    if end is None or end.outcome is not Outcome.COMPLETED:
        reason = end.outcome.value if end else "no end event"
        detail = f": {end.error}" if end and end.error else ""
        print(f"agentkit: run ended: {reason}{visible_line(detail)}", file=sys.stderr)
        return 1
    result = agent.last_result
    if output_schema is not None and not as_json and result is not None:
        out.write(json.dumps(result.output, ensure_ascii=False) + "\n")
        out.flush()
    return 0
