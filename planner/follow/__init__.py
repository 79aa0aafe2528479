"""The follower: an LLM-free reader of a pool. Situations in the task's own terms, every class written as the role
it plays (situation.py), and the reader that votes on the next steps of the nearest pool situations and
instantiates the winner with the live classes (reader.py).

May import: planner.retrieval, planner.scaffold, household, pools.
"""
