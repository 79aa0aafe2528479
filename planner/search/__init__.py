"""Search at a decision: the actors (few-shot proposers), the critic, the next-state generators and the beam search
over imagined rollouts (alg. 2); the follower as an actor (follow_actor: no LLM); assembly builds a variant's
machinery for one episode (build_planner).

May import: planner.prompts, planner.retrieval, planner.adapter, planner.follow, planner.scaffold,
planner.config, planner.variants, llm, household, pools.
"""
