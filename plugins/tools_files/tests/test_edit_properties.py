"""Properties of edit_file on generated files: exact edits equal a reference splice, any rejection writes nothing."""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path

import agentkit_tools_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentkit.plugin_api import ToolContext

TOOLS: dict = {}
agentkit_tools_files.agentkit_register_tools(
    register=lambda tool: TOOLS.setdefault(tool.name, tool)
)

lines = st.lists(st.text(alphabet="ab \t“”—x", max_size=8), min_size=1, max_size=12)


@st.composite
def file_and_edits(draw):
    text = "\n".join(draw(lines)) + draw(st.sampled_from(["", "\n"]))
    spans = []
    for _ in range(draw(st.integers(1, 3))):
        start = draw(st.integers(0, max(0, len(text) - 1)))
        end = draw(st.integers(start, min(len(text), start + 6)))
        spans.append((start, end, draw(st.text(alphabet="cd\n", max_size=4))))
    return text, spans


def _reference(text: str, spans) -> tuple[str | None, str | None]:
    """What the exact pass must do: (new text, None) or (None, the rejection)."""
    olds = [text[s:e] for s, e, _ in spans]
    if any(old == "" for old in olds):
        return None, "empty_old_string"
    if any(text.count(old) == 0 for old in olds):  # cannot happen: taken from the text
        return None, "not_found"
    occurrences = [sum(1 for i in range(len(text)) if text.startswith(old, i)) for old in olds]
    if any(count > 1 for count in occurrences):
        return None, "not_unique"
    ordered = sorted(spans)
    if any(b[0] < a[1] for a, b in itertools.pairwise(ordered)):
        return None, "overlapping_edits"
    out, cursor = [], 0
    for start, end, new in ordered:
        out += [text[cursor:start], new]
        cursor = end
    result = "".join(out) + text[cursor:]
    return (None, "no_change") if result == text else (result, None)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(file_and_edits())
def test_exact_edits_match_a_reference_or_write_nothing(case):
    text, spans = case
    expected, rejection = _reference(text, spans)
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "f.txt"
        path.write_bytes(text.encode())
        edits = [{"old_string": text[s:e], "new_string": new} for s, e, new in spans]
        result = TOOLS["edit_file"].handler(
            {"path": "f.txt", "edits": edits}, ToolContext(root=Path(directory))
        )
        if rejection is None:
            assert result.ok, (result.error, result.detail)
            assert result.metadata["match"] == "exact"
            assert path.read_bytes() == expected.encode()
        else:
            assert result.error == rejection, (result.error, result.detail)
            assert path.read_bytes() == text.encode()
