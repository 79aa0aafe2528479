"""LLM access: the client, the prompt templates and the parsers of what the model writes.

One client (openai SDK) with cache, retries, accounting (client, settings, presets, store, usage); an embedded
llama.cpp server by default (embedded, llama_app, registry, locks); scripted: a fake OpenAI-compatible endpoint for
tests. prompting.py fills the role templates of prompts/*.txt; parsing.py reads plans, arguments and critic values
back (garbage yields None/[]).

May import: pools.
Nothing else of planner/: llm/ is at the bottom of it.
"""
