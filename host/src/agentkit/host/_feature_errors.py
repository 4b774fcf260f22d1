"""The host's exceptions that only its sessions and its image, document and recording input raise.

They are :mod:`agentkit.host.errors`'s (its docstring draws the whole tree,
and each says so in ``__module__``): defined apart so that a run that keeps
no session and sends no image or file does not create them. Creating a class
costs about 0.14 M instructions; these six were 0.8 M of a first use
(``bench/_first_use.py`` under callgrind).
"""

from __future__ import annotations

from agentkit.plugin_api.errors import AgentkitError, UsageError

__all__ = [
    "FileInputError",
    "ImageError",
    "SessionConflict",
    "SessionError",
    "SessionLoadError",
    "SessionNotFound",
]


class SessionNotFound(UsageError):
    """No stored session has the id (or id prefix) asked for."""

    __module__ = "agentkit.host.errors"


class ImageError(UsageError):
    """An image could not be read, fetched or sent: not an image, too large to decode, outside
    the workspace, a URL the embedder does not allow fetching, or a model without vision."""

    __module__ = "agentkit.host.errors"


class FileInputError(UsageError):
    """A document or a recording could not be sent: a model without the capability, a file that
    cannot be read, lies about its type, is above the wire's cap, or a URL the wire does not take."""

    __module__ = "agentkit.host.errors"


class SessionError(AgentkitError):
    """A session log could not be read or written."""

    __module__ = "agentkit.host.errors"


class SessionLoadError(SessionError):
    """The bytes are not a session log: no readable header line. Damage after the header is repaired, never raised."""

    __module__ = "agentkit.host.errors"


class SessionConflict(SessionError):
    """An append expected another last entry: a second writer appended first (retry from the new last entry),
    or holds the session open for writing."""

    __module__ = "agentkit.host.errors"
