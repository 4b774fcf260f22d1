"""The one result envelope: every handler returns a ToolResult, whatever goes wrong.

Handlers raise :class:`ToolError` for failures the model can act on; the
wrapper turns those, and operating-system errors, into ``ToolResult.failure``
so a tool never returns a bare exception or a differently shaped value.

Where the platform cannot open paths relative to directory descriptors
without following links (see :mod:`agentkit.plugin_api.workspace`), every result says so in its
metadata: ``containment="best-effort"``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from agentkit.plugin_api import ToolContext, ToolError, ToolResult
from agentkit.plugin_api.workspace import descriptors_available

__all__ = ["enveloped"]

Handler = Callable[[dict[str, Any], ToolContext], ToolResult]


def enveloped(handler: Handler) -> Handler:
    """Wrap a handler so that it always returns a :class:`ToolResult`."""

    @functools.wraps(handler)
    def call(arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        result = _call(arguments, context)
        if not descriptors_available():
            result.metadata["containment"] = "best-effort"
        return result

    def _call(arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        try:
            return handler(arguments, context)
        except ToolError as exc:
            return ToolResult.failure(exc.error, exc.detail)
        except FileNotFoundError as exc:
            return ToolResult.failure("not_found", f"{exc.filename or 'the path'} does not exist.")
        except IsADirectoryError as exc:
            return ToolResult.failure(
                "is_a_directory", f"{exc.filename} is a directory; use list_files to see inside it."
            )
        except PermissionError as exc:
            return ToolResult.failure("permission_denied", f"{exc.filename}: permission denied.")
        except OSError as exc:
            return ToolResult.failure("io_error", f"{exc.filename or ''}: {exc.strerror or exc}")

    return call
