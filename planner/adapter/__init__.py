"""The adapter: the seven hidden task arguments predicted from the instruction and the objects seen so far
(predict), with the argument values an instruction's words point to over ALFRED's train annotations (lexicon).

May import: planner.prompts, llm, household, pools.
"""
