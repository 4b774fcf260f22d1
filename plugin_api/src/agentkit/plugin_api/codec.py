"""The codec kit: what every wire codec needs to encode a growing transcript cheaply.

A provider plugin imports it as ``agentkit.plugin_api.codec``; ``import
agentkit.plugin_api`` does not load it. Standard library only.

* :func:`dumps` serializes JSON exactly as the host serializes a
  :class:`~agentkit.plugin_api.WireRequest` body (the host calls this very
  function), so bytes a codec serializes itself are the bytes the host would
  have sent.
* :class:`IdentityCache` keeps what was built from an object (a message, a
  :class:`~agentkit.plugin_api.ToolSpec`) keyed by the object's identity: the
  host sends the same objects on every turn and never edits them in place.
* :class:`TranscriptEncoder` keeps, per session, the encoding of the
  transcript sent last, and encodes only the messages appended since; a
  transcript that is not an extension of it (history rewritten, compacted,
  another session) is encoded from the start.
* :class:`Transcript` is the list of messages the host sends: it says which
  of its messages are unchanged since the host's earlier requests, so that
  checking a transcript costs what changed, not its depth.
* :class:`CodecProvider` is a base for the provider class (the protocol's
  optional defaults, the catalog, bearer auth), and :func:`model_rows` builds
  catalog rows from a table.
* :func:`tool_choice` and :func:`sampling` check a request's tool choice and
  sampling settings once for every wire; a wire maps them with its own
  :class:`SamplingRules` and refuses what it cannot express with
  :func:`refusal`, never dropping it.
* :class:`ImageLimits` is what a catalog row says of the images its wire
  takes; :func:`image_url` and :func:`inline_image` write a normalized image
  block the two ways wires take one.
* :class:`FileLimits` is what a catalog row says of the documents and the
  recordings its wire takes; :func:`file_data_url`, :func:`document_text`,
  :func:`inline_file` and :func:`unsendable` write or refuse an admitted
  :class:`~agentkit.plugin_api.DocumentBlock` or
  :class:`~agentkit.plugin_api.AudioBlock`.
* :func:`array`, :func:`count`, :func:`error_text` and :func:`chunks` are the
  small helpers every wire writes otherwise.

A sketch of a codec's transcript, one serialized wire message per canonical
message::

    from agentkit.plugin_api.codec import IdentityCache, TranscriptEncoder, array, dumps

    class Encoder:
        def __init__(self) -> None:
            self.messages: IdentityCache[bytes] = IdentityCache(16384)
            self.transcript: TranscriptEncoder[tuple[bytes, ...]] = TranscriptEncoder(self.extend)

        def extend(self, done: tuple[bytes, ...] | None, new: Sequence[Message]) -> tuple[bytes, ...]:
            wire = [self.messages.get(m, lambda m=m: dumps(to_wire(m))) for m in new]
            return (*(done or ()), *wire)

        def messages_json(self, messages: Sequence[Message]) -> bytes:
            return b"".join(array(self.transcript.encode(messages)))
"""

from __future__ import annotations

import dataclasses
import json
import operator
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from itertools import repeat
from types import MemberDescriptorType
from typing import Any, ClassVar, Generic, TypeVar

from ._images import DEFAULT_IMAGE_LIMITS, PNG_AND_JPEG, ImageLimits, image_url, inline_image
from ._json import one_shot
from ._media import (
    AUDIO_FORMATS,
    DEFAULT_AUDIO_LIMITS,
    DEFAULT_DOCUMENT_LIMITS,
    DOCUMENT_FORMATS,
    PDF,
    PLAIN_TEXT,
    FileLimits,
    document_text,
    file_data_url,
    inline_file,
    unsendable,
)
from ._messages import Message
from ._providers import Credential, CredentialKind, ModelInfo, Provider
from ._settings import (
    FORCED_TOOL_CHOICE,
    SAMPLING_SETTINGS,
    TOOL_CHOICE_MODES,
    SamplingRules,
    ToolChoice,
    refusal,
    sampling,
    tool_choice,
)
from ._structured import is_strict, output_name, structured_output

__all__ = [
    "AUDIO_FORMATS",
    "DEFAULT_AUDIO_LIMITS",
    "DEFAULT_DOCUMENT_LIMITS",
    "DEFAULT_IMAGE_LIMITS",
    "DOCUMENT_FORMATS",
    "FORCED_TOOL_CHOICE",
    "PDF",
    "PLAIN_TEXT",
    "PNG_AND_JPEG",
    "PRICED_COLUMNS",
    "SAMPLING_SETTINGS",
    "TOOL_CHOICE_MODES",
    "CodecProvider",
    "FileLimits",
    "IdentityCache",
    "ImageLimits",
    "SamplingRules",
    "ToolChoice",
    "Transcript",
    "TranscriptEncoder",
    "array",
    "chunks",
    "count",
    "document_text",
    "dumps",
    "error_text",
    "file_data_url",
    "image_url",
    "inline_file",
    "inline_image",
    "is_strict",
    "model_rows",
    "output_name",
    "refusal",
    "sampling",
    "structured_output",
    "tool_choice",
    "unsendable",
]

V = TypeVar("V")
S = TypeVar("S")


def dumps(value: Any) -> bytes:
    """``value`` as JSON bytes, the way the host serializes every request body.

    Compact separators, UTF-8 without ``\\u`` escapes, key order kept, and
    strict: NaN and infinities are refused (they are not JSON). Any
    :class:`~collections.abc.Mapping` (a schema held in a read-only
    ``MappingProxyType``) is written as an object.

    :raises ValueError: NaN or an infinity, a lone surrogate, or a cycle.
    :raises TypeError: a value that has no JSON form.
    """
    return _encode(value).encode("utf-8")


def _as_json(value: object) -> object:
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


# One encoder for every call: ``json.dumps`` with options builds a new one each
# time, a third of the cost of a small message. ``encode`` keeps no state
# between calls (its cycle check is per call), so one is safe from any thread.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=_as_json)
_encode = one_shot(_ENCODER)  # and without building a C encoder per call either


class IdentityCache(Generic[V]):
    """A bounded LRU map from an object, by identity, to a value built from it.

    An entry holds a strong reference to its object, so the object's ``id``
    cannot be reused by another object while the entry lives. ``variant``
    tells apart values built from one object in different ways (a strict and
    a lax tool definition, an id length limit); it must be hashable. ``None``
    is a value like any other: a cached ``None`` is a hit.

    Thread-safe: every read and write of the map holds one lock, reads
    included (a hit moves the entry to the recent end, which is a write).
    ``build`` runs outside the lock, so two threads that miss on the same
    key at once may both build; the last value stored wins, and since a
    value is derived from its object alone, either is correct.

    :param max_entries: how many entries it keeps; the least recently used
        goes first.
    """

    def __init__(self, max_entries: int) -> None:
        if max_entries < 1:
            raise ValueError(f"max_entries must be 1 or more, not {max_entries!r}")
        self._max = max_entries
        self._entries: OrderedDict[tuple[int, Hashable], tuple[object, V]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def get(self, obj: object, build: Callable[[], V], variant: Hashable = None) -> V:
        """The value kept for ``(obj, variant)``, or ``build()``, kept for next time."""
        entry = self._find(obj, variant)
        if entry is not None:
            return entry[1]
        value = build()
        self.put(obj, value, variant)
        return value

    def peek(self, obj: object, variant: Hashable = None) -> V | None:
        """The value kept for ``(obj, variant)``, or ``None``; counts as a use."""
        entry = self._find(obj, variant)
        return None if entry is None else entry[1]

    def put(self, obj: object, value: V, variant: Hashable = None) -> None:
        """Keep ``value`` for ``(obj, variant)``, evicting the least recently used beyond the bound."""
        key = (id(obj), variant)
        with self._lock:
            entries = self._entries
            entries[key] = (obj, value)
            entries.move_to_end(key)
            while len(entries) > self._max:
                entries.popitem(last=False)

    def _find(self, obj: object, variant: Hashable) -> tuple[object, V] | None:
        """The entry of ``(obj, variant)``, moved to the recent end; ``None`` on a miss."""
        key = (id(obj), variant)
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry[0] is not obj:
                return None
            self._entries.move_to_end(key)
            return entry


class Transcript(list[Message]):
    """Messages that say how they grew: the first ``stable`` are a prefix of an append-only *line*.

    The host keeps, per agent, the transcript it sends as one sequence that
    only grows between rewrites (a compaction, a history edited by hand),
    and names it by ``line``, an opaque object it replaces whenever a message
    of the sequence is removed or replaced. Each request's messages are the
    sequence as it stands (its first ``stable`` messages) followed by
    messages that may differ from one request to the next. So two transcripts
    of one ``line`` begin with the same ``min(stable)`` message objects, and
    :class:`TranscriptEncoder` checks only what lies past them.

    Changing a transcript in place drops its claim (``line`` becomes
    ``None``): it is then checked message by message, like any list.

    :param messages: the messages.
    :param line: the producer's name for its sequence; ``None`` claims nothing.
    :param stable: how many leading messages are that sequence's.
    :raises ValueError: ``stable`` is negative or longer than ``messages``.
    """

    __slots__ = ("line", "stable")

    def __init__(self, messages: Iterable[Message] = (), *, line: object | None = None, stable: int = 0) -> None:
        super().__init__(messages)
        if not 0 <= stable <= len(self):
            raise ValueError(f"stable must be between 0 and the {len(self)} messages, not {stable!r}")
        self.line = line
        self.stable = stable if line is not None else 0

    def _changed(self) -> None:
        self.line, self.stable = None, 0

    # Every way a list changes in place: after any of them, nothing is claimed.
    def __setitem__(self, index: Any, value: Any) -> None:
        self._changed()
        super().__setitem__(index, value)

    def __delitem__(self, index: Any) -> None:
        self._changed()
        super().__delitem__(index)

    def __iadd__(self, other: Iterable[Message]) -> Transcript:  # type: ignore[override,misc]  # returns itself, a Transcript
        self._changed()
        return super().__iadd__(other)

    def __imul__(self, times: Any) -> Transcript:  # type: ignore[misc]  # returns itself, as __iadd__
        self._changed()
        return super().__imul__(times)

    def append(self, message: Message) -> None:
        self._changed()
        super().append(message)

    def extend(self, messages: Iterable[Message]) -> None:
        self._changed()
        super().extend(messages)

    def insert(self, index: Any, message: Message) -> None:
        self._changed()
        super().insert(index, message)

    def pop(self, index: Any = -1) -> Message:
        self._changed()
        return super().pop(index)

    def remove(self, message: Message) -> None:
        self._changed()
        super().remove(message)

    def clear(self) -> None:
        self._changed()
        super().clear()

    def sort(self, *args: Any, **kwargs: Any) -> None:
        self._changed()
        super().sort(*args, **kwargs)

    def reverse(self) -> None:
        self._changed()
        super().reverse()


class _Kept(Generic[S]):
    """What a session's encoder keeps of the transcript it encoded last."""

    __slots__ = ("count", "line", "stable", "state", "unchecked")

    def __init__(self, count: int, line: object | None, stable: int, unchecked: tuple[Message, ...], state: S) -> None:
        self.count = count  # how many messages it had
        self.line = line  # its Transcript line, or None
        self.stable = stable  # how many of them its line vouches for
        self.unchecked = unchecked  # the others, ``messages[stable:]``, compared by identity next time
        self.state = state


class TranscriptEncoder(Generic[S]):
    """Per session, a transcript's encoding extended by only the messages appended since.

    The host sends each session's transcript again every turn with new
    messages appended, as the same message objects. A session is known by
    the identity of its first message. ``extend(done, new)`` is the wire's own
    step: from the state ``done`` reached after the earlier messages
    (``None`` at the start) and the messages ``new``, the state after them
    all. The state is whatever the wire needs: the serialized messages, an
    open group of tool results, a pending join.

    A kept state is shared by the requests that extend it, so ``extend``
    must not change ``done``: it copies what it grows (a tuple is cheapest).
    Messages are taken as immutable once encoded; a transcript whose kept
    prefix is not the same objects (history rewritten, compacted, or a
    shorter one) is encoded again from the start.

    Checking the kept prefix costs what changed, not the depth, when the
    messages are a :class:`Transcript` of the line encoded last: only the
    messages past the part its line vouches for are compared. Any other
    sequence is compared message by message.

    An encoding that differs per request setting (an id length limit) takes
    one encoder per setting. Thread-safe as :class:`IdentityCache` is; two requests of one session
    at once each get a correct state, and the one kept is the last stored.

    :param extend: the wire's step, see above.
    :param max_sessions: how many sessions it keeps a state for.
    """

    def __init__(
        self, extend: Callable[[S | None, Sequence[Message]], S], *, max_sessions: int = 64
    ) -> None:
        self._extend = extend
        self._sessions: IdentityCache[_Kept[S]] = IdentityCache(max_sessions)

    def encode(self, messages: Sequence[Message]) -> S:
        """The state after all of ``messages``, reusing the session's last one when it is a prefix."""
        count = len(messages)
        if not count:
            return self._extend(None, ())
        line, stable = None, 0
        if isinstance(messages, Transcript) and messages.line is not None:
            line, stable = messages.line, messages.stable
        first = messages[0]
        kept = self._sessions.peek(first)
        done: S | None = None
        start = 0
        if kept is not None and kept.count <= count and self._is_prefix(kept, messages, line, stable):
            done, start = kept.state, kept.count
        state = done if done is not None and start == count else self._extend(done, messages[start:])
        # The messages past what the line vouches for, kept to be compared next time (all of
        # them for a plain list: it vouches for nothing).
        unchecked = tuple(messages[stable:] if stable else messages)
        self._sessions.put(first, _Kept(count, line, stable, unchecked, state))
        return state

    @staticmethod
    def _is_prefix(kept: _Kept[S], messages: Sequence[Message], line: object | None, stable: int) -> bool:
        """Whether the kept transcript's messages are the first of ``messages``, the same objects.

        Identity, not equality: a message equal to but not the one encoded may
        differ in what the encoding kept (``1`` and ``True`` are equal). Both of
        one line, ``messages`` at least as far along it: the first
        ``kept.stable`` are the same by the line's promise, and only the kept
        rest is compared; otherwise every kept message is.
        """
        if kept.line is not None and (kept.line is not line or stable < kept.stable):
            return False  # the vouched-for part was not kept, so it cannot be compared
        unchecked = kept.unchecked
        # A C loop over the compared part; with a line, a few messages at most.
        return all(map(operator.is_, unchecked, messages[kept.stable : kept.count]))


def array(items: Iterable[bytes], *, open: bytes = b"[", close: bytes = b"]") -> list[bytes]:
    """Serialized JSON values as the pieces of one array: ``[``, the items with commas, ``]``.

    The pieces are for the caller to join with the rest of the body.
    ``open=b"", close=b""`` gives the items with the commas only.
    """
    return [open, b",".join(items), close]


def chunks(text: str, size: int) -> list[str]:
    """``text`` cut into pieces of ``size`` characters (the last may be shorter; none for ``""``):
    how a conformance responder streams a block in several deltas."""
    return [text[start : start + size] for start in range(0, len(text), size)]


def count(value: object) -> int:
    """A token count from a response: a positive integer as it is, anything else (``null``,
    a string, a boolean, a negative number) ``0``."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def error_text(
    error: object,
    *,
    details: Sequence[str] = ("type", "code"),
    most: int | None = None,
    fallback: str = "the server reported an error",
) -> str:
    """One line describing a wire's ``error`` value.

    An object gives its ``message`` (``fallback`` when it has none), followed
    by the values of its ``details`` keys that are set (the first ``most`` of
    them), in parentheses: ``"Rate limited (rate_limit_error, 429)"``.
    Anything else is written as text; an empty value is ``fallback``.
    """
    if isinstance(error, Mapping):
        message = error.get("message")
        text = message if isinstance(message, str) and message else fallback
        found = [str(error[key]) for key in details if error.get(key)][:most]
        return f"{text} ({', '.join(found)})" if found else text
    return str(error) if error else fallback


class CodecProvider(Provider):
    """A base for a provider class: what every wire's provider writes the same way.

    It subclasses :class:`~agentkit.plugin_api.Provider`, so it has the
    protocol's defaults for the optional members it does not set; ``catalog()``
    returns the class's ``models``; every credential travels as
    ``Authorization: Bearer`` (a wire with its own header overrides
    :meth:`auth_headers`). A subclass sets ``api``, ``credential_env`` (empty by
    default: no credential) and ``models``, and writes ``encode`` and ``decoder``.
    """

    credential_env: ClassVar[Sequence[tuple[str, CredentialKind]]] = ()
    #: The catalog rows this provider serves.
    models: ClassVar[Sequence[ModelInfo]] = ()

    def catalog(self) -> Sequence[ModelInfo]:
        """The class's ``models``."""
        return self.models

    def auth_headers(self, credential: Credential) -> dict[str, str]:
        """``Authorization: Bearer <value>``, whatever the credential's kind."""
        return {"Authorization": f"Bearer {credential.value}"}


#: The columns a catalog table usually starts with: the model, its limits and its prices.
PRICED_COLUMNS = (
    "id",
    "context_window",
    "max_output",
    "input_price",
    "output_price",
    "cache_read_price",
)


def model_rows(
    columns: Sequence[str], rows: Iterable[Sequence[Any]], **common: Any
) -> tuple[ModelInfo, ...]:
    """Catalog rows from a table: each row's values named by ``columns``, plus the ``common`` fields.

    ``model_rows(("id", "context_window", "max_output"), [("m1", 8192, 1024)], vendor="acme",
    api="acme", base_url="https://api.acme.test")`` is one :class:`~agentkit.plugin_api.ModelInfo`.

    :raises ValueError: a row whose length is not that of ``columns``.
    """
    columns = tuple(columns)
    build = _row_builder(columns, common)
    if build is None:  # columns the fast way does not take: each row as the class builds it, errors included
        return tuple(ModelInfo(**common, **dict(zip(columns, row, strict=True))) for row in rows)
    return tuple(map(build, rows))


class _ModelSlots:
    """``ModelInfo``'s fields as :func:`_row_builder` fills them, read once."""

    __slots__ = ("defaults", "factories", "names", "order", "required", "slots")

    def __init__(self) -> None:
        missing = dataclasses.MISSING
        required, defaults, factories, slots = [], {}, [], []
        for f in dataclasses.fields(ModelInfo):
            defaults[f.name] = f.default
            if f.default_factory is not missing:
                factories.append((f.name, f.default_factory))
            elif f.default is missing:
                required.append(f.name)
            slots.append(ModelInfo.__dict__.get(f.name))
        self.names = frozenset(defaults)
        self.required = frozenset(required)
        self.defaults: dict[str, Any] = defaults
        self.factories: tuple[tuple[str, Callable[[], Any]], ...] = tuple(factories)
        self.slots: tuple[Any, ...] = tuple(slots)
        self.order = operator.itemgetter(*self.defaults)  # a row's values in field order


#: Read at the first catalog; ``None`` if ``ModelInfo`` is not a class whose slots :func:`_row_builder` can fill.
_MODEL_SLOTS: _ModelSlots | None = None
_set_slot = MemberDescriptorType.__set__


def _row_builder(columns: tuple[str, ...], common: dict[str, Any]) -> Callable[[Sequence[Any]], ModelInfo] | None:
    """What makes a row from a table row as ``ModelInfo(**common, **dict(zip(columns, row)))`` does,
    filling its slots directly; ``None`` when that call would raise (an unknown, repeated or missing
    field) or ``ModelInfo`` has a ``__post_init__`` or no slots (then the rows are made by that call).

    A catalog is made at every start of a process that loads its provider: through ``__init__``, each
    of its fields is bound and assigned by Python code, about 800 bytecodes a row, and the 17th row
    compiles ``__init__``; filled here, a row costs about 60 and nothing is compiled (the OpenAI
    provider's catalog module: 5.8 M instructions at import before, 2.2 M after; docs/decisions/0066).
    """
    global _MODEL_SLOTS
    plan = _MODEL_SLOTS
    if plan is None:
        plan = _ModelSlots()
        if "__post_init__" in ModelInfo.__dict__ or not all(
                isinstance(slot, MemberDescriptorType) for slot in plan.slots):
            return None
        _MODEL_SLOTS = plan
    given = {*columns, *common}
    if len(given) != len(columns) + len(common) or not plan.required <= given or not given <= plan.names:
        return None
    base = {**plan.defaults, **common}
    factories = [(name, factory) for name, factory in plan.factories if name not in given]
    slots, order, cls = plan.slots, plan.order, ModelInfo

    def build(row: Sequence[Any]) -> ModelInfo:
        values = base.copy()
        values.update(zip(columns, row, strict=True))
        for name, factory in factories:  # a fresh value per row, as __init__ makes it
            values[name] = factory()
        made = object.__new__(cls)
        list(map(_set_slot, slots, repeat(made), order(values)))  # each slot set in C (a list of Nones)
        return made

    return build
