"""The host's log records go nowhere until an embedder configures logging.

Imported, for that effect, by the modules every path that logs goes through
(the plugin host, the provider runtime) rather than by the package itself, so
that ``agentkit --help`` does not import :mod:`logging`.
"""

import logging

logging.getLogger("agentkit").addHandler(logging.NullHandler())
