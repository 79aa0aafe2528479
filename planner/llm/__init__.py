"""LLM access: one client (openai SDK) with cache, retries, accounting; an embedded llama.cpp server by default."""
from planner.llm.client import LLMClient, LLMResponse
from planner.llm.errors import LLMError
from planner.llm.settings import ROLES, LLMSettings
from planner.llm.usage import Usage

__all__ = ["LLMClient", "LLMResponse", "LLMError", "LLMSettings", "ROLES", "Usage"]
