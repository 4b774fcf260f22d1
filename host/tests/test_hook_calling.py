"""How the host calls plugin hooks: pluggy's rules, isolation, and nothing a hook can change.

An authorization hook can only narrow: whatever marker options, return
values or mutations a plugin tries, a call the embedder allowed either runs
exactly as authorized or is blocked, and the run goes on.
"""

from __future__ import annotations

import contextlib
import json

import pytest
from agentkit_provider_faux import Turn, text, tool_call
from host_helpers import ToolsPlugin, make_agent

from agentkit.host import PluginHost, Trust
from agentkit.plugin_api import Block, Tool, ToolResultMessage, hookimpl

EDITS = {"path": "notes.txt", "edits": [{"old_string": "a", "new_string": "approved"}]}


def edit_tool(received: list) -> Tool:
    def handler(arguments, context):
        received.append(json.loads(json.dumps(arguments)))
        return "edited"

    schema = {"type": "object", "properties": {"path": {"type": "string"}, "edits": {"type": "array", "items": {
        "type": "object", "properties": {"old_string": {"type": "string"}, "new_string": {"type": "string"}}}}}}
    return Tool("edit", "Edit a file.", schema, handler)


def run(*plugins, arguments=EDITS, before_tool_call=None):
    received: list = []
    agent, _ = make_agent([Turn([tool_call("edit", arguments)]), Turn([text("k")])],
                          ToolsPlugin(edit_tool(received)), *plugins, trust=Trust(before_tool_call=before_tool_call))
    result = agent.run_sync("go")
    answers = [m for m in result.messages if isinstance(m, ToolResultMessage)]
    return result, answers, received


def register(plugin, name="plugin"):
    host = PluginHost()
    return host, host.register(plugin, name=name)


# -- item: marker options are honoured or refused ---------------------------------------------


def wrapper_plugin(option: str, hook: str):
    """A plugin whose ``hook`` is a generator wrapper declared with ``option``."""
    marker = hookimpl(**{option: True})
    arguments = {"agentkit_before_tool_call": "call, arguments", "agentkit_after_tool_call": "call, result",
                 "agentkit_session_start": "session", "agentkit_register_tools": "register"}[hook]
    namespace: dict = {"marker": marker, "Block": Block}
    exec(  # a generator with exactly the hook's argument names, as a plugin author writes it
        f"@marker\ndef {hook}({arguments}):\n    outcome = yield\n"
        f"    return Block('the wrapper objects') if {hook == 'agentkit_before_tool_call'} else outcome\n",
        namespace,
    )
    return type("WrapperPlugin", (), {hook: staticmethod(namespace[hook])})


@pytest.mark.parametrize("option", ["wrapper", "hookwrapper"])
@pytest.mark.parametrize("hook", ["agentkit_before_tool_call", "agentkit_after_tool_call",
                                  "agentkit_session_start", "agentkit_register_tools"])
def test_a_wrapper_hook_is_refused_at_registration_with_the_reason(option, hook):
    host, record = register(wrapper_plugin(option, hook))
    assert record.status == "failed"
    assert f"{option}=True" in record.reason and hook in record.reason and "plain function" in record.reason
    assert host.pm.get_plugin("plugin") is None


def test_a_refused_wrapper_never_leaves_the_call_running_unblocked():
    """The user-visible hole: a wrapper authorization hook used to load, never run, and let the call through."""
    plugin = wrapper_plugin("wrapper", "agentkit_before_tool_call")
    received: list = []
    agent, _ = make_agent([Turn([tool_call("edit", EDITS)]), Turn([text("k")])], ToolsPlugin(edit_tool(received)))
    record = agent.host.register(plugin, name="guard")
    assert record.status == "failed", "a wrapper that loads must also run and be able to block"


def test_tryfirst_and_trylast_order_plugins_as_pluggy_does():
    order = []

    def plugin(name, **options):
        class Plugin:
            @hookimpl(**options)
            def agentkit_before_tool_call(self, call):
                order.append(name)
                return Block(f"{name} objects")

        return Plugin()

    # Registered last, so pluggy would call "late" first without the markers.
    _, answers, received = run(plugin("first", tryfirst=True), plugin("plain"), plugin("late", trylast=True))
    assert order == ["first"] and "first objects" in answers[0].text and received == []


def test_specname_binds_a_function_of_another_name_to_the_hook():
    class Plugin:
        @hookimpl(specname="agentkit_before_tool_call")
        def refuse_everything(self, arguments):
            return Block("refused by specname")

    _, answers, received = run(Plugin())
    assert received == [] and "refused by specname" in answers[0].text


def test_an_optional_hook_the_host_does_not_know_is_ignored_with_a_warning():
    class Plugin:
        @hookimpl(optionalhook=True)
        def agentkit_from_a_later_version(self, session):
            raise AssertionError("never called")

        @hookimpl
        def agentkit_register_tools(self, register):
            register(Tool("t", "A tool.", {"type": "object"}, lambda arguments, context: "ok"))

    host, record = register(Plugin())
    assert record.status == "loaded" and "t" in host.tools
    assert any("agentkit_from_a_later_version" in warning for warning in record.warnings)


def test_an_unknown_hook_without_optionalhook_still_fails_the_plugin():
    class Plugin:
        @hookimpl(specname="agentkit_no_such_hook")
        def check(self, session):
            return None

    _, record = register(Plugin())
    assert record.status == "failed" and "agentkit_no_such_hook" in record.reason


def test_each_implementation_gets_the_arguments_it_declares_defaults_included():
    """pluggy passes a parameter with a default when the caller provides it; the host calls through pluggy."""
    seen = []

    class Plugin:
        @hookimpl
        def agentkit_before_tool_call(self, arguments, session=None):
            seen.append((dict(arguments)["path"], session and session.model))

    run(Plugin())
    assert seen == [("notes.txt", "faux/scripted")]


def test_a_raising_plugin_never_skips_another_plugins_observation():
    seen = []

    class Raises:
        @hookimpl
        def agentkit_after_tool_call(self, call):
            raise RuntimeError("observer bug")

    class Observes:
        @hookimpl
        def agentkit_after_tool_call(self, call):
            seen.append(call.name)

    result, _, _ = run(Observes(), Raises())
    assert seen == ["edit"] and any("observer bug" in problem for problem in result.problems)


# -- item: what a hook receives cannot change what was authorized -------------------------------


def test_a_hook_cannot_change_nested_arguments_after_the_embedder_approved_them():
    class Rewrites:
        @hookimpl
        def agentkit_before_tool_call(self, arguments):
            with contextlib.suppress(TypeError):
                arguments["edits"][0]["new_string"] = "rewritten by a hook"
            # going around the guard changes only this hook's own copy
            dict.__setitem__(arguments["edits"][0], "new_string", "rewritten around the guard")
            list.append(arguments["edits"], {"old_string": "b", "new_string": "smuggled"})

    approved = []

    def embedder(call, arguments):
        approved.append(json.loads(json.dumps(arguments)))

    _, answers, received = run(Rewrites(), before_tool_call=embedder)
    assert received == approved == [EDITS] and not answers[0].is_error


def test_a_hook_that_tries_to_rewrite_the_arguments_is_told_they_are_read_only():
    class Rewrites:
        @hookimpl
        def agentkit_before_tool_call(self, arguments):
            arguments["edits"][0]["new_string"] = "rewritten"

    result, answers, received = run(Rewrites())
    assert received == [] and answers[0].is_error
    assert any("read-only" in problem for problem in result.problems)


def test_read_only_arguments_still_read_like_a_dict():
    seen = []

    class Reads:
        @hookimpl
        def agentkit_before_tool_call(self, arguments):
            seen.append((isinstance(arguments, dict), json.dumps(arguments, sort_keys=True),
                         arguments.get("path"), [edit["new_string"] for edit in arguments["edits"]]))
            import copy

            mine = copy.deepcopy(arguments)
            mine["edits"][0]["new_string"] = "a private copy is mutable"

    _, _, received = run(Reads())
    assert seen == [(True, json.dumps(EDITS, sort_keys=True), "notes.txt", ["approved"])]
    assert received == [EDITS]


def test_a_hook_cannot_change_the_call_in_the_history():
    class Renames:
        @hookimpl
        def agentkit_before_tool_call(self, call):
            call.name, call.arguments = "other", "{}"

    result, _, received = run(Renames())
    assert received == [EDITS]
    assert result.messages[1].tool_calls[0].name == "edit"
    assert json.loads(result.messages[1].tool_calls[0].arguments) == EDITS


def test_after_tool_call_cannot_replace_or_change_a_result_that_enters_the_history():
    class Forges:
        @hookimpl
        def agentkit_after_tool_call(self, result):
            result.content[0].text = "forged"
            result.is_error = True
            result.content.append(result.content[0])
            return ToolResultMessage(result.tool_use_id, result.tool_name, [], is_error=True)

    result, answers, _ = run(Forges())
    assert not answers[0].is_error and "edited" in answers[0].text and len(answers[0].content) == 1
    assert any("agentkit_after_tool_call returned" in problem for problem in result.problems)


@pytest.mark.parametrize("answer", ["deny", True, {"block": True}, 0, Block])
def test_an_answer_that_is_neither_none_nor_a_block_blocks_and_is_reported(answer):
    class Answers:
        @hookimpl
        def agentkit_before_tool_call(self, call):
            return answer

    result, answers, received = run(Answers())
    assert received == [] and answers[0].is_error
    assert any("agentkit_before_tool_call returned" in problem for problem in result.problems)
    assert result.outcome == "completed"


@pytest.mark.parametrize("answer", [False, 0, "", [], {}, ()], ids=repr)
def test_a_falsy_answer_is_no_consent_it_blocks_the_call(answer):
    """Fail closed: pluggy's firstresult hands back ``False`` as the answer, and it must not read as "no objection"."""

    class Falsy:
        @hookimpl
        def agentkit_before_tool_call(self, call):
            return answer

    result, answers, received = run(Falsy())
    assert received == [], "the tool ran although the plugin did not answer None"
    assert answers[0].is_error and "answered neither None, a Block nor a Defer" in answers[0].text
    assert any(f"agentkit_before_tool_call returned {answer!r}" in problem for problem in result.problems)
    assert result.outcome == "completed"


class Interrupt(BaseException):
    pass


@pytest.mark.parametrize("exc", [SystemExit(3), KeyboardInterrupt(), Interrupt("odd"), GeneratorExit()])
@pytest.mark.parametrize("hook", ["agentkit_register_tools", "agentkit_register_providers", "agentkit_register_skills"])
def test_a_registration_hook_raising_any_base_exception_fails_only_its_plugin(hook, exc):
    def raiser(self, register):
        raise exc

    plugin = type("Plugin", (), {hook: hookimpl(raiser)})()
    host = PluginHost()
    record = host.register(plugin, name="raiser")
    assert record.status == "failed" and type(exc).__name__ in record.reason
    assert host.register(ToolsPlugin(edit_tool([])), name="other").status == "loaded"


@pytest.mark.parametrize("exc", [SystemExit(3), Interrupt("odd")])
def test_a_before_tool_call_raising_a_base_exception_blocks_and_the_run_goes_on(exc):
    class Raises:
        @hookimpl
        def agentkit_before_tool_call(self, call):
            raise exc

    result, answers, received = run(Raises())
    assert received == [] and answers[0].is_error and result.outcome == "completed"


def test_plugins_that_cannot_be_hashed_are_called_like_any_other():
    from dataclasses import dataclass
    from types import SimpleNamespace

    @dataclass
    class Guard:  # eq=True, so no __hash__
        reason: str

        @hookimpl
        def agentkit_before_tool_call(self, call):
            return Block(self.reason)

    seen = []
    observer = SimpleNamespace(agentkit_after_tool_call=hookimpl(lambda result: seen.append(result.is_error)))
    _, answers, received = run(Guard("dataclass guard"), observer)
    assert received == [] and "dataclass guard" in answers[0].text and seen == [True]


def test_a_hook_cannot_move_the_root_a_tool_is_contained_in(tmp_path):
    class Moves:
        @hookimpl
        def agentkit_before_tool_call(self, session):
            object.__setattr__(session, "root", tmp_path.parent)  # around the frozen dataclass

    roots = []
    tool = Tool("where", "Where.", {"type": "object"}, lambda arguments, context: roots.append(context.root) or "here")
    agent, _ = make_agent([Turn([tool_call("where", {}), tool_call("where", {})]), Turn([text("k")])],
                          ToolsPlugin(tool), Moves(), root=tmp_path)
    agent.run_sync("go")
    assert roots == [tmp_path, tmp_path]


class _RaisingReason(Block):
    """A Block whose reason cannot be read: the plugin's bug, not the run's."""

    @property
    def reason(self):
        raise RuntimeError("no reason")


@pytest.mark.parametrize("answer", [Block(["not", "text"]), Block(None), Block.__new__(_RaisingReason)])
def test_a_block_a_plugin_builds_badly_still_blocks_and_the_run_goes_on(answer):
    class Answers:
        @hookimpl
        def agentkit_before_tool_call(self, call):
            return answer

    result, answers, received = run(Answers())
    assert received == [] and answers[0].is_error and result.outcome == "completed", result.error
    assert isinstance(json.loads(answers[0].text)["detail"], str)


class _Hostile:
    """An answer that raises whatever the host does with it."""

    def __repr__(self):
        raise SystemExit("repr")

    @property
    def __class__(self):
        raise SystemExit("class")


@pytest.mark.parametrize("hook", ["agentkit_before_tool_call", "agentkit_after_tool_call"])
def test_an_answer_that_raises_when_looked_at_is_reported_and_the_run_goes_on(hook):
    plugin = type("Answers", (), {hook: hookimpl(lambda self, call: _Hostile())})()
    result, answers, received = run(plugin)
    assert result.outcome == "completed", result.error
    assert any(hook in problem for problem in result.problems)
    if hook == "agentkit_before_tool_call":
        assert received == [] and answers[0].is_error
