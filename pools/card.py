"""The body of an exported pool's dataset card (README.md under its YAML header): what it holds, who wrote each kind
of sample (models, prompt templates and their hashes), how samples were verified, the pool's quality and probe
figures, the commit and params it came from, its sources and their licences, and how to publish it.

Generated from the pools' records and manifests (pools/manifest.py) and the facts the export gathers; pure text.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import yaml

from pools.analysis.probe_metrics import config_text
from pools.schemas import load_schema

# How each kind of sample is checked before it is pooled (pool, kind) -> text.
VERIFIED = {
    ("gt", "gt"): "the expert's plan (household/expert/expert.py) replayed from the task's start in the simulator; "
                  "pooled only when it reaches the goal with no failed step",
    ("gt", "critic"): "a prefix of a pooled expert plan (half of it, or all of it), valued a/b by replaying it: goal "
                      "conditions met / total",
    ("hindsight", "hindsight"): "the LLM's completion of a practice run, replayed from the task's start in a fresh "
                                "world; pooled only when the replay reaches the goal (`verified`), unless "
                                "relabel.keep_unverified",
    ("hindsight", "critic"): "the LLM's value a/b of a practice run; pooled only when it equals the replay's "
                             "(`verified`), unless relabel.keep_unverified",
    ("hindsight", "correction"): "no LLM: at a state a practice run reached by a step that did not lower the "
                                 "expert's cost-to-go, every legal option after which it is least (household/expert/"
                                 "cost_to_go.py), by replay; pooled with relabel.corrections",
}
# What a row of each view is, and how to load it.
VIEW_TEXT = {
    "actor": "an actor sample: `text` as the planner's actor prompt shows it among its examples; `prompt` + `answer` "
             "the same sample as the actor prompt at the task's start and its plan",
    "critic": "a critic sample: `text` as the critic's prompt shows it among its examples; `prompt` + `answer` the "
              "critic prompt for its plan and the value a/b",
    "sft": "a decision: `messages`, the actor prompt at that step of a gt or hindsight plan, or at a correction's "
           "state (user), and the next sub-goal (assistant); a failed step stays in the plan of later decisions but "
           "is not an answer",
    "preference": "a correction: at a state after a wrong step, the actor prompt there (`prompt`), the expert's "
                  "next sub-goal (`chosen`) and the step the robot took there (`rejected`)",
}
NO_PREFERENCE = ("This pool version holds no correction records that make a pair (relabel.corrections pools them), so "
                 "`preference` has no rows: a preference pair needs "
                 "the expert's next sub-goal at a state after a wrong step (chosen) against the step the robot took "
                 "there (rejected), and neither the ground-truth nor the hindsight samples hold such a pair (a "
                 "hindsight sample's failed steps are the robot's, with no expert step beside them). Its Parquet file "
                 "holds the configuration's columns and no row, and the header does not declare it: the `datasets` "
                 "library does not build a split of zero rows, so `load_dataset(DIR, CONFIG)` loads every configuration "
                 "the header names; polars and pyarrow read the empty file.")
LOCAL_PATH = "(a local path)"


@dataclass(frozen=True)
class Author:
    """An LLM role that wrote a kind of sample of a pool (kind 'practice': the runs that were relabeled)."""

    pool: str
    kind: str
    role: str
    model: str
    licence: str
    template: str
    template_sha256: str


@dataclass(frozen=True)
class Source:
    """Where part of the data comes from, under which licence; `restricted`: its terms limit what may be shared or
    trained on."""

    name: str
    what: str
    licence: str
    restricted: bool = False


@dataclass
class CardFacts:
    """What the card says, gathered by the export."""

    title: str
    made_by: str  # how the folder was made (the command, the revision)
    commit: str  # the commit the revision resolves to ('' for the workspace)
    pools: Mapping[str, Sequence[Mapping[str, Any]]]  # pool -> its records
    manifests: Mapping[str, Mapping[str, Any] | None]  # pool -> its manifest
    views: Mapping[str, tuple[str, int]]  # view -> (schema, rows)
    authors: Sequence[Author]
    view_templates: Mapping[str, str]  # template -> sha256 of this checkout's, which rendered the views
    probe: Mapping[str, Mapping[str, Any]] | str  # configuration -> figures, or why there are none
    sources: Sequence[Source]
    licence: str  # the card header's licence
    notes: list[str] = field(default_factory=list)


def card_body(f: CardFacts) -> str:
    """The card's Markdown body."""
    parts = [f"# {f.title}", _intro(f), _views(f), _counts(f), _authors(f), _verified(f), _quality(f),
             _provenance(f), _licences(f), _publish(f), _columns(f)]
    return "\n\n".join(p.rstrip("\n") for p in parts) + "\n"


def _intro(f: CardFacts) -> str:
    return ("The example pools of the Hindsight Planner, a few-shot LLM planner for household instructions on "
            "ALFRED: ground-truth samples (the expert's plans), hindsight samples (the agent's own practice runs, "
            "relabeled by an LLM and replayed until they reach the goal) and critic samples (plans with their value "
            f"a/b), as training views. {f.made_by}. Every row keeps `sample_id`, the id of its record in "
            "`data/pools/<pool>.jsonl`.\n\n"
            "    from datasets import load_dataset\n"
            "    sft = load_dataset(\"DIR\")                   # the default configuration: sft\n"
            "    actor = load_dataset(\"DIR\", \"actor\")        # or critic, preference")


def _table(head: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _views(f: CardFacts) -> str:
    rows = [(f"`{v}`", n, VIEW_TEXT.get(v, "")) for v, (_, n) in f.views.items()]
    text = "## Configurations\n\n" + _table(("configuration", "rows", "a row"), rows)
    text += ("\n\nThe prompts are the planner's own (planner/views/rows.py builds them with the actor's and critic's "
             "prompt code), without retrieved examples, and show what a sample records: the task, its arguments "
             "and the plan so far (not what the robot saw or held). Templates that rendered them: "
             + ", ".join(f"`{t}.txt` (sha256 {h})" for t, h in sorted(f.view_templates.items())) + ".")
    if f.views.get("preference", ("", 1))[1] == 0:
        text += "\n\n### preference\n\n" + NO_PREFERENCE
    return text


def _counts(f: CardFacts) -> str:
    out = ["## Counts"]
    for pool, records in f.pools.items():
        by = Counter((r["task_type"], r["kind"]) for r in records)
        kinds = sorted({k for _, k in by})
        types = sorted({t for t, _ in by})
        rows = [(t, *(by[(t, k)] for k in kinds), sum(by[(t, k)] for k in kinds)) for t in types]
        rows.append(("**all**", *(sum(by[(t, k)] for t in types) for k in kinds), len(records)))
        out.append(f"`{pool}` pool: {len(records)} records\n\n" + _table(("task type", *kinds, "all"), rows))
    return "\n\n".join(out)


def _authors(f: CardFacts) -> str:
    rows = []
    for pool, records in f.pools.items():
        for kind in sorted({r["kind"] for r in records}):
            mine = [a for a in f.authors if a.pool == pool and a.kind == kind]
            rows += [(f"{pool} / {kind}", a.role, f"`{a.model}`", a.licence, f"`{a.template}.txt` {a.template_sha256}")
                     for a in mine] or [(f"{pool} / {kind}", "no LLM: ALFRED's expert", "", "", "")]
    rows += [(f"{a.pool} / practice runs", a.role, f"`{a.model}`", a.licence, f"`{a.template}.txt` {a.template_sha256}")
             for a in f.authors if a.kind == "practice"]
    return ("## Who wrote each kind\n\nThe model of each LLM role, from the pool's manifest, and the prompt template "
            "at the pool's commit with its sha256 (first 12 hex digits). Practice runs are the planner's episodes that "
            "the hindsight samples relabel.\n\n" + _table(("pool / kind", "role", "model", "model licence",
                                                          "prompt template"), rows))


def _verified(f: CardFacts) -> str:
    rows = [(f"{pool} / {kind}", VERIFIED.get((pool, kind), "not recorded")) for pool, records in f.pools.items()
            for kind in sorted({r["kind"] for r in records})]
    return "## How samples were verified\n\n" + _table(("pool / kind", "check"), rows)


def _quality(f: CardFacts) -> str:
    lines = ["## Quality and the probe", ""]
    for pool, man in f.manifests.items():
        if not man:
            lines.append(f"- `{pool}`: no manifest")
            continue
        params = man.get("params") or {}
        bits = [f"{man['records']} records", f"verified share {man['verified_share']:.2f}",
                f"{man['quarantined']} input rows quarantined"]
        if "material" in params:
            m = params["material"]
            bits.append(f"hindsight samples: {m.get('recovery', 0)} recovery material, {m.get('clean', 0)} clean "
                        "successes")
        if "practice" in params:
            p = params["practice"]
            bits.append(f"{p.get('rollouts', 0)} practice runs (" + ", ".join(
                f"planner {k}: {v['succeeded']} of {v['rollouts']} succeeded"
                for k, v in (p.get("by_planner") or {}).items()) + ")")
        lines.append(f"- `{pool}`: " + "; ".join(bits))
    lines.append("")
    if isinstance(f.probe, str):
        lines.append(f"The probe (data/probe/picks.jsonl): {f.probe}")
    else:
        lines.append("The probe (data/probe/picks.jsonl): each configuration's pick at decision states, scored by the "
                     "expert's cost-to-go; the optimal-pick rate and mean regret with 95% intervals that resample "
                     "tasks.\n")
        lines += [f"- {config_text(fig)}" for fig in f.probe.values()]
    return "\n".join(lines)


def _provenance(f: CardFacts) -> str:
    lines = ["## Where it came from", "", f"- {f.made_by}"]
    if f.commit:
        lines.append(f"- commit: `{f.commit}`")
    for pool, man in f.manifests.items():
        if man:
            lines.append(f"- `{pool}` pool: content sha256 `{man['content_sha256']}`, schema {man['schema']} "
                         f"{man['schema_version']}")
    lines += [f"- {n}" for n in f.notes]
    for pool, man in f.manifests.items():
        if man:
            params = yaml.safe_dump(_redacted(man.get("params") or {}), sort_keys=True, width=110).rstrip("\n")
            lines += ["", f"The params the `{pool}` pool's stage read (its manifest):", "",
                      *("    " + ln for ln in params.splitlines())]
    return "\n".join(lines)


def _licences(f: CardFacts) -> str:
    rows = [(s.name, s.what, s.licence) for s in f.sources]
    text = (f"## Sources and licences\n\nThis card declares `license: {f.licence}`.\n\n"
            + _table(("source", "what it gave", "licence"), rows))
    restricted = [s for s in f.sources if s.restricted]
    if restricted:
        text += ("\n\n**Check before sharing.** These sources' terms may restrict sharing the data or training "
                 "models on it: " + "; ".join(f"{s.name} ({s.licence})" for s in restricted) + ".")
    return text


def _publish(f: CardFacts) -> str:
    return ("## Publishing\n\nNothing here was uploaded. With network access and a Hugging Face token "
            "(`hf auth login`), `hf upload USER/NAME DIR . --repo-type dataset` publishes the folder as it is "
            "(older huggingface_hub: `huggingface-cli upload USER/NAME DIR . --repo-type dataset`). Read "
            "*Sources and licences* first: the data derives from ALFRED and ALFWorld, and the LLM-written samples "
            "carry their model's terms.")


def _columns(f: CardFacts) -> str:
    out = ["## Columns"]
    for view, (schema, _) in f.views.items():
        spec = load_schema(schema)
        rows = [(f"`{name}`", " ".join(str(prop.get("description", "")).split())) for name, prop in
                spec["properties"].items()]
        out.append(f"`{view}` (schemas/{schema}.schema.json, version {spec['version']}): "
                   + " ".join(str(spec.get("description", "")).split()) + "\n\n" + _table(("column", "meaning"), rows))
    return "\n\n".join(out)


def _redacted(node: Any) -> Any:
    """`node` with every absolute local path replaced: a card never names a path of the machine it was made on."""
    if isinstance(node, dict):
        return {k: _redacted(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_redacted(v) for v in node]
    if isinstance(node, str) and (node.startswith(("/", "~")) or (len(node) > 2 and node[1:3] in (":\\", ":/"))):
        return LOCAL_PATH
    return node
