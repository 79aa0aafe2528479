"""`hindsight world stats --alfworld`: the split statistics of household.expert.stats over ALFWorld's games."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from household.alfworld.importer import find_games, load_alfworld_game
from household.expert.stats import world_stats


def alfworld_stats(root: str | Path, seed: int = 0) -> dict[str, Any]:
    """world_stats over every ALFWorld game folder under root."""
    games = find_games(root)
    out = world_stats((load_alfworld_game(g) for g in games), seed)
    return {"alfworld": str(root), **out}
