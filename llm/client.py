"""The one LLM client: every call goes through it (openai SDK), cached, retried, bounded and accounted.

Caching: a call is cached when its answer is reproducible: temperature 0, or temperature > 0 with a seed
(the seed is part of the key, so each seed has its own entry). Sampled calls without a seed bypass the
cache (they are still accounted). The key is the model id + call kind + prompt/messages + sampling params
(max_tokens, temperature, stop, seed, grammar, response_format); never the API key, endpoint port or timeout.

Constrained decoding: a call given a `Constraint` (llm/constrain.py) sends it in the dialect of the role's
`constrain` mode (the fields become part of the cache key) and always validates the answer, because a server that
does not know a field ignores it and answers free text with HTTP 200. The verdict is `LLMResponse.legal` and is
counted per role in `usage` (`constrained`, `illegal`); an illegal answer is returned, never raised.
Mode `auto` resolves once per endpoint (cached per base URL):
  embedded -> grammar; host api.openai.com -> json_schema (chat only);
  GET /v1/models with owned_by "vllm" -> structured_outputs, or guided when GET /version says < 0.10.2;
  owned_by "llamacpp" (llama-server) or "me" (llama-cpp-python) -> grammar; anything else, or no listing -> off.

Scoring (`score`): the log-probabilities of given continuations of one prompt, from the completions API's `echo` with
`logprobs`; cached (call kind `score`) and accounted like any call.
"""
from __future__ import annotations

import json
import logging
import os
import random
import re
import threading
import time
import uuid
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence
from urllib.parse import urlsplit

from llm.constrain import Constraint, ConstraintError
from llm.errors import LLMError
from llm.paths import llm_cache_dir
from llm.settings import LLMSettings, base_role
from llm.store import DB_NAME, Store, cache_key
from llm.usage import CallRecord, Usage

log = logging.getLogger(__name__)

__all__ = ["LLMClient", "LLMResponse", "LLMError", "LLMSettings", "Usage"]

_MAX_BACKOFF_S = 30.0
_NO_KEY = "sk-no-key-needed"  # local endpoints ignore the key; the SDK insists on one


@dataclass(frozen=True)
class LLMResponse:
    """The text of one call and what it cost (`cached`: served from the response cache)."""

    text: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    cached: bool
    seconds: float
    retries: int
    finish_reason: str | None = None
    legal: bool | None = None     # None: no constraint; else whether `text` is one legal answer (validated)
    constrain: str | None = None  # None: no constraint; else the mode sent (grammar, json_schema, ..., off)
    logprobs: tuple[tuple[float, ...], ...] | None = None  # `score`: per continuation, its tokens' log-probabilities


class _Transient(Exception):
    """A fault worth retrying (timeout, connection, 408/409/429/5xx, unreadable response)."""

    def __init__(self, reason: str, detail: str = "", retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason, self.detail, self.retry_after = reason, detail, retry_after


class LLMClient:
    """Thread-safe client over one or more OpenAI-compatible endpoints (per-role settings)."""

    def __init__(self, settings: LLMSettings, cache_dir: Path | None = None) -> None:
        self.settings = settings
        self.cache_dir = Path(cache_dir) if cache_dir is not None else llm_cache_dir()
        self.store = Store(self.cache_dir / DB_NAME)
        self.usage = Usage()
        self.run_id = uuid.uuid4().hex[:12]
        self._lock = threading.Lock()
        self._sdk: dict[str, Any] = {}                     # base URL -> openai.OpenAI
        self._slots: dict[tuple[str, str], threading.BoundedSemaphore] = {}
        # Set by whoever runs this process among others that share an endpoint (flows.runtime.items on a Dask
        # worker): (endpoint, model, max_concurrency) -> a lease held around each request on top of this process's
        # semaphore, so that `llm.max_concurrency` caps the requests in flight across all of them.
        self.limiter: Callable[[str, str, int], AbstractContextManager[Any]] | None = None
        self._modes: dict[str, str] = {}                   # base URL -> constrain mode found by `auto`
        self._closed = False

    # ---- public API -------------------------------------------------------------------------------------
    @property
    def model_id(self) -> str:
        """Identifier of the default model, for manifests (no key, no port, no credentials)."""
        return self.model_id_for(None)

    def model_id_for(self, role: str | None) -> str:
        """Identifier of the model a role's calls go to."""
        return _model_id(self.settings.for_role(role) if role else self.settings)

    def supports_chat(self, role: str) -> bool:
        """False for embedded base models without a chat template (use `complete` with few-shot text)."""
        s = self.settings.for_role(role)
        if not s.is_embedded:
            return True
        from llm.presets import preset
        return preset(s.model).chat_format is not None

    def complete(self, role: str, prompt: str, *, max_tokens: int | None = None, stop: str | Sequence[str] | None = None,
                 temperature: float | None = None, seed: int | None = None, grammar: str | None = None,
                 constraint: Constraint | None = None) -> LLMResponse:
        """Raw text continuation of `prompt` (completions endpoint); `constraint`: the legal answers (see module doc)."""
        s = self.settings.for_role(role)
        request = _sampling(s, max_tokens, stop, temperature, seed)
        request["prompt"] = prompt
        if grammar is not None:
            request["grammar"] = grammar
        mode = self._constrain(role, s, "completions", request, constraint)
        return self._call(role, s, "completions", request, constraint, mode)

    def chat(self, role: str, messages: Sequence[Mapping[str, Any]], *, max_tokens: int | None = None,
             stop: str | Sequence[str] | None = None, temperature: float | None = None, seed: int | None = None,
             response_format: Mapping[str, Any] | None = None, grammar: str | None = None,
             constraint: Constraint | None = None) -> LLMResponse:
        """Chat completion over `messages`, sent exactly in the given order; `constraint` as in `complete`."""
        s = self.settings.for_role(role)
        request = _sampling(s, max_tokens, stop, temperature, seed)
        request["messages"] = [dict(m) for m in messages]
        if response_format is not None:
            request["response_format"] = _response_format(s, response_format)
        if grammar is not None:
            request["grammar"] = grammar
        mode = self._constrain(role, s, "chat", request, constraint)
        return self._call(role, s, "chat", request, constraint, mode)

    def score(self, role: str, prompt: str, continuations: Sequence[str]) -> LLMResponse:
        """The log-probability of each continuation after `prompt`, token by token (`LLMResponse.logprobs`).

        One completions request whose prompts are `prompt` + each continuation, with `echo` and `logprobs` (the
        OpenAI API's prompt log-probabilities; vLLM answers it with its prefix cache, the embedded server with
        llm/llama_score.py: the shared prompt evaluated once). `prompt` itself comes first, never read: a server
        that computes only the tokens past the prompts' shared tokens (ours) then computes every token the
        continuations add, even where they all begin alike. It generates one token (`max_tokens: 1`, as vLLM
        requires), never read; none on the embedded server (`max_tokens: 0`: a prompt's last token is then not
        evaluated, only read from the one before). Always at temperature 0, so always cached. An endpoint that
        returns no log-probabilities raises LLMError with reason `no_logprobs`.
        """
        if isinstance(continuations, str) or not continuations or not all(continuations):
            raise ValueError("score takes a sequence of non-empty continuations")
        s = self.settings.for_role(role)
        request = {"prompt": [prompt] + [prompt + c for c in continuations], "echo": True, "logprobs": 1,
                   "max_tokens": 0 if s.is_embedded else 1, "temperature": 0.0, "_stem": len(prompt)}
        return self._call(role, s, "score", request)

    def constrain_mode(self, role: str) -> str:
        """The constrained-decoding mode of `role`'s calls: its `constrain` setting, with `auto` resolved."""
        s = self.settings.for_role(role)
        if s.constrain != "auto":
            return s.constrain
        if s.is_embedded:
            return "grammar"  # llama-cpp-python server
        with self._lock:
            known = self._modes.get(s.endpoint)
        if known is not None:
            return known
        mode, definitive = self._detect(s)
        if definitive:  # a connection fault is not an answer: ask again on the next call
            with self._lock:
                self._modes[s.endpoint] = mode
            log.info("LLM endpoint %s: constrained decoding mode %s", _model_id(s), mode)
        return mode

    def close(self) -> None:
        """Close HTTP connections and the cache db (embedded servers stop when the process exits)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            for sdk in self._sdk.values():
                try:
                    sdk.close()
                except Exception:  # noqa: BLE001 - closing is best effort
                    pass
            self._sdk.clear()
        self.store.close()

    def __enter__(self) -> "LLMClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- constrained decoding ------------------------------------------------------------------------------
    def _constrain(self, role: str, s: LLMSettings, kind: str, request: dict[str, Any],
                   constraint: Constraint | None) -> str | None:
        """Add the constraint's fields for the role's mode to `request`; return the mode sent (None: no constraint)."""
        if constraint is None:
            return None
        if not isinstance(constraint, Constraint):
            raise TypeError(f"constraint must be a Constraint, got {type(constraint).__name__}")
        if "grammar" in request or "response_format" in request:
            raise ValueError("pass either a constraint or grammar/response_format, not both")
        base_role(role)
        mode = self.constrain_mode(role)
        if mode == "grammar":
            request["grammar"] = constraint.gbnf()
        elif mode == "json_schema":
            if kind != "chat":
                return "off"  # response_format exists for chat only; the answer is still validated
            try:
                request["response_format"] = _response_format(s, constraint.response_format())
            except ConstraintError as exc:  # over OpenAI's enum limits: send it unconstrained
                log.warning("LLM %s call: constraint not sent as json_schema (%s)", role, exc)
                return "off"
        elif mode == "structured_outputs":
            choices = constraint.choices
            request["structured_outputs"] = {"choice": list(choices)} if choices else {"regex": constraint.regex()}
        elif mode == "guided":
            choices = constraint.choices
            if choices:
                request["guided_choice"] = list(choices)
            else:
                request["guided_regex"] = constraint.regex()
        return mode

    def _detect(self, s: LLMSettings) -> tuple[str, bool]:
        """Find what a remote endpoint supports; returns (mode, definitive)."""
        import openai

        host = (urlsplit(s.endpoint).hostname or "").lower()
        if host == "api.openai.com":
            return "json_schema", True
        try:
            sdk, _ = self._endpoint(s)
            owners = {str(getattr(m, "owned_by", "") or "").lower()
                      for m in sdk.models.list(timeout=min(s.timeout, 10.0))}
        except openai.APIStatusError:
            return "off", True   # no model listing: an endpoint we cannot identify
        except Exception as exc:  # noqa: BLE001 - connection faults, odd bodies: undecided for now
            log.warning("LLM endpoint %s: could not list models (%s); unconstrained for now", _model_id(s),
                        _short(str(exc)))
            return "off", False
        if "vllm" in owners:
            version = _vllm_version(s)
            # `structured_outputs` arrived in vLLM 0.10.2; the guided_* fields it replaced went in 0.12.
            return ("guided" if version is not None and version < (0, 10, 2) else "structured_outputs"), True
        if owners & {"llamacpp", "me"}:  # llama.cpp's llama-server; llama-cpp-python's server (our embedded one)
            return "grammar", True
        return "off", True

    # ---- one call -----------------------------------------------------------------------------------------
    def _call(self, role: str, s: LLMSettings, kind: str, request: dict[str, Any],
              constraint: Constraint | None = None, mode: str | None = None) -> LLMResponse:
        base_role(role)
        if self._closed:
            raise RuntimeError("LLMClient is closed")
        model_id = _model_id(s)
        cacheable = request["temperature"] == 0 or request.get("seed") is not None
        key = cache_key(model_id, kind, request) if cacheable else None
        t0 = time.perf_counter()
        if key is not None:
            hit = self.store.get(key)
            if hit is not None:
                resp = _response(hit, constraint, mode, model_id, cached=True, seconds=time.perf_counter() - t0,
                                 retries=0)
                self._account(role, model_id, resp, None)
                return resp
        retries = 0
        try:
            with self._slot(s):
                while True:
                    try:
                        payload = self._request(role, s, kind, request)
                        break
                    except _Transient as fault:
                        if retries >= s.retries:
                            raise LLMError(role, fault.reason, fault.detail, attempts=retries + 1) from None
                        delay = min(_MAX_BACKOFF_S, s.backoff * 2 ** retries) * random.uniform(0.75, 1.0)
                        if fault.retry_after is not None:
                            delay = max(delay, min(_MAX_BACKOFF_S, fault.retry_after))
                        retries += 1
                        log.warning("LLM %s call: %s (%s); retry %d/%d in %.1f s", role, fault.reason,
                                    fault.detail[:200], retries, s.retries, delay)
                        time.sleep(delay)
        except LLMError as err:
            err.attempts = retries + 1
            self._account(role, model_id, LLMResponse("", model_id, 0, 0, False, time.perf_counter() - t0, retries),
                          err.reason)
            raise
        resp = _response(payload, constraint, mode, model_id, cached=False, seconds=time.perf_counter() - t0,
                         retries=retries)
        if key is not None:  # the raw answer: it is judged again on every hit
            self.store.put(key, model_id, payload)
        self._account(role, model_id, resp, None)
        return resp

    def _request(self, role: str, s: LLMSettings, kind: str, request: dict[str, Any]) -> dict[str, Any]:
        """One HTTP attempt; returns the answer as cached (`_response` reads it) or raises."""
        import openai

        try:
            sdk, served_model = self._endpoint(s)
        except Exception as exc:  # noqa: BLE001 - the embedded server could not start
            raise LLMError(role, "server_start", _short(str(exc), 2000)) from exc
        # The SDK's own verb for a request it has no typed method for (`post`, the body read as text): the same
        # JSON body (server-specific fields such as `grammar` included), auth, timeout and error types as
        # `completions.create`, without its typed-params transform and response models, which cost more CPU per
        # call than the rest of a planner step (bench_scale). Keys starting with "_" are ours (cache key only).
        body = {"model": served_model, **{k: v for k, v in request.items() if not k.startswith("_")}}
        try:
            text_body = sdk.post("/chat/completions" if kind == "chat" else "/completions", cast_to=str, body=body,
                                 options={"timeout": s.timeout, "security": {"bearer_auth": True}})
            raw = json.loads(text_body)
            choice = raw["choices"][0]
            text = (choice["message"].get("content") if kind == "chat" else choice.get("text")) or ""
        except openai.APITimeoutError as exc:
            raise _Transient("timeout", f"no answer within {s.timeout:g} s") from exc
        except openai.APIConnectionError as exc:
            if s.is_embedded:
                self._forget(s)  # the shared server may have gone: find or start one on the next attempt
            raise _Transient("connection", _cause(exc)) from exc
        except openai.APIStatusError as exc:
            code = exc.status_code
            detail = _short(getattr(exc, "message", "") or str(exc))
            if code in (408, 409, 429) or code >= 500:
                raise _Transient(f"http_{code}", detail, _retry_after(exc)) from exc
            raise LLMError(role, f"http_{code}", detail) from exc
        except (openai.APIResponseValidationError, ValueError, TypeError, AttributeError, IndexError, KeyError,
                UnicodeDecodeError) as exc:
            raise _Transient("malformed_response", _short(f"{type(exc).__name__}: {exc}")) from exc
        if not isinstance(text, str):
            raise _Transient("malformed_response", f"text is {type(text).__name__}")
        usage = raw.get("usage") if isinstance(raw.get("usage"), dict) else {}
        payload = {"text": text, "prompt_tokens": int(usage.get("prompt_tokens") or 0),
                   "completion_tokens": int(usage.get("completion_tokens") or 0),
                   "finish_reason": choice.get("finish_reason")}
        if kind == "score":
            payload["text"] = ""
            payload["logprobs"] = _continuation_logprobs(role, request, raw)
        return payload

    # ---- endpoints, slots, accounting -------------------------------------------------------------------
    def _endpoint(self, s: LLMSettings) -> tuple[Any, str]:
        """Return (SDK client, model name to send) for a role's settings, starting the embedded server if needed."""
        import openai

        if s.is_embedded:
            from llm.embedded import ensure_server
            from llm.llama_app import ServerOptions
            base_url = ensure_server(s.model, ServerOptions(n_ctx=s.n_ctx, n_threads=s.n_threads,
                                                            cache_mb=s.cache_mb), self.cache_dir)
            api_key = _NO_KEY
        else:
            base_url = s.endpoint
            api_key = os.environ.get("OPENAI_API_KEY") or _NO_KEY
        with self._lock:
            sdk = self._sdk.get(base_url)
            if sdk is None:
                # Retries are ours (counted, logged, uniform across endpoints), so the SDK's are off.
                sdk = openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=0, timeout=s.timeout)
                self._sdk[base_url] = sdk
        return sdk, s.model

    def _forget(self, s: LLMSettings) -> None:
        with self._lock:
            for url in list(self._sdk):
                if url.startswith("http://127.0.0.1:"):
                    self._sdk.pop(url)  # not closed: another thread may still be reading from it

    @contextmanager
    def _slot(self, s: LLMSettings) -> Iterator[None]:
        """Hold one of the endpoint's `max_concurrency` slots: this process's, then the limiter's (if any)."""
        key = (s.endpoint, s.model)
        with self._lock:
            sem = self._slots.get(key)
            if sem is None:
                sem = self._slots[key] = threading.BoundedSemaphore(s.max_concurrency)
        with sem:
            if self.limiter is None:
                yield
            else:
                with self.limiter(s.endpoint, s.model, s.max_concurrency):
                    yield

    def _account(self, role: str, model_id: str, resp: LLMResponse, error: str | None) -> None:
        paid_p = 0 if resp.cached else resp.prompt_tokens
        paid_c = 0 if resp.cached else resp.completion_tokens
        self.usage.add(CallRecord(role, model_id, resp.prompt_tokens, resp.completion_tokens, resp.seconds,
                                  resp.cached, resp.retries, error, resp.legal))
        self.store.record(self.run_id, role, model_id, paid_p, paid_c, resp.seconds, resp.cached, resp.retries, error)
        log.debug("LLM %s: %s tokens in, %s out, %.2f s, cached=%s, retries=%s, error=%s", role,
                  resp.prompt_tokens, resp.completion_tokens, resp.seconds, resp.cached, resp.retries, error)


def _judge(constraint: Constraint | None, mode: str | None, raw: str) -> tuple[str, bool | None]:
    """Return (text, legal): a json_schema answer mapped back to text; a legal answer stripped of outer whitespace."""
    if constraint is None:
        return raw, None
    if mode == "json_schema":
        try:
            return constraint.from_json(raw), True
        except ConstraintError:
            pass  # a server that ignored response_format may still have answered plain legal text
    if constraint.accepts(raw):
        return raw.strip(), True
    return raw, False


def _response(payload: Mapping[str, Any], constraint: Constraint | None, mode: str | None, model_id: str, *,
              cached: bool, seconds: float, retries: int) -> LLMResponse:
    """The response of a call from its answer as `_request` returns it and the cache holds it."""
    text, legal = _judge(constraint, mode, payload["text"])
    scores = payload.get("logprobs")
    return LLMResponse(text=text, model=model_id, prompt_tokens=payload["prompt_tokens"],
                       completion_tokens=payload["completion_tokens"], cached=cached, seconds=seconds, retries=retries,
                       finish_reason=payload.get("finish_reason"), legal=legal, constrain=mode,
                       logprobs=None if scores is None else tuple(tuple(float(x) for x in c) for c in scores))


def _continuation_logprobs(role: str, request: Mapping[str, Any], raw: Mapping[str, Any]) -> list[list[float]]:
    """Per prompt of a scoring request, the log-probabilities of the tokens of its continuation.

    The prompts are one stem (`_stem` characters) and each its continuation. A token can straddle the boundary
    (tokenizing stem + continuation can merge the stem's last characters with the continuation's first), and where
    it does depends on the continuation; so every continuation is read from the same point, the earliest start of a
    straddling token over all of them: each is scored with what it adds to the stem's text before that point.
    Raises LLMError (`no_logprobs`) when the endpoint did not return them.
    """
    prompts, stem = request["prompt"][1:], int(request["_stem"])  # the first is the stem alone: not read
    try:
        choices = sorted(raw["choices"], key=lambda c: int(c.get("index", 0)))
        tables = [c.get("logprobs") or {} for c in choices]
        if not all(t.get("text_offset") and t.get("token_logprobs") for t in tables):
            raise LLMError(role, "no_logprobs", "the answer has no token log-probabilities (completions with echo "
                           "and logprobs)")
        if len(choices) != len(prompts) + 1:
            raise _Transient("malformed_response", f"{len(choices)} choices for {len(prompts) + 1} prompts")
        tables = tables[1:]
        spans = []
        for prompt, t in zip(prompts, tables):
            starts = [int(o) for o in t["text_offset"]]
            ends = starts[1:] + [max(len(prompt), starts[-1] + 1)]
            spans.append([(a, b, lp) for a, b, lp in zip(starts, ends, t["token_logprobs"]) if a < len(prompt)])
        cut = min(min((a for a, b, _ in span if b > stem), default=stem) for span in spans)
        out = [[lp for a, b, lp in span if b > cut] for span in spans]
    except (TypeError, ValueError, AttributeError, KeyError) as exc:
        raise _Transient("malformed_response", _short(f"{type(exc).__name__}: {exc}")) from exc
    if any(lp is None for lps in out for lp in lps) or not all(out):
        raise LLMError(role, "no_logprobs", "a token of a continuation has no log-probability")
    return [[float(lp) for lp in lps] for lps in out]


def _vllm_version(s: LLMSettings) -> tuple[int, ...] | None:
    """vLLM's version from GET <server root>/version (None when it cannot be read)."""
    import httpx

    root = s.endpoint[: -len("/v1")] if s.endpoint.endswith("/v1") else s.endpoint
    try:
        reply = httpx.get(f"{root}/version", timeout=min(s.timeout, 10.0))
        reply.raise_for_status()
        text = str(reply.json().get("version", ""))
    except Exception:  # noqa: BLE001 - an unreadable version is "unknown", not a failure
        return None
    numbers = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", text)
    return tuple(int(n or 0) for n in numbers.groups()) if numbers else None


def _sampling(s: LLMSettings, max_tokens: int | None, stop: str | Sequence[str] | None, temperature: float | None,
              seed: int | None) -> dict[str, Any]:
    request: dict[str, Any] = {
        "max_tokens": int(max_tokens if max_tokens is not None else s.max_tokens),
        "temperature": float(temperature if temperature is not None else s.temperature),
    }
    if stop is not None:
        request["stop"] = [stop] if isinstance(stop, str) else list(stop)
    seed = seed if seed is not None else s.seed
    if seed is not None:
        request["seed"] = int(seed)
    return request


def _response_format(s: LLMSettings, fmt: Mapping[str, Any]) -> dict[str, Any]:
    # llama-cpp-python's server answers HTTP 500 to {"type": "json_schema"} but enforces
    # {"type": "json_object", "schema": S} as a grammar: translate for the embedded endpoint.
    fmt = dict(fmt)
    if s.is_embedded and fmt.get("type") == "json_schema":
        schema = (fmt.get("json_schema") or {}).get("schema")
        return {"type": "json_object", **({"schema": schema} if schema is not None else {})}
    return fmt


def model_id(settings: LLMSettings) -> str:
    """Identifier of the model `settings` send calls to, for manifests (no key, no credentials, no query)."""
    return _model_id(settings)


def _model_id(s: LLMSettings) -> str:
    if s.is_embedded:
        from llm.presets import preset
        return f"embedded:{s.model}@sha256:{preset(s.model).sha256[:12]}"
    parts = urlsplit(s.endpoint)
    host = parts.hostname or ""  # no user:password@, no query string
    if parts.port:
        host = f"{host}:{parts.port}"
    return f"{s.model}@{host}{parts.path.rstrip('/')}"


def _retry_after(exc: Exception) -> float | None:
    try:
        value = exc.response.headers.get("retry-after")  # type: ignore[attr-defined]
        return float(value) if value is not None else None
    except (AttributeError, ValueError, TypeError):
        return None


def _cause(exc: BaseException) -> str:
    inner = exc.__cause__ or exc.__context__
    return _short(f"{type(inner).__name__}: {inner}" if inner else str(exc))


def _short(text: str, n: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[:n] + "..."
