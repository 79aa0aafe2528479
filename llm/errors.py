"""The one error type LLM callers handle: a call that failed after its retries."""
from __future__ import annotations


class LLMError(Exception):
    """An LLM call failed for good; callers record it per item (`.role`, `.reason`) and carry on."""

    def __init__(self, role: str, reason: str, detail: str = "", attempts: int = 1) -> None:
        self.role = role
        self.reason = reason  # short code: timeout, connection, http_<status>, malformed_response, server_start, ...
        self.detail = detail
        self.attempts = attempts
        super().__init__(f"LLM call for role {role!r} failed after {attempts} attempt(s): {reason}"
                         + (f" ({detail})" if detail else ""))

    def __reduce__(self):  # type: ignore[no-untyped-def]
        # Rebuilt from its fields, so it crosses processes (a Dask worker's failed item) intact.
        return (type(self), (self.role, self.reason, self.detail, self.attempts))
