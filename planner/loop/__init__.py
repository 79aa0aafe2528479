"""The closed loop (alg. 1): one episode, observe, predict arguments, search, execute, record (episode:
run_episode, History); replay: a fresh world at a task's start, and a sub-goal sequence executed in it (the verifier
of every sample).

May import: planner.prompts, planner.retrieval, planner.search, planner.scaffold, planner.config, planner.variants,
household, pools.
"""
