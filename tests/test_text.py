"""Text the repository carries (code, docs, params, profiles, schemas) cites no issue tracker: it has none, so a
requirement is stated where it applies. Kept bench outputs (benchmarks/results/) are records and stay as written."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIP = {".venv", ".git", ".dvc", ".cache", "data", "details", "metrics", "report"}  # environments, outputs
SUFFIXES = {".py", ".md", ".yaml", ".yml", ".json", ".toml", ".txt"}
# The word with a number after it (a space, '-' or '#' between) or after '('; spelt in pieces so that this file does
# not match itself.
TRACKER = re.compile(r"\b" + "iss" + r"ues? ?[-#]?\d|\(" + "iss" + "ue", re.I)


def _files() -> list[Path]:
    out = []
    for top in sorted(ROOT.iterdir()):
        if top.name in SKIP or top.name.startswith("."):
            continue
        found = [top] if top.is_file() else sorted(top.rglob("*"))
        out += [p for p in found if p.is_file() and (p.suffix in SUFFIXES or p.name == "Makefile")
                and ROOT / "benchmarks" / "results" not in p.parents]
    return out


def test_no_issue_tracker_references() -> None:
    hits = [f"{p.relative_to(ROOT)}:{n}: {line.strip()[:80]}" for p in _files()
            for n, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
            if TRACKER.search(line)]
    assert not hits, "text cites an issue tracker the repository does not have; say what is required:\n" + \
        "\n".join(hits)


def test_the_check_sees_a_reference() -> None:
    word = "iss" + "ue"
    for text in (f"Target ({word} 28): 35 runs", f"{word}s 5 and 10", f"see {word} #3", f"{word}-30", f"({word} 30)"):
        assert TRACKER.search(text), text
    assert not TRACKER.search("ALFWorld commands that step issued") and not TRACKER.search("TissueBox")
