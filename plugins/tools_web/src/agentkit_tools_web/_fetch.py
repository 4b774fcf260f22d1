"""What a fetch_url call does: one HTTP request, its redirects re-validated hop by hop."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import Any

import httpx

from agentkit.plugin_api import ToolContext, ToolError, ToolResult

from ._guard import BlockedAddress, GuardedTransport
from ._html import html_to_text
from ._limits import DEFAULT_TIMEOUT_S, MAX_BODY_BYTES, MAX_REDIRECTS, METHODS, USER_AGENT

_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# Framing and routing belong to the client: a caller-chosen Host would send a
# request for one site to another site's address.
_RESERVED_HEADERS = frozenset(
    {"host", "content-length", "transfer-encoding", "connection", "upgrade", "te", "trailer"}
)
_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/javascript")

class _Request:
    """The validated arguments of one call."""

    def __init__(self, arguments: dict[str, Any], options: Mapping[str, Any]) -> None:
        allow_http = options.get("allow_http", False)
        if not isinstance(allow_http, bool):
            raise ToolError(
                "invalid_tool_options", "tool option 'allow_http' must be true or false"
            )
        self.allow_http = allow_http
        user_agent = options.get("user_agent", USER_AGENT)
        if not isinstance(user_agent, str):
            raise ToolError("invalid_tool_options", "tool option 'user_agent' must be a string")
        self.user_agent = user_agent

        self.url = self.validated_url(arguments.get("url"), hop=0)
        method = arguments.get("method", "GET")
        if not isinstance(method, str) or method.upper() not in METHODS:
            raise ToolError("invalid_arguments", f"method must be one of {', '.join(METHODS)}")
        self.method = method.upper()
        self.headers = _caller_headers(arguments.get("headers"))
        body = arguments.get("body")
        if body is not None and not isinstance(body, str):
            raise ToolError("invalid_arguments", "body must be a string")
        self.body = None if body is None else body.encode("utf-8")
        timeout = arguments.get("timeout_s", DEFAULT_TIMEOUT_S)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
            raise ToolError("invalid_arguments", "timeout_s must be a positive number")
        if not math.isfinite(timeout) or timeout <= 0:
            raise ToolError("invalid_arguments", "timeout_s must be a positive number")
        self.timeout_s = float(timeout)
        as_text = arguments.get("html_to_text", True)
        if not isinstance(as_text, bool):
            raise ToolError("invalid_arguments", "html_to_text must be true or false")
        self.html_to_text = as_text

    def validated_url(self, value: Any, *, hop: int) -> httpx.URL:
        where = "url" if hop == 0 else f"redirect {hop} target"
        if not isinstance(value, (str, httpx.URL)):
            raise ToolError("invalid_arguments", "url must be a string")
        try:
            url = httpx.URL(value)
        except httpx.InvalidURL as exc:
            raise ToolError(
                "invalid_url", f"{where} {str(value)!r} is not a valid URL: {exc}"
            ) from None
        if url.scheme == "http" and not self.allow_http:
            raise ToolError(
                "scheme_not_allowed",
                f"{where} {url} uses http://; only https:// is allowed unless the embedder sets "
                "tool_options['fetch_url']['allow_http'] = True",
            )
        if url.scheme not in ("http", "https"):
            raise ToolError("scheme_not_allowed", f"{where} {url} must be an https:// URL")
        if not url.host:
            raise ToolError("invalid_url", f"{where} {url} has no host")
        if url.userinfo:
            raise ToolError(
                "invalid_url", f"{where} must not carry credentials in the URL; use a header"
            )
        return url


def _caller_headers(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ToolError("invalid_arguments", "headers must map header names to strings")
    for name in value:
        if name.lower() in _RESERVED_HEADERS:
            raise ToolError("invalid_arguments", f"the {name} header is set by fetch_url itself")
    return dict(value)


def _same_origin(a: httpx.URL, b: httpx.URL) -> bool:
    return (a.scheme, a.host.lower().rstrip("."), a.port) == (
        b.scheme,
        b.host.lower().rstrip("."),
        b.port,
    )


def fetch(
    arguments: dict[str, Any], context: ToolContext, transport: GuardedTransport
) -> ToolResult:
    request = _Request(arguments, context.options)
    deadline = time.monotonic() + request.timeout_s
    base_headers = {"User-Agent": request.user_agent, "Accept": "*/*"}
    url, method, body = request.url, request.method, request.body
    headers = {**base_headers, **request.headers}
    redirects: list[str] = []
    with httpx.Client(
        transport=transport,
        trust_env=False,  # no proxies or .netrc credentials from the environment
        follow_redirects=False,
        timeout=httpx.Timeout(request.timeout_s),
    ) as client:
        for hop in range(MAX_REDIRECTS + 1):
            if context.cancel.cancelled:
                return ToolResult.failure("aborted", "The run was aborted.")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return _timed_out(request, url)
            try:
                # Each hop gets what is left of the call's budget, so redirects
                # cannot multiply timeout_s.
                hop_request = client.build_request(
                    method, url, headers=headers, content=body, timeout=httpx.Timeout(remaining)
                )
                response = client.send(hop_request, stream=True)
            except BlockedAddress as exc:
                return ToolResult.failure("blocked_address", str(exc), url=str(url))
            except httpx.TimeoutException:
                return _timed_out(request, url)
            except httpx.HTTPError as exc:
                return ToolResult.failure("request_failed", f"{url}: {exc}", url=str(url))
            try:
                location = response.headers.get("location")
                if response.status_code not in _REDIRECT_STATUSES or not location:
                    return _read_response(response, request, context, deadline, redirects)
                if hop == MAX_REDIRECTS:
                    return ToolResult.failure(
                        "too_many_redirects",
                        f"{request.url} redirected more than {MAX_REDIRECTS} times "
                        f"(last to {location}); fetch the final URL directly if you trust it",
                        redirects=redirects,
                    )
                try:
                    next_url = request.validated_url(url.join(location), hop=hop + 1)
                except httpx.InvalidURL:
                    raise ToolError(
                        "invalid_url", f"redirect target {location!r} is not a valid URL"
                    ) from None
            finally:
                response.close()
            if not _same_origin(url, next_url):
                # The caller's headers (tokens, cookies) were meant for the
                # origin it named, not for wherever that origin points.
                headers = dict(base_headers)
            if response.status_code == 303 or (
                response.status_code in (301, 302) and method == "POST"
            ):
                method = "GET" if method != "HEAD" else "HEAD"
                body = None
            redirects.append(str(next_url))
            url = next_url
    raise AssertionError("unreachable: the loop returns on its last hop")


def _timed_out(request: _Request, url: httpx.URL) -> ToolResult:
    return ToolResult.failure(
        "timeout",
        f"{url} did not answer within timeout_s={request.timeout_s:g}; retry with a larger timeout_s",
        url=str(url),
    )


def _read_response(
    response: httpx.Response,
    request: _Request,
    context: ToolContext,
    deadline: float,
    redirects: list[str],
) -> ToolResult:
    chunks: list[bytes] = []
    size = 0
    truncated = False
    try:
        # Streamed and cut: the rest of an oversized body is never read.
        for chunk in response.iter_bytes():
            if context.cancel.cancelled:
                return ToolResult.failure("aborted", "The run was aborted.")
            if time.monotonic() > deadline:
                return _timed_out(request, response.url)
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                truncated = True
                break
    except httpx.TimeoutException:
        return _timed_out(request, response.url)
    except httpx.HTTPError as exc:
        return ToolResult.failure("request_failed", f"{response.url}: {exc}", url=str(response.url))
    raw = b"".join(chunks)[:MAX_BODY_BYTES]
    content_type = response.headers.get("content-type", "")
    media_type = content_type.split(";", 1)[0].strip().lower()
    text = _body_text(raw, response, media_type, request.html_to_text)
    if truncated:
        text += (
            f"\n[Body truncated at {MAX_BODY_BYTES} bytes; the rest was not downloaded. Fetch a "
            "narrower resource (an API, a raw file, a Range header) to see more.]"
        )
    data = {
        "url": str(response.url),
        "status": response.status_code,
        "content_type": content_type,
        "body": text,
        "truncated": truncated,
        "redirects": redirects,
    }
    metadata: dict[str, Any] = {"bytes_read": min(size, MAX_BODY_BYTES)}
    if truncated:
        metadata["truncated_by"] = "bytes"
    return ToolResult(True, data=data, metadata=metadata)


def _body_text(raw: bytes, response: httpx.Response, media_type: str, html_as_text: bool) -> str:
    textual = (
        not media_type
        or media_type.startswith(_TEXT_TYPES)
        or media_type.endswith(("+json", "+xml"))
    )
    if not textual:
        return f"[{len(raw)} bytes of {media_type} content, not shown as text]"
    encoding = response.charset_encoding or "utf-8"
    try:
        text = raw.decode(encoding, errors="replace")
    except LookupError:
        text = raw.decode("utf-8", errors="replace")
    if html_as_text and media_type in ("text/html", "application/xhtml+xml"):
        return html_to_text(text)
    return text
