"""Log-probabilities of prompts on the embedded llama.cpp server: OpenAI completions with `echo` and `logprobs`.

llama-cpp-python answers such a request only with `logits_all=True` (a logits row kept for every token of the
context: n_ctx x n_vocab floats, 2.5 GB for Qwen), and takes one prompt per request. This route answers it with
`logits_all=False`: the prompts of one request (a list, as the OpenAI API allows) share a prefix, which is evaluated
once, reusing the KV cache and the prompt-prefix cache as a completion does; their tails go into one batch as a
token trie, a tail token shared by several prompts evaluated once for all of them (one KV sequence per prompt), with
logits for every tail token that has a next one to score (with `max_tokens` 0, a prompt's last token is not
evaluated: its own log-probability comes from the token before); the KV cache is then rolled back to the prefix,
which is saved to the prefix cache.

What differs from the OpenAI semantics: the prompts' shared token prefix comes back as one entry of `tokens` with a
null logprob, not token by token (it is not computed, and thousands of entries per prompt
would cost more to send than to score); at most one token is generated after a prompt (`max_tokens` 0 or 1: the
greedy next token). `usage.prompt_tokens` counts every prompt's tokens, as the OpenAI API does.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

# KV sequences (prompt tails) decoded in one batch, besides the prefix's own; llama.cpp allows 256 at most.
SCORE_SEQS = 64
MAX_TOP = 20  # top_logprobs per token at most (OpenAI allows 5)


class ScoreRequestError(ValueError):
    """A request this route cannot answer (HTTP 400)."""


def is_score_request(body: Any) -> bool:
    """True for a completions request this module answers: echo with logprobs, not streamed."""
    return (isinstance(body, dict) and bool(body.get("echo")) and body.get("logprobs") is not None
            and not body.get("stream"))


@dataclass
class _Node:
    token: int
    depth: int
    parent: int  # index of the parent node; -1: the shared prefix
    seqs: list[int] = field(default_factory=list)


class _Row:
    """One position's next-token distribution, read from its logits: log-probabilities and the likeliest tokens."""

    def __init__(self, logits: np.ndarray) -> None:
        self.logits = logits
        m = float(logits.max())
        self.lse = m + float(np.log(np.exp(logits - m).sum(dtype=np.float64)))
        self._top: dict[int, list[int]] = {}

    def logprob(self, token: int) -> float:
        return float(self.logits[token]) - self.lse

    def top(self, k: int) -> list[int]:
        if k not in self._top:
            if k == 1:
                self._top[k] = [int(np.argmax(self.logits))]
            else:
                best = np.argpartition(-self.logits, k - 1)[:k]
                self._top[k] = sorted((int(t) for t in best), key=lambda t: -self.logits[t])
        return self._top[k]


def score_completion(llama: Any, body: dict[str, Any]) -> dict[str, Any]:
    """Answer one echo+logprobs completions request (see the module docstring) with the server's `llama`."""
    prompts = body.get("prompt")
    prompts = [prompts] if isinstance(prompts, str) else prompts
    if not prompts or not all(isinstance(p, str) and p for p in prompts):
        raise ScoreRequestError("prompt: a non-empty string or a list of them")
    max_tokens = body.get("max_tokens")
    max_tokens = 16 if max_tokens is None else int(max_tokens)
    if max_tokens not in (0, 1):
        raise ScoreRequestError(f"echo with logprobs generates at most 1 token here (max_tokens 0 or 1, not {max_tokens})")
    top = min(int(body["logprobs"]), MAX_TOP)
    if top < 0:
        raise ScoreRequestError("logprobs must be >= 0")
    if int(body.get("n") or 1) != 1:
        raise ScoreRequestError("n must be 1")
    toks = [llama.tokenize(p.encode("utf-8"), special=True) for p in prompts]  # as a completion tokenizes
    if max(map(len, toks)) > llama.n_ctx():
        raise ScoreRequestError(f"a prompt has {max(map(len, toks))} tokens > n_ctx {llama.n_ctx()}")
    shared = min(_common_prefix(toks), min(map(len, toks)) - 1)  # every prompt keeps a tail of one token or more
    head = _eval_prefix(llama, toks[0][:shared])
    logprobs: list[list[tuple[float, list[tuple[int, float]]] | None]] = [[None] * len(t) for t in toks]
    nexts: list[tuple[int, float] | None] = [None] * len(toks)
    try:
        for group in _groups(toks, shared, llama.n_batch):
            _decode_tails(llama, toks, shared, group, head, top, max_tokens, logprobs, nexts)
    finally:
        llama._ctx.kv_cache_seq_rm(0, shared, -1)
        llama._requires_eval = True  # the context's logits are no longer the prefix's last token's
    prefix = llama.detokenize(toks[0][:shared])
    choices = [_choice(llama, i, toks[i], shared, prefix, logprobs[i], nexts[i]) for i in range(len(toks))]
    n_gen = sum(n is not None for n in nexts)
    n_prompt = sum(map(len, toks))
    return {"id": f"cmpl-score-{time.time_ns()}", "object": "text_completion", "created": int(time.time()),
            "model": body.get("model") or "", "choices": choices,
            "usage": {"prompt_tokens": n_prompt, "completion_tokens": n_gen, "total_tokens": n_prompt + n_gen}}


def _common_prefix(toks: Sequence[Sequence[int]]) -> int:
    first, n = toks[0], min(map(len, toks))
    for i in range(n):
        if any(t[i] != first[i] for t in toks[1:]):
            return i
    return n


def _eval_prefix(llama: Any, prefix: list[int]) -> _Row | None:
    """Have the KV cache hold exactly `prefix` (sequence 0); return its last token's next-token distribution."""
    from llama_cpp import Llama

    if not prefix:
        llama.n_tokens = 0
        llama._ctx.kv_cache_seq_rm(0, 0, -1)
        return None
    if llama.cache is not None:  # the prefix cache, as a completion consults it
        try:
            item = llama.cache[prefix]
            if (Llama.longest_token_prefix(item.input_ids[:item.n_tokens].tolist(), prefix)
                    > Llama.longest_token_prefix(llama._input_ids.tolist(), prefix)):
                llama.load_state(item)
        except KeyError:
            pass
    # At least the last prefix token is evaluated again: its logits condition every tail's first token.
    reuse = min(Llama.longest_token_prefix(llama._input_ids.tolist(), prefix), len(prefix) - 1)
    llama.n_tokens = reuse
    llama.eval(prefix[reuse:])  # drops sequence 0's cells from `reuse` on first
    head = _Row(np.ctypeslib.as_array(llama._ctx.get_logits_ith(-1), shape=(llama.n_vocab(),)).copy())
    if llama.cache is not None:
        llama.cache[prefix] = llama.save_state()
    return head


def _groups(toks: Sequence[Sequence[int]], shared: int, n_batch: int) -> list[list[int]]:
    """Prompts in batches of at most SCORE_SEQS sequences and n_batch trie nodes, neighbours in token order together."""
    order = sorted(range(len(toks)), key=lambda i: list(toks[i][shared:]))
    groups: list[list[int]] = []
    cur: list[int] = []
    nodes: set[tuple[int, ...]] = set()
    for i in order:
        tail = toks[i][shared:]
        if len(tail) > n_batch:
            raise ScoreRequestError(f"a prompt's tail past the shared prefix has {len(tail)} tokens > n_batch {n_batch}")
        mine = {tuple(tail[:d + 1]) for d in range(len(tail))}
        if cur and (len(cur) >= SCORE_SEQS or len(nodes | mine) > n_batch):
            groups.append(cur)
            cur, nodes = [], set()
        cur.append(i)
        nodes |= mine
    if cur:
        groups.append(cur)
    return groups


def _decode_tails(llama: Any, toks: Sequence[Sequence[int]], shared: int, group: list[int], head: _Row | None,
                  top: int, max_tokens: int, logprobs: list[list[tuple[float, list[tuple[int, float]]] | None]],
                  nexts: list[tuple[int, float] | None]) -> None:
    """One batch: the group's tails as a trie, sequence j + 1 for the group's j-th prompt over the shared prefix."""
    ctx, batch = llama._ctx, llama._batch
    nodes: list[_Node] = []
    index: dict[tuple[int, ...], int] = {}
    path: dict[int, list[int]] = {}  # prompt -> its tail's nodes
    for j, i in enumerate(group):
        seq, parent, mine = j + 1, -1, []
        for d, token in enumerate(toks[i][shared:]):
            key = tuple(toks[i][shared:shared + d + 1])
            if key not in index:
                index[key] = len(nodes)
                nodes.append(_Node(token, d, parent))
            nodes[index[key]].seqs.append(seq)
            parent = index[key]
            mine.append(parent)
        path[i] = mine
        if shared:
            ctx.kv_cache_seq_cp(0, seq, 0, shared)  # the prefix's cells are the sequence's too (shared, not copied)
    # A node's own token is read from its parent's row, so only a node with children (or, when a token is generated,
    # a prompt's last) is decoded: a leaf costs nothing (every continuation's end token is one).
    parents = {node.parent for node in nodes}
    decoded = [k for k in range(len(nodes)) if k in parents or (max_tokens and any(path[i][-1] == k for i in group))]
    at = {k: j for j, k in enumerate(decoded)}  # node -> its place in the batch
    try:
        b = batch.batch
        for j, k in enumerate(decoded):
            node = nodes[k]
            b.token[j], b.pos[j], b.n_seq_id[j], b.logits[j] = node.token, shared + node.depth, len(node.seqs), True
            for s, seq in enumerate(node.seqs):
                b.seq_id[j][s] = seq
        b.n_tokens = len(decoded)
        if decoded:
            ctx.decode(batch)
        n_vocab = llama.n_vocab()
        rows: dict[int, _Row] = {}

        def row(k: int) -> _Row | None:  # node k's next-token distribution (-1: the prefix's); read before any decode
            if k < 0:
                return head
            if k not in rows:
                rows[k] = _Row(np.ctypeslib.as_array(ctx.get_logits_ith(at[k]), shape=(n_vocab,)))
            return rows[k]

        for i in group:
            for pos, k in enumerate(path[i], start=shared):
                dist = row(nodes[k].parent)
                if dist is not None:
                    best = dist.top(top) if top else []
                    logprobs[i][pos] = (dist.logprob(nodes[k].token), [(t, dist.logprob(t)) for t in best])
            if max_tokens:
                last = row(path[i][-1])
                assert last is not None
                token = last.top(1)[0]
                nexts[i] = (token, last.logprob(token))
    finally:
        for j in range(len(group)):
            ctx.kv_cache_seq_rm(j + 1, -1, -1)


def _piece(llama: Any, token: int) -> str:
    return llama.detokenize([token]).decode("utf-8", errors="replace")


def _choice(llama: Any, i: int, toks: Sequence[int], shared: int, prefix: bytes,
            logprobs: list[tuple[float, list[tuple[int, float]]] | None],
            nxt: tuple[int, float] | None) -> dict[str, Any]:
    """One prompt's choice: its text (echoed, plus the generated token), its tokens past the shared prefix with
    their logprobs, top_logprobs and character offsets (the prefix first, as one entry)."""
    tokens: list[str] = [prefix.decode("utf-8", errors="replace")] if shared else []
    offsets: list[int] = [0] if shared else []
    token_logprobs: list[float | None] = [None] if shared else []
    top_logprobs: list[dict[str, float] | None] = [None] if shared else []
    raw = prefix if shared else b""
    for pos in range(shared, len(toks)):
        offsets.append(len(raw.decode("utf-8", errors="ignore")))
        piece = llama.detokenize([toks[pos]])
        raw += piece
        tokens.append(piece.decode("utf-8", errors="replace"))
        scored = logprobs[pos]
        token_logprobs.append(None if scored is None else scored[0])
        top_logprobs.append(None if scored is None else
                            {**{_piece(llama, t): lp for t, lp in scored[1]}, tokens[-1]: scored[0]})
    text = raw.decode("utf-8", errors="replace")
    finish = "length"
    if nxt is not None:
        from llama_cpp import llama_cpp as lib

        token, lp = nxt
        if lib.llama_vocab_is_eog(llama._model.vocab, token):
            finish = "stop"
        else:
            piece = _piece(llama, token)
            offsets.append(len(text))
            tokens.append(piece)
            token_logprobs.append(lp)
            top_logprobs.append({piece: lp})
            text += piece
    return {"index": i, "text": text, "finish_reason": finish,
            "logprobs": {"tokens": tokens, "token_logprobs": token_logprobs, "top_logprobs": top_logprobs,
                         "text_offset": offsets}}


def install(app: Any) -> None:
    """Route POST /v1/completions through this module for echo+logprobs requests, the rest to llama-cpp-python's."""
    import contextlib

    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse
    from llama_cpp.server import app as server
    from llama_cpp.server.types import CreateCompletionRequest
    from pydantic import ValidationError
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import Response
    from starlette.routing import Route

    async def completions(request: Any) -> Any:  # a plain Starlette route: the body decides where it goes
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": {"message": "body is not JSON", "type": "invalid_request_error"}}, 400)
        if not is_score_request(body):
            try:
                parsed = CreateCompletionRequest(**body)
            except ValidationError as exc:
                raise RequestValidationError(exc.errors()) from exc
            answer = await server.create_completion(request, parsed)
            return answer if isinstance(answer, Response) else JSONResponse(answer)
        async with contextlib.asynccontextmanager(server.get_llama_proxy)() as proxy:
            llama = proxy(body.get("model"))
            try:
                return JSONResponse(await run_in_threadpool(score_completion, llama, body))
            except ScoreRequestError as exc:
                return JSONResponse({"error": {"message": str(exc), "type": "invalid_request_error"}}, 400)

    app.router.routes.insert(0, Route("/v1/completions", completions, methods=["POST"]))  # ahead of the library's
