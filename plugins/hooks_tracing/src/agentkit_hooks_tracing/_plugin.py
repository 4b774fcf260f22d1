"""The hook: a run's events in, spans out."""

from __future__ import annotations

import os
from collections.abc import Callable

from opentelemetry import trace

from agentkit.plugin_api import Event, SessionInfo, hookimpl

from ._run import RunSpans

#: Set to ``1`` to record message content in span attributes (off by default: content may be private).
CONTENT_ENV = "AGENTKIT_TRACE_CONTENT"
#: The instrumentation scope of every span: the name the package had when spans were first exported,
#: kept so that what a tracing backend filters on does not change with the package's name.
SCOPE = "agentkit_tracing"


def _configured(provider: trace.TracerProvider) -> bool:
    """Whether spans go anywhere: the API's own proxy and no-op providers drop them all."""
    return not isinstance(provider, trace.ProxyTracerProvider | trace.NoOpTracerProvider)


class Tracing:
    """Records each run as OpenTelemetry spans.

    :param tracer_provider: where spans go; ``None`` reads the global provider
        at the start of each run (set by the application, or never: then the
        run is not traced, and the plugin does no work for it).
    :param record_content: record message content; ``None`` reads
        ``AGENTKIT_TRACE_CONTENT`` (``1`` turns it on) at the start of each run.
    """

    def __init__(self, tracer_provider: trace.TracerProvider | None = None, *,
                 record_content: bool | None = None) -> None:
        self._provider = tracer_provider
        self._record_content = record_content

    @hookimpl
    def agentkit_run_observer(self, session: SessionInfo) -> Callable[[Event], None] | None:
        """The spans of ``session``'s run, filled as its events arrive; ``None`` when spans would go nowhere."""
        provider = self._provider or trace.get_tracer_provider()
        if not _configured(provider):
            return None
        return RunSpans(provider.get_tracer(SCOPE), session, content=self._content()).on

    def _content(self) -> bool:
        if self._record_content is not None:
            return self._record_content
        return os.environ.get(CONTENT_ENV, "").strip() == "1"
