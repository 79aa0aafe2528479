"""Settings of LLM calls: the `llm:` section of params.yaml, with per-role overrides."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

from llm.constrain import MODES

# Every LLM call names one of these roles (accounting, per-role overrides). A sub-role extends a role with a
# suffix, e.g. `actor_gt` / `actor_hind`: it takes the `actor` overrides, then its own.
ROLES: tuple[str, ...] = ("adapter", "actor", "critic", "generator", "reflect", "complete", "critic_sample")

EMBEDDED = "embedded"


def base_role(role: str) -> str:
    """Return the role in ROLES that `role` is or extends; raise ValueError for an unknown role."""
    if role in ROLES:
        return role
    for known in sorted(ROLES, key=len, reverse=True):
        if role.startswith(known + "_") and len(role) > len(known) + 1:
            return known
    raise ValueError(f"unknown LLM role {role!r}; expected one of {ROLES} or ROLE_suffix")


@dataclass(frozen=True)
class LLMSettings:
    """How one role's calls are made; build with `from_params(params['llm'])`, then `.for_role(role)`."""

    endpoint: str = EMBEDDED          # 'embedded' or an OpenAI-compatible base URL (e.g. https://api.openai.com/v1)
    model: str = "qwen2.5-coder-1.5b"  # embedded preset name, or the endpoint's model name
    temperature: float = 0.0
    max_tokens: int = 96
    timeout: float = 180.0            # seconds per request
    retries: int = 3                  # retries of transient faults, after the first attempt
    max_concurrency: int = 1          # calls in flight at once, per client
    seed: int | None = None           # sampling seed; with temperature > 0 it makes the call cacheable
    backoff: float = 1.0              # first retry delay in seconds (doubles per retry, capped at 30 s)
    n_ctx: int = 4096                 # embedded server: context window
    n_threads: int | None = None      # embedded server: CPU threads (None: all cores this process may use)
    cache_mb: int = 1024              # embedded server: bound of the prompt-prefix (KV state) cache
    constrain: str = "auto"           # constrained decoding: auto | grammar | json_schema | structured_outputs | guided | off
    roles: Mapping[str, Mapping[str, Any]] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if self.temperature < 0:
            raise ValueError("llm.temperature must be >= 0")
        if self.max_tokens < 1 or self.retries < 0 or self.max_concurrency < 1 or self.timeout <= 0:
            raise ValueError("llm: max_tokens >= 1, retries >= 0, max_concurrency >= 1, timeout > 0 required")
        if self.constrain not in MODES:
            raise ValueError(f"llm.constrain: {self.constrain!r} is not one of {list(MODES)}")
        for role, override in self.roles.items():
            base_role(role)
            _check_keys(override, f"llm.roles.{role}", allow_roles=False)
        object.__setattr__(self, "roles", MappingProxyType({k: MappingProxyType(dict(v)) for k, v in self.roles.items()}))

    @classmethod
    def from_params(cls, llm_section: Mapping[str, Any] | None) -> "LLMSettings":
        """Build settings from the `llm:` section of params.yaml (unknown keys are an error: typos fail loudly)."""
        section = dict(llm_section or {})
        _check_keys(section, "llm", allow_roles=True)
        if "api_key" in section:
            raise ValueError("llm.api_key is not allowed: the key comes only from OPENAI_API_KEY")
        section["roles"] = dict(section.get("roles") or {})
        return cls(**_coerce(section))

    def for_role(self, role: str) -> "LLMSettings":
        """Return the settings of `role`: base-role overrides, then the sub-role's own (roles: kept)."""
        base = base_role(role)
        merged: dict[str, Any] = {}
        merged.update(self.roles.get(base, {}))
        if role != base:
            merged.update(self.roles.get(role, {}))
        return dataclasses.replace(self, **_coerce(merged)) if merged else self

    @property
    def is_embedded(self) -> bool:
        """True when calls go to the embedded llama.cpp server."""
        return self.endpoint == EMBEDDED


_FIELDS = {f.name: f for f in dataclasses.fields(LLMSettings)}


def _check_keys(section: Mapping[str, Any], where: str, *, allow_roles: bool) -> None:
    allowed = set(_FIELDS) if allow_roles else set(_FIELDS) - {"roles"}
    unknown = sorted(set(section) - allowed)
    if "api_key" in unknown:
        raise ValueError(f"{where}.api_key is not allowed: the key comes only from OPENAI_API_KEY")
    if unknown:
        raise ValueError(f"{where}: unknown keys {unknown}; allowed: {sorted(allowed)}")


def _coerce(values: Mapping[str, Any]) -> dict[str, Any]:
    # YAML gives ints for floats (timeout: 180) and strings stay strings; normalise the numeric fields.
    out = dict(values)
    for name in ("temperature", "timeout", "backoff"):
        if name in out and out[name] is not None:
            out[name] = float(out[name])
    for name in ("max_tokens", "retries", "max_concurrency", "n_ctx", "cache_mb"):
        if name in out and out[name] is not None:
            out[name] = int(out[name])
    for name in ("seed", "n_threads"):
        if name in out and out[name] is not None:
            out[name] = int(out[name])
    if out.get("constrain") is False:  # YAML 1.1 reads a bare `off` as false
        out["constrain"] = "off"
    if "constrain" in out and out["constrain"] is not None:
        out["constrain"] = str(out["constrain"]).strip().lower()
    if "endpoint" in out:
        out["endpoint"] = str(out["endpoint"]).rstrip("/")
    return out
