"""A tool call's value as its result: rendered as the envelope's JSON text, with images fit for the model.

A sync handler's value is rendered in the handler's own thread
(:func:`call_and_render`), so that data slow or impossible to serialize stays
inside the call's guard (:mod:`._guard`); an async handler's, on the loop.
Whatever cannot be written as JSON becomes an ``invalid_result`` error; an
image the host cannot decode is a note in its place, and one it may not take
(a path outside the workspace, a model without vision) an ``invalid_image``
error.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeGuard

from agentkit.plugin_api import ImageBlock, TextBlock, ToolResult
from agentkit.plugin_api._dataclass import dataclass

from . import errors
from ._guard import Escaped

if TYPE_CHECKING:
    from agentkit.plugin_api.results import SpooledResult

__all__ = [
    "LENGTH_NOT_EXECUTED",
    "AdmitImages",
    "Rendered",
    "Rendering",
    "as_result",
    "call_and_render",
    "call_inline",
    "render",
]


#: The answer to each call of a response cut by the output limit: none of them runs.
LENGTH_NOT_EXECUTED = (
    'Tool call "{name}" was not executed: the response hit the output token limit, '
    "so its arguments may be truncated. Re-issue the tool call with complete arguments."
)


#: What a result message is made of: the envelope's text, whether it is a success, its images.
Rendering = tuple[str, bool, list[TextBlock | ImageBlock]]
#: What makes a tool's images fit for the history (:func:`agentkit.host._images.admit`, bound to
#: the agent's model and workspace); raises :class:`~agentkit.host.errors.ImageError`.
AdmitImages = Callable[[list[ImageBlock]], list[TextBlock | ImageBlock]]


@dataclass(slots=True)
class Rendered:
    """A tool's result with its rendering for the model."""

    result: ToolResult
    rendered: Rendering


def render(result: ToolResult, admit_images: AdmitImages | None) -> Rendering:
    """The envelope as JSON text, whether it is a success, and its images."""
    try:
        text, ok = result.to_text(), bool(result.ok)
        if not isinstance(text, str):  # a ToolResult subclass: the history holds text only
            raise TypeError(f"ToolResult.to_text() returned {type(text).__name__}, not str")
        images: list[TextBlock | ImageBlock] = []
        if ok:
            images = list(_images(result))
        if images and admit_images is not None:
            images = admit_images(_images(result))
    except errors.ImageError as exc:  # the model sees why, and may name another file; read (and made) on a failure
        text, ok, images = ToolResult.failure("invalid_image", str(exc)).to_text(), False, []
    except BaseException as exc:  # circular data, non-string keys, a hostile __str__, a bad image...
        fallback = ToolResult.failure(
            "invalid_result", f"The tool returned data that cannot be written as JSON ({_describe(exc)})."
        )
        text, ok, images = fallback.to_text(), False, []
    return text, ok, images


def call_inline(handler: Callable[..., Any], *args: Any) -> Any:
    """Call ``handler`` here, on the loop's thread; what it raises is handled as a thread's would be."""
    try:
        return handler(*args)
    except Exception:
        raise
    except BaseException as exc:  # SystemExit, KeyboardInterrupt...: that call's error, not the loop's end
        raise Escaped(exc) from exc


def as_result(value: Any) -> ToolResult:
    return value if isinstance(value, ToolResult) else ToolResult.success(value)


def spooled(result: ToolResult) -> TypeGuard[SpooledResult]:
    """Whether ``result`` is a ``SpooledResult`` holding its text. Asked of a ``ToolResult`` subclass only: its
    module is loaded by the tool that made one, and a run whose tools return none never loads it."""
    from agentkit.plugin_api._spool import SpooledResult as Spooled

    return isinstance(result, Spooled) and result.spool is not None


#: What handlers return most, by exact type: none is awaitable, so ``inspect.isawaitable`` (an ABC check) is not
#: asked of them (a subclass could define ``__await__``, so it is asked of those).
_NEVER_AWAITABLE = frozenset({str, int, float, bool, type(None), dict, list, tuple, bytes, ToolResult})


def call_and_render(handler: Callable[..., Any], render: Callable[[ToolResult], Rendering], *args: Any) -> Any:
    value = handler(*args)
    if type(value) not in _NEVER_AWAITABLE and inspect.isawaitable(value):
        return value  # a sync function handing back a coroutine: awaited on the loop
    result = as_result(value)
    return Rendered(result, render(result))


def _describe(exc: BaseException) -> str:
    try:
        return f"{type(exc).__name__}: {exc}"
    except BaseException:  # an exception whose own text fails
        return type(exc).__name__


def _images(result: ToolResult) -> list[ImageBlock]:
    """The result's images; anything else there would enter the history and fail every later request."""
    images = result.images
    if not isinstance(images, (list, tuple)):
        raise TypeError(f"ToolResult.images must be a list of ImageBlock, not {type(images).__name__}")
    for image in images:
        if not (isinstance(image, ImageBlock) and isinstance(image.data, str) and isinstance(image.mime_type, str)):
            raise TypeError("ToolResult.images must hold ImageBlock(data: str, mime_type: str) only")
    return list(images)
