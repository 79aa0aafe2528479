"""Scoring calls (`LLMClient.score`): continuations' token log-probabilities read from the completions API's echo with
logprobs, from one boundary for all of them, cached and accounted like other calls; an endpoint without them is an
error, not a guess. The embedded server's own answer (llm/llama_score.py) against llama.cpp evaluating every token."""
from __future__ import annotations

from pathlib import Path

import pytest

from llm.client import LLMClient
from llm.errors import LLMError
from llm.scripted import Logprobs, ScriptedEndpoint
from llm.settings import LLMSettings


def test_score_reads_each_continuation_and_a_rerun_hits_the_cache(tmp_path: Path) -> None:
    table = Logprobs({"Stop": [-2.0], "Navigation Fridge": [-0.5, -0.7]})
    with ScriptedEndpoint(default=table) as ep, LLMClient(ep.settings(), cache_dir=tmp_path) as client:
        first = client.score("actor_gt", "Plan: A;", [" Stop;", " Navigation Fridge;", " Other X;"])
        again = client.score("actor_gt", "Plan: A;", [" Stop;", " Navigation Fridge;", " Other X;"])
        body = ep.requests[0].body
    # each continuation's tokens, the step end included (the scripted end token is certain: 0.0)
    assert first.logprobs == ((-2.0, 0.0), (-0.5, -0.7, 0.0), (-20.0, -20.0, -20.0))
    assert body["prompt"] == ["Plan: A;", "Plan: A; Stop;", "Plan: A; Navigation Fridge;", "Plan: A; Other X;"]
    assert body["echo"] is True and body["logprobs"] >= 0 and body["temperature"] == 0 and "_stem" not in body
    assert len(ep.requests) == 1 and not first.cached and again.cached and again.logprobs == first.logprobs
    usage = client.usage.summary()
    assert usage["calls"] == 2 and usage["cache_hits"] == 1 and usage["by_role"]["actor_gt"]["calls"] == 2
    assert usage["prompt_tokens"] == first.prompt_tokens > 0  # the hit paid nothing


def test_a_token_across_the_boundary_is_read_from_the_same_point_for_every_continuation(tmp_path: Path) -> None:
    # Words take the whitespace before them: "Plan: Nav" + "igation" is one token " Navigation" that starts inside
    # the prompt, while "Plan: Nav" + " Stop" keeps " Nav" apart. Both are read from where " Navigation" starts, so
    # each is scored with what it adds to "Plan:": " Navigation" against " Nav" + " Stop".
    with ScriptedEndpoint(default=Logprobs({"Stop": [-2.0], "Navigation": [-0.5]}, prompt=-1.0)) as ep, \
            LLMClient(ep.settings(), cache_dir=tmp_path) as client:
        got = client.score("actor", "Plan: Nav", ["igation", " Stop"])
    assert got.logprobs == ((-0.5,), (-1.0, -2.0))


def test_an_endpoint_without_logprobs_is_an_error_at_once(tmp_path: Path) -> None:
    with ScriptedEndpoint(default="Stop") as ep, LLMClient(ep.settings(retries=3), cache_dir=tmp_path) as client:
        with pytest.raises(LLMError) as err:
            client.score("actor_gt", "Plan:", [" Stop;", " Navigation Fridge;"])
        assert len(ep.requests) == 1  # not retried: asking again gives no logprobs either
    assert err.value.reason == "no_logprobs"
    assert client.usage.summary()["errors"] == 1


MODEL = "gemma3-270m"


@pytest.mark.llm
def test_embedded_server_scores_as_llama_cpp_evaluating_every_token(tmp_path: Path) -> None:
    """The server's trie of tails over a shared prefix gives what a model keeping every token's logits gives."""
    import numpy as np
    from llama_cpp import Llama

    from llm.embedded import stop_owned_servers
    from llm.presets import ensure_model

    stem = ("Robot plans. Plan: Navigation Fridge; OpenObject Fridge; PickupObject Apple;\n"
            "Task: put a cold apple on the table.\nPlan:")
    conts = [" Navigation Fridge;", " Navigation Sink;", " Navigation SinkBasin;", " Stop;", " Stop\n",
             " PutObject Apple Fridge;"]
    settings = LLMSettings(endpoint="embedded", model=MODEL, timeout=120, retries=0)
    try:
        with LLMClient(settings, cache_dir=tmp_path) as client:
            got = client.score("actor", stem, conts)
            spaced = client.score("actor", stem + " ", [c[1:] for c in conts])  # the same texts, cut in a word
            alike = client.score("actor", stem, conts[:3])  # all begin with " Navigation": computed all the same
            client.complete("actor", stem, max_tokens=3)  # generation still works on the rolled-back cache
    finally:
        stop_owned_servers()
    ref = Llama(str(ensure_model(MODEL)), n_ctx=512, logits_all=True, verbose=False)

    def token_logprobs(text: str) -> list[float]:
        """Each token's log-probability after those before it, from every position's logits (what
        create_completion(echo=True, logprobs=1) reports, without its per-token sort of the whole vocabulary)."""
        tokens = ref.tokenize(text.encode())
        ref.reset()
        ref.eval(tokens)
        logits = np.asarray(ref.scores[:len(tokens) - 1], dtype=np.float64)
        top = logits.max(axis=1, keepdims=True)
        norm = (top + np.log(np.exp(logits - top).sum(axis=1, keepdims=True)))[:, 0]
        return [float(logits[i, tokens[i + 1]] - norm[i]) for i in range(len(tokens) - 1)]

    for cont, mine in zip(conts, got.logprobs):
        theirs = token_logprobs(stem + cont)[-len(mine):]  # the prompt's last tokens
        assert len(ref.tokenize((stem + cont).encode())) - len(ref.tokenize(stem.encode())) == len(mine), cont
        assert mine == pytest.approx(theirs, abs=0.35), cont  # a batch's float sums differ from one by one
    assert [len(x) for x in alike.logprobs] == [len(x) for x in got.logprobs[:3]]
    assert [x for c in alike.logprobs for x in c] == pytest.approx([x for c in got.logprobs[:3] for x in c], abs=0.35)
    # the space moved into the stem straddles: read from the same point, the tokens are the same ones (their values
    # as close as above: the batches differ in shape)
    assert [len(x) for x in spaced.logprobs] == [len(x) for x in got.logprobs]
    assert [x for c in spaced.logprobs for x in c] == pytest.approx([x for c in got.logprobs for x in c], abs=0.35)
