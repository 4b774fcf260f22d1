"""What ``agentkit run --dry-run`` shows Gemini would be sent for a schema with defaults."""

from __future__ import annotations

import json
from pathlib import Path


def test_an_output_schemas_defaults_reach_the_request(agentkit, tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string", "default": "Lisbon", "examples": ["Porto"]},
            "days": {"type": "integer", "minimum": 1, "default": 3},
        },
        "required": ["city"],
    }
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    result = agentkit.inline("run", "plan a trip", "--model", "google/gemini-2.5-flash", "--dry-run",
                             "--output-schema", str(tmp_path / "schema.json"), "--root", str(tmp_path))
    assert result.returncode == 0, result.stderr
    sent = json.loads(result.stdout)["body"]["generationConfig"]["responseJsonSchema"]
    assert sent["properties"]["city"] == {"type": "string", "default": "Lisbon"}
    assert sent["properties"]["days"] == {"type": "integer", "minimum": 1, "default": 3}
