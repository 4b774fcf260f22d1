"""The reduced environment a subprocess starts with.

A model-driven command can print its environment as easily as anything else,
so variables that look like credentials are removed unless the embedder
names them. The rule is by name, not by value: it is cheap, predictable and
easy to widen per tool with ``pass_env``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

# Generic suffixes: API_KEY, GITHUB_TOKEN, CLIENT_SECRET, DB_PASSWORD, ...
_CREDENTIAL_SUFFIXES = (
    "_KEY",
    "_TOKEN",
    "_SECRET",
    "_PASSWORD",
    "_PASSWD",
    "_CREDENTIAL",
    "_CREDENTIALS",
    "_APIKEY",
    "_CONNECTION_STRING",
)

# Names that hold or point at cloud credentials but do not end in a generic
# suffix, and a few bare names that are credentials on their own.
_CREDENTIAL_NAMES = frozenset(
    {
        "KEY",
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_SECURITY_TOKEN",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "CLOUDSDK_AUTH_ACCESS_TOKEN_FILE",
        "CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE",
        "AZURE_CLIENT_CERTIFICATE_PATH",
        "AZURE_FEDERATED_TOKEN_FILE",
        "ARM_CLIENT_CERTIFICATE_PATH",
        "DATABASE_URL",
        # The agent socket signs with the user's SSH keys: access to it is
        # access to the keys.
        "SSH_AUTH_SOCK",
    }
)


def looks_like_credential(name: str) -> bool:
    """True when ``name`` is stripped from a subprocess environment by default."""
    upper = name.upper()  # Windows names are case-insensitive
    return upper in _CREDENTIAL_NAMES or upper.endswith(_CREDENTIAL_SUFFIXES)


def reduced_environment(
    parent: Mapping[str, str],
    *,
    pass_env: Iterable[str] = (),
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment for a subprocess.

    :param parent: the environment to start from (normally ``os.environ``).
    :param pass_env: credential-looking names the embedder lets through.
    :param extra: variables the embedder sets explicitly; they are never
        stripped, whatever their names.
    """
    allowed = {name.upper() for name in pass_env}
    env = {
        name: value
        for name, value in parent.items()
        if not looks_like_credential(name) or name.upper() in allowed
    }
    if extra:
        env.update({str(name): str(value) for name, value in extra.items()})
    return env
