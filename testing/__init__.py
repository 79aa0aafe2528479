"""Shared test infrastructure that tests and benchmarks both import: reliability workspaces, fault tables, and a
stand-in stage (`testing.driver`). It sits on top of the layering (it may import flows/); nothing imports it but
tests/ and benchmarks/. The scripted OpenAI-compatible endpoint itself is `llm.scripted`."""
