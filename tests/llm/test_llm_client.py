"""LLM client against the scripted endpoint: cache, accounting, retries, faults, secrets."""
from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from llm.client import LLMClient
from llm.errors import LLMError
from llm.settings import LLMSettings
from llm.scripted import Fault, Reply, ScriptedEndpoint


def test_chat_and_cache_hit(scripted_endpoint: ScriptedEndpoint, tmp_path: Path) -> None:
    scripted_endpoint.push("PickupObject Apple")
    with LLMClient(scripted_endpoint.settings(), cache_dir=tmp_path) as client:
        msgs = [{"role": "system", "content": "plan"}, {"role": "user", "content": "pick up the apple"}]
        first = client.chat("actor", msgs)
        second = client.chat("actor", msgs)
    assert first.text == second.text == "PickupObject Apple"
    assert not first.cached and second.cached
    assert len(scripted_endpoint.requests) == 1
    # messages go out exactly in the caller's order
    assert [m["role"] for m in scripted_endpoint.requests[0].body["messages"]] == ["system", "user"]


def test_cache_survives_clients_and_keys_on_params(scripted_endpoint: ScriptedEndpoint, tmp_path: Path) -> None:
    scripted_endpoint.push("a", "b", "c")
    with LLMClient(scripted_endpoint.settings(), cache_dir=tmp_path) as client:
        assert client.complete("critic", "x", max_tokens=5).text == "a"
    with LLMClient(scripted_endpoint.settings(), cache_dir=tmp_path) as client:
        assert client.complete("critic", "x", max_tokens=5).cached
        assert client.complete("critic", "x", max_tokens=6).text == "b"        # other params: other key
        assert client.complete("critic", "x", max_tokens=5, stop=["\n"]).text == "c"


def test_sampled_calls_cached_per_seed_or_bypass(scripted_endpoint: ScriptedEndpoint, tmp_path: Path) -> None:
    scripted_endpoint.push("s1", "s2", "s3")
    with LLMClient(scripted_endpoint.settings(), cache_dir=tmp_path) as client:
        assert client.complete("critic_sample", "p", temperature=0.7).text == "s1"
        assert client.complete("critic_sample", "p", temperature=0.7).text == "s2"  # no seed: never cached
        assert client.complete("critic_sample", "p", temperature=0.7, seed=1).text == "s3"
        assert client.complete("critic_sample", "p", temperature=0.7, seed=1).cached


def test_accounting_totals(scripted_endpoint: ScriptedEndpoint, tmp_path: Path) -> None:
    scripted_endpoint.push(Reply("one", 10, 2), Reply("two", 20, 3))
    with LLMClient(scripted_endpoint.settings(), cache_dir=tmp_path) as client:
        client.complete("adapter", "a")
        mark = client.usage.snapshot()
        client.complete("actor_gt", "b")
        client.complete("actor_gt", "b")  # hit: a call, no tokens
        total, episode = client.usage.summary(), client.usage.summary(since=mark)
        rows = client.store.totals()
    assert total["calls"] == 3 and total["prompt_tokens"] == 30 and total["completion_tokens"] == 5
    assert total["cache_hits"] == 1 and set(total["by_role"]) == {"adapter", "actor_gt"}
    assert episode["calls"] == 2 and episode["prompt_tokens"] == 20 and episode["by_role"]["actor_gt"]["calls"] == 2
    assert sum(r["calls"] for r in rows) == 3 and sum(r["prompt_tokens"] for r in rows) == 30


@pytest.mark.parametrize("fault", [Fault.status(500), Fault.status(429), Fault.status(503), Fault.drop(),
                                   Fault.truncated(), Fault.empty(), Fault.garbage(), Fault.non_utf8(),
                                   Fault.delay(1.0, "late")])
def test_transient_fault_retried_then_ok(fault: Fault, scripted_endpoint: ScriptedEndpoint, tmp_path: Path) -> None:
    scripted_endpoint.push(fault, "ok")
    with LLMClient(scripted_endpoint.settings(timeout=0.3), cache_dir=tmp_path) as client:
        resp = client.complete("actor", "go")
        assert resp.text == "ok" and resp.retries == 1
        assert client.usage.summary()["retries"] == 1


def test_retries_exhausted_raise_llm_error(scripted_endpoint: ScriptedEndpoint, tmp_path: Path) -> None:
    scripted_endpoint.push(*[Fault.status(500)] * 3)
    with LLMClient(scripted_endpoint.settings(retries=2), cache_dir=tmp_path) as client:
        with pytest.raises(LLMError) as err:
            client.chat("critic", [{"role": "user", "content": "v?"}])
        summary = client.usage.summary()
    assert err.value.role == "critic" and err.value.reason == "http_500" and err.value.attempts == 3
    assert len(scripted_endpoint.requests) == 3
    assert summary["errors"] == 1 and summary["calls"] == 1


def test_timeout_then_clear_error(scripted_endpoint: ScriptedEndpoint, tmp_path: Path) -> None:
    scripted_endpoint.push(Fault.delay(1.0), Fault.delay(1.0))
    with LLMClient(scripted_endpoint.settings(timeout=0.2, retries=1), cache_dir=tmp_path) as client:
        with pytest.raises(LLMError) as err:
            client.complete("reflect", "think")
    assert err.value.reason == "timeout"


def test_client_error_not_retried(scripted_endpoint: ScriptedEndpoint, tmp_path: Path) -> None:
    scripted_endpoint.push(Fault.status(400))
    with LLMClient(scripted_endpoint.settings(), cache_dir=tmp_path) as client:
        with pytest.raises(LLMError) as err:
            client.complete("generator", "x")
    assert err.value.reason == "http_400" and len(scripted_endpoint.requests) == 1


def test_garbage_output_is_returned_not_raised(scripted_endpoint: ScriptedEndpoint, tmp_path: Path) -> None:
    scripted_endpoint.push("}}} not a plan \x00", Fault.huge(300_000))
    with LLMClient(scripted_endpoint.settings(), cache_dir=tmp_path) as client:
        assert client.complete("actor", "a").text == "}}} not a plan \x00"
        assert len(client.complete("actor", "b").text) == 300_000


def test_unreachable_endpoint_raises_connection_error(tmp_path: Path) -> None:
    settings = LLMSettings(endpoint="http://127.0.0.1:9/v1", model="m", retries=1, backoff=0.01, timeout=1)
    with LLMClient(settings, cache_dir=tmp_path) as client:
        with pytest.raises(LLMError) as err:
            client.complete("actor", "x")
    assert err.value.reason == "connection"


def test_api_key_from_env_only_and_never_stored(scripted_endpoint: ScriptedEndpoint, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    secret = "sk-test-SECRET-123456"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    scripted_endpoint.push(Fault.status(500), "fine")
    with caplog.at_level("DEBUG"):
        with LLMClient(scripted_endpoint.settings(), cache_dir=tmp_path) as client:
            client.complete("actor", "x")
            assert secret not in client.model_id
    assert scripted_endpoint.requests[0].has_auth
    assert secret not in caplog.text
    for f in tmp_path.rglob("*"):
        if f.is_file():
            assert secret.encode() not in f.read_bytes()
    with pytest.raises(ValueError):
        LLMSettings.from_params({"api_key": secret})


def test_max_concurrency_bounds_calls_in_flight(tmp_path: Path) -> None:
    in_flight, peak, lock = [0], [0], threading.Lock()

    def answer(req):  # type: ignore[no-untyped-def]
        with lock:
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
        time.sleep(0.05)
        with lock:
            in_flight[0] -= 1
        return "ok"

    with ScriptedEndpoint(answer) as ep, LLMClient(ep.settings(max_concurrency=2), cache_dir=tmp_path) as client:
        threads = [threading.Thread(target=client.complete, args=("actor", f"p{i}")) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert peak[0] == 2


def test_json_schema_translated_for_embedded_only() -> None:
    from llm.client import _response_format
    fmt = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}}
    assert _response_format(LLMSettings(), fmt) == {"type": "json_object", "schema": {"type": "object"}}
    assert _response_format(LLMSettings(endpoint="https://api.openai.com/v1", model="m"), fmt) == fmt


def test_model_id_has_no_credentials() -> None:
    s = LLMSettings(endpoint="https://user:pw@example.com:8443/v1?key=abc", model="gpt-x")
    from llm.client import _model_id
    assert _model_id(s) == "gpt-x@example.com:8443/v1"
