"""What the planner says to the LLM and how it reads the answers: the prompt templates (<role>.txt, one per LLM
role), prompting.py (the templates filled with compact text blocks: examples, state, the plan so far, cut to fit the
context window) and parsing.py (strict parsers of plans, arguments and critic values: garbage yields None/[]).
The client that sends the prompts is the top-level llm/ package, below planner/.

May import: pools.
Nothing else of planner/: prompts/ is at the bottom of it, beside scaffold/.
"""
