"""Sessions: an agent's history as an append-only log that survives the process.

See ``docs/sessions.md``. A :class:`Session` lives in a :class:`SessionStore`
(the default, :class:`JsonlSessionStore`, keeps one JSON Lines file per
session in the data directory); give it to an :class:`~agentkit.host.Agent`
and each run is written as it happens.
"""

from ._artifacts import (
    ARTIFACT_PREFIX,
    ArtifactInfo,
    ArtifactNotFound,
    ArtifactOwner,
    ArtifactStore,
    is_artifact_id,
)
from ._entries import (
    BRANCH_SUMMARY,
    COMPACTION,
    CUSTOM,
    ENTRY_TYPES,
    MESSAGE,
    MODEL_CHANGE,
    SESSION_VERSION,
    THINKING_LEVEL_CHANGE,
    Entry,
    SessionHeader,
)
from ._interrupted import INTERRUPTED_RESULT, interrupted_results
from ._loader import MAX_LINE_BYTES, LoadedLog, parse_log
from ._paths import DATA_DIR_ENV, data_dir
from ._selection import STORE_ENV, open_store, without_password
from ._session import Session, find_session
from ._store import Durability, JsonlSessionStore, SessionListing, SessionStore
from ._tree import BRANCH_SUMMARY_PREFIX, BRANCH_SUMMARY_SUFFIX, Resume

__all__ = [
    "ARTIFACT_PREFIX",
    "BRANCH_SUMMARY",
    "BRANCH_SUMMARY_PREFIX",
    "BRANCH_SUMMARY_SUFFIX",
    "COMPACTION",
    "CUSTOM",
    "DATA_DIR_ENV",
    "ENTRY_TYPES",
    "INTERRUPTED_RESULT",
    "MAX_LINE_BYTES",
    "MESSAGE",
    "MODEL_CHANGE",
    "SESSION_VERSION",
    "STORE_ENV",
    "THINKING_LEVEL_CHANGE",
    "ArtifactInfo",
    "ArtifactNotFound",
    "ArtifactOwner",
    "ArtifactStore",
    "Durability",
    "Entry",
    "JsonlSessionStore",
    "LoadedLog",
    "Resume",
    "Session",
    "SessionHeader",
    "SessionListing",
    "SessionStore",
    "data_dir",
    "find_session",
    "interrupted_results",
    "is_artifact_id",
    "open_store",
    "parse_log",
    "without_password",
]
