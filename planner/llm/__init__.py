"""LLM access: the client, the prompt templates and the parsers of what the model writes.

One client (openai SDK) with cache, retries, accounting (client, settings, presets, store, usage); an embedded
llama.cpp server by default (embedded, llama_app, registry, locks); scripted: a fake OpenAI-compatible endpoint for
tests. prompting.py fills the role templates of prompts/*.txt; parsing.py reads plans, arguments and critic values
back (garbage yields None/[]).

May import: pools.
Nothing else of planner/: llm/ is at the bottom of it.
"""
from planner.llm.client import LLMClient, LLMResponse
from planner.llm.errors import LLMError
from planner.llm.settings import ROLES, LLMSettings
from planner.llm.usage import Usage

__all__ = ["LLMClient", "LLMResponse", "LLMError", "LLMSettings", "ROLES", "Usage"]
