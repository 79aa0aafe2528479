"""params.yaml stays a short reference: one comment per key (what it is, the paper's value where ours differs), and
comments at most 40% of its characters. The why of a deviation belongs in planner/scaffold/deviations.py, measured
figures in docs/results.md."""
from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
TEXT = (ROOT / "params.yaml").read_text(encoding="utf-8")
COMMENT = re.compile(r"(?:^|\s)(#.*)$")  # no value in params.yaml holds a '#'
MAX_COMMENT_SHARE = 0.40


def comment_share(text: str) -> float:
    """Characters in comments (from '#' to the end of the line; a comment-only line whole) over all characters."""
    chars = 0
    for line in text.splitlines():
        m = COMMENT.search(line)
        if m:
            chars += len(line) if not line[:m.start(1)].strip() else len(m.group(1))
    return chars / len(text)


def test_comments_are_at_most_40_percent_of_params_yaml() -> None:
    share = comment_share(TEXT)
    assert share <= MAX_COMMENT_SHARE, (f"params.yaml is {share:.0%} comments (at most {MAX_COMMENT_SHARE:.0%}): "
                                        "one short comment per key; a deviation's why goes to "
                                        "planner/scaffold/deviations.py, a measured figure to docs/results.md")


def test_every_key_has_its_comment() -> None:
    # The lines read below are the file's keys (a section's own keys sit two spaces in).
    indented = {m.group(1) for line in TEXT.splitlines() if (m := re.match(r"^  (\w+):", line))}
    assert indented == {key for section in yaml.safe_load(TEXT).values() for key in section}
    section = None
    missing = []
    for line in TEXT.splitlines():
        if m := re.match(r"^(\w+):", line):
            section = m.group(1)
        elif (m := re.match(r"^  (\w+):", line)) and not COMMENT.search(line):
            missing.append(f"{section}.{m.group(1)}")
    assert not missing, f"params.yaml keys without a comment: {missing}"


def test_comment_share_counts_comment_lines_whole() -> None:
    assert comment_share("a: 1  # xy\n") == 4 / 11
    assert comment_share("# ab\na: 1\n") == 4 / 10
