"""OpenTelemetry spans for agentkit runs, in the GenAI semantic conventions.

Installed, this plugin gives every run an ``invoke_agent`` span, and inside it
a ``chat`` span per model request and an ``execute_tool`` span per tool call,
sent to the tracer provider the application configured
(``opentelemetry.trace.set_tracer_provider``). Without one it does nothing.
Message content (prompts, responses, tool arguments and results) is recorded
only when ``AGENTKIT_TRACE_CONTENT=1`` is set, or ``Tracing(record_content=True)``.
"""

from __future__ import annotations

from ._plugin import CONTENT_ENV, Tracing

#: The instance the ``agentkit.hooks`` entry point loads: the global tracer provider, content per the environment.
plugin = Tracing()

__all__ = ["CONTENT_ENV", "Tracing", "plugin"]
