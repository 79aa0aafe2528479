"""Test doubles shared by the test suites (see scripted_endpoint.py)."""
from tests.fakes.scripted_endpoint import Fault, Reply, Request, ScriptedEndpoint

__all__ = ["Fault", "Reply", "Request", "ScriptedEndpoint"]
