"""Messages queued for a running agent: steering and follow-ups.

* **Steering** (``agent.steer(msg)``) changes the course of the run in
  progress: a queued message is added at the head of the next turn, just
  before its request, so it never lands between a response and its tool
  results. Pending steering keeps the run going when the model has just
  answered without tool calls.
* **Follow-ups** (``agent.follow_up(msg)``) wait until the run would end:
  when the model answers without tool calls and no steering is pending, the
  next follow-up is added and the run goes on, within the same run (one
  ``agent_start``, one ``agent_end``, one result).

Each point takes one message (the next in order); the others wait for the
next point. Both queues may be filled from any thread or task, during a run
or between runs (a message queued between runs is taken by the next one).
"""

from __future__ import annotations

from collections import deque

from agentkit.plugin_api import Message

__all__ = ["MessageQueues"]


class MessageQueues:
    """The steering and follow-up queues of one agent; appends and takes are atomic (``deque``)."""

    def __init__(self) -> None:
        self.steering: deque[Message] = deque()
        self.follow_ups: deque[Message] = deque()

    def take_steering(self) -> Message | None:
        """The next steering message, or ``None``."""
        try:
            return self.steering.popleft()
        except IndexError:
            return None

    def take_follow_up(self) -> Message | None:
        """The next follow-up, or ``None``."""
        try:
            return self.follow_ups.popleft()
        except IndexError:
            return None

    def clear(self) -> list[Message]:
        """Empty both queues; the messages dropped, steering first."""
        dropped: list[Message] = []
        for queue in (self.steering, self.follow_ups):
            while queue:
                try:
                    dropped.append(queue.popleft())
                except IndexError:  # another thread took the last one
                    break
        return dropped

    def __bool__(self) -> bool:
        return bool(self.steering) or bool(self.follow_ups)
