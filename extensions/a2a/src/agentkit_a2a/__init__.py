"""An agent served over A2A (Agent2Agent), on the official ``a2a-sdk``: ``agentkit a2a serve``.

See ``docs/a2a.md``. Embedders serve their own agent factory with :func:`serve`
(or mount :func:`a2a_app`); the card is :func:`agent_card`.
"""

from __future__ import annotations

from ._card import agent_card
from ._contexts import CONTEXT_ENTRY, TASK_ENTRY, ContextRefused, Contexts
from ._executor import RunExecutor
from ._serve import Served, a2a_app, serve
from ._tasks import TASK_FINAL_ENTRY, SessionTaskStore

__all__ = ["CONTEXT_ENTRY", "TASK_ENTRY", "TASK_FINAL_ENTRY", "ContextRefused", "Contexts", "RunExecutor", "Served",
           "SessionTaskStore", "a2a_app", "agent_card", "serve"]
