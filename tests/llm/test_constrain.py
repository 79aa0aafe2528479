"""Constrained decoding: a constraint accepts exactly its legal set in every dialect; the client sends the right
fields per mode, finds the mode of an endpoint, and validates every answer (scripted endpoint, no real model)."""
from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import jsonschema
import pytest

from llm.client import LLMClient
from llm.settings import LLMSettings
from llm.constrain import Constraint, ConstraintError
from llm.scripted import ScriptedEndpoint

SUBGOALS = ["Navigation Fridge", "PickupObject Apple", "OpenObject Fridge", "PutObject Apple Fridge",
            "Navigation CounterTop", 'Say "yes"\\now']  # the last one: quotes and a backslash must be escaped
ADAPTER = Constraint.template(["object=", ("Apple", "AppleSliced", "Mug"), " parent=", ("Fridge", "none"),
                               " sliced=", ("yes", "no")])
CRITIC = Constraint.template(["the value is ", ("0", "1", "2", "10"), "/", ("1", "2", "10")])


def _adapter_set() -> set[str]:
    return {f"object={o} parent={p} sliced={s}"
            for o, p, s in itertools.product(("Apple", "AppleSliced", "Mug"), ("Fridge", "none"), ("yes", "no"))}


def _critic_set() -> set[str]:
    return {f"the value is {a}/{b}" for a, b in itertools.product(("0", "1", "2", "10"), ("1", "2", "10"))}


CASES = [(Constraint.choice(SUBGOALS), set(SUBGOALS)), (ADAPTER, _adapter_set()), (CRITIC, _critic_set())]


def _near_misses(legal: set[str]) -> set[str]:
    """Strings close to legal answers that are not legal: prefixes, case changes, doubled spaces, extra text."""
    out: set[str] = set()
    for text in legal:
        out |= {text[:-1], text[:len(text) // 2], text.lower(), text.upper(), text.replace(" ", "  "),
                text.replace(" ", ""), text + ".", text + " Fridge", "x" + text, text + "\nNavigation Fridge"}
    return {t for t in out if t.strip() not in legal}


# ---- a tiny GBNF reader for the subset constrain.py emits: rules of alternations of sequences of string
# ---- literals, rule references and `?`; it returns the (finite) language of `root`.
_TOKEN = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|([a-z][a-z0-9-]*)|(\|)|(\?))')


def _unescape(body: str) -> str:
    out, i = [], 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt == "x":
            out.append(chr(int(body[i + 2:i + 4], 16)))
            i += 4
            continue
        out.append({"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}[nxt])
        i += 2
    return "".join(out)


def _gbnf_language(grammar: str) -> set[str]:
    rules: dict[str, list[list[tuple[str, str, bool]]]] = {}
    for line in grammar.strip().splitlines():
        name, _, rhs = line.partition("::=")
        alts: list[list[tuple[str, str, bool]]] = [[]]
        pos = 0
        rhs = rhs.rstrip()
        while pos < len(rhs):
            m = _TOKEN.match(rhs, pos)
            assert m and m.end() > pos, f"unexpected GBNF at {rhs[pos:]!r}"
            lit, ref, bar, opt = m.groups()
            if bar:
                alts.append([])
            elif opt:
                kind, value, _ = alts[-1][-1]
                alts[-1][-1] = (kind, value, True)
            else:
                alts[-1].append(("lit", _unescape(lit), False) if lit is not None else ("ref", ref, False))
            pos = m.end()
        rules[name.strip()] = alts

    def lang(rule: str) -> set[str]:
        out: set[str] = set()
        for seq in rules[rule]:
            strings = {""}
            for kind, value, optional in seq:
                item = {value} if kind == "lit" else lang(value)
                if optional:
                    item = item | {""}
                strings = {a + b for a in strings for b in item}
            out |= strings
        return out

    return lang("root")


@pytest.mark.parametrize("constraint,legal", CASES, ids=["choice", "adapter", "critic"])
def test_every_dialect_accepts_exactly_the_legal_set(constraint: Constraint, legal: set[str]) -> None:
    # GBNF: the language is the legal set, each answer with or without one leading space (answers are stripped)
    assert _gbnf_language(constraint.gbnf()) == legal | {" " + t for t in legal}
    misses = _near_misses(legal)
    assert misses, "the near-miss generator must produce candidates"
    pattern = re.compile(constraint.regex())
    for text in legal:
        assert constraint.accepts(text) and constraint.accepts(f"  {text}\n")
        assert pattern.fullmatch(text)
    for text in misses:
        assert not constraint.accepts(text), text
        assert not pattern.fullmatch(text), text
    assert constraint.size() == len(legal)


@pytest.mark.parametrize("constraint,legal", CASES, ids=["choice", "adapter", "critic"])
def test_json_schema_round_trip(constraint: Constraint, legal: set[str]) -> None:
    schema = constraint.json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["additionalProperties"] is False and schema["required"] == list(schema["properties"])
    for combo in itertools.product(*constraint.slots):
        answer = dict(zip(constraint.names, combo))
        jsonschema.validate(answer, schema)
        assert constraint.from_json(json.dumps(answer)) in legal
    assert {constraint.from_json(json.dumps(dict(zip(constraint.names, c))))
            for c in itertools.product(*constraint.slots)} == legal
    first = dict(zip(constraint.names, (s[0] for s in constraint.slots)))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**first, constraint.names[0]: "Banana"}, schema)
    for bad in ("Navigation Fridge", "[]", json.dumps({**first, constraint.names[0]: "Banana"}), "{}"):
        with pytest.raises(ConstraintError):
            constraint.from_json(bad)


def test_names_and_choices() -> None:
    assert ADAPTER.names == ("object", "parent", "sliced") and ADAPTER.choices is None and not ADAPTER.is_choice
    assert Constraint.choice(["a", "b", "a"]).choices == ("a", "b")
    assert CRITIC.names == ("slot0", "slot1")
    assert Constraint.template(["v ", ("1", "2"), "/", ("3",)], names=["a", "b"]).names == ("a", "b")
    assert Constraint.choice(["a"]) == Constraint.choice(["a"]) and hash(Constraint.choice(["a"]))


@pytest.mark.parametrize("parts", [[], [()], ["x=", ("",)], [" x=", ("a",)], ["x=", ("a ",)], [("a",), " "]])
def test_bad_constraints_fail_loudly(parts: list) -> None:
    with pytest.raises(ConstraintError):
        Constraint.template(parts)


def test_openai_enum_limits() -> None:
    Constraint.choice([f"o{i}" for i in range(500)]).json_schema()
    with pytest.raises(ConstraintError, match="enum values"):
        Constraint.choice([f"o{i}" for i in range(501)]).json_schema()
    with pytest.raises(ConstraintError, match="characters"):
        Constraint.choice([f"{i:040d}" for i in range(300)]).json_schema()


# ---- the client -------------------------------------------------------------------------------------------
CHOICE = Constraint.choice(SUBGOALS[:3])
CASES_BY_ID = {id(CHOICE): set(SUBGOALS[:3]), id(ADAPTER): _adapter_set(), id(CRITIC): _critic_set()}
_FIELDS = ("grammar", "response_format", "structured_outputs", "guided_choice", "guided_regex")


def _sent(ep: ScriptedEndpoint) -> dict:
    body = ep.requests[-1].body or {}
    return {k: body[k] for k in _FIELDS if k in body}


@pytest.mark.parametrize("mode,constraint,kind,expected", [
    ("grammar", CHOICE, "completions", {"grammar": CHOICE.gbnf()}),
    ("grammar", ADAPTER, "chat", {"grammar": ADAPTER.gbnf()}),
    ("json_schema", ADAPTER, "chat", {"response_format": {"type": "json_schema", "json_schema": {
        "name": "answer", "strict": True, "schema": ADAPTER.json_schema()}}}),
    ("json_schema", ADAPTER, "completions", {}),  # no response_format on completions: validated only
    ("structured_outputs", CHOICE, "chat", {"structured_outputs": {"choice": list(CHOICE.choices)}}),
    ("structured_outputs", ADAPTER, "completions", {"structured_outputs": {"regex": ADAPTER.regex()}}),
    ("guided", CHOICE, "completions", {"guided_choice": list(CHOICE.choices)}),
    ("guided", CRITIC, "chat", {"guided_regex": CRITIC.regex()}),
    ("off", CHOICE, "chat", {}),
])
def test_request_body_per_mode(mode: str, constraint: Constraint, kind: str, expected: dict,
                               scripted_endpoint: ScriptedEndpoint, tmp_path: Path) -> None:
    legal = sorted(CASES_BY_ID[id(constraint)])[0]
    if mode == "json_schema" and kind == "chat":  # the server answers JSON; the client maps it back to text
        scripted_endpoint.push(json.dumps(dict(zip(constraint.names, _fill(constraint, legal)))))
    else:
        scripted_endpoint.push(legal)
    with LLMClient(scripted_endpoint.settings(constrain=mode), cache_dir=tmp_path) as client:
        if kind == "chat":
            resp = client.chat("actor", [{"role": "user", "content": "next?"}], constraint=constraint)
        else:
            resp = client.complete("actor", "next?", constraint=constraint)
    assert _sent(scripted_endpoint) == expected
    assert resp.text == legal and resp.legal is True
    assert resp.constrain == (mode if expected else "off")


def _fill(constraint: Constraint, text: str) -> tuple[str, ...]:
    match = re.fullmatch(constraint.regex(), text)
    assert match is not None
    return match.groups()


def test_endpoint_that_ignores_the_constraint_is_caught(scripted_endpoint: ScriptedEndpoint, tmp_path: Path) -> None:
    scripted_endpoint.push("I would open the fridge first.", " Navigation Fridge\n", "the value is 3/2",
                           "not json at all")
    with LLMClient(scripted_endpoint.settings(constrain="grammar"), cache_dir=tmp_path) as client:
        free = client.complete("actor", "a", constraint=CHOICE)
        ok = client.complete("actor", "b", constraint=CHOICE)
        again = client.complete("actor", "a", constraint=CHOICE)   # a cache hit is judged again
        critic = client.complete("critic", "c", constraint=CRITIC)
        plain = client.complete("critic", "d")                     # no constraint: no verdict
        summary = client.usage.summary()
    assert free.legal is False and free.text == "I would open the fridge first."   # returned, not raised
    assert ok.legal is True and ok.text == "Navigation Fridge"
    assert again.cached and again.legal is False
    assert critic.legal is False and plain.legal is None and plain.constrain is None
    assert summary["constrained"] == 4 and summary["illegal"] == 3
    assert summary["by_role"]["actor"]["illegal"] == 2 and summary["by_role"]["critic"]["illegal"] == 1
    assert summary["by_role"]["critic"]["constrained"] == 1


def test_json_schema_answer_ignored_or_broken(scripted_endpoint: ScriptedEndpoint, tmp_path: Path) -> None:
    scripted_endpoint.push("Navigation Fridge", '{"answer": "Navigation Garage"}')
    with LLMClient(scripted_endpoint.settings(constrain="json_schema"), cache_dir=tmp_path) as client:
        msgs = [{"role": "user", "content": "next?"}]
        plain = client.chat("actor", msgs, constraint=CHOICE)            # response_format ignored, legal text
        bad = client.chat("actor", msgs + msgs, constraint=CHOICE)       # JSON, but not a legal option
    assert plain.legal is True and plain.text == "Navigation Fridge"
    assert bad.legal is False and bad.text == '{"answer": "Navigation Garage"}'


def test_over_the_enum_limit_goes_unconstrained(scripted_endpoint: ScriptedEndpoint, tmp_path: Path) -> None:
    big = Constraint.choice([f"Navigation Place{i}" for i in range(600)])
    scripted_endpoint.push("Navigation Place7")
    with LLMClient(scripted_endpoint.settings(constrain="json_schema"), cache_dir=tmp_path) as client:
        resp = client.chat("actor", [{"role": "user", "content": "go"}], constraint=big)
    assert _sent(scripted_endpoint) == {} and resp.constrain == "off" and resp.legal is True


def test_constraint_is_part_of_the_cache_key(scripted_endpoint: ScriptedEndpoint, tmp_path: Path) -> None:
    scripted_endpoint.push("Navigation Fridge", "PickupObject Apple")
    with LLMClient(scripted_endpoint.settings(constrain="grammar"), cache_dir=tmp_path) as client:
        first = client.complete("actor", "p", constraint=CHOICE)
        other = client.complete("actor", "p", constraint=Constraint.choice(SUBGOALS[1:3]))
        hit = client.complete("actor", "p", constraint=CHOICE)
    assert not first.cached and not other.cached and hit.cached
    assert first.text == hit.text == "Navigation Fridge" and other.text == "PickupObject Apple"


def test_constraint_and_raw_grammar_conflict(scripted_endpoint: ScriptedEndpoint, tmp_path: Path) -> None:
    with LLMClient(scripted_endpoint.settings(constrain="grammar"), cache_dir=tmp_path) as client:
        with pytest.raises(ValueError, match="not both"):
            client.complete("actor", "p", grammar='root ::= "a"', constraint=CHOICE)
    assert scripted_endpoint.requests == []


@pytest.mark.parametrize("owned_by,version,expected", [
    ("vllm", "0.11.0", "structured_outputs"),
    ("vllm", "0.10.2rc1.dev5+gabc", "structured_outputs"),
    ("vllm", "0.9.2", "guided"),
    ("vllm", None, "structured_outputs"),   # no /version: a current server is the better guess
    ("llamacpp", None, "grammar"),
    ("scripted", None, "off"),              # unknown: nothing sent, answers still validated
])
def test_auto_detects_the_endpoint(owned_by: str, version: str | None, expected: str, tmp_path: Path) -> None:
    with ScriptedEndpoint(owned_by=owned_by, version=version) as ep:
        with LLMClient(ep.settings(), cache_dir=tmp_path) as client:
            assert client.constrain_mode("actor") == expected
            client.complete("actor", "p", constraint=CHOICE)
            client.complete("critic", "q", constraint=CHOICE)
        listings = [g for g in ep.gets if g.rstrip("/").endswith("/models")]
    assert len(listings) == 1  # detected once per endpoint, then cached
    sent = set(_sent(ep))
    assert sent == {"grammar": {"grammar"}, "structured_outputs": {"structured_outputs"},
                    "guided": {"guided_choice"}, "off": set()}[expected]


def test_auto_without_network(tmp_path: Path) -> None:
    client_settings = LLMSettings(endpoint="https://api.openai.com/v1", model="gpt-4o-mini",
                                  roles={"critic": {"endpoint": "embedded", "model": "gemma3-270m"},
                                         "adapter": {"constrain": "off"}})
    client = LLMClient(client_settings, cache_dir=tmp_path)
    try:
        assert client.constrain_mode("actor") == "json_schema"
        assert client.constrain_mode("critic") == "grammar"      # embedded: llama-cpp-python's grammar field
        assert client.constrain_mode("adapter") == "off"         # an explicit mode is used as is
    finally:
        client.close()


def test_unreachable_endpoint_is_not_cached_as_off(tmp_path: Path) -> None:
    ep = ScriptedEndpoint(owned_by="vllm").start()
    settings = ep.settings(retries=0)
    ep.stop()
    with LLMClient(settings, cache_dir=tmp_path) as client:
        assert client.constrain_mode("actor") == "off"
        assert client._modes == {}   # asked again on the next call


def test_constrain_setting() -> None:
    assert LLMSettings().constrain == "auto"
    assert LLMSettings.from_params({"constrain": False}).constrain == "off"   # YAML reads a bare `off` as false
    assert LLMSettings.from_params({"roles": {"critic": {"constrain": "Grammar"}}}).for_role("critic").constrain == "grammar"
    with pytest.raises(ValueError, match="constrain"):
        LLMSettings.from_params({"constrain": "regex"})


# ---- llama.cpp itself ---------------------------------------------------------------------------------------
def _gemma_vocab():  # the vocabulary of the embedded gemma (loaded without weights: ~1 s), or skip
    llama_cpp = pytest.importorskip("llama_cpp")
    from llm.paths import models_dir
    from llm.presets import preset
    path = models_dir() / preset("gemma3-270m").filename
    if not path.exists():
        pytest.skip(f"{path} not assembled (make setup)")
    model = llama_cpp.Llama(str(path), vocab_only=True, verbose=False)
    return llama_cpp, model


@pytest.mark.parametrize("constraint", [c for c, _ in CASES] + [Constraint.choice(["tab\there", "new\nline"])],
                         ids=["choice", "adapter", "critic", "control-chars"])
def test_llama_cpp_parses_the_grammar(constraint: Constraint) -> None:
    llama_cpp, model = _gemma_vocab()
    vocab = llama_cpp.llama_model_get_vocab(model.model)

    def parses(grammar: str) -> bool:
        sampler = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode(), b"root")
        if sampler:
            llama_cpp.llama_sampler_free(sampler)
        return bool(sampler)

    assert not parses('root ::= "unterminated')  # the check can fail
    assert parses(constraint.gbnf())


@pytest.mark.llm
def test_real_gemma_answers_inside_a_choice_grammar(tmp_path: Path) -> None:
    from llm.embedded import stop_owned_servers
    options = ["Navigation Fridge", "PickupObject Apple", "OpenObject Drawer"]
    settings = LLMSettings(endpoint="embedded", model="gemma3-270m", max_tokens=12, timeout=120, retries=1)
    prompt = "Task: put a cold apple on the table.\nSeen: Fridge, Apple, Drawer.\nNext sub-goal:"
    try:
        with LLMClient(settings, cache_dir=tmp_path) as client:
            free = client.complete("actor", prompt, stop=["\n\n"])
            constrained = client.complete("actor", prompt, constraint=Constraint.choice(options))
    finally:
        stop_owned_servers()
    assert constrained.constrain == "grammar" and constrained.legal is True and constrained.text in options
    assert free.legal is None
