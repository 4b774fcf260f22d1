"""``Retry``: how a tool or an output validator sends the model back to try again."""

from __future__ import annotations


class Retry(Exception):  # named for what it asks, as pydantic-ai's ModelRetry
    """Raise to send ``reason`` back to the model and ask it to try again.

    From a tool's handler (sync or async): the call's result is an error
    carrying ``reason`` that asks the model to call the tool again with better
    arguments. A tool may ask this ``Tool.max_retries`` turns in a row (default
    1); past that, the call's result is an error saying the retries are spent.

    From an output validator (``AgentConfig.output_validators``): the final
    answer is refused, ``reason`` goes back to the model, and it answers again,
    at most ``AgentConfig.output_retries`` times in a run (default 1); past
    that, the run ends with outcome ``error`` naming the reason.

    Each retry is an ``retry_requested`` event and a ``retry`` entry in the
    session log.

    :param reason: what was wrong, written for the model.

    .. versionadded:: 0.2
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
