"""Reading a trajectories file the way a plain JSON Lines reader does (no jobenv in between)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["episode_lines", "episode_records"]


def episode_lines(path: Path) -> list[str]:
    """The raw episode lines of a trajectories file (tool-schema and shared-text records left out)."""
    return [line for line in path.read_text().splitlines() if json.loads(line).get("record", "episode") == "episode"]


def episode_records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in episode_lines(path)]
