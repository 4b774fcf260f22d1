"""The hooks checks, driven through a real agent loop with the scripted provider."""

from __future__ import annotations

from agentkit.conformance._hooks import check_hooks
from agentkit.plugin_api import Block, Defer, hookimpl


def outcomes(host_with, plugin) -> dict[str, tuple[str, str]]:
    checks = check_hooks(host_with(plugin), "under_test")
    return {check.check: (check.outcome, f"{check.message} | {check.fix}") for check in checks}


def guardrail_outcomes(host_with, plugin) -> list[tuple[str, str | None, str]]:
    return [(check.check, check.subject, check.outcome) for check in check_hooks(host_with(plugin), "under_test")
            if check.check.startswith("guardrails.")]


class NoObjection:
    def __init__(self) -> None:
        self.seen = []

    @hookimpl
    def agentkit_before_tool_call(self, call, arguments):
        self.seen.append(arguments["value"])


def test_a_hook_that_says_nothing_passes_and_never_sees_the_blocked_call(host_with):
    plugin = NoObjection()
    found = outcomes(host_with, plugin)
    assert {name: outcome for name, (outcome, _) in found.items()} == {
        "hooks.narrow": "pass", "hooks.no-allow": "pass", "hooks.fail-closed": "pass"}
    assert "blocked" not in plugin.seen and "allowed" in plugin.seen


def test_a_hook_that_blocks_is_narrowing_and_passes(host_with):
    class Blocker:
        @hookimpl
        def agentkit_before_tool_call(self, call):
            return Block("never")

    assert {outcome for outcome, _ in outcomes(host_with, Blocker()).values()} == {"pass"}


def test_a_hook_that_defers_to_a_person_is_narrowing_and_passes(host_with):
    class Deferrer:
        @hookimpl
        def agentkit_before_tool_call(self, call):
            return Defer("a person looks at every probe call")

    found = outcomes(host_with, Deferrer())
    assert {name: outcome for name, (outcome, _) in found.items()} == {
        "hooks.narrow": "pass", "hooks.no-allow": "pass", "hooks.fail-closed": "pass"}
    assert "deferred the probe call to a person" in found["hooks.no-allow"][1]


def test_a_hook_that_answers_defer_as_text_still_fails(host_with):
    class TextDeferrer:
        @hookimpl
        def agentkit_before_tool_call(self, call):
            return "defer"

    outcome, text = outcomes(host_with, TextDeferrer())["hooks.no-allow"]
    assert outcome == "fail" and "returned 'defer'" in text and "Defer(reason)" in text


def test_a_hook_that_returns_allow_fails(host_with):
    class Allower:
        @hookimpl
        def agentkit_before_tool_call(self, call, arguments, session):
            return "allow"

    outcome, text = outcomes(host_with, Allower())["hooks.no-allow"]
    assert outcome == "fail" and "returned 'allow'" in text and "there is no allow" in text


def test_a_hook_that_rewrites_arguments_fails(host_with):
    class Rewriter:
        @hookimpl
        def agentkit_before_tool_call(self, arguments):
            arguments["value"] = "something else"

    outcome, text = outcomes(host_with, Rewriter())["hooks.no-allow"]
    assert outcome == "fail" and "tried to change the arguments" in text


def test_a_hook_that_raises_on_every_call_fails(host_with):
    class Raiser:
        @hookimpl
        def agentkit_after_tool_call(self, result):
            raise ValueError("oops")

    found = outcomes(host_with, Raiser())
    outcome, text = found["hooks.ordinary-run"]
    assert outcome == "fail" and "ValueError: oops" in text
    assert found["hooks.fail-closed"][0] == "skip"  # it has no before_tool_call to fail closed


class Guard:
    """Refuses nothing, or everything, or answers something that is no refusal."""

    def __init__(self, answer=None) -> None:
        self.answer, self.seen = answer, []

    @hookimpl
    def agentkit_input_guardrail(self, text):
        self.seen.append(("prompt", text))
        return self.answer

    @hookimpl
    def agentkit_output_guardrail(self, text):
        self.seen.append(("answer", text))
        return self.answer


INPUT, OUTPUT = "agentkit_input_guardrail", "agentkit_output_guardrail"


def test_a_guardrail_with_no_objection_passes_and_a_raising_one_is_seen_to_fail_closed(host_with):
    guard = Guard()
    assert guardrail_outcomes(host_with, guard) == [
        ("guardrails.narrow", INPUT, "pass"), ("guardrails.narrow", OUTPUT, "pass"),
        ("guardrails.fail-closed", INPUT, "pass"), ("guardrails.fail-closed", OUTPUT, "pass")]
    assert ("prompt", "conformance check") in guard.seen and ("answer", "done") in guard.seen
    assert outcomes(host_with, Guard())["hooks.narrow"][0] == "pass"


def test_a_guardrail_that_refuses_everything_is_narrowing_and_passes(host_with):
    assert guardrail_outcomes(host_with, Guard(Block("not today"))) == [
        ("guardrails.narrow", INPUT, "pass"), ("guardrails.narrow", OUTPUT, "skip"),
        ("guardrails.fail-closed", INPUT, "pass"), ("guardrails.fail-closed", OUTPUT, "skip")]
    narrow = next(check for check in check_hooks(host_with(Guard(Block("not today"))), "under_test")
                  if check.check == "guardrails.narrow")
    assert "refused the probe run's prompt (refusing is narrowing)" in narrow.message


def test_a_guardrail_that_answers_allow_fails(host_with):
    found = [check for check in check_hooks(host_with(Guard("allow")), "under_test") if check.check == "guardrails.narrow"]
    assert [check.outcome for check in found] == ["fail", "skip"]  # the refused prompt never got an answer
    assert "returned 'allow'" in found[0].message and "never allows" in found[0].fix
