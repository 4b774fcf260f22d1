"""Checks of the ``hooks`` category: a real agent loop with the plugin in it.

The loop runs against the scripted provider (found through its entry point,
like any plugin) and a probe tool that records the arguments it receives.
Each of the plugin's hook implementations is wrapped by a spy that counts its
calls, keeps what it returned, and notices if it tried to change its arguments.

* a call the embedder blocked never reaches the plugin, and stays blocked;
* for a call the embedder allowed, the plugin may object (``Block``), ask a
  person (``Defer``) or say nothing (``None``): anything else is an attempt to
  "allow", which the host treats as a block and the suite fails; its arguments are read-only, and an
  attempt to change them fails the suite too;
* a ``before_tool_call`` that raises blocks the call (fails closed) and the
  run goes on;
* no lifecycle hook raises during an ordinary run;
* a guardrail (``agentkit_input_guardrail``, ``agentkit_output_guardrail``)
  answers ``None`` or a ``Block``: refusing the probe run's prompt or answer
  is narrowing and passes, anything else is an attempt to "allow" and fails;
  a guardrail that raises ends the run with outcome ``guardrail`` (fails
  closed), a prompt guardrail before any request is sent.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agentkit.host import Agent, AgentConfig, Connection, PluginHost, Trust
from agentkit.plugin_api import Block, Defer, Tool, ToolResultMessage, hookimpl, provider_member

from ._report import Check, failed, passed, skipped

PROBE = "agentkit_conformance_probe"
BEFORE = "agentkit_before_tool_call"
GUARDRAILS = {"agentkit_input_guardrail": "prompt", "agentkit_output_guardrail": "answer"}
EMBEDDER_REASON = "blocked by the embedder (conformance check)"


@dataclass
class _Spy:
    calls: int = 0
    outcomes: list[Any] = field(default_factory=list)
    mutated: bool = False
    raise_instead: bool = False


class _Probe:
    """A tool plugin whose one tool records the arguments of each call."""

    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []

    @hookimpl
    def agentkit_register_tools(self, register: Callable[[Tool], None]) -> None:
        def probe(arguments: dict[str, Any], context: Any) -> dict[str, Any]:
            self.received.append(dict(arguments))
            return {"echo": arguments.get("value")}

        register(Tool(PROBE, "Echo the value (conformance probe).",
                      {"type": "object", "properties": {"value": {"type": "string"}}, "required": ["value"]},
                      probe))


def _spy_on(host: PluginHost, plugin: str) -> dict[str, _Spy]:
    spies: dict[str, _Spy] = {}
    for hook in (BEFORE, "agentkit_after_tool_call", "agentkit_session_start", "agentkit_session_end", *GUARDRAILS):
        for impl in getattr(host.pm.hook, hook).get_hookimpls():
            if impl.plugin_name != plugin:
                continue
            spy = spies[hook] = _Spy()
            impl.function = _wrap(impl.function, spy)
    return spies


def _wrap(function: Callable[..., Any], spy: _Spy) -> Callable[..., Any]:
    # pluggy passes the declared arguments by position, the ones with defaults by keyword
    def spied(*args: Any, **kwargs: Any) -> Any:
        spy.calls += 1
        if spy.raise_instead:
            raise RuntimeError("simulated failure of the plugin's hook (conformance check)")
        try:
            outcome = function(*args, **kwargs)
        except TypeError as exc:
            spy.mutated = spy.mutated or "read-only" in str(exc)
            raise
        spy.outcomes.append(outcome)
        return outcome

    return spied


def _run(host: PluginHost, probe: _Probe, value: str, before_tool_call: Callable[..., Any]) -> Any:
    play = provider_member(host.providers["faux"], "script")
    assert play is not None, "the scripted provider plays scripts"
    script = play([
        {"content": [{"type": "tool_use", "name": PROBE, "arguments": {"value": value}}]},
        {"content": [{"type": "text", "text": "done"}]},
    ])
    with tempfile.TemporaryDirectory(prefix="agentkit-conformance-") as root:
        agent = Agent(AgentConfig(model="faux/scripted", root=root, tools=[PROBE],
                                  trust=Trust(before_tool_call=before_tool_call),
                                  connection=Connection(transport=script)), host=host)
        return agent.run_sync("conformance check")


def _tool_result(result: Any) -> ToolResultMessage | None:
    return next((m for m in result.messages if isinstance(m, ToolResultMessage)), None)


def _answer(host: PluginHost) -> tuple[Any, Any]:
    """A run whose model answers ``done`` (no retry), and its script (what was sent)."""
    play = provider_member(host.providers["faux"], "script")
    assert play is not None, "the scripted provider plays scripts"
    script = play([{"content": [{"type": "text", "text": "done"}]}] * 2)
    with tempfile.TemporaryDirectory(prefix="agentkit-conformance-") as root:
        agent = Agent(AgentConfig(model="faux/scripted", root=root, tools=[], output_retries=0,
                                  connection=Connection(transport=script)), host=host)
        return agent.run_sync("conformance check"), script


def _check_guardrails(host: PluginHost, plugin: str, spies: dict[str, _Spy]) -> list[Check]:
    guards = {hook: spy for hook, spy in spies.items() if hook in GUARDRAILS}
    checks: list[Check] = []
    for spy in guards.values():
        spy.calls, spy.outcomes = 0, []
    result, _ = _answer(host)
    for hook, spy in guards.items():
        odd = [outcome for outcome in spy.outcomes if outcome is not None and not isinstance(outcome, Block)]
        if odd:
            checks.append(failed("guardrails.narrow", f"{hook} returned {odd[0]!r}; the host counts that as a refusal",
                                 "return None (no objection) or Block(reason): a guardrail refuses, it never allows "
                                 "nor rewrites", hook))
        elif any(isinstance(outcome, Block) for outcome in spy.outcomes):
            checks.append(passed("guardrails.narrow", f"the plugin refused the probe run's {GUARDRAILS[hook]} "
                                 "(refusing is narrowing)", hook))
        elif not spy.calls:  # its input guardrail refused the prompt: the run had no answer to show it
            checks.append(skipped("guardrails.narrow", "the probe run ended before its answer was shown to the "
                                  "plugin", hook))
        elif result.outcome == "completed" and result.text == "done":
            checks.append(passed("guardrails.narrow", "no objection changed nothing", hook))
        else:
            checks.append(failed("guardrails.narrow", f"a run {hook} did not object to did not end as the model "
                                 f"answered (outcome {result.outcome}, {spy.calls} call(s))",
                                 "report this to agentkit: a guardrail with no objection must change nothing", hook))
    for hook, spy in guards.items():
        spy.raise_instead = True
        try:
            result, script = _answer(host)
        finally:
            spy.raise_instead = False
        sent = script.request_count if hook == "agentkit_input_guardrail" else 0
        if not spy.calls:
            checks.append(skipped("guardrails.fail-closed", "the probe run ended before its answer was shown to the "
                                  "plugin", hook))
        elif result.outcome == "guardrail" and f"plugin {plugin!r}" in (result.error or "") and not sent:
            checks.append(passed("guardrails.fail-closed", f"a raising guardrail refused the {GUARDRAILS[hook]} "
                                 "and ended the run as guardrail", hook))
        else:
            checks.append(failed("guardrails.fail-closed", f"a raising {hook} did not end the run as guardrail "
                                 f"(outcome {result.outcome}, {sent} request(s) sent)",
                                 "report this to agentkit: a raising guardrail must fail closed", hook))
    return checks


def check_hooks(host: PluginHost, plugin: str) -> list[Check]:
    if "faux" not in host.providers:
        return [skipped("hooks.loop", "the scripted provider (agentkit-provider-faux) is not installed")]
    probe = _Probe()
    record = host.register(probe, name="agentkit-conformance-probe")
    if record.status != "loaded":
        return [skipped("hooks.loop", f"the probe tool could not be registered: {record.reason}")]
    spies = _spy_on(host, plugin)
    checks: list[Check] = _check_guardrails(host, plugin, spies)

    def embedder_blocks(call: Any, arguments: dict[str, Any]) -> Block:
        return Block(EMBEDDER_REASON)

    def embedder_allows(call: Any, arguments: dict[str, Any]) -> None:
        return None

    # 1. A call the embedder blocked never reaches the plugin, and stays blocked.
    result = _run(host, probe, "blocked", embedder_blocks)
    message = _tool_result(result)
    before = spies.get(BEFORE)
    if result.outcome == "guardrail":  # the plugin's guardrail refused the probe run: no call to check
        checks.append(skipped("hooks.narrow", "the plugin's guardrail ended the probe run before its tool call",
                              BEFORE))
    elif before is not None and before.calls:
        checks.append(failed("hooks.narrow", "agentkit_before_tool_call was consulted for a call the embedder blocked",
                             "report this to agentkit: the host must never ask plugins about a blocked call", BEFORE))
    elif message is None or not message.is_error or EMBEDDER_REASON not in message.text or probe.received:
        checks.append(failed("hooks.narrow", "a call the embedder blocked was not answered as blocked",
                             "a plugin cannot turn a block into an allow: remove whatever does", BEFORE))
    else:
        checks.append(passed("hooks.narrow", "a call the embedder blocked never reached the plugin", BEFORE))

    # 2. An allowed call: the plugin may object or say nothing; "allow" is not a thing.
    probe.received.clear()
    for spy in spies.values():
        spy.calls, spy.outcomes = 0, []
    result = _run(host, probe, "allowed", embedder_allows)
    message = _tool_result(result)
    if before is not None and result.outcome == "guardrail":
        checks.append(skipped("hooks.no-allow", "the plugin's guardrail ended the probe run before its tool call",
                              BEFORE))
    elif before is not None:
        odd = [outcome for outcome in before.outcomes if outcome is not None and not isinstance(outcome, Block | Defer)]
        if odd:
            checks.append(failed(
                "hooks.no-allow", f"agentkit_before_tool_call returned {odd[0]!r} for a call the embedder allowed; "
                "the host reports that and blocks the call (fails closed)",
                "return None (no objection), Block(reason) or Defer(reason): a hook can only narrow, there is no allow",
                BEFORE))
        elif before.mutated:
            checks.append(failed("hooks.no-allow", "agentkit_before_tool_call tried to change the arguments it was "
                                 "given; they are read-only, so the host blocked the call",
                                 "treat arguments as read-only: a hook can refuse a call, never rewrite it", BEFORE))
        elif any(isinstance(outcome, Block) for outcome in before.outcomes):
            checks.append(passed("hooks.no-allow", "the plugin blocked the probe call (narrowing is allowed)", BEFORE))
        elif any(isinstance(outcome, Defer) for outcome in before.outcomes):
            checks.append(passed("hooks.no-allow", "the plugin deferred the probe call to a person (narrowing is "
                                 "allowed)", BEFORE))
        elif probe.received != [{"value": "allowed"}] or message is None or message.is_error:
            checks.append(failed("hooks.no-allow", "an allowed call with no objection did not run unchanged",
                                 "return None to let a call run as the model made it", BEFORE))
        else:
            checks.append(passed("hooks.no-allow", "no objection changed nothing", BEFORE))
    for problem in result.problems:
        if f"plugin {plugin!r}" in problem:
            checks.append(failed("hooks.ordinary-run", f"went wrong during an ordinary run: {problem}",
                                 "a hook must not raise on ordinary input; catch and report what you expect to fail"))

    # 3. A before_tool_call that raises fails closed, and the run goes on.
    if before is None:
        checks.append(skipped("hooks.fail-closed", "the plugin has no agentkit_before_tool_call", BEFORE))
        return checks
    before.raise_instead = True
    probe.received.clear()
    try:
        result = _run(host, probe, "raising", embedder_allows)
    finally:
        before.raise_instead = False
    message = _tool_result(result)
    if message is not None and message.is_error and not probe.received and result.outcome == "completed":
        checks.append(passed("hooks.fail-closed", "a raising hook blocked the call and the run went on", BEFORE))
    else:
        checks.append(failed("hooks.fail-closed", "a raising agentkit_before_tool_call did not block the call",
                             "report this to agentkit: a raising hook must fail closed", BEFORE))
    return checks
