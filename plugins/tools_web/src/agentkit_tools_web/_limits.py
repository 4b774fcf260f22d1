"""The fetch tools' limits and defaults: what the tool's schema announces and what a fetch holds to.

A module of constants alone, so that the tool's description (:mod:`._tool`) and the
fetches (:mod:`._fetch`, :mod:`._image_fetcher`) read the same figures without
importing each other.
"""

from __future__ import annotations

MAX_REDIRECTS = 5
MAX_BODY_BYTES = 512 * 1024
DEFAULT_TIMEOUT_S = 30.0
USER_AGENT = "agentkit-fetch_url/0.1"
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
