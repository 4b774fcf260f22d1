"""What a first agent loads: building one with a plain-schema tool and sending its first request.

Each check runs in a fresh interpreter and reads ``sys.modules`` at the end,
so what is asserted is what a user's process loaded. jsonschema (and what it
stands on) is the largest library the loop could load; a plain schema never
needs it, so it loads only when a schema or an argument does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

#: jsonschema and the libraries only it brings.
SCHEMA_LIBRARIES = ("jsonschema", "jsonschema_specifications", "referencing", "rpds")

FIRST_USE = """
import json, sys
from agentkit.host import Agent, AgentConfig, Connection, PluginHost, Trust, allow_all
from agentkit.plugin_api import Tool, ToolResultMessage, hookimpl
from agentkit.testing import Script, Turn, text, tool_call

def count(n: int, label: str = "") -> int:
    '''Return n.'''
    return n

class Tools:
    @hookimpl
    def agentkit_register_tools(self, register):
        register(Tool.from_function(count))

ARGUMENTS = json.loads(sys.argv[1])
SCAN = sys.argv[2] == "scan"
script = Script([Turn([tool_call("count", arguments) for arguments in ARGUMENTS]), Turn([text("done")])])
host = PluginHost()
if SCAN:
    host.load_entry_points()
else:
    from agentkit_provider_faux import FauxProvider

    class Faux:
        @hookimpl
        def agentkit_register_providers(self, register):
            register(FauxProvider())

    host.register(Faux(), name="faux")
host.register(Tools(), name="tools")
agent = Agent(AgentConfig(model="faux/scripted", tools=["count"], trust=Trust(before_tool_call=allow_all),
                          connection=Connection(transport=script)), host=host)
built = sorted(sys.modules)
result = agent.run_sync("go")
print(json.dumps({"built": built, "ran": sorted(sys.modules), "outcome": result.outcome,
                  "results": [m.text for m in result.messages if isinstance(m, ToolResultMessage)]}))
"""


#: What an agent without a session, skills, subagents or plugin discovery never needs: the session
#: store and its loader, the skill checks (with packaging and tomllib), the entry-point scan,
#: delegation, the workspace's ignore engine, globs and opening beneath a root (for a trusted
#: project's context files and skill folders), xml.sax (prompt text is escaped without it), and
#: structured output (an output type).
NOT_AT_FIRST_USE = (
    "agentkit.host.sessions._store", "agentkit.host.sessions._session", "agentkit.host.sessions._loader",
    "agentkit.host.sessions._tree", "agentkit.host.sessions._recorder", "agentkit.host.sessions._selection",
    "agentkit.host.skills._check", "agentkit.host.skills._manifest", "packaging", "tomllib",
    "agentkit.host._entry_points", "agentkit.host._delegation",
    "agentkit.plugin_api.workspace._ignore", "agentkit.plugin_api.workspace._glob",
    "agentkit.plugin_api.workspace._beneath", "xml",
    "agentkit.host._structured", "agentkit.host._output_type", "agentkit.host._partial_json",
)


def _first_use(arguments: list[dict], plugins: str = "scan", home: str | None = None) -> dict:
    """Run the first use in a fresh interpreter; ``plugins`` is ``scan`` (every installed plugin, from
    metadata) or ``given`` (the host is handed the scripted provider and the tool); ``home``: HOME for it
    (where the user's skills are looked for)."""
    return _fresh(FIRST_USE, json.dumps(arguments), plugins, env={} if home is None else {"HOME": home})


def _fresh(code: str, *args: str, env: dict[str, str]) -> Any:
    """Run ``code`` in a fresh interpreter with ``env`` over this one's; what its last line of output says (JSON)."""
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300,
                         stdin=subprocess.DEVNULL, env={**os.environ, **env})
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def _loaded(modules: list[str], prefixes: tuple[str, ...]) -> set[str]:
    return {name for name in modules if any(name == p or name.startswith(p + ".") for p in prefixes)}


def test_a_plain_schema_tool_and_its_valid_calls_never_load_jsonschema():
    seen = _first_use([{"n": 1}, {"n": 2, "label": "x"}])
    assert seen["outcome"] == "completed" and len(seen["results"]) == 2
    assert _loaded(seen["built"], SCHEMA_LIBRARIES) == set()
    assert _loaded(seen["ran"], SCHEMA_LIBRARIES) == set()


def test_arguments_the_quick_check_cannot_vouch_for_load_jsonschema_and_get_its_errors():
    seen = _first_use([{"n": "three"}])
    assert "jsonschema" in seen["ran"]
    assert "'three' is not of type 'integer'" in seen["results"][0]


def test_a_host_given_its_plugins_reads_no_distribution_metadata():
    """The metadata scan (the importlib_metadata backport) and requirement checks are for plugins found
    through their distributions; the ``User-Agent``'s version is read from the host's own metadata files
    without importing ``importlib.metadata``."""
    seen = _first_use([{"n": 1}], plugins="given")
    assert seen["outcome"] == "completed"
    assert _loaded(seen["ran"], ("importlib_metadata", "importlib.metadata", *SCHEMA_LIBRARIES)) == set()


def test_a_first_run_without_a_session_or_skills_loads_neither_their_modules_nor_plugin_discovery(tmp_path):
    seen = _first_use([{"n": 1}], plugins="given", home=str(tmp_path))
    assert seen["outcome"] == "completed" and len(seen["results"]) == 1
    assert _loaded(seen["ran"], NOT_AT_FIRST_USE) == set()


def test_a_user_skill_folder_loads_the_skill_checks(tmp_path):
    """The other side of the one above: the checks load when a skill is there to check."""
    folder = tmp_path / ".agentkit" / "skills" / "greet"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: greet\ndescription: Say hello.\n---\nSay hello.\n")
    seen = _first_use([{"n": 1}], plugins="given", home=str(tmp_path))
    assert seen["outcome"] == "completed"
    assert {"agentkit.host.skills._check", "agentkit.host.skills._manifest"} <= set(seen["ran"])


#: What a run whose tool results all fit, with no image, file or stream, never needs: the artifact store
#: (made with the first result over ``max_tool_result_chars``), the spool (a tool that spools imports it),
#: the results kit and the workspace helpers under it; the admission of images, documents and recordings
#: (a message that carries one loads it); the SSE and NDJSON decoders (a response in JSON needs neither); the
#: run's own events (a run nobody listens to builds none); the strict JSON decoder's search for where a
#: duplicate key repeats and its parser for a caller out of stack (a valid text needs neither); the read-only
#: views of a call's arguments (a plugin's ``before_tool_call`` reads them; a run whose plugins have none never
#: builds one); the errors of sessions and of image, document and recording input; the provider's conformance
#: responder (the conformance suite reads it); the flat keywords of 0.1 (a configuration written in groups
#: needs no move into them, and its flat reads are made with it).
NOT_IN_A_PLAIN_RUN = (
    "agentkit.host.sessions._artifacts", "agentkit.host.sessions._artifact_owners", "agentkit.host._spooled_results",
    "agentkit.plugin_api.results", "agentkit.plugin_api._spool", "agentkit.plugin_api.workspace",
    "agentkit.host._images", "agentkit.host._media", "agentkit.host.wire.sse", "agentkit.host.wire.ndjson",
    "agentkit.plugin_api._run_events", "agentkit.host.wire._duplicates", "agentkit.host.wire._iterative",
    "agentkit.host._readonly", "agentkit.host._feature_errors", "agentkit_provider_openai._conformance",
    "agentkit.host._config_flat",
)


#: A first use as ``bench/_first_use.py`` makes it: the OpenAI provider, answered in JSON.
JSON_FIRST_USE = r"""
import json, sys
import httpx
from agentkit_provider_openai import OpenAICompletions
from agentkit.host import Agent, AgentConfig, Connection, PluginHost, Trust, allow_all
from agentkit.plugin_api import Tool, hookimpl

REPLY = {"id": "c1", "object": "chat.completion", "model": "gpt-4.1",
         "usage": {"prompt_tokens": 9, "completion_tokens": 1}}
CALL = {"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": None, "tool_calls": [
    {"id": "call_1", "type": "function", "function": {"name": "count", "arguments": json.dumps({"n": 1})}}]}}
DONE = {"index": 0, "message": {"role": "assistant", "content": "done"}, "finish_reason": "stop"}
answers = iter([CALL, DONE])

def count(n: int, label: str = "") -> int:
    "Return n."
    return n

class Plugins:
    @hookimpl
    def agentkit_register_tools(self, register):
        register(Tool.from_function(count))

    @hookimpl
    def agentkit_register_providers(self, register):
        register(OpenAICompletions())

transport = httpx.MockTransport(lambda request: httpx.Response(200, json={**REPLY, "choices": [next(answers)]}))
host = PluginHost()
host.register(Plugins(), name="plugins")
agent = Agent(AgentConfig(model="openai/gpt-4.1", tools=["count"], trust=Trust(before_tool_call=allow_all),
                          connection=Connection(transport=transport)), host=host)
result = agent.run_sync("go")
print(json.dumps({"ran": sorted(sys.modules), "outcome": result.outcome, "error": result.error,
                  "texts": [m.text for m in result.messages[1:]]}))
"""


def test_a_plain_run_answered_in_json_loads_no_artifact_store_spool_image_or_stream_decoder(tmp_path):
    seen = _fresh(JSON_FIRST_USE, env={"HOME": str(tmp_path), "OPENAI_API_KEY": "sk-test-not-a-real-key"})
    assert seen["outcome"] == "completed", seen["error"]
    assert seen["texts"][-1] == "done"
    assert '{"ok": true, "data": 1}' in seen["texts"]  # the tool ran, its result within the limit
    assert _loaded(seen["ran"], NOT_IN_A_PLAIN_RUN) == set()


#: Standard modules a first run does without, for what each costs to import: ``uuid`` (and
#: ``platform``, which it imports to learn the system) for a session's and a run's ids.
NOT_NEEDED_FROM_THE_STANDARD_LIBRARY = ("uuid", "platform")


def test_a_plain_run_needs_none_of_the_standard_modules_it_does_without(tmp_path):
    # Each is made unimportable (``None`` in ``sys.modules``), so a run that imports one fails here
    # whether or not another library (httpx's command line, where click is installed) loaded it first.
    block = f"import sys\nfor name in {NOT_NEEDED_FROM_THE_STANDARD_LIBRARY!r}: sys.modules[name] = None\n"
    seen = _fresh(block + JSON_FIRST_USE, env={"HOME": str(tmp_path), "OPENAI_API_KEY": "sk-test-not-a-real-key"})
    assert seen["outcome"] == "completed", seen["error"]
    assert seen["texts"][-1] == "done"


LONG_RESULT = """
import json, sys
from agentkit.host import Agent, AgentConfig, Connection, Limits, PluginHost, Trust, allow_all
from agentkit.host.sessions import ArtifactStore
from agentkit.plugin_api import ArtifactCreated, Tool, hookimpl
from agentkit_provider_faux import FauxProvider
from agentkit.testing import Script, Turn, text, tool_call

class Plugins:
    @hookimpl
    def agentkit_register_providers(self, register):
        register(FauxProvider())

    @hookimpl
    def agentkit_register_tools(self, register):
        register(Tool("dump", "Dump.", {"type": "object"}, lambda arguments, context: "x" * 5000))

host = PluginHost()
host.register(Plugins(), name="plugins")
script = Script([Turn([tool_call("dump", {})]), Turn([text("done")])])
agent = Agent(AgentConfig(model="faux/scripted", tools=["dump"], limits=Limits(max_tool_result_chars=1000),
                          trust=Trust(before_tool_call=allow_all), connection=Connection(transport=script)), host=host)
created = []
agent.subscribe(lambda event: created.append(event.artifact_id) if isinstance(event, ArtifactCreated) else None)
result = agent.run_sync("go")
print(json.dumps({"outcome": result.outcome, "owner": agent.session_id, "created": created,
                  "stored": [item.id for item in ArtifactStore().list(agent.session_id)]}))
"""


def test_a_result_over_the_limit_in_a_fresh_process_is_stored_and_goes_with_the_process(tmp_path):
    """The other side of the one above: the store is made with the first artifact, and an agent
    without a session still removes its artifacts when the process ends."""
    seen = _fresh(LONG_RESULT, env={"AGENTKIT_DATA_DIR": str(tmp_path / "data")})
    assert seen["outcome"] == "completed"
    assert len(seen["created"]) == 1 and seen["stored"] == seen["created"]
    assert not (tmp_path / "data" / "artifacts" / seen["owner"]).exists()


def test_a_provider_plugin_loads_no_run_event():
    """A provider's stream makes only the provider events (message_start ... message_end); the run's own
    (agent_start, turn_end, tool_call_start ...) load when a run first builds one for a listener."""
    code = ("import json, sys\n"
            "from agentkit_provider_openai import OpenAICompletions, profile_for\n"
            "provider = OpenAICompletions()\n"
            "profiles = [profile_for(row).name for row in provider.catalog()]\n"
            "print(json.dumps(sorted(sys.modules)))")
    loaded = set(_fresh(code, env={}))
    assert "agentkit.plugin_api._events" in loaded
    assert _loaded(sorted(loaded), ("agentkit.plugin_api._run_events", "agentkit.plugin_api.results")) == set()


#: What a plain run only asks about, each feature loaded where it is first needed: the audit trail (with
#: the session entries' encoder), compaction, guardrails and output validators, context files (with the
#: escaping of prompt text), the skill tiers, their block and their wiring to the tools, the answers to
#: a killed process's calls, the budget, and the rules that resolve a model the catalog does not list.
FEATURES_NOT_AT_FIRST_USE = (
    "agentkit.host._models", "agentkit.host._audit", "agentkit.host.sessions._entries", "agentkit.host._compaction",
    "agentkit.host._guardrails", "agentkit.host._refusals", "agentkit.host._context_files", "agentkit.host._escape",
    "agentkit.host.skills._tiers", "agentkit.host.skills._block", "agentkit.host._skill_wiring",
    "agentkit.host.sessions._interrupted", "agentkit.host._budget",
)


def test_a_plain_run_loads_no_features_module(tmp_path):
    seen = _first_use([{"n": 1}], plugins="given", home=str(tmp_path))
    assert seen["outcome"] == "completed" and len(seen["results"]) == 1
    assert _loaded(seen["ran"], FEATURES_NOT_AT_FIRST_USE) == set()


#: One feature turned on, in a fresh interpreter: what the run shows of it, and what it loaded. ``argv[1]``
#: names the feature; the model calls ``count`` once, then answers ``done`` (twice for a refused answer).
FEATURE_ON = """
import json, pathlib, sys
from agentkit.host import Agent, AgentConfig, Budget, Compaction, Connection, Limits, PluginHost, Trust, allow_all
from agentkit.plugin_api import Retry, Tool, hookimpl
from agentkit.testing import Script, Turn, text, tool_call
from agentkit_provider_faux import FauxProvider

def count(n: int) -> int:
    '''Return n.'''
    return n

class Plugins:
    @hookimpl
    def agentkit_register_tools(self, register):
        register(Tool.from_function(count))

    @hookimpl
    def agentkit_register_providers(self, register):
        register(FauxProvider())

FEATURE = sys.argv[1]
records, checked = [], []

def validator(output):
    checked.append(output)
    if len(checked) == 1:
        raise Retry("say it again")

options = {
    "audit": dict(audit=records.append),
    "compaction": dict(compaction=Compaction.turn_window(1)),
    "validators": dict(output_validators=[validator]),
    "budget": dict(limits=Limits(budget=Budget(turns=1))),
}.get(FEATURE, {})
if FEATURE == "context_files":
    (pathlib.Path(sys.argv[2]) / ".agentkit").mkdir()
    (pathlib.Path(sys.argv[2]) / ".agentkit" / "AGENTS.md").write_text("Answer in French.")
script = Script([Turn([tool_call("count", {"n": 1})]), Turn([text("done")]), Turn([text("done again")])])
host = PluginHost()
host.register(Plugins(), name="plugins")
agent = Agent(AgentConfig(model="faux/scripted", tools=["count"], trust=Trust(before_tool_call=allow_all),
                          connection=Connection(transport=script), **options), host=host)
result = agent.run_sync("go")
print(json.dumps({"outcome": result.outcome.value, "stopped_by": result.stopped_by, "text": result.text,
                  "records": [record.kind for record in records], "checked": checked,
                  "prompt": agent.system_prompt(), "ran": sorted(sys.modules)}))
"""


def _feature_on(feature: str, home: str) -> dict:
    return _fresh(FEATURE_ON, feature, home, env={"HOME": home})


def test_an_audit_sink_loads_the_trail_and_gets_every_record(tmp_path):
    seen = _feature_on("audit", str(tmp_path))
    assert seen["records"] == ["session_start", "tool_call", "session_end"]
    assert {"agentkit.host._audit", "agentkit.host.sessions._entries"} <= set(seen["ran"])


def test_a_compaction_strategy_loads_compaction_and_the_run_completes(tmp_path):
    seen = _feature_on("compaction", str(tmp_path))
    assert seen["outcome"] == "completed" and seen["text"] == "done"
    assert "agentkit.host._compaction" in seen["ran"]


def test_an_output_validator_loads_the_checks_and_its_refusal_is_answered_again(tmp_path):
    seen = _feature_on("validators", str(tmp_path))
    assert seen["checked"] == ["done", "done again"] and seen["text"] == "done again"
    assert {"agentkit.host._guardrails", "agentkit.host._refusals"} <= set(seen["ran"])


def test_a_budget_loads_the_budget_and_stops_the_run(tmp_path):
    seen = _feature_on("budget", str(tmp_path))
    assert (seen["outcome"], seen["stopped_by"]) == ("stop_policy", "budget")
    assert "agentkit.host._budget" in seen["ran"]


def test_a_users_context_file_loads_the_reader_and_reaches_the_prompt(tmp_path):
    seen = _feature_on("context_files", str(tmp_path))
    assert "Answer in French." in seen["prompt"]
    assert {"agentkit.host._context_files", "agentkit.host._escape"} <= set(seen["ran"])


#: The tool batch: what runs, authorizes, validates and answers a response's tool calls, and the guard
#: its handlers (and the plugins' hooks, and the stop policies after it) are called under.
BATCH = ("agentkit.host._batch", "agentkit.host._batch_inputs", "agentkit.host._thread_batch",
         "agentkit.host._approvals", "agentkit.host._arguments", "agentkit.host._tool_results",
         "agentkit.host._tool_retries", "agentkit.host._steps", "agentkit.host._guard")


def test_a_run_whose_model_calls_no_tool_loads_no_tool_batch(tmp_path):
    seen = _first_use([], plugins="given", home=str(tmp_path))
    assert seen["outcome"] == "completed" and seen["results"] == []
    assert _loaded(seen["ran"], BATCH) == set()


def test_the_first_tool_call_loads_the_batch_and_is_answered(tmp_path):
    seen = _first_use([{"n": 1}, {"n": 2}], plugins="given", home=str(tmp_path))
    assert seen["outcome"] == "completed" and len(seen["results"]) == 2
    assert set(BATCH) <= set(seen["ran"])
