"""What a :class:`~._batch.ToolBatch` is built from, in two named groups.

The batch is built once per run (and once per call by the public
``ToolCaller``), from three kinds of input:

* the run's own handles, passed one by one: the tools, the session, the
  cancellation token and stop, and where events go;
* :class:`CallPolicy`: what every call is held to (who authorizes it, its
  deadlines, how long its result may be, its options), plain values with the
  host's defaults, like ``httpx.Timeout``;
* :class:`BatchServices`: the collaborators the batch calls on (hooks,
  argument validators, image admission, artifact storage, the audit trail),
  so that a caller passes only the ones it has.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from types import MappingProxyType
from typing import Any

from agentkit.plugin_api import Tool
from agentkit.plugin_api._dataclass import dataclass

from ._arguments import ArgumentValidator
from ._artifact_results import ArtifactKeeper
from ._config import (
    DEFAULT_HOOK_TIMEOUT,
    DEFAULT_MAX_TOOL_RESULT_CHARS,
    DEFAULT_TOOL_TIMEOUT,
    BeforeToolCall,
)
from ._hooks import HookRunner
from ._tool_results import AdmitImages
from ._tool_retries import ToolRetries


@dataclass(frozen=True, slots=True)
class CallPolicy:
    """What every call of a batch is held to; the defaults are the host's.

    :param before_tool_call: the embedder's authorization of each call;
        ``None``: every call is allowed (the plugins' hooks may still block).
    :param tool_options: each tool's options by tool name, its
        ``ToolContext.options``.
    :param tool_timeout: seconds a call may run, unless its tool sets
        ``Tool.timeout``; ``None``: no deadline.
    :param hook_timeout: seconds a hook or the embedder's ``before_tool_call``
        may take; past it, the call is blocked (or, after the call, the hook is
        reported).
    :param max_result_chars: the longest result text; longer ones are
        stored as artifacts by :attr:`BatchServices.artifacts` (the model gets
        a preview), or, without it or when it cannot write, cut with a note
        saying how much was cut.
    """

    before_tool_call: BeforeToolCall | None = None
    tool_options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    tool_timeout: float | None = DEFAULT_TOOL_TIMEOUT
    hook_timeout: float | None = DEFAULT_HOOK_TIMEOUT
    max_result_chars: int | None = DEFAULT_MAX_TOOL_RESULT_CHARS


@dataclass(frozen=True, slots=True)
class BatchServices:
    """The collaborators a batch calls on; only ``hooks`` is required.

    :param hooks: runs the plugins' tool-call hooks and collects their problems.
    :param hook_callers: the host's ``hook_callers(name)``; when given, a hook no
        plugin implements is not called at all (no thread is started for it).
    :param validators: the argument validators by tool name, kept by the
        caller so that each tool's schema is compiled once for all its batches.
    :param admit_images: normalizes a successful result's images for the model;
        an image it cannot decode is a note in its place, any other it refuses
        turns the result into an ``invalid_image`` error.
    :param add_tools: the ``ToolContext.add_tools`` handlers get; ``None``: they
        cannot add tools.
    :param artifacts: keeps the results over ``CallPolicy.max_result_chars``.
    :param audit_for: ``audit_for(tool name, call id)`` is the call's
        ``ToolContext.audit``; without it, handlers get ``None``.
    :param retries: counts the turns in a row each tool raised ``Retry``
        (:mod:`._tool_retries`); by default the batch's own count.
    """

    hooks: HookRunner
    hook_callers: Callable[[str], Sequence[Any]] | None = None
    validators: dict[str, tuple[Tool, ArgumentValidator]] = field(default_factory=dict)
    admit_images: AdmitImages | None = None
    add_tools: Callable[..., None] | None = None
    artifacts: ArtifactKeeper | None = None
    audit_for: Callable[[str, str], Callable[..., None]] | None = None
    retries: ToolRetries = field(default_factory=ToolRetries)
