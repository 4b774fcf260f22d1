"""Sessions: an agent's history as an append-only log that survives the process.

See ``docs/sessions.md``. A :class:`Session` lives in a :class:`SessionStore`
(the default, :class:`JsonlSessionStore`, keeps one JSON Lines file per
session in the data directory); give it to an :class:`~agentkit.host.Agent`
and each run is written as it happens.
"""

from __future__ import annotations

from agentkit.plugin_api._lazy import lazy_exports

# The names below load on first use (PEP 562): the host imports single modules of this package
# (an agent without a store needs none of the store, the loader or the tree), and importing one
# runs this file first. The flag is spelled out, as type checkers honour it and typing costs more
# than this package.
TYPE_CHECKING = False
if TYPE_CHECKING:
    # `import X as X` marks each name as re-exported (PEP 484), for type checkers.
    # isort: off
    from ._artifacts import (
        ARTIFACT_PREFIX as ARTIFACT_PREFIX,
        ArtifactInfo as ArtifactInfo,
        ArtifactNotFound as ArtifactNotFound,
        ArtifactOwner as ArtifactOwner,
        ArtifactStore as ArtifactStore,
        is_artifact_id as is_artifact_id,
    )
    from ._entries import (
        BRANCH_SUMMARY as BRANCH_SUMMARY,
        COMPACTION as COMPACTION,
        CUSTOM as CUSTOM,
        ENTRY_TYPES as ENTRY_TYPES,
        MESSAGE as MESSAGE,
        MODEL_CHANGE as MODEL_CHANGE,
        SESSION_VERSION as SESSION_VERSION,
        THINKING_LEVEL_CHANGE as THINKING_LEVEL_CHANGE,
        Entry as Entry,
        SessionHeader as SessionHeader,
    )
    from ._interrupted import INTERRUPTED_RESULT as INTERRUPTED_RESULT, interrupted_results as interrupted_results
    from ._loader import MAX_LINE_BYTES as MAX_LINE_BYTES, LoadedLog as LoadedLog, parse_log as parse_log
    from ._paths import DATA_DIR_ENV as DATA_DIR_ENV, data_dir as data_dir
    from ._selection import STORE_ENV as STORE_ENV, open_store as open_store, without_password as without_password
    from ._session import Session as Session, find_session as find_session
    from ._store import (
        Durability as Durability,
        JsonlSessionStore as JsonlSessionStore,
        SessionListing as SessionListing,
        SessionStore as SessionStore,
    )
    from ._tree import (
        BRANCH_SUMMARY_PREFIX as BRANCH_SUMMARY_PREFIX,
        BRANCH_SUMMARY_SUFFIX as BRANCH_SUMMARY_SUFFIX,
        Resume as Resume,
    )
    # isort: on

#: Each public name with the module that defines it: the one list __all__ is made from.
_EXPORTS = {
    "ARTIFACT_PREFIX": "._artifacts",
    "ArtifactInfo": "._artifacts",
    "ArtifactNotFound": "._artifacts",
    "ArtifactOwner": "._artifacts",
    "ArtifactStore": "._artifacts",
    "is_artifact_id": "._artifacts",
    "BRANCH_SUMMARY": "._entries",
    "COMPACTION": "._entries",
    "CUSTOM": "._entries",
    "ENTRY_TYPES": "._entries",
    "MESSAGE": "._entries",
    "MODEL_CHANGE": "._entries",
    "SESSION_VERSION": "._entries",
    "THINKING_LEVEL_CHANGE": "._entries",
    "Entry": "._entries",
    "SessionHeader": "._entries",
    "INTERRUPTED_RESULT": "._interrupted",
    "interrupted_results": "._interrupted",
    "MAX_LINE_BYTES": "._loader",
    "LoadedLog": "._loader",
    "parse_log": "._loader",
    "DATA_DIR_ENV": "._paths",
    "data_dir": "._paths",
    "STORE_ENV": "._selection",
    "open_store": "._selection",
    "without_password": "._selection",
    "Session": "._session",
    "find_session": "._session",
    "Durability": "._store",
    "JsonlSessionStore": "._store",
    "SessionListing": "._store",
    "SessionStore": "._store",
    "BRANCH_SUMMARY_PREFIX": "._tree",
    "BRANCH_SUMMARY_SUFFIX": "._tree",
    "Resume": "._tree",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
