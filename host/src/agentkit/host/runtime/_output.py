"""The event stream a caller sees: the decoder's events, policed.

Whatever the decoder or the network does, the caller gets exactly one
:class:`MessageEnd`, last, preceded by a :class:`MessageStart`. A decoder that
raises, forgets to end the message, keeps talking after the end, or produces
events no correct decoder produces (see :mod:`._police`) is contained here; a
response past its size limits is ended here; and the message is priced here,
once, as it ends (:mod:`.pricing`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from agentkit.plugin_api import (
    AssistantMessage,
    BlockDelta,
    BlockEnd,
    BlockStart,
    ContentBlock,
    MessageEnd,
    MessageStart,
    ModelInfo,
    ProviderEvent,
    StopReason,
    StreamDecoder,
    WireEvent,
)

from ._echo import EchoScrubber
from ._police import EVENT_CHECKS, ProviderDefect, ResponseTooLarge, StreamPolice
from ._redact import scrub
from .limits import ResponseLimits
from .pricing import PriceResponse, Pricing

#: The event types that are never a message's start or end (by exact type: a subclass is asked below).
_BLOCK_EVENTS = frozenset({BlockStart, BlockDelta, BlockEnd})
_BLOCK_TYPES = (BlockStart, BlockDelta, BlockEnd)


class DecoderBroke(Exception):
    """The provider's decoder raised; the message says which and what."""


class Output:
    """Wraps one response's decoder; every method returns the events to yield."""

    def __init__(
        self,
        decoder: StreamDecoder | None,
        model: ModelInfo,
        api: str,
        secrets: Sequence[str] = (),
        limits: ResponseLimits | None = None,
        pricing: PriceResponse | None = None,
    ) -> None:
        self.decoder = decoder
        self.model = model
        self.api = api
        self.secrets = secrets
        self.pricing: PriceResponse = pricing or Pricing()
        self.police = StreamPolice(api, (limits or ResponseLimits()).resolve(model))
        self.started = False
        self.ended = False

    @property
    def secrets(self) -> Sequence[str]:
        """The credential values in use: scrubbed from errors and from what the response streams."""
        return self._secrets

    @secrets.setter
    def secrets(self, secrets: Sequence[str]) -> None:
        self._secrets = secrets
        #: Scrubs the streamed text of the secrets (``None``: no secret, nothing to do per delta).
        self.echo = EchoScrubber(secrets) if any(secrets) else None

    def _pass(self, events: Sequence[ProviderEvent], *, closing: bool = False) -> list[ProviderEvent]:
        """The events that may reach the caller; ``closing``: the decoder's last words after a failure."""
        out: list[ProviderEvent] = []
        police = self.police
        if events.__class__ is not list:  # a decoder's list passes as it is: the check is for anything else
            try:
                police.check_batch(events)
            except ProviderDefect as exc:
                return [] if closing else self._broken(str(exc))
        count, checks, echo = not closing, EVENT_CHECKS, self.echo
        for event in events:
            if self.ended:
                break  # nothing may follow the end of the message
            kind = type(event)
            try:
                # StreamPolice.check, its dispatch written out: bench_loop json sync -227 bytecodes/turn (1.3%),
                # json async -227 (1.2%), sse sync -211 (0.9%).
                (checks.get(kind) or police.check_of(event))(police, event, count)
            except ProviderDefect as exc:
                if closing:
                    continue  # the decoder already failed once: keep only what passes
                out += self._broken(str(exc))
                break
            except ResponseTooLarge as exc:
                out += self._too_large(str(exc))
                break
            if kind in _BLOCK_EVENTS and self.started:  # most events: exactly a block's, neither start nor end
                # A start carries no text a secret could be in.
                if echo is None or kind is BlockStart or echo.passes(event):  # type: ignore[arg-type]
                    out.append(event)
                else:
                    echo.block_event(event, out)
                continue
            if not self.started:
                self.started = True
                if not isinstance(event, MessageStart):
                    out.append(MessageStart(self.model.vendor, self.model.id))
            elif isinstance(event, MessageStart):
                continue
            if isinstance(event, MessageEnd):
                event = self._finalize(event if echo is None else echo.message_end(event, out))
                self.ended = True
            elif echo is not None and isinstance(event, _BLOCK_TYPES):
                echo.block_event(event, out)
                continue
            out.append(event)
        return out

    def _finalize(self, event: MessageEnd) -> MessageEnd:
        pricing, message = self.pricing, event.message
        if type(pricing) is Pricing:
            # The decoder's message, made for this response and seen by nobody yet: priced in place rather than
            # copied with a new end event (bench_loop, callgrind: about 8,000 instructions a response).
            usage = pricing._priced_usage(message, self.model)
            if usage is not None:
                message.usage = usage
        else:
            message = pricing(message, self.model)
        error = scrub(message.error_message, self.secrets) if message.error_message else None
        if error != message.error_message:
            message = dataclasses.replace(message, error_message=error)
        return event if message is event.message else MessageEnd(message)

    def feed(self, event: WireEvent) -> list[ProviderEvent]:
        if self.ended or self.decoder is None:
            return []
        try:
            events = self.decoder.feed(event)
        except Exception as exc:
            raise DecoderBroke(
                f"the {self.api!r} decoder failed on a {event.event or 'data'} event: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        return self._pass(events)

    def finish(self) -> list[ProviderEvent]:
        if self.ended:
            return []
        if self.decoder is not None:
            try:
                events = self._pass(self.decoder.finish())
            except Exception as exc:
                return self.fail(
                    StopReason.ERROR,
                    f"the {self.api!r} decoder failed at the end of the response: "
                    f"{type(exc).__name__}: {exc}",
                )
            if self.ended:
                return events
            return events + self._synthesize(
                StopReason.ERROR, f"the {self.api!r} decoder ended the response without message_end"
            )
        return self._synthesize(StopReason.ERROR, "no decoder")

    def fail(self, reason: StopReason, message: str) -> list[ProviderEvent]:
        if self.ended:
            return []
        message = scrub(message, self.secrets)
        events: list[ProviderEvent] = []
        if self.decoder is not None:
            try:
                events = self._pass(self.decoder.fail(reason, message), closing=True)
            except Exception:
                events = []  # a decoder that cannot even fail: end the message here
        if not self.ended:
            events += self._synthesize(reason, message)
        return events

    def _broken(self, message: str) -> list[ProviderEvent]:
        """End here for a decoder defect, with the blocks that ended properly.

        The decoder is not asked to fail: it just proved it cannot be trusted.
        """
        return self._synthesize(StopReason.ERROR, message, list(self.police.blocks))

    def _too_large(self, message: str) -> list[ProviderEvent]:
        """End here for a response past its limits; the decoder closes what it holds."""
        events: list[ProviderEvent] = []
        if self.decoder is not None:
            try:
                events = self._pass(self.decoder.fail(StopReason.ERROR, message), closing=True)
            except Exception:
                events = []
        if not self.ended:
            events += self._synthesize(StopReason.ERROR, message, list(self.police.blocks))
        return events

    def _synthesize(
        self, reason: StopReason, message: str, content: list[ContentBlock] | None = None
    ) -> list[ProviderEvent]:
        end = MessageEnd(
            AssistantMessage(
                content or [],
                reason,
                provider=self.model.vendor,
                api=self.api,
                model=self.model.id,
                error_message=scrub(message, self.secrets),
            )
        )
        return self._pass([end])
