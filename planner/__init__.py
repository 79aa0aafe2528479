"""The planner, one sub-package per role, in the order of the method:

    prompts/      what the planner says to the LLM: the prompt templates (<role>.txt, prompting.py) and the parsers
                  of what the model writes (parsing.py)
    retrieval/    the sentence encoder, exact kNN, the example pools and windows of their plans by situation; free
                  text mapped to legal sub-goals by the same encoder (grounding, subgoal_mapper)
    adapter/      the task's hidden arguments predicted from the instruction (predict.py), the train-wide lexicon
    follow/       the follower, an LLM-free reader of a pool: situations in roles (situation.py), the vote on the
                  nearest pool situations' next steps (reader.py)
    search/       actors, critic, belief generator, beam search (alg. 2); assembly.py builds a variant's machinery
                  for one episode
    loop/         the closed loop (alg. 1): one episode (episode.py: run_episode, History) in a fresh world, and
                  replaying a plan from a task's start (replay.py)
    relabel/      hindsight relabeling (alg. 3): phi, reflect / complete / critic samples (stages.py), gt samples
    scaffold/     our rules beyond the paper: the registry of deviations and the scaffold switch, the legal set as a
                  chain of filters, the goal gate's rules
    probe/        what a pool is worth at decisions: the decision states (states.py) and the picks there (picks.py);
                  a pool's quality (quality.py) and the expert's corrections of practice runs (corrections.py)
    views/        a pool's records as training data: samples and decisions as the planner's prompts show them (rows.py)
    config.py     PlannerConfig, from params.yaml (checked against the scaffold's registry)
    variants.py   the variants as data (which pools, actors, critic and search a run uses)
    agents.py     what each variant is, as its rows are named (ReAct as published, the paper's planner, the scaffold)

Imports point down. At the bottom, prompts/ and scaffold/ import nothing else of planner/; retrieval/ and adapter/
(on prompts/); follow/ on retrieval/ and scaffold/; config.py on scaffold/ and variants.py; search/ on all of these;
views/ and loop/ on search/; probe/ on loop/ (and follow/, adapter/), relabel/ on loop/ and probe/. Each sub-package's
__init__ names what it may import; tests/test_structure.py (PLANNER_MAY_IMPORT) checks it. Outside planner/ only household/, pools/ and llm/ (the LLM client) are imported.
"""
