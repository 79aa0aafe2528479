"""A pool's records as training data: each sample as the planner's actor and critic prompts show it, and every
decision of its plans as a prompt and the answer to learn (rows), built by the planner's own prompt code.

May import: planner.prompts, planner.search, pools.
"""
