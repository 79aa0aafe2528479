"""How an evaluation's games end, from their records: the figures a prose read of the episodes rests on.

    python -m benchmarks.read_games FILE... [--game TEXT] [--steps N]

FILE: an evaluation's records (data/eval/<variant>.jsonl) or its journal (evaluate-<variant>-<key>.jsonl, as
HINDSIGHT_JOURNAL_DIR keeps it; the last line of a game wins). Per variant: games and successes, how the games
ended (stop reasons), the failures that ended at the agent's own Stop (median sub-goals and GC), the failures that
end in a loop or a cycle (at most 2 or at most 4 distinct commands in their last 10; ReAct's thoughts left out),
the adapter's argument accuracy, the share of executed sub-goals the LLM decided, and ReAct's re-asked commands.
`--game TEXT` prints, per variant, the steps of the games whose id or goal holds TEXT (to read them; a ReAct turn
that was asked again constrained to the admissible commands reads "(re-asked)"). No model runs.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any, Iterable

Row = dict[str, Any]
WINDOW = 10  # the last steps a loop or a cycle is looked for in


def load(files: Iterable[Path]) -> dict[str, list[Row]]:
    """Rollouts by variant, one per game (a journal's later line for a game replaces its earlier one)."""
    out: dict[str, dict[str, Row]] = {}
    for file in files:
        for n, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as exc:
                raise SystemExit(f"{file}:{n}: not JSON ({exc})") from exc
            rec = row.get("record", row) if isinstance(row, dict) else None
            if not isinstance(rec, dict) or not {"variant", "task_id", "steps", "success"} <= rec.keys():
                if isinstance(row, dict) and "record" in row and row["record"] is None:
                    continue  # a journal line of a game that failed to run: no record
                raise SystemExit(f"{file}:{n}: expected a rollout record (variant, task_id, steps, success) or a "
                                 f"journal line holding one in `record`")
            out.setdefault(rec["variant"], {})[rec["task_id"]] = rec
    return {v: list(games.values()) for v, games in sorted(out.items())}


def commands(rec: Row) -> list[str]:
    """The executed steps that reach the world (ReAct's thoughts do not)."""
    return [s["subgoal"] for s in rec["steps"] if not s["subgoal"].startswith("Think:")]


def distinct_tail(rec: Row, window: int = WINDOW) -> int | None:
    """Distinct commands among the last `window` (None when the game issued fewer)."""
    cmds = commands(rec)
    return len(set(cmds[-window:])) if len(cmds) >= window else None


def _median(xs: list[float]) -> float | None:
    return round(statistics.median(xs), 2) if xs else None


def summary(rows: list[Row]) -> Row:
    """The figures of one variant's games."""
    fails = [r for r in rows if not r["success"]]
    stops: dict[str, int] = {}
    for r in rows:
        reason = r["metrics"].get("stop_reason", "?")
        stops[reason] = stops.get(reason, 0) + 1
    early = [r for r in fails if r["metrics"].get("stop_reason") == "stop"]
    tails = [distinct_tail(r) for r in fails]
    acc = [r["metrics"]["adapter_acc_mean"] for r in rows if r["metrics"].get("adapter_acc_mean") is not None]
    executed = sum(int(r["metrics"].get("subgoals_executed", 0)) for r in rows)
    decided = sum(int(r["metrics"].get("llm_decided", 0)) for r in rows)
    asked = [int(r["metrics"].get("react_constrained", 0)) for r in rows]
    return {
        "games": len(rows), "successes": len(rows) - len(fails), "stop_reasons": dict(sorted(stops.items())),
        "early_stop": {"failures": len(early), "median_subgoals": _median([len(r["steps"]) for r in early]),
                       "median_gc": _median([r["gc"] for r in early])},
        "loops": sum(1 for t in tails if t is not None and t <= 2),
        "cycles": sum(1 for t in tails if t is not None and t <= 4),
        "failures": len(fails),
        "adapter": {"games": len(acc), "mean": round(statistics.fmean(acc), 3) if acc else None,
                    "all_right": sum(1 for a in acc if a == 1.0)},
        "llm_decided": round(decided / executed, 3) if executed else None,
        "reasked": {"commands": sum(asked), "games": sum(1 for a in asked if a),
                    "successes": sum(1 for a, r in zip(asked, rows) if a and r["success"])},
    }


def report(by_variant: dict[str, list[Row]]) -> list[str]:
    """The summaries as markdown lines."""
    lines = ["| variant | games | won | stops | early Stop (median sub-goals, GC) | loops / cycles of failures "
             "| adapter (mean, all 7 right) | LLM decided | re-asked (commands, games, won) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for v, rows in by_variant.items():
        s = summary(rows)
        e, a, q = s["early_stop"], s["adapter"], s["reasked"]
        stops = ", ".join(f"{k} {n}" for k, n in s["stop_reasons"].items())
        early = f"{e['failures']} ({e['median_subgoals']}, {e['median_gc']})" if e["failures"] else "0"
        adapter = f"{a['mean']}, {a['all_right']}/{a['games']}" if a["games"] else "-"
        decided = "-" if s["llm_decided"] is None else f"{s['llm_decided']:.0%}"
        lines.append(f"| {v} | {s['games']} | {s['successes']} | {stops} | {early} | {s['loops']} / {s['cycles']} "
                     f"of {s['failures']} | {adapter} | {decided} | {q['commands']}, {q['games']}, {q['successes']} |")
    return lines


def game_steps(by_variant: dict[str, list[Row]], text: str, limit: int) -> list[str]:
    """The steps of the games whose id or goal holds `text`, per variant."""
    out = []
    for v, rows in by_variant.items():
        for r in rows:
            if text.lower() not in (r["task_id"] + " " + r.get("instruction", "")).lower():
                continue
            out.append(f"## {v}: {r['task_id']} ({r.get('instruction', '')}): "
                       f"{'won' if r['success'] else 'lost'}, {r['metrics'].get('stop_reason')}, GC {r['gc']:.2f}, "
                       f"{len(r['steps'])} steps, {r['metrics'].get('alfworld_actions')} ALFWorld actions")
            for i, s in enumerate(r["steps"][:limit], 1):
                offered = ", ".join(f"{c['subgoal']}" + (f" {c['value']:.2f}" if c.get("value") is not None else "")
                                    for c in s.get("candidates") or [])
                out.append(f"{i:3d}. {s['subgoal']} [{'ok' if s['ok'] else 'failed: ' + (s.get('reason') or '')}]"
                           f" by {s.get('chosen_by', '?')}" + (" (re-asked)" if s.get("reasked") else "")
                           + (f"; offered: {offered}" if offered else ""))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", type=Path, help="data/eval/<variant>.jsonl or evaluate-<variant>-*.jsonl")
    ap.add_argument("--game", default="", help="print the steps of the games whose id or goal holds this text")
    ap.add_argument("--steps", type=int, default=60, help="steps printed a game (--game)")
    args = ap.parse_args(argv)
    for f in args.files:
        if not f.is_file():
            ap.error(f"{f}: no such file")
    by_variant = load(args.files)
    print("\n".join(game_steps(by_variant, args.game, args.steps) if args.game else report(by_variant)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
