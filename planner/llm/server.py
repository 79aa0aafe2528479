"""TEMPORARY alias of the modules this file was split into (planner.llm.registry, .embedded, .llama_app).

Kept only so that processes started before the split (which import it lazily, or start `python -m
planner.llm.server` children) keep working; delete it.
"""
from planner.llm.embedded import EmbeddedServer, ensure_server, serve_foreground, stop_owned_servers  # noqa: F401
from planner.llm.llama_app import ServerOptions, child_main
from planner.llm.registry import HOST, ServerState, healthy, running_server, state_path  # noqa: F401

if __name__ == "__main__":
    child_main()
