"""Script files for the command line: ``agentkit run --script FILE`` and the commands that take it."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agentkit_provider_faux import Turn, text


def write_script(path: str | os.PathLike[str], turns: Iterable[Turn | dict[str, Any] | str]) -> Path:
    """Write ``turns`` to ``path`` as a ``--script`` file (a JSON list of turns) and return the path.

    :param turns: :class:`Turn` values, plain-data turns, or strings (a turn of that text).
    :raises ValueError: a plain-data turn is malformed (checked before anything is written).
    """
    plain = [
        Turn([text(turn)]).to_dict() if isinstance(turn, str)
        else turn.to_dict() if isinstance(turn, Turn) else Turn.from_dict(turn).to_dict()
        for turn in turns
    ]
    file = Path(path)
    file.write_text(json.dumps(plain, ensure_ascii=False), encoding="utf-8")
    return file
